// FFmpeg: placeholder until its wrapper lands.
