import Foundation
import Testing
@testable import MapTripGeometry

/// A spherical Lambert azimuthal equal-area projection written out (Snyder, Map Projections: A
/// Working Manual, eq. 24-2 and 24-13 to 24-18), and a plain Mercator, to probe without PROJ.
final class SphericalPlane: PlaneProjector, @unchecked Sendable {
    enum Kind { case laea(center: LonLat), mercator }
    let kind: Kind
    let definition = "test"
    let r = 6_371_007.0
    init(_ kind: Kind) { self.kind = kind }

    func project(xs: inout [Double], ys: inout [Double]) {
        for i in xs.indices {
            let lon = xs[i] * .pi / 180, lat = ys[i] * .pi / 180
            switch kind {
            case .laea(let c):
                let l0 = c.lon * .pi / 180, p1 = c.lat * .pi / 180
                let q = 1 + sin(p1) * sin(lat) + cos(p1) * cos(lat) * cos(lon - l0)
                guard q > 1e-12 else { xs[i] = .nan; ys[i] = .nan; continue }
                let k = (2 / q).squareRoot()
                xs[i] = r * k * cos(lat) * sin(lon - l0)
                ys[i] = r * k * (cos(p1) * sin(lat) - sin(p1) * cos(lat) * cos(lon - l0))
            case .mercator:
                guard abs(ys[i]) < 89.9 else { xs[i] = .nan; ys[i] = .nan; continue }
                xs[i] = r * lon
                ys[i] = r * log(tan(.pi / 4 + lat / 2))
            }
        }
    }

    func unproject(x: Double, y: Double) -> LonLat? {
        switch kind {
        case .laea(let c):
            let l0 = c.lon * .pi / 180, p1 = c.lat * .pi / 180
            let rho = hypot(x, y)
            guard rho <= 2 * r else { return nil }
            if rho == 0 { return c }
            let cc = 2 * asin(rho / (2 * r))
            let lat = asin(cos(cc) * sin(p1) + y * sin(cc) * cos(p1) / rho)
            let lon = l0 + atan2(x * sin(cc), rho * cos(p1) * cos(cc) - y * sin(p1) * sin(cc))
            return LonLat(lon: WebMercator.wrapLongitude(lon * 180 / .pi), lat: lat * 180 / .pi)
        case .mercator:
            return LonLat(lon: WebMercator.wrapLongitude(x / r * 180 / .pi), lat: (2 * atan(exp(y / r)) - .pi / 2) * 180 / .pi)
        }
    }

    var seam: Double? { nil }
    var rim: PlaneRim? { PlaneRim.find(self) }
}

@Suite("The rim of an azimuthal projection's domain")
struct PlaneRimTests {
    @Test(arguments: [LonLat(lon: 0, lat: 90), LonLat(lon: 10, lat: 52), LonLat(lon: -120, lat: -35)])
    func laeaRimIsTheCircleOfTwoRadiiAroundTheCentre(_ centre: LonLat) throws {
        let plane = SphericalPlane(.laea(center: centre))
        let rim = try #require(PlaneRim.find(plane))
        #expect(rim.outline.count == PlaneRim.rays)
        for p in rim.outline {
            #expect(abs(hypot(p.x, p.y) - 2 * plane.r) < 1, "\(p)")
        }
        // The singular point is the centre's antipode.
        let antipode = LonLat(lon: WebMercator.wrapLongitude(centre.lon + 180), lat: -centre.lat)
        #expect(Geodesy.distanceKm(rim.singular, antipode) < 50, "\(rim.singular)")
        // Counter-clockwise.
        #expect(PlaneRim.signedArea(xs: rim.outline.map(\.x)[...], ys: rim.outline.map(\.y)[...]) > 0)
    }

    @Test func mercatorHasNoRim() {
        #expect(PlaneRim.find(SphericalPlane(.mercator)) == nil)
    }

    @Test func aRingAroundTheSingularPointTurnsOverOnceProjected() {
        let plane = SphericalPlane(.laea(center: LonLat(lon: 0, lat: 90)))
        // Clockwise rings in degrees (the shapefile's outer rings): one around the South Pole (through
        // it, as Natural Earth draws Antarctica), one around Iceland.
        func ring(_ lons: [Double], _ lats: [Double]) -> Bool {
            var xs = lons, ys = lats
            plane.project(xs: &xs, ys: &ys)
            let kept = xs.indices.filter { xs[$0].isFinite }
            return PlaneRim.enclosesSingularPoint(lons: lons[...], lats: lats[...], xs: kept.map { xs[$0] }[...],
                                                  ys: kept.map { ys[$0] }[...])
        }
        let coast = stride(from: -180.0, through: 180, by: 10)
        let antarctica = ring(Array(coast) + [180, -180], coast.map { _ in -70.0 } + [-90, -90])
        #expect(antarctica)
        #expect(!ring([-24, -13, -13, -24], [63, 63, 67, 67]))
        #expect(PlaneRim.signedArea(xs: [-24, -13, -13, -24][...], ys: [63, 63, 67, 67][...]) > 0)
    }
}
