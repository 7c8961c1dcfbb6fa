// Curl: placeholder until its wrapper lands.
