import Foundation

/// Cuts geometry in longitude/latitude along a projection's seam (the meridian where a world map's
/// east and west edges meet), so that nothing crosses it once projected: a ring crossing the seam
/// becomes one ring on each side, closed along the seam; a ring around a pole is closed through the
/// pole; a line is split where it crosses. Vertices on the seam are kept a hair inside their side,
/// since projections put the seam itself on one edge only.
public enum SeamCut {
    /// How far inside its side a vertex on the seam is kept, degrees.
    static let inset = 1e-7

    /// Geometry in degrees: `partStarts[k]` begins part k.
    public struct Parts: Equatable, Sendable {
        public var lons: [Double]
        public var lats: [Double]
        public var partStarts: [Int]

        public init(lons: [Double], lats: [Double], partStarts: [Int]) {
            self.lons = lons
            self.lats = lats
            self.partStarts = partStarts
        }

        func part(_ k: Int) -> Range<Int> { partStarts[k]..<(k + 1 < partStarts.count ? partStarts[k + 1] : lons.count) }
    }

    /// `geometry` cut along the meridian `seam`.
    public static func cut(_ geometry: Parts, seam: Double, polygons: Bool) -> Parts {
        let center = seam - 180
        var out = Parts(lons: [], lats: [], partStarts: [])
        out.lons.reserveCapacity(geometry.lons.count)
        out.lats.reserveCapacity(geometry.lons.count)
        for k in geometry.partStarts.indices {
            let r = geometry.part(k)
            guard r.count >= 2 else { continue }
            // Longitudes relative to the central meridian, unwrapped along the part.
            var us: [Double] = [], vs: [Double] = []
            us.reserveCapacity(r.count)
            for i in r {
                let rel = WebMercator.wrapLongitude(geometry.lons[i] - center)
                if let last = us.last {
                    var d = rel - WebMercator.wrapLongitude(last)
                    if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
                    us.append(last + d)
                } else {
                    us.append(rel)
                }
                vs.append(geometry.lats[i])
            }
            if polygons {
                let drift = us[us.count - 1] - us[0]
                if abs(drift) > 180 {
                    // Around a pole: close the ring through it.
                    let pole: Double = vs.reduce(0, +) >= 0 ? 90 : -90
                    us.append(us[us.count - 1]); vs.append(pole)
                    us.append(us[0]); vs.append(pole)
                }
                cutRing(us, vs, center: center, into: &out)
            } else {
                cutLine(us, vs, center: center, into: &out)
            }
        }
        return out
    }

    /// The strip index of an unwrapped relative longitude: strip k is [-180, 180] + 360 k.
    private static func strip(_ u: Double) -> Int { Int(((u + 180) / 360).rounded(.down)) }

    private static func cutRing(_ us: [Double], _ vs: [Double], center: Double, into out: inout Parts) {
        guard let lo = us.min(), let hi = us.max() else { return }
        let first = strip(lo), last = strip(hi - 1e-12)
        for k in first...last {
            let a = -180 + 360 * Double(k), b = a + 360
            var xs = us, ys = vs
            if first != last {
                clip(&xs, &ys, limit: a, keepGreater: true)
                clip(&xs, &ys, limit: b, keepGreater: false)
            }
            guard xs.count >= 3 else { continue }
            out.partStarts.append(out.lons.count)
            for i in xs.indices {
                let rel = min(max(xs[i] - 360 * Double(k), -180 + inset), 180 - inset)
                out.lons.append(WebMercator.wrapLongitude(rel + center))
                out.lats.append(ys[i])
            }
        }
    }

    /// Sutherland-Hodgman against the vertical line u = limit.
    private static func clip(_ xs: inout [Double], _ ys: inout [Double], limit: Double, keepGreater: Bool) {
        let n = xs.count
        guard n > 0 else { return }
        var ox: [Double] = [], oy: [Double] = []
        ox.reserveCapacity(n + 4)
        oy.reserveCapacity(n + 4)
        func inside(_ x: Double) -> Bool { keepGreater ? x >= limit : x <= limit }
        var px = xs[n - 1], py = ys[n - 1]
        var pIn = inside(px)
        for i in 0..<n {
            let cx = xs[i], cy = ys[i]
            let cIn = inside(cx)
            if cIn != pIn {
                ox.append(limit)
                oy.append(py + (limit - px) / (cx - px) * (cy - py))
            }
            if cIn { ox.append(cx); oy.append(cy) }
            px = cx; py = cy; pIn = cIn
        }
        xs = ox
        ys = oy
    }

    private static func cutLine(_ us: [Double], _ vs: [Double], center: Double, into out: inout Parts) {
        var piece: [(Double, Double)] = []
        var k = strip(us[0])
        func flush() {
            if piece.count >= 2 {
                out.partStarts.append(out.lons.count)
                for (u, v) in piece {
                    let rel = min(max(u - 360 * Double(k), -180 + inset), 180 - inset)
                    out.lons.append(WebMercator.wrapLongitude(rel + center))
                    out.lats.append(v)
                }
            }
            piece = []
        }
        piece.append((us[0], vs[0]))
        for i in 1..<us.count {
            let k2 = strip(us[i])
            if k2 != k {
                // Cross the strip edge between them: end here, start again on the other side.
                let edge = -180 + 360 * Double(max(k, k2))
                let t = (edge - us[i - 1]) / (us[i] - us[i - 1])
                let lat = vs[i - 1] + t * (vs[i] - vs[i - 1])
                piece.append((edge, lat))
                flush()
                k = k2
                piece.append((edge, lat))
            }
            piece.append((us[i], vs[i]))
        }
        flush()
    }
}
