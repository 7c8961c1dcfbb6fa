// MapTripTiles: placeholder until its wrapper lands.
