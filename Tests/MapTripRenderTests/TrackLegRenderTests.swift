import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import MapTripRender
import Testing
import TestSupport

/// A leg that follows a recording, drawn: the route's colour along the projected track, the vehicle at
/// its projected position.
@Suite struct TrackLegRenderTests {
    static let walk = TrackFixture.walk(seed: 59, count: 300, start: LonLat(lon: 24.94, lat: 60.17), stepKm: 0.05,
                                        turn: 12)

    static let scene: Scene = {
        var arrival = Place(name: "End", position: walk.points[walk.points.count - 1], dwell: 6, zoom: 15, flight: 5)
        arrival.track = TrackLeg(file: "walk.gpx", geometry: TrackGeometry(points: walk.points, times: walk.times))
        var s = Scene(video: Video(width: 1280, height: 720, fps: 10),
                      places: [Place(name: "Start", position: walk.points[0], dwell: 1, zoom: 15), arrival])
        s.vehicle = .icon(.bike)
        return s
    }()

    /// The BGRA bytes of a pixel.
    static func pixel(_ s: ImageSurface, _ x: Int, _ y: Int) -> [UInt8] {
        let i = y * s.stride + x * 4
        return [s.data[i], s.data[i + 1], s.data[i + 2], s.data[i + 3]]
    }

    @Test func theRouteFollowsTheTrackAndTheVehicleRidesIt() throws {
        let timeline = Timeline(scene: Self.scene)
        // The vehicle as a plain blue square (an image vehicle), so what it adds is told from the route.
        let icon = try ImageSurface(width: 32, height: 32)
        let cr = try Context(surface: icon)
        cr.setSource(red: 0, green: 0, blue: 1)
        cr.paint()
        icon.flush()
        let renderer = try FrameRenderer(scene: Self.scene, baseMap: TransparentBaseMap(),
                                         media: SceneMedia(vehicles: [1: .image(icon)]),
                                         overlays: [RouteOverlay(), VehicleOverlay()])
        let slot = timeline.slots[1]
        let n = slot.startFrame + slot.flightFrames * 2 / 3  // mid-run
        let values = timeline.values(at: n)
        let vehicle = try #require(values.vehicle)
        let view = renderer.viewport(values.camera)
        let at = try #require(view.pixel(vehicle.position))
        let color = Self.scene.route.color
        let expected = [color.blue, color.green, color.red].map { UInt8(($0 * 255).rounded()) }

        var withoutVehicle = values
        withoutVehicle.vehicle = nil
        try renderer.render(withoutVehicle)
        // Every track point travelled, at least a few pixels from the last one, lies on the route's colour.
        let travelled = Self.walk.points
        var checked = 0
        var kmSoFar = 0.0
        for (i, p) in travelled.enumerated() {
            if i > 0 { kmSoFar += Geodesy.distanceKm(travelled[i - 1], p) }
            guard kmSoFar < vehicle.progress * Self.walk.lengthKm - 0.02, let q = view.pixel(p) else { continue }
            let x = Int(q.x), y = Int(q.y)
            guard x >= 1, x < 1279, y >= 1, y < 719 else { continue }
            // The line's core, a pixel or so wide: the route's colour within a pixel of the point.
            let near = (-1...1).flatMap { dy in (-1...1).map { dx in Self.pixel(renderer.surface, x + dx, y + dy) } }
            #expect(near.contains { px in zip(px.prefix(3), expected).allSatisfy { abs(Int($0) - Int($1)) <= 24 } && px[3] > 240 },
                    "track point \(i) at (\(x), \(y))")
            checked += 1
        }
        #expect(checked > 100)
        let routeOnly = Array(UnsafeBufferPointer(start: renderer.surface.data, count: renderer.surface.stride * 720))

        // The vehicle: what it adds to the picture lies around its projected position.
        try renderer.render(values)
        var changed = 0, far = 0
        for y in 0..<720 {
            for x in 0..<1280 where Self.pixel(renderer.surface, x, y) != Array(routeOnly[(y * renderer.surface.stride + x * 4)...].prefix(4)) {
                changed += 1
                if hypot(Double(x) - at.x, Double(y) - at.y) > VehicleOverlay.size { far += 1 }
            }
        }
        #expect(changed > 200, "the vehicle draws (\(changed) pixels)")
        #expect(far == 0, "\(far) pixels changed away from the vehicle")
    }
}
