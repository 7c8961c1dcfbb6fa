import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripSupport
import YUV

/// The embedded default map: Natural Earth layers under `Assets/basemap`, painted with a `MapStyle`.
/// Composed as Mapnik composes a map: an ordered list of layers (`MapLayer`: a datasource, the zooms
/// it shows at, a symbolizer), their data read from shapefiles (`ShapefileDatasource`, shared through
/// a `ShapefileStore`), painted by one renderer (`VectorLayerPainter`) over the projection's backdrop
/// (water, the globe, a plane's outline); how often a frame is drawn rather than copied is the
/// caching strategy it is given (`MapCaching`).
public final class ShapefileBaseMap: BaseMap, CacheableMap {
    public let layers: [MapLayer]
    public let style: MapStyle
    public let directory: URL
    /// How its frames are cached (flights from raster tiles, held pictures).
    public let caching: MapCaching
    /// The one renderer of its layers (its `strokesItself` and `fillsItself` choose maptrip's own
    /// stroker and filler where the context allows; the tests compare them with Cairo's).
    let painter: VectorLayerPainter
    /// The renderer of its layers on the globe: each line layer as three, thinner toward the limb
    /// (`limbRings`), as a line on a sphere is foreshortened there.
    let globePainter: VectorLayerPainter
    /// For the globe painter's line layers (by name): the ring of the disc (radii as shares of the
    /// globe's) each draws its lines in.
    private let limbRings: [String: Range<Double>]
    /// A line layer's path on the globe, made once for its rings (its name, the path).
    private var limbPath: (name: String, path: PixelPath)?
    private var sources: [String: ShapefileDatasource] = [:]
    private var planeSources: [String: PlaneDatasource] = [:]
    private var outlines: [ObjectIdentifier: [WorldPoint]?] = [:]
    /// Where the layers' data comes from: a store shared with other maps, or this map's own.
    private let store: ShapefileStore

    /// `assets` is the folder holding `basemap/`. `store`: shapefiles shared with other maps (nil:
    /// this map loads its own). `geometryCache`: where this map's levels are kept between runs, when
    /// it loads its own (a store has its own cache). `caching`: how its frames are cached (by default
    /// flights from raster tiles and held pictures, no tiles kept between runs).
    public init(assets: URL, style: MapStyle = .standard, layers: [MapLayer]? = nil,
                store: ShapefileStore? = nil, geometryCache: GeometryCache? = nil,
                caching: MapCaching = MapCaching()) throws {
        self.store = store ?? ShapefileStore(cache: geometryCache)
        self.caching = caching
        self.style = style
        self.layers = layers ?? MapLayer.standard(style)
        painter = VectorLayerPainter(layers: self.layers)
        let (globeLayers, rings) = Self.limbLayers(self.layers)
        globePainter = VectorLayerPainter(layers: globeLayers)
        limbRings = rings
        self.directory = assets.appendingPathComponent("basemap")
    }

    /// Its layer of towns, named for context on close-ups (nil: none), drawn over each frame by
    /// `TownsOverlay`, clear of the trip's pins and labels.
    public var towns: TownsLayer?

    /// Problems that did not stop the render (the towns' gazetteer could not be read).
    public var warnings: [String] = []

    public var attribution: String? { "Natural Earth" + (towns == nil ? "" : ", GeoNames") }

    var outside: Color { style.water }

    /// What the raster cache did so far (nil: no cache).
    public var rasterCacheStatistics: RasterCacheStatistics? { caching.statistics }

    /// Loads the layers the given zooms need (1:10m data only when a close-up needs it).
    public func prepare(for viewports: [Viewport]) throws {
        // Build every level of detail the render will use now, not in the middle of it: per file,
        // the levels (flat, or on the sphere) its layers' zooms need.
        var wanted: [String: Set<LevelNeed>] = [:]
        var order: [String] = []
        // A frame composited from the raster cache is drawn at its tiles' zoom (up to a level step
        // above the camera's): their levels too.
        let drawn = viewports.flatMap { v in caching.zoomsDrawn(v).map { (v, $0) } }
        for layer in layers {
            for (v, zoom) in drawn where layer.shows(zoom: zoom) {
                let level = DetailLevels.level(zoom: zoom, scale: v.scale)
                switch v.projection {
                case .webMercator, .globe:
                    if wanted[layer.source] == nil { order.append(layer.source) }
                    wanted[layer.source, default: []].insert(LevelNeed(level: level, sphere: v.projection == .globe))
                case .plane(let plane):
                    _ = try datasource(layer.source, plane: plane).levels.geometry(zoom: Double(level), scale: 1)
                }
            }
        }
        // Files are read, projected and generalised on two threads at once (each load has a PROJ
        // context of its own; each file's levels are built under its own lock). A failure is that of
        // the first file in layer order.
        let work = order.map { source in
            (source: source, loaded: sources[source],
             needs: wanted[source]!.sorted { ($0.level, $0.sphere ? 1 : 0) < ($1.level, $1.sphere ? 1 : 0) })
        }
        let results = ConcurrentResults<ShapefileDatasource>(count: work.count)
        let directory = directory, store = store
        DrawingThreads.perform(iterations: work.count) { i in
            results.set(i, Result {
                let d = work[i].loaded ?? Self.datasource(work[i].source, in: directory, store: store)
                for need in work[i].needs {
                    if need.sphere { _ = try d.sphere(zoom: Double(need.level), scale: 1) }
                    else { _ = try d.levels.geometry(zoom: Double(need.level), scale: 1) }
                }
                return d
            })
        }
        for (i, w) in work.enumerated() { sources[w.source] = try results.get(i) }
        // The levels are built: the full data (most of the vertices) is only needed again for a
        // level not built yet, and is read again from its file then.
        for d in sources.values { d.levels.releaseFull() }
    }

    public func plan(frames cameras: [Camera], format: FrameFormat) {
        caching.plan(frames: cameras, format: format, map: self)
    }

    public func draw(_ viewport: Viewport, in cr: Context) throws {
        try caching.draw(viewport, in: cr, map: self)
    }

    public func drawPlanar(_ viewport: Viewport, into picture: PlanarPicture, scratch: ImageSurface) throws -> Bool {
        try caching.drawPlanar(viewport, into: picture, scratch: scratch, map: self)
    }

    public func drawAhead() throws -> Bool { try caching.drawAhead(map: self) }

    public func endRecording() { caching.endRecording() }

    /// Everything the raster cache's tiles depend on (`tileDrawing`), for the drawn tile cache: this
    /// build of maptrip, the libraries that draw and convert them, the map's files and how their
    /// levels are made, its style and layers, the pixel ratio, the cache's tiles.
    func tileRecipe(_ cache: RasterCache, scale: Double) -> String {
        var lines = ["maptrip drawn tiles/3", DrawnTileCache.programIdentity, CairoLibrary.versions, "libyuv \(YUV.version)",
                     ShapefileDatasource.recipe, cache.recipe, "scale \(scale)", "strokes \(painter.strokesItself ? "maptrip" : "cairo")",
                     "fills \(painter.fillsItself ? "maptrip" : "cairo")", "style \(String(reflecting: style))", "layers \(String(reflecting: layers))"]
        for source in Set(layers.map(\.source)).sorted() {
            let base = directory.appendingPathComponent(source).path
            lines.append(source + " " + CacheKeys.identity(of: [base + ".shp", base + ".shx", base + ".prj"]))
        }
        return lines.joined(separator: "\n")
    }

    private func datasource(_ source: String, plane: any PlaneProjector) throws -> PlaneDatasource {
        let key = plane.definition + "\u{0}" + source
        if let d = planeSources[key] { return d }
        let file = directory.appendingPathComponent(source + ".shp").path
        let d = try store.datasource(path: file, plane: plane)
        planeSources[key] = d
        return d
    }

    /// A level of detail a file is wanted at, flat or on the sphere.
    private struct LevelNeed: Hashable {
        var level: Int
        var sphere: Bool
    }

    private func datasource(_ source: String) -> ShapefileDatasource {
        if let d = sources[source] { return d }
        let d = Self.datasource(source, in: directory, store: store)
        sources[source] = d
        return d
    }

    /// The layer file `source` of the folder `directory`, from `store`.
    private static func datasource(_ source: String, in directory: URL, store: ShapefileStore) -> ShapefileDatasource {
        store.datasource(path: directory.appendingPathComponent(source + ".shp").path)
    }

    /// A layer's geometry on the globe appended to `s.path`: half the parts' vertices on each of two
    /// threads (the sphere's clipping costs a tenth of a globe frame), the same path, in the same order.
    private func appendGlobe(_ layer: MapLayer, _ viewport: Viewport, painter: VectorLayerPainter, clip: Box,
                             _ s: DrawScratch) throws {
        let data = try datasource(layer.source).sphere(zoom: viewport.camera.zoom, scale: viewport.scale)
        let other = painter.scratch[1], middle = data.middlePart
        guard middle < data.parts.count else {
            // The last part holds half the vertices or more (a single part, say): nothing to share.
            s.clipper.appendGlobe(data, viewport: viewport, clip: clip, to: &s.path)
            return
        }
        other.path.removeAll()
        DrawingThreads.perform(iterations: 2) { k in
            let (half, parts) = k == 0 ? (s, 0..<middle) : (other, middle..<data.parts.count)
            half.clipper.appendGlobe(data, viewport: viewport, clip: clip, parts: parts, to: &half.path)
        }
        s.path.append(other.path)
    }

    /// The rings of the globe's disc lines are drawn in (radii as shares of the globe's), and their
    /// widths as shares of the style's: full in the middle, 0.7 from 0.8 of the radius, 0.45 from 0.93
    /// (where a line across the sphere is foreshortened to about a third).
    static let limbWidths: [(ring: Range<Double>, width: Double)] = [(0..<0.8, 1), (0.8..<0.93, 0.7), (0.93..<2, 0.45)]

    /// The layers as the globe draws them: each line layer as one layer per ring (`name@ringN`, its
    /// width scaled), with each ring's radii by name.
    static func limbLayers(_ layers: [MapLayer]) -> ([MapLayer], [String: Range<Double>]) {
        var out: [MapLayer] = [], rings: [String: Range<Double>] = [:]
        for layer in layers {
            guard case .stroke(let stroke) = layer.symbolizer else {
                out.append(layer)
                continue
            }
            for (i, limb) in limbWidths.enumerated() {
                var l = layer, thinner = stroke
                thinner.width *= limb.width
                l.symbolizer = .stroke(thinner)
                l.name = "\(layer.name)#\(layer.source)@ring\(i)"
                rings[l.name] = limb.ring
                out.append(l)
            }
        }
        return (out, rings)
    }

    /// The pieces of a path whose segments' midpoints lie in a ring of the globe's disc.
    static func piecesWithin(_ path: PixelPath, ring: Range<Double>, viewport: Viewport) -> PixelPath {
        var out = PixelPath()
        out.tracksAlong = path.tracksAlong
        out.closed = path.closed
        let cx = Double(viewport.width) / 2, cy = Double(viewport.height) / 2, r = viewport.globeRadius
        let hasAlong = path.along.count == path.xs.count
        for k in 0..<path.subpathCount {
            let range = path.range(k)
            var open = false
            for i in range.lowerBound..<max(range.lowerBound, range.upperBound - 1) {
                let mx = (path.xs[i] + path.xs[i + 1]) / 2 - cx, my = (path.ys[i] + path.ys[i + 1]) / 2 - cy
                guard ring.contains((mx * mx + my * my).squareRoot() / r) else {
                    open = false
                    continue
                }
                if !open {
                    out.starts.append(out.xs.count)
                    out.xs.append(path.xs[i])
                    out.ys.append(path.ys[i])
                    if hasAlong { out.along.append(path.along[i]) }
                    open = true
                }
                out.xs.append(path.xs[i + 1])
                out.ys.append(path.ys[i + 1])
                if hasAlong { out.along.append(path.along[i + 1]) }
            }
        }
        return out
    }

    /// How the raster cache's tiles are drawn: water, then the layers at the tile's zoom. Two tiles
    /// may be drawn at once: their threads look the layers' data up in turn.
    func tileDrawing(scale: Double) -> RasterCache.TileDrawing {
        let water = style.water
        let lookup = NSLock()
        return { [unowned self] tile, transforms, zoom, worker in
            try tile.withContext { tcr in
                // Every pixel replaced: the surface may be an evicted tile's.
                tcr.setOperator(.source)
                tcr.setSource(water)
                tcr.paint()
                tcr.setOperator(.over)
                let clip = VectorLayerPainter.clip(width: tile.width, height: tile.height, scale: scale)
                let dashScale = transforms.first.map { VectorLayerPainter.dashScale(worldWidth: $0.scale) } ?? 1
                try painter.drawLayers(zoom: zoom, scale: scale, dashScale: dashScale, in: tcr, scratch: painter.scratch[worker]) { layer, s in
                    s.path.tracksAlong = layer.isDashed
                    let data = try lookup.withLock { datasource(layer.source) }.levels.geometry(zoom: zoom, scale: scale)
                    for t in transforms { s.clipper.append(data, transform: t, clip: clip, to: &s.path) }
                }
            }
        }
    }

    /// `rows`: only these rows of the frame are drawn (a band, see `MapCaching.drawHeldInBands`): lines
    /// and fills are clipped to them, with the same margin as the frame's edges, but for dashed lines,
    /// whose dashes are counted from their start.
    func drawDirect(_ viewport: Viewport, in cr: Context, rows: Range<Int>?) throws {
        cr.save()
        defer { cr.restore() }
        let frameClip = VectorLayerPainter.clip(width: viewport.width, height: viewport.height, scale: viewport.scale)
        let bandClip = VectorLayerPainter.clip(width: viewport.width, height: viewport.height, scale: viewport.scale, rows: rows)
        switch viewport.projection {
        case .globe:
            let style = style
            try Bands.draw(on: cr, width: viewport.width, height: viewport.height) {
                GlobeBackdrop.draw(viewport, space: style.space, atmosphere: style.atmosphere, sea: style.water, in: $0)
            }
        case .plane(let plane):
            let key = ObjectIdentifier(plane)
            if outlines[key] == nil { outlines[key] = PlaneBackdrop.outline(plane) }
            PlaneBackdrop.draw(viewport, outline: outlines[key] ?? nil, outside: style.polar, sea: style.water, in: cr)
        case .webMercator:
            cr.setSource(style.water)
            cr.paint()
        }
        let zoom = viewport.camera.zoom, scale = viewport.scale
        let dashScale = if case .webMercator = viewport.projection { VectorLayerPainter.dashScale(worldWidth: viewport.worldSize) } else { 1.0 }
        let isGlobe = if case .globe = viewport.projection { true } else { false }
        let painter = isGlobe ? globePainter : painter
        limbPath = nil
        try painter.drawLayers(zoom: zoom, scale: scale, dashScale: dashScale, in: cr, scratch: painter.scratch[0]) { layer, s in
            if isGlobe, let ring = limbRings[layer.name] {
                // One path for the layer's three rings, each keeping the pieces in its ring.
                let source = String(layer.name.prefix { $0 != "@" })
                if limbPath?.name != source {
                    s.path.tracksAlong = false
                    try self.appendGlobe(layer, viewport, painter: painter, clip: layer.isDashed ? frameClip : bandClip, s)
                    limbPath = (source, s.path)
                }
                if let whole = limbPath?.path {
                    s.path = Self.piecesWithin(whole, ring: ring, viewport: viewport)
                }
                return
            }
            let clip = layer.isDashed ? frameClip : bandClip
            // Dashes counted along the whole line on flat maps; on the globe, from each piece's start.
            s.path.tracksAlong = if case .globe = viewport.projection { false } else { layer.isDashed }
            switch viewport.projection {
            case .webMercator:
                let data = try datasource(layer.source).levels.geometry(zoom: zoom, scale: scale)
                for t in PixelTransform.copies(for: viewport) {
                    s.clipper.append(data, transform: t, clip: clip, to: &s.path)
                }
            case .plane(let plane):
                let data = try datasource(layer.source, plane: plane).levels.geometry(zoom: zoom, scale: scale)
                s.clipper.append(data, transform: viewport.transform, clip: clip, to: &s.path)
            case .globe:
                try self.appendGlobe(layer, viewport, painter: painter, clip: clip, s)
            }
        }
        if case .globe = viewport.projection {
            let atmosphere = style.atmosphere
            try Bands.draw(on: cr, width: viewport.width, height: viewport.height) {
                GlobeBackdrop.drawRim(viewport, atmosphere: atmosphere, in: $0)
            }
        }
    }

}
