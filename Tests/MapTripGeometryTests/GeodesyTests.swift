import Foundation
import Testing
import TestSupport
@testable import MapTripGeometry

/// Places and published reference values used below (sources noted where each is checked).
private enum Ref {
    static let london = LonLat(lon: -0.1278, lat: 51.5074)
    static let paris = LonLat(lon: 2.3522, lat: 48.8566)
    static let newYork = LonLat(lon: -74.0060, lat: 40.7128)
    static let tokyo = LonLat(lon: 139.6503, lat: 35.6762)
    static let sanFrancisco = LonLat(lon: -122.4194, lat: 37.7749)
    static let jfk = LonLat(lon: -73.7781, lat: 40.6413)
    static let lax = LonLat(lon: -118.4085, lat: 33.9416)
    /// Ed Williams, Aviation Formulary (edwilliams.org/avform.htm), worked examples.
    static let williamsLAX = LonLat(lon: -(118 + 24 / 60.0), lat: 33 + 57 / 60.0)
    static let williamsJFK = LonLat(lon: -(73 + 47 / 60.0), lat: 40 + 38 / 60.0)
    /// Movable Type scripts / chrisveness/geodesy examples (spherical, R = 6371 km).
    static let cambridge = LonLat(lon: 0.119, lat: 52.205)
    static let parisMT = LonLat(lon: 2.351, lat: 48.857)
    static let dover = LonLat(lon: 1.338, lat: 51.127)
    static let calais = LonLat(lon: 1.853, lat: 50.964)
    static let landsEnd = LonLat(lon: -5.71475, lat: 50.06632)
    static let johnOGroats = LonLat(lon: -3.07009, lat: 58.64402)
    /// Geoscience Australia's worked example of Vincenty's inverse formula.
    static let flindersPeak = LonLat(lon: dms(144, 25, 29.52440), lat: -dms(37, 57, 3.72030))
    static let buninyong = LonLat(lon: dms(143, 55, 35.38390), lat: -dms(37, 39, 10.15610))

    static func dms(_ d: Double, _ m: Double, _ s: Double) -> Double { d + m / 60 + s / 3600 }
}

private let rad = Double.pi / 180

/// Unit vector of a position (independent of the library's own helper).
private func unit(_ p: LonLat) -> (Double, Double, Double) {
    (cos(p.lat * rad) * cos(p.lon * rad), cos(p.lat * rad) * sin(p.lon * rad), sin(p.lat * rad))
}

/// Distance in km of `p` from the great circle through `a` and `b` (asin of p . n, n the unit normal).
private func crossTrackKm(_ p: LonLat, _ a: LonLat, _ b: LonLat) -> Double {
    let u = unit(a), v = unit(b), w = unit(p)
    var n = (u.1 * v.2 - u.2 * v.1, u.2 * v.0 - u.0 * v.2, u.0 * v.1 - u.1 * v.0)
    let len = (n.0 * n.0 + n.1 * n.1 + n.2 * n.2).squareRoot()
    n = (n.0 / len, n.1 / len, n.2 / len)
    return abs(asin(n.0 * w.0 + n.1 * w.1 + n.2 * w.2)) * Geodesy.earthRadiusKm
}

/// Difference of two longitudes modulo 360, in (-180, 180].
private func lonDiff(_ a: Double, _ b: Double) -> Double {
    (a - b).remainder(dividingBy: 360)
}

/// Difference of two bearings in degrees, modulo 360.
private func angleDiff(_ a: Double, _ b: Double) -> Double { abs((a - b).remainder(dividingBy: 360)) }

/// The latitude of the great circle through a and b at longitude lon (Aviation Formulary, "Latitude of
/// point on GC"): tan φ = (tan φ1 sin(λ - λ2) - tan φ2 sin(λ - λ1)) / sin(λ1 - λ2).
private func greatCircleLatitude(_ a: LonLat, _ b: LonLat, atLon lon: Double) -> Double {
    let num = tan(a.lat * rad) * sin((lon - b.lon) * rad) - tan(b.lat * rad) * sin((lon - a.lon) * rad)
    return atan(num / sin((a.lon - b.lon) * rad)) / rad
}

/// Classic textbook rhumb course: atan2(Δλ, ln(tan(π/4 + φ2/2) / tan(π/4 + φ1/2))), Δλ the short way.
private func rhumbCourse(_ a: LonLat, _ b: LonLat) -> Double {
    let dPsi = log(tan(.pi / 4 + b.lat * rad / 2) / tan(.pi / 4 + a.lat * rad / 2))
    let c = atan2(lonDiff(b.lon, a.lon) * rad, dPsi) / rad
    return c < 0 ? c + 360 : c
}

@Suite("Geodesy and route lines")
struct GeodesyTests {
    // MARK: Haversine

    @Test func haversineKnownDistances() {
        // One degree of longitude on the equator is 2 pi R / 360.
        let oneDegree = Geodesy.distanceKm(LonLat(lon: 0, lat: 0), LonLat(lon: 1, lat: 0))
        #expect(abs(oneDegree - 111.195) < 0.0005)
        #expect(abs(oneDegree - Geodesy.earthRadiusKm * .pi / 180) < 1e-10)
        // One degree of latitude along a meridian likewise.
        #expect(abs(Geodesy.distanceKm(LonLat(lon: 10, lat: 45), LonLat(lon: 10, lat: 46)) - oneDegree) < 1e-10)

        // London - Paris, the usual ~343.5 km.
        #expect(abs(Geodesy.distanceKm(Ref.london, Ref.paris) - 343.5) < 0.5)

        // Movable Type / chrisveness/geodesy: Cambridge -> Paris = 404 279 m with R = 6371 km.
        let cambridgeParis = Geodesy.distanceKm(Ref.cambridge, Ref.parisMT) * 6371 / Geodesy.earthRadiusKm
        #expect((cambridgeParis * 1000).rounded() == 404_279)

        // Aviation Formulary: LAX -> JFK is 0.623585 rad = 2144 nm (1 nm = 1 minute of arc).
        let angle = Geodesy.distanceKm(Ref.williamsLAX, Ref.williamsJFK) / Geodesy.earthRadiusKm
        #expect(abs(angle - 0.623585) < 5e-7)
        #expect((angle * 180 * 60 / .pi).rounded() == 2144)

        // JFK - LAX (airport reference points): ~3974 km on the mean sphere; the often quoted 3983 km
        // (2475 mi) is the WGS 84 ellipsoidal distance, checked against Vincenty below.
        let jfkLax = Geodesy.distanceKm(Ref.jfk, Ref.lax)
        #expect(abs(jfkLax - 3974) < 1)
    }

    @Test func haversineSymmetryAndExtremes() {
        #expect(Geodesy.distanceKm(Ref.tokyo, Ref.tokyo) == 0)
        // Longitudes given 360 apart are the same place.
        #expect(Geodesy.distanceKm(Ref.tokyo, LonLat(lon: Ref.tokyo.lon - 360, lat: Ref.tokyo.lat)) < 1e-9)
        #expect(Geodesy.distanceKm(Ref.tokyo, Ref.sanFrancisco) == Geodesy.distanceKm(Ref.sanFrancisco, Ref.tokyo))
        // Antipodes are half the circumference, pole to pole too (no loss of accuracy near pi).
        let half = Geodesy.earthRadiusKm * .pi
        #expect(abs(Geodesy.distanceKm(LonLat(lon: 0, lat: 0), LonLat(lon: 180, lat: 0)) - half) < 1e-9)
        #expect(abs(Geodesy.distanceKm(LonLat(lon: 0, lat: 90), LonLat(lon: 0, lat: -90)) - half) < 1e-9)
        #expect(abs(Geodesy.distanceKm(LonLat(lon: 30, lat: 40), LonLat(lon: -150, lat: -40)) - half) < 1e-9)
        // Tiny separations stay accurate: 1e-9 degrees of longitude on the equator.
        let tiny = Geodesy.distanceKm(LonLat(lon: 0, lat: 0), LonLat(lon: 1e-9, lat: 0))
        #expect(abs(tiny / (Geodesy.earthRadiusKm * 1e-9 * .pi / 180) - 1) < 1e-12)
    }

    // MARK: Vincenty

    @Test func vincentyPublishedValues() throws {
        // Geoscience Australia (GDA technical manual) worked example: Flinders Peak -> Buninyong 54 972.271 m.
        let fb = try #require(Geodesy.vincentyKm(Ref.flindersPeak, Ref.buninyong))
        #expect(abs(fb * 1000 - 54_972.271) < 0.001)
        // chrisveness/geodesy test suite (WGS 84), to the millimetre.
        let cases: [(LonLat, LonLat, Double)] = [
            (Ref.landsEnd, Ref.johnOGroats, 969_954.166),
            (LonLat(lon: 120, lat: 30), LonLat(lon: -120, lat: 30), 10_825_924.089),  // across the antimeridian
            (LonLat(lon: 0, lat: 0), LonLat(lon: 1, lat: 0), 111_319.491),             // a degree on the equator
            (LonLat(lon: 30, lat: 30), LonLat(lon: 60, lat: 60), 4_015_703.021),
            (LonLat(lon: -30, lat: -60), LonLat(lon: -60, lat: -30), 4_015_703.021),
            (LonLat(lon: 0, lat: 0), LonLat(lon: 179.5, lat: 0.5), 19_936_288.579),    // nearly antipodal, converges
            (LonLat(lon: 0, lat: 0), LonLat(lon: 180, lat: 0), 20_003_931.459),        // half the meridian
            (LonLat(lon: 0, lat: 90), LonLat(lon: 0, lat: -90), 20_003_931.459),
        ]
        for (a, b, metres) in cases {
            let km = try #require(Geodesy.vincentyKm(a, b), "\(a) -> \(b)")
            #expect(abs(km * 1000 - metres) < 0.001, "\(a) -> \(b): \(km * 1000) m, expected \(metres)")
            let back = try #require(Geodesy.vincentyKm(b, a))
            #expect(abs(back - km) < 1e-9)
        }
        #expect(Geodesy.vincentyKm(Ref.tokyo, Ref.tokyo) == 0)
        // JFK - LAX: 3983 km (2475 mi) as great-circle calculators on the WGS 84 ellipsoid give it.
        let jfkLax = try #require(Geodesy.vincentyKm(Ref.jfk, Ref.lax))
        #expect(abs(jfkLax - 3983) < 0.5)
    }

    @Test func vincentyFailsNearlyAntipodal() {
        // chrisveness/geodesy: these do not converge (lambda > pi, and slow divergence).
        #expect(Geodesy.vincentyKm(LonLat(lon: 0, lat: 0), LonLat(lon: 179.7, lat: 0.5)) == nil)
        #expect(Geodesy.vincentyKm(LonLat(lon: 0, lat: 5), LonLat(lon: 179.4, lat: -5.1)) == nil)
    }

    @Test func haversineAgreesWithVincentyOnLongLines() throws {
        let pairs = [(Ref.tokyo, Ref.sanFrancisco), (Ref.london, Ref.newYork), (Ref.jfk, Ref.lax),
                     (Ref.landsEnd, Ref.johnOGroats), (LonLat(lon: 151.2093, lat: -33.8688), Ref.london),
                     (LonLat(lon: 120, lat: 30), LonLat(lon: -120, lat: 30))]
        for (a, b) in pairs {
            let ellipsoid = try #require(Geodesy.vincentyKm(a, b))
            let sphere = Geodesy.distanceKm(a, b)
            #expect(abs(sphere / ellipsoid - 1) < 0.005, "\(a) -> \(b): \(sphere) vs \(ellipsoid)")
        }
    }

    // MARK: Bearings

    @Test func bearingsOnTheCompass() {
        let origin = LonLat(lon: 0, lat: 0)
        #expect(Geodesy.initialBearing(origin, LonLat(lon: 1, lat: 0)) == 90)
        #expect(Geodesy.initialBearing(origin, LonLat(lon: 0, lat: 1)) == 0)
        #expect(Geodesy.initialBearing(origin, LonLat(lon: -1, lat: 0)) == 270)
        #expect(Geodesy.initialBearing(origin, LonLat(lon: 0, lat: -1)) == 180)
        #expect(abs(Geodesy.initialBearing(origin, LonLat(lon: 1, lat: 1)) - 45) < 0.01)
        // East across the antimeridian is still east.
        #expect(abs(Geodesy.initialBearing(LonLat(lon: 179.5, lat: 0), LonLat(lon: -179.5, lat: 0)) - 90) < 1e-12)
        // A bearing a hair west of north stays in [0, 360).
        let b = Geodesy.initialBearing(origin, LonLat(lon: -1e-15, lat: 1))
        #expect(b >= 0 && b < 360)
        #expect(Geodesy.initialBearing(Ref.tokyo, Ref.tokyo) == 0)
    }

    @Test func bearingsPublishedValues() {
        // Movable Type: from 35N 45E (~Baghdad) to 35N 135E (~Osaka) "you would start on a heading of 60°".
        // Exactly, by Napier's rules in the right triangle at the vertex (90E): cot A = cos(55°) tan(45°), so
        // A = atan(1 / sin 35°) = 60°09'45".
        let baghdadOsaka = Geodesy.initialBearing(LonLat(lon: 45, lat: 35), LonLat(lon: 135, lat: 35))
        #expect(abs(baghdadOsaka - atan(1 / sin(35 * rad)) / rad) < 1e-10)
        #expect(abs(baghdadOsaka - Ref.dms(60, 9, 45)) < 0.5 / 3600)
        // chrisveness/geodesy: Cambridge -> Paris 156.2, back 337.9.
        #expect(abs(Geodesy.initialBearing(Ref.cambridge, Ref.parisMT) - 156.2) < 0.05)
        #expect(abs(Geodesy.initialBearing(Ref.parisMT, Ref.cambridge) - 337.9) < 0.05)
        // Aviation Formulary: the true course from LAX to JFK is 66 degrees.
        #expect(abs(Geodesy.initialBearing(Ref.williamsLAX, Ref.williamsJFK) - 66) < 0.5)
    }

    @Test func tokyoSanFranciscoBearing() {
        let bearing = Geodesy.initialBearing(Ref.tokyo, Ref.sanFrancisco)
        // About 54 degrees (north-east, over the North Pacific).
        #expect(abs(bearing - 54.4) < 0.1)
        // Independently: the direction to a point a hair along the slerped great circle, in local east/north.
        let near = Geodesy.interpolate(Ref.tokyo, Ref.sanFrancisco, fraction: 1e-9)
        let east = (near.lon - Ref.tokyo.lon) * cos(Ref.tokyo.lat * rad), north = near.lat - Ref.tokyo.lat
        #expect(abs(atan2(east, north) / rad - bearing) < 1e-4)
        // Clairaut: the vertex of the great circle has cos(lat) = sin(bearing) cos(lat0); sample its maximum.
        let vertex = acos(sin(bearing * rad) * cos(Ref.tokyo.lat * rad)) / rad
        let maxLat = (0...4000).map {
            Geodesy.interpolate(Ref.tokyo, Ref.sanFrancisco, fraction: Double($0) / 4000).lat
        }.max()!
        #expect(abs(maxLat - vertex) < 1e-4)
    }

    // MARK: Interpolation

    @Test func interpolateBasics() {
        let mid = Geodesy.interpolate(LonLat(lon: 0, lat: 0), LonLat(lon: 90, lat: 0), fraction: 0.5)
        #expect(abs(mid.lon - 45) < 1e-12 && abs(mid.lat) < 1e-12)
        // Endpoints exactly.
        #expect(Geodesy.interpolate(Ref.tokyo, Ref.sanFrancisco, fraction: 0) == Ref.tokyo)
        #expect(Geodesy.interpolate(Ref.tokyo, Ref.sanFrancisco, fraction: 1) == Ref.sanFrancisco)
        // Identical points.
        #expect(Geodesy.interpolate(Ref.paris, Ref.paris, fraction: 0.3) == Ref.paris)
        #expect(Geodesy.interpolate(Ref.paris, LonLat(lon: Ref.paris.lon + 360, lat: Ref.paris.lat), fraction: 0.3)
            == Ref.paris)
        // 60N 0E to 60N 180E runs over the North Pole.
        let polar = Geodesy.interpolate(LonLat(lon: 0, lat: 60), LonLat(lon: 180, lat: 60), fraction: 0.5)
        #expect(abs(polar.lat - 90) < 1e-9)
        // A third of the way (the arc is 60 degrees over the pole): 80N on the 0E meridian.
        let third = Geodesy.interpolate(LonLat(lon: 0, lat: 60), LonLat(lon: 180, lat: 60), fraction: 1.0 / 3)
        #expect(abs(third.lat - 80) < 1e-9 && abs(third.lon) < 1e-9)
        // Exactly antipodal points still give points on a great circle at the right angle.
        let anti = Geodesy.interpolate(LonLat(lon: 20, lat: 0), LonLat(lon: -160, lat: 0), fraction: 0.25)
        #expect(abs(Geodesy.distanceKm(LonLat(lon: 20, lat: 0), anti) - Geodesy.earthRadiusKm * .pi / 4) < 1e-9)
    }

    @Test func interpolatePublishedValues() {
        // chrisveness/geodesy: Cambridge -> Paris midpoint 50.5363N 1.2746E, quarter point 51.3721N 0.7073E.
        let mid = Geodesy.interpolate(Ref.cambridge, Ref.parisMT, fraction: 0.5)
        #expect(abs(mid.lat - 50.5363) < 0.00005 && abs(mid.lon - 1.2746) < 0.00005)
        let quarter = Geodesy.interpolate(Ref.cambridge, Ref.parisMT, fraction: 0.25)
        #expect(abs(quarter.lat - 51.3721) < 0.00005 && abs(quarter.lon - 0.7073) < 0.00005)
        // Aviation Formulary: 40% of the way from LAX to JFK is 38°40.167'N 101°37.570'W.
        let p = Geodesy.interpolate(Ref.williamsLAX, Ref.williamsJFK, fraction: 0.4)
        #expect(abs(p.lat - (38 + 40.167 / 60)) < 0.0005 / 60)
        #expect(abs(p.lon + (101 + 37.570 / 60)) < 0.0005 / 60)
        // ... and 100 nm out of LAX (of 2144) is 34°37'N 116°33'W.
        let q = Geodesy.interpolate(Ref.williamsLAX, Ref.williamsJFK, fraction: 100.0 / 2144)
        #expect(abs(q.lat - (34 + 37 / 60.0)) < 0.5 / 60 && abs(q.lon + (116 + 33 / 60.0)) < 0.5 / 60)
    }

    @Test func tokyoSanFranciscoGreatCircle() {
        let d = Geodesy.distanceKm(Ref.tokyo, Ref.sanFrancisco)
        var maxLat = -90.0
        for k in 0...200 {
            let f = Double(k) / 200
            let p = Geodesy.interpolate(Ref.tokyo, Ref.sanFrancisco, fraction: f)
            maxLat = max(maxLat, p.lat)
            #expect(crossTrackKm(p, Ref.tokyo, Ref.sanFrancisco) < 1e-6)
            // Evenly spaced along the circle.
            #expect(abs(Geodesy.distanceKm(Ref.tokyo, p) - f * d) < 1e-6)
        }
        // Passes north of both ends, reaching about 48.7 N over the Pacific.
        #expect(maxLat > Ref.tokyo.lat && maxLat > Ref.sanFrancisco.lat)
        #expect(maxLat > 48 && maxLat < 49.5)
    }

    // MARK: Rhumb lines

    @Test func rhumbDistances() {
        // chrisveness/geodesy: Dover -> Calais rhumb distance 40 308 m with R = 6371 km.
        let dc = Geodesy.rhumbDistanceKm(Ref.dover, Ref.calais) * 6371 / Geodesy.earthRadiusKm
        #expect((dc * 1000).rounded() == 40_308)
        // East-west across the dateline the short way equals the same span elsewhere.
        let dateline = Geodesy.rhumbDistanceKm(LonLat(lon: -179, lat: 1), LonLat(lon: 179, lat: 1))
        #expect(abs(dateline - Geodesy.rhumbDistanceKm(LonLat(lon: 1, lat: 1), LonLat(lon: -1, lat: 1))) < 1e-9)
        // Along a parallel it is R cos(lat) dlon; along a meridian it is the great circle.
        let parallel = Geodesy.rhumbDistanceKm(LonLat(lon: 170, lat: 10), LonLat(lon: -170, lat: 10))
        #expect(abs(parallel - Geodesy.earthRadiusKm * cos(10 * rad) * 20 * rad) < 1e-9)
        #expect(abs(Geodesy.rhumbDistanceKm(LonLat(lon: 5, lat: -30), LonLat(lon: 5, lat: 60))
            - Geodesy.distanceKm(LonLat(lon: 5, lat: -30), LonLat(lon: 5, lat: 60))) < 1e-9)
        // Nearly east-west lines stay continuous with the exact parallel (no cancellation in dpsi).
        let almost = Geodesy.rhumbDistanceKm(LonLat(lon: 0, lat: 40), LonLat(lon: 30, lat: 40 + 1e-11))
        let exact = Geodesy.rhumbDistanceKm(LonLat(lon: 0, lat: 40), LonLat(lon: 30, lat: 40))
        #expect(abs(almost / exact - 1) < 1e-9)
        // Longer than the great circle between the same places.
        #expect(Geodesy.rhumbDistanceKm(Ref.london, Ref.newYork) > Geodesy.distanceKm(Ref.london, Ref.newYork))
    }

    // MARK: Route lines: geodesic

    @Test func tokyoSanFranciscoRouteLine() {
        let line = RouteLine(from: Ref.tokyo, to: Ref.sanFrancisco, kind: .geodesic)
        let pts = line.points
        #expect(pts.count >= 2)
        #expect(pts.first == Ref.tokyo)
        #expect(abs(pts.last!.lon - (Ref.sanFrancisco.lon + 360)) < 1e-12)
        #expect(pts.last!.lat == Ref.sanFrancisco.lat)
        // Unwrapped: eastwards across the Pacific, 139.65 ... 237.58, never jumping.
        for (a, b) in zip(pts, pts.dropFirst()) {
            #expect(b.lon > a.lon)
            #expect(b.lon - a.lon < 1)
            #expect(Geodesy.distanceKm(a, b) <= 25 + 1e-9)
        }
        #expect(line.cumulativeKm.count == pts.count && line.cumulativeKm[0] == 0)
        #expect(zip(line.cumulativeKm, line.cumulativeKm.dropFirst()).allSatisfy { $0 < $1 })
        #expect(abs(line.lengthKm / Geodesy.distanceKm(Ref.tokyo, Ref.sanFrancisco) - 1) < 1e-4)
        #expect(abs(line.lengthKm / Geodesy.distanceKm(Ref.tokyo, Ref.sanFrancisco) - 1) < 1e-12)

        // Split at the antimeridian: two pieces meeting at +-180 at the same latitude, on the great circle.
        let pieces = RouteLine.splitAtAntimeridian(pts)
        #expect(pieces.count == 2)
        let end0 = pieces[0].last!, start1 = pieces[1].first!
        #expect(end0.lon == 180 && start1.lon == -180 && end0.lat == start1.lat)
        // The cut is on the 25 km segment as drawn (straight in Mercator), within metres of the great circle.
        #expect(abs(end0.lat - greatCircleLatitude(Ref.tokyo, Ref.sanFrancisco, atLon: 180)) < 5e-4)
        #expect(pieces[0].first == Ref.tokyo && pieces[1].last == Ref.sanFrancisco)
        #expect(pieces.joined().allSatisfy { $0.lon >= -180 && $0.lon <= 180 })
        #expect(pieces[0].count + pieces[1].count == pts.count + 2)

        // Ends exactly.
        #expect(line.point(at: 0).position == Ref.tokyo)
        #expect(line.point(at: 1).position == Ref.sanFrancisco)
        #expect(line.point(at: -3).position == Ref.tokyo && line.point(at: 7).position == Ref.sanFrancisco)
        // Heading at the start is the initial bearing.
        #expect(abs(line.point(at: 0).heading - Geodesy.initialBearing(Ref.tokyo, Ref.sanFrancisco)) < 1e-9)
        // ... and at the end the reverse of the final approach.
        let finalHeading = (Geodesy.initialBearing(Ref.sanFrancisco, Ref.tokyo) + 180)
            .truncatingRemainder(dividingBy: 360)
        #expect(angleDiff(line.point(at: 1).heading, finalHeading) < 1e-9)

        for k in 1..<400 {
            let f = Double(k) / 400 + 0.0003
            let (p, heading) = line.point(at: f)
            #expect(p.lon >= -180 && p.lon < 180)
            // On the great circle, where interpolation along the whole circle puts it.
            #expect(crossTrackKm(p, Ref.tokyo, Ref.sanFrancisco) < 1e-6)
            let q = Geodesy.interpolate(Ref.tokyo, Ref.sanFrancisco, fraction: f)
            #expect(abs(lonDiff(p.lon, q.lon)) < 1e-8 && abs(p.lat - q.lat) < 1e-8)
            // The heading is the great circle's: the initial bearing from here on to San Francisco.
            #expect(angleDiff(heading, Geodesy.initialBearing(p, Ref.sanFrancisco)) < 1e-7)
            // The prefix ends where the point is.
            let prefix = line.prefix(f)
            #expect(abs(lonDiff(prefix.last!.lon, p.lon)) < 1e-12 && prefix.last!.lat == p.lat)
            #expect(prefix.first == Ref.tokyo)
            #expect(zip(prefix, prefix.dropFirst()).allSatisfy { abs($1.lon - $0.lon) <= 180 })
        }
        // The prefix at a vertex ends at that vertex without repeating it.
        let atVertex = line.prefix(line.cumulativeKm[10] / line.lengthKm)
        #expect(atVertex.count == 11 || atVertex.count == 12)
        #expect(abs(lonDiff(atVertex.last!.lon, pts[10].lon)) < 1e-9 && abs(atVertex.last!.lat - pts[10].lat) < 1e-9)
        #expect(line.prefix(0).isEmpty && line.prefix(-1).isEmpty)
        #expect(line.prefix(1) == pts && line.prefix(2) == pts)
    }

    /// A line drawn in stretches (each frame's new part of a travelled line) is its prefix: the parts
    /// between seeded fractions, joined end to start, give the prefix's points, the joins exactly where
    /// the shorter prefixes end.
    @Test(arguments: [RouteLine.Kind.geodesic, .straight])
    func partsBetweenFractionsJoinIntoThePrefix(_ kind: RouteLine.Kind) {
        let line = RouteLine(from: Ref.tokyo, to: Ref.sanFrancisco, kind: kind, maxStepKm: 250)
        var rng = SplitMix64(seed: 5959)
        var cuts = (0..<12).map { _ in rng.unit() }.sorted()
        // A cut at a vertex, two equal cuts and the whole line's end.
        cuts += [line.cumulativeKm[7] / line.lengthKm, cuts[3], 1]
        cuts.sort()
        var joined: [LonLat] = []
        var from = 0.0
        for to in cuts {
            let part = line.part(from: from, to: to)
            if to <= from {
                #expect(part.isEmpty)
                continue
            }
            let prefix = line.prefix(to)
            #expect(part.count >= 2 && part.last == prefix.last, "\(from)...\(to)")
            if let last = joined.last { #expect(part.first == last, "the stretch from \(from) starts where the last ended") }
            joined += joined.isEmpty ? part : Array(part.dropFirst())
            // The joined stretches hold the prefix's points (and the joins between them).
            #expect(prefix.allSatisfy { p in joined.contains(p) }, "up to \(to)")
            #expect(Set(joined.map { "\($0.lon),\($0.lat)" }).count <= prefix.count + cuts.count)
            from = to
        }
        #expect(line.part(from: 0, to: 0.5) == line.prefix(0.5))
        #expect(line.part(from: 0.5, to: 0.25).isEmpty && line.part(from: 1, to: 1).isEmpty)
    }

    @Test func geodesicWestwardAndShortLines() {
        // San Francisco -> Tokyo runs west: longitudes decrease from -122.4 to -220.3.
        let west = RouteLine(from: Ref.sanFrancisco, to: Ref.tokyo, kind: .geodesic, maxStepKm: 100)
        #expect(zip(west.points, west.points.dropFirst()).allSatisfy { $1.lon < $0.lon })
        #expect(abs(west.points.last!.lon - (Ref.tokyo.lon - 360)) < 1e-12)
        #expect(west.point(at: 1).position == Ref.tokyo)
        #expect(zip(west.points, west.points.dropFirst()).allSatisfy { Geodesy.distanceKm($0, $1) <= 100 + 1e-9 })
        // A short hop: two points only.
        let hop = RouteLine(from: Ref.london, to: LonLat(lon: -0.1, lat: 51.5), kind: .geodesic)
        #expect(hop.points.count == 2)
        // A zero-length line.
        let still = RouteLine(from: Ref.paris, to: Ref.paris, kind: .geodesic)
        #expect(still.points == [Ref.paris, Ref.paris] && still.lengthKm == 0)
        #expect(still.point(at: 0.5).position == Ref.paris && still.point(at: 0.5).heading == 0)
        #expect(still.point(at: 1).position == Ref.paris)
        let stillStraight = RouteLine(from: Ref.paris, to: Ref.paris, kind: .straight)
        #expect(stillStraight.lengthKm == 0 && stillStraight.point(at: 0.3).heading == 0)
        // A line given with an out-of-range end longitude.
        let odd = RouteLine(from: LonLat(lon: 170, lat: 0), to: LonLat(lon: 200, lat: 0), kind: .geodesic)
        #expect(abs(odd.points.last!.lon - 200) < 1e-12)
        #expect(abs(odd.point(at: 1).position.lon - (-160)) < 1e-12)
        #expect(abs(odd.lengthKm - Geodesy.earthRadiusKm * 30 * rad) < 1e-9)
    }

    @Test func headingAlongAMeridianOverThePole() {
        // 60N 0E -> 60N 180E: north to the pole, then south.
        let line = RouteLine(from: LonLat(lon: 0, lat: 60), to: LonLat(lon: 180, lat: 60), kind: .geodesic)
        #expect(line.point(at: 0.25).heading < 1e-9 || line.point(at: 0.25).heading > 360 - 1e-9)
        #expect(abs(line.point(at: 0.75).heading - 180) < 1e-9)
        #expect(zip(line.points, line.points.dropFirst()).allSatisfy { abs($1.lon - $0.lon) <= 180 })
    }

    // MARK: Route lines: straight (rhumb)

    @Test func straightLineLondonNewYork() {
        let line = RouteLine(from: Ref.london, to: Ref.newYork, kind: .straight)
        let course = rhumbCourse(Ref.london, Ref.newYork)
        #expect(course > 180 && course < 360)  // south of west
        #expect(line.points.first == Ref.london && line.points.last == Ref.newYork)
        #expect(abs(line.lengthKm / Geodesy.rhumbDistanceKm(Ref.london, Ref.newYork) - 1) < 1e-12)
        #expect(zip(line.points, line.points.dropFirst()).allSatisfy {
            Geodesy.rhumbDistanceKm($0, $1) <= 25 + 1e-9
        })
        let p0 = WebMercator.project(Ref.london), p1 = WebMercator.project(Ref.newYork)
        for k in 0...300 {
            let f = Double(k) / 300
            let (p, heading) = line.point(at: f)
            // Constant heading: the rhumb course, at every fraction.
            #expect(abs(heading - course) < 1e-9)
            // Straight on the Mercator map.
            let w = WebMercator.project(p)
            let cross = (w.x - p0.x) * (p1.y - p0.y) - (w.y - p0.y) * (p1.x - p0.x)
            #expect(abs(cross) < 1e-12)
            // At the right distance along it.
            #expect(abs(Geodesy.rhumbDistanceKm(Ref.london, p) - f * line.lengthKm) < 1e-6)
            let prefix = line.prefix(f)
            if f > 0 { #expect(abs(lonDiff(prefix.last!.lon, p.lon)) < 1e-12 && prefix.last!.lat == p.lat) }
        }
        // Evenly spaced in the unit world.
        let xs = line.points.map { WebMercator.project($0).x }
        let dx = (xs.last! - xs.first!) / Double(xs.count - 1)
        #expect(zip(xs, xs.dropFirst()).allSatisfy { abs(($1 - $0) - dx) < 1e-12 })
    }

    @Test func straightLinePublishedCourse() {
        // chrisveness/geodesy: Dover -> Calais rhumb bearing 116.7, distance 40 308 m (R = 6371 km).
        let line = RouteLine(from: Ref.dover, to: Ref.calais, kind: .straight, maxStepKm: 5)
        #expect(abs(line.point(at: 0.5).heading - 116.7) < 0.05)
        #expect(((line.lengthKm * 6371 / Geodesy.earthRadiusKm) * 1000).rounded() == 40_308)
        // ... and the rhumb midpoint 51.0455N 1.5957E.
        let mid = line.point(at: 0.5).position
        #expect(abs(mid.lat - 51.0455) < 0.00005 && abs(mid.lon - 1.5957) < 0.00005)
    }

    @Test func straightLineTakesTheShortWayRound() {
        let line = RouteLine(from: LonLat(lon: 170, lat: 10), to: LonLat(lon: -170, lat: 10), kind: .straight)
        #expect(line.points.first!.lon == 170 && line.points.last!.lon == 190)
        #expect(zip(line.points, line.points.dropFirst()).allSatisfy { $1.lon > $0.lon && $1.lon - $0.lon < 1 })
        #expect(abs(line.lengthKm - Geodesy.earthRadiusKm * cos(10 * rad) * 20 * rad) < 1e-9)
        #expect(abs(lonDiff(line.point(at: 0.5).position.lon, 180)) < 1e-9)
        #expect(line.points.allSatisfy { $0.lat == 10 })  // a parallel stays exactly on it
        #expect(abs(line.point(at: 0.3).heading - 90) < 1e-12)
        #expect(line.point(at: 1).position == LonLat(lon: -170, lat: 10))
        let pieces = RouteLine.splitAtAntimeridian(line.points)
        #expect(pieces.count == 2 && pieces[0].last!.lon == 180 && pieces[1].first!.lon == -180)
        #expect(pieces[0].last!.lat == 10)
        // And westwards the other way.
        let back = RouteLine(from: LonLat(lon: -170, lat: 10), to: LonLat(lon: 170, lat: 10), kind: .straight)
        #expect(back.points.last!.lon == -190 && abs(back.point(at: 0.7).heading - 270) < 1e-12)
    }

    @Test func straightLineStepsAcrossTheEquator() {
        // Sydney -> Tokyo crosses the equator, where a unit-world step is longest on the ground.
        let sydney = LonLat(lon: 151.2093, lat: -33.8688)
        let line = RouteLine(from: sydney, to: Ref.tokyo, kind: .straight, maxStepKm: 10)
        #expect(zip(line.points, line.points.dropFirst()).allSatisfy { Geodesy.rhumbDistanceKm($0, $1) <= 10 + 1e-9 })
        #expect(abs(line.lengthKm / Geodesy.rhumbDistanceKm(sydney, Ref.tokyo) - 1) < 1e-12)
        let heading = line.point(at: 0).heading
        #expect((1..<50).allSatisfy { abs(line.point(at: Double($0) / 50).heading - heading) < 1e-9 })
    }

    @Test func polesAndTheMapEdgeStayFinite() {
        let lines = [
            RouteLine(from: LonLat(lon: 0, lat: 89), to: LonLat(lon: 10, lat: -89), kind: .straight),
            RouteLine(from: LonLat(lon: 0, lat: 90), to: Ref.paris, kind: .straight),
            RouteLine(from: LonLat(lon: 0, lat: 90), to: Ref.paris, kind: .geodesic),
            RouteLine(from: LonLat(lon: 0, lat: -90), to: LonLat(lon: 0, lat: 90), kind: .geodesic, maxStepKm: 500),
            RouteLine(from: LonLat(lon: 20, lat: 0), to: LonLat(lon: -160, lat: 0), kind: .geodesic, maxStepKm: 500),
        ]
        for line in lines {
            #expect(line.points.allSatisfy { $0.lon.isFinite && $0.lat.isFinite && abs($0.lat) <= 90 })
            #expect(line.cumulativeKm.allSatisfy { $0.isFinite })
            #expect(zip(line.points, line.points.dropFirst()).allSatisfy { abs($1.lon - $0.lon) <= 180 })
            for k in 0...50 {
                let (p, heading) = line.point(at: Double(k) / 50)
                #expect(p.lon.isFinite && p.lat.isFinite && heading.isFinite && heading >= 0 && heading < 360)
                #expect(p.lon >= -180 && p.lon < 180)
            }
            #expect(RouteLine.splitAtAntimeridian(line.points).joined().allSatisfy { $0.lat.isFinite })
        }
        // Pole to pole along a meridian is half the circumference; antipodes on the equator too.
        #expect(abs(lines[3].lengthKm - Geodesy.earthRadiusKm * .pi) < 1e-9)
        #expect(abs(lines[4].lengthKm - Geodesy.earthRadiusKm * .pi) < 1e-9)
    }

    // MARK: Splitting at the antimeridian

    @Test func splitWithoutCrossing() {
        let input = [Ref.london, Ref.paris, LonLat(lon: 179.9, lat: 0), LonLat(lon: 100, lat: 10)]
        #expect(RouteLine.splitAtAntimeridian(input) == [input])
        #expect(RouteLine.splitAtAntimeridian([]) == [])
        #expect(RouteLine.splitAtAntimeridian([Ref.tokyo]) == [[Ref.tokyo]])
        // Touching 180 and turning back is not a crossing.
        let touch = [LonLat(lon: 170, lat: 0), LonLat(lon: 180, lat: 1), LonLat(lon: 170, lat: 2)]
        #expect(RouteLine.splitAtAntimeridian(touch) == [touch])
        // A line entirely in the next world copy comes back shifted.
        let shifted = RouteLine.splitAtAntimeridian([LonLat(lon: 200, lat: 0), LonLat(lon: 210, lat: 5)])
        #expect(shifted == [[LonLat(lon: -160, lat: 0), LonLat(lon: -150, lat: 5)]])
    }

    @Test func splitCrossingTwice() {
        // Out across the antimeridian and back again: three pieces.
        let there = [LonLat(lon: 170, lat: 0), LonLat(lon: 190, lat: 10), LonLat(lon: 170, lat: 20)]
        let p = RouteLine.splitAtAntimeridian(there)
        #expect(p.count == 3)
        #expect(p[0].first == there[0] && p[0].last!.lon == 180)
        #expect(p[1].first!.lon == -180 && p[1][1] == LonLat(lon: -170, lat: 10) && p[1].last!.lon == -180)
        #expect(p[2].first!.lon == 180 && p[2].last == there[2])
        #expect(p[0].last!.lat == p[1].first!.lat && p[1].last!.lat == p[2].first!.lat)
        // Linear in Mercator y between the two points of each crossing segment.
        let ya = WebMercator.project(there[0]).y, yb = WebMercator.project(there[1]).y
        #expect(abs(WebMercator.project(p[0].last!).y - (ya + yb) / 2) < 1e-13)

        // Going right round the world eastwards crosses 180 and 540: three pieces.
        let round = stride(from: 0.0, through: 720, by: 45).map { LonLat(lon: $0, lat: 0) }
        let pieces = RouteLine.splitAtAntimeridian(round)
        #expect(pieces.count == 3)
        #expect(pieces.map { $0.first!.lon } == [0, -180, -180])
        #expect(pieces.map { $0.last!.lon } == [180, 180, 0])
        for piece in pieces {
            #expect(piece.count >= 2)
            #expect(piece.allSatisfy { $0.lon >= -180 && $0.lon <= 180 })
            #expect(zip(piece, piece.dropFirst()).allSatisfy { abs($1.lon - $0.lon) <= 180 })
        }
    }

    @Test func splitEdgeCases() {
        // A vertex exactly on the antimeridian: the pieces meet there, no single-point pieces.
        let onEdge = [LonLat(lon: 170, lat: 0), LonLat(lon: 180, lat: 5), LonLat(lon: 190, lat: 10)]
        #expect(RouteLine.splitAtAntimeridian(onEdge) == [
            [LonLat(lon: 170, lat: 0), LonLat(lon: 180, lat: 5)],
            [LonLat(lon: -180, lat: 5), LonLat(lon: -170, lat: 10)],
        ])
        let startOnEdge = [LonLat(lon: 180, lat: 0), LonLat(lon: 190, lat: 0)]
        #expect(RouteLine.splitAtAntimeridian(startOnEdge) == [[LonLat(lon: -180, lat: 0), LonLat(lon: -170, lat: 0)]])
        let startOnEdgeWest = [LonLat(lon: 180, lat: 0), LonLat(lon: 170, lat: 0)]
        #expect(RouteLine.splitAtAntimeridian(startOnEdgeWest) == [startOnEdgeWest])
        // Wrapped input (a jump of more than 180) is joined the short way.
        let wrapped = [LonLat(lon: 170, lat: 0), LonLat(lon: -170, lat: 0)]
        #expect(RouteLine.splitAtAntimeridian(wrapped) == [
            [LonLat(lon: 170, lat: 0), LonLat(lon: 180, lat: 0)],
            [LonLat(lon: -180, lat: 0), LonLat(lon: -170, lat: 0)],
        ])
        // Westwards from the far copy.
        let westward = [LonLat(lon: -170, lat: 0), LonLat(lon: -190, lat: 0)]
        #expect(RouteLine.splitAtAntimeridian(westward) == [
            [LonLat(lon: -170, lat: 0), LonLat(lon: -180, lat: 0)],
            [LonLat(lon: 180, lat: 0), LonLat(lon: 170, lat: 0)],
        ])
    }
}
