import Cairo
import Foundation
import MapTripCore

/// Rasters of the styled base map, drawn once from the vectors and composited into every frame that
/// shows them: a flight sweeps over a map it has mostly drawn already.
///
/// It sits behind the view: only a flat, north-up Web Mercator view is composited from it; the globe,
/// planes, a turned map and any frame it cannot serve exactly enough are drawn from the vectors.
///
/// * **Levels.** Level k is the world `levelWidth(k)` pixels wide, `stepsPerZoom` levels per zoom
///   (quarter zooms by default), cut into `tileSize` tiles (the last column and row narrower). A frame
///   takes the first level at least as large as its own world, so tiles are only ever scaled *down*,
///   by at most 2^(1/stepsPerZoom), with bilinear filtering: lines keep 84-100 % of their width (the
///   step between levels is too small to see on the map's hairlines, and needs no second level in
///   memory) and fills come out as drawn.
/// * **No seams.** Each tile is drawn with a one-pixel border of its neighbours' pixels (from the same
///   vectors), and painted only inside its rectangle rounded to whole frame pixels, computed by one
///   expression for the edge two neighbours share: every frame pixel comes from exactly one tile,
///   sampled from real neighbours, never padded or faded.
/// * **Cross-fade** (off by default). Over the first `crossFade` of each level the level below (scaled up by at most
///   2^(crossFade/stepsPerZoom)) is still drawn underneath and this one fades in over it (smoothstep).
/// * **Fading layers.** A level whose zooms cross a layer's fade or switch (1:110m to 1:10m, provinces
///   fading in) is not cached: its frames are drawn from the vectors, whose opacity follows the zoom.
/// * **Memory.** Tiles are evicted least recently used first, within `limitBytes`.
final class RasterCache {
    let tileSize: Int
    let stepsPerZoom: Int
    let crossFade: Double
    let limitBytes: Int

    /// A tile: level, column (wrapped into the world), row.
    struct TileID: Hashable {
        var level: Int
        var column: Int
        var row: Int
    }

    private var tiles: [TileID: (surface: ImageSurface, tick: UInt64)] = [:]
    /// Surfaces of tiles evicted to make room for a frame's new tiles, drawn over again by them
    /// (no new pages to map and zero); what a frame leaves unused is let go when it is composited.
    private var spare: [ImageSurface] = []
    private var tick: UInt64 = 0
    private(set) var bytes = 0
    /// The most bytes held at once.
    private(set) var peakBytes = 0
    /// Tiles drawn from the vectors so far (a tile evicted and needed again counts again).
    private(set) var tilesDrawn = 0
    /// Frames composited from tiles.
    private(set) var framesComposited = 0
    /// Whether opaque levels are resampled by maptrip's own kernel where this CPU runs it (else, and
    /// where it does not, pixman paints them through Cairo, the same pixels within a few levels).
    var resamples = true

    init(tileSize: Int = 256, stepsPerZoom: Int = 4, crossFade: Double = 0, limitBytes: Int) {
        self.tileSize = tileSize
        self.stepsPerZoom = stepsPerZoom
        self.crossFade = crossFade
        self.limitBytes = limitBytes
    }

    /// Enough for the tiles of one frame at its smallest scale (and the level under it during a
    /// cross-fade), with a little room for a flight to find the tiles it has just drawn.
    static func defaultLimit(width: Int, height: Int, tileSize: Int = 256, stepsPerZoom: Int = 4, crossFade: Double = 0) -> Int {
        let k = pow(2, 1 / Double(stepsPerZoom))
        let columns = Int((Double(width) * k / Double(tileSize)).rounded(.up)) + 1
        let rows = Int((Double(height) * k / Double(tileSize)).rounded(.up)) + 1
        return Int(Double(columns * rows * (tileSize + 2) * (tileSize + 2) * 4) * (crossFade > 0 ? 1.8 : 1.0))
    }

    // MARK: Levels

    /// The world's width in pixels at level k (rounded up, so that a level boundary never falls short of
    /// a half zoom where layers fade).
    func levelWidth(_ k: Int) -> Int {
        Int((WebMercator.tileSize * pow(2, Double(k) / Double(stepsPerZoom)) - 1e-6).rounded(.up))
    }

    /// The first level whose world is at least `worldSize` pixels wide.
    func level(worldSize: Double) -> Int {
        var k = max(0, Int((Double(stepsPerZoom) * log2(max(worldSize, 1) / WebMercator.tileSize)).rounded(.up)))
        while Double(levelWidth(k)) < worldSize * (1 - 1e-12) { k += 1 }
        while k > 0 && Double(levelWidth(k - 1)) >= worldSize * (1 - 1e-12) { k -= 1 }
        return k
    }

    /// The camera zoom at which a frame of pixel ratio `scale` shows level k at 1:1.
    func zoom(level k: Int, scale: Double) -> Double {
        log2(Double(levelWidth(k)) / (WebMercator.tileSize * scale))
    }

    /// One level of a composited frame: bottom first, with its opacity.
    struct LevelUse: Equatable {
        var level: Int
        var alpha: Double
    }

    /// The levels a frame is composited from: its own, and during a cross-fade the one below it first.
    func levels(for viewport: Viewport) -> [LevelUse] {
        let size = viewport.worldSize
        let k = level(worldSize: size)
        guard crossFade > 0, k > 0 else { return [LevelUse(level: k, alpha: 1)] }
        let low = log2(Double(levelWidth(k - 1))), high = log2(Double(levelWidth(k)))
        let u = (log2(size) - low) / (high - low)  // in (0, 1]: how far into level k
        guard u < crossFade else { return [LevelUse(level: k, alpha: 1)] }
        let s = max(0, u / crossFade)
        let a = s * s * (3 - 2 * s)
        if a < 0.002 { return [LevelUse(level: k - 1, alpha: 1)] }
        if a > 0.998 { return [LevelUse(level: k, alpha: 1)] }
        return [LevelUse(level: k - 1, alpha: 1), LevelUse(level: k, alpha: a)]
    }

    /// Whether every layer looks the same at every zoom level k serves (frames of pixel ratio `scale`):
    /// no fade or switch of data inside it.
    func isSteady(level k: Int, scale: Double, layers: [MapLayer]) -> Bool {
        let high = zoom(level: k, scale: scale)
        let low = k > 0 ? zoom(level: k - 1, scale: scale) : -Double.infinity
        let e = 1e-9
        for layer in layers {
            var samples = [high, low.isFinite ? low + e : high - 1 / Double(stepsPerZoom)]
            for p in [layer.minZoom - layer.fadeIn, layer.minZoom, layer.maxZoom - layer.fadeOut, layer.maxZoom]
            where p > low && p <= high {
                samples += [p, p - e]
            }
            let o = samples.map { layer.opacity(zoom: $0) }
            if o.max()! - o.min()! > 0.002 { return false }
        }
        return true
    }

    // MARK: Tiles

    /// Columns (and rows) of level k: the last one is narrower when the world's width is not a multiple
    /// of the tile size.
    func tileCount(level k: Int) -> Int { (levelWidth(k) + tileSize - 1) / tileSize }

    /// The tiles of level k a viewport shows: (column unwrapped, row), in the level's pixels.
    func tiles(level k: Int, for viewport: Viewport) -> [(column: Int, row: Int)] {
        let width = Double(levelWidth(k)), s = viewport.worldSize / width
        let cx = viewport.center.x * width, cy = viewport.center.y * width
        let hw = Double(viewport.width) / 2 / s + 1, hh = Double(viewport.height) / 2 / s + 1
        let n = tileCount(level: k)
        let rows = max(0, Int(((cy - hh) / Double(tileSize)).rounded(.down)))...min(n - 1, Int(((cy + hh) / Double(tileSize)).rounded(.down)))
        guard !rows.isEmpty else { return [] }
        var out: [(Int, Int)] = []
        // Unwrapped columns: world copy m, column c -> m * n + c.
        let first = Int(((cx - hw) / width).rounded(.down)), last = Int(((cx + hw) / width).rounded(.down))
        for m in first...last {
            let left = cx - hw - Double(m) * width, right = cx + hw - Double(m) * width
            let c0 = max(0, Int((left / Double(tileSize)).rounded(.down)))
            let c1 = min(n - 1, Int((right / Double(tileSize)).rounded(.down)))
            if c0 > c1 { continue }
            for row in rows { for c in c0...c1 { out.append((m * n + c, row)) } }
        }
        return out
    }

    /// The tiles of level k a viewport shows, their columns wrapped.
    func tileIDs(level k: Int, for viewport: Viewport) -> [TileID] {
        let n = tileCount(level: k)
        return tiles(level: k, for: viewport).map { TileID(level: k, column: (($0.column % n) + n) % n, row: $0.row) }
    }

    /// The tiles `ids` (level, column, row), those not at hand drawn by `draw` two at a time (each on
    /// its own surface, by its own thread): a flight reaching a new level, or setting out from a held
    /// picture, needs a frame's tiles at once.
    private func surfaces<S: Sequence>(_ ids: S, draw: TileDrawing, scale: Double) throws -> [TileID: ImageSurface]
    where S.Element == TileID {
        var found: [TileID: ImageSurface] = [:]
        var jobs: [(key: TileID, surface: ImageSurface, transforms: [PixelTransform], zoom: Double)] = []
        var queued = Set<TileID>()
        for key in ids {
            if let e = tiles[key] {
                tick &+= 1
                tiles[key] = (e.surface, tick)
                found[key] = e.surface
                continue
            }
            if !queued.insert(key).inserted { continue }
            let k = key.level, column = key.column, row = key.row
            let width = levelWidth(k), n = tileCount(level: k)
            let x0 = column * tileSize, y0 = row * tileSize
            let w = min(tileSize, width - x0), h = min(tileSize, width - y0)
            let surface: ImageSurface
            if let i = spare.firstIndex(where: { $0.width == w + 2 && $0.height == h + 2 }) {
                surface = spare.remove(at: i)
            } else {
                surface = try ImageSurface.mapped(width: w + 2, height: h + 2)
            }
            // The unit world into the tile's pixels, its border one pixel out; the copies of the world
            // beside it for the first and last columns, whose borders lie across the antimeridian.
            let t = PixelTransform(scale: Double(width), offsetX: Double(1 - x0), offsetY: Double(1 - y0))
            var transforms = [t]
            if column == 0 { transforms.append(t.shifted(worlds: -1)) }
            if column == n - 1 { transforms.append(t.shifted(worlds: 1)) }
            jobs.append((key, surface, transforms, zoom(level: k, scale: scale)))
        }
        if jobs.count == 1 {
            try draw(jobs[0].surface, jobs[0].transforms, jobs[0].zoom, 0)
        } else if jobs.count > 1 {
            // Worker k draws jobs k, k + 2, ...; the first failure in job order is thrown.
            let results = ConcurrentResults<Void>(count: jobs.count)
            withoutActuallyEscaping(draw) { draw in
                let work = TileWork(draw: draw, jobs: jobs.map { ($0.surface, $0.transforms, $0.zoom) })
                DispatchQueue.concurrentPerform(iterations: 2) { worker in
                    for i in stride(from: worker, to: work.jobs.count, by: 2) {
                        let job = work.jobs[i]
                        results.set(i, Result { try work.draw(job.0, job.1, job.2, worker) })
                    }
                }
            }
            for i in jobs.indices { try results.get(i) }
        }
        for job in jobs {
            tick &+= 1
            tilesDrawn += 1
            tiles[job.key] = (job.surface, tick)
            found[job.key] = job.surface
            bytes += job.surface.byteCount
        }
        peakBytes = max(peakBytes, bytes + reserved)
        return found
    }

    /// Bytes a tile's surface takes (with its border).
    private func tileBytes(_ id: TileID) -> Int {
        let width = levelWidth(id.level)
        let w = min(tileSize, width - id.column * tileSize), h = min(tileSize, width - id.row * tileSize)
        return (w + 2) * (h + 2) * 4
    }

    /// Drops the least recently used tiles, except `keeping`, until `incoming` more bytes fit.
    /// Bytes held beside the tiles within the same bound (a held camera's picture of the map): the
    /// least recently used tiles make room for them.
    private(set) var reserved = 0

    func reserve(_ count: Int) {
        reserved = count
        if bytes + reserved > limitBytes { evict(toFit: 0, keeping: []) }
        peakBytes = max(peakBytes, bytes + reserved)
    }

    /// `reuse`: keep the surfaces as spares for the tiles about to be drawn.
    private func evict(toFit incoming: Int, keeping: Set<TileID>, reuse: Bool = false) {
        for (key, e) in tiles.sorted(by: { $0.value.tick < $1.value.tick }) where !keeping.contains(key) {
            if bytes + reserved + incoming <= limitBytes { break }
            tiles[key] = nil
            bytes -= e.surface.byteCount
            if reuse { spare.append(e.surface) }
        }
    }

    // MARK: Compositing

    /// Draws a tile: its surface, the transforms of the unit world into it, the zoom it stands for,
    /// and which of two threads draws it (0 or 1): two tiles may be drawn at once, one by each.
    typealias TileDrawing = (ImageSurface, [PixelTransform], Double, Int) throws -> Void

    /// Paints a frame from the levels `levels(for:)` gives, drawing missing tiles with `draw`.
    /// `outside`: painted above and below the world (where Web Mercator has no map).
    func composite(_ viewport: Viewport, outside: Color, in cr: Context, draw: TileDrawing) throws {
        let uses = levels(for: viewport)
        let wanted = uses.map { tileIDs(level: $0.level, for: viewport) }
        // Room first: the least recently used tiles this frame does not show go before any is drawn,
        // so the cache never holds more than its bound or this frame's tiles.
        let shown = Set(wanted.joined())
        let missing = shown.filter { tiles[$0] == nil }.reduce(0) { $0 + tileBytes($1) }
        if bytes + reserved + missing > limitBytes { evict(toFit: missing, keeping: shown, reuse: true) }
        defer { spare.removeAll() }
        let surfaces = try surfaces(wanted.joined(), draw: draw, scale: viewport.scale)
        var placed: [(LevelUse, [(surface: ImageSurface, column: Int, row: Int)])] = []
        for (use, ids) in zip(uses, wanted) {
            let unwrapped = tiles(level: use.level, for: viewport)
            var list: [(ImageSurface, Int, Int)] = []
            for (id, position) in zip(ids, unwrapped) {
                list.append((surfaces[id]!, position.column, position.row))
            }
            placed.append((use, list))
        }
        let W = viewport.width, H = viewport.height
        let tileSize = tileSize
        let geometry = placed.map { (use, list) -> (Double, Double, Double, Double, Int, Double, [(ImageSurface, Int, Int)]) in
            let width = Double(levelWidth(use.level))
            return (viewport.worldSize / width, viewport.center.x * width, viewport.center.y * width, width,
                    tileCount(level: use.level), use.alpha, list)
        }
        for (_, list) in placed { for (surface, _, _) in list { surface.flush() } }
        let job = CompositeJob(levels: geometry, width: W, height: H, tileSize: tileSize, outside: outside,
                               resamples: resamples)
        try Bands.drawRows(on: cr, width: W, height: H) { band, rows in job.paint(in: band, rows: rows) }
        framesComposited += 1
    }
}

/// What one frame's compositing paints: per level (bottom first) its scale, centre in level pixels,
/// width, tile count, opacity and tiles (unwrapped column, row). Painted by each band's thread.
private struct CompositeJob: @unchecked Sendable {
    let levels: [(s: Double, cx: Double, cy: Double, width: Double, n: Int, alpha: Double, tiles: [(ImageSurface, Int, Int)])]
    let width: Int, height: Int, tileSize: Int
    let outside: Color
    /// Whether the opaque bottom level is painted with maptrip's own kernel (`BilinearResample`).
    let resamples: Bool

    /// `rows`: the frame's rows `cr`'s surface holds from its row 0, or nil to paint through `cr` only.
    func paint(in cr: Context, rows: Range<Int>?) {
        let halfW = Double(width) / 2, halfH = Double(height) / 2
        func snap(_ v: Double, _ limit: Int) -> Int { Int(min(max(v.rounded(), 0), Double(limit))) }
        for (i, level) in levels.enumerated() {
            let s = level.s
            // Frame pixel of an (unwrapped) level pixel edge: one expression for both tiles sharing it.
            func x(_ u: Double) -> Double { (u - level.cx) * s + halfW }
            func y(_ v: Double) -> Double { (v - level.cy) * s + halfH }
            if i == 0 {
                // Above and below the world: no map.
                let top = snap(y(0), height), bottom = snap(y(level.width), height)
                if top > 0 { cr.fillPixelRect(x: 0, y: 0, width: width, height: top, color: outside) }
                if bottom < height { cr.fillPixelRect(x: 0, y: bottom, width: width, height: height - bottom, color: outside) }
            }
            cr.setOperator(i == 0 ? .source : .over)
            for (surface, column, row) in level.tiles {
                let m = Int((Double(column) / Double(level.n)).rounded(.down))
                let c = column - m * level.n
                let u0 = Double(m) * level.width + Double(c * tileSize)
                let u1 = min(u0 + Double(tileSize), Double(m + 1) * level.width)
                let v0 = Double(row * tileSize), v1 = min(v0 + Double(tileSize), level.width)
                let px0 = snap(x(u0), width), px1 = snap(x(u1), width)
                let py0 = snap(y(v0), height), py1 = snap(y(v1), height)
                if px1 <= px0 || py1 <= py0 { continue }
                // The tile's pixel 0 is its border, one level pixel before u0.
                if i == 0, level.alpha >= 1, resamples, let rows,
                   BilinearResample.paint(surface, scale: s, originX: x(u0 - 1), originY: y(v0 - 1),
                                          into: cr.surface, firstRow: rows.lowerBound,
                                          x: px0, y: py0, width: px1 - px0, height: py1 - py0) {
                    continue
                }
                cr.paintImage(surface, into: x(u0 - 1), y(v0 - 1), Double(surface.width) * s, Double(surface.height) * s,
                              clipX: px0, clipY: py0, clipWidth: px1 - px0, clipHeight: py1 - py0,
                              alpha: level.alpha, filter: .bilinear)
            }
        }
        cr.setOperator(.over)
    }
}

/// The tile drawing handed to the two threads (each calls it for its own tiles only).
private struct TileWork: @unchecked Sendable {
    let draw: RasterCache.TileDrawing
    let jobs: [(ImageSurface, [PixelTransform], Double)]
}
