import Foundation
import Testing
import TestSupport
@testable import MapTripGeometry

@Suite("Web Mercator")
struct GeoTests {
    @Test func knownValues() {
        #expect(WebMercator.project(LonLat(lon: 0, lat: 0)) == WorldPoint(x: 0.5, y: 0.5))
        let top = WebMercator.project(LonLat(lon: -180, lat: 85.0511))
        #expect(top.x == 0)
        #expect(abs(top.y) < 1e-5)
        let bottom = WebMercator.project(LonLat(lon: 180, lat: -WebMercator.maxLatitude))
        #expect(bottom.x == 1)
        #expect(abs(bottom.y - 1) < 1e-12)
        // Beyond the square world, latitudes clamp.
        #expect(WebMercator.project(LonLat(lon: 0, lat: 89.9)).y == WebMercator.project(LonLat(lon: 0, lat: 90)).y)
        #expect(abs(WebMercator.unproject(WorldPoint(x: 0.5, y: 0)).lat - WebMercator.maxLatitude) < 1e-12)
    }

    @Test(arguments: [seoul, busan, tokyo, sanFrancisco, paris, newYork,
                      LonLat(lon: -179.999, lat: -84.9), LonLat(lon: 179.999, lat: 84.9)])
    func roundTrip(_ p: LonLat) {
        let back = WebMercator.unproject(WebMercator.project(p))
        #expect(abs(back.lon - p.lon) < 1e-9)
        #expect(abs(back.lat - p.lat) < 1e-9)
    }

    @Test func wrapLongitude() {
        #expect(WebMercator.wrapLongitude(180) == -180)
        #expect(WebMercator.wrapLongitude(190) == -170)
        #expect(WebMercator.wrapLongitude(-190) == 170)
        #expect(WebMercator.wrapLongitude(-180) == -180)
        #expect(WebMercator.wrapLongitude(45) == 45)
    }
}
