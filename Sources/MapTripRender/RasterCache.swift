import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import RasterKernels
import YUV

/// Rasters of the styled base map, drawn once from the vectors and composited into every frame that
/// shows them: a flight sweeps over a map it has mostly drawn already.
///
/// It sits behind the view: only a flat Web Mercator view is composited from it, north up or turned
/// (a heading-up chase: each tile painted through the turn, into BGRA or straight into I420); the
/// globe, planes and any frame it cannot serve exactly enough are drawn from the vectors.
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
/// * **Fading layers.** A level whose zooms cross a layer's fade or switch (1:110m to 1:10m, lakes
///   fading in) is not cached: its frames are drawn from the vectors, whose opacity follows the zoom.
///   Layers that fade by level (`MapLayer.fadesByLevel`: the province lines) are drawn into each
///   level's tiles at the opacity of its zoom instead.
/// * **Memory.** Tiles are evicted within `limitBytes`, the one next shown furthest ahead first
///   (`schedule`; without one, the least recently used). `MapCaching.plan` sets the bound to hold
///   every tile the trip's frames show where that fits its cap (`MapCaching.tileMemoryCap`): each
///   tile is then drawn once per render.
final class RasterCache {
    let tileSize: Int
    let stepsPerZoom: Int
    let crossFade: Double
    /// The bytes tiles may take (see `tileRoom`); lowered, the tiles over it go at once.
    var limitBytes: Int {
        didSet { if limitBytes < oldValue, bytes > tileRoom { evict(toFit: 0, keeping: []) } }
    }

    /// A tile: level, column (wrapped into the world), row.
    struct TileID: Hashable {
        var level: Int
        var column: Int
        var row: Int

        /// One word for the three (a frame looks its tiles up several times: one combine, not three).
        func hash(into hasher: inout Hasher) {
            hasher.combine(UInt64(truncatingIfNeeded: level) << 58 ^ UInt64(truncatingIfNeeded: column) << 29
                           ^ UInt64(truncatingIfNeeded: row))
        }
    }

    private var tiles: [TileID: (raster: Raster, tick: UInt64)] = [:]
    /// Rasters of tiles evicted to make room for a frame's new tiles, drawn over again by them
    /// (no new pages to map and zero); what a frame leaves unused is let go when it is composited.
    private var spare: [Raster] = []
    /// BGRA pictures planar tiles are drawn in before their conversion: one per drawing thread and size.
    private var drawingSurfaces: [DrawingKey: ImageSurface] = [:]
    private struct DrawingKey: Hashable {
        var worker: Int, width: Int, height: Int
    }

    /// Whether tiles are kept as I420 planes, for frames composited into I420 pictures
    /// (`compositePlanar`), rather than as BGRA surfaces (`composite`). Changing it lets every tile go.
    var planar = false {
        didSet { if planar != oldValue { dropTiles() } }
    }

    /// The matrix planar tiles are converted with: the pictures' they are composited into (a change,
    /// from an SD output to an HD one, lets every tile go).
    var matrix: YUVMatrix = .bt601 {
        didSet { if matrix != oldValue { dropTiles() } }
    }

    private func dropTiles() {
        tiles = [:]
        complete = nil
        spare = []
        drawingSurfaces = [:]
        bytes = 0
    }

    /// Pixels of the map around a tile that it holds too: its neighbours' edge, for bilinear sampling
    /// across the seam. Planar tiles hold two, so that their chroma (a sample per 2x2 pixels) has one.
    private var border: Int { planar ? 2 : 1 }

    /// The bytes tiles may take. BGRA: the bound, less a held picture's (`reserve`). Planar: one and a
    /// half times what the same tiles take as I420 (3/8 of BGRA's bytes), the held picture beside it:
    /// a flight finds more of the tiles it has just drawn (world tour: 767 -> 653 tiles drawn, 578 of
    /// them distinct), all within 3/4 of the BGRA bound.
    private var tileRoom: Int {
        guard planar else { return limitBytes - reserved }
        let full = (tileSize + 2) * (tileSize + 2) * 4
        return Int(1.5 * Double(limitBytes) * Double(PlanarTile.bytes(width: tileSize + 4, height: tileSize + 4)) / Double(full))
    }
    private var tick: UInt64 = 0
    /// When each tile is shown: the positions, in the order of the frames the cache will composite
    /// (`schedule`), of the frames that show it; and the position of the frame being composited.
    private var uses: [TileID: [Int]] = [:]
    private var position = 0
    private(set) var bytes = 0
    /// The most bytes held at once.
    private(set) var peakBytes = 0
    /// Tiles drawn from the vectors so far (a tile evicted and needed again counts again).
    private(set) var tilesDrawn = 0
    /// Of those, tiles drawn although this cache had made them before (drawn or read back) since its
    /// levels were set: each an eviction the bound forced, and drawing done twice.
    private(set) var tilesDrawnAgain = 0
    /// The tiles made so far (drawn or read back), for `tilesDrawnAgain`.
    private var made = Set<TileID>()
    /// Tiles read back from `store` instead (counted the same way).
    private(set) var tilesRead = 0
    /// Planar tiles found flat and kept as their samples (counted the same way).
    private(set) var flatTiles = 0
    /// Where tiles are kept between renders (nil: drawn in every render): each tile is looked for
    /// there before it is drawn, and written there once drawn. Its recipe must name everything the
    /// `TileDrawing` given depends on, and the cache's own `recipe`.
    var store: DrawnTileStore?

    /// What decides a tile's pixels here, for a store's recipe: the tile size (the border and the
    /// form, BGRA or I420, are in each tile's name).
    var recipe: String { "raster cache/3 tile \(tileSize)" }
    /// Frames composited from tiles.
    private(set) var framesComposited = 0
    /// Whether opaque levels are resampled by maptrip's own kernel where this CPU runs it (else, and
    /// where it does not, pixman paints them through Cairo, the same pixels within a few levels).
    var resamples = true

    /// Levels a zoom unless told otherwise: quarter zooms.
    static let defaultStepsPerZoom = 4

    init(tileSize: Int = 256, stepsPerZoom: Int = defaultStepsPerZoom, crossFade: Double = 0, limitBytes: Int) {
        self.tileSize = tileSize
        self.stepsPerZoom = stepsPerZoom
        self.crossFade = crossFade
        self.limitBytes = limitBytes
        widths = (0...(Self.maxZoom * stepsPerZoom)).map { Self.stepWidth($0, stepsPerZoom: stepsPerZoom) }
    }

    /// Enough for the tiles of one frame at its smallest scale (and the level under it during a
    /// cross-fade), with a little room for a flight to find the tiles it has just drawn.
    static func defaultLimit(width: Int, height: Int, tileSize: Int = 256, stepsPerZoom: Int = defaultStepsPerZoom,
                             crossFade: Double = 0) -> Int {
        let k = pow(2, 1 / Double(stepsPerZoom))
        let columns = Int((Double(width) * k / Double(tileSize)).rounded(.up)) + 1
        let rows = Int((Double(height) * k / Double(tileSize)).rounded(.up)) + 1
        return Int(Double(columns * rows * (tileSize + 2) * (tileSize + 2) * 4) * (crossFade > 0 ? 1.8 : 1.0))
    }

    // MARK: Levels

    /// The levels' world widths in pixels, ascending: a step of zoom's (`stepWidth`) up to `maxZoom`,
    /// and those added by `addLevels`.
    private var widths: [Int]
    /// The zoom the levels reach (frames beyond it are scaled up from its level).
    static let maxZoom = 30

    /// The world's width in pixels at zoom step k (rounded up, so that a level boundary never falls
    /// short of a half zoom where layers fade).
    static func stepWidth(_ k: Int, stepsPerZoom: Int) -> Int {
        Int((WebMercator.tileSize * pow(2, Double(k) / Double(stepsPerZoom)) - 1e-6).rounded(.up))
    }

    /// The first step's width (`stepWidth`) at least `worldSize` pixels (as `level` finds a level,
    /// without the levels added for resting cameras; the largest step's past `maxZoom`).
    static func stepWidth(atLeast worldSize: Double, stepsPerZoom: Int) -> Int {
        let target = worldSize * (1 - 1e-12)
        var k = max(0, Int((log2(max(worldSize, 1) / WebMercator.tileSize) * Double(stepsPerZoom)).rounded(.down)) - 1)
        while Double(stepWidth(k, stepsPerZoom: stepsPerZoom)) < target && k < maxZoom * stepsPerZoom { k += 1 }
        return stepWidth(k, stepsPerZoom: stepsPerZoom)
    }

    /// The world's width in pixels at level k.
    func levelWidth(_ k: Int) -> Int { widths[min(max(k, 0), widths.count - 1)] }

    /// Adds levels of these world widths (the resting cameras' own, `Camera.onPixelGrid`): a frame of
    /// such a width is composited from tiles one for one, and the frames flying in and out around it
    /// share those tiles. Changing the levels lets every tile go (their levels are numbered anew).
    func addLevels(worldWidths: [Int]) {
        let all = Array(Set(widths + worldWidths.filter { $0 >= 1 })).sorted()
        guard all != widths else { return }
        widths = all
        tiles = [:]
        complete = nil
        spare = []
        bytes = 0
        made = []
    }

    /// The first level whose world is at least `worldSize` pixels wide.
    func level(worldSize: Double) -> Int {
        let target = worldSize * (1 - 1e-12)
        var lo = 0, hi = widths.count - 1
        if Double(widths[hi]) < target { return hi }
        while lo < hi {
            let mid = (lo + hi) / 2
            if Double(widths[mid]) >= target { hi = mid } else { lo = mid + 1 }
        }
        return lo
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
    /// no fade or switch of data inside it (but for layers that fade by level, `MapLayer.fadesByLevel`).
    /// `frameZoom`: only for frames at that zoom (a follow camera's, at a layer's first zoom, which
    /// the level's lower end would cross).
    func isSteady(level k: Int, scale: Double, layers: [MapLayer], frameZoom: Double? = nil) -> Bool {
        let high = zoom(level: k, scale: scale)
        let frame = frameZoom.map { min($0, high) }
        let low = frame ?? (k > 0 ? zoom(level: k - 1, scale: scale) : -Double.infinity)
        let e = 1e-9
        for layer in layers where !layer.fadesByLevel {
            var samples = [high, frame ?? (low.isFinite ? low + e : high - 1 / Double(stepsPerZoom))]
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
        let width = Double(levelWidth(k)), n = tileCount(level: k)
        // The frame's box in the level's pixels (a turned frame's: the box round its four corners),
        // a pixel wider each way.
        let box: Box
        if viewport.isRotated {
            box = viewport.transform.worldBox(ofPixels: Box(minX: 0, minY: 0, maxX: Double(viewport.width),
                                                            maxY: Double(viewport.height)))
        } else {
            let s = viewport.worldSize, hw = Double(viewport.width) / 2 / s, hh = Double(viewport.height) / 2 / s
            box = Box(minX: viewport.center.x - hw, minY: viewport.center.y - hh,
                      maxX: viewport.center.x + hw, maxY: viewport.center.y + hh)
        }
        guard box.minX.isFinite, box.maxX.isFinite, box.minY.isFinite, box.maxY.isFinite else { return [] }
        let x0 = box.minX * width - 1, x1 = box.maxX * width + 1
        let y0 = box.minY * width - 1, y1 = box.maxY * width + 1
        let rows = max(0, Int((y0 / Double(tileSize)).rounded(.down)))...min(n - 1, Int((y1 / Double(tileSize)).rounded(.down)))
        guard !rows.isEmpty else { return [] }
        var out: [(Int, Int)] = []
        // A turned frame's box holds tiles in its corners that the frame misses (at 45 degrees, about
        // as many as it shows): only tiles whose square meets the frame, a pixel wider each way.
        let meets = viewport.isRotated ? FrameQuad(viewport, levelWidth: width) : nil
        // Unwrapped columns: world copy m, column c -> m * n + c.
        let first = Int((x0 / width).rounded(.down)), last = Int((x1 / width).rounded(.down))
        for m in first...last {
            let left = x0 - Double(m) * width, right = x1 - Double(m) * width
            let c0 = max(0, Int((left / Double(tileSize)).rounded(.down)))
            let c1 = min(n - 1, Int((right / Double(tileSize)).rounded(.down)))
            if c0 > c1 { continue }
            for row in rows {
                for c in c0...c1 {
                    if let meets {
                        let u0 = Double(m) * width + Double(c * tileSize), v0 = Double(row * tileSize)
                        let u1 = min(u0 + Double(tileSize), Double(m + 1) * width), v1 = min(v0 + Double(tileSize), width)
                        guard meets.square(u0, v0, u1, v1) else { continue }
                    }
                    out.append((m * n + c, row))
                }
            }
        }
        return out
    }

    /// A turned frame (a pixel wider each way) against squares of a level's pixels: whether they meet,
    /// by separating axes (the frame's two, the squares' two turned).
    private struct FrameQuad {
        /// Level pixels to frame pixels.
        let t: PixelTransform
        let width: Double, height: Double

        init(_ viewport: Viewport, levelWidth: Double) {
            t = viewport.transform.inUnits(levelWidth)
            width = Double(viewport.width)
            height = Double(viewport.height)
        }

        func square(_ u0: Double, _ v0: Double, _ u1: Double, _ v1: Double) -> Bool {
            let xs = [t.x(u0, v0), t.x(u1, v0), t.x(u1, v1), t.x(u0, v1)]
            let ys = [t.y(u0, v0), t.y(u1, v0), t.y(u1, v1), t.y(u0, v1)]
            // The frame's axes.
            guard xs.max()! >= -1, xs.min()! <= width + 1, ys.max()! >= -1, ys.min()! <= height + 1 else { return false }
            // The square's edges' normals (its sides turned: along u, (a, c); along v, (b, d)).
            let frame = [(-1.0, -1.0), (width + 1, -1), (width + 1, height + 1), (-1, height + 1)]
            for (nx, ny) in [(-t.c, t.a), (-t.d, t.b)] {
                let square = zip(xs, ys).map { $0 * nx + $1 * ny }, box = frame.map { $0.0 * nx + $0.1 * ny }
                if square.max()! < box.min()! || box.max()! < square.min()! { return false }
            }
            return true
        }
    }

    /// The tiles of level k a viewport shows, their columns wrapped.
    func tileIDs(level k: Int, for viewport: Viewport) -> [TileID] {
        let n = tileCount(level: k)
        return tiles(level: k, for: viewport).map { TileID(level: k, column: (($0.column % n) + n) % n, row: $0.row) }
    }

    /// The tiles `ids` (level, column, row), those not at hand read back from `store` or drawn by
    /// `draw`, two at a time (each on its own surface, by its own thread): a flight reaching a new
    /// level, or setting out from a held picture, needs a frame's tiles at once.
    private func rasters<S: Sequence>(_ ids: S, draw: TileDrawing, scale: Double) throws -> [TileID: Raster]
    where S.Element == TileID {
        var found: [TileID: Raster] = [:]
        var jobs: [(key: TileID, raster: Raster, transforms: [PixelTransform], zoom: Double)] = []
        var queued = Set<TileID>()
        for key in ids {
            if let e = tiles[key] {
                tick &+= 1
                tiles[key] = (e.raster, tick)
                found[key] = e.raster
                continue
            }
            if !queued.insert(key).inserted { continue }
            let k = key.level, column = key.column, row = key.row
            let width = levelWidth(k), n = tileCount(level: k)
            let x0 = column * tileSize, y0 = row * tileSize
            let (w, h) = rasterSize(key)
            let raster: Raster
            if let i = spare.firstIndex(where: { $0.width == w && $0.height == h }) {
                raster = spare.remove(at: i)
            } else {
                raster = planar ? .planar(PlanarTile(width: w, height: h, matrix: matrix))
                    : .bgra(try ImageSurface.mapped(width: w, height: h))
            }
            // The unit world into the tile's pixels, its border `border` pixels out; the copies of the
            // world beside it for the first and last columns, whose borders lie across the antimeridian.
            let b = border
            let t = PixelTransform(scale: Double(width), offsetX: Double(b - x0), offsetY: Double(b - y0))
            var transforms = [t]
            if column == 0 { transforms.append(t.shifted(worlds: -1)) }
            if column == n - 1 { transforms.append(t.shifted(worlds: 1)) }
            jobs.append((key, raster, transforms, zoom(level: k, scale: scale)))
        }
        // Planar tiles are drawn in BGRA first, by each thread in a picture of its own, then converted.
        var drawing: [[ImageSurface]] = [[], []]
        if planar {
            for (i, job) in jobs.enumerated() {
                let key = DrawingKey(worker: jobs.count == 1 ? 0 : i % 2, width: job.raster.width, height: job.raster.height)
                if drawingSurfaces[key] == nil {
                    drawingSurfaces[key] = try ImageSurface(width: key.width, height: key.height)
                }
                drawing[key.worker].append(drawingSurfaces[key]!)
            }
        }
        // Each job's tile read back from the store, or drawn (and then kept there). A flat planar tile
        // is kept there as its three samples (a world tour's open sea: 152 of its 578 tiles).
        let store = store
        func run(_ i: Int, worker: Int, surface: ImageSurface?, draw: TileDrawing) throws -> TileOutcome {
            let job = jobs[i]
            let name = store.map { _ in storeName(job.key, form: job.raster.form) }
            let (w, h) = (job.raster.width, job.raster.height)
            if let store, let name, let count = job.raster.withBytes({ store.read(name, width: w, height: h, upTo: $0) }) {
                switch job.raster {
                case .planar(let tile) where count == 3:
                    let b = tile.bytes
                    return TileOutcome(read: true, flat: (b[0], b[1], b[2]))
                case .planar(let tile) where count == tile.bytes.count:
                    tile.noteFlatness()
                    return TileOutcome(read: true, flat: tile.flat)
                case .bgra(let s) where count == s.byteCount:
                    return TileOutcome(read: true, flat: nil)
                default:
                    break  // not a tile of this size: drawn, and kept again
                }
            }
            switch job.raster {
            case .bgra(let s):
                try draw(s, job.transforms, job.zoom, worker)
            case .planar(let tile):
                try draw(surface!, job.transforms, job.zoom, worker)
                try tile.convert(surface!)
                tile.noteFlatness()
            }
            let flat = job.raster.planarTile?.flat
            if let store, let name {
                if let flat {
                    [flat.y, flat.u, flat.v].withUnsafeBytes { store.write(name, width: w, height: h, from: $0) }
                } else {
                    job.raster.withBytes { store.write(name, width: w, height: h, from: .init($0)) }
                }
            }
            return TileOutcome(read: false, flat: flat)
        }
        var outcomes = [TileOutcome](repeating: TileOutcome(read: false, flat: nil), count: jobs.count)
        if jobs.count == 1 {
            outcomes[0] = try run(0, worker: 0, surface: drawing[0].first, draw: draw)
        } else if jobs.count > 1 {
            // Worker k draws jobs k, k + 2, ...; the first failure in job order is thrown.
            let results = ConcurrentResults<TileOutcome>(count: jobs.count)
            withoutActuallyEscaping(draw) { draw in
                let work = TileWork(draw: draw, run: run, drawing: drawing, count: jobs.count)
                DrawingThreads.perform(iterations: 2) { worker in
                    for (n, i) in stride(from: worker, to: work.count, by: 2).enumerated() {
                        results.set(i, Result {
                            try work.run(i, worker, work.drawing[worker].isEmpty ? nil : work.drawing[worker][n], work.draw)
                        })
                    }
                }
            }
            for i in jobs.indices { outcomes[i] = try results.get(i) }
        }
        for (job, outcome) in zip(jobs, outcomes) {
            tick &+= 1
            if outcome.read { tilesRead += 1 } else { tilesDrawn += 1 }
            if !made.insert(job.key).inserted && !outcome.read { tilesDrawnAgain += 1 }
            // A flat planar tile is kept as its samples: the cache's room goes to tiles with pixels
            // to resample, and a flight finds more of them still at hand.
            var raster = job.raster
            if let flat = outcome.flat, case .planar(let tile) = raster {
                raster = .planar(PlanarTile(width: tile.width, height: tile.height, flat: flat, matrix: tile.matrix))
                flatTiles += 1
            }
            tiles[job.key] = (raster, tick)
            found[job.key] = raster
            bytes += raster.byteCount
        }
        peakBytes = max(peakBytes, bytes + reserved)
        return found
    }

    /// A tile's raster size in pixels, with its border (planar: rounded up to even).
    private func rasterSize(_ id: TileID) -> (width: Int, height: Int) {
        let width = levelWidth(id.level)
        let w = min(tileSize, width - id.column * tileSize) + 2 * border
        let h = min(tileSize, width - id.row * tileSize) + 2 * border
        return planar ? ((w + 1) & ~1, (h + 1) & ~1) : (w, h)
    }

    /// The bytes the distinct tiles of `frames` take as BGRA (with a BGRA tile's border): what holding
    /// all of them at once takes within `limitBytes` (their I420 planes take 3/8 of it, within `tileRoom`'s
    /// share for planar tiles).
    func bytesToHold(_ frames: [[TileID]]) -> Int {
        var seen = Set<TileID>(), total = 0
        for ids in frames {
            for id in ids where seen.insert(id).inserted {
                let width = levelWidth(id.level)
                total += (min(tileSize, width - id.column * tileSize) + 2) * (min(tileSize, width - id.row * tileSize) + 2) * 4
            }
        }
        return total
    }

    /// Bytes a tile's raster takes (with its border).
    private func tileBytes(_ id: TileID) -> Int {
        let (w, h) = rasterSize(id)
        return planar ? PlanarTile.bytes(width: w, height: h) : w * h * 4
    }

    /// Drops the least recently used tiles, except `keeping`, until `incoming` more bytes fit.
    /// Bytes held beside the tiles within the same bound (a held camera's picture of the map): the
    /// least recently used tiles make room for them.
    private(set) var reserved = 0

    func reserve(_ count: Int) {
        reserved = count
        if bytes > tileRoom { evict(toFit: 0, keeping: []) }
        peakBytes = max(peakBytes, bytes + reserved)
    }

    /// The tiles of every frame the cache will composite, in the order they will be: a tile is evicted
    /// when the next frame that shows it is furthest away (Belady's rule, which the plan of the trip
    /// makes possible): world tour, planar, 688 -> 653 tiles drawn (least recently used first: 688);
    /// BGRA 897 -> 868. Tiles no frame shows again go first; without a schedule, the least recently used.
    func schedule(_ frames: [[TileID]]) {
        uses = [:]
        complete = nil
        scheduled = frames
        for (i, ids) in frames.enumerated() {
            for id in Set(ids) { uses[id, default: []].append(i) }
        }
    }

    /// The scheduled frames' tiles, in order (`schedule`).
    private var scheduled: [[TileID]] = []

    /// A tile's name in the drawn tile cache: its level's width, column, row, form and border.
    private func storeName(_ id: TileID, form: String) -> String {
        "\(levelWidth(id.level))-\(id.column)-\(id.row).\(form)-\(border)"
    }

    /// Asks `store` to bring the scheduled tiles it keeps into memory in the order the frames show
    /// them (in either form: which one the frames take is known at their first compositing), on a
    /// thread of its own at the drawing's priority: a map rendered a while ago has its packs on disk,
    /// and the first frames would otherwise wait on reading their tiles there one by one.
    func readAhead() {
        guard let store, !scheduled.isEmpty else { return }
        var seen = Set<TileID>()
        var names: [String] = []
        for ids in scheduled {
            for id in ids where seen.insert(id).inserted {
                for form in Raster.forms { names.append(storeName(id, form: form)) }
            }
        }
        // Weakly: a store let go as its render ends is not kept for this thread.
        let hinted = names
        Thread.detachNewThread { [weak store] in
            DrawingThreads.yield(to: DrawingThreads.nice)
            store?.willNeed(hinted)
        }
    }

    /// Draws one tile a frame of the next `horizon` in the schedule will show and the cache lacks, the
    /// soonest wanted first, while the drawing thread would otherwise wait (for the encoder to take a
    /// frame): the frames that reach new tiles (a flight setting out, a new level) then find them drawn,
    /// instead of drawing them all at once while the encoder runs dry. It makes room only by letting
    /// go tiles next shown after the frame it draws for (Belady's rule again: a tile drawn ahead never
    /// pushes out one wanted sooner), within the same bound. False when there is nothing to draw:
    /// no schedule, no composited frame yet (the tiles' form, BGRA or planar, is not known), every
    /// tile of the horizon at hand, or no room.
    func prefetch(horizon: Int, draw: TileDrawing, scale: Double) throws -> Bool {
        guard framesComposited > 0 else { return false }
        let end = min(position + 1 + horizon, scheduled.count)
        guard position + 1 < end else { return false }
        // Frames found with every tile at hand by an earlier call are not looked through again (a tile
        // let go since cuts that stretch short at the first frame that shows it: `evict`).
        var start = position + 1, first = position + 1
        if let c = complete, c.from <= first {
            start = c.from
            first = max(first, c.through + 1)
        }
        for q in first..<max(first, end) {
            guard let id = scheduled[q].first(where: { tiles[$0] == nil }) else {
                complete = (start, q)
                continue
            }
            let size = tileBytes(id)
            if bytes + size > tileRoom {
                // Room from tiles shown only after frame q (or never again), furthest first; none
                // let go unless that makes enough.
                let freeable = tiles.reduce(0) { nextUse($1.key) > q ? $0 + $1.value.raster.byteCount : $0 }
                guard bytes - freeable + size <= tileRoom else { return false }
                evict(toFit: size, keeping: [], reuse: true, after: q)
            }
            defer { spare.removeAll() }
            _ = try rasters([id], draw: draw, scale: scale)
            return true
        }
        return false
    }

    /// Scheduled frames `prefetch` found with every tile at hand, from ... through (those after the
    /// current position). Before, any tile let go made it look through the next second of frames
    /// again: with the cache full, on every tile it drew ahead (world tour at `ultrafast`, tiles kept:
    /// the render's CPU samples in dictionary lookups and hashing 56 -> 27-31 at 2 kHz, about 14 ms).
    private var complete: (from: Int, through: Int)?

    /// The position of the next frame after `position` that shows `id` (Int.max: none).
    private func nextUse(_ id: TileID) -> Int {
        guard let list = uses[id] else { return Int.max }
        var lo = 0, hi = list.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if list[mid] <= position { lo = mid + 1 } else { hi = mid }
        }
        return lo < list.count ? list[lo] : Int.max
    }

    /// `reuse`: keep the rasters as spares for the tiles about to be drawn. `after`: only tiles next
    /// shown after that position go (or never again).
    private func evict(toFit incoming: Int, keeping: Set<TileID>, reuse: Bool = false, after: Int = Int.min) {
        let room = tileRoom
        let order = tiles.map { (key: $0.key, value: $0.value, next: nextUse($0.key)) }
            .sorted { $0.next != $1.next ? $0.next > $1.next : $0.value.tick < $1.value.tick }
        for (key, e, next) in order where !keeping.contains(key) && next > after {
            if bytes + incoming <= room { break }
            tiles[key] = nil
            // The frames from the next that shows it on no longer have every tile at hand.
            if let c = complete, next <= c.through { complete = next > c.from ? (c.from, next - 1) : nil }
            bytes -= e.raster.byteCount
            // A tile kept as its samples has no planes to draw another over.
            if reuse, e.raster.planarTile?.hasPlanes != false { spare.append(e.raster) }
        }
    }

    // MARK: Compositing

    /// Draws a tile: its surface, the transforms of the unit world into it, the zoom it stands for,
    /// and which of two threads draws it (0 or 1): two tiles may be drawn at once, one by each.
    typealias TileDrawing = (ImageSurface, [PixelTransform], Double, Int) throws -> Void

    /// Paints a frame from the levels `levels(for:)` gives, drawing missing tiles with `draw`.
    /// `outside`: painted above and below the world (where Web Mercator has no map).
    /// `position`: the frame's place in the `schedule` (nil: not in it).
    func composite(_ viewport: Viewport, position: Int? = nil, outside: Color, in cr: Context, draw: TileDrawing) throws {
        planar = false
        if let position { self.position = position }
        let placed = try place(viewport, draw: draw)
        let geometry = placed.map { (use, list) -> CompositeJob.Level in
            let width = Double(levelWidth(use.level))
            return (viewport.transform.inUnits(width), width, tileCount(level: use.level), use.alpha,
                    list.map { ($0.raster.surface!, $0.column, $0.row) })
        }
        for level in geometry { for (surface, _, _) in level.tiles { surface.flush() } }
        let W = viewport.width, H = viewport.height
        let job = CompositeJob(levels: geometry, width: W, height: H, tileSize: tileSize, outside: outside,
                               resamples: resamples)
        try Bands.drawRows(on: cr, width: W, height: H) { band, rows in job.paint(in: band, rows: rows) }
        framesComposited += 1
    }

    /// The same into an I420 picture, from planar tiles (each plane resampled by maptrip's kernel,
    /// north up or turned). Returns false, painting nothing, where the kernel cannot run (no AVX2, an
    /// odd size, no cross-fade in planar form): composite into a BGRA picture then.
    func compositePlanar(_ viewport: Viewport, position: Int? = nil, outside: Color, into picture: PlanarPicture,
                         draw: TileDrawing) throws -> Bool {
        let W = viewport.width, H = viewport.height
        guard Kernels.isAvailable, picture.width == W, picture.height == H, W % 2 == 0, H % 2 == 0,
              levels(for: viewport).count == 1 else { return false }
        planar = true
        matrix = picture.matrix
        if let position { self.position = position }
        let placed = try place(viewport, draw: draw)
        let use = placed[0].0, list = placed[0].1
        let width = Double(levelWidth(use.level))
        // A column at a time: its tiles share the kernel's plan of their columns.
        let tiles = list.map { ($0.raster.planarTile!, $0.column, $0.row) }.sorted { ($0.1, $0.2) < ($1.1, $1.2) }
        let job = PlanarCompositeJob(transform: viewport.transform.inUnits(width), levelWidth: width,
                                     n: tileCount(level: use.level), tiles: tiles,
                                     width: W, height: H, tileSize: tileSize, border: border,
                                     outside: try samples(of: outside), commonFlat: PlanarCompositeJob.commonFlat(tiles))
        let bands = picture.bands
        let painted = ConcurrentResults<Bool>(count: bands.count)
        DrawingThreads.perform(iterations: bands.count) { band in
            let rows = bands[band]
            painted.set(band, .success(job.paint(into: picture.rows(rows), firstRow: rows.lowerBound)))
        }
        guard try bands.indices.allSatisfy({ try painted.get($0) }) else { return false }
        framesComposited += 1
        return true
    }

    /// The Y, U and V of the colour outside the world, converted once (it is the same every frame).
    private func samples(of color: Color) throws -> (y: UInt8, u: UInt8, v: UInt8) {
        if let outside, outside.color == color, outside.matrix == matrix { return outside.samples }
        let s = try PlanarPicture.samples(of: color, matrix: matrix)
        outside = (color, matrix, s)
        return s
    }

    private var outside: (color: Color, matrix: YUVMatrix, samples: (y: UInt8, u: UInt8, v: UInt8))?

    /// The tiles of a frame's levels, at hand or drawn: per level, its use and its tiles' rasters and
    /// unwrapped positions.
    private func place(_ viewport: Viewport, draw: TileDrawing) throws
        -> [(LevelUse, [(raster: Raster, column: Int, row: Int)])] {
        let uses = levels(for: viewport)
        let wanted = uses.map { tileIDs(level: $0.level, for: viewport) }
        // Room first: the least recently used tiles this frame does not show go before any is drawn,
        // so the cache never holds more than its bound or this frame's tiles.
        let shown = Set(wanted.joined())
        let missing = shown.filter { tiles[$0] == nil }.reduce(0) { $0 + tileBytes($1) }
        if bytes + missing > tileRoom { evict(toFit: missing, keeping: shown, reuse: true) }
        defer { spare.removeAll() }
        let rasters = try rasters(wanted.joined(), draw: draw, scale: viewport.scale)
        return zip(uses, wanted).map { use, ids in
            let unwrapped = tiles(level: use.level, for: viewport)
            return (use, zip(ids, unwrapped).map { (rasters[$0]!, $1.column, $1.row) })
        }
    }
}

/// A tile's pixels: a BGRA surface, or I420 planes.
enum Raster {
    case bgra(ImageSurface)
    case planar(PlanarTile)

    var width: Int {
        switch self {
        case .bgra(let s): s.width
        case .planar(let t): t.width
        }
    }

    var height: Int {
        switch self {
        case .bgra(let s): s.height
        case .planar(let t): t.height
        }
    }

    var byteCount: Int {
        switch self {
        case .bgra(let s): s.byteCount
        case .planar(let t): t.byteCount
        }
    }

    var surface: ImageSurface? {
        if case .bgra(let s) = self { return s }
        return nil
    }

    var planarTile: PlanarTile? {
        if case .planar(let t) = self { return t }
        return nil
    }

    /// The form of its pixels, as a tile's name in the drawn tile cache says it.
    var form: String {
        switch self {
        case .bgra: Self.bgraForm
        case .planar(let t): t.matrix == .bt709 ? Self.planar709Form : Self.planarForm
        }
    }

    static let planarForm = "i420", planar709Form = "i420-709", bgraForm = "bgra"
    /// Every form a tile's name may say.
    static let forms = [planarForm, planar709Form, bgraForm]

    /// Its pixels as one run of bytes (a BGRA surface flushed before, and marked changed after); nil,
    /// doing nothing, for a surface whose rows are padded.
    func withBytes<R>(_ body: (UnsafeMutableRawBufferPointer) -> R) -> R? {
        switch self {
        case .bgra(let s):
            guard s.stride == s.width * 4 else { return nil }
            s.flush()
            defer { s.markDirty() }
            return body(UnsafeMutableRawBufferPointer(start: s.data, count: s.stride * s.height))
        case .planar(let t):
            return body(t.bytes)
        }
    }
}

/// A tile as I420 planes (width and height even, border included), converted from its BGRA drawing
/// by libyuv as a whole picture would be; or a held picture of the map, in the same form. A flat tile
/// may be kept as its three samples alone, without planes (`init(width:height:flat:)`).
final class PlanarTile {
    let width: Int, height: Int
    /// The matrix its samples are converted with.
    let matrix: YUVMatrix
    /// The planes, one after the other; nil for a tile kept as its samples (`flat`).
    private let memory: UnsafeMutablePointer<UInt8>?

    static func bytes(width: Int, height: Int) -> Int { width * height + 2 * (width / 2) * (height / 2) }

    /// What a tile kept as its samples is counted as in the cache's bound (its object and its entry).
    static let flatBytes = 128

    init(width: Int, height: Int, matrix: YUVMatrix = .bt601) {
        self.width = width
        self.height = height
        self.matrix = matrix
        memory = .allocate(capacity: Self.bytes(width: width, height: height))
    }

    /// A flat tile kept as its three samples: composited, it is filled with them (`flat`), and it
    /// has no planes to read or draw into.
    init(width: Int, height: Int, flat: (y: UInt8, u: UInt8, v: UInt8), matrix: YUVMatrix = .bt601) {
        self.width = width
        self.height = height
        self.matrix = matrix
        memory = nil
        self.flat = flat
    }

    deinit { memory?.deallocate() }

    /// Whether it has planes (a tile kept as its samples has none).
    var hasPlanes: Bool { memory != nil }

    /// The bytes it takes: its planes', or `flatBytes`.
    var byteCount: Int { memory == nil ? Self.flatBytes : Self.bytes(width: width, height: height) }

    /// The planes' bytes, one after the other (a tile with planes only).
    var bytes: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: planeMemory, count: Self.bytes(width: width, height: height))
    }

    /// The planes' memory: a tile kept as its samples is never read or drawn as planes (the cache
    /// fills it), so reaching here without them is maptrip's own mistake.
    private var planeMemory: UnsafeMutablePointer<UInt8> {
        guard let memory else { preconditionFailure("the planes of a tile kept as its samples") }
        return memory
    }

    /// The planes as a picture (to draw into, or to read from).
    var picture: PlanarPicture {
        let w = width / 2, h = height / 2
        let memory = planeMemory
        return PlanarPicture(y: memory, yStride: width, u: memory + width * height, uStride: w,
                             v: memory + width * height + w * h, vStride: w, width: width, height: height, matrix: matrix)
    }

    var planes: [PixelPlane] { picture.planes }

    /// The tile's one Y, U and V where every sample of each plane (its border too) is the same: open
    /// sea, or land with nothing on it. Composited, such a tile comes out as those samples whatever
    /// the scale (the kernel's blend of equal samples is that sample), so it is filled, not
    /// resampled (`PlanarCompositeJob`). Nil when not (or not known: see `noteFlatness`).
    private(set) var flat: (y: UInt8, u: UInt8, v: UInt8)?

    /// Works out `flat` from the planes as they are now: call it whenever they have been written.
    func noteFlatness() {
        flat = nil
        let p = planes
        let values = p.map { $0.data.pointee }
        for (plane, value) in zip(p, values) {
            guard Kernels.allBytes(of: plane, are: value) else { return }
        }
        flat = (values[0], values[1], values[2])
    }

    /// Copies the planes within `rects` (luma pixels; widened to even bounds, as the chroma's 2x2
    /// blocks are) into a picture of the same size.
    func copy(_ rects: [InkCells.Rect], into picture: PlanarPicture) {
        let source = self.picture
        for r in rects {
            let x0 = max(0, r.x) & ~1, y0 = max(0, r.y) & ~1
            let x1 = min(width, (r.x + r.width + 1) & ~1), y1 = min(height, (r.y + r.height + 1) & ~1)
            guard x1 > x0, y1 > y0 else { continue }
            source.rows(y0..<y1, x: x0, width: x1 - x0).copy(into: picture.rows(y0..<y1, x: x0, width: x1 - x0))
        }
    }

    /// Copies the planes into a picture of the same size.
    func copy(into picture: PlanarPicture) { self.picture.copy(into: picture) }

    /// Converts a BGRA picture of the tile's size into the planes; or, with `rows` (even bounds), a
    /// band of BGRA rows into those rows of the planes.
    func convert(_ surface: ImageSurface, rows: Range<Int>? = nil) throws {
        let rows = rows ?? 0..<height
        guard rows.lowerBound % 2 == 0, rows.upperBound % 2 == 0 || rows.upperBound == height,
              rows.lowerBound >= 0, rows.upperBound <= height, surface.width == width, surface.height >= rows.count else {
            throw YUVError(function: "PlanarTile.convert", message: "rows \(rows) of \(width)x\(height) from a \(surface.width)x\(surface.height) surface")
        }
        surface.flush()
        let p = planes, top = rows.lowerBound
        try YUV.argbToI420(src: surface.data, srcStride: surface.stride,
                           y: p[0].data + top * p[0].stride, yStride: p[0].stride,
                           u: p[1].data + top / 2 * p[1].stride, uStride: p[1].stride,
                           v: p[2].data + top / 2 * p[2].stride, vStride: p[2].stride,
                           width: width, height: rows.count, matrix: matrix)
    }
}

/// One frame's compositing into an I420 picture, from one level's planar tiles: every plane in the
/// same way, its pixels 1 (Y) or 2 (U, V) frame pixels wide. Painted by each band's thread.
private struct PlanarCompositeJob: @unchecked Sendable {
    /// Level pixels to frame pixels.
    let transform: PixelTransform
    let levelWidth: Double, n: Int
    let tiles: [(PlanarTile, Int, Int)]
    let width: Int, height: Int, tileSize: Int, border: Int
    let outside: (y: UInt8, u: UInt8, v: UInt8)
    /// The colour most of the tiles are flat in (see `commonFlat(_:)`), found once for every band.
    let commonFlat: (y: UInt8, u: UInt8, v: UInt8)?

    /// `picture`: the frame's rows from `firstRow` on. False when the kernel refused a tile.
    func paint(into picture: PlanarPicture, firstRow: Int) -> Bool {
        if transform.isRotated { return paintTurned(into: picture, firstRow: firstRow) }
        let targets = picture.planes
        for plane in 0..<3 {
            let d = plane == 0 ? 1.0 : 2.0
            let pw = width / Int(d), ph = height / Int(d), first = firstRow / Int(d)
            let target = targets[plane]
            func snap(_ v: Double, _ limit: Int) -> Int { Int(min(max(v.rounded(), 0), Double(limit))) }
            // Plane pixel of a level pixel edge: one expression for both tiles sharing it.
            func x(_ u: Double) -> Double { transform.x(u, 0) / d }
            func y(_ v: Double) -> Double { transform.y(0, v) / d }
            let value = plane == 0 ? outside.y : plane == 1 ? outside.u : outside.v
            let top = snap(y(0), ph), bottom = snap(y(levelWidth), ph)
            picture.fill(rows: (0..<top).clamped(to: first..<(first + target.height)).relative(to: first),
                         plane: plane, with: value)
            picture.fill(rows: (bottom..<ph).clamped(to: first..<(first + target.height)).relative(to: first),
                         plane: plane, with: value)
            // Flat tiles' squares, filled after the others, those side by side in one colour as one:
            // a row's run across them one write (the embedded map's frames are mostly flat tiles, and
            // filling them was a quarter of a road trip's drawing, a tile's row at a time).
            var flats: [(x0: Int, x1: Int, y0: Int, y1: Int, value: UInt8)] = []
            for (tile, column, row) in tiles {
                let (u0, v0, u1, v1) = tileSquare(column: column, row: row, n: n, levelWidth: levelWidth, tileSize: tileSize)
                let px0 = snap(x(u0), pw), px1 = snap(x(u1), pw)
                let py0 = snap(y(v0), ph), py1 = snap(y(v1), ph)
                if px1 <= px0 || py1 <= py0 { continue }
                if let flat = tile.flat {
                    flats.append((px0, px1, py0, py1, plane == 0 ? flat.y : plane == 1 ? flat.u : flat.v))
                    continue
                }
                // The tile's pixel 0 is `border` level pixels before u0.
                let b = Double(border)
                if !Kernels.resample(tile.planes[plane], bytesPerPixel: 1, scale: transform.scale, originX: x(u0 - b),
                                     originY: y(v0 - b), into: target, firstRow: first,
                                     x: px0, y: py0, width: px1 - px0, height: py1 - py0) {
                    return false
                }
            }
            flats.sort { ($0.y0, $0.x0) < ($1.y0, $1.x0) }
            var k = 0
            while k < flats.count {
                var f = flats[k]
                k += 1
                while k < flats.count, flats[k].y0 == f.y0, flats[k].y1 == f.y1, flats[k].x0 == f.x1, flats[k].value == f.value {
                    f.x1 = flats[k].x1
                    k += 1
                }
                Kernels.fill(f.value, into: target, firstRow: first, x: f.x0, y: f.y0, width: f.x1 - f.x0, height: f.y1 - f.y0)
            }
        }
        return true
    }

    /// A turned frame: each plane's pixels whose centres fall in a tile's square (in the plane's own
    /// pixels: a chroma sample's centre is its 2x2 luma block's) sampled from that tile's plane, as
    /// `CompositeJob.paintTurned` paints BGRA; the whole plane first filled with the outside where
    /// the frame reaches past the world's top or bottom.
    private func paintTurned(into picture: PlanarPicture, firstRow: Int) -> Bool {
        let targets = picture.planes
        let luma = transform.inverseCoefficients
        let beyond = transform.reachesPastTheWorld(width: width, height: height, levelWidth: levelWidth)
        // Where the frame stays on the world and most of it is flat tiles of one colour (a map's empty
        // land or sea around its data), the band is filled with that colour at once and those tiles
        // skipped: filling them tile by tile works out each row's span in each tile (a sixth of a
        // turned frame's composite in a ride over a small extract). Every pixel of a frame on the
        // world is in some tile's square, so each pixel still shows its own tile's colour.
        let common = beyond ? nil : commonFlat
        for plane in 0..<3 {
            let d = plane == 0 ? 1 : 2, target = targets[plane], first = firstRow / d
            let rows = first..<(first + target.height), inverse = plane == 0 ? luma : Kernels.halved(luma)
            if beyond {
                picture.fill(rows: 0..<target.height, plane: plane, with: plane == 0 ? outside.y : plane == 1 ? outside.u : outside.v)
            } else if let common {
                picture.fill(rows: 0..<target.height, plane: plane, with: plane == 0 ? common.y : plane == 1 ? common.u : common.v)
            }
            let h = Double(d)
            for (tile, column, row) in tiles {
                let (u0, v0, u1, v1) = tileSquare(column: column, row: row, n: n, levelWidth: levelWidth, tileSize: tileSize)
                if let flat = tile.flat {
                    if let common, flat == common { continue }
                    guard Kernels.fillTurned(plane == 0 ? flat.y : plane == 1 ? flat.u : flat.v, into: target,
                                             firstRow: first, rows: rows, inverse: inverse,
                                             u0: u0 / h, v0: v0 / h, u1: u1 / h, v1: v1 / h) else { return false }
                    continue
                }
                guard Kernels.resampleTurned(tile.planes[plane], bytesPerPixel: 1, border: border / d, into: target,
                                             firstRow: first, rows: rows, inverse: inverse,
                                             u0: u0 / h, v0: v0 / h, u1: u1 / h, v1: v1 / h) else { return false }
            }
        }
        return true
    }
}

extension PlanarCompositeJob {
    /// The colour of the flat tiles when they are most of the tiles (nil: fewer than half are flat
    /// tiles of one colour).
    static func commonFlat(_ tiles: [(PlanarTile, Int, Int)]) -> (y: UInt8, u: UInt8, v: UInt8)? {
        var counts: [UInt32: Int] = [:]
        for (tile, _, _) in tiles {
            guard let f = tile.flat else { continue }
            counts[UInt32(f.y) << 16 | UInt32(f.u) << 8 | UInt32(f.v), default: 0] += 1
        }
        guard let (key, count) = counts.max(by: { $0.value < $1.value }), count * 2 >= tiles.count else { return nil }
        return (UInt8(key >> 16), UInt8(key >> 8 & 0xFF), UInt8(key & 0xFF))
    }
}

/// The square of an (unwrapped) tile in its level's pixels: [u0, u1) x [v0, v1), the last column
/// and row cut at the world's edge (`n` tiles across a level `levelWidth` pixels wide).
private func tileSquare(column: Int, row: Int, n: Int, levelWidth: Double, tileSize: Int)
    -> (u0: Double, v0: Double, u1: Double, v1: Double) {
    let m = Int((Double(column) / Double(n)).rounded(.down))
    let c = column - m * n
    let u0 = Double(m) * levelWidth + Double(c * tileSize)
    let v0 = Double(row * tileSize)
    return (u0, v0, min(u0 + Double(tileSize), Double(m + 1) * levelWidth), min(v0 + Double(tileSize), levelWidth))
}

private extension PixelTransform {
    /// Frame point to level point, as the turned kernels take it: (a, b, c, d, e, f) for level point
    /// (a x + b y + c, d x + e y + f).
    var inverseCoefficients: [Double] {
        let back = inverted
        return [back.a, back.b, back.offsetX, back.c, back.d, back.offsetY]
    }

    /// Whether a turned frame `width` x `height` reaches past the top or bottom of a level
    /// `levelWidth` pixels square (where there is no map).
    func reachesPastTheWorld(width: Int, height: Int, levelWidth: Double) -> Bool {
        let corners = [(0.0, 0.0), (Double(width), 0), (0, Double(height)), (Double(width), Double(height))]
        let vs = corners.map { plane(atPixel: $0.0, $0.1).y }
        return vs.min()! < 0 || vs.max()! > levelWidth
    }
}

private extension Range where Bound == Int {
    /// This range shifted so that `origin` becomes 0.
    func relative(to origin: Int) -> Range<Int> { (lowerBound - origin)..<(upperBound - origin) }
}

/// What one frame's compositing paints: per level (bottom first) its scale, centre in level pixels,
/// width, tile count, opacity and tiles (unwrapped column, row). Painted by each band's thread.
private struct CompositeJob: @unchecked Sendable {
    typealias Level = (transform: PixelTransform, width: Double, n: Int, alpha: Double, tiles: [(ImageSurface, Int, Int)])
    let levels: [Level]
    let width: Int, height: Int, tileSize: Int
    let outside: Color
    /// Whether the opaque bottom level is painted with maptrip's own kernel (`Kernels.resample`).
    let resamples: Bool

    /// `rows`: the frame's rows `cr`'s surface holds from its row 0, or nil to paint through `cr` only.
    func paint(in cr: Context, rows: Range<Int>?) {
        func snap(_ v: Double, _ limit: Int) -> Int { Int(min(max(v.rounded(), 0), Double(limit))) }
        if levels.first?.transform.isRotated == true {
            paintTurned(in: cr, rows: rows)
            return
        }
        for (i, level) in levels.enumerated() {
            let t = level.transform, s = t.scale
            // Frame pixel of an (unwrapped) level pixel edge: one expression for both tiles sharing it.
            func x(_ u: Double) -> Double { t.x(u, 0) }
            func y(_ v: Double) -> Double { t.y(0, v) }
            if i == 0 {
                // Above and below the world: no map.
                let top = snap(y(0), height), bottom = snap(y(level.width), height)
                if top > 0 { cr.fillPixelRect(x: 0, y: 0, width: width, height: top, color: outside) }
                if bottom < height { cr.fillPixelRect(x: 0, y: bottom, width: width, height: height - bottom, color: outside) }
            }
            cr.setOperator(i == 0 ? .source : .over)
            for (surface, column, row) in level.tiles {
                let (u0, v0, u1, v1) = square(column: column, row: row, of: level)
                let px0 = snap(x(u0), width), px1 = snap(x(u1), width)
                let py0 = snap(y(v0), height), py1 = snap(y(v1), height)
                if px1 <= px0 || py1 <= py0 { continue }
                // The tile's pixel 0 is its border, one level pixel before u0.
                if i == 0, level.alpha >= 1, resamples, let rows,
                   Kernels.resample(surface.pixels, bytesPerPixel: 4, scale: s, originX: x(u0 - 1), originY: y(v0 - 1),
                                    into: cr.surface.pixels, firstRow: rows.lowerBound,
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

    /// The square of an (unwrapped) tile in its level's pixels: [u0, u1) x [v0, v1), the last column
    /// and row cut at the world's edge.
    private func square(column: Int, row: Int, of level: Level) -> (u0: Double, v0: Double, u1: Double, v1: Double) {
        tileSquare(column: column, row: row, n: level.n, levelWidth: level.width, tileSize: tileSize)
    }

    /// A turned frame: each tile painted through the frame's turn, bilinearly, inside its square's
    /// turned outline (edges not antialiased: neighbours share their pixels out exactly; the tiles'
    /// borders feed the filtering at the seams).
    private func paintTurned(in cr: Context, rows: Range<Int>?) {
        for (i, level) in levels.enumerated() {
            let t = level.transform
            // Frame point to level point, for the kernel.
            let inverse = t.inverseCoefficients
            // Where the frame reaches past the world's top or bottom: no map there.
            if i == 0, t.reachesPastTheWorld(width: width, height: height, levelWidth: level.width) {
                cr.fillPixelRect(x: 0, y: 0, width: width, height: height, color: outside)
            }
            cr.setOperator(i == 0 ? .source : .over)
            for (surface, column, row) in level.tiles {
                let (u0, v0, u1, v1) = square(column: column, row: row, of: level)
                if i == 0, level.alpha >= 1, resamples, let rows,
                   Kernels.resampleTurned(surface.pixels, into: cr.surface.pixels, firstRow: rows.lowerBound, rows: rows,
                                          inverse: inverse, u0: u0, v0: v0, u1: u1, v1: v1) {
                    continue
                }
                let outline = [(u0, v0), (u1, v0), (u1, v1), (u0, v1)].map { (x: t.x($0.0, $0.1), y: t.y($0.0, $0.1)) }
                // The tile's pixel 0 is its border, one level pixel before u0.
                cr.paintImage(surface, a: t.a, b: t.b, c: t.c, d: t.d, x0: t.x(u0 - 1, v0 - 1), y0: t.y(u0 - 1, v0 - 1),
                              clip: outline, alpha: level.alpha, filter: .bilinear)
            }
        }
        cr.setOperator(.over)
    }
}

/// How a tile came to be at hand: read back from the drawn tile cache (or drawn), and its samples if
/// it is flat (planar tiles only).
private struct TileOutcome {
    var read: Bool
    var flat: (y: UInt8, u: UInt8, v: UInt8)?
}

/// The tile drawing handed to the two threads (each calls it for its own tiles only): `run` draws
/// job i with `draw`, as worker k, in the picture given (planar tiles' BGRA drawing), or reads it back
/// from the drawn tile cache (true).
private struct TileWork: @unchecked Sendable {
    let draw: RasterCache.TileDrawing
    let run: (Int, Int, ImageSurface?, RasterCache.TileDrawing) throws -> TileOutcome
    let drawing: [[ImageSurface]]
    let count: Int
}
