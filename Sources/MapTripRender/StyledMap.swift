import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripStyle
import MapTripSupport
import MapTripTiles
import VectorTile
import YUV

/// A base map drawn from a MapLibre GL style: its layers in order, each a datasource (a vector tile
/// set, a raster tile set) and a style layer, drawn by one renderer, as MapLibre and Mapnik compose
/// a map. Background, fill and line layers are drawn from the vector tiles' features, symbol layers
/// as point labels placed against each other (`StyledLabels`), raster layers with the raster tile
/// map's drawing (`TileBaseMap`); other layer types are skipped with one warning each (the style's
/// checking lists them).
///
/// Zooms: MapLibre's zoom z shows a world 512 x 2^z pixels wide, maptrip's 256 x 2^z; a style's
/// zoom is the camera's less one. Vector tiles are taken at the style zoom's integer part (within
/// the source's zooms: deeper views enlarge the deepest tiles), each decoded once per render.
public final class StyledMap: BaseMap, CacheableMap {
    public let style: StyleDocument
    /// The vector tile sets, by the style's source names.
    let vectorSources: [String: StyledTiles]
    /// The raster layers' maps, by the style's source names.
    let rasterMaps: [String: TileBaseMap]
    /// The scene's `map.attribution`, which wins over the sources' own.
    let sceneAttribution: String?
    /// Painted where the style has no background (and beyond the Web Mercator square).
    public var outside = Color(red: 0.94, green: 0.94, blue: 0.92)
    let labels: StyledLabels
    /// How its frames are cached: flights composited from raster tiles of its fills and lines, with
    /// the labels placed and drawn over each frame; a camera at rest drawn once, labels and all.
    /// Raster layers are drawn for each frame (a style with one caches only the held pictures).
    public let caching: MapCaching
    /// The style's layers as the raster cache sees them: the zooms each shows at, in maptrip's zooms
    /// (a level across which a layer appears or goes is drawn from the data).
    let layers: [MapLayer]
    /// How each style layer (by index) is evaluated: whether its filter reads the zoom, whether its
    /// drawing properties read the feature.
    let evaluation: [LayerEvaluation]
    /// The style's JSON as read (its length and hash: the same in every process), for the drawn tile
    /// cache's recipe; nil: not known, and no tiles kept between renders.
    let styleIdentity: String?

    struct LayerEvaluation {
        /// The filter does not read the zoom: a tile's matching features are found once.
        var filterIgnoresZoom: Bool
        /// No drawing property of the layer reads the feature: one evaluation serves every feature.
        var paintIgnoresFeature: Bool

        static let drawn = ["fill-color", "fill-opacity", "line-color", "line-opacity", "line-width", "line-dasharray"]

        init(_ layer: StyleLayer) {
            filterIgnoresZoom = layer.filter?.expression.isZoomConstant ?? true
            paintIgnoresFeature = Self.drawn.allSatisfy { (layer.paint[$0] ?? layer.layout[$0])?.isFeatureConstant ?? true }
        }
    }

    /// `caching`'s drawn tile cache is used only where the tiles' every input is known: the style's
    /// JSON (`styleIdentity`), vector sources that are local files, and no raster layer.
    public init(style: StyleDocument, vectorSources: [String: StyledTiles], rasterMaps: [String: TileBaseMap] = [:],
                attribution: String? = nil, caching: MapCaching = MapCaching(cachesRasters: false, holdsStills: false),
                styleIdentity: String? = nil) {
        self.style = style
        self.vectorSources = vectorSources
        self.rasterMaps = rasterMaps
        self.styleIdentity = styleIdentity
        sceneAttribution = attribution
        labels = StyledLabels()
        let keepsTiles = rasterMaps.isEmpty && styleIdentity != nil
            && vectorSources.values.allSatisfy { Self.fileIdentity($0.vectorSet.source.label) != nil }
        self.caching = (rasterMaps.isEmpty || !caching.cachesRasters) && (keepsTiles || caching.drawnTiles == nil) ? caching
            : MapCaching(cachesRasters: caching.cachesRasters && rasterMaps.isEmpty, holdsStills: caching.holdsStills,
                         tileMemoryCap: caching.tileMemoryCap)
        layers = style.layers.filter { $0.visible && [.background, .fill, .line].contains($0.type) }.map { layer in
            MapLayer(name: layer.id, source: layer.source ?? "", minZoom: (layer.minzoom ?? -1) + 1,
                     maxZoom: (layer.maxzoom ?? 98) + 1, symbolizer: .fill(.transparent))
        }
        evaluation = style.layers.map(LayerEvaluation.init)
    }

    /// The style's zoom for a viewport (MapLibre's worlds are twice as wide at the same zoom).
    static func styleZoom(_ viewport: Viewport) -> Double { viewport.camera.zoom - 1 }

    public var attribution: String? {
        if let a = sceneAttribution, !a.isEmpty { return a }
        let credits = vectorSources.values.compactMap(\.attribution) + rasterMaps.values.compactMap(\.attribution)
        let unique = credits.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        return unique.isEmpty ? nil : unique.joined(separator: " ")
    }

    /// What drawing met: unreadable tiles, missing icons. The style file's own warnings (unknown
    /// properties, layer types not drawn) are not repeated here: the scene's reading reports each once,
    /// where the scene names the style (`style.warnings` has them for other callers).
    public var warnings: [String] {
        vectorSources.values.flatMap(\.warnings) + rasterMaps.values.flatMap(\.warnings) + labels.warnings
    }

    /// The map on the globe and PROJ planes: the style's Web Mercator tiles reprojected (see
    /// `StyledTileSource`). Its colours beyond the map are set by `StyledMaps.make`.
    public private(set) lazy var reprojection: TileBaseMap = {
        let map = TileBaseMap(source: StyledTileSource(), decoder: StyledTileDecoder(map: self))
        map.crossFade = 0
        map.background = outside
        map.polar = outside
        return map
    }()

    /// Whether a viewport is drawn by reprojecting the style's tiles (any projection but Web Mercator's;
    /// a turned Web Mercator frame is drawn from the data, turned).
    static func reprojects(_ viewport: Viewport) -> Bool {
        if case .webMercator = viewport.projection { return false }
        return true
    }

    public var rasterCacheStatistics: RasterCacheStatistics? { caching.statistics }

    /// Vector tiles decoded so far over the style's sets (each set once however many sources name
    /// it), and how many distinct tiles they were: equal when each was decoded once.
    public var vectorTilesDecoded: (decodes: Int, distinct: Int) {
        tileSets.map(\.vectorSet).reduce((0, 0)) { ($0.0 + $1.decodeCount, $0.1 + $1.distinctDecoded) }
    }

    /// The style's vector tile sets, each once: a style's sources are often one set under several names.
    private var tileSets: [StyledTiles] {
        var sets: [ObjectIdentifier: StyledTiles] = [:]
        for set in vectorSources.values { sets[ObjectIdentifier(set)] = set }
        return Array(sets.values)
    }

    // MARK: Preparing

    /// A vector tile a surface shows: its key, the unwrapped column it is drawn at, and the transform
    /// that places the unit world on the surface.
    struct ShownTile {
        var key: TileKey
        var column: Int
        var world: PixelTransform
    }

    /// The vector tiles of a source a surface of `width` x `height` pixels shows at a style zoom,
    /// `worlds` placing the unit world on it: one transform whose copies of the world are all drawn
    /// (a frame: columns unwrapped), or one per copy (a raster tile: each copy its own columns).
    func shownTiles(_ set: StyledTiles, styleZoom: Double, worlds: [PixelTransform], width: Int,
                    height: Int) -> [ShownTile] {
        let z = set.tileZoom(styleZoom: styleZoom), n = 1 << z
        var out: [ShownTile] = []
        for world in worlds {
            let box = world.worldBox(ofPixels: Box(minX: 0, minY: 0, maxX: Double(width), maxY: Double(height)))
            guard box.minX.isFinite, box.maxX.isFinite, box.minY.isFinite, box.maxY.isFinite else { continue }
            var first = Int((box.minX * Double(n)).rounded(.down)), last = Int((box.maxX * Double(n)).rounded(.down))
            if worlds.count > 1 { (first, last) = (max(first, 0), min(last, n - 1)) }
            let top = max(Int((box.minY * Double(n)).rounded(.down)), 0)
            let bottom = min(Int((box.maxY * Double(n)).rounded(.down)), n - 1)
            guard first <= last, top <= bottom, (last - first + 1) * (bottom - top + 1) <= 4096 else { continue }
            for row in top...bottom {
                for column in first...last {
                    let x = ((column % n) + n) % n
                    out.append(ShownTile(key: TileKey(z: z, x: x, y: row), column: column, world: world))
                }
            }
        }
        return out
    }

    public func prepare(for all: [Viewport]) throws {
        let reprojected = all.filter(Self.reprojects), viewports = all.filter { !Self.reprojects($0) }
        let rasterKeys = reprojected.flatMap { reprojection.neededTiles(for: $0) }
        // Each set loaded once, whatever names the style gives it.
        for set in tileSets {
            var keys = vectorKeys(forRasterTiles: rasterKeys, in: set), seen = Set(keys)
            for v in reprojected { for k in labelTiles(v, in: set) where seen.insert(k).inserted { keys.append(k) } }
            for v in viewports {
                // The frame's zoom, and the raster cache's level above it (up to a step of a quarter).
                for zoom in [Self.styleZoom(v), Self.styleZoom(v) + 0.25] {
                    for t in shownTiles(set, styleZoom: zoom, worlds: [v.transform], width: v.width, height: v.height)
                    where seen.insert(t.key).inserted {
                        keys.append(t.key)
                    }
                }
            }
            try set.load(keys)
        }
        for map in rasterMaps.values { try map.prepare(for: viewports) }
        if !reprojected.isEmpty { try reprojection.prepare(for: reprojected) }
    }

    public func plan(frames cameras: [Camera], format: FrameFormat) {
        caching.plan(frames: cameras, format: format, map: self)
    }

    // MARK: Drawing

    public func draw(_ viewport: Viewport, in cr: Context) throws {
        if Self.reprojects(viewport) {
            try reprojection.draw(viewport, in: cr)
            return try drawReprojectedLabels(viewport, in: cr)
        }
        // A frame composited from the raster cache has the fills and lines: its labels go over it.
        if try caching.draw(viewport, in: cr, map: self) == .composited {
            labels.begin(viewport)
            try paint(styleZoom: Self.styleZoom(viewport), scale: viewport.scale, worlds: [viewport.transform],
                      width: viewport.width, height: viewport.height, parts: .labels, viewport: viewport, in: cr)
            try labels.draw(in: cr)
            try cr.checkStatus("draw the styled map's labels")
        }
    }

    /// Held cameras' pictures and north-up flights composited from the raster cache straight into
    /// I420 (`MapCaching.drawPlanar`), a composited picture's labels blended over it (`blendLabels`);
    /// false for the rest (reprojected views, frames drawn from the data), drawn in BGRA.
    public func drawPlanar(_ viewport: Viewport, into picture: PlanarPicture, scratch: ImageSurface) throws -> Bool {
        guard !Self.reprojects(viewport) else { return false }
        return try caching.drawPlanar(viewport, into: picture, scratch: scratch, map: self) { [unowned self] picture in
            try blendLabels(viewport, into: picture, band: scratch)
        }
    }

    /// Places the frame's labels as `draw` does and blends them over an I420 picture of the map: drawn
    /// on `band` (BGRA rows of the frame's width, transparent, left so) a band of rows at a time, only in
    /// the rectangles their ink covers (each label's, rounded out to even, those that meet merged
    /// into one), each rectangle clipped to itself and blended as the overlays are
    /// (`FrameRenderer.blend`): the same picture as the labels drawn over the BGRA map and converted,
    /// within rounding.
    func blendLabels(_ viewport: Viewport, into picture: PlanarPicture, band: ImageSurface) throws {
        labels.begin(viewport)
        try band.withContext { cr in
            try paint(styleZoom: Self.styleZoom(viewport), scale: viewport.scale, worlds: [viewport.transform],
                      width: viewport.width, height: viewport.height, parts: .labels, viewport: viewport, in: cr)
            try labels.place(in: cr)
        }
        let areas = Self.inkAreas(labels.painted.map(\.ink), width: viewport.width, height: viewport.height)
        guard let top = areas.map(\.rect.y).min(), let bottom = areas.map({ $0.rect.y + $0.rect.height }).max() else { return }
        let rowsPerBand = band.height & ~1
        for rows in stride(from: top, to: bottom, by: rowsPerBand).map({ $0..<min($0 + rowsPerBand, bottom) }) {
            var rects: [OverlayRect] = []
            try band.withContext { cr in
                for area in areas {
                    let y0 = max(area.rect.y, rows.lowerBound), y1 = min(area.rect.y + area.rect.height, rows.upperBound)
                    guard y1 > y0 else { continue }
                    let r = OverlayRect(x: area.rect.x, y: y0 - rows.lowerBound, width: area.rect.width, height: y1 - y0)
                    rects.append(r)
                    // One rectangle of whole pixels: maptrip's own stroker draws the halos, as over the frame.
                    cr.save()
                    cr.rectangle(Double(r.x), Double(r.y), Double(r.width), Double(r.height))
                    cr.clip()
                    cr.translate(0, -Double(rows.lowerBound))
                    // Only the labels whose ink meets these rows (an area in two bands: each its own).
                    labels.paint(area.labels.filter {
                        let ink = labels.painted[$0].ink
                        return ink.maxY > Double(rows.lowerBound) && ink.minY < Double(rows.upperBound)
                    }, in: cr)
                    cr.restore()
                }
                try cr.checkStatus("draw the styled map's labels")
            }
            FrameRenderer.blend(band, rects: rects, rows: rows, into: picture)
        }
    }

    /// The rectangles (even bounds, within the frame, apart) that labels' ink boxes fall in, each with
    /// the labels in it (in their order): boxes whose rectangles meet share one around both.
    static func inkAreas(_ inks: [Box], width: Int, height: Int) -> [(rect: OverlayRect, labels: [Int])] {
        var areas: [(rect: OverlayRect, labels: [Int])] = []
        for (i, b) in inks.enumerated() {
            guard b.minX.isFinite, b.minY.isFinite, b.maxX.isFinite, b.maxY.isFinite,
                  abs(b.minX) < 1e6, abs(b.minY) < 1e6, abs(b.maxX) < 1e6, abs(b.maxY) < 1e6 else { continue }
            let x0 = Int(b.minX.rounded(.down)), y0 = Int(b.minY.rounded(.down))
            let x1 = Int(b.maxX.rounded(.up)), y1 = Int(b.maxY.rounded(.up))
            guard var r = FrameRenderer.evenRect(OverlayRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0),
                                                 width: width, height: height) else { continue }
            var members = [i], k = 0
            while k < areas.count {
                let o = areas[k].rect
                if o.x < r.x + r.width, r.x < o.x + o.width, o.y < r.y + r.height, r.y < o.y + o.height {
                    let ux = min(o.x, r.x), uy = min(o.y, r.y)
                    r = OverlayRect(x: ux, y: uy, width: max(o.x + o.width, r.x + r.width) - ux,
                                    height: max(o.y + o.height, r.y + r.height) - uy)
                    members += areas.remove(at: k).labels
                    k = 0
                } else {
                    k += 1
                }
            }
            areas.append((r, members.sorted()))
        }
        return areas
    }

    public func drawAhead() throws -> Bool { try caching.drawAhead(map: self) }

    public func endRecording() { caching.endRecording() }

    /// The whole frame from the tiles' data: every layer, then the labels. (`rows` is not used: a
    /// styled map's frames are not drawn into I420 a band at a time.)
    func drawDirect(_ viewport: Viewport, in cr: Context, rows: Range<Int>?) throws {
        cr.save()
        defer { cr.restore() }
        cr.setOperator(.source)
        cr.setSource(outside)
        cr.paint()
        cr.setOperator(.over)
        labels.begin(viewport)
        try paint(styleZoom: Self.styleZoom(viewport), scale: viewport.scale, worlds: [viewport.transform],
                  width: viewport.width, height: viewport.height, parts: [.base, .labels], viewport: viewport, in: cr)
        try labels.draw(in: cr)
        try cr.checkStatus("draw the styled map")
    }

    /// How the raster cache's tiles are drawn: the style's background, fill and line layers at the
    /// tile's zoom (no labels: they are placed over each frame). Two tiles may be drawn at once: the
    /// tiles and the style are only read.
    func tileDrawing(scale: Double) -> RasterCache.TileDrawing {
        { [unowned self] tile, worlds, zoom, _ in
            try tile.withContext { cr in
                // Every pixel replaced: the surface may be an evicted tile's.
                cr.setOperator(.source)
                cr.setSource(outside)
                cr.paint()
                cr.setOperator(.over)
                try paint(styleZoom: zoom - 1, scale: scale, worlds: worlds, width: tile.width, height: tile.height,
                          parts: .base, viewport: nil, in: cr)
            }
        }
    }

    /// Everything the raster cache's tiles depend on, the same in every process (for the drawn tile
    /// cache): the program, Cairo and libyuv, the cache's levels, the pixel ratio, the style's JSON, the
    /// colour painted where it has no background (the scene's), and each vector source's file as the
    /// file system sees it.
    func tileRecipe(_ cache: RasterCache, scale: Double) -> String {
        ["maptrip styled tiles/2", DrawnTileCache.programIdentity, CairoLibrary.versions, "libyuv \(YUV.version)", cache.recipe,
         "scale \(scale)", "style \(styleIdentity ?? "-")", "outside \(outside.cssString) \(outside.alpha)",
         "sources " + vectorSources.keys.sorted().map { name in
             let file = vectorSources[name]!.vectorSet.source.label
             return "\(name) \(file) \(Self.fileIdentity(file) ?? "-")"
         }.joined(separator: ", ")]
            .joined(separator: "\n")
    }

    /// A tile source's file as the file system sees it now (nil: not a local file: a URL or a folder).
    static func fileIdentity(_ path: String) -> String? {
        var isFolder: ObjCBool = false
        guard path.hasPrefix("/"), FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue
        else { return nil }
        return CacheKeys.identity(of: [path])
    }

    /// What `paint` draws: the map (background, fills, lines, rasters), the labels (collected into
    /// `labels`, drawn by the caller), or both.
    struct Parts: OptionSet {
        let rawValue: Int
        static let base = Parts(rawValue: 1)
        static let labels = Parts(rawValue: 2)
    }

    /// Paints the style's layers in order on a surface of `width` x `height` pixels where `worlds`
    /// places the unit world (see `shownTiles`), at a style zoom and pixel ratio. Raster layers need
    /// the frame's `viewport` (none in a raster tile).
    private func paint(styleZoom zoom: Double, scale: Double, worlds: [PixelTransform], width: Int, height: Int,
                       parts: Parts, viewport: Viewport?, in cr: Context) throws {
        // The tiles each source shows, worked out once for all its layers.
        var shown: [String: [ShownTile]] = [:]
        func tiles(_ name: String, _ set: StyledTiles) -> [ShownTile] {
            if let t = shown[name] { return t }
            let t = shownTiles(set, styleZoom: zoom, worlds: worlds, width: width, height: height)
            shown[name] = t
            return t
        }
        for (index, layer) in style.layers.enumerated() where layer.isShown(atZoom: zoom) {
            switch layer.type {
            case .background where parts.contains(.base):
                var c = layer.color("background-color", zoom: zoom)
                c.alpha *= layer.number("background-opacity", zoom: zoom)
                cr.setSource(c)
                cr.paint()
            case .fill where parts.contains(.base), .line where parts.contains(.base):
                guard let name = layer.source, let set = vectorSources[name] else { continue }
                for shownTile in tiles(name, set) {
                    guard let tile = set.tile(shownTile.key), let features = tile.layers[layer.sourceLayer ?? ""] else { continue }
                    let t = Self.transform(shownTile, extent: tile.extent)
                    cr.save()
                    // A tile's features reach into its neighbours' (the buffer): each tile draws its own square only.
                    Self.clip(cr, to: t, extent: tile.extent)
                    let drawn = selection(index, layer, tile: tile, features: features, zoom: zoom)
                    if layer.type == .fill {
                        drawFill(layer, index, features, drawn, zoom: zoom, transform: t, in: cr)
                    } else {
                        drawLine(layer, index, features, drawn, zoom: zoom, transform: t, scale: scale, in: cr)
                    }
                    cr.restore()
                }
            case .symbol where parts.contains(.labels):
                guard let name = layer.source, let set = vectorSources[name] else { continue }
                for shownTile in tiles(name, set) {
                    guard let tile = set.tile(shownTile.key), let features = tile.layers[layer.sourceLayer ?? ""] else { continue }
                    labels.collect(layer, features, zoom: zoom, transform: Self.transform(shownTile, extent: tile.extent),
                                   extent: tile.extent)
                }
            case .raster where parts.contains(.base):
                guard let name = layer.source, let map = rasterMaps[name], let viewport else { continue }
                let opacity = layer.number("raster-opacity", zoom: zoom)
                cr.pushGroup()
                try map.draw(viewport, in: cr)
                cr.popGroupToSource()
                cr.paint(alpha: opacity)
            default:
                continue
            }
        }
    }

    /// Tile units (0...extent across the tile, drawn at its unwrapped column) to the surface's pixels.
    static func transform(_ shown: ShownTile, extent: Double) -> PixelTransform {
        let n = Double(1 << shown.key.z)
        var t = shown.world.inUnits(extent * n)
        let x0 = Double(shown.column) * extent, y0 = Double(shown.key.y) * extent
        t.offsetX += t.a * x0 + t.b * y0
        t.offsetY += t.c * x0 + t.d * y0
        return t
    }

    /// Clips drawing to a tile's square (turned with the view).
    static func clip(_ cr: Context, to t: PixelTransform, extent e: Double) {
        cr.newPath()
        cr.move(to: t.x(0, 0), t.y(0, 0))
        cr.line(to: t.x(e, 0), t.y(e, 0))
        cr.line(to: t.x(e, e), t.y(e, e))
        cr.line(to: t.x(0, e), t.y(0, e))
        cr.closePath()
        cr.clip()
    }

    /// Appends a feature's rings or lines to the path, in frame pixels.
    static func append(_ f: StyledFeature, transform t: PixelTransform, close: Bool, to cr: Context) {
        for part in f.parts {
            guard let first = part.first else { continue }
            cr.move(to: t.x(first.x, first.y), t.y(first.x, first.y))
            for p in part.dropFirst() { cr.line(to: t.x(p.x, p.y), t.y(p.x, p.y)) }
            if close { cr.closePath() }
        }
    }

    /// The features (indices) style layer `index` draws from a tile at a zoom: its kind of geometry
    /// (polygons for fills, lines and rings for lines) passing its filter; found once per tile when the
    /// filter does not read the zoom.
    private func selection(_ index: Int, _ layer: StyleLayer, tile: StyledTile, features: [StyledFeature],
                           zoom: Double) -> [Int] {
        let fills = layer.type == .fill
        let select = {
            features.indices.filter { i in
                let f = features[i]
                return (fills ? f.kind == .polygon : f.kind != .point) && layer.matches(zoom: zoom, feature: f.style)
            }
        }
        return evaluation[index].filterIgnoresZoom ? tile.selection(index, select) : select()
    }

    /// Groups features by what a drawing property gives them (`paint`: nil leaves a feature out), in
    /// order of first use; evaluated once for all when no property reads the feature.
    private func grouped<Key: Hashable>(_ index: Int, _ features: [StyledFeature], _ drawn: [Int],
                                        paint: (StyleFeature) -> Key?) -> [(key: Key, features: [Int])] {
        if evaluation[index].paintIgnoresFeature {
            guard !drawn.isEmpty, let key = paint(StyleFeature()) else { return [] }
            return [(key, drawn)]
        }
        var groups: [Key: Int] = [:], out: [(key: Key, features: [Int])] = []
        for i in drawn {
            guard let key = paint(features[i].style) else { continue }
            if let g = groups[key] { out[g].features.append(i) } else { groups[key] = out.count; out.append((key, [i])) }
        }
        return out
    }

    private func drawFill(_ layer: StyleLayer, _ index: Int, _ features: [StyledFeature], _ drawn: [Int], zoom: Double,
                          transform t: PixelTransform, in cr: Context) {
        // Features painted alike share one path: most fill layers paint every feature the same.
        let groups = grouped(index, features, drawn) { f -> StyleColor? in
            var c = layer.color("fill-color", zoom: zoom, feature: f)
            c.alpha *= layer.number("fill-opacity", zoom: zoom, feature: f)
            return c.alpha > 0 ? c : nil
        }
        cr.setFillRule(.winding)
        for (c, members) in groups {
            cr.newPath()
            for i in members { Self.append(features[i], transform: t, close: true, to: cr) }
            cr.setSource(c)
            cr.fill()
        }
    }

    private func drawLine(_ layer: StyleLayer, _ index: Int, _ features: [StyledFeature], _ drawn: [Int], zoom: Double,
                          transform t: PixelTransform, scale: Double, in cr: Context) {
        struct Pen: Hashable { var color: StyleColor; var width: Double; var dashes: [Double] }
        let groups = grouped(index, features, drawn) { f -> Pen? in
            var c = layer.color("line-color", zoom: zoom, feature: f)
            c.alpha *= layer.number("line-opacity", zoom: zoom, feature: f)
            let width = layer.number("line-width", zoom: zoom, feature: f) * scale
            guard c.alpha > 0, width > 0 else { return nil }
            // Dash lengths are in line widths.
            let dashes = layer.numbers("line-dasharray", zoom: zoom, feature: f).map { $0 * width }
            return Pen(color: c, width: width, dashes: dashes.allSatisfy { $0 >= 0 } && dashes.contains { $0 > 0 } ? dashes : [])
        }
        guard !groups.isEmpty else { return }
        cr.setLineCap(Self.cap(layer.lineCap(zoom: zoom)))
        cr.setLineJoin(Self.join(layer.lineJoin(zoom: zoom)))
        for (pen, members) in groups {
            cr.newPath()
            for i in members { Self.append(features[i], transform: t, close: features[i].kind == .polygon, to: cr) }
            cr.setSource(pen.color)
            cr.setLineWidth(pen.width)
            cr.setDash(pen.dashes)
            cr.stroke()
        }
        cr.setDash([])
    }

    static func cap(_ cap: MapTripStyle.LineCap) -> Context.LineCap {
        switch cap { case .round: .round; case .square: .square; case .butt: .butt }
    }

    static func join(_ join: MapTripStyle.LineJoin) -> Context.LineJoin {
        switch join { case .round: .round; case .bevel: .bevel; case .miter: .miter }
    }
}
