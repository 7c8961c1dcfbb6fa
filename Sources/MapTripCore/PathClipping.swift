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
    public let xs: [Double]
    public let ys: [Double]
    public let parts: [Part]
    public let chunkBoxes: [Box]
    public let box: Box

    /// `partStarts[k]` begins part k; the last part runs to the end of `xs`.
    public init(xs: [Double], ys: [Double], partStarts: [Int], isPolygon: Bool) {
        self.xs = xs
        self.ys = ys
        self.isPolygon = isPolygon
        var parts: [Part] = []
        var chunks: [Box] = []
        var all = Box.empty
        parts.reserveCapacity(partStarts.count)
        for (k, start) in partStarts.enumerated() {
            let end = k + 1 < partStarts.count ? partStarts[k + 1] : xs.count
            var partBox = Box.empty
            let firstChunk = chunks.count
            var i = start
            while i < end {
                let j = min(i + Self.chunkSize, end)
                var b = Box.empty
                for v in i..<j { b.add(xs[v], ys[v]) }
                chunks.append(b)
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
        self.box = all
    }

    public var vertexCount: Int { xs.count }
}

/// Unit world to frame pixels: `px = x * a + y * b + offsetX`, `py = x * c + y * d + offsetY`: a scale,
/// turned by the view's bearing. North up, `b` and `c` are 0 and this is `x * scale + offsetX`.
public struct PixelTransform: Equatable, Sendable {
    public var scale: Double
    public var a: Double, b: Double, c: Double, d: Double
    public var offsetX: Double
    public var offsetY: Double

    public init(scale: Double, offsetX: Double, offsetY: Double) {
        self.scale = scale
        a = scale
        b = 0
        c = 0
        d = scale
        self.offsetX = offsetX
        self.offsetY = offsetY
    }

    /// The unit world scaled by `scale` about (centerX, centerY), turned by the bearing (cos, sin)
    /// and placed at frame pixel (frameX, frameY).
    public init(scale s: Double, cos: Double, sin: Double, centerX: Double, centerY: Double, frameX: Double,
                frameY: Double) {
        if sin == 0 && cos == 1 {
            self.init(scale: s, offsetX: frameX - centerX * s, offsetY: frameY - centerY * s)
        } else {
            let a = s * cos, b = s * sin, c = -s * sin, d = s * cos
            self.init(scale: s, offsetX: frameX - (centerX * a + centerY * b), offsetY: frameY - (centerX * c + centerY * d))
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }
    }

    /// This transform moved `dx` unit worlds east (another copy of the world).
    public func shifted(worlds dx: Double) -> PixelTransform {
        var t = self
        t.offsetX += dx * a
        t.offsetY += dx * c
        return t
    }

    /// Whether the map turns.
    public var isRotated: Bool { b != 0 || c != 0 }

    @inline(__always) public func x(_ x: Double, _ y: Double) -> Double { x * a + y * b + offsetX }
    @inline(__always) public func y(_ x: Double, _ y: Double) -> Double { x * c + y * d + offsetY }

    /// The transforms for a Web Mercator viewport: one per copy of the world it shows (several near
    /// the antimeridian or when zoomed far out).
    public static func copies(for viewport: Viewport) -> [PixelTransform] {
        let b = viewport.worldBounds
        let t = viewport.transform
        let first = Int((b.minX).rounded(.down)), last = Int((b.maxX).rounded(.down))
        return (first...last).map { k in t.shifted(worlds: Double(k)) }
    }

    /// The unit-world box that maps onto a pixel box (the bounding box of it, when turned).
    public func worldBox(ofPixels p: Box) -> Box {
        if !isRotated {
            return Box(minX: (p.minX - offsetX) / scale, minY: (p.minY - offsetY) / scale,
                       maxX: (p.maxX - offsetX) / scale, maxY: (p.maxY - offsetY) / scale)
        }
        let det = a * d - b * c
        var box = Box.empty
        for (px, py) in [(p.minX, p.minY), (p.maxX, p.minY), (p.minX, p.maxY), (p.maxX, p.maxY)] {
            let u = px - offsetX, v = py - offsetY
            box.add((d * u - b * v) / det, (-c * u + a * v) / det)
        }
        return box
    }
}

/// Paths in frame pixels, ready for the rasteriser: `starts[k]` begins sub-path k.
public struct PixelPath: Sendable {
    public var xs: [Double] = []
    public var ys: [Double] = []
    public var starts: [Int] = []
    public var closed: Bool = false

    public init() {}

    public mutating func removeAll() {
        xs.removeAll(keepingCapacity: true)
        ys.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
    }

    public var subpathCount: Int { starts.count }
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

    private mutating func appendRing(_ g: IndexedGeometry, _ part: IndexedGeometry.Part, _ t: PixelTransform,
                                     _ clip: Box, _ worldClip: Box, _ path: inout PixelPath) {
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
                bufX.append(t.x(g.xs[i], g.ys[i])); bufY.append(t.y(g.xs[i], g.ys[i]))
                bufX.append(t.x(g.xs[j - 1], g.ys[j - 1])); bufY.append(t.y(g.xs[j - 1], g.ys[j - 1]))
            } else {
                for v in i..<j {
                    bufX.append(t.x(g.xs[v], g.ys[v]))
                    bufY.append(t.y(g.xs[v], g.ys[v]))
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

    private mutating func appendLine(_ g: IndexedGeometry, _ part: IndexedGeometry.Part, _ t: PixelTransform,
                                     _ clip: Box, _ worldClip: Box, _ path: inout PixelPath) {
        var lines = LineEmitter(clip: clip, tolerance: tolerance)
        var chunk = part.firstChunk
        var i = part.start
        var prevX = t.x(g.xs[part.start], g.ys[part.start]), prevY = t.y(g.xs[part.start], g.ys[part.start])
        while i < part.end {
            let j = min(i + IndexedGeometry.chunkSize, part.end)
            if !g.chunkBoxes[chunk].intersects(worldClip) {
                // Only the segment into this run can show; the run itself is off frame.
                let fx = t.x(g.xs[i], g.ys[i]), fy = t.y(g.xs[i], g.ys[i])
                if i > part.start { lines.segment(prevX, prevY, fx, fy, &path) }
                lines.liftPen()
                prevX = t.x(g.xs[j - 1], g.ys[j - 1]); prevY = t.y(g.xs[j - 1], g.ys[j - 1])
            } else {
                for v in i..<j where v > part.start {
                    let x = t.x(g.xs[v], g.ys[v]), y = t.y(g.xs[v], g.ys[v])
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
