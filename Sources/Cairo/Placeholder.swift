// Cairo: placeholder until its wrapper lands.
