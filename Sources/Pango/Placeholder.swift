// Pango: placeholder until its wrapper lands.
