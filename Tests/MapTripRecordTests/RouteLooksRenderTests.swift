import FFmpeg
import Foundation
import MapTripGeometry
import MapTripOutput
import MapTripRecord
import MapTripRender
import MapTripScene
import MapTripTime
import Testing
import TestSupport

/// Route looks (#59) rendered as `maptrip render` renders them and decoded: a ride coloured by speed
/// with its legend, a privacy zone over part of it, and last year's ride drawn faintly beneath; on
/// H.264 MP4, VP9 WebM and with every fast path off.
@Suite("Route looks renders")
struct RouteLooksRenderTests {
    /// A seeded ride east across the outback: `slow` points 6 m apart, then `fast` points 24 m apart, every
    /// 2 s (3 m/s, then 12 m/s: 10.8 and 43.2 km/h), its heading wandering by up to 4 degrees a step;
    /// heights climbing 1 m a point.
    static func ride(seed: UInt64, start: LonLat, slow: Int = 60, fast: Int = 60) -> (points: [LonLat], times: [Double], heights: [Double]) {
        var rng = SplitMix64(seed: seed)
        var points = [start], times = [0.0], heights = [600.0]
        var bearing = 90.0
        for i in 1..<(slow + fast) {
            bearing = 90 + (bearing - 90 + (rng.unit() * 2 - 1) * 4) * 0.5
            let metres = i <= slow ? 6.0 : 24.0, p = points[i - 1]
            let dLat = metres / 1000 * cos(bearing * .pi / 180) / 111.195
            let dLon = metres / 1000 * sin(bearing * .pi / 180) / (111.195 * cos(p.lat * .pi / 180))
            points.append(LonLat(lon: p.lon + dLon, lat: p.lat + dLat))
            times.append(Double(i) * 2)
            heights.append(600 + Double(i))
        }
        return (points, times, heights)
    }

    static func gpx(_ ride: (points: [LonLat], times: [Double], heights: [Double]), start: Date) -> String {
        let iso = ISO8601DateFormatter()
        let points = ride.points.indices.map { i in
            "<trkpt lat=\"\(ride.points[i].lat)\" lon=\"\(ride.points[i].lon)\"><ele>\(ride.heights[i])</ele>"
                + "<time>\(iso.string(from: start.addingTimeInterval(ride.times[i])))</time></trkpt>"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="maptrip tests" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><trkseg>
            \(points.joined(separator: "\n"))
            </trkseg></trk>
            </gpx>
            """
    }

    static let rideColor = "#e4572e"
    /// Last year's ride, and a zone over its point 65.
    static let lastYear = ride(seed: 5902, start: LonLat(lon: 134.2, lat: -24.1965))
    static let backgroundZone = lastYear.points[65], backgroundRadius = 60.0
    static let range = 0.0...50.0

    /// The scene: the ride coloured by speed in [0, 50] km/h, a privacy zone of `radius` m around
    /// `zone` and one of `backgroundRadius` m on last year's ride (`backgroundZone`), last year's ride
    /// as a background track.
    static func write(in dir: URL, zone: LonLat, radius: Double) throws -> URL {
        let start = Date(timeIntervalSince1970: 1_714_555_800)
        try gpx(ride(seed: 5901, start: LonLat(lon: 134.2, lat: -24.2)), start: start)
            .write(to: dir.appendingPathComponent("ride.gpx"), atomically: true, encoding: .utf8)
        try gpx(lastYear, start: start.addingTimeInterval(-365 * 86_400))
            .write(to: dir.appendingPathComponent("last-year.gpx"), atomically: true, encoding: .utf8)
        let json = """
            { "video": { "width": 1920, "height": 1080, "fps": 10 },
              "tracks": [ { "file": "ride.gpx", "name": "Ride", "color": "\(rideColor)" } ],
              "playback": { "speed": 120, "clock": "none" },
              "route": { "colorBy": "speed", "palette": "viridis", "range": [\(range.lowerBound), \(range.upperBound)] },
              "backgroundTracks": [ "last-year.gpx" ],
              "privacy": [ { "lat": \(zone.lat), "lon": \(zone.lon), "radius": \(radius) },
                           { "lat": \(backgroundZone.lat), "lon": \(backgroundZone.lon), "radius": \(backgroundRadius) } ] }
            """
        let url = dir.appendingPathComponent("looks.json")
        try json.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    static func pixel(_ t: Timeline, _ scene: Scene, frame n: Int, _ p: LonLat) throws -> (x: Double, y: Double) {
        let values = t.values(at: n)
        let viewport = Viewport(camera: values.camera, width: scene.video.width, height: scene.video.height,
                                scale: scene.video.scale, projection: .webMercator)
        return try #require(viewport.pixel(p))
    }

    /// The sum of the channels' differences between two pixels.
    static func difference(_ image: BGRAImage, _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Int {
        let p = image.pixel(x: Int(a.x), y: Int(a.y)), q = image.pixel(x: Int(b.x), y: Int(b.y))
        return abs(Int(p.r) - Int(q.r)) + abs(Int(p.g) - Int(q.g)) + abs(Int(p.b) - Int(q.b))
    }

    /// Renders the scene through `path` beside it, decoded; the scene loaded and its timeline.
    static func render(_ sceneURL: URL, _ path: Path) throws -> (scene: Scene, timeline: Timeline, frames: [BGRAImage]) {
        LibraryLogging.configure(verbose: false)
        let out = sceneURL.deletingPathExtension().appendingPathExtension(path == .webm ? "webm" : "mp4")
        var environment = RenderEnvironment(assets: Trip.assets)
        if path == .fastPathsOff { environment.fastPaths = .none }
        _ = try RenderJob(scene: sceneURL, output: OutputRequest(path: out.path), environment: environment).run()
        let scene = try SceneLoader.loadForRender(contentsOf: sceneURL)
        let t = Timeline(scene: scene)
        let frames = try Trip.decode(out).frames
        #expect(frames.count == t.frameCount)
        // The last frame is preview's (with the fast paths on) within the codec's loss, where preview
        // draws anything over the land: the lines, the legend, the labels.
        let png = sceneURL.deletingPathExtension().appendingPathExtension("png")
        _ = try PreviewJob(scene: sceneURL, subject: .time(Double(t.frameCount - 1) / Double(scene.video.fps)), output: png,
                           environment: RenderEnvironment(assets: Trip.assets)).run()
        let preview = try ImageDecoder.decode(Data(contentsOf: png))
        let image = try #require(frames.last)
        let land = preview.pixel(x: preview.width / 2, y: preview.height / 16)
        var drawn = 0, total = 0
        for y in 0..<preview.height {
            for x in 0..<preview.width {
                let p = preview.pixel(x: x, y: y), q = image.pixel(x: x, y: y)
                guard abs(Int(p.r) - Int(land.r)) + abs(Int(p.g) - Int(land.g)) + abs(Int(p.b) - Int(land.b)) > 60 else { continue }
                drawn += 1
                total += abs(Int(p.r) - Int(q.r)) + abs(Int(p.g) - Int(q.g)) + abs(Int(p.b) - Int(q.b))
            }
        }
        #expect(drawn > 2000 && Double(total) / Double(drawn) < 30,
                "\(path): \(drawn) pixels drawn over the land, off preview's by \(Double(total) / Double(max(drawn, 1))) on average")
        return (scene, t, frames)
    }

    enum Path: String, CaseIterable, CustomTestStringConvertible {
        case mp4 = "H.264 MP4", webm = "VP9 WebM", fastPathsOff = "H.264 MP4, fast paths off"
        var testDescription: String { rawValue }
    }

    @Test(arguments: Path.allCases)
    func aRideColouredBySpeedWithALegendAPrivacyZoneAndLastYearBeneath(_ path: Path) throws {
        try Trip.withDirectory("route-looks") { dir in
            let ride = Self.ride(seed: 5901, start: LonLat(lon: 134.2, lat: -24.2))
            let zone = ride.points[90], radius = 150.0
            let sceneURL = try Self.write(in: dir, zone: zone, radius: radius)
            let (scene, t, frames) = try Self.render(sceneURL, path)
            let last = frames.count - 1, image = frames[last]
            Trip.dump(frames[0], "looks-\(path)-first")
            Trip.dump(image, "looks-\(path)-last")
            let coloring = RouteColoring(by: .speed, palette: .viridis, range: Self.range)
            let land = (x: Double(scene.video.width) / 2, y: Double(scene.video.height) * 0.06)

            // The line's colour where the speed is known: the middle of the slow and of the fast stretch.
            for (i, kmh) in [(30, 10.8), (105, 43.2)] {
                let p = try Self.pixel(t, scene, frame: last, ride.points[i])
                let want = RoutePalette.viridis.color(at: kmh / Self.range.upperBound)
                #expect(Trip.looks(image, p, like: want, tolerance: 40),
                        "point \(i) (\(kmh) km/h) wants \(want): \(Trip.describe(image, p))")
            }
            // Not the mover's own colour, nor one colour for the whole line.
            let slow = try Self.pixel(t, scene, frame: last, ride.points[30])
            let fast = try Self.pixel(t, scene, frame: last, ride.points[105])
            #expect(Self.difference(image, slow, fast) > 120)

            // Nothing of the line inside the zone (but for its round end, half a casing in from the edge);
            // the line just outside it.
            var inside = 0, outside = 0
            for (i, q) in ride.points.enumerated() {
                let metres = Geodesy.distanceKm(q, zone) * 1000
                let p = try Self.pixel(t, scene, frame: last, q)
                let line = coloring.color(for: 43.2, in: Self.range)
                if metres < radius - 25 {
                    inside += 1
                    #expect(Self.difference(image, p, land) < 30, "point \(i), \(Int(metres)) m from the zone's centre: \(Trip.describe(image, p))")
                } else if metres > radius + 15 && metres < radius + 60 && i > 60 && i < ride.points.count - 3 {
                    outside += 1
                    #expect(Trip.looks(image, p, like: line, tolerance: 40), "point \(i), \(Int(metres)) m out: \(Trip.describe(image, p))")
                }
            }
            #expect(inside >= 8 && outside >= 2, "\(inside) points inside, \(outside) just outside")
            // While the mover is inside the zone it is not drawn.
            let within = try #require((0..<t.frameCount).first { n in
                let m = t.values(at: n).movers[0].position
                return Geodesy.distanceKm(m, zone) * 1000 < radius - 40
            })
            let m = try Self.pixel(t, scene, frame: within, t.values(at: within).movers[0].position)
            #expect(Self.difference(frames[within], m, land) < 30, "frame \(within): \(Trip.describe(frames[within], m))")

            // Last year's ride from the first frame: there, and fainter than this year's line.
            var faint = 0
            let background = Self.lastYear
            for i in stride(from: 10, to: 110, by: 10) {
                let p = try Self.pixel(t, scene, frame: 0, background.points[i])
                let d = Self.difference(frames[0], p, land)
                #expect(d > 25, "last year's point \(i): \(Trip.describe(frames[0], p))")
                #expect(d < Self.difference(image, fast, land), "last year's point \(i) is not fainter")
                if d > 25 { faint += 1 }
            }
            #expect(faint == 10)
            // Nothing of it inside its zone (its thin line's round end reaches a few metres in).
            var hidden = 0
            for (i, q) in background.points.enumerated() where Geodesy.distanceKm(q, Self.backgroundZone) * 1000 < Self.backgroundRadius - 15 {
                hidden += 1
                let p = try Self.pixel(t, scene, frame: 0, q)
                #expect(Self.difference(frames[0], p, land) < 20, "last year's point \(i) inside its zone: \(Trip.describe(frames[0], p))")
            }
            #expect(hidden >= 3)

            // The legend: the palette's low and high ends along its bar.
            let bar = LegendOverlay.bar(FrameLayout(width: scene.video.width, height: scene.video.height))
            let mid = (bar.minY + bar.maxY) / 2
            let low = (x: bar.minX + 3, y: mid), high = (x: bar.maxX - 3, y: mid)
            #expect(Trip.looks(image, low, like: coloring.color(bucket: 0), tolerance: 40), "\(Trip.describe(image, low))")
            #expect(Trip.looks(image, high, like: coloring.color(bucket: RouteColoring.buckets - 1), tolerance: 40),
                    "\(Trip.describe(image, high))")
        }
    }

    /// A place trip whose last leg follows the ride, coloured by elevation in [600, 720] m (its heights
    /// climb 1 m a point from 600), with the zone over it: the leg is drawn by the route layer (and its
    /// fast path straight into I420).
    @Test(arguments: Path.allCases)
    func aTrackLegColouredByElevationIsCutAtTheZone(_ path: Path) throws {
        try Trip.withDirectory("route-looks-leg") { dir in
            let ride = Self.ride(seed: 5906, start: LonLat(lon: 134.2, lat: -24.2))
            try Self.gpx(ride, start: Date(timeIntervalSince1970: 1_714_555_800))
                .write(to: dir.appendingPathComponent("ride.gpx"), atomically: true, encoding: .utf8)
            let zone = ride.points[90], radius = 120.0
            let json = """
                { "video": { "width": 1920, "height": 1080, "fps": 10 }, "opening": false, "closing": false,
                  "route": { "colorBy": "elevation", "range": [600, 720], "width": 12 },
                  "privacy": [ { "lat": \(zone.lat), "lon": \(zone.lon), "radius": \(radius) } ],
                  "places": [ { "name": "Start", "lat": \(ride.points[0].lat), "lon": \(ride.points[0].lon), "zoom": 15, "dwell": 0.5 },
                              { "name": "End", "track": "ride.gpx", "zoom": 15, "flight": 1, "dwell": 1 } ] }
                """
            let sceneURL = dir.appendingPathComponent("leg.json")
            try json.write(to: sceneURL, atomically: true, encoding: .utf8)
            let (scene, t, frames) = try Self.render(sceneURL, path)
            let last = frames.count - 1, image = frames[last]
            Trip.dump(image, "leg-\(path)-last")
            let land = (x: Double(scene.video.width) / 2, y: Double(scene.video.height) * 0.06)
            for i in [20, 45, 70, 110] {
                let p = try Self.pixel(t, scene, frame: last, ride.points[i])
                let want = RoutePalette.viridis.color(at: Double(i) / 120)
                #expect(Trip.looks(image, p, like: want, tolerance: 40), "point \(i) (\(600 + i) m) wants \(want): \(Trip.describe(image, p))")
            }
            var inside = 0
            // The line's round end and casing reach 10 px (44 m at zoom 15 here) in from the circle.
            for (i, q) in ride.points.enumerated() where Geodesy.distanceKm(q, zone) * 1000 < radius - 50 {
                inside += 1
                let p = try Self.pixel(t, scene, frame: last, q)
                #expect(Self.difference(image, p, land) < 30, "point \(i) inside the zone: \(Trip.describe(image, p))")
            }
            #expect(inside >= 4)
        }
    }

    /// The same leg coloured by gradient in [-20, 20] % on the diverging palette: 1 m up every 6 m on
    /// the slow stretch (16.7 %), every 24 m on the fast one (4.2 %).
    @Test func aTrackLegColouredByGradient() throws {
        try Trip.withDirectory("route-looks-gradient") { dir in
            let ride = Self.ride(seed: 5907, start: LonLat(lon: 134.2, lat: -24.2))
            try Self.gpx(ride, start: Date(timeIntervalSince1970: 1_714_555_800))
                .write(to: dir.appendingPathComponent("ride.gpx"), atomically: true, encoding: .utf8)
            let json = """
                { "video": { "width": 1920, "height": 1080, "fps": 10 }, "opening": false, "closing": false,
                  "route": { "colorBy": "gradient", "range": [-20, 20], "width": 12 },
                  "places": [ { "name": "Start", "lat": \(ride.points[0].lat), "lon": \(ride.points[0].lon), "zoom": 15, "dwell": 0.5 },
                              { "name": "End", "track": "ride.gpx", "zoom": 15, "flight": 1, "dwell": 1 } ] }
                """
            let sceneURL = dir.appendingPathComponent("gradient.json")
            try json.write(to: sceneURL, atomically: true, encoding: .utf8)
            let (scene, t, frames) = try Self.render(sceneURL, .mp4)
            let last = frames.count - 1, image = frames[last]
            Trip.dump(image, "gradient-last")
            for (i, percent) in [(30, 100 / 6.0), (105, 100 / 24.0)] {
                let p = try Self.pixel(t, scene, frame: last, ride.points[i])
                let want = RoutePalette.redBlue.color(at: (percent + 20) / 40)
                #expect(Trip.looks(image, p, like: want, tolerance: 40), "point \(i) (\(percent) %) wants \(want): \(Trip.describe(image, p))")
            }
        }
    }
}
