#!/usr/bin/env python3
"""python3 tools/borders-by-importance.py SOURCE_10M_DIR [OUT_DIR]

Splits Natural Earth's 1:10m province lines and land borders into files the embedded map shows from
their own zooms (Assets/basemap/10m/ by default). The 1:10m files at hand carry no attributes (no
.dbf: no scalerank, min_zoom or FEATURECLA; none of the packages searched ships them), so the
importance is derived from the geometry, in the spirit of Natural Earth's own ranks:

* Province lines: each line's min zoom is where the province lines around it are far enough apart
  on screen (their density, km of line per km2 within about 100 km, turned into pixels between
  lines at the line's latitude), so big states and provinces (the US, Canada, Russia, Australia,
  Brazil) show first, small countries' regions next, and dense grids (France's departments,
  Slovenia's and North Macedonia's municipalities) only where they are no longer a smudge. Written as
  ne_10m_admin_1_states_provinces_lines_zN (N = 5..9: shown from zoom N; N = 9 holds all later ones).
* Land borders: where two or more border lines run side by side within a few km over most of their
  length (Korea's demarcation line between the northern and southern limits of the DMZ, Cyprus's
  buffer zone), the middle one is kept as the border and the others written to
  ne_10m_admin_0_boundary_lines_land_alternates, shown only close up; the rest stay in
  ne_10m_admin_0_boundary_lines_land.

Only .shp/.shx/.prj are written (no attribute columns), like the other Assets layers. Pure Python.
"""
import math
import os
import shutil
import struct
import sys

SPACING_PX = 28.0  # the pixels wanted between neighbouring province lines at a line's min zoom
TIERS = [5, 6, 7, 8, 9]
PARALLEL_KM = 7.0  # side-by-side border lines closer than this ...
PARALLEL_SHARE = 0.6  # ... over this share of their length are alternates of one border
MIN_KM = 50.0  # ... and both longer than this (not the two sides of a narrow country such as Liechtenstein)
KM_PER_DEG = 111.2


def read_lines(path):
    data = open(path, 'rb').read()
    pos, feats = 100, []
    while pos < len(data):
        _, words = struct.unpack('>ii', data[pos:pos + 8])
        rec = data[pos + 8:pos + 8 + words * 2]
        pos += 8 + words * 2
        if struct.unpack('<i', rec[:4])[0] == 0:
            continue
        nparts, npts = struct.unpack('<ii', rec[36:44])
        starts = list(struct.unpack('<%di' % nparts, rec[44:44 + 4 * nparts])) + [npts]
        o = 44 + 4 * nparts
        xy = struct.unpack('<%dd' % (2 * npts), rec[o:o + 16 * npts])
        pts = list(zip(xy[0::2], xy[1::2]))
        feats.append([pts[starts[i]:starts[i + 1]] for i in range(nparts)])
    return feats


def write_lines(base, feats):
    """Writes base.shp and base.shx: polylines (shape type 3), in the order given."""
    records = []
    for f in feats:
        pts = [p for part in f for p in part]
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        starts, n = [], 0
        for part in f:
            starts.append(n)
            n += len(part)
        body = struct.pack('<i4d2i', 3, min(xs), min(ys), max(xs), max(ys), len(f), len(pts))
        body += struct.pack('<%di' % len(f), *starts)
        body += struct.pack('<%dd' % (2 * len(pts)), *[c for p in pts for c in p])
        records.append(body)
    allx = [p[0] for f in feats for part in f for p in part]
    ally = [p[1] for f in feats for part in f for p in part]
    box = (min(allx), min(ally), max(allx), max(ally)) if allx else (0, 0, 0, 0)

    def header(length_words):
        return struct.pack('>7i', 9994, 0, 0, 0, 0, 0, length_words) + struct.pack('<2i', 1000, 3) + \
            struct.pack('<8d', box[0], box[1], box[2], box[3], 0, 0, 0, 0)
    shp_words = 50 + sum(4 + len(r) // 2 for r in records)
    with open(base + '.shp', 'wb') as shp, open(base + '.shx', 'wb') as shx:
        shp.write(header(shp_words))
        shx.write(header(50 + 4 * len(records)))
        offset = 50
        for i, r in enumerate(records):
            shp.write(struct.pack('>2i', i + 1, len(r) // 2) + r)
            shx.write(struct.pack('>2i', offset, len(r) // 2))
            offset += 4 + len(r) // 2


def seg_km(a, b):
    k = math.cos(math.radians((a[1] + b[1]) / 2))
    return math.hypot((b[0] - a[0]) * k, b[1] - a[1]) * KM_PER_DEG


def length_km(f):
    return sum(seg_km(p[i], p[i + 1]) for p in f for i in range(len(p) - 1))


def province_min_zooms(feats, cell=0.5, radius=2):
    """Each line's min zoom from the density of province lines around it."""
    grid = {}
    for f in feats:
        for p in f:
            for i in range(len(p) - 1):
                a, b = p[i], p[i + 1]
                key = (math.floor((a[0] + b[0]) / 2 / cell), math.floor((a[1] + b[1]) / 2 / cell))
                grid[key] = grid.get(key, 0.0) + seg_km(a, b)
    zooms = []
    for f in feats:
        pts = [q for p in f for q in p]
        lon = sum(q[0] for q in pts) / len(pts)
        lat = sum(q[1] for q in pts) / len(pts)
        cx, cy = math.floor(lon / cell), math.floor(lat / cell)
        total, area = 0.0, 0.0
        for dx in range(-radius, radius + 1):
            for dy in range(-radius, radius + 1):
                total += grid.get((cx + dx, cy + dy), 0.0)
                y = (cy + dy + 0.5) * cell
                area += (cell * KM_PER_DEG) ** 2 * max(0.05, math.cos(math.radians(y)))
        # Lines about 1/density apart (km); a pixel at zoom z is 40075 cos(lat) / (256 2^z) km.
        density = max(total / area, 1e-6)
        pixel_at_0 = 40075 * max(0.05, math.cos(math.radians(lat))) / 256
        z = math.log2(SPACING_PX * density * pixel_at_0)
        zooms.append(min(TIERS[-1], max(TIERS[0], math.ceil(z))))
    return zooms


def point_segment_km(p, a, b):
    k = math.cos(math.radians(p[1])) * KM_PER_DEG
    ax, ay, bx, by = (a[0] - p[0]) * k, (a[1] - p[1]) * KM_PER_DEG, (b[0] - p[0]) * k, (b[1] - p[1]) * KM_PER_DEG
    dx, dy = bx - ax, by - ay
    ll = dx * dx + dy * dy
    t = 0.0 if ll == 0 else max(0.0, min(1.0, -(ax * dx + ay * dy) / ll))
    return math.hypot(ax + t * dx, ay + t * dy)


def samples(f, step_km=1.0):
    out = []
    for p in f:
        for i in range(len(p) - 1):
            a, b = p[i], p[i + 1]
            n = max(1, int(seg_km(a, b) / step_km))
            out += [(a[0] + (b[0] - a[0]) * t / n, a[1] + (b[1] - a[1]) * t / n) for t in range(n)]
    return out


def border_alternates(feats):
    """The indices of border lines that run beside another over most of their length, all but the
    middle one of each such bundle."""
    cell = 0.1
    index = {}
    for j, f in enumerate(feats):
        for p in f:
            for i in range(len(p) - 1):
                a, b = p[i], p[i + 1]
                for gx in range(math.floor(min(a[0], b[0]) / cell) - 1, math.floor(max(a[0], b[0]) / cell) + 2):
                    for gy in range(math.floor(min(a[1], b[1]) / cell) - 1, math.floor(max(a[1], b[1]) / cell) + 2):
                        index.setdefault((gx, gy), []).append((j, a, b))
    lengths = [length_km(f) for f in feats]
    beside = {}  # (i, j): mean distance from i to j where i runs beside j
    for i, f in enumerate(feats):
        if lengths[i] < MIN_KM:
            continue
        near, dist = {}, {}
        pts = samples(f)
        for q in pts:
            best = {}
            for j, a, b in index.get((math.floor(q[0] / cell), math.floor(q[1] / cell)), []):
                if j != i:
                    d = point_segment_km(q, a, b)
                    if d < best.get(j, PARALLEL_KM):
                        best[j] = d
            for j, d in best.items():
                # Touching lines (a border meeting another at a tripoint) are not side by side.
                if d > 0.3:
                    near[j] = near.get(j, 0) + 1
                    dist[j] = dist.get(j, 0.0) + d
        for j, n in near.items():
            if n >= PARALLEL_SHARE * len(pts) and lengths[j] >= MIN_KM:
                beside[(i, j)] = dist[j] / n
    # Bundles: lines linked by running beside each other (either way).
    parent = list(range(len(feats)))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for i, j in beside:
        parent[find(i)] = find(j)
    bundles = {}
    for i, j in beside:
        bundles.setdefault(find(i), set()).update((i, j))
    dropped = set()
    for members in bundles.values():
        # The middle one: the least mean distance to the others.
        def spread(m):
            ds = [beside.get((m, o), beside.get((o, m), PARALLEL_KM)) for o in members if o != m]
            return sum(ds) / len(ds)
        keep = min(sorted(members), key=spread)
        dropped |= members - {keep}
        print('bundle', sorted(members), ['%.1f' % spread(m) for m in sorted(members)], 'keeps', keep, 'near', ['%.1f,%.1f' % feats[keep][0][0]], file=sys.stderr)
    return dropped


def main():
    src = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), '..', 'Assets', 'basemap', '10m')
    if os.path.realpath(src) == os.path.realpath(out):
        sys.exit('borders-by-importance: SOURCE_10M_DIR is Natural Earth as shipped (../shared/data/naturalearth/10m), not the output')
    prj = os.path.join(src, 'ne_10m_admin_1_states_provinces_lines.prj')

    name = 'ne_10m_admin_1_states_provinces_lines'
    provinces = read_lines(os.path.join(src, name + '.shp'))
    zooms = province_min_zooms(provinces)
    for t in TIERS:
        tier = [f for f, z in zip(provinces, zooms) if z == t]
        write_lines(os.path.join(out, '%s_z%d' % (name, t)), tier)
        shutil.copyfile(prj, os.path.join(out, '%s_z%d.prj' % (name, t)))
        print('provinces from zoom %d: %d lines, %d km' % (t, len(tier), sum(length_km(f) for f in tier)), file=sys.stderr)

    name = 'ne_10m_admin_0_boundary_lines_land'
    borders = read_lines(os.path.join(src, name + '.shp'))
    dropped = border_alternates(borders)
    write_lines(os.path.join(out, name), [f for i, f in enumerate(borders) if i not in dropped])
    write_lines(os.path.join(out, name + '_alternates'), [f for i, f in enumerate(borders) if i in dropped])
    for suffix in ('', '_alternates'):
        shutil.copyfile(os.path.join(src, name + '.prj'), os.path.join(out, name + suffix + '.prj'))
    print('borders: %d lines, %d alternates' % (len(borders) - len(dropped), len(dropped)), file=sys.stderr)


if __name__ == '__main__':
    main()
