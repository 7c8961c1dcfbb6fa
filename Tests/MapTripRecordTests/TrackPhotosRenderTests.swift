import FFmpeg
import Foundation
import MapTripGeometry
import MapTripOutput
import MapTripRecord
import MapTripRender
import MapTripScene
import MapTripTime
import Testing
import TestBasics
import TestSupport

/// Photos along a playback's track (`photos`), rendered as `maptrip render` renders them and decoded: each
/// photo (a flat colour of its own, EXIF written by `ExifWriter`) fills its card from the frame whose
/// recorded time reaches its EXIF time (+ timeOffset), or the time of the fix nearest its GPS position,
/// and not a frame before; `plan --json` gives the same frames.
@Suite("Photos along a track")
struct TrackPhotosRenderTests {
    /// 10 fps at 100 recorded seconds a second: frame n shows the walk's first fix + 10 n seconds.
    static let fps = 10.0, speed = 100.0

    /// Flat colours no map, route or mover has.
    static let magenta: (r: UInt8, g: UInt8, b: UInt8) = (255, 0, 255)
    static let green: (r: UInt8, g: UInt8, b: UInt8) = (0, 255, 0)
    static let yellow: (r: UInt8, g: UInt8, b: UInt8) = (255, 255, 0)

    /// A 160x120 JPEG of one colour (libavcodec's mjpeg, as posters are written) with `exif` in it.
    static func photo(_ c: (r: UInt8, g: UInt8, b: UInt8), _ exif: ExifWriter.Fields) throws -> Data {
        let w = 160, h = 120
        var bgra = [UInt8](repeating: 255, count: w * h * 4)
        for i in 0..<(w * h) { (bgra[4 * i], bgra[4 * i + 1], bgra[4 * i + 2]) = (c.b, c.g, c.r) }
        let jpeg = try StillImage.encode(bgra: bgra, stride: w * 4, width: w, height: h, format: .jpeg)
        return Data(ExifWriter.inserting(exif, into: [UInt8](jpeg)))
    }

    /// A 160x120 JPEG, its left half `left` and its right half `right`, with `exif` in it.
    static func halves(_ left: (r: UInt8, g: UInt8, b: UInt8), _ right: (r: UInt8, g: UInt8, b: UInt8),
                       _ exif: ExifWriter.Fields) throws -> Data {
        let w = 160, h = 120
        var bgra = [UInt8](repeating: 255, count: w * h * 4)
        for i in 0..<(w * h) {
            let c = i % w < w / 2 ? left : right
            (bgra[4 * i], bgra[4 * i + 1], bgra[4 * i + 2]) = (c.b, c.g, c.r)
        }
        let jpeg = try StillImage.encode(bgra: bgra, stride: w * 4, width: w, height: h, format: .jpeg)
        return Data(ExifWriter.inserting(exif, into: [UInt8](jpeg)))
    }

    /// The bounds of the pixels within 40 of `c` (nil: none).
    static func bounds(_ image: BGRAImage, _ c: (r: UInt8, g: UInt8, b: UInt8)) -> (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
        var box: (minX: Int, minY: Int, maxX: Int, maxY: Int)?
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                guard abs(Int(p.r) - Int(c.r)) <= 40 && abs(Int(p.g) - Int(c.g)) <= 40 && abs(Int(p.b) - Int(c.b)) <= 40 else { continue }
                box = box.map { (min($0.minX, x), min($0.minY, y), max($0.maxX, x), max($0.maxY, y)) } ?? (x, y, x, y)
            }
        }
        return box
    }

    /// Pixels within 40 of `c` on each channel.
    static func count(_ image: BGRAImage, _ c: (r: UInt8, g: UInt8, b: UInt8)) -> Int {
        var n = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                if abs(Int(p.r) - Int(c.r)) <= 40 && abs(Int(p.g) - Int(c.g)) <= 40 && abs(Int(p.b) - Int(c.b)) <= 40 { n += 1 }
            }
        }
        return n
    }

    /// Pixels tinted towards `c` (a colour of 0s and 255s), even blended faintly over the map: each of its
    /// full channels above 150, over each empty one by more than 40, and within 40 of each other. The map's
    /// land, sea, route and mover are not; a card at a quarter's opacity is over land, at half over sea too.
    static func tinted(_ image: BGRAImage, _ c: (r: UInt8, g: UInt8, b: UInt8)) -> Int {
        let full = [c.r, c.g, c.b].enumerated().filter { $0.element == 255 }.map(\.offset)
        let empty = [c.r, c.g, c.b].enumerated().filter { $0.element == 0 }.map(\.offset)
        var n = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y), v = [Int(p.r), Int(p.g), Int(p.b)]
                let over = full.allSatisfy { h in empty.allSatisfy { v[h] - v[$0] > 40 } }
                let even = full.allSatisfy { h in v[h] > 150 && full.allSatisfy { abs(v[h] - v[$0]) < 40 } }
                if over && even { n += 1 }
            }
        }
        return n
    }

    /// "2024:05:01 09:30:00" for a moment (seconds since 1970) on a clock `offset` seconds east of UTC.
    static func exifTime(_ t: Double, offset: Int = 0) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(secondsFromGMT: 0)
        f.dateFormat = "yyyy:MM:dd HH:mm:ss"
        return f.string(from: Date(timeIntervalSince1970: t + Double(offset)))
    }

    /// Writes the walk, the photos and a scene with `photos` into `dir`, renders it at 640x360 and
    /// returns the decoded frames and `plan --json`'s photos.
    static func render(_ walk: TrackFixture, photos: [String: Data], key: String, extra: String = "",
                       in dir: URL) throws -> (frames: [BGRAImage], planned: [[String: Any]]) {
        try walk.gpx.write(to: dir.appendingPathComponent("walk.gpx"), atomically: true, encoding: .utf8)
        let folder = dir.appendingPathComponent("shots")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, data) in photos { try data.write(to: folder.appendingPathComponent(name)) }
        let json = """
            { "video": { "width": 640, "height": 360, "fps": \(Int(fps)) },
              "tracks": [ { "file": "walk.gpx", "name": "Walk", "color": "#e4572e" } ],
              "playback": { "speed": \(Int(speed)) }, "photos": \(key)\(extra) }
            """
        try json.write(to: dir.appendingPathComponent("scene.json"), atomically: true, encoding: .utf8)
        let rendered = try CLIProcess.run(["render", "scene.json", "-o", "out.mp4"], in: dir, timeout: 600)
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let plan = try CLIProcess.run(["plan", "scene.json", "--json"], in: dir)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
        return (try Trip.decode(dir.appendingPathComponent("out.mp4")).frames,
                try #require(object["photos"] as? [[String: Any]]))
    }

    /// The first frame that shows recorded second `t` of the walk or later.
    static func frame(reaching t: Double) -> Int { Int((t * fps / speed - 1e-9).rounded(.up)) }

    @Test func aPhotoShowsWhenTheMoverReachesItsExifTimeNotBefore() throws {
        try Trip.withDirectory("track-photos-time") { dir in
            let walk = TrackFixture.walk(seed: 5901, count: 160, start: LonLat(lon: 24.94, lat: 60.17), stepKm: 0.08)
            let t0 = TrackFixture.start.timeIntervalSince1970
            let duration = try #require(walk.times?.last)
            // The camera's clock ran 60 s fast ("timeOffset": -60). A: taken at +260 s by a phone whose wall
            // clock is on UTC+2 and whose file says so (corrected by that alone, not by timeOffset too); B at
            // +600 s with no offset in the file (read as UTC); C at +620 s, queued behind B; D a day later,
            // outside the recording (a warning, left out).
            let photos = try [
                "a.jpg": Self.photo(Self.magenta, .init(dateTimeOriginal: Self.exifTime(t0 + 260, offset: 7200), offsetTimeOriginal: "+02:00")),
                "b.jpg": Self.photo(Self.green, .init(dateTimeOriginal: Self.exifTime(t0 + 660), littleEndian: true)),
                "c.jpg": Self.photo(Self.yellow, .init(dateTimeOriginal: Self.exifTime(t0 + 680))),
                "d.jpg": Self.photo(Self.magenta, .init(dateTimeOriginal: Self.exifTime(t0 + 86_400))),
            ]
            #expect(duration > 700)
            let (frames, planned) = try Self.render(walk, photos: photos, key: #"{ "folder": "shots", "timeOffset": -60, "hold": 1.5 }"#, in: dir)
            let hold = 15
            let a = Self.frame(reaching: 260), b = Self.frame(reaching: 600), c = b + hold  // C waits for B's card
            #expect(planned.map { $0["file"] as? String } == ["shots/a.jpg", "shots/b.jpg", "shots/c.jpg"])
            #expect(planned.map { $0["startFrame"] as? Int } == [a, b, c])
            #expect(planned.map { $0["endFrame"] as? Int } == [a + hold, b + hold, c + hold])
            let card = 2000  // a card at 640x360 is some 300x220 pixels
            for (name, colour, start) in [("a", Self.magenta, a), ("b", Self.green, b), ("c", Self.yellow, c)] {
                // Before its first frame: no trace of it (C's frame before is B's last, fading out over the
                // route, whose blend is yellowish: there C's own colour is looked for).
                let before = name == "c" ? Self.count(frames[start - 1], colour) : Self.tinted(frames[start - 1], colour)
                #expect(before < 30, "\(name): shown before frame \(start)")
                #expect(Self.tinted(frames[start + 1], colour) > card, "\(name): not fading in at frame \(start + 1)")
                // Faded in after the card's fade (0.4 s), held to its end, gone after its fade out.
                #expect(Self.count(frames[start + 5], colour) > card, "\(name): not shown at frame \(start + 5)")
                #expect(Self.count(frames[start + hold - 6], colour) > card, "\(name): not held")
                #expect(Self.tinted(frames[start + hold], colour) < 30, "\(name): shown after its hold")
                Trip.dump(frames[start + 5], "track-photo-\(name)")
            }
            // Where A was taken, a dot on the track (drawn at the fix it was placed at): not checked in
            // pixels here, the card is.
            let warned = try CLIProcess.run(["validate", "scene.json"], in: dir)
            #expect((warned.stdout + warned.stderr).contains("photo 'shots/d.jpg' is left out: taken at"), "\(warned.stdout)")
        }
    }

    @Test func aPhotoPlacedByItsGPSPositionShowsAtTheNearestFix() throws {
        try Trip.withDirectory("track-photos-position") { dir in
            let walk = TrackFixture.walk(seed: 5902, count: 160, start: LonLat(lon: 24.94, lat: 60.17), stepKm: 0.08)
            let times = try #require(walk.times)
            var random = SplitMix64(seed: 5902)
            // Two photos taken a few metres off fixes 40 and 110 (no time in their EXIF); one 5 km away.
            func near(_ i: Int) -> (lat: Double, lon: Double) {
                (walk.points[i].lat + (random.unit() - 0.5) * 0.0001, walk.points[i].lon + (random.unit() - 0.5) * 0.0002)
            }
            let p = near(40), q = near(110)
            let photos = try [
                "1.jpg": Self.photo(Self.magenta, .init(latitude: p.lat, longitude: p.lon)),
                "2.jpg": Self.photo(Self.green, .init(latitude: q.lat, longitude: q.lon, littleEndian: true)),
                "3.jpg": Self.photo(Self.yellow, .init(latitude: walk.points[0].lat + 0.05, longitude: walk.points[0].lon)),
            ]
            let (frames, planned) = try Self.render(walk, photos: photos, key: #"{ "folder": "shots", "by": "position", "hold": 1 }"#, in: dir)
            let first = Self.frame(reaching: times[40]), second = Self.frame(reaching: times[110])
            #expect(planned.map { $0["startFrame"] as? Int } == [first, second])
            #expect(abs((planned[0]["lat"] as? Double ?? 0) - walk.points[40].lat) < 1e-6)
            for (colour, start) in [(Self.magenta, first), (Self.green, second)] {
                #expect(Self.tinted(frames[start - 1], colour) < 30, "shown before frame \(start)")
                #expect(Self.tinted(frames[start + 1], colour) > 2000, "not fading in at frame \(start + 1)")
                #expect(Self.count(frames[start + 5], colour) > 2000, "not shown at frame \(start + 5)")
            }
            #expect(!frames.contains { Self.count($0, Self.yellow) > 30 }, "the photo 5 km away is shown")
        }
    }

    /// A photo whose EXIF Orientation is 6 (stored on its side: turn it a quarter clockwise) is shown
    /// upright: its stored left half on top, taller than wide.
    @Test func aPhotoIsShownUprightByItsOrientation() throws {
        try Trip.withDirectory("track-photos-orientation") { dir in
            let walk = TrackFixture.walk(seed: 5903, count: 120, start: LonLat(lon: 24.94, lat: 60.17), stepKm: 0.08)
            let times = try #require(walk.times)
            let photos = try ["turned.jpg": Self.halves(Self.magenta, Self.green,
                                                        .init(latitude: walk.points[30].lat, longitude: walk.points[30].lon, orientation: 6))]
            let (frames, planned) = try Self.render(walk, photos: photos, key: #"{ "folder": "shots", "by": "position" }"#, in: dir)
            let start = Self.frame(reaching: times[30])
            #expect(planned.first?["startFrame"] as? Int == start)
            Trip.dump(frames[start + 8], "track-photo-turned")
            let top = try #require(Self.bounds(frames[start + 8], Self.magenta))
            let bottom = try #require(Self.bounds(frames[start + 8], Self.green))
            #expect(top.maxY <= bottom.minY + 2, "the stored left half is not on top: \(top), \(bottom)")
            #expect(abs(top.minX - bottom.minX) <= 2 && abs(top.maxX - bottom.maxX) <= 2)
            let width = top.maxX - top.minX, height = bottom.maxY - top.minY
            #expect(height > width, "not turned: \(width)x\(height)")
        }
    }

    /// A photo taken where the card would go: the card keeps clear of its dot (and the mover there as it
    /// appears) under the playback's still camera.
    @Test func theCardKeepsClearOfThePhotosPlace() throws {
        try Trip.withDirectory("track-photos-clear") { dir in
            let walk = TrackFixture.walk(seed: 5905, count: 160, start: LonLat(lon: 24.94, lat: 60.17), stepKm: 0.08, heading: 90)
            let times = try #require(walk.times)
            // The camera the playback frames the walk with (photos do not move it), from a scene without them.
            try walk.gpx.write(to: dir.appendingPathComponent("walk.gpx"), atomically: true, encoding: .utf8)
            let probe = dir.appendingPathComponent("probe.json")
            try #"{ "video": { "width": 640, "height": 360, "fps": 10 }, "tracks": [ { "file": "walk.gpx" } ], "playback": { "speed": 100 } }"#
                .write(to: probe, atomically: true, encoding: .utf8)
            let scene = try SceneLoader.loadForRender(contentsOf: probe)
            let viewport = Viewport(camera: Timeline(scene: scene).values(at: 0).camera, width: 640, height: 360,
                                    scale: scene.video.scale, projection: .webMercator)
            // A fix well inside where the card goes (the right half of a wide frame, clear of its edges).
            let layout = FrameLayout(width: 640, height: 360)
            let area = layout.photoBox(aspect: 4.0 / 3.0)
            let i = try #require((20..<140).first { k in
                viewport.pixel(walk.points[k]).map { p in
                    p.x > area.minX + 30 && p.x < area.maxX - 30 && p.y > area.minY + 30 && p.y < area.maxY - 30
                } ?? false
            }, "no fix under the card: \(area)")
            let dot = try #require(viewport.pixel(walk.points[i]))
            let photos = try ["here.jpg": Self.photo(Self.magenta, .init(latitude: walk.points[i].lat, longitude: walk.points[i].lon))]
            let (frames, _) = try Self.render(walk, photos: photos, key: #"{ "folder": "shots", "by": "position" }"#, in: dir)
            let n = Self.frame(reaching: times[i]) + 6
            Trip.dump(frames[n], "track-photo-clear")
            #expect(Self.count(frames[n], Self.magenta) > 2000, "the card is not shown")
            let card = try #require(Self.bounds(frames[n], Self.magenta))
            let r = layout.size(MoverOverlay.iconSize)
            let clear = dot.x + r < Double(card.minX) || dot.x - r > Double(card.maxX) || dot.y + r < Double(card.minY)
                || dot.y - r > Double(card.maxY)
            #expect(clear, "the card \(card) covers the photo's place \(dot)")
        }
    }

    /// Pixels of the box where `a` and `b` differ by more than 48 on a channel.
    static func differing(_ a: BGRAImage, _ b: BGRAImage, in box: (minX: Int, minY: Int, maxX: Int, maxY: Int)) -> Int {
        var n = 0
        for y in box.minY...box.maxY {
            for x in box.minX...box.maxX {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                if max(abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b))) > 48 { n += 1 }
            }
        }
        return n
    }

    /// A stop whose label sits where a photo's card goes once it appears (between the labels' key frames):
    /// the label moves clear of the card for the card's whole time on screen, its fade in from the first
    /// frame included. Rendered with the stop and without it (the same camera: the stop lies within the
    /// walk's framing), the card's box is the same picture on every frame of the card.
    @Test func aLabelStaysClearOfACardInEveryFrameOfIt() throws {
        try Trip.withDirectory("track-photos-label") { dir in
            let walk = TrackFixture.walk(seed: 5906, count: 160, start: LonLat(lon: 24.94, lat: 60.17), stepKm: 0.08,
                                         turn: 10, heading: 90)
            let times = try #require(walk.times)
            let t0 = TrackFixture.start.timeIntervalSince1970
            // Passed on frame 3k + 1 of a 10 fps playback whose labels are placed every 3 frames.
            let i = try #require((60..<100).first { Self.frame(reaching: times[$0]) % 3 == 1 })
            let start = Self.frame(reaching: times[i])
            let photos = try ["here.jpg": Self.photo(Self.magenta, .init(dateTimeOriginal: Self.exifTime(t0 + times[i])))]
            let key = #"{ "folder": "shots", "hold": 2 }"#
            let alone = dir.appendingPathComponent("alone"), stop = dir.appendingPathComponent("stop")
            try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: stop, withIntermediateDirectories: true)
            let (bare, planned) = try Self.render(walk, photos: photos, key: key, in: alone)
            #expect(planned.map { $0["startFrame"] as? Int } == [start])
            let card = try #require(Self.bounds(bare[start + 6], Self.magenta), "no card")
            // The stop's pin just left of the card, level with its middle: its label's first choice (to the
            // right of the pin) lies on the card.
            let probe = dir.appendingPathComponent("probe.json")
            try #"{ "video": { "width": 640, "height": 360, "fps": 10 }, "tracks": [ { "file": "alone/walk.gpx" } ], "playback": { "speed": 100 } }"#
                .write(to: probe, atomically: true, encoding: .utf8)
            let scene = try SceneLoader.loadForRender(contentsOf: probe)
            let viewport = Viewport(camera: Timeline(scene: scene).values(at: 0).camera, width: 640, height: 360,
                                    scale: scene.video.scale, projection: .webMercator)
            let anchor = (x: Double(card.minX) - 8, y: Double(card.minY + card.maxY) / 2 + 8)
            let place = try #require(viewport.location(atPixel: anchor.x, anchor.y))
            let pixels = walk.points.compactMap { viewport.pixel($0) }
            #expect(pixels.contains { $0.x <= anchor.x } && pixels.contains { $0.x >= anchor.x }
                    && pixels.contains { $0.y <= anchor.y } && pixels.contains { $0.y >= anchor.y },
                    "the stop at \(anchor) would move the framing")
            let (withStop, _) = try Self.render(walk, photos: photos, key: key,
                                                extra: #", "places": [ { "name": "Harbour Market", "lat": \#(place.lat), "lon": \#(place.lon) } ]"#,
                                                in: stop)
            #expect(withStop.count == bare.count)
            // Inside the card, clear of its left edge (the pin's blocks).
            let inner = (minX: card.minX + 12, minY: card.minY, maxX: card.maxX, maxY: card.maxY)
            // Well before the card (its keys look two spans ahead): the label is there.
            Trip.dump(withStop[start - 8], "track-photo-label-before")
            #expect(Self.differing(bare[start - 8], withStop[start - 8], in: inner) > 20, "the label is not where the card goes")
            Trip.dump(withStop[start], "track-photo-label-\(start)")
            for n in start..<(start + 20) {
                #expect(Self.differing(bare[n], withStop[n], in: inner) <= 3, "frame \(n): the label shows in the card")
            }
        }
    }
}
