#!/usr/bin/env python3
"""A tile server for maptrip's HTTP client tests (Python 3 standard library only).

Listens on 127.0.0.1 only, on the port given (default 0: any free port), and prints the port as
its first line of stdout. Exits when stdin reaches end of file, on SIGTERM/SIGINT, or after
--max-seconds (a watchdog, so a forgotten server cannot linger).

Routes (z/x/y are integers; the tile is a small PNG whose colour depends on them):
  /ok/{z}/{x}/{y}.png        200 PNG, Cache-Control: public, max-age=3600
  /noexpiry/{z}/{x}/{y}.png  200 PNG, no caching headers at all
  /etag/{z}/{x}/{y}.png      200 PNG with ETag, Last-Modified and max-age=0; 304 when
                             If-None-Match matches
  /404/...                   404
  /500/...                   500, always
  /flaky/...                 500 on the first request for a path, then 200 PNG
  /slow/...                  sleeps ?sleep= seconds (default 5), then 200 PNG
  /garbage/...               200 with bytes that are not an image (Content-Type image/png anyway)
  /429/...                   429 with Retry-After: ?after= seconds (default 1) on the first request
                             for a path, then 200 PNG
  /redirect/...              302 to the same tile under /ok/
  /ftpredirect/...           302 to the same tile on ftp://127.0.0.1/ (another scheme)
  /html/...                  200 with an HTML error page (Content-Type text/html), as a proxy or
                             a tile service out of quota may answer
  /json/...                  200 with a JSON error (Content-Type application/json)
  /reset/...                 the connection reset (TCP RST) before any answer
  /trickle/...               200 headers for a 1 MB tile, then one byte every 0.2 s (until
                             MAX_SLEEP or the client gives up)
  /gzip/{z}/{x}/{y}.png      200 PNG, gzip-encoded when the client accepts gzip
  /files/{name}              a file of the --files folder, honouring one "Range: bytes=a-b" (206,
                             or 416 past the end), with an ETag and max-age=3600 (PMTiles); 412
                             when If-Match names another ETag
  /swap/{n}/{a},{b},...      file a for the first n requests to this path, then b for the next n,
                             ... (the last one from then on): an archive replaced mid-render
  /swapnomatch/{n}/{a},...   the same, If-Match not checked (a server that only sends ETags)
  /cycle/{n}/{a},{b},...     file a for n requests, then b, ..., then a again: an archive that
                             keeps changing
  /norange/files/{name}      the same file whole (200), whatever Range asks
  /_log                      JSON: {"requests": [{path, query, userAgent, ifNoneMatch, ifMatch,
                             ifModifiedSince, acceptEncoding, status}], "maxConcurrent": n}
Any tile route also takes ?delay=seconds (at most 10) before answering. maxConcurrent is the
largest number of tile requests that were being handled at the same time.
"""
import argparse
import gzip
import json
import os
import re
import signal
import socket
import struct
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

MAX_LOG = 10000          # log entries kept
MAX_THREADS = 64         # connections handled at once
MAX_SLEEP = 30.0         # longest any request may be told to wait

TILE = re.compile(r"^/([A-Za-z0-9_]+)/(\d+)/(\d+)/(\d+)\.png$")
LAST_MODIFIED = "Wed, 21 Oct 2015 07:28:00 GMT"

FILES_DIR = None
state_lock = threading.Lock()
request_log = []
seen_paths = {}
in_flight = 0
max_in_flight = 0


def png(z, x, y, size=8):
    """A valid size x size RGB PNG, its colour derived from z/x/y."""
    r, g, b = (z * 40) % 256, (x * 70) % 256, (y * 110) % 256
    row = b"\x00" + bytes([r, g, b]) * size
    raw = row * size

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


def number(query, name, default, limit=MAX_SLEEP):
    try:
        value = float(query.get(name, [default])[0])
    except ValueError:
        value = default
    return max(0.0, min(value, limit))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive, so clients can reuse connections
    server_version = "maptrip-tileserver/1"
    timeout = 30                    # idle keep-alive connections are closed after this

    def log_message(self, format, *args):  # quiet
        pass

    def send(self, status, body=b"", headers=None):
        self.entry["status"] = status  # before answering, so a client reading /_log next sees it
        self.leave()  # before answering: a client can only start its next request after this answer
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status != 304 and self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        global in_flight, max_in_flight
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        if url.path == "/_log":
            with state_lock:
                body = json.dumps({"requests": request_log, "maxConcurrent": max_in_flight}).encode()
            self.entry = {}
            self.send(200, body, {"Content-Type": "application/json", "Cache-Control": "no-store"})
            return

        self.entry = {
            "path": url.path,
            "query": url.query,
            "userAgent": self.headers.get("User-Agent"),
            "ifNoneMatch": self.headers.get("If-None-Match"),
            "ifMatch": self.headers.get("If-Match"),
            "ifModifiedSince": self.headers.get("If-Modified-Since"),
            "acceptEncoding": self.headers.get("Accept-Encoding"),
            "range": self.headers.get("Range"),
            "status": None,
        }
        with state_lock:
            if len(request_log) < MAX_LOG:
                request_log.append(self.entry)
            count = seen_paths.get(url.path, 0) + 1
            seen_paths[url.path] = count
            in_flight += 1
            max_in_flight = max(max_in_flight, in_flight)
        self.counted = True
        try:
            time.sleep(number(query, "delay", 0, 10))
            self.route(url.path, query, count)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        finally:
            self.leave()

    def leave(self):
        """Stops counting this request as in flight (once)."""
        global in_flight
        if getattr(self, "counted", False):
            self.counted = False
            with state_lock:
                in_flight -= 1

    def serve_file(self, name, ranges, if_match=True):
        folder = FILES_DIR
        target = os.path.realpath(os.path.join(folder or "/nonexistent", name))
        if not folder or not target.startswith(os.path.realpath(folder) + os.sep) or not os.path.isfile(target):
            self.send(404, b"no such file\n", {"Content-Type": "text/plain"})
            return
        with open(target, "rb") as f:
            body = f.read()
        etag = '"%08x"' % (zlib.crc32(body) & 0xFFFFFFFF)
        headers = {"Content-Type": "application/octet-stream", "Cache-Control": "public, max-age=3600",
                   "ETag": etag, "Accept-Ranges": "bytes" if ranges else "none"}
        asked_version = self.headers.get("If-Match")
        if if_match and asked_version is not None and asked_version not in ("*", etag):
            self.send(412, b"", {"ETag": etag})
            return
        asked = self.headers.get("Range") if ranges else None
        m = re.match(r"^bytes=(\d+)-(\d+)$", asked or "")
        if m:
            start, end = int(m.group(1)), int(m.group(2))
            if start >= len(body) or end < start:
                self.send(416, b"", {**headers, "Content-Range": "bytes */%d" % len(body)})
                return
            end = min(end, len(body) - 1)
            self.send(206, body[start:end + 1], {**headers, "Content-Range": "bytes %d-%d/%d" % (start, end, len(body))})
        else:
            self.send(200, body, headers)

    def route(self, path, query, count):
        if path.startswith("/files/"):
            self.serve_file(path[len("/files/"):], True)
            return
        if path.startswith("/norange/files/"):
            self.serve_file(path[len("/norange/files/"):], False)
            return
        m = re.match(r"^/(swap|swapnomatch)/(\d+)/([^/]+)$", path)
        if m:
            names = m.group(3).split(",")
            self.serve_file(names[min((count - 1) // max(int(m.group(2)), 1), len(names) - 1)], True, m.group(1) == "swap")
            return
        m = re.match(r"^/cycle/(\d+)/([^/]+)$", path)
        if m:
            names = m.group(2).split(",")
            self.serve_file(names[((count - 1) // max(int(m.group(1)), 1)) % len(names)], True)
            return
        match = TILE.match(path)
        if not match:
            self.send(404, b"no such route\n", {"Content-Type": "text/plain"})
            return
        kind, z, x, y = match.group(1), int(match.group(2)), int(match.group(3)), int(match.group(4))
        tile = png(z, x, y)
        image = {"Content-Type": "image/png"}
        if kind == "ok":
            self.send(200, tile, {**image, "Cache-Control": "public, max-age=3600"})
        elif kind == "noexpiry":
            self.send(200, tile, image)
        elif kind == "etag":
            etag = '"v1-%08x"' % (zlib.crc32(path.encode()) & 0xFFFFFFFF)
            headers = {"ETag": etag, "Last-Modified": LAST_MODIFIED, "Cache-Control": "max-age=0"}
            if self.headers.get("If-None-Match") == etag:
                self.send(304, b"", headers)
            else:
                self.send(200, tile, {**image, **headers})
        elif kind == "404":
            self.send(404, b"not found\n", {"Content-Type": "text/plain"})
        elif kind == "500":
            self.send(500, b"broken\n", {"Content-Type": "text/plain"})
        elif kind == "flaky":
            if count == 1:
                self.send(500, b"first time fails\n", {"Content-Type": "text/plain"})
            else:
                self.send(200, tile, image)
        elif kind == "slow":
            time.sleep(number(query, "sleep", 5))
            self.send(200, tile, image)
        elif kind == "garbage":
            self.send(200, b"this is not an image\n", image)
        elif kind == "429":
            if count == 1:
                after = int(number(query, "after", 1, 10 ** 6))
                self.send(429, b"slow down\n", {"Content-Type": "text/plain", "Retry-After": str(after)})
            else:
                self.send(200, tile, {**image, "Cache-Control": "max-age=3600"})
        elif kind == "redirect":
            self.send(302, b"", {"Location": "/ok/%d/%d/%d.png" % (z, x, y)})
        elif kind == "ftpredirect":
            self.send(302, b"", {"Location": "ftp://127.0.0.1/ok/%d/%d/%d.png" % (z, x, y)})
        elif kind == "html":
            page = b"<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head>" \
                   b"<body><h1>Service Unavailable</h1><p>Try again later.</p></body></html>\n"
            self.send(200, page, {"Content-Type": "text/html; charset=utf-8"})
        elif kind == "json":
            self.send(200, b'{"error": "an API key is required"}\n', {"Content-Type": "application/json"})
        elif kind == "reset":
            # SO_LINGER 0: close() sends RST instead of FIN.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.entry["status"] = 0
            self.connection.close()
            raise ConnectionResetError("reset on purpose")
        elif kind == "trickle":
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(1 << 20))
            self.end_headers()
            self.entry["status"] = 200
            deadline = time.monotonic() + MAX_SLEEP
            while time.monotonic() < deadline:
                self.wfile.write(b"\x00")
                self.wfile.flush()
                time.sleep(0.2)
            self.close_connection = True
        elif kind == "gzip":
            if "gzip" in (self.headers.get("Accept-Encoding") or ""):
                self.send(200, gzip.compress(tile), {**image, "Content-Encoding": "gzip"})
            else:
                self.send(200, tile, image)
        else:
            self.send(404, b"no such tile kind\n", {"Content-Type": "text/plain"})


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = MAX_THREADS

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.slots = threading.BoundedSemaphore(MAX_THREADS)

    def process_request(self, request, client_address):
        self.slots.acquire()
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--max-seconds", type=float, default=600)
    parser.add_argument("--files", help="folder served under /files/")
    args = parser.parse_args()
    global FILES_DIR
    FILES_DIR = args.files

    server = Server(("127.0.0.1", args.port), Handler)
    print(server.server_address[1], flush=True)

    def stop(*_):
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    def watch_stdin():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        finally:
            os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    watchdog = threading.Timer(args.max_seconds, lambda: os._exit(3))
    watchdog.daemon = True
    watchdog.start()
    server.serve_forever(poll_interval=0.1)


if __name__ == "__main__":
    main()
