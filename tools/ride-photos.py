#!/usr/bin/env python3
"""Scenes/ride-photos/*.jpg: the example photos of Scenes/ride-photos.json, taken along Scenes/tracks/ride.gpx.

Each is a small picture of flat colours (a sky and a field, distinct per photo) made by ffmpeg, with EXIF
written here by hand (TIFF IFDs as the EXIF 2.32 standard lays them out): DateTimeOriginal on the
camera's clock, which was on Helsinki's summer time (UTC+3) with no OffsetTimeOriginal (hence the
scene's "timeOffset": -10800), the GPS position of the ride's point at that moment, and Orientation 1.
Usage: python3 tools/ride-photos.py [Scenes]   (needs ffmpeg)"""
import datetime, os, struct, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

NS = {"g": "http://www.topografix.com/GPX/1/1"}
CAMERA_CLOCK = datetime.timedelta(hours=3)  # the camera's wall clock against UTC


def points(gpx):
    out = []
    for p in ET.parse(gpx).getroot().iterfind(".//g:trkpt", NS):
        t = datetime.datetime.fromisoformat(p.find("g:time", NS).text.replace("Z", "+00:00"))
        out.append((float(p.get("lat")), float(p.get("lon")), t))
    return out


def exif(taken, lat, lon):
    """'Exif\\0\\0' and a big-endian TIFF: IFD0 (Orientation, Exif and GPS pointers), the Exif IFD, the GPS IFD."""
    def ascii(tag, s):
        b = s.encode() + b"\0"
        return (tag, 2, len(b), b)

    def dms(tag, deg):
        a = abs(deg); d = int(a); m = int((a - d) * 60); s = ((a - d) * 60 - m) * 60
        return (tag, 5, 3, struct.pack(">6I", d, 1, m, 1, round(s * 10000), 10000))

    exif_ifd = [ascii(0x9003, taken.strftime("%Y:%m:%d %H:%M:%S"))]
    gps_ifd = [ascii(0x0001, "N" if lat >= 0 else "S"), dms(0x0002, lat),
               ascii(0x0003, "E" if lon >= 0 else "W"), dms(0x0004, lon)]

    def size(entries):
        return 2 + 12 * len(entries) + 4 + sum(len(e[3]) for e in entries if len(e[3]) > 4)

    ifd0 = [(0x0112, 3, 1, struct.pack(">H", 1))]
    exif_at = 8 + size(ifd0) + 24
    gps_at = exif_at + size(exif_ifd)
    ifd0 += [(0x8769, 4, 1, struct.pack(">I", exif_at)), (0x8825, 4, 1, struct.pack(">I", gps_at))]
    tiff = b"MM" + struct.pack(">HI", 42, 8)
    for ifd in (ifd0, exif_ifd, gps_ifd):
        data = b""
        data_at = len(tiff) + 2 + 12 * len(ifd) + 4
        tiff += struct.pack(">H", len(ifd))
        for tag, kind, count, value in sorted(ifd):
            tiff += struct.pack(">HHI", tag, kind, count)
            if len(value) <= 4:
                tiff += value.ljust(4, b"\0")
            else:
                tiff += struct.pack(">I", data_at + len(data))
                data += value
        tiff += struct.pack(">I", 0) + data
    return b"Exif\0\0" + tiff


def picture(sky, field, path):
    """A 320x240 JPEG: `sky` over `field` (ffmpeg's colour source and a box)."""
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", f"color=c=0x{sky}:s=320x240",
                    "-vf", f"drawbox=x=0:y=150:w=320:h=90:color=0x{field}:t=fill",
                    "-frames:v", "1", "-q:v", "5", path], check=True)


def main(scenes):
    track = points(os.path.join(scenes, "tracks", "ride.gpx"))
    out = os.path.join(scenes, "ride-photos")
    os.makedirs(out, exist_ok=True)
    # (share of the ride's points, sky, field): a morning sky, a noon one, an evening one.
    shots = [(0.22, "4a90d9", "3b7d3a"), (0.55, "f2c14e", "6b8e23"), (0.83, "d9534f", "2f4f4f")]
    with tempfile.TemporaryDirectory() as tmp:
        for k, (share, sky, field) in enumerate(shots, start=1):
            lat, lon, t = track[int(share * (len(track) - 1))]
            plain = os.path.join(tmp, "plain.jpg")
            picture(sky, field, plain)
            jpeg = open(plain, "rb").read()
            body = exif(t + CAMERA_CLOCK, lat, lon)
            app1 = b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body
            with open(os.path.join(out, f"photo-{k}.jpg"), "wb") as f:
                f.write(jpeg[:2] + app1 + jpeg[2:])
            print(f"photo-{k}.jpg: taken {t.isoformat()} at {lat:.5f}, {lon:.5f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "Scenes")
