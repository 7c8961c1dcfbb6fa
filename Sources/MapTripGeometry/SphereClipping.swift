import Foundation

/// Polygons or polylines on the unit sphere, for the globe: each vertex as a unit vector (x towards
/// 0°E, y towards 90°E, z north), with a bounding cap per run of `IndexedGeometry.chunkSize` vertices,
/// so that a frame skips what lies on the far side or off the frame. Built once per detail level.
public struct SphereGeometry: Sendable {
    public struct Part: Sendable {
        public var start: Int
        public var end: Int
        public var firstChunk: Int
        /// A cap holding the whole part.
        public var cap: Cap
    }

    /// A cap holding a chunk: its centre (a unit vector) and angular radius.
    public struct Cap: Sendable {
        public var x, y, z: Double
        public var radius: Double
        public var sinRadius: Double
    }

    public let isPolygon: Bool
    public let xs: [Double], ys: [Double], zs: [Double]
    public let parts: [Part]
    public let caps: [Cap]

    /// The geometry of a Web Mercator unit-world `IndexedGeometry`, on the sphere.
    public init(_ g: IndexedGeometry) {
        var xs = [Double](), ys = [Double](), zs = [Double]()
        xs.reserveCapacity(g.vertexCount)
        ys.reserveCapacity(g.vertexCount)
        zs.reserveCapacity(g.vertexCount)
        for i in 0..<g.vertexCount {
            let lon = (g.x(i) * 360 - 180) * .pi / 180
            let lat = atan(sinh(.pi * (1 - 2 * g.y(i))))
            xs.append(cos(lat) * cos(lon))
            ys.append(cos(lat) * sin(lon))
            zs.append(sin(lat))
        }
        var parts: [Part] = [], caps: [Cap] = []
        for part in g.parts {
            let firstChunk = caps.count
            var i = part.start
            while i < part.end {
                let j = min(i + IndexedGeometry.chunkSize, part.end)
                var cx = 0.0, cy = 0.0, cz = 0.0
                for v in i..<j { cx += xs[v]; cy += ys[v]; cz += zs[v] }
                let n = (cx * cx + cy * cy + cz * cz).squareRoot()
                if n > 1e-12 { cx /= n; cy /= n; cz /= n } else { cx = xs[i]; cy = ys[i]; cz = zs[i] }
                var minDot = 1.0
                for v in i..<j { minDot = min(minDot, cx * xs[v] + cy * ys[v] + cz * zs[v]) }
                // A hair wider than the vertices, so rounding never puts one outside its cap.
                let r = acos(max(-1, min(1, minDot))) + 1e-9
                caps.append(Cap(x: cx, y: cy, z: cz, radius: r, sinRadius: sin(min(r, .pi / 2))))
                i = j
            }
            // The part's cap: about the mean of its chunks' centres, wide enough for every chunk.
            var px = 0.0, py = 0.0, pz = 0.0
            for c in caps[firstChunk...] { px += c.x; py += c.y; pz += c.z }
            let n = (px * px + py * py + pz * pz).squareRoot()
            if n > 1e-12 { px /= n; py /= n; pz /= n } else { px = 1; py = 0; pz = 0 }
            var r = 0.0
            for c in caps[firstChunk...] {
                r = max(r, acos(max(-1, min(1, px * c.x + py * c.y + pz * c.z))) + c.radius)
            }
            r = min(r, .pi)
            parts.append(Part(start: part.start, end: part.end, firstChunk: firstChunk,
                              cap: Cap(x: px, y: py, z: pz, radius: r, sinRadius: sin(min(r, .pi / 2)))))
        }
        self.xs = xs
        self.ys = ys
        self.zs = zs
        self.parts = parts
        self.caps = caps
        isPolygon = g.isPolygon
    }

    public var vertexCount: Int { xs.count }

    /// The part at which the parts' vertices are split about in half (for two threads).
    public var middlePart: Int {
        var count = 0
        for (k, part) in parts.enumerated() {
            count += part.end - part.start
            if 2 * count >= vertexCount { return k + 1 }
        }
        return parts.count
    }
}

/// The globe's picture of the sphere: the orthographic view of a `Viewport`, in frame pixels.
struct GlobePicture {
    let view: Orthographic
    /// View (x, y) to pixels: px = x * a + y * b + ox, py = x * c + y * d + oy.
    let a: Double, b: Double, c: Double, d: Double, ox: Double, oy: Double
    /// The disc's radius in pixels.
    let radius: Double
    /// The largest angle between limb points joined by a straight chord (a quarter pixel inside).
    let limbStep: Double

    init(_ viewport: Viewport) {
        view = viewport.orthographic ?? Orthographic(center: viewport.camera.center)
        // The viewport's own transform of the view plane (y north) to frame pixels.
        let t = viewport.transform
        a = t.a
        b = t.b
        c = t.c
        d = t.d
        ox = t.offsetX
        oy = t.offsetY
        let k = viewport.globeRadius
        radius = k
        limbStep = max(0.002, 2 * acos(max(0, 1 - 0.25 / max(k, 1e-9))))
    }

    @inline(__always) func px(_ x: Double, _ y: Double) -> Double { x * a + y * b + ox }
    @inline(__always) func py(_ x: Double, _ y: Double) -> Double { x * c + y * d + oy }
}

extension PathClipper {
    /// Appends what `geometry` shows on the globe of `viewport` inside `clip` (frame pixels) to
    /// `path`: only the near hemisphere, cut exactly at the horizon. A polygon's edge that runs on
    /// the far side is drawn along the limb at the same azimuth, so each ring winds around every
    /// visible point exactly as it does on the sphere (and a ring whose inside holds the point
    /// opposite the camera gets the limb circle added back, since that is the one point the picture
    /// cannot show). `parts`: only these parts (nil: all).
    public mutating func appendGlobe(_ geometry: SphereGeometry, viewport: Viewport, clip: Box,
                                     parts: Range<Int>? = nil, to path: inout PixelPath) {
        let picture = GlobePicture(viewport)
        path.closed = geometry.isPolygon
        for part in geometry.parts[parts ?? geometry.parts.indices] {
            // A part wholly on the far side (clear of the antipode, so it cannot wind around it) or
            // wholly off the frame adds nothing.
            let (back, off) = classify(part.cap, picture, clip)
            if back || off { continue }
            if geometry.isPolygon {
                appendGlobeRing(geometry, part, picture, clip, &path)
            } else {
                appendGlobeLine(geometry, part, picture, clip, &path)
            }
        }
    }

    /// Whether chunk `k` lies wholly on the far side, clear of the point opposite the camera (so its
    /// picture on the limb is the short arc between its ends); and wholly in front but off the frame.
    private func classify(_ g: SphereGeometry, chunk k: Int, _ p: GlobePicture, _ clip: Box)
        -> (back: Bool, offFrame: Bool) {
        classify(g.caps[k], p, clip)
    }

    private func classify(_ cap: SphereGeometry.Cap, _ p: GlobePicture, _ clip: Box) -> (back: Bool, offFrame: Bool) {
        guard cap.radius < .pi / 2 else { return (false, false) }
        let v = p.view.view(x: cap.x, y: cap.y, z: cap.z)
        if v.z < -cap.sinRadius {
            // Angle from the antipode: acos(-z); clear of it by 5 degrees more than the cap.
            let clear = cap.radius + 0.0873 < .pi && -v.z < cos(cap.radius + 0.0873)
            return (clear, false)
        }
        if v.z > cap.sinRadius {
            // The cap's picture lies within the circle of radius r (chord <= arc) about its centre's.
            let x = p.px(v.x, v.y), y = p.py(v.x, v.y), r = p.radius * cap.radius
            let off = x + r < clip.minX || x - r > clip.maxX || y + r < clip.minY || y - r > clip.maxY
            return (false, off)
        }
        return (false, false)
    }

    private mutating func appendGlobeRing(_ g: SphereGeometry, _ part: SphereGeometry.Part, _ p: GlobePicture,
                                          _ clip: Box, _ path: inout PixelPath) {
        var ring = GlobeRing(picture: p)
        // Reuse the clipper's buffers (no allocation per ring).
        swap(&ring.xs, &bufX)
        swap(&ring.ys, &bufY)
        ring.xs.removeAll(keepingCapacity: true)
        ring.ys.removeAll(keepingCapacity: true)
        g.xs.withUnsafeBufferPointer { xs in
            g.ys.withUnsafeBufferPointer { ys in
                g.zs.withUnsafeBufferPointer { zs in
                    var chunk = part.firstChunk
                    var i = part.start
                    while i < part.end {
                        let j = min(i + IndexedGeometry.chunkSize, part.end)
                        let (back, off) = classify(g, chunk: chunk, p, clip)
                        if back || off {
                            ring.visit(xs[i], ys[i], zs[i])
                            if j - 1 > i { ring.visit(xs[j - 1], ys[j - 1], zs[j - 1]) }
                        } else {
                            for v in i..<j { ring.visit(xs[v], ys[v], zs[v]) }
                        }
                        i = j
                        chunk += 1
                    }
                    // Close the ring (shapefile rings repeat their first vertex; this makes sure).
                    ring.visit(xs[part.start], ys[part.start], zs[part.start])
                    ring.flushLimb()
                }
            }
        }
        swap(&ring.xs, &bufX)
        swap(&ring.ys, &bufY)

        // Each ring should add its orientation's winding (±1) inside the smaller region it bounds, D,
        // as the planar renderer does. The picture does so everywhere on the disc, less one whole
        // winding when D holds the antipode (the one point the picture cannot show): add it back.
        let d = ring.antipodeInside
        if ring.allBack {
            // All on the limb: the near side is wholly in D or wholly out of it.
            let total = ring.winding + (d.inside ? d.orientation : 0)
            guard total != 0 else { return }
            bufX.removeAll(keepingCapacity: true)
            bufY.removeAll(keepingCapacity: true)
            circle(clockwise: total < 0, p)
            finishRing(clip, &path)
            return
        }
        finishRing(clip, &path)
        if d.inside {
            bufX.removeAll(keepingCapacity: true)
            bufY.removeAll(keepingCapacity: true)
            circle(clockwise: d.orientation < 0, p)
            finishRing(clip, &path)
        }
    }

    /// The whole limb as a ring, clockwise on the sphere seen from outside (decreasing angle).
    private mutating func circle(clockwise: Bool, _ p: GlobePicture) {
        let n = max(64, Int((2 * Double.pi / p.limbStep).rounded(.up)))
        for s in 0...n {
            let t = (clockwise ? -1.0 : 1.0) * 2 * .pi * Double(s) / Double(n)
            bufX.append(p.px(cos(t), sin(t)))
            bufY.append(p.py(cos(t), sin(t)))
        }
    }

    /// Clips `bufX/bufY` to `clip` when it reaches beyond it, thins it and appends it to `path`.
    mutating func finishRing(_ clip: Box, _ path: inout PixelPath) {
        var box = Box.empty
        for k in 0..<bufX.count { box.add(bufX[k], bufY[k]) }
        if !clip.contains(box) { clipPolygon(to: clip) }
        appendThinnedRing(to: &path)
    }

    private mutating func appendGlobeLine(_ g: SphereGeometry, _ part: SphereGeometry.Part, _ p: GlobePicture,
                                          _ clip: Box, _ path: inout PixelPath) {
        var lines = LineEmitter(clip: clip, tolerance: tolerance)
        var havePrevious = false
        var px = 0.0, py = 0.0, pz = 0.0
        func visit(_ i: Int) {
            let v = p.view.view(x: g.xs[i], y: g.ys[i], z: g.zs[i])
            if havePrevious {
                if pz >= 0 && v.z >= 0 {
                    lines.segment(p.px(px, py), p.py(px, py), p.px(v.x, v.y), p.py(v.x, v.y), &path)
                } else if (pz >= 0) != (v.z >= 0) {
                    let t = pz / (pz - v.z)
                    var mx = px + t * (v.x - px), my = py + t * (v.y - py)
                    let n = hypot(mx, my)
                    if n > 0 { mx /= n; my /= n }
                    if pz >= 0 {
                        lines.segment(p.px(px, py), p.py(px, py), p.px(mx, my), p.py(mx, my), &path)
                        lines.liftPen()
                    } else {
                        lines.liftPen()
                        lines.segment(p.px(mx, my), p.py(mx, my), p.px(v.x, v.y), p.py(v.x, v.y), &path)
                    }
                }
            }
            px = v.x; py = v.y; pz = v.z
            havePrevious = true
        }
        var chunk = part.firstChunk
        var i = part.start
        while i < part.end {
            let j = min(i + IndexedGeometry.chunkSize, part.end)
            let (back, off) = classify(g, chunk: chunk, p, clip)
            if back || off {
                // Only the segment into this run can show; the run itself is hidden or off frame.
                visit(i)
                lines.liftPen()
                havePrevious = false
                visit(j - 1)
            } else {
                for v in i..<j { visit(v) }
            }
            i = j
            chunk += 1
        }
        lines.finish(&path)
    }
}

/// A ring's picture on the globe, built vertex by vertex: front vertices where they show, far-side
/// ones on the limb at their azimuth (with the limb's arc between limb points), the exact horizon
/// where an edge crosses it; and the ring's winding about the view axis.
struct GlobeRing {
    let p: GlobePicture
    var xs: [Double] = [], ys: [Double] = []
    private var lastLimb = Double.nan
    private var runStart = 0.0, runSweep = 0.0
    private var havePrevious = false
    private var px = 0.0, py = 0.0, pz = 0.0
    private(set) var allBack = true
    /// Signed crossings of the ray y = 0, x > 0 by the ring's (x, y).
    private(set) var winding = 0
    /// Twice the signed area the ring encloses in the Lambert azimuthal equal-area view about the
    /// camera (which keeps areas: the sphere's 4π maps to a disc of radius 2), avoiding the antipode.
    private var laeaArea2 = 0.0
    private var lx = 0.0, ly = 0.0

    /// Whether the smaller region the ring bounds holds the antipode, and the ring's orientation
    /// about that region (+1 counter-clockwise seen from outside the sphere).
    var antipodeInside: (inside: Bool, orientation: Int) {
        // The LAEA picture encloses the side without the antipode; when that is the larger side
        // (more than 2π of the sphere's 4π), the smaller one holds the antipode, traversed the other way.
        let area = abs(laeaArea2) / 2
        let sign = laeaArea2 >= 0 ? 1 : -1
        return area >= 2 * .pi ? (true, -sign) : (false, sign)
    }

    init(picture: GlobePicture) { p = picture }

    @inline(__always)
    mutating func visit(_ ex: Double, _ ey: Double, _ ez: Double) {
        let v = p.view.view(x: ex, y: ey, z: ez)
        let k = (2 / max(1 + v.z, 1e-12)).squareRoot()
        let qx = k * v.x, qy = k * v.y
        if havePrevious {
            laeaArea2 += lx * qy - qx * ly
            if (py < 0) != (v.y < 0) {
                let x = px + (0 - py) / (v.y - py) * (v.x - px)
                if x > 0 { winding += v.y >= 0 ? 1 : -1 }
            }
            if (pz >= 0) != (v.z >= 0) {
                // The horizon between them: where z = 0 on the chord, seen along the view axis.
                let t = pz / (pz - v.z)
                let mx = px + t * (v.x - px), my = py + t * (v.y - py)
                if mx != 0 || my != 0 { limb(atan2(my, mx)) }
            }
        }
        if v.z >= 0 {
            allBack = false
            flushLimb()
            xs.append(p.px(v.x, v.y))
            ys.append(p.py(v.x, v.y))
        } else if v.x != 0 || v.y != 0 {
            limb(atan2(v.y, v.x))
        }
        px = v.x; py = v.y; pz = v.z
        lx = qx; ly = qy
        havePrevious = true
    }

    /// The ring reaches the limb at `angle`: a run along the limb goes on, keeping only its net sweep
    /// (back and forth along the limb adds edges to rasterise but nothing to any winding).
    mutating func limb(_ angle: Double) {
        if lastLimb.isNaN {
            runStart = angle
            runSweep = 0
        } else {
            var delta = angle - lastLimb
            if delta > .pi { delta -= 2 * .pi } else if delta < -.pi { delta += 2 * .pi }
            runSweep += delta
        }
        lastLimb = angle
    }

    /// Ends a run along the limb: its arc, from where it began by its net sweep, as chords a quarter
    /// pixel inside at most.
    mutating func flushLimb() {
        guard !lastLimb.isNaN else { return }
        let steps = Int(abs(runSweep) / p.limbStep)
        for s in 0...(steps + 1) {
            let t = runStart + runSweep * Double(s) / Double(steps + 1)
            xs.append(p.px(cos(t), sin(t)))
            ys.append(p.py(cos(t), sin(t)))
        }
        lastLimb = .nan
    }
}

/// Emits polylines clipped to a box (Liang-Barsky), joining segments that continue one another and
/// dropping points closer than `tolerance` to the last one kept. Used by the planar and the globe
/// clippers alike.
struct LineEmitter {
    let clip: Box
    let tolerance: Double
    private var penDown = false
    private var lx = 0.0, ly = 0.0

    init(clip: Box, tolerance: Double) {
        self.clip = clip
        self.tolerance = tolerance
    }

    mutating func liftPen() { penDown = false }

    /// The segment a-b, clipped; with `path.tracksAlong`, `a0` and `a1` are the distances along the
    /// line at a and b, recorded for the points kept (interpolated where the clip cuts it).
    @inline(__always)
    mutating func segment(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ path: inout PixelPath) {
        segment(ax, ay, bx, by, along: 0, 0, &path)
    }

    mutating func segment(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, along a0: Double,
                          _ a1: Double, _ path: inout PixelPath) {
        let dx = bx - ax, dy = by - ay
        guard let (t0, t1) = clipSegment(ax, ay, dx, dy, clip) else { penDown = false; return }
        let sx = ax + t0 * dx, sy = ay + t0 * dy, ex = ax + t1 * dx, ey = ay + t1 * dy
        if !penDown || t0 > 0 {
            path.starts.append(path.xs.count)
            path.xs.append(sx); path.ys.append(sy)
            if path.tracksAlong { path.along.append(a0 + t0 * (a1 - a0)) }
            lx = sx; ly = sy
            penDown = true
        }
        if abs(ex - lx) >= tolerance || abs(ey - ly) >= tolerance || t1 < 1 {
            path.xs.append(ex); path.ys.append(ey)
            if path.tracksAlong { path.along.append(a0 + t1 * (a1 - a0)) }
            lx = ex; ly = ey
        }
        if t1 < 1 { penDown = false }
    }

    /// Drops a trailing sub-path of a single point (it makes no line); call it once the part is done.
    func finish(_ path: inout PixelPath) {
        if let last = path.starts.last, path.xs.count - last < 2 {
            path.starts.removeLast()
            path.xs.removeSubrange(last...)
            path.ys.removeSubrange(last...)
            if path.along.count > last { path.along.removeSubrange(last...) }
        }
    }
}
