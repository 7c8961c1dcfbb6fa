// Proj: placeholder until its wrapper lands.
