/// Geometry for drawing large layers fast: vertices kept in flat arrays with bounding boxes per
/// part and per run of `chunkSize` vertices, culled, clipped to the frame and thinned to what a
/// pixel can show before they reach the rasteriser. Natural Earth's Eurasia is a single ring of
/// ~100k vertices, so ring boxes alone do not help: chunk boxes do.

/// An axis-aligned box.
public struct Box: Equatable, Sendable {
    public var minX, minY, maxX, maxY: Double

    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    public static let empty = Box(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

    @inline(__always) public mutating func add(_ x: Double, _ y: Double) {
        if x < minX { minX = x }
        if x > maxX { maxX = x }
        if y < minY { minY = y }
        if y > maxY { maxY = y }
    }

    @inline(__always) public func intersects(_ o: Box) -> Bool {
        minX <= o.maxX && maxX >= o.minX && minY <= o.maxY && maxY >= o.minY
    }

    /// Whether the two boxes share some area (boxes that only touch do not; `intersects` counts them).
    @inline(__always) public func overlaps(_ o: Box) -> Bool {
        minX < o.maxX && maxX > o.minX && minY < o.maxY && maxY > o.minY
    }

    /// The smallest box holding both.
    public func union(_ o: Box) -> Box {
        Box(minX: Swift.min(minX, o.minX), minY: Swift.min(minY, o.minY), maxX: Swift.max(maxX, o.maxX),
            maxY: Swift.max(maxY, o.maxY))
    }

    /// The box grown by `d` on every side.
    public func padded(by d: Double) -> Box {
        Box(minX: minX - d, minY: minY - d, maxX: maxX + d, maxY: maxY + d)
    }

    @inline(__always) public func contains(_ o: Box) -> Bool {
        o.minX >= minX && o.maxX <= maxX && o.minY >= minY && o.maxY <= maxY
    }

    /// True when the whole box lies beyond one edge of `clip` (so a path inside it can be replaced
    /// by the segment joining its ends without changing anything inside `clip`).
    @inline(__always) func beyondOneEdge(of clip: Box) -> Bool {
        maxX < clip.minX || minX > clip.maxX || maxY < clip.minY || minY > clip.maxY
    }
}

/// Polygons or polylines in the unit world, with their boxes. Built once per layer.
///
/// Vertices are held as 32-bit fixed point about the geometry's centre (`x = originX + qx * step`),
/// half the memory of doubles: the step is 1/2^32 of the geometry's extent; for the whole world, a
/// thousandth of a pixel at zoom 14 and a sixteenth at zoom 20. Drawing folds the step into the pixel transform
/// (`PixelTransform.folding`), so reading a vertex costs one integer conversion.
public struct IndexedGeometry: Sendable {
    public static let chunkSize = 32

    public struct Part: Sendable {
        public var start: Int
        public var end: Int
        public var box: Box
        /// Index of this part's first chunk box in `chunkBoxes`.
        public var firstChunk: Int
    }

    public let isPolygon: Bool
    /// The vertices in fixed point (see `x(_:)`, `y(_:)`).
    public let qx: [Int32]
    public let qy: [Int32]
    public let originX: Double
    public let originY: Double
    public let step: Double
    public let parts: [Part]
    public let chunkBoxes: [Box]
    /// For polylines, the distance along its part (fixed-point units) at each chunk's first and last
    /// vertex (two per chunk, after `chunkBoxes`' order); empty for polygons. Dashes are counted
    /// from it (`PixelPath.along`), so that a clipped line keeps the dashes of the whole line.
    public let chunkAlong: [Double]
    public let box: Box

    /// `partStarts[k]` begins part k; the last part runs to the end of `xs`. A vertex that is not a
    /// finite number (a corrupt file's) is put at the centre of the others.
    public init(xs: [Double], ys: [Double], partStarts: [Int], isPolygon: Bool) {
        var extent = Box.empty
        for i in xs.indices where xs[i].isFinite && ys[i].isFinite { extent.add(xs[i], ys[i]) }
        if extent.minX > extent.maxX { extent = Box(minX: 0, minY: 0, maxX: 0, maxY: 0) }
        // Halves first: the sums and differences of coordinates near Double's limits stay finite.
        let ox = extent.minX / 2 + extent.maxX / 2, oy = extent.minY / 2 + extent.maxY / 2
        let half = max(extent.maxX / 2 - extent.minX / 2, extent.maxY / 2 - extent.minY / 2)
        let step = half > 0 ? half / 2_147_483_000 : 1
        @inline(__always) func q(_ v: Double, _ o: Double) -> Int32 {
            let r = ((v / 2 - o / 2) / (step / 2)).rounded()
            return r.isFinite ? Int32(max(-2_147_483_647, min(2_147_483_647, r))) : 0
        }
        var qx = [Int32](repeating: 0, count: xs.count), qy = qx
        for i in xs.indices {
            let fine = xs[i].isFinite && ys[i].isFinite
            qx[i] = fine ? q(xs[i], ox) : 0
            qy[i] = fine ? q(ys[i], oy) : 0
        }
        self.init(qx: qx, qy: qy, originX: ox, originY: oy, step: step, partStarts: partStarts, isPolygon: isPolygon)
    }

    /// Vertices already in fixed point about (originX, originY) with this step (a simplification of
    /// another geometry keeps its quantisation).
    public init(qx: [Int32], qy: [Int32], originX: Double, originY: Double, step: Double, partStarts: [Int],
                isPolygon: Bool) {
        self.qx = qx
        self.qy = qy
        self.originX = originX
        self.originY = originY
        self.step = step
        self.isPolygon = isPolygon
        var parts: [Part] = []
        var chunks: [Box] = []
        var along: [Double] = []
        var all = Box.empty
        parts.reserveCapacity(partStarts.count)
        for (k, start) in partStarts.enumerated() {
            let end = k + 1 < partStarts.count ? partStarts[k + 1] : qx.count
            var partBox = Box.empty
            let firstChunk = chunks.count
            var i = start
            var d = 0.0
            while i < end {
                let j = min(i + Self.chunkSize, end)
                var b = Box.empty
                for v in i..<j { b.add(originX + Double(qx[v]) * step, originY + Double(qy[v]) * step) }
                chunks.append(b)
                if !isPolygon {
                    if i > start { d += Self.distance(qx, qy, i - 1, i) }
                    along.append(d)
                    for v in i + 1..<j { d += Self.distance(qx, qy, v - 1, v) }
                    along.append(d)
                }
                partBox.add(b.minX, b.minY)
                partBox.add(b.maxX, b.maxY)
                i = j
            }
            if end > start {
                parts.append(Part(start: start, end: end, box: partBox, firstChunk: firstChunk))
                all.add(partBox.minX, partBox.minY)
                all.add(partBox.maxX, partBox.maxY)
            }
        }
        self.parts = parts
        self.chunkBoxes = chunks
        self.chunkAlong = along
        self.box = all
    }

    /// The distance between vertices a and b, in fixed-point units.
    @inline(__always) static func distance(_ qx: [Int32], _ qy: [Int32], _ a: Int, _ b: Int) -> Double {
        let dx = Double(qx[b]) - Double(qx[a]), dy = Double(qy[b]) - Double(qy[a])
        return (dx * dx + dy * dy).squareRoot()
    }

    public var vertexCount: Int { qx.count }
    /// Vertex i in the unit world.
    @inline(__always) public func x(_ i: Int) -> Double { originX + Double(qx[i]) * step }
    @inline(__always) public func y(_ i: Int) -> Double { originY + Double(qy[i]) * step }
    /// Bytes the vertices take.
    public var vertexBytes: Int { qx.count * 8 }
}

/// Paths in frame pixels, ready for the rasteriser: `starts[k]` begins sub-path k.
public struct PixelPath: Sendable {
    public var xs: [Double] = []
    public var ys: [Double] = []
    public var starts: [Int] = []
    public var closed: Bool = false
    /// Whether the clipper records, for each point of a line, its distance (pixels) along the whole
    /// line it was cut from, in `along`: dashes counted from it stay where they are on the map however
    /// the line is clipped (by the frame as the camera moves, or by a tile), rather than restarting at
    /// each piece's start.
    public var tracksAlong = false
    /// With `tracksAlong`, one distance a point (else empty).
    public var along: [Double] = []

    public init() {}

    public mutating func removeAll() {
        xs.removeAll(keepingCapacity: true)
        ys.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        along.removeAll(keepingCapacity: true)
    }

    /// Whether each point has its distance along its line (`tracksAlong`, and every piece clipped so).
    public var hasAlong: Bool { tracksAlong && along.count == xs.count && !closed }

    public var subpathCount: Int { starts.count }

    /// Appends `other`'s sub-paths after this one's.
    public mutating func append(_ other: PixelPath) {
        let offset = xs.count
        xs.append(contentsOf: other.xs)
        ys.append(contentsOf: other.ys)
        along.append(contentsOf: other.along)
        starts.append(contentsOf: other.starts.lazy.map { $0 + offset })
    }
    public func range(_ k: Int) -> Range<Int> { starts[k]..<(k + 1 < starts.count ? starts[k + 1] : xs.count) }
}

/// Culls, clips and thins `IndexedGeometry` into `PixelPath`s. Holds scratch buffers: reuse one.
public struct PathClipper: Sendable {
    /// Points closer than this (pixels, per axis) to the last kept one are dropped.
    public var tolerance: Double
    var bufX: [Double] = [], bufY: [Double] = []
    var tmpX: [Double] = [], tmpY: [Double] = []

    public init(tolerance: Double = 0.5) { self.tolerance = tolerance }

    /// Appends what `geometry` shows inside `clip` (frame pixels, already widened by any stroke) to `path`.
    public mutating func append(_ geometry: IndexedGeometry, transform t: PixelTransform, clip: Box,
                                to path: inout PixelPath) {
        let worldClip = t.worldBox(ofPixels: clip)
        guard geometry.box.intersects(worldClip) else { return }
        path.closed = geometry.isPolygon
        for part in geometry.parts where part.box.intersects(worldClip) {
            if geometry.isPolygon {
                appendRing(geometry, part, t, clip, worldClip, &path)
            } else {
                appendLine(geometry, part, t, clip, worldClip, &path)
            }
        }
    }

    private mutating func appendRing(_ g: IndexedGeometry, _ part: IndexedGeometry.Part, _ world: PixelTransform,
                                     _ clip: Box, _ worldClip: Box, _ path: inout PixelPath) {
        let t = world.folding(g)
        bufX.removeAll(keepingCapacity: true)
        bufY.removeAll(keepingCapacity: true)
        let inside = worldClip.contains(part.box)
        var chunk = part.firstChunk
        var i = part.start
        while i < part.end {
            let j = min(i + IndexedGeometry.chunkSize, part.end)
            if !inside && g.chunkBoxes[chunk].beyondOneEdge(of: worldClip) {
                // The run lies in a half-plane outside the frame: its ends joined by a segment wind
                // around every visible point exactly as the run did.
                bufX.append(t.x(g.qx[i], g.qy[i])); bufY.append(t.y(g.qx[i], g.qy[i]))
                bufX.append(t.x(g.qx[j - 1], g.qy[j - 1])); bufY.append(t.y(g.qx[j - 1], g.qy[j - 1]))
            } else {
                for v in i..<j {
                    bufX.append(t.x(g.qx[v], g.qy[v]))
                    bufY.append(t.y(g.qx[v], g.qy[v]))
                }
            }
            i = j
            chunk += 1
        }
        if !inside { clipPolygon(to: clip) }
        appendThinnedRing(to: &path)
    }

    /// Appends the ring in `bufX/bufY` to `path`, thinned: a point is kept only when it moves at least
    /// `tolerance` from the last kept one; a ring left with fewer than 3 points is dropped.
    mutating func appendThinnedRing(to path: inout PixelPath) {
        guard bufX.count >= 3 else { return }
        let start = path.xs.count
        var lx = bufX[0], ly = bufY[0]
        path.xs.append(lx); path.ys.append(ly)
        for k in 1..<bufX.count {
            let x = bufX[k], y = bufY[k]
            if abs(x - lx) >= tolerance || abs(y - ly) >= tolerance {
                path.xs.append(x); path.ys.append(y)
                lx = x; ly = y
            }
        }
        if path.xs.count - start >= 3 {
            path.starts.append(start)
        } else {
            path.xs.removeSubrange(start...)
            path.ys.removeSubrange(start...)
        }
    }

    /// Sutherland-Hodgman against the four edges of `clip`, on `bufX/bufY`.
    mutating func clipPolygon(to clip: Box) {
        clipEdge(axisX: true, limit: clip.minX, keepGreater: true)
        clipEdge(axisX: true, limit: clip.maxX, keepGreater: false)
        clipEdge(axisX: false, limit: clip.minY, keepGreater: true)
        clipEdge(axisX: false, limit: clip.maxY, keepGreater: false)
    }

    private mutating func clipEdge(axisX: Bool, limit: Double, keepGreater: Bool) {
        let n = bufX.count
        guard n > 0 else { return }
        tmpX.removeAll(keepingCapacity: true)
        tmpY.removeAll(keepingCapacity: true)
        @inline(__always) func isIn(_ x: Double, _ y: Double) -> Bool {
            let v = axisX ? x : y
            return keepGreater ? v >= limit : v <= limit
        }
        var px = bufX[n - 1], py = bufY[n - 1]
        var pIn = isIn(px, py)
        for k in 0..<n {
            let cx = bufX[k], cy = bufY[k]
            let cIn = isIn(cx, cy)
            if cIn != pIn {
                if axisX {
                    let f = (limit - px) / (cx - px)
                    tmpX.append(limit); tmpY.append(py + f * (cy - py))
                } else {
                    let f = (limit - py) / (cy - py)
                    tmpX.append(px + f * (cx - px)); tmpY.append(limit)
                }
            }
            if cIn { tmpX.append(cx); tmpY.append(cy) }
            px = cx; py = cy; pIn = cIn
        }
        swap(&bufX, &tmpX)
        swap(&bufY, &tmpY)
    }

    private mutating func appendLine(_ g: IndexedGeometry, _ part: IndexedGeometry.Part, _ world: PixelTransform,
                                     _ clip: Box, _ worldClip: Box, _ path: inout PixelPath) {
        let t = world.folding(g)
        var lines = LineEmitter(clip: clip, tolerance: tolerance)
        var chunk = part.firstChunk
        var i = part.start
        var prevX = t.x(g.qx[part.start], g.qy[part.start]), prevY = t.y(g.qx[part.start], g.qy[part.start])
        // Distances along the line (pixels): from the geometry's own at each run's ends, so that every
        // clipping of the line (each frame's, each tile's) agrees on them.
        let tracks = path.tracksAlong && g.chunkAlong.count == 2 * g.chunkBoxes.count
        let pixelsPerUnit = tracks ? (t.a * t.a + t.c * t.c).squareRoot() : 0
        var prevAlong = 0.0
        while i < part.end {
            let j = min(i + IndexedGeometry.chunkSize, part.end)
            let runStart = tracks ? g.chunkAlong[2 * chunk] * pixelsPerUnit : 0
            if !g.chunkBoxes[chunk].intersects(worldClip) {
                // Only the segment into this run can show; the run itself is off frame.
                let fx = t.x(g.qx[i], g.qy[i]), fy = t.y(g.qx[i], g.qy[i])
                if i > part.start { lines.segment(prevX, prevY, fx, fy, along: prevAlong, runStart, &path) }
                lines.liftPen()
                prevX = t.x(g.qx[j - 1], g.qy[j - 1]); prevY = t.y(g.qx[j - 1], g.qy[j - 1])
                if tracks { prevAlong = g.chunkAlong[2 * chunk + 1] * pixelsPerUnit }
            } else if tracks {
                var d = runStart
                if i > part.start {
                    let x = t.x(g.qx[i], g.qy[i]), y = t.y(g.qx[i], g.qy[i])
                    lines.segment(prevX, prevY, x, y, along: prevAlong, d, &path)
                    prevX = x; prevY = y
                }
                for v in i + 1..<j {
                    let x = t.x(g.qx[v], g.qy[v]), y = t.y(g.qx[v], g.qy[v])
                    let next = d + ((x - prevX) * (x - prevX) + (y - prevY) * (y - prevY)).squareRoot()
                    lines.segment(prevX, prevY, x, y, along: d, next, &path)
                    prevX = x; prevY = y
                    d = next
                }
                prevAlong = d
            } else {
                for v in i..<j where v > part.start {
                    let x = t.x(g.qx[v], g.qy[v]), y = t.y(g.qx[v], g.qy[v])
                    lines.segment(prevX, prevY, x, y, &path)
                    prevX = x; prevY = y
                }
            }
            i = j
            chunk += 1
        }
        lines.finish(&path)
    }
}

/// Liang-Barsky: the visible parameter interval of the segment (ax, ay) + t (dx, dy), t in [0, 1], or nil.
@inline(__always)
func clipSegment(_ ax: Double, _ ay: Double, _ dx: Double, _ dy: Double, _ clip: Box) -> (Double, Double)? {
    var t0 = 0.0, t1 = 1.0
    @inline(__always) func edge(_ p: Double, _ q: Double) -> Bool {
        if p == 0 { return q >= 0 }
        let r = q / p
        if p < 0 {
            if r > t1 { return false }
            if r > t0 { t0 = r }
        } else {
            if r < t0 { return false }
            if r < t1 { t1 = r }
        }
        return true
    }
    guard edge(-dx, ax - clip.minX), edge(dx, clip.maxX - ax),
          edge(-dy, ay - clip.minY), edge(dy, clip.maxY - ay) else { return nil }
    return (t0, t1)
}
