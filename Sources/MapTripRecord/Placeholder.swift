// MapTripRecord: placeholder until its wrapper lands.
