// Shapefile: placeholder until its wrapper lands.
