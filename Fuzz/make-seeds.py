#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora (Corpus/<harness>/seed-*): small valid inputs of every kind each
reader meets, for libFuzzer to mutate. Run from Fuzz/; needs the repository's Scenes and Assets, and
the ffmpeg command for the JPEG and WebP seeds. Crashers found later are added beside them by hand
(crash-*), and `.ci/fuzz` replays the whole corpus every run."""
import os, shutil, sqlite3, struct, subprocess, tempfile, zlib

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)

def out(harness, name, data):
    folder = os.path.join(here, "Corpus", harness)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "seed-" + name), "wb") as f:
        f.write(data)

# Scenes: the examples, and small scenes reaching each part of the format.
for name in sorted(os.listdir(os.path.join(root, "Scenes"))):
    if name.endswith(".json"):
        out("scene", name, open(os.path.join(root, "Scenes", name), "rb").read())
small = {
    "minimal.json": '{"places":[{"lat":48.85,"lon":2.35},{"lat":51.5,"lon":-0.12}]}',
    "dwell.json": '{"dwell":1.5,"places":[{"lat":0,"lon":179.9,"dwell":0.5},{"lat":0,"lon":-179.9,"title":"Date line"}]}',
    "video.json": '{"video":{"width":320,"height":180,"fps":24,"scale":1},"places":[{"lat":-33.9,"lon":151.2},{"lat":35.7,"lon":139.7}]}',
    "tiles.json": '{"map":{"tiles":"tiles/{z}/{x}/{y}.png","maxZoom":5},"places":[{"lat":10,"lon":10},{"lat":-10,"lon":-10}]}',
    "numbers.json": '{"places":[{"lat":1e-320,"lon":-0.0},{"lat":9007199254740993,"lon":1E+2}]}',
    "strings.json": '{"title":"\\u00e9\\ud83d\\ude00\\n","places":[{"name":"Paris"},{"lat":1,"lon":2,"title":"\\"q\\""}]}',
    "bad.json": '{"places":[{"lat":91,"lon":"x"},],}',
}
for name, text in small.items():
    out("scene", name, text.encode())

# Images: PNG of each colour type, written by hand; JPEG and WebP by ffmpeg.
def png(width, height, colour_type, bit_depth, rows, palette=None, trns=None):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0))
    if palette: data += chunk(b"PLTE", palette)
    if trns: data += chunk(b"tRNS", trns)
    raw = b"".join(b"\x00" + r for r in rows)
    return data + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
out("image", "gray.png", png(4, 4, 0, 8, [bytes([x * 60 for x in range(4)])] * 4))
out("image", "rgb.png", png(4, 4, 2, 8, [bytes([200, 10, 10] * 4)] * 4))
out("image", "rgba.png", png(4, 4, 6, 8, [bytes([10, 200, 10, 128] * 4)] * 4))
out("image", "palette.png", png(4, 4, 3, 8, [bytes([0, 1, 0, 1])] * 4, palette=b"\xff\x00\x00\x00\x00\xff", trns=b"\x80"))
out("image", "gray16.png", png(2, 2, 4, 16, [bytes(8)] * 2))
with tempfile.TemporaryDirectory() as t:
    for ext in ("jpg", "webp"):
        path = os.path.join(t, "x." + ext)
        subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=16x16", "-frames:v", "1", path], check=True)
        out("image", "testsrc." + ext, open(path, "rb").read())

# Shapefiles: the first records of the embedded map's layers, rewritten as small files, as
# Fuzz.split's input (a UInt16 .shx length, the .shx, then the .shp).
def cut(layer, records):
    shp = open(os.path.join(root, "Assets", "basemap", "110m", layer + ".shp"), "rb").read()
    shx = open(os.path.join(root, "Assets", "basemap", "110m", layer + ".shx"), "rb").read()
    index = [struct.unpack(">ii", shx[100 + 8 * i: 108 + 8 * i]) for i in range(records)]
    end = (index[-1][0] + 4 + index[-1][1]) * 2           # offsets and lengths in 16-bit words
    new_shp = bytearray(shp[:end]); new_shp[24:28] = struct.pack(">i", end // 2)
    new_shx = bytearray(shx[:100 + 8 * records]); new_shx[24:28] = struct.pack(">i", (100 + 8 * records) // 2)
    return struct.pack("<H", len(new_shx)) + bytes(new_shx) + bytes(new_shp)
out("shapefile", "lines.bin", cut("ne_110m_admin_0_boundary_lines_land", 3))
out("shapefile", "polygons.bin", cut("ne_110m_admin_0_countries", 2))

# MBTiles: a tiny PNG tile with full metadata, a JPEG one without it, an empty tiles table, a view.
def mbtiles(name, statements, tile):
    with tempfile.TemporaryDirectory() as t:
        path = os.path.join(t, "x.mbtiles")
        db = sqlite3.connect(path)
        for s in statements:
            db.execute(s)
        if tile is not None:
            db.execute("INSERT INTO tiles VALUES (0, 0, 0, ?)", (tile,))
        db.commit(); db.execute("VACUUM"); db.close()
        out("mbtiles", name, open(path, "rb").read())
table = "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)"
meta = "CREATE TABLE metadata (name TEXT, value TEXT)"
mbtiles("png.mbtiles", [table, meta, "INSERT INTO metadata VALUES ('name','t'),('format','png'),('bounds','-180,-85,180,85'),('minzoom','0'),('maxzoom','0'),('attribution','x')"],
        open(os.path.join(here, "Corpus", "image", "seed-rgb.png"), "rb").read())
mbtiles("jpg.mbtiles", [table], open(os.path.join(here, "Corpus", "image", "seed-testsrc.jpg"), "rb").read())
mbtiles("empty.mbtiles", [table, meta], None)
mbtiles("view.mbtiles", ["CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT)",
                         "CREATE TABLE images (tile_id TEXT, tile_data BLOB)",
                         "INSERT INTO map VALUES (0,0,0,'a')", "INSERT INTO images VALUES ('a', x'89504e47')",
                         "CREATE VIEW tiles AS SELECT zoom_level, tile_column, tile_row, tile_data FROM map JOIN images USING (tile_id)"], None)

# Vector tiles: the Helsinki tiles of zooms 11-13 (gzipped as stored, and inflated) and the PMTiles
# reference fixtures' tiles.
import gzip
helsinki = sqlite3.connect(os.path.join(root, "Assets", "tiles", "helsinki.mbtiles"))
for z, x, y, data in helsinki.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles "
                                      "WHERE zoom_level BETWEEN 11 AND 13 ORDER BY 1, 2, 3 LIMIT 3"):
    out("vectortile", f"helsinki-{z}-{x}-{y}.mvt.gz", data)
    out("vectortile", f"helsinki-{z}-{x}-{y}.mvt", gzip.decompress(data))
fixtures = os.path.join(root, "Tests", "MapTripTilesTests", "Fixtures", "pmtiles")

# PMTiles: the reference implementation's two small archives, and one written here with leaf
# directories and runs (a few Helsinki tiles under small made-up ones).
for name in ["test_fixture_1", "test_fixture_2"]:
    out("pmtiles", name + ".pmtiles", open(os.path.join(fixtures, name + ".pmtiles"), "rb").read())

def varint(v):
    b = bytearray()
    while v >= 0x80:
        b.append((v & 0x7F) | 0x80); v >>= 7
    b.append(v)
    return bytes(b)

def directory(entries):  # (tile_id, offset, length, run_length)
    b, last = varint(len(entries)), 0
    for e in entries: b += varint(e[0] - last); last = e[0]
    for e in entries: b += varint(e[3])
    for e in entries: b += varint(e[2])
    for i, e in enumerate(entries):
        b += varint(0 if i and e[1] == entries[i - 1][1] + entries[i - 1][2] else e[1] + 1)
    return b

def archive(blobs, leaf_size):  # blobs: [(tile_id, bytes, run_length)] ascending
    data, entries = b"", []
    for tid, blob, run in blobs:
        entries.append((tid, len(data), len(blob), run)); data += blob
    leaves, root = b"", []
    for i in range(0, len(entries), leaf_size):
        leaf = gzip.compress(directory(entries[i:i + leaf_size]), mtime=0)
        root.append((entries[i][0], len(leaves), len(leaf), 0)); leaves += leaf
    root = gzip.compress(directory(root), mtime=0)
    meta = gzip.compress(b'{"name":"seed","vector_layers":[{"id":"water","fields":{}}]}', mtime=0)
    offsets = [127, len(root), 127 + len(root), len(meta), 127 + len(root) + len(meta), len(leaves),
               127 + len(root) + len(meta) + len(leaves), len(data), len(blobs), len(entries), len(entries)]
    header = b"PMTiles\x03" + struct.pack("<11Q", *offsets) + bytes([1, 2, 2, 1, 0, 4])
    header += struct.pack("<iiii", -1800000000, -850000000, 1800000000, 850000000) + bytes([0]) + struct.pack("<ii", 0, 0)
    assert len(header) == 127
    return header + root + meta + leaves + data
small = [gzip.compress(d, mtime=0) for _, _, _, d in
         helsinki.execute("SELECT * FROM tiles WHERE zoom_level <= 11 ORDER BY zoom_level")]
blobs = [(0, small[0], 1), (1, small[1], 4), (5, small[2], 16), (21, small[3], 3), (40, small[4], 1)]
out("pmtiles", "leaves.pmtiles", archive(blobs, 2))

# Recorded tracks: the test fixtures (real FIT files, the writers' GPX, KML, KMZ and GeoJSON). The
# XML harness reads its first byte as the root to put before the rest: 3 keeps the file as it is.
tracks = os.path.join(root, "Tests", "MapTripTracksTests", "Fixtures")
for name in ["Activity.fit", "activity-settings.fit", "garmin-fenix-5-run.fit", "compressed-speed-distance.fit",
             "elemnt-bolt-no-application-id-inside-developer-data-id.fit"]:
    out("fit", name, open(os.path.join(tracks, "fit", name), "rb").read())
for name in ["gpxpy.gpx", "simplekml.kml", "simplekml.kmz"]:
    out("trackxml", name, b"\x03" + open(os.path.join(tracks, "written", name), "rb").read())
out("trackxml", "tcx.tcx", b"\x03" + b'<TrainingCenterDatabase><Activities><Activity><Lap><Track><Trackpoint><Time>2024-05-01T09:30:00Z</Time>'
    b'<Position><LatitudeDegrees>60.1</LatitudeDegrees><LongitudeDegrees>24.9</LongitudeDegrees></Position><HeartRateBpm><Value>120</Value>'
    b'</HeartRateBpm></Trackpoint></Track></Lap></Activity></Activities></TrainingCenterDatabase>')
out("geojson", "written.geojson", open(os.path.join(tracks, "written", "json.geojson"), "rb").read())
out("geojson", "line.geojson", b'{"type":"Feature","properties":{"times":[1700000000,"2023-11-14T22:13:21Z"]},'
    b'"geometry":{"type":"GeometryCollection","geometries":[{"type":"LineString","coordinates":[[2,1],[2.001,1.001,5]]},'
    b'{"type":"MultiPoint","coordinates":[[5,6]]},{"type":"Polygon","coordinates":[]}]}}')

# Photos' EXIF: an example photo (big-endian, written by tools/ride-photos.py); seed-little-endian.jpg
# (Intel order, an offset, S/W refs, Orientation 6) and seed-bare.exif (the block without a JPEG) were
# written once beside it.
out("exif", "ride-photo.jpg", open(os.path.join(root, "Scenes", "ride-photos", "photo-1.jpg"), "rb").read())

# Style expressions: every eighth of maplibre-style-spec's expression fixtures (a few dozen, over
# most operators), a legacy filter, a legacy zoom function and a text-field with tokens.
import json
fixtures = json.load(open(os.path.join(root, "Tests", "MapTripStyleTests", "Fixtures", "expression-fixtures.json")))["fixtures"]
for i, name in enumerate(sorted(fixtures)):
    if i % 8 == 0 and "expression" in fixtures[name]:
        out("expression", name.replace("/", "-") + ".json", json.dumps(fixtures[name]["expression"]).encode())
out("expression", "legacy-filter.json", b'["all",["==","$type","Polygon"],["in","class","park","wood"],["!has","name"]]')
out("expression", "legacy-function.json", b'{"base":1.4,"stops":[[5,0.5],[12,3],[18,20]]}')
out("expression", "tokens.json", b'"{name:latin}\\n{name:nonlatin}"')
