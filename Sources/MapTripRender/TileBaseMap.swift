import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTiles

/// Raster map tiles as the base map.
///
/// `prepare(for:)` works out every tile any frame will show and fetches them all in one batch (a
/// remote source fetches in parallel, through the HTTP client's disk cache), then decodes each once
/// to check it. Decoded tiles live in an LRU cache bounded in bytes; a tile evicted from it is
/// decoded again from the bytes kept in memory, so drawing never fetches frame by frame.
///
/// Drawing (see `draw`):
/// * **Zoom**: the tile zoom is the first integer at or above the ideal zoom for the frame's pixel
///   density (`TileMath.tileZoom`), so tiles are scaled *down* with Cairo's GOOD filter (a proper
///   downscaling filter in pixman) and labels stay crisp; at an integer camera zoom with 256-px tiles
///   and a pixel ratio of 1 they are drawn 1:1. Beyond the source's `maxZoom` the deepest tiles are
///   scaled up; nothing deeper is ever requested.
/// * **No seams**: each tile is painted through its exact (fractional) placement, but only inside
///   its rectangle rounded to whole frame pixels. Neighbours round their shared edge identically,
///   so every frame pixel belongs to exactly one tile, fully opaque: no antialiased hairline where
///   two tiles meet. The tile image is padded outwards (EXTEND_PAD), so the filter never fades its
///   edge to transparent.
/// * **No popping**: switching the tile zoom at a level boundary would swap the whole map's detail
///   and label size in one frame. Instead the picture is made a *continuous function of the camera
///   zoom*: just past the boundary where the tile zoom steps from z-1 to z (the first `crossFade`
///   fraction of the zoom level), level z-1 is still drawn underneath (scaled up by at most
///   2^crossFade, 19 % for 0.25) and level z is faded in over it with a smoothstep alpha
///   (0 at the boundary, 1 at `crossFade`, zero slope at both ends). At the boundary itself the frame
///   is exactly level z-1 at 1:1, as before it; after the fade it is exactly level z. So an integer
///   zoom (where a dwelling camera usually rests) shows one level, pixel for pixel, and a zooming
///   camera sees details dissolve in rather than pop.
/// * **Failures**: a tile that is missing, failed to fetch (HTTP 404/500, timeout) or does not
///   decode is drawn from an ancestor tile already at hand (the parent's quarter, scaled up) when one
///   is, else as a light grey placeholder with a subtle grid. Failures are counted and reported as one
///   warning for the run. With `strict`, any failed tile makes `prepare` / `draw` throw instead.
public final class TileBaseMap: BaseMap {
    public let source: TileSource
    public let strict: Bool
    /// The scene's `map.attribution`, which wins over the source's own.
    public let sceneAttribution: String?
    public let decoder: TileDecoding
    /// The fraction of a zoom level over which the next tile level fades in (0: no fade, hard switch).
    public var crossFade: Double = 0.25
    /// Painted where there is no map: above and below the Web Mercator square, outside the source's bounds.
    public var background = Color(red: 0.894, green: 0.894, blue: 0.886)
    /// A frame needing more tiles than this at one level (a camera far below the source's minZoom)
    /// shows the background there instead, with a warning.
    public var maxTilesPerFrame = 4096
    /// How many zooms up to look for an ancestor to stand in for a failed tile.
    public var fallbackLevels = 3
    /// Painted beyond Web Mercator's ±85.05 degrees and outside a projection's domain, when the tiles
    /// are reprojected (the scene's `style.polar`).
    public var polar = Color(red: 0.933, green: 0.949, blue: 0.961)
    /// Painted beyond -85.05 degrees instead, where it differs (a world picture's Antarctica); nil: `polar`.
    public var polarSouth: Color?
    /// Around the globe, when the tiles are reprojected onto it (the scene's `style.space` and `style.atmosphere`).
    public var space = Color(red: 0.020, green: 0.027, blue: 0.051)
    public var atmosphere = Color(red: 0.561, green: 0.765, blue: 1)

    public static let defaultCacheBytes = 512 << 20

    var bytes: [TileKey: Data] = [:]
    /// Tiles frames need that failed, with why.
    var failed: [TileKey: String] = [:]
    /// Ancestors asked for only as stand-ins that failed too (not counted).
    private var fallbackFailed: Set<TileKey> = []
    private let cache: SurfaceCache
    private var placeholderSurface: ImageSurface?
    var tooManyTilesFrames = 0
    var unpreparedFetches = 0
    /// The last reprojected frame (see TileReprojection.swift), copied back for a still frame.
    var lastReprojected: ReprojectedFrame?
    /// Frames reprojected (not copied back).
    var reprojectedFrames = 0

    public init(source: TileSource, attribution: String? = nil, strict: Bool = false,
                cacheBytes: Int = TileBaseMap.defaultCacheBytes, decoder: TileDecoding = StandardTileDecoder()) {
        self.source = source
        self.strict = strict
        self.sceneAttribution = attribution
        self.decoder = decoder
        cache = SurfaceCache(limit: max(cacheBytes, 1 << 20))
    }

    // MARK: Credits and warnings

    public var attribution: String? { Self.nonEmpty(sceneAttribution) ?? Self.nonEmpty(source.attribution) }

    public var attributionWarning: String? {
        attribution == nil ? "Map tiles without attribution: set map.attribution" : nil
    }

    public var warnings: [String] {
        var out: [String] = []
        if !failed.isEmpty {
            out.append("\(failed.count) map tile\(failed.count == 1 ? "" : "s") from \(source.label) could not be loaded "
                       + "and \(failed.count == 1 ? "was" : "were") drawn as grey placeholders (e.g. \(failureExamples(3).joined(separator: "; ")))")
        }
        if tooManyTilesFrames > 0 {
            out.append("\(tooManyTilesFrames) frame\(tooManyTilesFrames == 1 ? "" : "s") zoomed too far out for the tiles "
                       + "(the source starts at zoom \(source.minZoom)): drawn without them")
        }
        return out
    }

    /// The tiles that failed so far, with why.
    public var failures: [TileKey: String] { failed }

    // MARK: Planning

    /// One tile level of a frame: its zoom, its opacity and the tiles it covers.
    public struct Layer: Equatable, Sendable {
        public var zoom: Int
        public var alpha: Double
        public var range: TileRange
    }

    /// The tile levels a viewport is drawn from, bottom first: usually one, two during a cross-fade.
    public func layers(for viewport: Viewport) -> [Layer] {
        let ideal = TileMath.idealTileZoom(cameraZoom: viewport.camera.zoom, scale: viewport.scale,
                                           tileSize: source.tileSize)
        let raw = TileMath.ceilZoom(ideal)
        let z = TileMath.clampZoom(raw, minZoom: source.minZoom, maxZoom: source.maxZoom)
        var levels: [(Int, Double)] = [(z, 1)]
        if crossFade > 0, raw == z, z - 1 >= source.minZoom {
            let u = ideal - Double(z - 1)  // in (0, 1]: how far past the boundary z-1 -> z
            if u < crossFade {
                let s = u / crossFade
                let a = s * s * (3 - 2 * s)
                if a < 0.002 { levels = [(z - 1, 1)] } else if a < 0.998 { levels = [(z - 1, 1), (z, a)] }
            }
        }
        return levels.map { Layer(zoom: $0.0, alpha: $0.1, range: TileMath.tileRange(covering: viewport, zoom: $0.0)) }
    }

    /// The tiles a viewport needs from the source (wrapped, covered by the source, deduplicated).
    public func neededTiles(for viewport: Viewport) -> [TileKey] {
        if Self.needsReprojection(viewport) { return reprojectedTiles(for: viewport).keys }
        var out: [TileKey] = []
        for layer in layers(for: viewport) where layer.range.count <= maxTilesPerFrame {
            out += layer.range.keys.filter { source.covers($0) }
        }
        return out
    }

    // MARK: BaseMap

    public func prepare(for viewports: [Viewport]) throws {
        var seen = Set<TileKey>()
        var needed: [TileKey] = []
        for viewport in viewports {
            for key in neededTiles(for: viewport) where seen.insert(key).inserted { needed.append(key) }
        }
        fetch(needed.filter { bytes[$0] == nil && failed[$0] == nil })
        // Decode each tile once now: undecodable bytes are found before the first frame, and the
        // cache starts filled (in order of first use) with what fits.
        for key in needed where bytes[key] != nil && cache.get(key) == nil {
            guard let data = bytes[key] else { continue }
            do {
                let surface = try decoder.decode(data)
                if cache.wouldFit(surface.byteCount) { cache.put(key, surface) }
            } catch {
                bytes[key] = nil
                failed[key] = "\(TileError.undecodable(key, "\(error)"))" + (source.location(of: key).map { " (\($0))" } ?? "")
            }
        }
        if let unreadable { throw unreadable }
        if strict, !failed.isEmpty {
            throw TileError.tilesFailed(count: failed.count, examples: failureExamples(1))
        }
        fetchStandIns(for: Array(failed.keys))
    }

    public func draw(_ viewport: Viewport, in cr: Context) throws {
        if Self.needsReprojection(viewport) { return try drawReprojected(viewport, in: cr) }
        let layers = layers(for: viewport)
        // Normally a no-op: prepare() fetched everything. A viewport it did not see is fetched
        // here in one batch rather than failing.
        var unknown: [TileKey] = []
        for layer in layers where layer.range.count <= maxTilesPerFrame {
            unknown += layer.range.keys.filter { source.covers($0) && bytes[$0] == nil && failed[$0] == nil }
        }
        if !unknown.isEmpty {
            unpreparedFetches += 1
            fetch(unknown)
            if !strict { fetchStandIns(for: unknown.filter { failed[$0] != nil }) }
        }

        cr.save()
        defer { cr.restore() }
        cr.setSource(background)
        cr.setOperator(.source)
        cr.paint()
        cr.setOperator(.over)
        var skipped = false
        for layer in layers {
            if layer.range.count > maxTilesPerFrame {
                skipped = true
                continue
            }
            try drawLayer(layer, viewport, cr)
        }
        if skipped { tooManyTilesFrames += 1 }
        try cr.checkStatus("draw map tiles")
    }

    // MARK: Drawing

    enum TileImage {
        case tile(ImageSurface)
        case ancestor(ImageSurface, levels: Int)
        case placeholder
        case empty
    }

    private func drawLayer(_ layer: Layer, _ viewport: Viewport, _ cr: Context) throws {
        let range = layer.range
        let n = Double(TileMath.tileCount(zoom: layer.zoom))
        let c = viewport.centerWorld, s = viewport.worldSize
        let w = viewport.width, h = viewport.height
        let halfW = Double(w) / 2, halfH = Double(h) / 2
        // Tile edges in frame pixels, each computed by one expression so that neighbours agree. (The
        // centred form, not `viewport.transform`: the two differ in the last bits, and tiles are
        // placed at fractional pixels, so the folded form changed 530 of 720 frames of a tile render
        // by a level or two; `tools/same-frames.sh` keeps renders identical across refactors.)
        func edgeX(_ column: Int, _ n: Double) -> Double { (Double(column) / n - c.x) * s + halfW }
        func edgeY(_ row: Int, _ n: Double) -> Double { (Double(row) / n - c.y) * s + halfH }
        func snap(_ v: Double, _ limit: Int) -> Int {
            guard v.isFinite else { return v > 0 ? limit : 0 }
            return Int(min(max(v.rounded(), 0), Double(limit)))
        }
        for row in range.rows {
            let y0 = edgeY(row, n), y1 = edgeY(row + 1, n)
            let py0 = snap(y0, h), py1 = snap(y1, h)
            if py1 <= py0 { continue }
            for column in range.columns {
                let x0 = edgeX(column, n), x1 = edgeX(column + 1, n)
                let px0 = snap(x0, w), px1 = snap(x1, w)
                if px1 <= px0 { continue }
                let key = range.key(column: column, row: row)
                if strict, let why = failed[key] {
                    throw TileError.tilesFailed(count: failed.count, examples: [why])
                }
                switch image(for: key) {
                case .tile(let surface):
                    cr.paintImage(surface, into: x0, y0, x1 - x0, y1 - y0,
                                  clipX: px0, clipY: py0, clipWidth: px1 - px0, clipHeight: py1 - py0, alpha: layer.alpha)
                case .ancestor(let surface, let k):
                    // The ancestor's own placement (unwrapped column and row shifted down k levels:
                    // arithmetic shift floors), clipped to this tile's pixels: its quarter (or
                    // sixteenth...) lands exactly where this tile would be.
                    let na = n / Double(1 << k)
                    let ac = column >> k, ar = row >> k
                    let ax0 = edgeX(ac, na), ax1 = edgeX(ac + 1, na), ay0 = edgeY(ar, na), ay1 = edgeY(ar + 1, na)
                    cr.paintImage(surface, into: ax0, ay0, ax1 - ax0, ay1 - ay0,
                                  clipX: px0, clipY: py0, clipWidth: px1 - px0, clipHeight: py1 - py0, alpha: layer.alpha)
                case .placeholder:
                    let p = try placeholder()
                    cr.paintImage(p, into: x0, y0, x1 - x0, y1 - y0,
                                  clipX: px0, clipY: py0, clipWidth: px1 - px0, clipHeight: py1 - py0, alpha: layer.alpha)
                case .empty:
                    cr.fillPixelRect(x: px0, y: py0, width: px1 - px0, height: py1 - py0,
                                     color: background.withAlpha(layer.alpha))
                }
            }
        }
    }

    func image(for key: TileKey) -> TileImage {
        guard source.covers(key) else { return .empty }
        if let s = surface(key, counted: true) { return .tile(s) }
        var k = 1
        while k <= fallbackLevels, key.z - k >= source.minZoom {
            if let s = surface(key.ancestor(levels: k), counted: false) { return .ancestor(s, levels: k) }
            k += 1
        }
        return .placeholder
    }

    /// The decoded tile, from the cache or decoded now from its bytes; nil when it failed.
    private func surface(_ key: TileKey, counted: Bool) -> ImageSurface? {
        if let s = cache.get(key) { return s }
        guard let data = bytes[key] else { return nil }
        do {
            let s = try decoder.decode(data)
            cache.put(key, s)
            return s
        } catch {
            bytes[key] = nil
            if counted { failed[key] = "\(TileError.undecodable(key, "\(error)"))" } else { fallbackFailed.insert(key) }
            return nil
        }
    }

    /// Light grey with a subtle grid, the source's tile size.
    func placeholder() throws -> ImageSurface {
        if let p = placeholderSurface { return p }
        let size = max(16, min(source.tileSize, 1024))
        let p = try ImageSurface(width: size, height: size)
        try p.withContext { cr in
            cr.setSource(Color(red: 0.86, green: 0.86, blue: 0.855))
            cr.paint()
            let line = Color(red: 0.80, green: 0.80, blue: 0.795)
            let step = size / 4
            for i in 0..<4 {
                cr.fillPixelRect(x: i * step, y: 0, width: 1, height: size, color: line)
                cr.fillPixelRect(x: 0, y: i * step, width: size, height: 1, color: line)
            }
        }
        placeholderSurface = p
        return p
    }

    // MARK: Fetching

    /// A source that cannot be read on (`TileError.endsSource`): `prepare` throws it.
    private var unreadable: TileError?

    func fetch(_ keys: [TileKey]) {
        guard !keys.isEmpty else { return }
        let results = source.tiles(for: keys)
        for key in keys {
            switch results[key] {
            case .success(let data)?: bytes[key] = data
            case .failure(TileError.notTried)?: break  // strict: the render stops at the failures
            case .failure(let error as TileError)? where error.endsSource: unreadable = error
            case .failure(let error)?: failed[key] = "\(error)"
            case nil: failed[key] = "\(TileError.fetchFailed(key, "no answer from \(source.label)"))"
            }
        }
    }

    /// Fetches, in one batch, the ancestors that can stand in for failed tiles.
    func fetchStandIns(for keys: [TileKey]) {
        guard fallbackLevels > 0, !keys.isEmpty else { return }
        var seen = Set<TileKey>()
        var wanted: [TileKey] = []
        for key in keys {
            var k = 1
            while k <= fallbackLevels, key.z - k >= source.minZoom {
                let a = key.ancestor(levels: k)
                if bytes[a] == nil, failed[a] == nil, !fallbackFailed.contains(a), source.covers(a),
                   seen.insert(a).inserted {
                    wanted.append(a)
                }
                k += 1
            }
        }
        guard !wanted.isEmpty else { return }
        let results = source.tiles(for: wanted)
        for a in wanted {
            if case .success(let data)? = results[a] { bytes[a] = data } else { fallbackFailed.insert(a) }
        }
    }

    private func failureExamples(_ count: Int) -> [String] {
        failed.sorted { $0.key < $1.key }.prefix(count).map { $0.value }
    }

    private static func nonEmpty(_ s: String?) -> String? {
        guard let t = s?.trimmingCharacters(in: .whitespacesAndNewlines), !t.isEmpty else { return nil }
        return t
    }
}

/// Decoded tiles, least recently used evicted first, bounded in bytes of pixel memory.
final class SurfaceCache {
    let limit: Int
    private var entries: [TileKey: (surface: ImageSurface, tick: UInt64)] = [:]
    private var tick: UInt64 = 0
    private(set) var totalBytes = 0

    init(limit: Int) { self.limit = limit }

    var count: Int { entries.count }

    func get(_ key: TileKey) -> ImageSurface? {
        guard let e = entries[key] else { return nil }
        tick += 1
        entries[key] = (e.surface, tick)
        return e.surface
    }

    func wouldFit(_ bytes: Int) -> Bool { totalBytes + bytes <= limit }

    func put(_ key: TileKey, _ surface: ImageSurface) {
        tick += 1
        if let old = entries[key] { totalBytes -= old.surface.byteCount }
        entries[key] = (surface, tick)
        totalBytes += surface.byteCount
        if totalBytes > limit { evict(keeping: key) }
    }

    /// Drops the least recently used entries down to 3/4 of the limit (in one sort, not one per put).
    private func evict(keeping keep: TileKey) {
        let target = limit / 4 * 3
        for (key, e) in entries.sorted(by: { $0.value.tick < $1.value.tick }) where key != keep {
            if totalBytes <= target { break }
            entries[key] = nil
            totalBytes -= e.surface.byteCount
        }
    }
}

extension TileBaseMap {
    /// The tile base map a scene's `map` asks for: its source (`TileSources.make`) drawn as raster
    /// tiles. `strict`: any tile that fails makes `prepare` / `draw` throw instead of drawing a
    /// placeholder.
    public static func make(source map: MapSource, http: HTTPTileOptions = HTTPTileOptions(), strict: Bool = false,
                            sceneDirectory: URL, highDensity: Bool = false,
                            cacheBytes: Int = TileBaseMap.defaultCacheBytes) throws -> TileBaseMap {
        var http = http
        // A strict render stops at the first failed tile: no need to wait for the rest.
        if strict { http.stopAtFirstFailure = true }
        let source = try TileSources.make(map, http: http, sceneDirectory: sceneDirectory, highDensity: highDensity)
        try TileSources.requireRaster(source)
        return TileBaseMap(source: source, attribution: map.attribution, strict: strict, cacheBytes: cacheBytes)
    }
}
