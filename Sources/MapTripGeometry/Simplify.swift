import Foundation

/// Cartographic generalisation: Douglas-Peucker simplification of every part of a geometry, used
/// to build one level of detail per zoom so that a frame only handles the vertices a pixel can show.

extension IndexedGeometry {
    /// The geometry with every part simplified so that no removed vertex lies farther than
    /// `tolerance` (unit-world units) from the simplified line. Rings that collapse below a
    /// triangle, and lines below two points, are dropped: they are smaller than the tolerance.
    public func simplified(tolerance: Double) -> IndexedGeometry {
        // In fixed point throughout: the simplified geometry keeps this one's quantisation, its
        // vertices copied exactly.
        var outX: [Int32] = [], outY: [Int32] = [], starts: [Int] = []
        outX.reserveCapacity(qx.count / 4)
        outY.reserveCapacity(qx.count / 4)
        var keep: [Bool] = []
        var stack: [(Int, Int)] = []
        let tol2 = (tolerance / step) * (tolerance / step)
        qx.withUnsafeBufferPointer { qx in
            qy.withUnsafeBufferPointer { qy in
                for part in parts {
                    let n = part.end - part.start
                    if n < 3 {
                        if !isPolygon && n == 2 {
                            starts.append(outX.count)
                            outX.append(contentsOf: qx[part.start..<part.end])
                            outY.append(contentsOf: qy[part.start..<part.end])
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
                    @inline(__always) func x(_ i: Int) -> Double { Double(qx[i]) }
                    @inline(__always) func y(_ i: Int) -> Double { Double(qy[i]) }
                    if isPolygon && qx[first] == qx[last] && qy[first] == qy[last] {
                        var far = first, best = -1.0
                        for i in first...last {
                            let dx = x(i) - x(first), dy = y(i) - y(first)
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
                        let ax = x(a), ay = y(a), dx = x(b) - ax, dy = y(b) - ay
                        let len2 = dx * dx + dy * dy
                        var far = -1, best = tol2
                        for i in (a + 1)..<b {
                            let px = x(i) - ax, py = y(i) - ay
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
                        outX.append(qx[first + i])
                        outY.append(qy[first + i])
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
        return IndexedGeometry(qx: outX, qy: outY, originX: originX, originY: originY, step: step, partStarts: starts,
                               isPolygon: isPolygon)
    }
}

/// Levels of detail of one geometry: level L is simplified to half a pixel at zoom L (for a pixel
/// ratio of 1), so drawing at any zoom up to L with level L is off by less than half a pixel.
///
/// Given a way to load the full geometry again, the levels can let it go once a render has built
/// the ones it needs (`releaseFull`): a trip seen from zoom 5 then holds a quarter of the vertices.
/// A level asked for later loads it again.
public final class DetailLevels: @unchecked Sendable {
    /// Above this level the full data is used (Natural Earth 10m holds no more detail than this).
    public static let finest = 12
    /// How the levels are made, for a `GeometryCache` to tell levels built by other code apart:
    /// change it whenever `simplified(tolerance:)`, the tolerances or the fixed point change.
    public static let recipe = "levels/1 douglas-peucker half-pixel fixed-point"
    private var fullGeometry: IndexedGeometry?
    private let reload: (() throws -> IndexedGeometry)?
    private var levels: [Int: IndexedGeometry] = [:]
    /// Guards the levels and the full geometry: one dataset may be shared by the renders of a batch,
    /// on several threads.
    private let lock = NSLock()

    /// Kept levels from earlier renders (nil: every level is built here).
    private let store: (any LevelStore)?

    /// `reload`: loads `full` again after `releaseFull` (nil: it is always kept).
    public init(_ full: IndexedGeometry, reload: (() throws -> IndexedGeometry)? = nil) {
        fullGeometry = full
        self.reload = reload
        store = nil
    }

    /// Levels whose full geometry is loaded by `load` only when one must be built: a level the
    /// store holds is read from it, and a level built is given to it.
    public init(store: (any LevelStore)?, load: @escaping () throws -> IndexedGeometry) {
        fullGeometry = nil
        reload = load
        self.store = store
    }

    /// The level that keeps the error under half a frame pixel at this zoom and pixel ratio.
    public static func level(zoom: Double, scale: Double) -> Int {
        let z = zoom + log2(max(scale, 1e-9))
        return max(0, Int((z - 1e-9).rounded(.up)))
    }

    /// The full geometry (loaded again if it was released).
    public func full() throws -> IndexedGeometry {
        try lock.withLock { try loadedFull() }
    }

    private func loadedFull() throws -> IndexedGeometry {
        if let g = fullGeometry { return g }
        guard let reload else { preconditionFailure("DetailLevels: released without a way to reload") }
        if let g = store?.geometry(level: nil) {
            fullGeometry = g
            return g
        }
        let g = try reload()
        store?.save(g, level: nil)
        fullGeometry = g
        return g
    }

    public func geometry(zoom: Double, scale: Double) throws -> IndexedGeometry {
        let level = Self.level(zoom: zoom, scale: scale)
        return try lock.withLock {
            if level > Self.finest { return try loadedFull() }
            if let g = levels[level] { return g }
            if let g = store?.geometry(level: level) {
                levels[level] = g
                return g
            }
            let g = try loadedFull().simplified(tolerance: 0.5 / (WebMercator.tileSize * pow(2, Double(level))))
            store?.save(g, level: level)
            levels[level] = g
            return g
        }
    }

    /// Lets the full geometry go when it can be loaded again and no level built so far is it.
    public func releaseFull() {
        lock.withLock { if reload != nil { fullGeometry = nil } }
    }

    /// Bytes the vertices held take (the full geometry, when held, and every level built).
    public var vertexBytes: Int {
        lock.withLock { (fullGeometry?.vertexBytes ?? 0) + levels.values.reduce(0) { $0 + $1.vertexBytes } }
    }
}
