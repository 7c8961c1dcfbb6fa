#!/usr/bin/env python3
"""Renders N short scenes in one `maptrip batch` process (--jobs 1) and reads its resident memory
(VmRSS, from /proc) when the 10% mark and the last clip are done: the figures are printed; growth
of more than 10% between them fails (exit 1). Usage: flat-memory.py MAPTRIP N"""
import json, os, subprocess, sys, tempfile

maptrip, count = os.path.abspath(sys.argv[1]), int(sys.argv[2])
places = [(37.57, 126.98), (35.18, 129.08), (33.50, 126.53), (48.86, 2.35), (51.51, -0.13), (40.71, -74.01)]
with tempfile.TemporaryDirectory() as work:
    os.makedirs(os.path.join(work, "scenes"))
    for i in range(count):
        a, b = places[i % len(places)], places[(i + 1) % len(places)]
        scene = {"video": {"width": 160, "height": 90, "fps": 10}, "flight": 0.3, "title": "Clip %d" % i,
                 "places": [{"lat": a[0], "lon": a[1], "zoom": 4, "dwell": 0.5},
                            {"lat": b[0], "lon": b[1], "zoom": 5, "dwell": 0.5}]}
        with open(os.path.join(work, "scenes", "clip%03d.json" % i), "w") as f:
            json.dump(scene, f)
    p = subprocess.Popen([maptrip, "batch", "scenes", "-o", "clips", "--jobs", "1", "--json"], cwd=work,
                         stdout=subprocess.PIPE, text=True)

    def rss():
        with open("/proc/%d/status" % p.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
        return 0.0

    done, marks = 0, {}
    first = max(1, count // 10)
    for line in p.stdout:
        event = json.loads(line)
        if event.get("event") in ("done", "failed"):
            done += 1
            if event["event"] == "failed":
                print("failed:", event.get("scene"), event.get("error"))
            if done in (first, count):
                marks[done] = rss()
    p.wait()
    if p.returncode != 0 or len(marks) < 2:
        print("flat: the batch failed (exit %d)" % p.returncode)
        sys.exit(1)
    growth = marks[count] / marks[first] - 1
    print("flat: resident memory %.1f MB after %d clips, %.1f MB after %d (%+.1f%%)"
          % (marks[first], first, marks[count], count, growth * 100))
    sys.exit(0 if growth <= 0.10 else 1)
