// YUV: placeholder until its wrapper lands.
