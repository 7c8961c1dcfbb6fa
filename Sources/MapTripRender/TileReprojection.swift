import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTiles
import RasterKernels

// Raster tiles on any projection.
//
// Tiles are Web Mercator by nature. A viewport that is not plain, north-up Web Mercator (the globe,
// a PROJ plane, a turned Mercator map) is drawn by *reprojection*: every frame pixel is sampled,
// bilinearly, from the decoded tiles at the position the inverse projection gives for it.
//
// * **Mesh**: the inverse (`Viewport.location(atPixel:)`, a PROJ call on planes) is evaluated on a
//   coarse mesh, every 64 px plus the frame's right and bottom edges, and at every cell's edge
//   midpoints and centre. A cell whose midpoints lie within a quarter of a frame pixel of the
//   bilinear interpolation of its corners is interpolated; otherwise it is split in four (32, 16, 8,
//   4 px), and the last resort is one inverse per pixel. Cells the projection only partly covers
//   (a domain's edge) are evaluated per pixel; on the globe, cells across the limb are split down to
//   8 px first, and the limb is antialiased by the pixel's coverage of the disc.
// * **Fill**: row by row, each cell's row walks the texels of its level in fixed point (global
//   texel coordinates, so finding the tile and the texel are shifts and masks), in runs that stay
//   inside one tile, with SIMD bilinear mixing; a pixel between runs (a tile's edge, a stand-in,
//   the pole) takes the general path. Two threads take alternate groups of rows.
// * **Level**: each cell picks its tile zoom from its own scale (the unit world per frame pixel
//   along the finer axis, from the cell's Jacobian), as `TileMath.tileZoom` does for the whole frame
//   on a flat map: tiles are scaled down, not blurred up, and the next level fades in over the first
//   `crossFade` of a zoom level.
// * **Poles**: beyond Web Mercator's ±85.0511 degrees the frame shows `polar` (the edge antialiased);
//   outside a projection's domain too. On the globe, space and the atmosphere are drawn first and the rim over the disc.
// * **Still frames**: when a view repeats, its second frame is kept and copied back while it stays.

extension TileBaseMap {
    /// Whether a viewport is drawn by reprojection (anything but plain, north-up Web Mercator).
    public static func needsReprojection(_ viewport: Viewport) -> Bool {
        if case .webMercator = viewport.projection { return viewport.isRotated }
        return true
    }

    // MARK: Planning

    /// The tiles a reprojected viewport needs (covered by the source, deduplicated); `overflow` when
    /// it needs more than `maxTilesPerFrame` (the frame is then drawn without tiles).
    func reprojectedTiles(for viewport: Viewport) -> (keys: [TileKey], overflow: Bool) {
        tiles(for: planReprojection(viewport))
    }

    func planReprojection(_ viewport: Viewport) -> ReprojectionPlan {
        var planner = ReprojectionPlanner(viewport: viewport, tileSize: source.tileSize, minZoom: source.minZoom,
                                          maxZoom: source.maxZoom, crossFade: crossFade)
        return planner.plan()
    }

    private func tiles(for plan: ReprojectionPlan) -> (keys: [TileKey], overflow: Bool) {
        var seen = Set<TileKey>()
        var out: [TileKey] = []
        var overflow = false
        var lastRange: TileRange?
        func add(_ key: TileKey) {
            if seen.insert(key).inserted, source.covers(key) { out.append(key) }
        }
        cells: for cell in plan.cells {
            let c = cell.corners
            var box = (minX: c.0.x, minY: c.0.y, maxX: c.0.x, maxY: c.0.y)
            for p in [c.1, c.2, c.3] {
                box.minX = min(box.minX, p.x); box.maxX = max(box.maxX, p.x)
                box.minY = min(box.minY, p.y); box.maxY = max(box.maxY, p.y)
            }
            if box.maxY <= 0 || box.minY >= 1 { continue }  // all polar
            for (zoom, alpha) in [(cell.levels.z0, cell.levels.a0), (cell.levels.z1, cell.levels.a1)] where alpha > 0 {
                // A texel of margin: bilinear sampling reads the neighbour tile at an edge.
                let pad = 1 / (Double(TileMath.tileCount(zoom: zoom)) * Double(max(source.tileSize, 1)))
                let range = TileMath.tileRange(world: (box.minX - pad, max(box.minY - pad, 0),
                                                       box.maxX + pad, min(box.maxY + pad, 1)), zoom: zoom)
                if range.count > maxTilesPerFrame || out.count > maxTilesPerFrame {
                    overflow = true
                    break cells
                }
                // Neighbouring cells mostly need the same tiles.
                if range == lastRange { continue }
                lastRange = range
                for row in range.rows {
                    for column in range.columns { add(range.key(column: column, row: row)) }
                }
            }
        }
        if !overflow {
            for cell in plan.pixelCells {
                for s in cell.samples where s.coverage > 0 && s.y >= 0 && s.y <= 1 {
                    for level in cell.levels {
                        let n = TileMath.tileCount(zoom: level.zoom)
                        let x = s.x - s.x.rounded(.down)
                        add(TileKey(z: level.zoom, x: min(Int(x * Double(n)), n - 1), y: min(Int(s.y * Double(n)), n - 1)))
                    }
                }
                if out.count > maxTilesPerFrame {
                    overflow = true
                    break
                }
            }
        }
        return (overflow ? [] : out, overflow)
    }

    // MARK: Drawing

    func drawReprojected(_ viewport: Viewport, in cr: Context) throws {
        let surface = cr.surface
        let w = viewport.width, h = viewport.height
        guard surface.width >= w, surface.height >= h else {
            // A target smaller than the view (not how frames are drawn): reproject aside, paint it over.
            let aside = try ImageSurface(width: w, height: h)
            try aside.withContext { try drawReprojected(viewport, in: $0) }
            cr.save()
            cr.setSource(aside, x: 0, y: 0)
            cr.setOperator(.source)
            cr.paint()
            cr.restore()
            return
        }
        let stillKey = ReprojectedFrame.Key(viewport: viewport, polar: polar, background: background, space: space,
                                            atmosphere: atmosphere, polarSouth: polarSouth, crossFade: crossFade)
        let isGlobe: Bool
        if case .globe = viewport.projection { isGlobe = true } else { isGlobe = false }
        // The atmosphere over the globe's edge, last (over the kept pixels too).
        func drawRim() throws {
            guard isGlobe else { return }
            let atmosphere = atmosphere
            try Bands.draw(on: cr, width: w, height: h) { GlobeBackdrop.drawRim(viewport, atmosphere: atmosphere, in: $0) }
        }
        if let still = lastReprojected, still.key == stillKey, still.kept {
            // A still frame: the same pixels again (kept without the rim, drawn over them).
            surface.flush()
            let data = surface.data, stride = surface.stride
            still.pixels.withUnsafeBytes { raw in
                for row in 0..<h {
                    (data + row * stride).update(from: raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * w * 4,
                                                 count: w * 4)
                }
            }
            surface.markDirty()
            try drawRim()
            return
        }
        // The second frame of the same view starts a still stretch: its pixels are kept (keeping
        // every moving frame's would cost a copy each).
        let keep = lastReprojected?.key == stillKey
        reprojectedFrames += 1

        let plan = planReprojection(viewport)
        let (keys, overflow) = tiles(for: plan)
        // Normally a no-op: prepare() fetched everything.
        let unknown = keys.filter { bytes[$0] == nil && failed[$0] == nil }
        if !unknown.isEmpty {
            unpreparedFetches += 1
            fetch(unknown)
            if !strict { fetchStandIns(for: unknown.filter { failed[$0] != nil }) }
        }
        if strict, let why = keys.lazy.compactMap({ self.failed[$0] }).first {
            throw TileError.tilesFailed(count: failed.count, examples: [why])
        }
        if overflow { tooManyTilesFrames += 1 }

        // What the tiles do not cover: space and the atmosphere around the globe, else the polar colour
        // (nothing when the fill writes every pixel: a globe or a plane's domain covering the frame).
        if plan.filled < w * h {
            let space = space, atmosphere = atmosphere, polar = polar
            try Bands.draw(on: cr, width: w, height: h) { cr in
                if isGlobe {
                    // Space first (a globe filling the frame paints only its sea, here transparent).
                    cr.setSource(space)
                    cr.setOperator(.source)
                    cr.paint()
                    cr.setOperator(.over)
                    GlobeBackdrop.draw(viewport, space: space, atmosphere: atmosphere, sea: Color(red: 0, green: 0, blue: 0, alpha: 0),
                                       in: cr)
                } else {
                    cr.setSource(polar)
                    cr.setOperator(.source)
                    cr.paint()
                }
            }
        }

        // The tiles each level needs, decoded (or their stand-ins), resolved once for the frame.
        var resolved: [TileKey: ResolvedTile] = [:]
        var alive: [ImageSurface] = []
        if !overflow {
            for key in keys {
                let r = resolve(key)
                resolved[key] = r.tile
                if let s = r.surface { alive.append(s) }
            }
        }
        defer { withExtendedLifetime(alive) {} }
        let texelSize = resolved.values.lazy.compactMap { r -> Int? in
            if case .texels(let t) = r, t.isTile { return t.width }
            return nil
        }.first ?? source.tileSize
        let sampler = TileSampler(tiles: TileTable(resolved), background: ReprojectionPixel.pack(background),
                                  polar: ReprojectionPixel.pack(polar), polarSouth: ReprojectionPixel.pack(polarSouth ?? polar),
                                  hasTiles: !overflow)
        surface.flush()
        let data = UnsafeMutableRawPointer(surface.data), stride = surface.stride
        // Band by band, row by row (texels and frame pixels are read and written in order); two threads
        // take alternate groups of 8 rows (the tiles are only read).
        let parts = plan.cells.count + plan.pixelCells.count > 64 ? 2 : 1
        let address = UInt(bitPattern: data)
        DrawingThreads.perform(iterations: parts) { k in
            var own = sampler
            let target = UnsafeMutableRawPointer(bitPattern: address)!
            let cells = plan.cells, bands = plan.bands, pixelCells = plan.pixelCells
            // One walk per level (it keeps the tile it is in).
            var walks = (0...TileMath.maxZoom + 1).map { LevelWalk(z: $0, texelSize: texelSize) }  // and a spare
            walks.withUnsafeMutableBufferPointer { walk in
                cells.withUnsafeBufferPointer { cells in
                    for band in bands {
                        guard let top = cells[band].lazy.map(\.py0).min(), let bottom = cells[band].lazy.map(\.py1).max() else { continue }
                        for py in top..<bottom where (py &>> 3) % parts == k {
                            let row = target + py * stride
                            for i in band where cells[i].py0 <= py && py < cells[i].py1 {
                                let levels = cells[i].levels
                                own.fillRow(cells[i], py, &walk[levels.z0], &walk[levels.a1 > 0 ? levels.z1 : TileMath.maxZoom + 1], into: row)
                            }
                        }
                    }
                }
            }
            for i in Swift.stride(from: k, to: pixelCells.count, by: parts) {
                own.fill(pixelCells[i], into: target, stride: stride)
            }
        }
        surface.markDirty()
        // Kept for a still frame (in the same buffer, stretch after stretch), before the rim.
        let kept = lastReprojected ?? ReprojectedFrame(key: stillKey, pixels: [])
        kept.key = stillKey
        kept.kept = keep
        if keep {
            if kept.pixels.count != w * h * 4 { kept.pixels = [UInt8](repeating: 0, count: w * h * 4) }
            kept.pixels.withUnsafeMutableBytes { raw in
                let dst = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                for row in 0..<h { (dst + row * w * 4).update(from: surface.data + row * stride, count: w * 4) }
            }
        }
        lastReprojected = kept
        try drawRim()
    }

    /// A tile as the sampler reads it: its own pixels, an ancestor's, the placeholder, or a colour.
    private func resolve(_ key: TileKey) -> (tile: ResolvedTile, surface: ImageSurface?) {
        switch image(for: key) {
        case .tile(let s):
            return (.texels(TileTexels(surface: s, level: key.z, x: key.x, y: key.y, isTile: true)), s)
        case .ancestor(let s, let k):
            let a = key.ancestor(levels: k)
            return (.texels(TileTexels(surface: s, level: a.z, x: a.x, y: a.y, isTile: false)), s)
        case .placeholder:
            if let p = try? placeholder() {
                return (.texels(TileTexels(surface: p, level: key.z, x: key.x, y: key.y, isTile: false)), p)
            }
            return (.color(ReprojectionPixel.pack(background)), nil)
        case .empty:
            return (.color(ReprojectionPixel.pack(background)), nil)
        }
    }
}

/// The last reprojected frame, for still frames.
final class ReprojectedFrame {
    struct Key: Equatable {
        var viewport: Viewport
        var polar, background, space, atmosphere: Color
        var polarSouth: Color?
        var crossFade: Double
    }
    var key: Key
    var pixels: [UInt8]
    /// Whether `pixels` hold the frame for `key` (a frame seen once is only remembered).
    var kept = false
    init(key: Key, pixels: [UInt8]) {
        self.key = key
        self.pixels = pixels
    }
}

// MARK: - The mesh

/// One tile level of a cell: its zoom and opacity (two levels during a cross-fade).
struct ReprojectionLevel: Equatable {
    var zoom: Int
    var alpha: Double
}

/// A mesh node: the unit-world (Web Mercator) point under a frame position. `y` runs beyond [0, 1]
/// past ±85.05 degrees (latitudes capped at ±89.9 so it stays finite); `x` is unwrapped per cell.
struct MeshNode {
    var x: Double
    var y: Double
    var valid: Bool
    static let invalid = MeshNode(x: 0, y: 0, valid: false)
}

/// A cell's nodes at its corners, edge midpoints and centre, row by row (a value: no allocation).
struct NineNodes {
    private var nodes: (MeshNode, MeshNode, MeshNode, MeshNode, MeshNode, MeshNode, MeshNode, MeshNode, MeshNode)
    init(_ a: MeshNode, _ b: MeshNode, _ c: MeshNode, _ d: MeshNode, _ e: MeshNode, _ f: MeshNode, _ g: MeshNode,
         _ h: MeshNode, _ i: MeshNode) {
        nodes = (a, b, c, d, e, f, g, h, i)
    }
    @inline(__always)
    subscript(_ k: Int) -> MeshNode {
        withUnsafeBytes(of: nodes) { $0.load(fromByteOffset: k * MemoryLayout<MeshNode>.stride, as: MeshNode.self) }
    }
}

/// A rectangle of frame pixels interpolated bilinearly from its four corner nodes.
struct MeshCell {
    /// The pixels it fills: px0..<px1, py0..<py1.
    var px0, px1, py0, py1: Int
    /// The corners' frame positions (pixel centres are at px + 0.5).
    var x0, x1, y0, y1: Double
    /// Top-left, top-right, bottom-left, bottom-right, unwrapped around the first.
    var corners: (MeshNode, MeshNode, MeshNode, MeshNode)
    /// Plain values (no reference counting while a frame is filled).
    var levels: TileSampler.Levels
}

/// A rectangle of frame pixels with the inverse evaluated for each pixel (row by row).
struct PixelCell {
    struct Sample {
        var x: Double
        var y: Double
        /// How much of the pixel the map covers (the globe's limb); 0: none, left to the backdrop.
        var coverage: Float
    }
    var px0, px1, py0, py1: Int
    var samples: [Sample]
    var levels: [ReprojectionLevel]
}

struct ReprojectionPlan {
    /// Mesh cells, band by band of the coarse mesh; in a band, the cells that meet a frame row come
    /// left to right.
    var cells: [MeshCell] = []
    /// Each band's cells.
    var bands: [Range<Int>] = []
    var pixelCells: [PixelCell] = []
    /// How many frame pixels the fill writes outright (the cells', and the pixel cells' samples the
    /// map covers fully).
    var filled = 0
}

/// Builds the mesh of a viewport (see the file's header).
struct ReprojectionPlanner {
    let viewport: Viewport
    let tileSize: Int
    let minZoom: Int
    let maxZoom: Int
    let crossFade: Double
    /// The largest interpolation error allowed, in frame pixels.
    static let tolerance = 0.25
    /// The coarse mesh's spacing.
    static let step = 64

    private let width: Double, height: Double
    private let isGlobe: Bool
    private let cx: Double, cy: Double, radius: Double
    private var result = ReprojectionPlan()
    private var frameLevels: [ReprojectionLevel] = []

    init(viewport: Viewport, tileSize: Int, minZoom: Int, maxZoom: Int, crossFade: Double) {
        self.viewport = viewport
        self.tileSize = tileSize
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.crossFade = crossFade
        width = Double(viewport.width)
        height = Double(viewport.height)
        if case .globe = viewport.projection { isGlobe = true } else { isGlobe = false }
        cx = width / 2
        cy = height / 2
        radius = viewport.globeRadius
    }

    /// The unit-world point under a frame position.
    func node(_ x: Double, _ y: Double) -> MeshNode {
        guard let w = viewport.unitWorld(atPixel: x, y, latitudeCap: 89.9), w.x.isFinite, w.y.isFinite else { return .invalid }
        return MeshNode(x: w.x, y: w.y, valid: true)
    }

    mutating func plan() -> ReprojectionPlan {
        result = ReprojectionPlan()
        frameLevels = centreLevels()
        let w = viewport.width, h = viewport.height
        let step = Self.step
        let nx = (w + step - 1) / step, ny = (h + step - 1) / step
        // Node positions every half cell: even indices are the coarse mesh, odd ones the midpoints.
        func positions(_ n: Int, _ size: Int) -> [Double] {
            var out: [Double] = []
            for i in 0...(2 * n) {
                if i % 2 == 0 {
                    out.append(Double(min(i / 2 * step, size)))
                } else {
                    out.append((Double(min((i - 1) / 2 * step, size)) + Double(min((i + 1) / 2 * step, size))) / 2)
                }
            }
            return out
        }
        let xs = positions(nx, w), ys = positions(ny, h)
        // Two threads plan the top and the bottom half (the inverse is pure, or serialised per PROJ
        // context), and the halves are joined in order.
        let parts = ny >= 4 ? 2 : 1
        var halves = [ReprojectionPlan](repeating: ReprojectionPlan(), count: parts)
        let fresh = self
        halves.withUnsafeMutableBufferPointer { out in
            let address = UInt(bitPattern: out.baseAddress!)
            DrawingThreads.perform(iterations: parts) { k in
                var planner = fresh
                planner.plan(bands: (ny * k / parts)..<(ny * (k + 1) / parts), xs: xs, ys: ys)
                UnsafeMutablePointer<ReprojectionPlan>(bitPattern: address)![k] = planner.result
            }
        }
        result = halves[0]
        for half in halves.dropFirst() {
            let offset = result.cells.count
            result.cells += half.cells
            result.bands += half.bands.map { ($0.lowerBound + offset)..<($0.upperBound + offset) }
            result.pixelCells += half.pixelCells
            result.filled += half.filled
        }
        return result
    }

    /// Plans coarse bands `bands` (rows of the mesh whose node positions are `xs` and `ys`).
    private mutating func plan(bands: Range<Int>, xs: [Double], ys: [Double]) {
        let cols = xs.count, nx = (xs.count - 1) / 2
        guard !bands.isEmpty else { return }
        // Node rows 2k...2k+2 of each band.
        let rowBase = 2 * bands.lowerBound
        var grid = [MeshNode](repeating: .invalid, count: cols * (2 * bands.count + 1))
        for j in 0...(2 * bands.count) {
            for (i, x) in xs.enumerated() { grid[j * cols + i] = node(x, ys[rowBase + j]) }
        }
        for k in bands {
            let first = result.cells.count
            defer { result.bands.append(first..<result.cells.count) }
            for i in 0..<nx {
                let x0 = xs[2 * i], x1 = xs[2 * i + 2], y0 = ys[2 * k], y1 = ys[2 * k + 2]
                if isGlobe {
                    switch discCover(x0, x1, y0, y1) {
                    case .outside: continue
                    case .edge:
                        limb(x0, x1, y0, y1)
                        continue
                    case .inside: break
                    }
                }
                func g(_ a: Int, _ b: Int) -> MeshNode { grid[(2 * (k - bands.lowerBound) + b) * cols + 2 * i + a] }
                refine(x0, x1, y0, y1, NineNodes(g(0, 0), g(1, 0), g(2, 0), g(0, 1), g(1, 1), g(2, 1), g(0, 2), g(1, 2), g(2, 2)))
            }
        }
    }

    // MARK: Cells

    private enum DiscCover { case inside, edge, outside }

    /// Where a frame rectangle lies against the globe's disc (with a pixel of margin for the limb's
    /// antialiasing).
    private func discCover(_ x0: Double, _ x1: Double, _ y0: Double, _ y1: Double) -> DiscCover {
        let nearX = min(max(cx, x0), x1) - cx, nearY = min(max(cy, y0), y1) - cy
        if (nearX * nearX + nearY * nearY).squareRoot() > radius + 1 { return .outside }
        let farX = max(abs(x0 - cx), abs(x1 - cx)), farY = max(abs(y0 - cy), abs(y1 - cy))
        return (farX * farX + farY * farY).squareRoot() < radius - 1 ? .inside : .edge
    }

    /// A rectangle across the globe's limb: split until the parts inside the disc are meshed and only
    /// small ones across the limb are evaluated per pixel.
    private mutating func limb(_ x0: Double, _ x1: Double, _ y0: Double, _ y1: Double) {
        switch discCover(x0, x1, y0, y1) {
        case .outside: return
        case .inside:
            let xm = (x0 + x1) / 2, ym = (y0 + y1) / 2
            refine(x0, x1, y0, y1, NineNodes(node(x0, y0), node(xm, y0), node(x1, y0), node(x0, ym), node(xm, ym), node(x1, ym),
                                             node(x0, y1), node(xm, y1), node(x1, y1)))
        case .edge:
            if max(x1 - x0, y1 - y0) <= 8 {
                perPixel(x0, x1, y0, y1)
                return
            }
            let xm = ((x0 + x1) / 2).rounded(), ym = ((y0 + y1) / 2).rounded()
            limb(x0, xm, y0, ym)
            limb(xm, x1, y0, ym)
            limb(x0, xm, ym, y1)
            limb(xm, x1, ym, y1)
        }
    }

    /// `nine`: the nodes at the corners, edge midpoints and centre, row by row.
    private mutating func refine(_ x0: Double, _ x1: Double, _ y0: Double, _ y1: Double, _ nine: NineNodes) {
        let px0 = Int((x0 - 0.5).rounded(.up)), px1 = Int((x1 - 0.5).rounded(.up))
        let py0 = Int((y0 - 0.5).rounded(.up)), py1 = Int((y1 - 0.5).rounded(.up))
        if px1 <= px0 || py1 <= py0 { return }
        var valid = 0, below = 0, above = 0
        for k in 0..<9 {
            let n = nine[k]
            if n.valid { valid += 1 }
            if n.y < 0 { below += 1 } else if n.y > 1 { above += 1 }
        }
        if valid == 0 { return }
        if valid < 9 {
            perPixel(x0, x1, y0, y1)
            return
        }
        // Unwrap around the first corner: a cell crossing the antimeridian does not span the world.
        let ref = nine[0].x
        @inline(__always) func n(_ k: Int) -> MeshNode {
            let p = nine[k]
            return MeshNode(x: p.x - (p.x - ref).rounded(), y: p.y, valid: true)
        }
        let c00 = n(0), c10 = n(2), c01 = n(6), c11 = n(8)
        let dx = x1 - x0, dy = y1 - y0
        if below == 9 || above == 9 {
            // All beyond the tiles (around a pole): the interpolation stays there; no need to refine.
            result.cells.append(MeshCell(px0: px0, px1: px1, py0: py0, py1: py1, x0: x0, x1: x1, y0: y0, y1: y1,
                                         corners: (c00, c10, c01, c11), levels: TileSampler.Levels(frameLevels)))
            result.filled += (px1 - px0) * (py1 - py0)
            return
        }
        let j = Jacobian(corners: (c00, c10, c01, c11), dx: dx, dy: dy)
        // The midpoints' error in frame pixels (through the inverse Jacobian).
        @inline(__always) func fits(_ index: Int, _ s: Double, _ t: Double) -> Bool {
            let ix = (c00.x * (1 - s) + c10.x * s) * (1 - t) + (c01.x * (1 - s) + c11.x * s) * t
            let iy = (c00.y * (1 - s) + c10.y * s) * (1 - t) + (c01.y * (1 - s) + c11.y * s) * t
            let m = n(index)
            return j.pixels(m.x - ix, m.y - iy) <= Self.tolerance
        }
        if j.invertible, fits(4, 0.5, 0.5), fits(1, 0.5, 0), fits(3, 0, 0.5), fits(5, 1, 0.5), fits(7, 0.5, 1) {
            result.cells.append(MeshCell(px0: px0, px1: px1, py0: py0, py1: py1, x0: x0, x1: x1, y0: y0, y1: y1,
                                       corners: (c00, c10, c01, c11), levels: TileSampler.Levels(levels(j))))
            result.filled += (px1 - px0) * (py1 - py0)
            return
        }
        if max(dx, dy) <= 5 {
            perPixel(x0, x1, y0, y1)
            return
        }
        // Split in four: the nine nodes are the children's corners; each needs its own midpoints.
        let xm = (x0 + x1) / 2, ym = (y0 + y1) / 2
        for b in 0..<2 {
            for a in 0..<2 {
                let cx0 = a == 0 ? x0 : xm, cx1 = a == 0 ? xm : x1, cy0 = b == 0 ? y0 : ym, cy1 = b == 0 ? ym : y1
                let mx = (cx0 + cx1) / 2, my = (cy0 + cy1) / 2
                let child = NineNodes(nine[b * 3 + a], node(mx, cy0), nine[b * 3 + a + 1],
                                      node(cx0, my), node(mx, my), node(cx1, my),
                                      nine[(b + 1) * 3 + a], node(mx, cy1), nine[(b + 1) * 3 + a + 1])
                refine(cx0, cx1, cy0, cy1, child)
            }
        }
    }

    /// The inverse at every pixel of a rectangle; on the globe, the limb antialiased.
    private mutating func perPixel(_ x0: Double, _ x1: Double, _ y0: Double, _ y1: Double) {
        let px0 = Int((x0 - 0.5).rounded(.up)), px1 = Int((x1 - 0.5).rounded(.up))
        let py0 = Int((y0 - 0.5).rounded(.up)), py1 = Int((y1 - 0.5).rounded(.up))
        if px1 <= px0 || py1 <= py0 { return }
        var samples: [PixelCell.Sample] = []
        samples.reserveCapacity((px1 - px0) * (py1 - py0))
        var any = false, full = 0
        for py in py0..<py1 {
            for px in px0..<px1 {
                var x = Double(px) + 0.5, y = Double(py) + 0.5
                var coverage: Float = 1
                if isGlobe {
                    let ox = x - cx, oy = y - cy
                    let d = (ox * ox + oy * oy).squareRoot()
                    if d >= radius + 0.5 {
                        samples.append(PixelCell.Sample(x: 0, y: 0, coverage: 0))
                        continue
                    }
                    coverage = Float(min(1, radius + 0.5 - d))
                    let inner = max(radius - 0.5, 0)
                    if d > inner {
                        // A pixel across the limb shows the map's edge, pulled just inside.
                        let k = inner / d
                        x = cx + ox * k
                        y = cy + oy * k
                    }
                }
                let n = node(x, y)
                if n.valid {
                    samples.append(PixelCell.Sample(x: n.x, y: n.y, coverage: coverage))
                    any = true
                    if coverage >= 1 { full += 1 }
                } else {
                    samples.append(PixelCell.Sample(x: 0, y: 0, coverage: 0))
                }
            }
        }
        guard any else { return }
        result.filled += full
        let cell = PixelCell(px0: px0, px1: px1, py0: py0, py1: py1, samples: samples, levels: [])
        result.pixelCells.append(PixelCell(px0: px0, px1: px1, py0: py0, py1: py1, samples: samples,
                                         levels: pixelLevels(cell)))
    }

    // MARK: Levels

    /// The unit world's derivatives along frame x and y.
    struct Jacobian {
        var a, b, c, d: Double
        init(a: Double, b: Double, c: Double, d: Double) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }
        /// A cell's mean derivatives, from its corners (top-left, top-right, bottom-left,
        /// bottom-right) over its size in frame pixels.
        init(corners: (MeshNode, MeshNode, MeshNode, MeshNode), dx: Double, dy: Double) {
            let (c00, c10, c01, c11) = corners
            self.init(a: ((c10.x - c00.x) + (c11.x - c01.x)) / (2 * dx), b: ((c01.x - c00.x) + (c11.x - c10.x)) / (2 * dy),
                      c: ((c10.y - c00.y) + (c11.y - c01.y)) / (2 * dx), d: ((c01.y - c00.y) + (c11.y - c10.y)) / (2 * dy))
        }
        var det: Double { a * d - b * c }
        var invertible: Bool {
            let m = max(abs(a), abs(b), abs(c), abs(d))
            return det.isFinite && m > 0 && abs(det) > 1e-12 * m * m
        }
        /// The length, in frame pixels, of a unit-world offset.
        func pixels(_ ex: Double, _ ey: Double) -> Double {
            let D = det
            let u = (d * ex - b * ey) / D, v = (-c * ex + a * ey) / D
            return (u * u + v * v).squareRoot()
        }
        /// Unit world per frame pixel along the finer axis, and the area's mean.
        var scales: (fine: Double, mean: Double) {
            let D = abs(det)
            let longest = max((a * a + c * c).squareRoot(), (b * b + d * d).squareRoot())
            return (D / max(longest, 1e-300), D.squareRoot())
        }
    }

    /// The tile levels for a local scale: the first integer zoom at or above the ideal zoom of the
    /// finer axis (but no more than one above the area's mean, so a squeezed limb does not fetch
    /// deep tiles), clamped to the source, with the next level fading in as on a flat map.
    func levels(_ j: Jacobian) -> [ReprojectionLevel] {
        let s = j.scales
        guard s.fine > 0, s.fine.isFinite, s.mean > 0 else { return frameLevels }
        let t = Double(max(tileSize, 1))
        let ideal = min(log2(1 / (t * s.fine)), log2(1 / (t * s.mean)) + 1)
        return Self.levels(ideal: ideal, minZoom: minZoom, maxZoom: maxZoom, crossFade: crossFade)
    }

    /// As `TileBaseMap.layers(for:)`, for one ideal zoom.
    static func levels(ideal: Double, minZoom: Int, maxZoom: Int, crossFade: Double) -> [ReprojectionLevel] {
        guard ideal.isFinite else { return [ReprojectionLevel(zoom: TileMath.clampZoom(0, minZoom: minZoom, maxZoom: maxZoom), alpha: 1)] }
        let raw = TileMath.ceilZoom(ideal)
        let z = TileMath.clampZoom(raw, minZoom: minZoom, maxZoom: maxZoom)
        if crossFade > 0, raw == z, z - 1 >= minZoom {
            let u = ideal - Double(z - 1)
            if u < crossFade {
                let r = u / crossFade
                let a = r * r * (3 - 2 * r)
                if a < 0.002 { return [ReprojectionLevel(zoom: z - 1, alpha: 1)] }
                if a < 0.998 { return [ReprojectionLevel(zoom: z - 1, alpha: 1), ReprojectionLevel(zoom: z, alpha: a)] }
            }
        }
        return [ReprojectionLevel(zoom: z, alpha: 1)]
    }

    /// The levels at the frame's centre (the fallback where a cell has no usable scale).
    private func centreLevels() -> [ReprojectionLevel] {
        let x = width / 2, y = height / 2
        let o = node(x, y), r = node(x + 1, y), d = node(x, y + 1)
        if o.valid, r.valid, d.valid {
            let rx = r.x - (r.x - o.x).rounded(), dxx = d.x - (d.x - o.x).rounded()
            let j = Jacobian(a: rx - o.x, b: dxx - o.x, c: r.y - o.y, d: d.y - o.y)
            let s = j.scales
            if j.invertible, s.fine > 0 {
                let t = Double(max(tileSize, 1))
                let ideal = min(log2(1 / (t * s.fine)), log2(1 / (t * s.mean)) + 1)
                return Self.levels(ideal: ideal, minZoom: minZoom, maxZoom: maxZoom, crossFade: crossFade)
            }
        }
        let ideal = TileMath.idealTileZoom(cameraZoom: viewport.camera.zoom, scale: viewport.scale, tileSize: tileSize)
        return Self.levels(ideal: ideal, minZoom: minZoom, maxZoom: maxZoom, crossFade: crossFade)
    }

    /// A per-pixel cell's levels, from the differences between neighbouring samples near its centre.
    private func pixelLevels(_ cell: PixelCell) -> [ReprojectionLevel] {
        let w = cell.px1 - cell.px0, h = cell.py1 - cell.py0
        guard w >= 2, h >= 2 else { return frameLevels }
        var best: Jacobian?
        var bestDistance = Int.max
        for row in 0..<(h - 1) {
            for col in 0..<(w - 1) {
                let o = cell.samples[row * w + col], r = cell.samples[row * w + col + 1], d = cell.samples[(row + 1) * w + col]
                guard o.coverage >= 1, r.coverage >= 1, d.coverage >= 1 else { continue }
                let distance = abs(2 * col - w) + abs(2 * row - h)
                if distance >= bestDistance { continue }
                let rx = r.x - (r.x - o.x).rounded(), dxx = d.x - (d.x - o.x).rounded()
                let j = Jacobian(a: rx - o.x, b: dxx - o.x, c: r.y - o.y, d: d.y - o.y)
                if j.invertible {
                    best = j
                    bestDistance = distance
                }
            }
        }
        guard let j = best else { return frameLevels }
        return levels(j)
    }
}

// MARK: - Sampling

/// Packed premultiplied ARGB32 pixels (A in the high byte, as Cairo stores them natively).
enum ReprojectionPixel {
    static func pack(_ c: Color) -> UInt32 {
        let a = min(max(c.alpha, 0), 1)
        func ch(_ v: Double) -> UInt32 { UInt32((min(max(v, 0), 1) * a * 255).rounded()) }
        return UInt32((a * 255).rounded()) << 24 | ch(c.red) << 16 | ch(c.green) << 8 | ch(c.blue)
    }

    /// p + (q - p) * t, t in 0...256, all four channels at once.
    @inline(__always)
    static func lerp(_ p: UInt32, _ q: UInt32, _ t: UInt32) -> UInt32 {
        let s = 256 - t
        let m: UInt32 = 0x00ff_00ff, half: UInt32 = 0x0080_0080
        let p0: UInt32 = p & m, p1: UInt32 = (p >> 8) & m, q0: UInt32 = q & m, q1: UInt32 = (q >> 8) & m
        let rbSum: UInt32 = p0 &* s &+ q0 &* t &+ half
        let agSum: UInt32 = p1 &* s &+ q1 &* t &+ half
        let rb: UInt32 = (rbSum >> 8) & m
        let ag: UInt32 = (agSum >> 8) & m
        return rb | (ag << 8)
    }

    /// Bilinear mixing of two texel pairs (`top`: the texel and its right neighbour, `bottom`: the two
    /// below, each pair as one 64-bit word, the left texel in the low half) at the fraction (fx, fy),
    /// both in 0...256, in SIMD lanes.
    @inline(__always)
    static func bilinear(top: UInt64, bottom: UInt64, _ fx: UInt16, _ fy: UInt16) -> UInt32 {
        let t = SIMD8<UInt16>(truncatingIfNeeded: unsafeBitCast(top, to: SIMD8<UInt8>.self))
        let b = SIMD8<UInt16>(truncatingIfNeeded: unsafeBitCast(bottom, to: SIMD8<UInt8>.self))
        let m = (t &* SIMD8(repeating: 256 &- fy) &+ b &* SIMD8(repeating: fy) &+ 128) &>> 8
        let r = (m.lowHalf &* SIMD4(repeating: 256 &- fx) &+ m.highHalf &* SIMD4(repeating: fx) &+ 128) &>> 8
        return unsafeBitCast(SIMD4<UInt8>(truncatingIfNeeded: r), to: UInt32.self)
    }

    /// p scaled by f, f in 0...256.
    @inline(__always)
    static func scale(_ p: UInt32, _ f: UInt32) -> UInt32 {
        let m: UInt32 = 0x00ff_00ff, half: UInt32 = 0x0080_0080
        let rb: UInt32 = (((p & m) &* f &+ half) >> 8) & m
        let ag: UInt32 = ((((p >> 8) & m) &* f &+ half) >> 8) & m
        return rb | (ag << 8)
    }

    /// `src` painted over `dst` with an extra opacity `alpha` (0...256); both premultiplied.
    @inline(__always)
    static func over(_ dst: UInt32, _ src: UInt32, _ alpha: UInt32) -> UInt32 {
        // An opaque source: a plain mix, exact where both are the same colour.
        if src >> 24 == 255 { return alpha >= 256 ? src : lerp(dst, src, alpha) }
        let s = alpha >= 256 ? src : scale(src, alpha)
        let sa = s >> 24
        if sa == 255 { return s }
        return s &+ scale(dst, 256 - (sa + (sa >> 7)))
    }
}

/// One tile's pixels as sampled: the tile itself or a stand-in at another level. It does not keep
/// the surface alive: the sampler's owner does (`ResolvedTiles.surfaces`).
struct TileTexels {
    let data: UnsafeRawPointer
    let stride: Int
    let width: Int
    let height: Int
    /// The zoom and tile position these pixels cover (an ancestor's, for a stand-in).
    let level: Int
    let x: Int
    let y: Int
    /// Whether these are the requested tile's own pixels (neighbours are read across its edges).
    let isTile: Bool

    init(surface: ImageSurface, level: Int, x: Int, y: Int, isTile: Bool) {
        surface.flush()
        data = UnsafeRawPointer(surface.data)
        stride = surface.stride
        width = surface.width
        height = surface.height
        self.level = level
        self.x = x
        self.y = y
        self.isTile = isTile
    }

    @inline(__always)
    func texel(_ i: Int, _ j: Int) -> UInt32 {
        data.load(fromByteOffset: j * stride + i * 4, as: UInt32.self)
    }
}

enum ResolvedTile {
    case texels(TileTexels)
    case color(UInt32)
}

/// A frame's resolved tiles, open-addressed with a cheap integer hash: they are looked up whenever a
/// walk enters a tile and at tile-edge pixels, where a `Dictionary`'s SipHash showed in profiles.
struct TileTable {
    private let keys: [TileKey]
    private let values: [ResolvedTile]
    private let shift: Int
    private let mask: Int

    init(_ tiles: [TileKey: ResolvedTile]) {
        var bits = 4
        while 1 << bits < 2 * tiles.count { bits += 1 }
        shift = 64 - bits
        mask = (1 << bits) - 1
        var keys = [TileKey](repeating: TileKey(z: -1, x: 0, y: 0), count: 1 << bits)
        var values = [ResolvedTile](repeating: .color(0), count: 1 << bits)
        for (key, value) in tiles {
            var i = Self.slot(key, shift)
            while keys[i].z >= 0 { i = (i + 1) & mask }
            keys[i] = key
            values[i] = value
        }
        self.keys = keys
        self.values = values
    }

    @inline(__always)
    private static func slot(_ k: TileKey, _ shift: Int) -> Int {
        let h = UInt(bitPattern: k.x) &* 0x9E37_79B9_7F4A_7C15 ^ UInt(bitPattern: k.y) &* 0xC2B2_AE3D_27D4_EB4F
            ^ UInt(bitPattern: k.z) &* 0x1656_67B1_9E37_79F9
        return Int(bitPattern: h &>> UInt(shift))
    }

    @inline(__always)
    subscript(_ key: TileKey) -> ResolvedTile? {
        keys.withUnsafeBufferPointer { keys in
            var i = Self.slot(key, shift)
            while true {
                let k = keys[i]
                if k.z < 0 { return nil }
                if k == key { return values[i] }
                i = (i &+ 1) & mask
            }
        }
    }
}

/// Samples the resolved tiles of a frame bilinearly and writes frame pixels.
/// Reads tile pixels through raw pointers that stay valid and unchanged while a frame is drawn (the
/// surfaces are kept alive by the frame and only read), so copies of it may sample on several threads.
struct TileSampler: @unchecked Sendable {
    let tiles: TileTable
    let background: UInt32
    /// Beyond the north edge (y < 0), and beyond the south one (y > 1).
    let polar: UInt32, polarSouth: UInt32
    let hasTiles: Bool
    private var lastKey = TileKey(z: -1, x: 0, y: 0)
    private var last: ResolvedTile?

    init(tiles: TileTable, background: UInt32, polar: UInt32, polarSouth: UInt32? = nil, hasTiles: Bool) {
        self.tiles = tiles
        self.background = background
        self.polar = polar
        self.polarSouth = polarSouth ?? polar
        self.hasTiles = hasTiles
    }

    /// The colour beyond the tiles' edge on the side of `y` (the unit world's; NaN: the north's).
    @inline(__always) func polar(_ y: Double) -> UInt32 { y > 0.5 ? polarSouth : polar }

    /// Fills one frame row of a mesh cell. The row's unit-world positions are interpolated between
    /// the cell's left and right edges and walked in fixed point through each level's texels (see
    /// `LevelWalk`), run by run while the walk stays inside one tile; a pixel between runs (at a tile
    /// edge, on a stand-in, beyond the tiles) takes the general path. A second level fading in is a
    /// second pass over the row.
    mutating func fillRow(_ cell: MeshCell, _ py: Int, _ w0: inout LevelWalk, _ w1: inout LevelWalk,
                          into row: UnsafeMutableRawPointer) {
        let (c00, c10, c01, c11) = cell.corners
        let levels = cell.levels
        let dx = cell.x1 - cell.x0
        let t = (Double(py) + 0.5 - cell.y0) / (cell.y1 - cell.y0)
        let lx = c00.x + (c01.x - c00.x) * t, ly = c00.y + (c01.y - c00.y) * t
        let rx = c10.x + (c11.x - c10.x) * t, ry = c10.y + (c11.y - c10.y) * t
        let s0 = (Double(cell.px0) + 0.5 - cell.x0) / dx, ds = 1 / dx
        let two = levels.a1 > 0
        let pixels = row.assumingMemoryBound(to: UInt32.self)
        // Where the row `LevelWalk.rowsAhead` rows below starts and ends (the walk asks for its texels early).
        let k = Double(LevelWalk.rowsAhead) / (cell.y1 - cell.y0)
        let ax = ((c01.x - c00.x) + (c11.x - c10.x)) / 2 * k, ay = ((c01.y - c00.y) + (c11.y - c10.y)) / 2 * k
        guard hasTiles, w0.start(lx, ly, rx, ry, s0, ds, ahead: (ax, ay)),
              !two || w1.start(lx, ly, rx, ry, s0, ds, ahead: (ax, ay)) else {
            for px in cell.px0..<cell.px1 {
                let s = (Double(px) + 0.5 - cell.x0) / dx
                pixels[px] = color(lx + (rx - lx) * s, ly + (ry - ly) * s, levels)
            }
            polarEdge(cell, lx, ly, rx, ry, pixels)
            return
        }
        pass(&w0, levels.z0, levels.a0, blend: false, pixels, cell.px0, cell.px1)
        if two { pass(&w1, levels.z1, levels.a1, blend: true, pixels, cell.px0, cell.px1) }
        polarEdge(cell, lx, ly, rx, ry, pixels)
    }

    /// Antialiases the tiles' edge at ±85.05 degrees (y = 0 and 1 in the unit world) along a row:
    /// a pixel within half a pixel of it mixes the polar colour and the tiles' colour at the edge by
    /// how much of it lies on each side (its signed distance through the cell's gradient of y).
    @inline(__always)
    private mutating func polarEdge(_ cell: MeshCell, _ lx: Double, _ ly: Double, _ rx: Double, _ ry: Double,
                                    _ pixels: UnsafeMutablePointer<UInt32>) {
        let (c00, c10, c01, c11) = cell.corners
        let low = min(c00.y, c10.y, c01.y, c11.y), high = max(c00.y, c10.y, c01.y, c11.y)
        // Most cells lie well inside or well beyond: nothing to do.
        guard low < 0.05 || high > 0.95 else { return }
        // Unit-world y per frame pixel.
        let j = ReprojectionPlanner.Jacobian(corners: cell.corners, dx: cell.x1 - cell.x0, dy: cell.y1 - cell.y0)
        let g = (j.c * j.c + j.d * j.d).squareRoot()
        guard g > 0, g.isFinite, (low < g && high > -g) || (low < 1 + g && high > 1 - g) else { return }
        let dx = cell.x1 - cell.x0
        let levels = cell.levels
        for px in cell.px0..<cell.px1 {
            let s = (Double(px) + 0.5 - cell.x0) / dx
            let y = ly + (ry - ly) * s
            // Signed distance in pixels from the nearer edge, positive on the tiles' side.
            let d = min(y, 1 - y) / g
            guard d > -0.5, d < 0.5 else { continue }
            let cover = UInt32(((d + 0.5) * 256).rounded())
            let inside: UInt32
            if d >= 0 {
                inside = pixels[px]
            } else {
                // Beyond the edge the row holds the polar colour: the tiles' colour is the edge's.
                let x = lx + (rx - lx) * s
                inside = color(x, min(max(y, 1e-9), 1 - 1e-9), levels)
            }
            pixels[px] = ReprojectionPixel.lerp(polar(y), inside, cover)
        }
    }

    /// One level along a row: over the background (`blend` false: the first level) or over what the
    /// row holds (the level fading in), with opacity `alpha` (0...256).
    private mutating func pass(_ walk: inout LevelWalk, _ z: Int, _ alpha: UInt32, blend: Bool,
                               _ pixels: UnsafeMutablePointer<UInt32>, _ start: Int, _ end: Int) {
        var px = start
        while px < end {
            if walk.enter(tiles) {
                let n = walk.run(pixels + px, end - px, over: blend ? nil : background, alpha: alpha)
                px += n
                if n > 0 { continue }
                if px < end, let t = walk.edge(tiles) {
                    // At the tile's last texel: its neighbours are read from the next tiles.
                    pixels[px] = ReprojectionPixel.over(blend ? pixels[px] : background, t, alpha)
                    walk.advance()
                    px += 1
                    continue
                }
            }
            // One pixel the general way.
            let p = walk.world
            if !(p.y >= 0 && p.y <= 1) {
                if !blend { pixels[px] = polar(p.y) }
            } else {
                pixels[px] = ReprojectionPixel.over(blend ? pixels[px] : background, sample(p.x, p.y, z), alpha)
            }
            walk.advance()
            px += 1
        }
    }

    mutating func fill(_ cell: PixelCell, into data: UnsafeMutableRawPointer, stride: Int) {
        var k = 0
        let levels = Levels(cell.levels)
        for py in cell.py0..<cell.py1 {
            let row = data + py * stride
            for px in cell.px0..<cell.px1 {
                let s = cell.samples[k]
                k += 1
                if s.coverage <= 0 { continue }
                var value = color(s.x, s.y, levels)
                if s.coverage < 1 {
                    let dst = row.load(fromByteOffset: px * 4, as: UInt32.self)
                    value = ReprojectionPixel.lerp(dst, value, UInt32((s.coverage * 256).rounded()))
                }
                row.storeBytes(of: value, toByteOffset: px * 4, as: UInt32.self)
            }
        }
    }

    /// A cell's levels as plain values: the first, and the second fading in (alpha 0: none).
    struct Levels {
        var z0: Int, a0: UInt32, z1: Int, a1: UInt32
        init(_ levels: [ReprojectionLevel]) {
            func alpha(_ a: Double) -> UInt32 { a >= 1 ? 256 : UInt32((max(a, 0) * 256).rounded()) }
            z0 = levels.first?.zoom ?? 0
            a0 = levels.first.map { alpha($0.alpha) } ?? 0
            z1 = levels.count > 1 ? levels[1].zoom : 0
            a1 = levels.count > 1 ? alpha(levels[1].alpha) : 0
        }
    }

    /// The frame colour at a unit-world point.
    @inline(__always)
    mutating func color(_ x: Double, _ y: Double, _ levels: Levels) -> UInt32 {
        if !(y >= 0 && y <= 1) { return polar(y) }
        guard hasTiles else { return background }
        var out = background
        if levels.a0 > 0 { out = ReprojectionPixel.over(out, sample(x, y, levels.z0), levels.a0) }
        if levels.a1 > 0 { out = ReprojectionPixel.over(out, sample(x, y, levels.z1), levels.a1) }
        return out
    }

    /// The tiles of zoom z at a unit-world point, bilinearly.
    @inline(__always)
    mutating func sample(_ wx: Double, _ wy: Double, _ z: Int) -> UInt32 {
        let n = TileMath.tileCount(zoom: z)
        let nd = Double(n)
        let x = wx - wx.rounded(.down)
        let kx = min(Int(x * nd), n - 1), ky = min(max(Int(wy * nd), 0), n - 1)
        let key = TileKey(z: z, x: kx, y: ky)
        let tile: ResolvedTile
        if key == lastKey, let l = last {
            tile = l
        } else {
            guard let t = tiles[key] else { return background }
            lastKey = key
            last = t
            tile = t
        }
        switch tile {
        case .color(let c): return c
        case .texels(let t): return bilinear(t, x, wy)
        }
    }

    @inline(__always)
    private func bilinear(_ t: TileTexels, _ x: Double, _ y: Double) -> UInt32 {
        let n = Double(TileMath.tileCount(zoom: t.level))
        let u = (x * n - Double(t.x)) * Double(t.width) - 0.5
        let v = (y * n - Double(t.y)) * Double(t.height) - 0.5
        let uf = u.rounded(.down), vf = v.rounded(.down)
        let i = Int(uf), j = Int(vf)
        // The fraction truncated to 8 bits, as the fixed-point walk has it.
        let fx = UInt16((u - uf) * 256), fy = UInt16((v - vf) * 256)
        let p00, p10, p01, p11: UInt32
        if i >= 0, j >= 0, i + 1 < t.width, j + 1 < t.height {
            let row = t.data + j * t.stride + i * 4
            p00 = row.load(as: UInt32.self)
            p10 = row.load(fromByteOffset: 4, as: UInt32.self)
            p01 = row.load(fromByteOffset: t.stride, as: UInt32.self)
            p11 = row.load(fromByteOffset: t.stride + 4, as: UInt32.self)
        } else {
            p00 = Self.texel(t, i, j, in: tiles)
            p10 = Self.texel(t, i + 1, j, in: tiles)
            p01 = Self.texel(t, i, j + 1, in: tiles)
            p11 = Self.texel(t, i + 1, j + 1, in: tiles)
        }
        return ReprojectionPixel.bilinear(top: UInt64(p00) | UInt64(p10) << 32, bottom: UInt64(p01) | UInt64(p11) << 32, fx, fy)
    }

    /// A texel at (i, j) relative to tile `t`, read from the neighbouring tile of the same level when
    /// it lies across an edge and that tile is at hand; otherwise the nearest texel of `t` (padded).
    static func texel(_ t: TileTexels, _ i: Int, _ j: Int, in tiles: TileTable) -> UInt32 {
        if i >= 0, j >= 0, i < t.width, j < t.height { return t.texel(i, j) }
        if t.isTile {
            let n = TileMath.tileCount(zoom: t.level)
            let ox = i < 0 ? -1 : (i >= t.width ? 1 : 0), oy = j < 0 ? -1 : (j >= t.height ? 1 : 0)
            let ny = t.y + oy
            if ny >= 0, ny < n, case .texels(let o)? = tiles[TileKey(z: t.level, x: TileMath.wrap(t.x + ox, zoom: t.level), y: ny)],
               o.isTile, o.width == t.width, o.height == t.height {
                return o.texel(i - ox * t.width, j - oy * t.height)
            }
        }
        return t.texel(min(max(i, 0), t.width - 1), min(max(j, 0), t.height - 1))
    }
}

/// A walk along a frame row through one level's texels. Positions are global texel coordinates of
/// the level (the unit world times 2^z tiles times the tile's size, less half a texel) in 32.16 fixed
/// point, so the tile and the texel inside it are shifts and masks. The tile in hand is looked up
/// once when the walk enters it; a texel whose bilinear neighbours lie in it is read directly.
struct LevelWalk {
    let z: Int
    /// Tiles per side and the texel size of a tile (a power of two), as a shift.
    private let n: Int
    private let shift: Int
    private let mask: Int
    private let scale: Double
    private var u = 0, v = 0, du = 0, dv = 0
    /// The texels `rowsAhead` frame rows below the walk's, relative to its own.
    private var aheadU = 0, aheadV = 0
    private var tx = Int.min, ty = Int.min
    /// The tile in hand (nil: none to read directly).
    private var tile: TileTexels?

    /// Texels whose size is not a power of two are never read directly.
    private let walkable: Bool

    init(z: Int, texelSize: Int) {
        self.z = z
        n = TileMath.tileCount(zoom: z)
        walkable = texelSize > 1 && texelSize & (texelSize - 1) == 0
        let size = walkable ? texelSize : 256
        shift = size.trailingZeroBitCount
        mask = size - 1
        scale = Double(n) * Double(size)
    }

    /// How far ahead, in frame rows, a run asks for the texels it will read (they come from memory: a
    /// frame reads most of its tiles' texels once, row after row): `--projections`, 3 runs, the globe
    /// on tiles 12.4 ms a frame without; 9.9, 7.6, 7.5 and 7.6 with 2, 8, 12 and 16 rows.
    static let rowsAhead = 12

    /// Starts a row from the unit-world points at its left (l) and right (r) edges; `s0` is the first
    /// pixel's fraction between them and `ds` a pixel's; `ahead`, the unit-world step to the row
    /// `rowsAhead` below. False when the row is beyond fixed point.
    mutating func start(_ lx: Double, _ ly: Double, _ rx: Double, _ ry: Double, _ s0: Double, _ ds: Double,
                        ahead: (x: Double, y: Double)) -> Bool {
        let ua = lx * scale - 0.5, ub = rx * scale - 0.5, va = ly * scale - 0.5, vb = ry * scale - 0.5
        let u0 = (ua + (ub - ua) * s0) * 65536, v0 = (va + (vb - va) * s0) * 65536
        let dU = (ub - ua) * ds * 65536, dV = (vb - va) * ds * 65536
        let limit = 0x1p52
        guard abs(u0) < limit, abs(v0) < limit, abs(dU) < 0x1p40, abs(dV) < 0x1p40 else { return false }
        u = Int(u0)
        v = Int(v0)
        du = Int(dU)
        dv = Int(dV)
        // Beyond a tile's width, ahead is no use (and never read: only asked for).
        let au = ahead.x * scale, av = ahead.y * scale
        aheadU = abs(au) < Double(mask + 1) ? Int(au) : 0
        aheadV = abs(av) < Double(mask + 1) ? Int(av) : 0
        return true
    }

    /// The unit-world point the walk is at.
    var world: (x: Double, y: Double) {
        ((Double(u) / 65536 + 0.5) / scale, (Double(v) / 65536 + 0.5) / scale)
    }

    @inline(__always)
    mutating func advance() {
        u &+= du
        v &+= dv
    }

    /// Looks up the tile the walk is in (when it has moved to another). True when its texels can be
    /// read directly: the level's own tile, at hand, of the walk's size.
    @inline(__always)
    mutating func enter(_ tiles: TileTable) -> Bool {
        let x = (u &>> 16) &>> shift, y = (v &>> 16) &>> shift
        if x != tx || y != ty { enter(x, y, tiles) }
        return tile != nil
    }

    /// Writes pixels from the tile in hand while the walk stays inside it (each texel with its right
    /// and lower neighbours), at most `count`; returns how many. `over`: the colour under the first
    /// level; nil: the pixels already there (a level fading in). `alpha` is in 0...256.
    mutating func run(_ dst: UnsafeMutablePointer<UInt32>, _ count: Int, over: UInt32?, alpha: UInt32) -> Int {
        guard let tile else { return 0 }
        // Everything in registers: nothing the loop stores can change it.
        var u = self.u, v = self.v
        let base = tile.data, stride = tile.stride
        let du = self.du, dv = self.dv, shift = self.shift, mask = self.mask, tx = self.tx, ty = self.ty
        let ahead = aheadV &* stride &+ aheadU &* 4
        // The steps that stay inside the tile's interior, each texel with its right and lower
        // neighbours in it (positions move linearly, so that is a count, not a test per pixel).
        let n = min(count, Self.steps(u, du, lo: tx &<< shift, hi: (tx &<< shift) &+ mask &- 1),
                    Self.steps(v, dv, lo: ty &<< shift, hi: (ty &<< shift) &+ mask &- 1))
        guard n > 0 else { return 0 }
        @inline(__always) func texel() -> UInt32 {
            let i = (u &>> 16) & mask, j = (v &>> 16) & mask
            let p = base + (j &* stride &+ i &* 4)
            Kernels.prefetch(p + ahead)
            let fx = UInt16(truncatingIfNeeded: (u &>> 8) & 0xff), fy = UInt16(truncatingIfNeeded: (v &>> 8) & 0xff)
            return ReprojectionPixel.bilinear(top: p.loadUnaligned(as: UInt64.self),
                                              bottom: p.loadUnaligned(fromByteOffset: stride, as: UInt64.self), fx, fy)
        }
        if let under = over {
            if alpha == 256 {
                for k in 0..<n {
                    let t = texel()
                    dst[k] = t &>> 24 == 255 ? t : ReprojectionPixel.over(under, t, 256)
                    u &+= du
                    v &+= dv
                }
            } else {
                for k in 0..<n {
                    dst[k] = ReprojectionPixel.over(under, texel(), alpha)
                    u &+= du
                    v &+= dv
                }
            }
        } else {
            for k in 0..<n {
                dst[k] = ReprojectionPixel.over(dst[k], texel(), alpha)
                u &+= du
                v &+= dv
            }
        }
        self.u = u
        self.v = v
        return n
    }

    /// The bilinear sample at the walk's position, in the tile in hand, when its right or lower
    /// neighbours lie across the tile's edge: read as the general path reads them (from the next
    /// tiles of the level, or clamped to this tile's edge).
    @inline(__always)
    func edge(_ tiles: TileTable) -> UInt32? {
        guard let tile else { return nil }
        let i = u &>> 16, j = v &>> 16
        guard i &>> shift == tx, j &>> shift == ty else { return nil }
        let li = i &- (tx &<< shift), lj = j &- (ty &<< shift)
        let fx = UInt16(truncatingIfNeeded: (u &>> 8) & 0xff), fy = UInt16(truncatingIfNeeded: (v &>> 8) & 0xff)
        let top = UInt64(TileSampler.texel(tile, li, lj, in: tiles)) | UInt64(TileSampler.texel(tile, li &+ 1, lj, in: tiles)) &<< 32
        let bottom = UInt64(TileSampler.texel(tile, li, lj &+ 1, in: tiles))
            | UInt64(TileSampler.texel(tile, li &+ 1, lj &+ 1, in: tiles)) &<< 32
        return ReprojectionPixel.bilinear(top: top, bottom: bottom, fx, fy)
    }

    /// How many steps k = 0, 1, ... keep the texel (p + k dp) >> 16 (16.16 fixed point) within lo...hi;
    /// 0 when p's own is outside.
    @inline(__always)
    static func steps(_ p: Int, _ dp: Int, lo: Int, hi: Int) -> Int {
        let i = p &>> 16
        guard i >= lo, i <= hi else { return 0 }
        if dp > 0 { return (((hi &+ 1) &<< 16) &- p &+ dp &- 1) / dp }
        if dp < 0 { return (p &- (lo &<< 16)) / (0 &- dp) &+ 1 }
        return Int.max
    }

    private mutating func enter(_ x: Int, _ y: Int, _ tiles: TileTable) {
        tx = x
        ty = y
        tile = nil
        guard walkable, y >= 0, y < n, case .texels(let t)? = tiles[TileKey(z: z, x: TileMath.wrap(x, zoom: z), y: y)],
              t.isTile, t.level == z, t.width == mask + 1, t.height == mask + 1 else { return }
        tile = t
    }
}
