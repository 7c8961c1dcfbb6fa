// SQLite: placeholder until its wrapper lands.
