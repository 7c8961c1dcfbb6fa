import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Testing
import TestSupport
@testable import MapTripRender
@testable import MapTripTiles

/// A MapLibre style's labels keep clear of the trip's pins and labels (issue #58): the walk through
/// Helsinki rests on Esplanadi, whose label sits on the street names of the park's two streets.
@Suite("Styled map labels keep clear of the trip")
struct StyledTripMarksTests {
    static let scene = Scene(flight: 1, video: Video(width: 960, height: 540, fps: 24), places: [
        Place(name: "Central Station", position: LonLat(lon: 24.9414, lat: 60.1712), dwell: 1, zoom: 16.5),
        Place(name: "Esplanadi", position: LonLat(lon: 24.9462, lat: 60.1676), dwell: 2, zoom: 17),
    ])

    static func overlaps(_ a: Box, _ b: Box) -> Bool {
        a.minX < b.maxX && a.maxX > b.minX && a.minY < b.maxY && a.maxY > b.minY
    }

    @Test func noMapLabelMeetsAPinOrATripLabel() throws {
        try TemporaryFolder.with("styled-trip") { dir in
            let source = MapSource(tiles: StyledMapTests.pmtiles.path, attribution: "© OpenStreetMap contributors")
            let tiles = try TileSources.make(source, sceneDirectory: dir)
            let map = try StyledMaps.make(tiles: tiles, map: source, scene: Self.scene, sceneDirectory: dir,
                                          assets: StyledMapTests.assets)
            let renderer = try FrameRenderer(scene: Self.scene, baseMap: map)
            let timeline = Timeline(scene: Self.scene)
            let values = timeline.values(at: timeline.slots[1].arriveFrame + 6)
            let viewport = renderer.viewport(values.camera)
            try map.prepare(for: [viewport])
            let frame = FrameContext(scene: Self.scene, values: values, viewport: viewport, layout: renderer.layout,
                                     baseMap: map, routes: timeline.routes, media: SceneMedia())
            let places = try #require(renderer.overlays.compactMap { $0 as? PlacesOverlay }.first)
            let trip = try places.tripBoxes(frame)
            #expect(trip.count >= 2, "a pin and its label at least")

            // Told nothing, the map's labels meet the trip's (what the test is about happens here).
            map.avoid([])
            let s = try ImageSurface(width: viewport.width, height: viewport.height)
            try s.withContext { try map.draw(viewport, in: $0) }
            let free = map.labels.boxes
            #expect(free.contains { b in trip.contains { Self.overlaps(b, $0) } })

            // A frame as a render draws it: no map label meets a pin or a trip label, and the map
            // still names streets.
            try renderer.render(values)
            let placed = map.labels.placements
            #expect(placed.filter { $0.kind == .line }.count >= 3, "\(placed.map(\.text))")
            for p in placed {
                for b in p.boxes {
                    for t in trip { #expect(!Self.overlaps(b, t), "\(p.text) at \(b) meets the trip's \(t)") }
                }
            }
        }
    }

    /// Nor do they go under what sits over the map in its own place: the distance counter (top left),
    /// a scale bar and a north arrow (bottom left), the credit (bottom right).
    @Test func noMapLabelGoesUnderTheCounterTheFurnitureOrTheCredit() throws {
        var scene = Self.scene
        scene.distance = true
        scene.furniture = Furniture(scaleBar: .init(corner: .bottomLeft), northArrow: .init(corner: .bottomLeft))
        try TemporaryFolder.with("styled-hud") { dir in
            let source = MapSource(tiles: StyledMapTests.pmtiles.path, attribution: "© OpenStreetMap contributors")
            let tiles = try TileSources.make(source, sceneDirectory: dir)
            let map = try StyledMaps.make(tiles: tiles, map: source, scene: scene, sceneDirectory: dir,
                                          assets: StyledMapTests.assets)
            let renderer = try FrameRenderer(scene: scene, baseMap: map)
            let timeline = Timeline(scene: scene)
            var met = 0
            for n in [timeline.slots[0].arriveFrame, timeline.slots[1].arriveFrame + 6] {
                let values = timeline.values(at: n)
                let viewport = renderer.viewport(values.camera)
                try map.prepare(for: [viewport])
                let frame = FrameContext(scene: scene, values: values, viewport: viewport, layout: renderer.layout,
                                         baseMap: map, routes: timeline.routes, media: SceneMedia())
                let credit = try #require(renderer.overlays.compactMap { $0 as? AttributionOverlay }.first)
                let hud = frame.overlayBoxes + (try credit.marks(frame) ?? []).map(\.box)
                #expect(hud.count >= 4, "the counter, the scale bar, the arrow and the credit: \(hud)")

                // Told nothing, some map label goes under them (so the test can fail).
                map.avoid([])
                let s = try ImageSurface(width: viewport.width, height: viewport.height)
                try s.withContext { try map.draw(viewport, in: $0) }
                met += map.labels.boxes.filter { b in hud.contains { Self.overlaps(b, $0) } }.count

                // As a render draws the frame: none does.
                try renderer.render(values)
                let placed = map.labels.placements
                #expect(!placed.isEmpty)
                for p in placed {
                    for b in p.boxes {
                        for h in hud { #expect(!Self.overlaps(b, h), "\(p.text) at \(b) goes under \(h) at frame \(n)") }
                    }
                }
            }
            #expect(met > 0, "no map label went under the counter, the furniture or the credit when told nothing")
        }
    }
}
