#!/usr/bin/env python3
"""An independent drawing of vector tiles, for the styled map's pixel tests (VectorProofTests).

    python3 tools/vector-reference.py JOB.json

Reads the tiles of an MBTiles file with PyPI's mapbox-vector-tile (not maptrip's decoder) and draws
them with Pillow's ImageDraw (not Cairo), four times over-sampled and box-filtered down, one PNG per
view. JOB.json:

    {"tiles": "helsinki.mbtiles", "background": [0, 0, 0],
     "layers": [{"source-layer": "water", "type": "fill", "color": [0, 0, 255]},
                {"source-layer": "transportation", "type": "line", "classes": ["primary"],
                 "width": 6, "color": [255, 0, 0]}],
     "views": [{"lon": 24.9465, "lat": 60.1695, "zoom": 16, "width": 640, "height": 360, "scale": 1,
                "out": "a.png"}]}

A view is maptrip's camera: `zoom` shows a world 256 x 2^zoom x `scale` pixels wide, the style's
(MapLibre's) zoom being one less; tiles are taken at the style zoom's integer part within the set's
zooms (deeper views enlarge the deepest tiles). Layers are painted in order, each tile's features clipped to the
tile's own square (its buffer dropped); fills obey their holes, lines have round caps and joins;
`classes` keeps the features whose `class` property is one of them. Installs mapbox-vector-tile and
Pillow with pip when they are missing (into ~/.cache/maptrip/pythonX.Y-packages)."""
import gzip, json, math, os, sqlite3, subprocess, sys

# Installed, when missing, into a folder of their own (so an externally managed Python, as Debian's
# is, takes them too), kept between runs.
PACKAGES = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "maptrip",
                        "python%d.%d-packages" % sys.version_info[:2])
sys.path.append(PACKAGES)
try:
    import mapbox_vector_tile
    from PIL import Image, ImageChops, ImageDraw
except ImportError:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--target", PACKAGES,
                           "mapbox-vector-tile>=2.1,<3", "pillow>=10"])
    import importlib
    importlib.invalidate_caches()
    import mapbox_vector_tile
    from PIL import Image, ImageChops, ImageDraw

SAMPLES = 4  # over-sampling per axis

def project(lon, lat):
    """Web Mercator, the unit square, y down."""
    s = math.sin(math.radians(lat))
    return (lon + 180) / 360, 0.5 - math.log((1 + s) / (1 - s)) / (4 * math.pi)

class Tiles:
    def __init__(self, path):
        self.db = sqlite3.connect(path)
        zooms = self.db.execute("SELECT MIN(zoom_level), MAX(zoom_level) FROM tiles").fetchone()
        self.min_zoom, self.max_zoom = zooms
        self.cache = {}

    def get(self, z, x, y):
        key = (z, x, y)
        if key not in self.cache:
            row = self.db.execute("SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                                  (z, x, (1 << z) - 1 - y)).fetchone()
            if row is None:
                self.cache[key] = None
            else:
                data = row[0]
                data = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
                self.cache[key] = mapbox_vector_tile.decode(data, default_options={"y_coord_down": True})
        return self.cache[key]

def parts(geometry):
    """(kind, [polygon as [ring, ...]] or [line]) whatever Multi- wrapping the reader used."""
    t, c = geometry["type"], geometry["coordinates"]
    if t == "Polygon": return "fill", [c]
    if t == "MultiPolygon": return "fill", c
    if t == "LineString": return "line", [c]
    if t == "MultiLineString": return "line", c
    return "point", []

def draw_view(tiles, job, view):
    width, height, zoom = view["width"], view["height"], view["zoom"]
    w, h = width * SAMPLES, height * SAMPLES
    scale = view.get("scale", 1)  # the pixel ratio: widths and the world scale with it
    size = 256 * 2 ** zoom * scale * SAMPLES  # the world's width in over-sampled pixels
    cx, cy = project(view["lon"], view["lat"])
    tz = min(max(math.floor(zoom - 1), tiles.min_zoom), tiles.max_zoom)
    n = 1 << tz
    # Frame pixel (continuous, a pixel i spanning [i, i + 1)) of a world point.
    def px(wx, wy):
        return (wx - cx) * size + w / 2, (wy - cy) * size + h / 2
    x0, y0 = cx - w / 2 / size, cy - h / 2 / size
    x1, y1 = cx + w / 2 / size, cy + h / 2 / size
    shown = [(tx, ty) for ty in range(max(math.floor(y0 * n), 0), min(math.floor(y1 * n), n - 1) + 1)
             for tx in range(math.floor(x0 * n), math.floor(x1 * n) + 1)]
    canvas = Image.new("RGB", (w, h), tuple(job.get("background", [0, 0, 0])))
    for layer in job["layers"]:
        mask = Image.new("L", (w, h), 0)
        for tx, ty in shown:
            tile = tiles.get(tz, tx % n, ty)
            if tile is None or layer["source-layer"] not in tile:
                continue
            data = tile[layer["source-layer"]]
            extent = data["extent"]
            # The tile's square in over-sampled pixels; Pillow's pixel centres are at whole numbers.
            left, top = px(tx / n, ty / n)
            right, bottom = px((tx + 1) / n, (ty + 1) / n)
            def point(p):
                return (left + (right - left) * p[0] / extent - 0.5, top + (bottom - top) * p[1] / extent - 0.5)
            drawn = Image.new("L", (w, h), 0)
            pen = ImageDraw.Draw(drawn)
            for feature in data["features"]:
                classes = layer.get("classes")
                if classes is not None and feature["properties"].get("class") not in classes:
                    continue
                kind, items = parts(feature["geometry"])
                if kind != layer["type"]:
                    continue
                if kind == "fill":
                    for polygon in items:
                        rings = [[point(p) for p in ring] for ring in polygon]
                        if len(polygon) == 1:
                            pen.polygon(rings[0], fill=255)
                            continue
                        # Holes: the polygon alone, then added, so a hole never clears a neighbour.
                        alone = Image.new("L", (w, h), 0)
                        d = ImageDraw.Draw(alone)
                        d.polygon(rings[0], fill=255)
                        for hole in rings[1:]:
                            d.polygon(hole, fill=0)
                        drawn = ImageChops.lighter(drawn, alone)
                        pen = ImageDraw.Draw(drawn)
                else:
                    lw = layer["width"] * scale * SAMPLES
                    r = lw / 2
                    for line in items:
                        pts = [point(p) for p in line]
                        pen.line(pts, fill=255, width=round(lw), joint="curve")
                        for x, y in (pts[0], pts[-1]):
                            pen.ellipse((x - r, y - r, x + r, y + r), fill=255)
            # Only the tile's own square.
            square = Image.new("L", (w, h), 0)
            ImageDraw.Draw(square).rectangle((round(left), round(top), round(right) - 1, round(bottom) - 1), fill=255)
            mask = ImageChops.lighter(mask, ImageChops.multiply(drawn, square))
        canvas.paste(tuple(layer["color"]), (0, 0), mask)
    canvas.resize((width, height), Image.BOX).save(view["out"])

def main():
    with open(sys.argv[1]) as f:
        job = json.load(f)
    base = os.path.dirname(os.path.abspath(sys.argv[1]))
    tiles = Tiles(os.path.join(base, job["tiles"]))
    for view in job["views"]:
        view["out"] = os.path.join(base, view["out"])
        draw_view(tiles, job, view)
    print(f"{len(job['views'])} views drawn with mapbox-vector-tile and Pillow")

if __name__ == "__main__":
    main()
