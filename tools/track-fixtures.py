#!/usr/bin/env python3
"""Track files written by independent writers, for MapTripTracksTests, with what each writer was given.

    python3 tools/track-fixtures.py OUT_DIR [SEED]      # the written files and OUT_DIR/expected.json
    python3 tools/track-fixtures.py --fitparse FIT...   # what python-fitparse decodes (expected-fitparse.json)

Writers: gpxpy (GPX 1.1, three segments, some points without a time, Garmin's TrackPointExtension
hr), simplekml (KML: a LineString and a gx:Track with when/gx:coord, in a MultiGeometry), fit-tool
(FIT activity: record messages with position, time, altitude, heart rate, cadence, power, speed)
and Python's json module (GeoJSON FeatureCollection with coordTimes). Points are random walks from a
seeded generator, so a seed gives the same files every time. Needs `pip install gpxpy simplekml
fit-tool fitparse`."""
import datetime, json, os, random, sys, warnings

def walk(rng, n, lat, lon, start, step=5, timed=lambda i: True):
    points = []
    t = start
    for i in range(n):
        lat += rng.uniform(-0.0005, 0.0005)
        lon += rng.uniform(-0.0005, 0.0005)
        t += datetime.timedelta(seconds=rng.randint(1, step))
        points.append({"lat": round(lat, 7), "lon": round(lon, 7), "ele": round(rng.uniform(0, 400), 1),
                       "time": t if timed(i) else None, "hr": rng.randint(80, 180)})
    return points

def iso(t):
    return None if t is None else t.strftime("%Y-%m-%dT%H:%M:%SZ")

def plain(segments):
    return [[{"lat": p["lat"], "lon": p["lon"], "ele": p.get("ele"), "time": iso(p["time"]), "hr": p.get("hr")} for p in s]
            for s in segments]

def write_gpx(rng, out):
    import gpxpy.gpx
    gpx = gpxpy.gpx.GPX()
    gpx.nsmap["gpxtpx"] = "http://www.garmin.com/xmlschemas/TrackPointExtension/v1"
    track = gpxpy.gpx.GPXTrack(name="Seeded ride")
    gpx.tracks.append(track)
    start = datetime.datetime(2024, 5, 1, 9, 30, tzinfo=datetime.timezone.utc)
    segments = [walk(rng, 40, 60.17, 24.94, start),
                walk(rng, 25, 60.18, 24.95, start + datetime.timedelta(hours=1), timed=lambda i: i % 4 != 1),
                walk(rng, 30, 60.19, 24.96, start + datetime.timedelta(hours=2))]
    import xml.etree.ElementTree as ET
    for s in segments:
        seg = gpxpy.gpx.GPXTrackSegment()
        for p in s:
            tp = gpxpy.gpx.GPXTrackPoint(p["lat"], p["lon"], elevation=p["ele"], time=p["time"])
            ext = ET.Element("gpxtpx:TrackPointExtension")
            hr = ET.SubElement(ext, "gpxtpx:hr")
            hr.text = str(p["hr"])
            tp.extensions.append(ext)
            seg.points.append(tp)
        track.segments.append(seg)
    gpx.waypoints.append(gpxpy.gpx.GPXWaypoint(60.1699, 24.9384, name="Start"))
    with open(os.path.join(out, "gpxpy.gpx"), "w") as f:
        f.write(gpx.to_xml(version="1.1"))
    return {"name": "Seeded ride", "segments": plain(segments), "waypoints": [{"name": "Start", "lat": 60.1699, "lon": 24.9384}]}

def write_kml(rng, out):
    import simplekml
    kml = simplekml.Kml(name="Seeded flight")
    start = datetime.datetime(2024, 6, 2, 12, 0, tzinfo=datetime.timezone.utc)
    line = walk(rng, 30, 47.37, 8.54, start, timed=lambda i: False)
    track = walk(rng, 35, 47.40, 8.55, start + datetime.timedelta(hours=1))
    ls = kml.newlinestring(name="Planned", coords=[(p["lon"], p["lat"], p["ele"]) for p in line])
    ls.altitudemode = simplekml.AltitudeMode.absolute
    trk = kml.newgxtrack(name="Flown")
    trk.newwhen([iso(p["time"]) for p in track])
    trk.newgxcoord([(p["lon"], p["lat"], p["ele"]) for p in track])
    kml.newpoint(name="Zurich", coords=[(8.5417, 47.3769)])
    kml.save(os.path.join(out, "simplekml.kml"))
    kml.savekmz(os.path.join(out, "simplekml.kmz"))
    return {"name": "Seeded flight", "segments": plain([line, track]), "waypoints": [{"name": "Zurich", "lat": 47.3769, "lon": 8.5417}]}

def write_fit(rng, out):
    from fit_tool.fit_file_builder import FitFileBuilder
    from fit_tool.profile.messages.file_id_message import FileIdMessage
    from fit_tool.profile.messages.record_message import RecordMessage
    from fit_tool.profile.profile_type import FileType, Manufacturer
    start = datetime.datetime(2024, 7, 3, 6, 15, tzinfo=datetime.timezone.utc)
    points = walk(rng, 300, -33.86, 151.21, start, step=3)
    builder = FitFileBuilder(auto_define=True, min_string_size=50)
    fid = FileIdMessage()
    fid.type = FileType.ACTIVITY
    fid.manufacturer = Manufacturer.DEVELOPMENT.value
    fid.product = 0
    fid.time_created = int(start.timestamp() * 1000)
    fid.serial_number = 0x12345678
    builder.add(fid)
    for p in points:
        r = RecordMessage()
        r.timestamp = int(p["time"].timestamp() * 1000)
        r.position_lat = p["lat"]
        r.position_long = p["lon"]
        r.altitude = p["ele"]
        r.heart_rate = p["hr"]
        p["cad"] = rng.randint(60, 100)
        p["power"] = rng.randint(100, 300)
        p["speed"] = round(rng.uniform(2, 12), 3)
        r.cadence = p["cad"]
        r.power = p["power"]
        r.speed = p["speed"]
        builder.add(r)
    builder.build().to_file(os.path.join(out, "fit-tool.fit"))
    segs = plain([points])
    for q, p in zip(segs[0], points):
        q.update(cad=p["cad"], power=p["power"], speed=p["speed"])
    return {"name": None, "segments": segs, "waypoints": []}

def write_geojson(rng, out):
    start = datetime.datetime(2024, 8, 4, 18, 0, tzinfo=datetime.timezone.utc)
    a = walk(rng, 20, 35.68, 139.76, start)
    b = walk(rng, 15, 35.69, 139.77, start + datetime.timedelta(minutes=30))
    c = walk(rng, 10, 35.70, 139.78, start, timed=lambda i: False)
    doc = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"name": "Seeded walk", "coordTimes": [[iso(p["time"]) for p in a], [iso(p["time"]) for p in b]]},
         "geometry": {"type": "MultiLineString", "coordinates": [[[p["lon"], p["lat"], p["ele"]] for p in a],
                                                                 [[p["lon"], p["lat"], p["ele"]] for p in b]]}},
        {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[p["lon"], p["lat"]] for p in c]}},
        {"type": "Feature", "properties": {"name": "Tokyo"}, "geometry": {"type": "Point", "coordinates": [139.7671, 35.6812]}},
    ]}
    with open(os.path.join(out, "json.geojson"), "w") as f:
        json.dump(doc, f, indent=1)
    for p in c:
        p["ele"] = None
    return {"name": "Seeded walk", "segments": plain([a, b, c]), "waypoints": [{"name": "Tokyo", "lat": 35.6812, "lon": 139.7671}]}

def fitparse_expected(paths):
    from fitparse import FitFile
    warnings.simplefilter("ignore")
    out = {}
    for path in paths:
        f = FitFile(path)
        f.parse()
        records = list(f.get_messages("record"))
        # The segments, by fitparse's events: the timer stopping (stop, stop_all) ends one, and the
        # next record with a position starts the next; their sizes, in positions.
        segments, stopped = [], False
        for m in f.get_messages(["record", "event"]):
            if m.name == "event":
                if m.get_value("event") == "timer" and m.get_value("event_type") in ("stop", "stop_all"):
                    stopped = True
                continue
            if m.get_value("position_lat") is None or m.get_value("position_long") is None:
                continue
            if stopped and segments and segments[-1] > 0:
                segments.append(0)
            stopped = False
            if not segments:
                segments.append(0)
            segments[-1] += 1
        points = []
        for r in records:
            lat, lon = r.get_value("position_lat"), r.get_value("position_long")
            if lat is None or lon is None:
                continue
            t = r.get_value("timestamp")
            # fitparse gives semicircles: degrees = semicircles * 180 / 2^31.
            points.append([lat * 180 / 2**31, lon * 180 / 2**31, None if t is None else int(t.replace(tzinfo=datetime.timezone.utc).timestamp())])
        # A long recording lists every stride-th position (at most about 400), so that the expected
        # values stay small beside the files; "positions" counts them all.
        stride = max(1, -(-len(points) // 400))
        out[os.path.basename(path)] = {"records": len(records), "positions": len(points), "stride": stride,
                                       "segments": segments, "points": points[::stride]}
    return out

if __name__ == "__main__":
    if sys.argv[1] == "--fitparse":
        json.dump(fitparse_expected(sys.argv[2:]), sys.stdout, separators=(",", ":"))
        sys.exit(0)
    out = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 59
    os.makedirs(out, exist_ok=True)
    rng = random.Random(seed)
    expected = {"gpxpy.gpx": write_gpx(rng, out), "simplekml.kml": write_kml(rng, out), "fit-tool.fit": write_fit(rng, out),
                "json.geojson": write_geojson(rng, out)}
    expected["simplekml.kmz"] = expected["simplekml.kml"]
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=0)
