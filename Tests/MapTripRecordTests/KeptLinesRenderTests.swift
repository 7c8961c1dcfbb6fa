import Cairo
import Foundation
import Testing
import FFmpeg
import MapTripGeometry
import MapTripOutput
import MapTripRecord
import MapTripRender
import MapTripScene
import MapTripTime
import TestBasics
import TestSupport

/// Many movers' travelled lines over a camera at rest (issue #59): kept from frame to frame and added
/// to, stretch by stretch (`KeptLines`), they give each frame the picture that drawing them again from
/// their frames gives (a fresh renderer, fast paths off, preview), and each line reaches its mover.
@Suite("Kept travelled lines")
struct KeptLinesRenderTests {
    /// `count` seeded walks round central Helsinki, played together (with a privacy zone, if given).
    static func write(count: Int, width: Int = 640, zone: (center: LonLat, radius: Double)? = nil, in dir: URL) throws -> URL {
        var rng = SplitMix64(seed: 5959)
        var entries: [String] = []
        for k in 0..<count {
            let start = LonLat(lon: 24.90 + rng.unit() * 0.08, lat: 60.155 + rng.unit() * 0.03)
            let walk = TrackFixture.walk(seed: 5960 + UInt64(k), count: 60, start: start, stepKm: 0.05,
                                         heading: rng.unit() * 360)
            try walk.gpx.write(to: dir.appendingPathComponent("t\(k).gpx"), atomically: true, encoding: .utf8)
            let color = String(format: "#%02x%02x%02x", Int(rng.unit() * 200), Int(rng.unit() * 200), Int(rng.unit() * 200))
            entries.append("{ \"file\": \"t\(k).gpx\", \"name\": \"T\(k)\", \"color\": \"\(color)\" }")
        }
        let json = """
            { "video": { "width": \(width), "height": \(width * 9 / 16), "fps": 10 },
              "tracks": [ \(entries.joined(separator: ", ")) ],
              "playback": { "speed": 40, "start": "together", "clock": "none" }\(zone.map {
                #", "privacy": [ { "lat": \#($0.center.lat), "lon": \#($0.center.lon), "radius": \#($0.radius) } ]"#
              } ?? "") }
            """
        let url = dir.appendingPathComponent("many.json")
        try json.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// A renderer of the travelled lines alone, on transparency.
    static func lines(_ scene: Scene, _ timeline: Timeline, _ fastPaths: FastPaths) throws -> FrameRenderer {
        let renderer = try FrameRenderer(scene: scene, baseMap: TransparentBaseMap(), overlays: [MoverOverlay(drawsMovers: false)],
                                         fastPaths: fastPaths)
        renderer.planBaseMap(timeline)
        return renderer
    }

    static func bytes(_ surface: ImageSurface) -> [UInt8] {
        surface.flush()
        return Array(UnsafeBufferPointer(start: surface.data, count: surface.stride * surface.height))
    }

    @Test func keptLinesAreTheLinesDrawnAgainFromTheirFrames() throws {
        try Trip.withDirectory("kept-lines") { dir in
            // A privacy zone across the first walk's middle.
            let plain = try SceneLoader.loadForRender(contentsOf: try Self.write(count: 60, width: 1280, in: dir))
            let zone = (center: plain.tracks[0].geometry.points[30], radius: 300.0)
            let scene = try SceneLoader.loadForRender(contentsOf: try Self.write(count: 60, width: 1280, zone: zone, in: dir))
            let t = Timeline(scene: scene)
            #expect(t.frameCount > 3 * 30, "\(t.frameCount) frames: several checkpoints")
            // The camera rests on the whole area throughout.
            #expect(t.values(at: 0).camera == t.values(at: t.frameCount - 1).camera)
            let kept = try Self.lines(scene, t, .all)
            let checked = Set([0, 1, 29, 30, 31, 47, 60, 61, t.frameCount / 2, t.frameCount - 2, t.frameCount - 1])
            var inked: [Int] = []
            for n in 0..<t.frameCount {
                let values = t.values(at: n)
                try kept.render(values, frame: n)
                guard checked.contains(n) else { continue }
                let mine = Self.bytes(kept.surface)
                // Drawn again from the run's first frame: a fresh renderer (as preview), and fast paths off.
                for paths in [FastPaths.all, .none] {
                    let again = try Self.lines(scene, t, paths)
                    try again.render(values, frame: n)
                    #expect(Self.bytes(again.surface) == mine, "frame \(n), fast paths \(paths)")
                }
                inked.append(stride(from: 3, to: mine.count, by: 4).reduce(0) { $0 + (mine[$1] > 0 ? 1 : 0) })
                // Each line reaches its mover: its colour where the mover is (the newest stretch over the
                // others'), and it stops there: not its colour a few line widths further along its track.
                if n == t.frameCount / 2 {
                    if let dump = ProcessInfo.processInfo.environment["MAPTRIP_TEST_DUMP"] {
                        try kept.surface.writePNG(to: dump + "/kept-lines-middle.png")
                    }
                    let v = kept.viewport(values.camera), routes = scene.tracks.map { RouteLine(track: $0.geometry.points, times: $0.geometry.times) }
                    var reached = 0, beyond = 0, moving = 0
                    let shown = values.movers.filter { Geodesy.distanceKm($0.position, zone.center) * 1000 > zone.radius + 50 }
                    for mover in shown {
                        let color = scene.tracks[mover.track].color
                        let p = try #require(v.pixel(mover.position))
                        if Self.looks(kept.surface, p, like: color) { reached += 1 }
                        guard mover.state == .moving else { continue }
                        moving += 1
                        let line = routes[mover.track], ahead = mover.vehicle.progress + 40 / (line.lengthKm * 1000)
                        if ahead < 1, let q = v.pixel(line.point(at: ahead).position), hypot(q.x - p.x, q.y - p.y) > 12,
                           Self.looks(kept.surface, q, like: color) { beyond += 1 }
                    }
                    #expect(reached >= shown.count * 9 / 10, "\(reached) of \(shown.count) lines reach their mover")
                    #expect(moving > 10 && beyond <= moving / 10, "\(beyond) of \(moving) lines drawn past their mover")
                }
            }
            // The lines grow.
            #expect(inked.first! < inked.last! / 4, "pixels inked: \(inked)")
            // Nothing of any line inside the zone (but the round ends' casing, a few metres in).
            let v = kept.viewport(t.values(at: t.frameCount - 1).camera)
            var inside = 0
            for track in scene.tracks {
                for q in track.geometry.points where Geodesy.distanceKm(q, zone.center) * 1000 < zone.radius - 60 {
                    let p = try #require(v.pixel(q))
                    inside += 1
                    #expect(kept.surface.pixel(x: Int(p.x), y: Int(p.y)).a == 0, "a line's point \(q) inside the zone")
                }
            }
            #expect(inside >= 5, "\(inside) points inside the zone")
        }
    }

    static func looks(_ surface: ImageSurface, _ p: (x: Double, y: Double), like c: Color) -> Bool {
        let x = Int(p.x), y = Int(p.y)
        guard x >= 0, y >= 0, x < surface.width, y < surface.height else { return false }
        let q = surface.pixel(x: x, y: y), rgb = Trip.rgb(c)
        return q.a > 240 && abs(Int(q.r) - rgb.r) + abs(Int(q.g) - rgb.g) + abs(Int(q.b) - rgb.b) < 30
    }

    /// Renders through `paths` into a file of extension `ext`, decoded.
    static func render(_ sceneURL: URL, _ paths: FastPaths, _ ext: String) throws -> [BGRAImage] {
        LibraryLogging.configure(verbose: false)
        let out = sceneURL.deletingLastPathComponent().appendingPathComponent("out-\(paths == .all ? "on" : "off").\(ext)")
        var environment = RenderEnvironment(assets: Trip.assets)
        environment.fastPaths = paths
        _ = try RenderJob(scene: sceneURL, output: OutputRequest(path: out.path), environment: environment).run()
        return try Trip.decode(out).frames
    }

    enum Output: String, CaseIterable, CustomTestStringConvertible {
        case mp4 = "H.264 MP4", webm = "VP9 WebM", mov = "ProRes MOV", gif = "GIF"
        var testDescription: String { rawValue }
        var ext: String { String(describing: self) }
        /// The mean difference a channel from preview the codec may leave on 640x360 of thin lines and
        /// coasts (fast paths off leaves as much).
        var loss: Double {
            switch self {
            case .mp4, .webm: 2.5
            case .mov: 1
            case .gif: 8
            }
        }
    }

    @Test(arguments: Output.allCases)
    func aRenderOfKeptLinesIsPreviewsFramesAndTheOneWithoutFastPaths(_ output: Output) throws {
        try Trip.withDirectory("kept-lines-\(output.ext)") { dir in
            let url = try Self.write(count: 40, in: dir)
            let scene = try SceneLoader.loadForRender(contentsOf: url)
            let t = Timeline(scene: scene)
            let on = try Self.render(url, .all, output.ext), off = try Self.render(url, .none, output.ext)
            #expect(on.count == t.frameCount && off.count == t.frameCount)
            for n in [0, 30, 45, t.frameCount / 2, t.frameCount - 1] {
                // Both through the encoder from (within rounding) the same picture.
                let d = Trip.meanDifference(on[n], off[n])
                #expect(d < 0.5, "frame \(n): fast paths on and off differ by \(d) a channel")
                let png = dir.appendingPathComponent("f\(n).png")
                _ = try PreviewJob(scene: url, subject: .time(Double(n) / Double(scene.video.fps)), output: png,
                                   environment: RenderEnvironment(assets: Trip.assets)).run()
                let preview = try ImageDecoder.decode(Data(contentsOf: png))
                let p = Trip.meanDifference(on[n], preview), q = Trip.meanDifference(off[n], preview)
                #expect(p < output.loss && abs(p - q) < 0.3, "frame \(n): on and off differ from preview by \(p) and \(q) a channel")
                if n == t.frameCount - 1 { Trip.dump(on[n], "kept-lines-last-\(output.ext)") }
            }
        }
    }
}
