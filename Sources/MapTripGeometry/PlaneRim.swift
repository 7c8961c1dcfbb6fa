import Foundation

/// The rim of an azimuthal projection's domain: Lambert azimuthal equal-area shows the whole Earth
/// inside a disc of radius 2R and sends the antipode of its centre (its *singular point*) to the
/// whole rim; the azimuthal equidistant does the same at πR. Such a plane has no seam to cut along,
/// but two things need the rim:
/// * the backdrop: beyond the rim there is no Earth, so the frame shows the style's `polar` colour
///   there, not sea;
/// * rings around the singular point: a ring that encloses it (Antarctica, on a north-polar LAEA)
///   encloses, once projected, the annulus between itself and the rim, but as a closed curve it
///   bounds the disc inside it: drawn as it is, the land fills the Earth and the rest turns to holes.
///   Its picture is the ring plus the rim, the other way round (`closeAroundSingularPoint`).
///
/// Found by probing (the projection is PROJ's, of any parameters): rays from a point of the domain
/// are marched out until the inverse fails or no longer comes back, then bisected to the edge. A
/// rim counts only when every ray ends and the rim's points all invert to one position (the
/// singular point): projections whose domains end irregularly (a transverse Mercator far from its
/// meridian) or never (stereographic, conic) have none.
public struct PlaneRim: Sendable {
    /// The rim in plane metres, counter-clockwise, just inside the domain.
    public var outline: [(x: Double, y: Double)]
    /// The position the rim stands for.
    public var singular: LonLat

    /// Rays probed (one every degree of direction).
    static let rays = 360

    /// The rim of `plane`'s domain; nil when it has none (see the type's note).
    public static func find(_ plane: any PlaneProjector) -> PlaneRim? {
        func forward(_ p: LonLat) -> (x: Double, y: Double)? {
            var xs = [p.lon], ys = [p.lat]
            plane.project(xs: &xs, ys: &ys)
            return xs[0].isFinite && ys[0].isFinite ? (xs[0], ys[0]) : nil
        }
        // A point of the plane a position comes back to, and its position, or none.
        func inside(_ x: Double, _ y: Double) -> LonLat? {
            guard let p = plane.unproject(x: x, y: y), let q = forward(p) else { return nil }
            return hypot(q.x - x, q.y - y) <= 1e-6 * max(1, hypot(x, y)) + 1e-3 ? p : nil
        }
        // Where the rays start: a point well inside the domain.
        let candidates = [LonLat(lon: 0, lat: 0), LonLat(lon: 0, lat: 45), LonLat(lon: 0, lat: -45), LonLat(lon: 90, lat: 0),
                          LonLat(lon: -90, lat: 0), LonLat(lon: 0, lat: 89), LonLat(lon: 0, lat: -89), LonLat(lon: 180, lat: 0)]
        guard let origin = candidates.lazy.compactMap({ p in forward(p).flatMap { o in inside(o.x, o.y).map { _ in o } } }).first
        else { return nil }
        let far = 1e8  // 100,000 km: a domain reaching beyond has no rim worth drawing
        var outline: [(x: Double, y: Double)] = []
        var ends: [LonLat] = []
        for k in 0..<rays {
            let a = Double(k) / Double(rays) * 2 * .pi
            let dx = cos(a), dy = sin(a)
            // March out, doubling, to the first point outside.
            var lo = 0.0, hi = 10_000.0
            while inside(origin.x + dx * hi, origin.y + dy * hi) != nil {
                lo = hi
                hi *= 2
                if hi > far { return nil }
            }
            // Bisect to a millimetre.
            while hi - lo > 1e-3 {
                let mid = (lo + hi) / 2
                if inside(origin.x + dx * mid, origin.y + dy * mid) != nil { lo = mid } else { hi = mid }
            }
            let x = origin.x + dx * lo, y = origin.y + dy * lo
            guard let end = inside(x, y) else { return nil }
            outline.append((x, y))
            ends.append(end)
        }
        // One singular point: every ray's end within a degree of the first's.
        let s = ends[0]
        guard ends.allSatisfy({ Geodesy.distanceKm($0, s) < Geodesy.earthRadiusKm * .pi / 180 }) else { return nil }
        return PlaneRim(outline: outline, singular: s)
    }

    /// Twice the signed area of a ring (positive: counter-clockwise, with y up).
    public static func signedArea(xs: ArraySlice<Double>, ys: ArraySlice<Double>) -> Double {
        var sum = 0.0
        var i = xs.startIndex, j = ys.startIndex
        guard let x0 = xs.last, let y0 = ys.last else { return 0 }
        var px = x0, py = y0
        while i < xs.endIndex {
            sum += (px - xs[i]) * (py + ys[j])
            px = xs[i]
            py = ys[j]
            i += 1
            j += 1
        }
        return sum
    }

    /// Whether a polygon ring, given in degrees (`lons`, `lats`) and as projected (`xs`, `ys`,
    /// plane metres, points the plane cannot show left out), encloses the singular point: its
    /// picture then turns the other way round from its own (a projection keeps orientation
    /// everywhere else).
    public static func enclosesSingularPoint(lons: ArraySlice<Double>, lats: ArraySlice<Double>,
                                              xs: ArraySlice<Double>, ys: ArraySlice<Double>) -> Bool {
        let before = signedArea(xs: lons, ys: lats), after = signedArea(xs: xs, ys: ys)
        return before != 0 && after != 0 && (before > 0) != (after > 0)
    }

    /// The rim as a ring turning against one of orientation `area` (a signed area): added to that
    /// ring, it makes the annulus between them under either fill rule.
    public func ring(against area: Double) -> [(x: Double, y: Double)] {
        area > 0 ? outline.reversed() : outline
    }
}
