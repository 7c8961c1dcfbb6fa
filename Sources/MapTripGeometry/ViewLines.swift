import Foundation

extension Viewport {
    /// A line through positions (dense enough to draw straight between them: a route, a graticule
    /// line) as frame-pixel polylines, cut where the projection ends: at the globe's horizon (exactly,
    /// where the great circle between two points meets it), at a world projection's seam, around
    /// points a projection cannot show. On Web Mercator, split at the antimeridian and repeated on
    /// every copy of the world the frame shows.
    public func lines(_ points: [LonLat]) -> [[(x: Double, y: Double)]] {
        guard points.count >= 2 else { return [] }
        switch projection {
        case .webMercator:
            return mercatorLines(ProjectedLine.mercatorPieces(points))
        case .globe:
            return globeLines(points)
        case .plane(let projector):
            return planeLines(points, projector)
        }
    }

    /// The same for a line whose Web Mercator projection was made once (`ProjectedLine`): on Web
    /// Mercator only moved and scaled onto the frame; on other projections drawn from its positions.
    public func lines(_ line: ProjectedLine) -> [[(x: Double, y: Double)]] {
        guard line.points.count >= 2 else { return [] }
        if case .webMercator = projection { return mercatorLines(line.pieces) }
        return lines(line.points)
    }

    /// Pieces of a line in the unit Web Mercator world, on every copy of the world the frame shows.
    private func mercatorLines(_ pieces: [[WorldPoint]]) -> [[(x: Double, y: Double)]] {
        var out: [[(x: Double, y: Double)]] = []
        for t in PixelTransform.copies(for: self) {
            for piece in pieces where piece.count >= 2 {
                out.append(piece.map { (t.x($0.x, $0.y), t.y($0.x, $0.y)) })
            }
        }
        return out
    }

    private func globeLines(_ points: [LonLat]) -> [[(x: Double, y: Double)]] {
        let p = GlobePicture(self)
        var out: [[(x: Double, y: Double)]] = []
        var run: [(x: Double, y: Double)] = []
        var previous: (x: Double, y: Double, z: Double)? = nil
        for point in points {
            let v = p.view.view(point)
            if let u = previous, (u.z >= 0) != (v.z >= 0) {
                let t = u.z / (u.z - v.z)
                var mx = u.x + t * (v.x - u.x), my = u.y + t * (v.y - u.y)
                let n = hypot(mx, my)
                if n > 0 { mx /= n; my /= n }
                run.append((p.px(mx, my), p.py(mx, my)))
                if u.z >= 0 {
                    if run.count >= 2 { out.append(run) }
                    run = []
                }
            }
            if v.z >= 0 { run.append((p.px(v.x, v.y), p.py(v.x, v.y))) }
            previous = v
        }
        if run.count >= 2 { out.append(run) }
        return out
    }

    private func planeLines(_ points: [LonLat], _ projector: any PlaneProjector) -> [[(x: Double, y: Double)]] {
        // Cut at the seam first: each piece stays on one side of the world's edge.
        var pieces: [[LonLat]] = [[]]
        if let seam = projector.seam {
            let eps = 1e-7
            func relative(_ lon: Double) -> Double { WebMercator.wrapLongitude(lon - seam - 180) }
            for (k, q) in points.enumerated() {
                if k > 0 {
                    let a = points[k - 1]
                    let ra = relative(a.lon), rb = relative(q.lon)
                    if abs(rb - ra) > 180 {
                        // Crosses the seam: end this piece on its side, start the next on the other.
                        let da = 180 - abs(ra), db = 180 - abs(rb)
                        let lat = da + db > 0 ? a.lat + (q.lat - a.lat) * da / (da + db) : a.lat
                        pieces[pieces.count - 1].append(LonLat(lon: seam + (ra > 0 ? -eps : eps), lat: lat))
                        pieces.append([LonLat(lon: seam + (ra > 0 ? eps : -eps), lat: lat)])
                    }
                }
                pieces[pieces.count - 1].append(q)
            }
        } else {
            pieces = [points]
        }
        var out: [[(x: Double, y: Double)]] = []
        for piece in pieces {
            var xs = piece.map(\.lon), ys = piece.map(\.lat)
            projector.project(xs: &xs, ys: &ys)
            var run: [(x: Double, y: Double)] = []
            for k in xs.indices {
                if xs[k].isFinite && ys[k].isFinite {
                    run.append(pixel(Projection.unit(x: xs[k], y: ys[k])))
                } else {
                    if run.count >= 2 { out.append(run) }
                    run = []
                }
            }
            if run.count >= 2 { out.append(run) }
        }
        return out
    }
}

/// Polylines cut down to what a box can show, for stroking.
public enum PolylineCulling {
    /// The runs of consecutive segments of `line` whose bounding boxes meet `box`, in order. A segment
    /// left out lies wholly outside the box, so every point where a run is cut (its end, or the start
    /// of the next) lies outside it: with `box` the frame grown by half the stroke's width and more,
    /// the caps drawn there, and the joins no longer drawn, fall outside the frame, and the stroke
    /// looks the same inside it.
    public static func runs(_ line: [(x: Double, y: Double)], meeting box: Box) -> [[(x: Double, y: Double)]] {
        guard line.count >= 2 else { return [] }
        var out: [[(x: Double, y: Double)]] = []
        var run: [(x: Double, y: Double)] = []
        for i in 1..<line.count {
            let a = line[i - 1], b = line[i]
            let meets = max(a.x, b.x) >= box.minX && min(a.x, b.x) <= box.maxX
                && max(a.y, b.y) >= box.minY && min(a.y, b.y) <= box.maxY
            if meets {
                if run.isEmpty { run.append(a) }
                run.append(b)
            } else if !run.isEmpty {
                out.append(run)
                run = []
            }
        }
        if !run.isEmpty { out.append(run) }
        return out
    }
}

/// Polylines thinned to what a pixel grid can show, for stroking.
public enum PolylineSimplification {
    /// Douglas-Peucker: the points of `line` to keep so that every point left out lies within
    /// `tolerance` of the line through those kept (the first and the last are always kept). A route
    /// sampled every few kilometres is, on a frame, a gentle curve with a vertex every pixel or two,
    /// and a stroker joins every one of them.
    public static func simplified(_ line: [(x: Double, y: Double)], tolerance: Double) -> [(x: Double, y: Double)] {
        guard line.count > 2 else { return line }
        var keep = [Bool](repeating: false, count: line.count)
        keep[0] = true
        keep[line.count - 1] = true
        let limit = tolerance * tolerance
        var spans = [(0, line.count - 1)]
        while let (first, last) = spans.popLast() {
            guard last - first > 1 else { continue }
            let a = line[first], b = line[last]
            let dx = b.x - a.x, dy = b.y - a.y
            let length2 = dx * dx + dy * dy
            var worst = -1.0, index = first
            for i in (first + 1)..<last {
                let p = line[i]
                var d2: Double
                if length2 == 0 {
                    d2 = (p.x - a.x) * (p.x - a.x) + (p.y - a.y) * (p.y - a.y)
                } else {
                    // Distance to the segment (not the infinite line): a point beyond an end counts
                    // from that end, so a line that doubles back keeps its turn.
                    let t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length2))
                    let qx = a.x + t * dx - p.x, qy = a.y + t * dy - p.y
                    d2 = qx * qx + qy * qy
                }
                if d2 > worst {
                    worst = d2
                    index = i
                }
            }
            if worst > limit {
                keep[index] = true
                spans.append((first, index))
                spans.append((index, last))
            }
        }
        return line.indices.filter { keep[$0] }.map { line[$0] }
    }
}

/// A line's positions with their Web Mercator projection made once (split at the antimeridian, in the
/// unit world): frames that show the same line (a route's finished legs, the graticule) only move and
/// scale it, rather than projecting every position again.
public struct ProjectedLine: Sendable {
    public let points: [LonLat]
    /// The line on Web Mercator: its pieces in the unit world.
    let pieces: [[WorldPoint]]

    public init(_ points: [LonLat]) {
        self.points = points
        pieces = Self.mercatorPieces(points)
    }

    static func mercatorPieces(_ points: [LonLat]) -> [[WorldPoint]] {
        RouteLine.splitAtAntimeridian(points).map { $0.map(WebMercator.project) }
    }
}
