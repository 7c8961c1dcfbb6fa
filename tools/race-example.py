#!/usr/bin/env python3
"""Scenes/tracks/race-anna.gpx and race-ben.gpx: the two runs of Scenes/race.json (a ghost race), written
by gpxpy (pip install gpxpy).

The same loop through central Helsinki (the station, Kaisaniemi, Senate Square, the Market Square,
Esplanadi, Kamppi and back; inside the Helsinki vector tiles of tools/helsinki-tiles.sh), run on two
days at different paces: Anna at about 12 km/h, Ben at about 10 km/h with a stop at a crossing. A fix
every 3-5 seconds (a few hundred each) with a few metres of GPS noise, from a seeded generator.
Synthetic: the point is two recordings of realistic shape to race."""
import datetime, math, random, sys
import gpxpy.gpx

LOOP = [(60.1712, 24.9414), (60.1728, 24.9445), (60.1740, 24.9470), (60.1715, 24.9500), (60.1693, 24.9517),
        (60.1675, 24.9525), (60.1672, 24.9490), (60.1676, 24.9462), (60.1685, 24.9414), (60.1688, 24.9370),
        (60.1690, 24.9330), (60.1705, 24.9345), (60.1720, 24.9360), (60.1716, 24.9390), (60.1712, 24.9414)]

def km(a, b):
    return 6371 * math.hypot(math.radians(b[0] - a[0]), math.radians(b[1] - a[1]) * math.cos(math.radians(a[0])))

def run(seed, start, kmh, stop_at=None, stop_seconds=0):
    rng = random.Random(seed)
    gpx = gpxpy.gpx.GPX()
    track = gpxpy.gpx.GPXTrack(name="Loop")
    gpx.tracks.append(track)
    segment = gpxpy.gpx.GPXTrackSegment()
    track.segments.append(segment)
    t = start
    here = LOOP[0]
    segment.points.append(gpxpy.gpx.GPXTrackPoint(here[0], here[1], time=t))
    for leg, (a, b) in enumerate(zip(LOOP, LOOP[1:])):
        length = km(a, b)
        f = 0.0
        while f < 1:
            seconds = rng.randint(3, 5)
            pace = kmh * rng.uniform(0.9, 1.1)
            f = min(1.0, f + pace * seconds / 3600 / length)
            lat = a[0] + f * (b[0] - a[0]) + rng.gauss(0, 0.000025)
            lon = a[1] + f * (b[1] - a[1]) + rng.gauss(0, 0.00005)
            t += datetime.timedelta(seconds=seconds)
            segment.points.append(gpxpy.gpx.GPXTrackPoint(round(lat, 6), round(lon, 6), time=t))
        if leg == stop_at:  # waiting at a crossing: fixes wandering by a metre or two
            for _ in range(stop_seconds // 5):
                t += datetime.timedelta(seconds=5)
                segment.points.append(gpxpy.gpx.GPXTrackPoint(round(b[0] + rng.gauss(0, 0.00001), 6),
                                                              round(b[1] + rng.gauss(0, 0.00002), 6), time=t))
    return gpx

def main(folder):
    anna = run(5901, datetime.datetime(2024, 6, 3, 6, 45, tzinfo=datetime.timezone.utc), 12)
    ben = run(5902, datetime.datetime(2024, 6, 9, 17, 20, tzinfo=datetime.timezone.utc), 10, stop_at=4,
              stop_seconds=45)
    for name, gpx in [("race-anna.gpx", anna), ("race-ben.gpx", ben)]:
        with open(f"{folder}/{name}", "w") as f:
            f.write(gpx.to_xml())

main(sys.argv[1] if len(sys.argv) > 1 else "Scenes/tracks")
