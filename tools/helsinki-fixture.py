#!/usr/bin/env python3
"""Writes Tests/MapTripTilesTests/Fixtures/helsinki-mvt.json: what an independent MVT reader (PyPI's
mapbox-vector-tile, y axis down) finds in Assets/tiles/helsinki.mbtiles, for the tests to compare
maptrip's decoder with (so the tests need no pip). Every tile: its layers' extents and feature
counts and the SHA-256 of its inflated bytes; one street (Aleksanterinkatu, in the
transportation_name layer of tile 14/9327/4742): every line of it; one building's rings. Run it
again after tools/helsinki-tiles.sh: python3 tools/helsinki-fixture.py (installs mapbox-vector-tile
if missing)."""
import gzip, hashlib, json, os, sqlite3, subprocess, sys

try:
    import mapbox_vector_tile
except ImportError:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", "mapbox-vector-tile>=2.1,<3"])
    import mapbox_vector_tile
from importlib.metadata import version

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
db = sqlite3.connect(os.path.join(root, "Assets/tiles/helsinki.mbtiles"))

def decode(data):
    return mapbox_vector_tile.decode(data, default_options={"y_coord_down": True})

def parts(geometry):
    """Lines or rings as lists of [x, y], whatever Multi- wrapping the reader used."""
    t, c = geometry["type"], geometry["coordinates"]
    if t == "LineString": return [c]
    if t == "MultiLineString": return c
    if t == "Polygon": return c
    if t == "MultiPolygon": return [r for p in c for r in p]
    if t == "Point": return [[c]]
    if t == "MultiPoint": return [[p] for p in c]
    raise ValueError(t)

tiles = {}
for z, x, tms_y, data in db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles ORDER BY 1, 2, 3"):
    y = (1 << z) - 1 - tms_y
    raw = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    layers = decode(raw)
    tiles[f"{z}/{x}/{y}"] = {
        "sha256": hashlib.sha256(raw).hexdigest(),
        "layers": {name: {"extent": l["extent"], "features": len(l["features"])} for name, l in layers.items()},
    }

key = (14, 9327, 4742)
data = db.execute("SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                  (key[0], key[1], (1 << key[0]) - 1 - key[2])).fetchone()[0]
tile = decode(gzip.decompress(data))
street = [p for f in tile["transportation_name"]["features"] if f["properties"].get("name") == "Aleksanterinkatu"
          for p in parts(f["geometry"])]
buildings = [f for f in tile["building"]["features"]]
largest = max(buildings, key=lambda f: sum(len(r) for r in parts(f["geometry"])))

fixture = {
    "made_by": "tools/helsinki-fixture.py with mapbox-vector-tile " + version("mapbox-vector-tile")
               + " (y_coord_down) from Assets/tiles/helsinki.mbtiles",
    "tiles": tiles,
    "street": {"tile": "14/9327/4742", "layer": "transportation_name", "name": "Aleksanterinkatu", "lines": street},
    "building": {"tile": "14/9327/4742", "properties": largest["properties"], "rings": parts(largest["geometry"])},
}
out = os.path.join(root, "Tests/MapTripTilesTests/Fixtures/helsinki-mvt.json")
with open(out, "w") as f:
    json.dump(fixture, f, indent=1, sort_keys=True)
print(f"{out}: {len(tiles)} tiles, street of {len(street)} lines, building of {len(fixture['building']['rings'])} rings")
