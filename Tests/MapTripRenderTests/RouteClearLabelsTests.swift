import Cairo
import Foundation
@testable import MapTripGeometry
import MapTripScene
@testable import MapTripTime
import Testing
import TestSupport
@testable import MapTripRender

/// Place labels against the trip's routes (issue #56): a label sits beside its pin where no route
/// passes, over the routes drawn and those still to come; a place visited twice has one label.
@Suite("Labels clear of routes")
struct RouteClearLabelsTests {
    /// A tour of European capitals close together at a country zoom: routes leave every pin in two
    /// directions, so the first position beside a pin (right) is often on a route.
    static let tour: Scene = {
        let capitals: [(String, Double, Double)] = [
            ("Lisboa", -9.139, 38.722), ("Madrid", -3.704, 40.417), ("Paris", 2.352, 48.857),
            ("London", -0.128, 51.507), ("Amsterdam", 4.904, 52.368), ("Berlin", 13.405, 52.520),
            ("Praha", 14.438, 50.075), ("Wien", 16.373, 48.208), ("Bern", 7.447, 46.948),
            ("Roma", 12.496, 41.903),
        ]
        let places = capitals.map { Place(name: $0.0, position: LonLat(lon: $0.1, lat: $0.2), dwell: 2, zoom: 4.2) }
        return Scene(flight: 1, video: Video(width: 960, height: 540, fps: 10), places: places)
    }()

    @Test func obstaclesFindEveryLineNearABox() {
        var rng = SplitMix64(seed: 0x1AB_E150)
        for _ in 0..<40 {
            let lines: [[(x: Double, y: Double)]] = (0..<Int(rng.unit() * 6 + 1)).map { _ in
                (0..<Int(rng.unit() * 30 + 2)).map { _ in (rng.unit() * 1400 - 240, rng.unit() * 900 - 180) }
            }
            let reach = rng.unit() * 8
            let obstacles = LineObstacles(lines, reach: reach, width: 960, height: 540)
            for _ in 0..<200 {
                // Labels lie inside the frame.
                let x = rng.unit() * 810, y = rng.unit() * 500
                let box = Box(minX: x, minY: y, maxX: x + rng.unit() * 150, maxY: y + rng.unit() * 40)
                // Every segment against the grown box, none skipped by buckets.
                let grown = box.padded(by: reach)
                let near = lines.contains { line in
                    zip(line, line.dropFirst()).contains { InkCells.clip($0, $1, to: grown) != nil }
                }
                #expect(obstacles.meets(box) == near, "box \(box) reach \(reach)")
            }
        }
    }

    @Test func aLabelTakesTheFirstPlaceOffTheRoutes() {
        let r = LabelPlacer.Request(anchorX: 400, anchorY: 300, width: 100, height: 24, gap: 10, rise: 30)
        let right = r.candidates()[0], left = r.candidates()[1]
        // A route leaving the pin to the right, through the first place.
        let route = LineObstacles([[(400, 290), (700, 282)]], reach: 3, width: 960, height: 540)
        let bounds = Box(minX: 0, minY: 0, maxX: 960, maxY: 540)
        #expect(LabelPlacer.place([r], within: bounds) == [right])
        #expect(LabelPlacer.place([r], within: bounds, lines: route) == [left])
        // Routes on every side: the first place free of the rest, over the line.
        let star = LineObstacles(r.candidates().map { [(400, 300), (($0.minX + $0.maxX) / 2, ($0.minY + $0.maxY) / 2)] }, reach: 3, width: 960, height: 540)
        #expect(LabelPlacer.place([r], within: bounds, lines: star) == [right])
    }

    /// The label boxes meeting a route's pixels over every third frame of the tour.
    static func labelsOnRoutes(keepOff: Bool) throws -> (crossings: Int, labels: Int) {
        let scene = Self.tour
        let timeline = Timeline(scene: scene)
        let routes = try FrameRenderer(scene: scene, baseMap: TransparentBaseMap(), overlays: [RouteOverlay()])
        let places = PlacesOverlay()
        places.keepsOffRoutes = keepOff
        var crossings = 0, labels = 0
        for n in stride(from: 0, to: timeline.frameCount, by: 3) {
            var values = timeline.values(at: n)
            // Every leg drawn whole: labels keep off the routes still to come as well.
            values.legs = (1..<scene.places.count).map { LegValue(place: $0, progress: 1, travelled: false) }
            try routes.render(values)
            let surface = routes.surface
            let frame = FrameContext(scene: scene, values: timeline.values(at: n), viewport: routes.viewport(values.camera),
                                     layout: routes.layout, baseMap: TransparentBaseMap(), routes: timeline.routes,
                                     media: SceneMedia())
            for label in try places.labels(frame) {
                labels += 1
                let b = label.box
                var hit = false
                for y in max(0, Int(b.minY))..<min(540, Int(b.maxY.rounded(.up))) where !hit {
                    for x in max(0, Int(b.minX))..<min(960, Int(b.maxX.rounded(.up))) where surface.data[y * surface.stride + x * 4 + 3] > 64 {
                        hit = true
                        break
                    }
                }
                if hit { crossings += 1 }
            }
        }
        return (crossings, labels)
    }

    @Test func aTourLabelsItsPlacesOffItsRoutes() throws {
        let before = try Self.labelsOnRoutes(keepOff: false)
        let after = try Self.labelsOnRoutes(keepOff: true)
        print("labels on a route: \(before.crossings) of \(before.labels) placed first-free, \(after.crossings) of \(after.labels) kept off")
        #expect(before.crossings > 10, "the tour puts labels on routes when they are not kept off")
        #expect(after.crossings == 0)
        #expect(after.labels >= before.labels * 9 / 10, "keeping off the routes hides no more than a tenth")
    }

    @Test func aPlaceVisitedTwiceHasOneLabel() throws {
        let london = Place(name: "London", position: LonLat(lon: -0.128, lat: 51.507), dwell: 2, zoom: 4)
        let scene = Scene(flight: 1, video: Video(width: 960, height: 540, fps: 10), places: [
            london, Place(name: "Paris", position: LonLat(lon: 2.352, lat: 48.857), dwell: 2, zoom: 4),
            Place(name: "Bruxelles", position: LonLat(lon: 4.352, lat: 50.847), dwell: 2, zoom: 4), london,
        ])
        let timeline = Timeline(scene: scene)
        let renderer = try FrameRenderer(scene: scene, baseMap: TransparentBaseMap())
        let places = try #require(renderer.overlays.compactMap { $0 as? PlacesOverlay }.first)
        for n in [timeline.slots[3].arriveFrame + 1, timeline.frameCount - 1] {
            let values = timeline.values(at: n)
            #expect(values.pins.count == 4)
            let frame = FrameContext(scene: scene, values: values, viewport: renderer.viewport(values.camera),
                                     layout: renderer.layout, baseMap: TransparentBaseMap(), routes: timeline.routes,
                                     media: SceneMedia())
            let names = try places.labels(frame).map(\.name)
            #expect(names.sorted() == ["Bruxelles", "London", "Paris"], "frame \(n): \(names)")
        }
    }
}
