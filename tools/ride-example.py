#!/usr/bin/env python3
"""Scenes/tracks/ride.gpx: the example ride of Scenes/ride.json, written by gpxpy (pip install gpxpy).

A seeded, smoothed wander from Helsinki east to Porvoo, inland and back to the coast, of a few hundred
points with times (a rider at 18-28 km/h, a coffee stop halfway) and a few metres of GPS noise; two
segments (the stop splits the recording). Synthetic: the point is a recording of realistic shape."""
import datetime, math, random, sys
import gpxpy.gpx

def main(out):
    rng = random.Random(59)
    # Waypoints the ride bends through (lat, lon): Helsinki, inland to Sipoo, then the coast to Porvoo.
    via = [(60.1699, 24.9384), (60.2050, 25.0800), (60.3000, 25.1600), (60.3770, 25.2680),
           (60.3350, 25.4500), (60.3650, 25.5900), (60.3932, 25.6650)]
    t = datetime.datetime(2024, 6, 8, 7, 30, tzinfo=datetime.timezone.utc)
    gpx = gpxpy.gpx.GPX()
    track = gpxpy.gpx.GPXTrack(name="Helsinki to Porvoo")
    gpx.tracks.append(track)
    segment = gpxpy.gpx.GPXTrackSegment()
    track.segments.append(segment)
    wobble = 0.0
    for leg, ((a_lat, a_lon), (b_lat, b_lon)) in enumerate(zip(via, via[1:])):
        steps = 55
        for i in range(steps):
            f = i / steps
            wobble = 0.9 * wobble + rng.uniform(-0.004, 0.004)  # the road bends
            lat = a_lat + f * (b_lat - a_lat) + wobble * (b_lon - a_lon)
            lon = a_lon + f * (b_lon - a_lon) - wobble * (b_lat - a_lat) * 2
            lat += rng.gauss(0, 0.00003)  # GPS noise, a few metres
            lon += rng.gauss(0, 0.00006)
            if segment.points:
                p = segment.points[-1]
                km = 6371 * math.hypot(math.radians(lat - p.latitude), math.radians(lon - p.longitude) * math.cos(math.radians(lat)))
                t += datetime.timedelta(seconds=round(km / rng.uniform(18, 28) * 3600))
            segment.points.append(gpxpy.gpx.GPXTrackPoint(round(lat, 6), round(lon, 6), time=t,
                                                          elevation=round(20 + 15 * math.sin(i / 9), 1)))
        if leg == 2:  # coffee in Sipoo: twenty minutes, a new segment
            t += datetime.timedelta(minutes=20)
            segment = gpxpy.gpx.GPXTrackSegment()
            track.segments.append(segment)
    segment.points.append(gpxpy.gpx.GPXTrackPoint(via[-1][0], via[-1][1], time=t + datetime.timedelta(seconds=40)))
    with open(out, "w") as f:
        f.write(gpx.to_xml())

main(sys.argv[1] if len(sys.argv) > 1 else "Scenes/tracks/ride.gpx")
