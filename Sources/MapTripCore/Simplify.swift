import Foundation

/// Cartographic generalisation: Douglas-Peucker simplification of every part of a geometry, used
/// to build one level of detail per zoom so that a frame only handles the vertices a pixel can show.

extension IndexedGeometry {
    /// The geometry with every part simplified so that no removed vertex lies farther than
    /// `tolerance` (unit-world units) from the simplified line. Rings that collapse below a
    /// triangle, and lines below two points, are dropped: they are smaller than the tolerance.
    public func simplified(tolerance: Double) -> IndexedGeometry {
        var outX: [Double] = [], outY: [Double] = [], starts: [Int] = []
        outX.reserveCapacity(xs.count / 4)
        outY.reserveCapacity(xs.count / 4)
        var keep: [Bool] = []
        var stack: [(Int, Int)] = []
        let tol2 = tolerance * tolerance
        xs.withUnsafeBufferPointer { xs in
            ys.withUnsafeBufferPointer { ys in
                for part in parts {
                    let n = part.end - part.start
                    if n < 3 {
                        if !isPolygon && n == 2 {
                            starts.append(outX.count)
                            outX.append(contentsOf: xs[part.start..<part.end])
                            outY.append(contentsOf: ys[part.start..<part.end])
                        }
                        continue
                    }
                    keep.removeAll(keepingCapacity: true)
                    keep.append(contentsOf: repeatElement(false, count: n))
                    let first = part.start, last = part.end - 1
                    keep[0] = true
                    keep[n - 1] = true
                    // A closed ring starts and ends on the same vertex: split it at the vertex
                    // farthest from the start, so both halves have a real chord to measure against.
                    if isPolygon && xs[first] == xs[last] && ys[first] == ys[last] {
                        var far = first, best = -1.0
                        for i in first...last {
                            let dx = xs[i] - xs[first], dy = ys[i] - ys[first]
                            let d = dx * dx + dy * dy
                            if d > best { best = d; far = i }
                        }
                        keep[far - first] = true
                        stack.append((first, far))
                        stack.append((far, last))
                    } else {
                        stack.append((first, last))
                    }
                    while let (a, b) = stack.popLast() {
                        if b - a < 2 { continue }
                        let ax = xs[a], ay = ys[a], dx = xs[b] - ax, dy = ys[b] - ay
                        let len2 = dx * dx + dy * dy
                        var far = -1, best = tol2
                        for i in (a + 1)..<b {
                            let px = xs[i] - ax, py = ys[i] - ay
                            let d: Double
                            if len2 == 0 {
                                d = px * px + py * py
                            } else {
                                // Distance to the segment (not the infinite line): spikes count.
                                let t = max(0, min(1, (px * dx + py * dy) / len2))
                                let ex = px - t * dx, ey = py - t * dy
                                d = ex * ex + ey * ey
                            }
                            if d > best { best = d; far = i }
                        }
                        if far >= 0 {
                            keep[far - first] = true
                            stack.append((a, far))
                            stack.append((far, b))
                        }
                    }
                    let start = outX.count
                    for i in 0..<n where keep[i] {
                        outX.append(xs[first + i])
                        outY.append(ys[first + i])
                    }
                    let count = outX.count - start
                    if count >= (isPolygon ? 4 : 2) {
                        starts.append(start)
                    } else {
                        outX.removeSubrange(start...)
                        outY.removeSubrange(start...)
                    }
                }
            }
        }
        return IndexedGeometry(xs: outX, ys: outY, partStarts: starts, isPolygon: isPolygon)
    }
}

/// Levels of detail of one geometry: level L is simplified to half a pixel at zoom L (for a pixel
/// ratio of 1), so drawing at any zoom up to L with level L is off by less than half a pixel.
public final class DetailLevels: @unchecked Sendable {
    /// Above this level the full data is used (Natural Earth 10m holds no more detail than this).
    public static let finest = 12
    public let full: IndexedGeometry
    private var levels: [Int: IndexedGeometry] = [:]
    /// Guards `levels`: one dataset may be shared by the renders of a batch, on several threads.
    private let lock = NSLock()

    public init(_ full: IndexedGeometry) { self.full = full }

    /// The level that keeps the error under half a frame pixel at this zoom and pixel ratio.
    public static func level(zoom: Double, scale: Double) -> Int {
        let z = zoom + log2(max(scale, 1e-9))
        return max(0, Int((z - 1e-9).rounded(.up)))
    }

    public func geometry(zoom: Double, scale: Double) -> IndexedGeometry {
        let level = Self.level(zoom: zoom, scale: scale)
        if level > Self.finest { return full }
        return lock.withLock {
            if let g = levels[level] { return g }
            let g = full.simplified(tolerance: 0.5 / (WebMercator.tileSize * pow(2, Double(level))))
            levels[level] = g
            return g
        }
    }
}
