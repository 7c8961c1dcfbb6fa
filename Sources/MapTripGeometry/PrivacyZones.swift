import Foundation

/// A circle on the ground inside which nothing of a recording is drawn (`privacy[i]`: a home, a
/// workplace): its centre and radius in metres.
public struct PrivacyZone: Equatable, Hashable, Sendable {
    public var center: LonLat
    public var radius: Double

    public init(center: LonLat, radius: Double) {
        self.center = center
        self.radius = radius
    }

    /// Metres east and north of the centre on the plane tangent at it (longitude differences taken the
    /// short way round): within a zone's few kilometres the plane's distances differ from the sphere's
    /// by less than a millimetre per kilometre.
    @inline(__always) func local(_ p: LonLat) -> (x: Double, y: Double) {
        let m = Geodesy.earthRadiusKm * 1000 * Geodesy.radians
        var dLon = (p.lon - center.lon).truncatingRemainder(dividingBy: 360)
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        return (dLon * m * cos(center.lat * Geodesy.radians), (p.lat - center.lat) * m)
    }

    /// The angle of `p` seen from the centre on the tangent plane (radians counter-clockwise from east).
    public func angle(of p: LonLat) -> Double {
        let q = local(p)
        return atan2(q.y, q.x)
    }

    /// The point on the circle's edge at `angle` (radians counter-clockwise from east), longitude wrapped.
    public func rim(at angle: Double) -> LonLat {
        let m = Geodesy.earthRadiusKm * 1000 * Geodesy.radians
        let lon = center.lon + radius * cos(angle) / (m * cos(center.lat * Geodesy.radians))
        return LonLat(lon: Geodesy.wrap(lon), lat: center.lat + radius * sin(angle) / m)
    }

    /// Whether `p` lies inside the circle (on its edge counts as outside).
    public func contains(_ p: LonLat) -> Bool {
        let q = local(p)
        return q.x * q.x + q.y * q.y < radius * radius
    }
}

/// Polylines with the parts inside privacy zones cut out, exactly at each circle's edge.
public enum PrivacyClipping {
    /// Whether `p` lies inside any of `zones`.
    public static func hides(_ p: LonLat, _ zones: [PrivacyZone]) -> Bool {
        zones.contains { $0.contains(p) }
    }

    /// `p`, or where it lies inside a zone the point a centimetre outside that zone's edge nearest it
    /// (again for a zone that overlaps it there): where a camera may centre.
    public static func outside(_ p: LonLat, _ zones: [PrivacyZone]) -> LonLat {
        var p = p
        for _ in 0..<zones.count {
            guard let z = zones.first(where: { $0.contains(p) }) else { break }
            p = PrivacyZone(center: z.center, radius: z.radius + 0.01).rim(at: z.angle(of: p))
        }
        return p
    }

    /// The pieces of `line` (positions joined straight, longitudes unwrapped or not) that lie outside
    /// every zone, in order: a segment that enters a circle ends its piece at the point where it
    /// crosses the edge, one that leaves it starts the next piece there (the crossing found on the
    /// zone's tangent plane, where the segment is straight, and placed at the same share of the segment
    /// in longitude and latitude). Pieces of fewer than two points are left out; with no zones, or none
    /// near the line, the line comes back whole. A line whose longitudes jump across the antimeridian
    /// (179.9 then -179.9) is unwrapped first, so that a cut there lands on the short segment between
    /// them, not on one across the whole world.
    public static func visible(_ line: [LonLat], outside zones: [PrivacyZone]) -> [[LonLat]] {
        guard line.count >= 2 else { return [] }
        var pieces = [unwrapped(line)]
        for zone in zones { pieces = pieces.flatMap { clip($0, zone) } }
        return pieces
    }

    /// `line` with each longitude within 180 degrees of the one before (unchanged when it already is).
    static func unwrapped(_ line: [LonLat]) -> [LonLat] {
        guard zip(line, line.dropFirst()).contains(where: { abs($1.lon - $0.lon) > 180 }) else { return line }
        var out = [line[0]]
        out.reserveCapacity(line.count)
        for p in line.dropFirst() {
            let before = out[out.count - 1].lon
            out.append(LonLat(lon: p.lon + 360 * ((before - p.lon) / 360).rounded(), lat: p.lat))
        }
        return out
    }

    /// `line` cut by one zone.
    static func clip(_ line: [LonLat], _ zone: PrivacyZone) -> [[LonLat]] {
        let r2 = zone.radius * zone.radius
        let local = line.map(zone.local)
        // Nothing near: every segment's nearest approach is outside the circle.
        var meets = false
        for k in 1..<line.count where nearest2(local[k - 1], local[k]) < r2 {
            meets = true
            break
        }
        guard meets else { return [line] }
        var out: [[LonLat]] = []
        var piece: [LonLat] = []
        func flush() {
            if piece.count >= 2 { out.append(piece) }
            piece = []
        }
        func add(_ p: LonLat) { if piece.last != p { piece.append(p) } }
        if local[0].x * local[0].x + local[0].y * local[0].y >= r2 { piece.append(line[0]) }
        for k in 1..<line.count {
            let a = local[k - 1], b = local[k]
            let dx = b.x - a.x, dy = b.y - a.y
            let qa = dx * dx + dy * dy, qb = 2 * (a.x * dx + a.y * dy), qc = a.x * a.x + a.y * a.y - r2
            let bInside = b.x * b.x + b.y * b.y < r2
            let disc = qb * qb - 4 * qa * qc
            let s = disc > 0 && qa > 0 ? disc.squareRoot() : 0
            let t0 = s > 0 ? (-qb - s) / (2 * qa) : .infinity, t1 = s > 0 ? (-qb + s) / (2 * qa) : -.infinity
            /// The point at share t of the segment.
            func at(_ t: Double) -> LonLat {
                let p = line[k - 1], q = line[k], t = min(max(t, 0), 1)
                return LonLat(lon: p.lon + (q.lon - p.lon) * t, lat: p.lat + (q.lat - p.lat) * t)
            }
            if qc < 0 {
                // From inside: out where it leaves the circle.
                if !bInside { piece = [at(t1), line[k]] }
            } else if t0 >= 0 && t0 < 1 && t1 > 0 {
                // Into the circle: the piece ends on its edge; through it: the next starts on the far edge.
                add(at(t0))
                flush()
                if !bInside && t1 < 1 { piece = [at(t1), line[k]] }
            } else if bInside {
                flush()
            } else {
                add(line[k])
            }
        }
        if piece.count >= 2 { out.append(piece) }
        return out
    }

    /// The squared distance from the origin to the segment a-b.
    @inline(__always) static func nearest2(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let l2 = dx * dx + dy * dy
        let t = l2 > 0 ? min(max(-(a.x * dx + a.y * dy) / l2, 0), 1) : 0
        let x = a.x + t * dx, y = a.y + t * dy
        return x * x + y * y
    }
}
