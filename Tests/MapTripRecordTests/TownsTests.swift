import Cairo
import Foundation
import MapTripGazetteer
import MapTripGeometry
import MapTripScene
import MapTripTime
import Testing
@testable import MapTripRecord
@testable import MapTripRender

/// The embedded map's towns (issue #58): a close-up names the towns around the trip from the
/// gazetteer, never over the trip's pins and labels nor over each other, the same towns as the camera
/// moves, none with `map.towns: false`.
@Suite("Towns on the embedded map")
struct TownsTests {
    /// A leg across South Korea, resting on Daegu at a region close-up.
    static func korea(towns: Bool = true) -> Scene {
        var scene = Scene(flight: 1, video: Video(width: 960, height: 540, fps: 24), places: [
            Place(name: "Daejeon", position: LonLat(lon: 127.3845, lat: 36.3504), dwell: 1, zoom: 8),
            Place(name: "Daegu", position: LonLat(lon: 128.6014, lat: 35.8714), dwell: 2, zoom: 8),
        ])
        scene.towns = towns
        return scene
    }

    struct Drawn {
        var renderer: FrameRenderer
        var frame: FrameContext
        var towns: [PlacedTown]
        var trip: [Box]
    }

    /// Scene `scene`'s frame `n` (nil: resting on the last place) drawn with the map a render makes,
    /// its camera moved `shift` pixels right; the towns placed on it and the trip's boxes.
    static func draw(_ scene: Scene, at n: Int? = nil, shift: Double = 0) throws -> Drawn {
        let map = try BaseMaps.make(for: scene, format: scene.video.format, sceneDirectory: Trip.assets,
                                    environment: RenderEnvironment(assets: Trip.assets))
        let renderer = try FrameRenderer(scene: scene, baseMap: map)
        let timeline = Timeline(scene: scene)
        var values = timeline.values(at: n ?? timeline.slots[1].arriveFrame + 6)
        if shift != 0, let moved = renderer.viewport(values.camera).location(atPixel: 480 + shift, 270) {
            values.camera = Camera(center: moved, zoom: values.camera.zoom)
        }
        try map.prepare(for: [renderer.viewport(values.camera)])
        try renderer.render(values)
        let frame = FrameContext(scene: scene, values: values, viewport: renderer.viewport(values.camera),
                                 layout: renderer.layout, baseMap: map, routes: timeline.routes, media: SceneMedia())
        let towns = try #require(renderer.overlays.compactMap { $0 as? TownsOverlay }.first)
        let places = try #require(renderer.overlays.compactMap { $0 as? PlacesOverlay }.first)
        return Drawn(renderer: renderer, frame: frame, towns: try towns.placed(frame), trip: try places.tripBoxes(frame))
    }

    static func overlaps(_ a: Box, _ b: Box) -> Bool {
        a.minX < b.maxX && a.maxX > b.minX && a.minY < b.maxY && a.maxY > b.minY
    }

    @Test func aCloseUpNamesNearbyTownsClearOfTheTripAndEachOther() throws {
        let drawn = try Self.draw(Self.korea())
        let bare = try Self.draw(Self.korea(towns: false))
        #expect(bare.towns.isEmpty)
        #expect(drawn.towns.count >= 4, "towns named: \(drawn.towns.map(\.town.name))")
        #expect(drawn.trip.count >= 3, "the pins and the current label")
        // No town over a pin or a trip label, nor over another town.
        for (i, t) in drawn.towns.enumerated() {
            for b in drawn.trip { #expect(!Self.overlaps(t.box, b), "\(t.town.name) \(t.box) meets the trip's \(b)") }
            for u in drawn.towns[(i + 1)...] {
                #expect(!Self.overlaps(t.box, u.box), "\(t.town.name) meets \(u.town.name)")
            }
        }
        // The trip's own places are not named twice.
        #expect(!drawn.towns.contains { ["Daegu", "Daejeon"].contains($0.town.name) })

        // Ink: each town's name is drawn where its box says (the frame differs from the same frame
        // without towns inside the box), and its dot is at its centre.
        let with = CinematicsRenderTests.Pixels(drawn.renderer.surface)
        let without = CinematicsRenderTests.Pixels(bare.renderer.surface)
        // (Towns fading in, just above the zoom's least population, are fainter: the opaque ones.)
        let opaque = drawn.towns.filter { $0.alpha >= 1 && $0.box.minX > 0 && $0.box.maxX < 960 && $0.box.minY > 0 && $0.box.maxY < 540 }
        #expect(opaque.count >= 2)
        for t in opaque {
            var changed = 0, total = 0
            for y in Int(t.label.minY)..<Int(t.label.maxY) {
                for x in Int(t.label.minX)..<Int(t.label.maxX) {
                    total += 1
                    let p = with.at(x, y), q = without.at(x, y)
                    if max(abs(p.r - q.r), abs(p.g - q.g), abs(p.b - q.b)) > 8 { changed += 1 }
                }
            }
            #expect(changed * 20 > total, "\(t.town.name): \(changed) of \(total) pixels inked")
            let dot = with.matches(Int(t.x), Int(t.y), drawn.frame.scene.style.label.color, tolerance: 40)
            #expect(dot, "\(t.town.name)'s dot at (\(Int(t.x)), \(Int(t.y))): \(with.at(Int(t.x), Int(t.y)))")
        }

        // Independently of the layer: the most populous place in the gazetteer with its dot well inside
        // the frame, and well away from the trip's boxes and its places, is named.
        let viewport = drawn.frame.viewport
        let gazetteer = try Gazetteer(assets: Trip.assets)
        let clear = try gazetteer.towns().first { g in
            let position = LonLat(lon: g.lon, lat: g.lat)
            guard let p = viewport.pixel(position), p.x > 150, p.x < 810, p.y > 60, p.y < 480 else { return false }
            let around = Box(minX: p.x - 120, minY: p.y - 60, maxX: p.x + 120, maxY: p.y + 60)
            return !drawn.trip.contains { Self.overlaps(around, $0) }
                && !drawn.frame.scene.places.contains { Geodesy.distanceKm($0.position, position) < 40 }
        }
        let largest = try #require(clear)
        #expect(drawn.towns.contains { $0.town.name == largest.name }, "\(largest.name) not named")
    }

    @Test func theSameTownsStayAsTheCameraMovesAPixel() throws {
        let a = try Self.draw(Self.korea())
        let b = try Self.draw(Self.korea(), shift: 1)
        #expect(!a.towns.isEmpty)
        // Those well inside the frame on both: the same, on the same side, moved by the pixel.
        func inner(_ d: Drawn) -> [String: PlacedTown] {
            Dictionary(d.towns.filter { $0.box.minX > 40 && $0.box.maxX < 920 }.map { ($0.town.name, $0) },
                       uniquingKeysWith: { x, _ in x })
        }
        let ia = inner(a), ib = inner(b)
        #expect(Set(ia.keys) == Set(ib.keys))
        for (name, t) in ia {
            guard let u = ib[name] else { continue }
            #expect(t.leftSide == u.leftSide, "\(name) changed sides")
            #expect(abs(u.x - t.x + 1) < 0.01 && abs(t.y - u.y) < 0.01, "\(name) moved (\(u.x - t.x), \(u.y - t.y))")
        }
    }

    @Test func aWorldViewNamesNoTown() throws {
        var scene = Self.korea()
        scene.places = scene.places.map { var p = $0; p.zoom = 3; return p }
        let drawn = try Self.draw(scene)
        #expect(drawn.towns.isEmpty)
    }

    @Test func theTownsSwitchIsReadFromTheScene() throws {
        let text = """
            {"places": [{"name": "Utrecht", "lat": 52.09, "lon": 5.12, "zoom": 9}], "map": {"towns": false}}
            """
        let off = try SceneLoader.decode(Data(text.utf8), file: "towns.json")
        #expect(!off.towns)
        let on = try SceneLoader.decode(Data(text.replacingOccurrences(of: "false", with: "true").utf8), file: "towns.json")
        #expect(on.towns)
        let bad = text.replacingOccurrences(of: "false", with: "\"no\"")
        #expect(throws: SceneErrors.self) { try SceneLoader.decode(Data(bad.utf8), file: "towns.json") }
    }
}
