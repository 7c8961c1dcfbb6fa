import Foundation
import Testing
import FFmpeg
import MapTripGeometry
import MapTripRecord
import MapTripScene
import MapTripTime
import TestSupport

/// A playback rendered as `maptrip render` renders it, decoded: each mover's colour at its projected
/// position at the frame's recorded time.
@Suite("Playback renders")
struct PlaybackRenderTests {
    static let colors = ["#e4572e", "#2e86ab"]

    /// Renders `tracks` (name, walk, first fix) with `playback` (and `camera`, if given) into `dir`; the loaded scene, its
    /// timeline and the decoded frames.
    static func render(_ tracks: [(String, TrackFixture, Date)], playback: String, camera: String? = nil,
                       in dir: URL) throws -> (scene: Scene, timeline: Timeline, frames: [BGRAImage]) {
        var entries: [String] = []
        for (i, (name, walk, start)) in tracks.enumerated() {
            try walk.gpx(start: start).write(to: dir.appendingPathComponent(name + ".gpx"), atomically: true, encoding: .utf8)
            entries.append("{ \"file\": \"\(name).gpx\", \"name\": \"\(name)\", \"color\": \"\(colors[i])\" }")
        }
        let json = """
            { "video": { "width": 1280, "height": 720, "fps": 10 },
              "tracks": [ \(entries.joined(separator: ", ")) ], "playback": \(playback)\(camera.map { ", \"camera\": " + $0 } ?? "") }
            """
        return try render(json: json, name: "race", in: dir)
    }

    /// Renders the scene `json` (written as `name`.json into `dir`) as `maptrip render` does; the loaded
    /// scene, its timeline and the decoded frames.
    static func render(json: String, name: String, in dir: URL) throws -> (scene: Scene, timeline: Timeline, frames: [BGRAImage]) {
        let sceneURL = dir.appendingPathComponent(name + ".json")
        try json.write(to: sceneURL, atomically: true, encoding: .utf8)
        LibraryLogging.configure(verbose: false)
        let out = dir.appendingPathComponent(name + ".mp4")
        _ = try RenderJob(scene: sceneURL, output: out, environment: RenderEnvironment(assets: Trip.assets)).run()
        let scene = try SceneLoader.loadForRender(contentsOf: sceneURL)
        return (scene, Timeline(scene: scene), try Trip.decode(out).frames)
    }

    /// Where mover i is on frame n of the video, in frame pixels.
    static func pixel(_ t: Timeline, _ scene: Scene, frame n: Int, mover i: Int) throws -> (x: Double, y: Double) {
        let values = t.values(at: n)
        let viewport = Viewport(camera: values.camera, width: scene.video.width, height: scene.video.height,
                                scale: scene.video.scale, projection: .webMercator)
        return try #require(viewport.pixel(values.movers[i].position))
    }

    @Test func aMoverIsItsColourWhereItsRecordingIsAtTheFramesTime() throws {
        try Trip.withDirectory("playback-render") { dir in
            let walk = TrackFixture.walk(seed: 7001, count: 160, start: LonLat(lon: 24.94, lat: 60.17), stepKm: 0.08)
            let (scene, t, frames) = try Self.render([("anna", walk, TrackFixture.start)], playback: #"{ "speed": 400 }"#,
                                                     in: dir)
            #expect(frames.count == t.frameCount)
            let color = try #require(Color(hex: Self.colors[0]))
            for n in [t.frameCount / 3, 2 * t.frameCount / 3] {
                let p = try Self.pixel(t, scene, frame: n, mover: 0)
                // The mover is where the recording was at the frame's recorded time.
                let seconds = min(Double(n) * 400 / 10, walk.times?.last ?? 0)
                #expect(Geodesy.distanceKm(t.values(at: n).movers[0].position, walk.point(atSeconds: seconds)) < 0.002)
                Trip.dump(frames[n], "playback-\(n)")
                #expect(Trip.looks(frames[n], p, like: color, tolerance: 40), "frame \(n): \(Trip.describe(frames[n], p))")
            }
            // The line is drawn only where the mover has been: its last point is not yet coloured midway
            // (unless the walk passed there before).
            let mid = t.frameCount / 2
            let end = try Self.pixel(t, scene, frame: t.frameCount - 1, mover: 0)
            let passed = (0...mid).contains { n in
                (try? Self.pixel(t, scene, frame: n, mover: 0)).map { hypot($0.x - end.x, $0.y - end.y) < 12 } ?? false
            }
            if !passed { #expect(!Trip.looks(frames[mid], end, like: color, tolerance: 40)) }
        }
    }

    /// The same over the reference tiles (the Helsinki vector tiles, street names and all): a walk through
    /// the extract, its mover its colour where the recording is at the frame's recorded time, drawn over
    /// the map's labels.
    @Test func aMoverOverTheHelsinkiTilesIsWhereItsRecordingIs() throws {
        try Trip.withDirectory("playback-tiles") { dir in
            let walk = TrackFixture.walk(seed: 7006, count: 90, start: LonLat(lon: 24.9405, lat: 60.1665), stepKm: 0.012)
            try walk.gpx(start: TrackFixture.start).write(to: dir.appendingPathComponent("anna.gpx"), atomically: true, encoding: .utf8)
            let tiles = Trip.assets.appendingPathComponent("tiles/helsinki.pmtiles").path
            let json = """
                { "video": { "width": 1280, "height": 720, "fps": 10 },
                  "map": { "tiles": "\(tiles)", "attribution": "© OpenStreetMap contributors" },
                  "tracks": [ { "file": "anna.gpx", "name": "Anna", "color": "\(Self.colors[0])" } ],
                  "playback": { "speed": 100 }, "camera": { "follow": "Anna", "zoom": 16.5 } }
                """
            let (scene, t, frames) = try Self.render(json: json, name: "tiles", in: dir)
            #expect(frames.count == t.frameCount)
            let color = try #require(Color(hex: Self.colors[0]))
            for n in [t.frameCount / 4, t.frameCount / 2, 3 * t.frameCount / 4] {
                let p = try Self.pixel(t, scene, frame: n, mover: 0)
                let seconds = min(Double(n) * 100 / 10, walk.times?.last ?? 0)
                #expect(Geodesy.distanceKm(t.values(at: n).movers[0].position, walk.point(atSeconds: seconds)) < 0.002)
                // The follow camera keeps the mover at the centre (smoothed: within a few pixels), on the street map.
                #expect(abs(p.x - 640) < 12 && abs(p.y - 360) < 12, "frame \(n): \(p)")
                Trip.dump(frames[n], "playback-tiles-\(n)")
                #expect(Trip.looks(frames[n], p, like: color, tolerance: 40), "frame \(n): \(Trip.describe(frames[n], p))")
                // And the map under it is the street map: many colours about, not one flat fill.
                var seen = Set<UInt32>()
                let image = frames[n]
                for y in stride(from: 40, to: 680, by: 16) {
                    for x in stride(from: 40, to: 1240, by: 16) {
                        let i = y * image.stride + x * 4
                        seen.insert(UInt32(image.pixels[i] >> 4) << 8 | UInt32(image.pixels[i + 1] >> 4) << 4 | UInt32(image.pixels[i + 2] >> 4))
                    }
                }
                #expect(seen.count > 12, "frame \(n): \(seen.count) colours")
            }
        }
    }

    /// A stop longer than `skipIdle` is cut out with a short fade: the decoded picture dips through black
    /// over `PlaybackClock.cutFade` seconds either side of the cut (3 frames at 10 fps), its brightness
    /// the map's times the opacity each frame should have, and is untouched away from the cut.
    @Test func aSkippedStopDipsThePictureThroughBlack() throws {
        try Trip.withDirectory("playback-cut") { dir in
            let walk = TrackFixture.walk(seed: 7005, count: 120, start: LonLat(lon: 24.94, lat: 60.17), stepKm: 0.08)
                .stopped(at: 60, idle: 1800)
            let (_, t, frames) = try Self.render([("anna", walk, TrackFixture.start)],
                                                 playback: #"{ "speed": 200, "skipIdle": 300 }"#, in: dir)
            let clock = try #require(t.playback)
            #expect(clock.stretches.count == 2)
            let cut = try #require(clock.stretches.last).frames.lowerBound
            // Mean brightness over the frame's middle (clear of the credit, which does not dip).
            func brightness(_ n: Int) -> Double {
                let image = frames[n]
                var sum = 0, count = 0
                for y in stride(from: image.height / 8, to: image.height * 7 / 8, by: 4) {
                    for x in stride(from: image.width / 8, to: image.width * 7 / 8, by: 4) {
                        let i = y * image.stride + x * 4
                        sum += Int(image.pixels[i]) + Int(image.pixels[i + 1]) + Int(image.pixels[i + 2])
                        count += 3
                    }
                }
                return Double(sum) / Double(count)
            }
            let full = (brightness(cut - 8) + brightness(cut + 8)) / 2
            #expect(full > 150, "the map is light: \(full)")
            #expect(abs(brightness(cut - 8) - brightness(cut - 6)) < 3)
            // 3 fade frames: the frames next to the cut at a quarter of the picture, then half, then three quarters.
            for d in 1...4 {
                let opacity = min(1, Double(d) / 4)
                for m in [cut - d, cut + d - 1] {
                    Trip.dump(frames[m], "playback-cut-\(m)")
                    #expect(abs(brightness(m) - full * opacity) < 10, "frame \(m): \(brightness(m)) against \(full * opacity)")
                }
            }
        }
    }

    @Test func aGhostRacePutsEachRunnerAtItsOwnSpot() throws {
        try Trip.withDirectory("playback-race") { dir in
            let a = TrackFixture.walk(seed: 7002, count: 140, start: LonLat(lon: 24.94, lat: 60.17), stepKm: 0.08, heading: 30)
            let b = TrackFixture.walk(seed: 7003, count: 120, start: LonLat(lon: 24.97, lat: 60.168), stepKm: 0.08,
                                      heading: 200)
            let (scene, t, frames) = try Self.render([("a", a, TrackFixture.start),
                                                      ("b", b, TrackFixture.start.addingTimeInterval(5 * 86_400))],
                                                     playback: #"{ "speed": 400, "start": "together" }"#, in: dir)
            #expect(frames.count == t.frameCount)
            let colors = try Self.colors.map { try #require(Color(hex: $0)) }
            for n in [0, t.frameCount / 2] {
                for i in 0..<2 {
                    let p = try Self.pixel(t, scene, frame: n, mover: i)
                    let walk = i == 0 ? a : b
                    let seconds = min(Double(n) * 400 / 10, walk.times?.last ?? 0)
                    #expect(Geodesy.distanceKm(t.values(at: n).movers[i].position, walk.point(atSeconds: seconds)) < 0.002)
                    #expect(Trip.looks(frames[n], p, like: colors[i], tolerance: 40),
                            "frame \(n), runner \(i): \(Trip.describe(frames[n], p))")
                    #expect(!Trip.looks(frames[n], p, like: colors[1 - i], tolerance: 40))
                }
            }
        }
    }
    /// A GPX's `wpt`s, with the scene listing no places, are pinned where they are: a pin's red body
    /// stands above each waypoint on the last frame, and none above a point of the track that is none.
    @Test func aTracksWaypointsArePinnedWhereTheyAre() throws {
        try Trip.withDirectory("playback-waypoints") { dir in
            let walk = TrackFixture.walk(seed: 7004, count: 160, start: LonLat(lon: 24.94, lat: 60.17), stepKm: 0.08)
            let stops = [walk.points[50], walk.points[110]]
            let wpts = zip(["Cafe", "Pier"], stops).map { "<wpt lat=\"\($1.lat)\" lon=\"\($1.lon)\"><name>\($0)</name></wpt>" }
            let gpx = walk.gpx(start: TrackFixture.start).replacingOccurrences(of: "<trk>", with: wpts.joined(separator: "\n") + "\n<trk>")
            try gpx.write(to: dir.appendingPathComponent("anna.gpx"), atomically: true, encoding: .utf8)
            let (scene, t, frames) = try Self.render(json: """
                { "video": { "width": 1280, "height": 720, "fps": 10 },
                  "tracks": [ { "file": "anna.gpx", "name": "anna", "color": "\(Self.colors[1])" } ], "playback": { "speed": 800 } }
                """, name: "waypoints", in: dir)
            #expect(scene.places.map(\.name) == ["Cafe", "Pier"])
            #expect(scene.places.map(\.position) == stops)
            let last = t.frameCount - 1
            #expect(t.values(at: last).pins.count == 2)
            let unit = 720.0 / 1080
            let tips = try stops.map { try RouteLooksRenderTests.pixel(t, scene, frame: last, $0) }
            Trip.dump(frames[last], "playback-waypoints")
            for tip in tips {
                let body = Trip.pinBody(above: tip, unit: unit)
                #expect(Trip.redPixels(frames[last], x: body.x, y: body.y) > 40, "pin above \(tip)")
            }
            // A point of the track at least 80 px from both pins (and their labels' rows) has none.
            let others = try [0, 20, 80, 140, 159].map { try RouteLooksRenderTests.pixel(t, scene, frame: last, walk.points[$0]) }
            let control = try #require(others.first { p in tips.allSatisfy { hypot($0.x - p.x, $0.y - p.y) > 80 } })
            let body = Trip.pinBody(above: control, unit: unit)
            #expect(Trip.redPixels(frames[last], x: body.x, y: body.y) < 5, "no pin above \(control)")
        }
    }
}
