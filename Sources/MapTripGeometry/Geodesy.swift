import Foundation

/// Distances, bearings and lines on the Earth. Angles in the API are in degrees, distances in km.
///
/// The spherical functions use the IUGG mean radius. Each is written so that it stays accurate
/// for points that are very close together and for points that are nearly antipodal: the haversine
/// computes both sin² and cos² of the half angle as sums of non-negative terms, and the bearing
/// and Mercator formulas are rearranged so that nearly equal quantities are never subtracted.
public enum Geodesy {
    /// Mean Earth radius in km (IUGG, 6371.0088).
    public static let earthRadiusKm = 6371.0088

    /// Degrees to radians.
    static let radians = Double.pi / 180
    /// Radians to degrees.
    static let degrees = 180 / Double.pi

    /// Great-circle distance on the sphere (haversine), km.
    public static func distanceKm(_ a: LonLat, _ b: LonLat) -> Double {
        earthRadiusKm * centralAngle(a, b)
    }

    /// The angle at the centre of the sphere between `a` and `b` in radians, by the haversine formula
    /// in its atan2 form. hav = sin²(Δφ/2) + cos φ1 cos φ2 sin²(Δλ/2); its complement is evaluated as
    /// cos²(Δφ/2) cos²(Δλ/2) + sin²((φ1+φ2)/2) sin²(Δλ/2) rather than 1 - hav, so it is accurate near π too.
    static func centralAngle(_ a: LonLat, _ b: LonLat) -> Double {
        let sinHalfDLat = sin((b.lat - a.lat) * radians / 2), cosHalfDLat = cos((b.lat - a.lat) * radians / 2)
        let sinHalfDLon = sin((b.lon - a.lon) * radians / 2), cosHalfDLon = cos((b.lon - a.lon) * radians / 2)
        let sinMeanLat = sin((a.lat + b.lat) * radians / 2)
        let hav = sinHalfDLat * sinHalfDLat
            + cos(a.lat * radians) * cos(b.lat * radians) * sinHalfDLon * sinHalfDLon
        let complement = cosHalfDLat * cosHalfDLat * cosHalfDLon * cosHalfDLon
            + sinMeanLat * sinMeanLat * sinHalfDLon * sinHalfDLon
        return 2 * atan2(hav.squareRoot(), complement.squareRoot())
    }

    /// WGS 84 semi-major axis in metres.
    static let wgs84A = 6378137.0
    /// WGS 84 flattening.
    static let wgs84F = 1 / 298.257223563

    /// Vincenty's inverse formula on the WGS 84 ellipsoid, km; nil when it does not converge (nearly antipodal points).
    ///
    /// T. Vincenty, "Direct and inverse solutions of geodesics on the ellipsoid with application of nested
    /// equations", Survey Review XXIII (176), 1975; iterated until λ changes by less than 1e-12 (about 0.006 mm).
    /// Exactly antipodal points give half the meridian (the geodesic runs over a pole). Accurate to within a
    /// millimetre or so wherever it converges.
    public static func vincentyKm(_ a: LonLat, _ b: LonLat) -> Double? {
        let f = wgs84F, semiMajor = wgs84A, semiMinor = (1 - f) * wgs84A
        // Difference in longitude the short way, and reduced latitudes (atan2 keeps the poles finite).
        let dLon = (b.lon - a.lon).remainder(dividingBy: 360) * radians
        let u1 = atan2((1 - f) * sin(a.lat * radians), cos(a.lat * radians))
        let u2 = atan2((1 - f) * sin(b.lat * radians), cos(b.lat * radians))
        let sinU1 = sin(u1), cosU1 = cos(u1), sinU2 = sin(u2), cosU2 = cos(u2)

        var lambda = dLon
        var sinSigma = 0.0, cosSigma = 0.0, sigma = 0.0, cosSqAlpha = 0.0, cos2SigmaM = 0.0
        var converged = false
        for _ in 0..<1000 {
            let sinLambda = sin(lambda), cosLambda = cos(lambda)
            let p = cosU2 * sinLambda, q = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
            sinSigma = (p * p + q * q).squareRoot()
            cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            if sinSigma < 1e-15 {
                // Coincident points, or exactly antipodal ones: then the shortest line runs along a meridian
                // over a pole (alpha = 0, sigma = pi, and with sin(sigma) = 0 the series term below vanishes).
                if cosSigma > 0 { return 0 }
                (sigma, sinSigma, cosSigma, cosSqAlpha, cos2SigmaM) = (.pi, 0, -1, 1, 0)
                converged = true
                break
            }
            sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            cosSqAlpha = 1 - sinAlpha * sinAlpha
            // On the equator cos²α = 0 and the term drops out (Vincenty, section 6).
            cos2SigmaM = cosSqAlpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cosSqAlpha : 0
            let c = f / 16 * cosSqAlpha * (4 + f * (4 - 3 * cosSqAlpha))
            let previous = lambda
            lambda = dLon + (1 - c) * f * sinAlpha
                * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda) > .pi { return nil }  // the iteration has run off: nearly antipodal
            if abs(lambda - previous) <= 1e-12 {
                converged = true
                break
            }
        }
        guard converged else { return nil }

        let uSq = cosSqAlpha * (semiMajor * semiMajor - semiMinor * semiMinor) / (semiMinor * semiMinor)
        let bigA = 1 + uSq / 16384 * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)))
        let bigB = uSq / 1024 * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)))
        let deltaSigma = bigB * sinSigma * (cos2SigmaM + bigB / 4 * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
            - bigB / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
        return semiMinor * bigA * (sigma - deltaSigma) / 1000
    }

    /// Initial bearing of the great circle from a to b, degrees clockwise from north in [0, 360).
    ///
    /// 0 for coincident points. The denominator cos φ1 sin φ2 - sin φ1 cos φ2 cos Δλ is evaluated as
    /// sin(φ2 - φ1) + 2 sin φ1 cos φ2 sin²(Δλ/2), which does not cancel for nearby points.
    public static func initialBearing(_ a: LonLat, _ b: LonLat) -> Double {
        let dLon = (b.lon - a.lon) * radians
        let sinHalfDLon = sin(dLon / 2)
        let y = sin(dLon) * cos(b.lat * radians)
        let x = sin((b.lat - a.lat) * radians)
            + 2 * sin(a.lat * radians) * cos(b.lat * radians) * sinHalfDLon * sinHalfDLon
        return normalizedBearing(atan2(y, x))
    }

    /// The point at fraction f (0...1) of the great circle from a to b (spherical linear interpolation of unit vectors); exactly a at 0 and b at 1; for identical points returns a.
    ///
    /// Other fractions extrapolate along the same great circle. The longitude of an interpolated point is in
    /// [-180, 180]. For exactly antipodal points, where no great circle is singled out, the one leaving `a`
    /// due north is used.
    public static func interpolate(_ a: LonLat, _ b: LonLat, fraction f: Double) -> LonLat {
        if f == 0 { return a }
        if f == 1 { return b }
        if a.lat == b.lat && (abs(a.lat) == 90 || (b.lon - a.lon).remainder(dividingBy: 360) == 0) { return a }
        let arc = Arc(a, b)
        if arc.angle == 0 { return a }
        return lonLat(arc.point(f))
    }

    /// Rhumb-line (loxodrome) distance in km, the short way round in longitude.
    ///
    /// Δφ / cos θ for a course θ, evaluated as hypot(Δφ, q Δλ) with q = Δφ / Δψ (the stretched latitude
    /// difference Δψ computed without cancellation), or q = cos φ on an east-west line.
    public static func rhumbDistanceKm(_ a: LonLat, _ b: LonLat) -> Double {
        let dLat = (b.lat - a.lat) * radians
        let dLon = (b.lon - a.lon).remainder(dividingBy: 360) * radians
        let dPsi = mercatorDelta(a.lat, b.lat)
        let q = dLat == 0 ? cos(a.lat * radians) : (dPsi.isFinite ? dLat / dPsi : 0)
        return earthRadiusKm * hypot(dLat, q * dLon)
    }

    // MARK: - Internals shared with RouteLine

    /// ψ(lat2) - ψ(lat1), the difference in Mercator's stretched latitude ψ = atanh(sin φ), in radians.
    /// atanh x - atanh y = atanh((x - y) / (1 - xy)), with x - y = 2 cos m sin h and 1 - xy = sin²h + cos²m
    /// (m the mean latitude, h half the difference): relative accuracy is kept however close the latitudes.
    /// Infinite when one latitude is a pole.
    static func mercatorDelta(_ lat1: Double, _ lat2: Double) -> Double {
        if lat1 == lat2 { return 0 }
        let m = (lat1 + lat2) * radians / 2, h = (lat2 - lat1) * radians / 2
        let cosM = cos(m), sinH = sin(h)
        let x = 2 * cosM * sinH / (sinH * sinH + cosM * cosM)
        return atanh(min(max(x, -1), 1))
    }

    /// A bearing in radians as degrees in [0, 360).
    static func normalizedBearing(_ angle: Double) -> Double {
        var d = angle * degrees
        if d < 0 { d += 360 }
        return d >= 360 ? 0 : d
    }

    /// A longitude wrapped into [-180, 180); values already in range come back unchanged, and the
    /// subtraction of a multiple of 360 is exact (Sterbenz) for the longitudes a route produces.
    static func wrap(_ lon: Double) -> Double {
        if lon >= -180 && lon < 180 { return lon }
        var l = lon - 360 * ((lon + 180) / 360).rounded(.down)
        if l < -180 { l += 360 } else if l >= 180 { l -= 360 }
        return l
    }

    /// A vector in 3-space (unit vectors stand for points on the sphere: x towards 0°E, z towards the north pole).
    public struct Vector: Equatable, Sendable {
        public var x, y, z: Double
        /// The sum.
        public static func + (a: Vector, b: Vector) -> Vector { Vector(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z) }
        /// The vector scaled by s.
        public static func * (s: Double, v: Vector) -> Vector { Vector(x: s * v.x, y: s * v.y, z: s * v.z) }
        /// The scalar product.
        public func dot(_ o: Vector) -> Double { x * o.x + y * o.y + z * o.z }
        /// The vector product self × o.
        public func cross(_ o: Vector) -> Vector {
            Vector(x: y * o.z - z * o.y, y: z * o.x - x * o.z, z: x * o.y - y * o.x)
        }
        /// The Euclidean length.
        public var length: Double { (x * x + y * y + z * z).squareRoot() }
    }

    /// The unit vector of a position.
    public static func unitVector(_ p: LonLat) -> Vector {
        let lat = p.lat * radians, lon = p.lon * radians
        return Vector(x: cos(lat) * cos(lon), y: cos(lat) * sin(lon), z: sin(lat))
    }

    /// The position of a (not necessarily unit) vector; longitude in [-180, 180].
    public static func lonLat(_ v: Vector) -> LonLat {
        LonLat(lon: atan2(v.y, v.x) * degrees, lat: atan2(v.z, hypot(v.x, v.y)) * degrees)
    }

    /// The local north at a point (at a pole, the direction towards the point's meridian's far side).
    public static func north(_ p: LonLat) -> Vector {
        let lat = p.lat * radians, lon = p.lon * radians
        return Vector(x: -sin(lat) * cos(lon), y: -sin(lat) * sin(lon), z: cos(lat))
    }

    /// The heading (degrees clockwise from north, [0, 360)) of the direction `d` (a tangent) at the unit
    /// vector `p`. At a pole every direction is south (north pole) or north (south pole).
    public static func heading(of d: Vector, at p: Vector) -> Double {
        let r = hypot(p.x, p.y)
        if r == 0 { return p.z > 0 ? 180 : 0 }
        let east = Vector(x: -p.y / r, y: p.x / r, z: 0)
        let north = p.cross(east)
        return normalizedBearing(atan2(d.dot(east), d.dot(north)))
    }

    /// The great-circle arc from a to b as p(f) = cos(fΩ) u + sin(fΩ) v, with u the unit vector of a, v the
    /// unit tangent at a towards b, and Ω the angle between a and b (atan2(|a × b|, a · b), accurate at any
    /// separation).
    public struct Arc: Sendable {
        /// The start, as a unit vector.
        public let u: Vector
        /// The unit tangent at the start, towards the end.
        public let v: Vector
        /// The angle Ω subtended at the centre, radians in [0, π].
        public let angle: Double

        /// The arc from a to b (for coincident or exactly antipodal points v is a's local north).

        public init(_ a: LonLat, _ b: LonLat) {
            let p = Geodesy.unitVector(a), q = Geodesy.unitVector(b)
            let n = p.cross(q)
            u = p
            angle = atan2(n.length, p.dot(q))
            let w = n.cross(p), wl = w.length
            v = wl > 1e-300 ? (1 / wl) * w : Geodesy.north(a)
        }

        /// The unit vector at fraction f of the arc.
        public func point(_ f: Double) -> Vector { cos(f * angle) * u + sin(f * angle) * v }
        /// The unit direction of travel at fraction f.
        public func direction(_ f: Double) -> Vector { -sin(f * angle) * u + cos(f * angle) * v }
    }
}

/// The line a leg of a trip follows on the map, from one place to the next, sampled densely enough to draw
/// smoothly at any zoom (at most `maxStepKm` between points, at least 2 points).
public struct RouteLine: Equatable, Sendable {
    /// How the line runs between its ends.
    public enum Kind: String, Sendable {
        /// Along the great circle, the shortest way over the sphere.
        case geodesic
        /// Straight on the Web Mercator map: a rhumb line, constant compass heading.
        case straight
    }

    /// How the line runs between its ends.
    public let kind: Kind
    /// The points, first = from, last = to, with UNWRAPPED longitudes: consecutive points never differ by more
    /// than 180 degrees in longitude, so a Tokyo -> San Francisco line runs 139.7 ... 237.6 (crossing the Pacific),
    /// not back across the whole world. The first point's longitude is the `from` longitude as given.
    public let points: [LonLat]
    /// Cumulative length in km at each point (cumulative[0] == 0, last == lengthKm).
    public let cumulativeKm: [Double]
    /// `to` as given, so that `point(at: 1)` returns it exactly (the last point's longitude may be shifted by 360).
    private let end: LonLat
    /// A recorded track's times: seconds since its first point, one per point, never decreasing (nil for
    /// the lines between two places, and for recordings without a time at every point).
    public let times: [Double]?

    /// The length of the line in km (great-circle km for geodesic lines, rhumb-line km for straight ones).
    public var lengthKm: Double { cumulativeKm[cumulativeKm.count - 1] }

    /// geodesic: the great circle (points by Geodesy.interpolate, lengths by haversine).
    /// straight: a straight line on the Web Mercator map (a rhumb line), the short way round in longitude
    /// (as the camera's flight goes: when |dlon| > 180 go across the antimeridian); points evenly spaced in the
    /// unit Mercator world, lengths as rhumb-line km.
    ///
    /// Geodesic points are evenly spaced along the great circle. Straight lines are evenly spaced in the unit
    /// world, so their km spacing varies with latitude; the number of points is chosen from the largest scale
    /// along the line so that every step is still at most `maxStepKm`. Like the map, a straight line's interior
    /// points stay within Web Mercator's ±85.0511°; the ends are kept exactly as given, so the step out to an
    /// end beyond that latitude can be longer than `maxStepKm`.
    public init(from: LonLat, to: LonLat, kind: Kind, maxStepKm: Double = 25) {
        precondition(maxStepKm > 0, "maxStepKm must be positive")
        precondition(from.lon.isFinite && from.lat.isFinite && to.lon.isFinite && to.lat.isFinite,
                     "route ends must be finite")
        self.kind = kind
        self.end = to
        self.times = nil

        /// The number of equal steps of at most maxStepKm over `km`.
        func segments(_ km: Double) -> Int { max(1, Int((km / maxStepKm).rounded(.up))) }
        func unwrapped(_ lon: Double, near previous: Double) -> Double { Self.unwrapped(lon, near: previous) }

        var points = [from]
        switch kind {
        case .geodesic:
            let n = segments(Geodesy.distanceKm(from, to))
            for i in 1...n {
                var p = i == n ? to : Geodesy.interpolate(from, to, fraction: Double(i) / Double(n))
                p.lon = unwrapped(p.lon, near: points[i - 1].lon)
                points.append(p)
            }
        case .straight:
            let p0 = WebMercator.project(from)
            var p1 = WebMercator.project(to)
            // The short way round, as Flight goes: the copy of `to` nearest `from`.
            let dx0 = p1.x - p0.x
            let turns = abs(dx0) > 0.5 ? dx0.rounded() : 0
            p1.x -= turns
            let dx = p1.x - p0.x, dy = p1.y - p0.y
            // Ground km per unit-world length is 2 pi R cos(lat): bound cos(lat) by its largest value on the line.
            let lats = [WebMercator.clampLatitude(from.lat), WebMercator.clampLatitude(to.lat)]
            let maxCos = lats.min()! <= 0 && lats.max()! >= 0
                ? 1 : cos(min(abs(lats[0]), abs(lats[1])) * Geodesy.radians)
            let n = segments(2 * .pi * Geodesy.earthRadiusKm * hypot(dx, dy) * maxCos)
            for i in 1..<n {
                let t = Double(i) / Double(n)
                var p = WebMercator.unproject(WorldPoint(x: p0.x + t * dx, y: p0.y + t * dy))
                if from.lat == to.lat { p.lat = from.lat }  // a parallel stays exactly on it
                points.append(p)
            }
            points.append(LonLat(lon: turns == 0 ? to.lon : to.lon - 360 * turns, lat: to.lat))
        }

        var cumulative = [0.0]
        cumulative.reserveCapacity(points.count)
        for i in 1..<points.count {
            let step = kind == .geodesic
                ? Geodesy.distanceKm(points[i - 1], points[i])
                : Geodesy.rhumbDistanceKm(points[i - 1], points[i])
            cumulative.append(cumulative[i - 1] + step)
        }
        self.points = points
        self.cumulativeKm = cumulative
    }

    /// Where the line is at fraction f (clamped to 0...1) of its length, longitude wrapped into [-180, 180),
    /// and the heading there in degrees clockwise from north (the local direction of travel; for a zero-length
    /// line, 0). At f = 0 exactly `from`, at f = 1 exactly `to` (wrapped). For geodesic lines the point lies
    /// exactly on the great circle (interpolate within the segment with Geodesy.interpolate, not linearly).
    ///
    /// For straight lines the point is placed on the rhumb line at the right distance along it (latitude
    /// linear in distance, longitude following the stretched latitude), and the heading is the rhumb's course.
    public func point(at f: Double) -> (position: LonLat, heading: Double) {
        let f = f.isNaN ? 0 : min(max(f, 0), 1)
        let (i, t) = locate(f)
        let (raw, heading) = position(segment: i, fraction: t)
        let p = f == 0 ? points[0] : (f == 1 ? end : raw)
        return (LonLat(lon: Geodesy.wrap(p.lon), lat: p.lat), heading)
    }

    /// The part of the line from the start to fraction f (unwrapped longitudes), ending exactly at point(at: f)
    /// (same position modulo 360 in longitude). f <= 0 gives [] ; f >= 1 gives all points.
    public func prefix(_ f: Double) -> [LonLat] {
        if f.isNaN || f <= 0 { return [] }
        if f >= 1 { return points }
        let (i, t) = locate(f)
        var result = Array(points[0...i])
        if t > 0 { result.append(position(segment: i, fraction: t).position) }
        return result
    }

    /// The part of the line from fraction `f0` to `f1` (unwrapped longitudes): from `f0` <= 0, `prefix(f1)`;
    /// else starting where `prefix(f0)` ends and ending where `prefix(f1)` does, with the line's points
    /// between (a line drawn in stretches, each frame's new part of it); [] where `f1` <= `f0`.
    public func part(from f0: Double, to f1: Double) -> [LonLat] {
        if f0.isNaN || f0 <= 0 { return prefix(f1) }
        guard !f1.isNaN, f1 > f0, f0 < 1 else { return [] }
        let (i, t) = locate(f0)
        var result = [t > 0 ? position(segment: i, fraction: t).position : points[i]]
        if f1 >= 1 {
            result += points[(i + 1)...]
            return result
        }
        let (j, u) = locate(f1)
        if j > i { result += points[(i + 1)...j] }
        if u > 0 { result.append(position(segment: j, fraction: u).position) }
        return result
    }

    /// Splits a polyline with unwrapped longitudes into pieces whose longitudes all lie in [-180, 180]: where the
    /// line crosses a meridian of +-180 (or any odd multiple of 180), it ends one piece exactly at the crossing
    /// (lon +180 or -180, latitude interpolated linearly in the Mercator y of the two points, or along the great
    /// circle for accuracy - choose and document) and starts the next at the opposite sign. No piece ever has a
    /// segment longer than 180 degrees of longitude.
    ///
    /// The crossing latitude is interpolated linearly in Mercator y (at the crossing's share of the segment's
    /// longitude span), so the cut lies exactly on the segment as the map draws it, and the pieces draw the same
    /// line as the whole polyline. Consecutive points more than 180 degrees apart in longitude (wrapped input)
    /// are joined the short way. A point exactly on ±180 ends one piece and starts the next; pieces of a single
    /// point are not produced unless the input has only one point.
    public static func splitAtAntimeridian(_ points: [LonLat]) -> [[LonLat]] {
        guard var previous = points.first else { return [] }
        // The multiple of 360 to subtract to bring the current stretch into [-180, 180].
        var offset = previous.lon >= -180 && previous.lon <= 180
            ? 0 : 360 * ((previous.lon + 180) / 360).rounded(.down)
        var piece = [LonLat(lon: previous.lon - offset, lat: previous.lat)]
        var pieces: [[LonLat]] = []
        for var p in points.dropFirst() {
            let jump = p.lon - previous.lon
            if abs(jump) > 180 { p.lon -= 360 * (jump / 360).rounded() }
            let local = p.lon - offset
            if local > 180 || local < -180 {
                let edge: Double = local > 180 ? 180 : -180
                if previous.lon - offset == edge {
                    // Already on the edge: continue from the same place on the other side.
                    if piece.count > 1 { pieces.append(piece) }
                    piece = [LonLat(lon: -edge, lat: previous.lat)]
                } else {
                    let lat = crossingLatitude(previous, p, lon: offset + edge)
                    piece.append(LonLat(lon: edge, lat: lat))
                    pieces.append(piece)
                    piece = [LonLat(lon: -edge, lat: lat)]
                }
                offset += 2 * edge
            }
            piece.append(LonLat(lon: p.lon - offset, lat: p.lat))
            previous = p
        }
        pieces.append(piece)
        return pieces
    }

    /// A recorded track's line: its points in order (a recording's segments joined), each joined to the
    /// next along the great circle (lengths by haversine), longitudes unwrapped as for any route (a track
    /// over the antimeridian runs on past 180). `times`: seconds since the first point, one per point
    /// (ignored unless there is one per point). A single point is a line of length 0.
    public init(track: [LonLat], times: [Double]? = nil) {
        precondition(!track.isEmpty && track.allSatisfy { $0.lon.isFinite && $0.lat.isFinite },
                     "a track has finite points")
        kind = .geodesic
        end = track[track.count - 1]
        var points = [track[0]]
        points.reserveCapacity(track.count + 1)
        for p in track.dropFirst() {
            points.append(LonLat(lon: Self.unwrapped(p.lon, near: points[points.count - 1].lon), lat: p.lat))
        }
        var stamps = times?.count == track.count ? times : nil
        if points.count == 1 {
            points.append(points[0])
            stamps = stamps.map { [$0[0], $0[0]] }  // the one fix, twice
        }
        var cumulative = [0.0]
        cumulative.reserveCapacity(points.count)
        for i in 1..<points.count { cumulative.append(cumulative[i - 1] + Geodesy.distanceKm(points[i - 1], points[i])) }
        self.points = points
        self.cumulativeKm = cumulative
        self.times = stamps
    }

    // MARK: - Internals

    /// `lon` shifted by a multiple of 360 to within 180 degrees of `previous`.
    static func unwrapped(_ lon: Double, near previous: Double) -> Double {
        let turns = ((previous - lon) / 360).rounded()
        return turns == 0 ? lon : lon + 360 * turns
    }

    /// The latitude where the segment a-b, drawn straight on the Mercator map, meets longitude `lon`
    /// (strictly between a's and b's longitudes).
    private static func crossingLatitude(_ a: LonLat, _ b: LonLat, lon: Double) -> Double {
        if a.lat == b.lat { return a.lat }
        let t = (lon - a.lon) / (b.lon - a.lon)
        let psi = atanh(sin(a.lat * Geodesy.radians)) + t * Geodesy.mercatorDelta(a.lat, b.lat)
        let lat = atan(sinh(psi)) * Geodesy.degrees
        return lat.isFinite ? lat : a.lat + t * (b.lat - a.lat)  // a pole at an end: no Mercator y
    }

    /// The segment holding fraction f of the length and the fraction of that segment's length.
    private func locate(_ f: Double) -> (segment: Int, fraction: Double) {
        let last = points.count - 2
        if f >= 1 { return (last, 1) }
        let s = f * lengthKm
        // The last segment whose start is at or before s.
        var lo = 0, hi = last
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if cumulativeKm[mid] <= s { lo = mid } else { hi = mid - 1 }
        }
        let span = cumulativeKm[lo + 1] - cumulativeKm[lo]
        return (lo, span > 0 ? min(1, (s - cumulativeKm[lo]) / span) : 0)
    }

    /// The point at fraction t of segment i's length (unwrapped longitude, within 180 degrees of the
    /// segment's start) and the heading there.
    private func position(segment i: Int, fraction t: Double) -> (position: LonLat, heading: Double) {
        let a = points[i], b = points[i + 1]
        switch kind {
        case .geodesic:
            let arc = Geodesy.Arc(a, b)
            var p = Geodesy.interpolate(a, b, fraction: t)
            let turns = ((a.lon - p.lon) / 360).rounded()
            if turns != 0 { p.lon += 360 * turns }
            let heading = arc.angle == 0 ? 0 : Geodesy.heading(of: arc.direction(t), at: arc.point(t))
            return (p, heading)
        case .straight:
            let dPsi = Geodesy.mercatorDelta(a.lat, b.lat)
            let dLon = b.lon - a.lon
            let heading = Geodesy.normalizedBearing(atan2(dLon * Geodesy.radians, dPsi))
            if t == 0 { return (a, heading) }
            if t == 1 { return (b, heading) }
            // Along a rhumb, distance is proportional to the change in latitude (or, on a parallel, longitude),
            // and longitude to the change in stretched latitude.
            let lat = (1 - t) * a.lat + t * b.lat
            var share = Geodesy.mercatorDelta(a.lat, lat) / dPsi
            if !share.isFinite { share = t }
            return (LonLat(lon: a.lon + share * dLon, lat: lat), heading)
        }
    }
}
