import Foundation
import MapTripSupport
import Testing
import TestSupport
@testable import MapTripGeometry
@testable import MapTripTime

@Suite("flyTo")
struct FlyToTests {
    let samples = (0...200).map { Double($0) / 200 }

    @Test func endpointsAreExact() {
        let from = Camera(center: seoul, zoom: 7), to = Camera(center: busan, zoom: 9)
        let flight = Flight(from: from, to: to)
        #expect(flight.camera(at: 0) == from)
        #expect(flight.camera(at: 1) == to)
        #expect(flight.camera(at: -0.5) == from)
        #expect(flight.camera(at: 1.5) == to)
        #expect(flight.camera(alongPath: 0) == from)
        #expect(flight.camera(alongPath: 1) == to)
        // ... and continuous into them.
        #expect(flight.camera(alongPath: 1e-9).isClose(to: from, tolerance: 1e-6))
        #expect(flight.camera(alongPath: 1 - 1e-9).isClose(to: to, tolerance: 1e-6))
    }

    @Test func progressIsMonotonic() {
        let from = Camera(center: paris, zoom: 10), to = Camera(center: newYork, zoom: 11)
        let flight = Flight(from: from, to: to)
        let p0 = WebMercator.project(from.center), p1 = WebMercator.project(to.center)
        let dx = p1.x - p0.x, dy = p1.y - p0.y
        var last = -1.0
        for k in samples {
            let p = WebMercator.project(flight.camera(at: k).center)
            let along = ((p.x - p0.x) * dx + (p.y - p0.y) * dy) / (dx * dx + dy * dy)
            #expect(along >= last - 1e-12, "progress \(k)")
            last = along
        }
        #expect(abs(last - 1) < 1e-12)
    }

    @Test func zoomsOutMidFlight() {
        let flight = Flight(from: Camera(center: paris, zoom: 10), to: Camera(center: newYork, zoom: 10))
        // About 55,000 pixels apart at zoom 10 on a 1920-pixel view: out by about 2^5 to see both.
        let zooms = samples.map { flight.camera(alongPath: $0).zoom }
        let lowest = zooms.min()!
        #expect(lowest < 6, "lowest zoom \(lowest)")
        #expect(lowest > 4)
        // Out, then back in: the zoom falls to its minimum and rises after it.
        let minIndex = zooms.firstIndex(of: lowest)!
        #expect(zip(zooms[..<minIndex], zooms[1...minIndex]).allSatisfy { $0 >= $1 })
        #expect(zip(zooms[minIndex...], zooms[(minIndex + 1)...]).allSatisfy { $0 <= $1 })
        // Same zoom at both ends: the path is symmetric, lowest halfway along it.
        #expect(flight.camera(alongPath: 0.5).zoom == lowest)
        // In time, the ease makes the flight pass halfway along the path early.
        #expect(flight.camera(at: 0.5).zoom < 8)
    }

    @Test func shortFlightsBarelyZoomOut() {
        // Seoul to Busan at zoom 7 is about one screen: the camera stays close to zoom 7.
        let flight = Flight(from: Camera(center: seoul, zoom: 7), to: Camera(center: busan, zoom: 7))
        let lowest = samples.map { flight.camera(at: $0).zoom }.min()!
        #expect(lowest > 5.5 && lowest < 7)
    }

    @Test(arguments: [(tokyo, sanFrancisco), (sanFrancisco, tokyo)])
    func crossesTheAntimeridian(from a: LonLat, to b: LonLat) {
        let flight = Flight(from: Camera(center: a, zoom: 5), to: Camera(center: b, zoom: 5))
        // Halfway along the path (half of the 98 degrees from 139.69 east to 237.58 = -122.42).
        let mid = flight.camera(alongPath: 0.5).center.lon
        #expect(mid > 150 || mid < -150, "mid-flight longitude \(mid)")
        #expect(abs(mid - WebMercator.wrapLongitude((139.69 + 237.58) / 2)) < 1e-9)
        let midTime = flight.camera(at: 0.5).center.lon
        #expect(midTime > 139.69 || midTime < -122.42, "longitude \(midTime) at half time")
        var sawEast = false, sawWest = false
        for k in samples {
            let lon = flight.camera(at: k).center.lon
            #expect(lon >= -180 && lon < 180 || k == 1)
            #expect(lon > 139 || lon < -122, "over the Atlantic at \(k): \(lon)")
            if lon > 170 { sawEast = true }
            if lon < -170 { sawWest = true }
        }
        #expect(sawEast && sawWest)  // longitudes pass 180 -> -180
        #expect(flight.camera(at: 1).center == b)
    }

    @Test func pureZoom() {
        let from = Camera(center: seoul, zoom: 3), to = Camera(center: seoul, zoom: 10)
        let flight = Flight(from: from, to: to)
        var last = from.zoom
        for k in samples {
            let camera = flight.camera(at: k)
            #expect(camera.center == seoul)
            #expect(camera.zoom >= last - 1e-12)
            last = camera.zoom
        }
        #expect(last == 10)
        // On a log scale the zoom changes linearly along the path.
        #expect(abs(flight.camera(alongPath: 0.5).zoom - 6.5) < 1e-9)
        let out = Flight(from: to, to: from)
        #expect(abs(out.camera(alongPath: 0.25).zoom - 8.25) < 1e-9)
    }

    @Test func nothingToDo() {
        let camera = Camera(center: busan, zoom: 9)
        let flight = Flight(from: camera, to: camera)
        #expect(flight.length == 0)
        for k in samples { #expect(flight.camera(at: k) == camera) }
    }

    @Test func largerRhoZoomsOutFurther() {
        let from = Camera(center: paris, zoom: 8), to = Camera(center: newYork, zoom: 8)
        let gentle = Flight(from: from, to: to, rho: 1), steep = Flight(from: from, to: to, rho: 2)
        #expect(steep.camera(alongPath: 0.5).zoom < gentle.camera(alongPath: 0.5).zoom)
    }

    @Test func followsVanWijkAndNuij() {
        // Along the path the visible span w and the distance u satisfy the closed forms; check the
        // zoom at s = S/2 against an independent evaluation of Mapbox's formulas in pixels.
        let from = Camera(center: paris, zoom: 6), to = Camera(center: newYork, zoom: 9)
        let flight = Flight(from: from, to: to, viewSize: 1000)
        let rho = 1.42, rho2 = rho * rho
        let scale = pow(2, to.zoom - from.zoom)
        let worldSize = 256 * pow(2, from.zoom)
        let a = WebMercator.project(from.center), b = WebMercator.project(to.center)
        let w0 = 1000.0, w1 = w0 / scale
        let u1 = hypot(b.x - a.x, b.y - a.y) * worldSize
        func r(_ i: Double) -> Double {
            let bb = (w1 * w1 - w0 * w0 + (i == 1 ? -1 : 1) * rho2 * rho2 * u1 * u1) / (2 * (i == 1 ? w1 : w0) * rho2 * u1)
            return log((bb * bb + 1).squareRoot() - bb)
        }
        let r0 = r(0), S = (r(1) - r0) / rho
        #expect(abs(flight.length - S) < 1e-9)
        let s = S / 2
        let w = cosh(r0) / cosh(r0 + rho * s)
        let u = w0 * ((cosh(r0) * tanh(r0 + rho * s) - sinh(r0)) / rho2) / u1
        let camera = flight.camera(alongPath: 0.5)
        #expect(abs(camera.zoom - (from.zoom + log2(1 / w))) < 1e-9)
        let expected = WebMercator.unproject(WorldPoint(x: a.x + (b.x - a.x) * u, y: a.y + (b.y - a.y) * u))
        #expect(camera.center.isClose(to: expected))
    }

    @Test func cubicBezierEase() {
        let ease = CubicBezier.ease
        #expect(ease(0) == 0)
        #expect(ease(1) == 1)
        // CSS `ease` reference values.
        #expect(abs(ease(0.5) - 0.8024033877399112) < 1e-9)
        #expect(abs(ease(0.25) - 0.40851059137295075) < 1e-9)
        var last = 0.0
        for x in samples {
            let y = ease(x)
            #expect(y >= last && y <= 1)
            last = y
        }
        for x in samples { #expect(abs(CubicBezier.linear(x) - x) < 1e-9) }
        // A curve with flat ends still solves (bisection fallback).
        let steep = CubicBezier(1, 0, 0, 1)
        #expect(abs(steep(0.5) - 0.5) < 1e-9)
        #expect(steep(0.01) < 0.01)
    }
}

extension LonLat {
    func isClose(to other: LonLat, tolerance: Double = 1e-9) -> Bool {
        abs(lon - other.lon) <= tolerance && abs(lat - other.lat) <= tolerance
    }
}
