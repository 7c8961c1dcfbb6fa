import Cairo
import Foundation
import MapTripGeometry
import MapTripSupport
import Proj
import Shapefile
import YUV

/// A shapefile read with shapelib and projected once with PROJ (EPSG:4326 to Web Mercator) into
/// the unit world, with the boxes that let each frame touch only what it shows. The globe takes the
/// same levels of detail onto the sphere.
public final class ShapefileDatasource: @unchecked Sendable {
    public let path: String
    /// The geometry generalised per zoom level, built on first use. The full geometry is let go
    /// once a render has built its levels (`prepare`), and read again from the file if needed.
    public let levels: DetailLevels
    private var spheres: [Int: SphereGeometry] = [:]
    private let lock = NSLock()

    /// The level of detail for a zoom, on the sphere (built on first use).
    public func sphere(zoom: Double, scale: Double) throws -> SphereGeometry {
        let level = min(DetailLevels.level(zoom: zoom, scale: scale), DetailLevels.finest + 1)
        if let s = lock.withLock({ spheres[level] }) { return s }
        let s = SphereGeometry(try levels.geometry(zoom: zoom, scale: scale))
        lock.withLock { spheres[level] = s }
        return s
    }

    /// EPSG:4326 (longitude first) to EPSG:3857: the pipeline PROJ itself picks for these two CRSs
    /// (`projinfo -s EPSG:4326 -t EPSG:3857 -o PROJ`, axes in map order), built without its database.
    public static let toWebMercator = "+proj=pipeline +step +proj=unitconvert +xy_in=deg +xy_out=rad "
        + "+step +proj=webmerc +lat_0=0 +lon_0=0 +x_0=0 +y_0=0 +ellps=WGS84"

    /// How `load` makes the full geometry, for the geometry cache (change it when `load` changes).
    static let recipe = DetailLevels.recipe + "; load/1 clamped, wrapped, " + toWebMercator

    /// The file is read when a level is first needed that `cache` (nil: none) does not hold; the
    /// levels built are written to it.
    public init(path: String, cache: GeometryCache? = nil) {
        self.path = path
        let base = (path as NSString).deletingPathExtension
        let store = cache?.store(path: path, recipe: Self.recipe,
                                 identity: CacheKeys.identity(of: [path, base + ".shx", base + ".prj"]))
        levels = DetailLevels(store: store) { try Self.load(path: path) }
    }

    /// The shapefile at `path` in the Web Mercator unit world. With a PROJ context of its own, let go
    /// after: loads may run on several threads, and a context kept would hold its memory for nothing.
    static func load(path: String) throws -> IndexedGeometry {
        let transformation = try Transformation(pipeline: toWebMercator, context: ProjContext())
        let layer = try DegreeLayer.read(path: path)
        var g = layer.geometry
        // Web Mercator sends the poles to infinity without complaint: clamp first.
        for i in g.ys.indices {
            g.ys[i] = WebMercator.clampLatitude(g.ys[i])
        }
        let longitudes = g.xs
        try transformation.forward(xs: &g.xs, ys: &g.ys)
        for i in g.xs.indices {
            // PROJ wraps longitude 180 to -180: keep each vertex on the side of the world it came
            // from, or an edge ending on the antimeridian would cross the whole map.
            var x = g.xs[i]
            if longitudes[i] > 90 && x < 0 { x += 2 * WebMercator.halfWorldMeters }
            if longitudes[i] < -90 && x > 0 { x -= 2 * WebMercator.halfWorldMeters }
            let w = WebMercator.fromMeters(x: x, y: g.ys[i])
            g.xs[i] = w.x
            g.ys[i] = w.y
        }
        return IndexedGeometry(xs: g.xs, ys: g.ys, partStarts: g.partStarts, isPolygon: layer.isPolygon)
    }
}

/// A shapefile projected with PROJ into a planar projection's unit world, cut along its seam first.
public final class PlaneDatasource: @unchecked Sendable {
    public let levels: DetailLevels

    public init(path: String, plane: any PlaneProjector) throws {
        let (g, isPolygon) = try DegreeLayer.read(path: path)
        var parts = SeamCut.Parts(lons: g.xs, lats: g.ys, partStarts: g.partStarts)
        if let seam = plane.seam { parts = SeamCut.cut(parts, seam: seam, polygons: isPolygon) }
        var xs = parts.lons, ys = parts.lats
        plane.project(xs: &xs, ys: &ys)
        // Rings around an azimuthal projection's singular point need its rim (see PlaneRim).
        let rim = isPolygon && plane.seam == nil ? plane.rim : nil
        // Points the projection cannot show are left out: a ring joins its neighbours, a line breaks.
        var outX: [Double] = [], outY: [Double] = [], starts: [Int] = []
        outX.reserveCapacity(xs.count)
        outY.reserveCapacity(xs.count)
        for k in parts.partStarts.indices {
            let r = parts.partStarts[k]..<(k + 1 < parts.partStarts.count ? parts.partStarts[k + 1] : xs.count)
            var start = outX.count
            for i in r {
                if xs[i].isFinite && ys[i].isFinite {
                    let w = Projection.unit(x: xs[i], y: ys[i])
                    outX.append(w.x)
                    outY.append(w.y)
                } else if !isPolygon {
                    if outX.count - start >= 2 { starts.append(start) } else { outX.removeSubrange(start...); outY.removeSubrange(start...) }
                    start = outX.count
                }
            }
            if outX.count - start >= (isPolygon ? 3 : 2) {
                starts.append(start)
                // A ring around an azimuthal projection's singular point: the rim closes its picture.
                if let rim {
                    // The ring as kept (the points the plane can show), in plane metres.
                    let kept = r.filter { xs[$0].isFinite && ys[$0].isFinite }
                    let px = kept.map { xs[$0] }[...], py = kept.map { ys[$0] }[...]
                    if PlaneRim.enclosesSingularPoint(lons: parts.lons[r], lats: parts.lats[r], xs: px, ys: py) {
                        starts.append(outX.count)
                        for p in rim.ring(against: PlaneRim.signedArea(xs: px, ys: py)) {
                            let w = Projection.unit(x: p.x, y: p.y)
                            outX.append(w.x)
                            outY.append(w.y)
                        }
                    }
                }
            } else {
                outX.removeSubrange(start...)
                outY.removeSubrange(start...)
            }
        }
        levels = DetailLevels(IndexedGeometry(xs: outX, ys: outY, partStarts: starts, isPolygon: isPolygon))
    }
}

/// Shapefiles loaded once and shared by several base maps (the renders of a batch, on several
/// threads): each file is read and projected by the first map that needs it.
public final class ShapefileStore: @unchecked Sendable {
    private let lock = NSLock()
    private var sources: [String: ShapefileDatasource] = [:]
    private var planes: [String: PlaneDatasource] = [:]
    /// Where levels are kept between runs (nil: built by each run).
    public let cache: GeometryCache?

    public init(cache: GeometryCache? = nil) {
        self.cache = cache
    }

    /// The shapefile at `path`, loaded on first use.
    public func datasource(path: String) -> ShapefileDatasource {
        lock.withLock {
            if let d = sources[path] { return d }
            let d = ShapefileDatasource(path: path, cache: cache)
            sources[path] = d
            return d
        }
    }

    /// The shapefile at `path` in a planar projection (shared by every projection of the same definition).
    public func datasource(path: String, plane: any PlaneProjector) throws -> PlaneDatasource {
        try lock.withLock {
            let key = plane.definition + "\u{0}" + path
            if let d = planes[key] { return d }
            let d = try PlaneDatasource(path: path, plane: plane)
            planes[key] = d
            return d
        }
    }
}

/// The embedded default map: Natural Earth layers under `Assets/basemap`, painted with a `MapStyle`.
public final class ShapefileBaseMap: BaseMap {
    public let layers: [MapLayer]
    public let style: MapStyle
    public let directory: URL
    private var sources: [String: ShapefileDatasource] = [:]
    private var planeSources: [String: PlaneDatasource] = [:]
    private var outlines: [ObjectIdentifier: [WorldPoint]?] = [:]
    /// Paths and clippers of the drawing threads: [0] for frames, both for tiles drawn two at a time.
    private let scratch = [DrawScratch(), DrawScratch()]
    /// Where the layers' data comes from: a store shared with other maps, or this map's own.
    private let store: ShapefileStore
    /// Whether flights are composited from rasters of the map (see RasterCache); false: every frame
    /// is drawn from the vectors.
    public let cachesRasters: Bool
    /// Whether the map of a camera at rest is drawn once and copied under each of its frames.
    public let holdsStills: Bool
    private var cache: RasterCache?
    private let drawnTiles: DrawnTileCache?
    /// The cameras `plan(frames:)` found worth compositing from the raster cache, each with its place
    /// in the order they are composited (the cache's schedule).
    private var plannedCameras: [Camera: Int] = [:]
    /// Cameras held for two frames or more: while one holds, its picture of the map is kept and
    /// copied under each frame whose overlays move (a pin arriving, a card fading).
    private var heldCameras: Set<Camera> = []
    /// Held cameras on the pixel grid whose pictures, in I420, are their tiles copied (each with its
    /// place in the cache's schedule); the others' are drawn from the vectors.
    private var heldFromTiles: [Camera: Int] = [:]
    /// The scale of the frames planned (nil: none composited from the cache).
    private var plannedScale: Double?
    /// The held camera's picture of the map (within the cache's bound), and its camera.
    private var still: (viewport: Viewport, surface: ImageSurface)?
    /// The same in I420, for frames drawn into I420 pictures (`drawPlanar`).
    private var planarStill: (viewport: Viewport, picture: PlanarTile)?
    private var stillsDrawn = 0, framesFromStill = 0, heldPicturesFromTiles = 0
    /// Frames from a held picture into a picture that held it already: only what the overlays had
    /// drawn over it copied back (`PictureHistory`).
    private(set) var framesRestored = 0

    /// `assets` is the folder holding `basemap/`. `store`: shapefiles shared with other maps (nil:
    /// this map loads its own). `geometryCache`: where this map's levels are kept between runs, when
    /// it loads its own (a store has its own cache). `drawnTiles`: where the raster cache's tiles are
    /// kept between runs (nil: drawn in every render).
    public init(assets: URL, style: MapStyle = .standard, layers: [MapLayer]? = nil,
                store: ShapefileStore? = nil, geometryCache: GeometryCache? = nil, drawnTiles: DrawnTileCache? = nil,
                cachesRasters: Bool = true, holdsStills: Bool = true) throws {
        self.holdsStills = holdsStills
        self.store = store ?? ShapefileStore(cache: geometryCache)
        self.drawnTiles = drawnTiles
        self.cachesRasters = cachesRasters
        self.style = style
        self.layers = layers ?? MapLayer.standard(style)
        self.directory = assets.appendingPathComponent("basemap")
    }

    public var attribution: String? { "Natural Earth" }

    /// Loads the layers the given zooms need (1:10m data only when a close-up needs it).
    public func prepare(for viewports: [Viewport]) throws {
        // Build every level of detail the render will use now, not in the middle of it: per file,
        // the levels (flat, or on the sphere) its layers' zooms need.
        var wanted: [String: Set<LevelNeed>] = [:]
        var order: [String] = []
        // A frame composited from the raster cache is drawn at its tiles' zoom (up to a level step
        // above the camera's): their levels too.
        let drawn = viewports.flatMap { v -> [(Viewport, Double)] in
            guard let cache, plannedCameras[v.camera] != nil, Self.isFlatMercator(v) else { return [(v, v.camera.zoom)] }
            return [(v, v.camera.zoom), (v, cache.zoom(level: cache.level(worldSize: v.worldSize), scale: v.scale))]
        }
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

    /// What the raster cache did so far (nil: no cache).
    public var rasterCacheStatistics: RasterCacheStatistics? {
        cache.map { RasterCacheStatistics(tilesDrawn: $0.tilesDrawn, framesComposited: $0.framesComposited,
                                          peakBytes: $0.peakBytes, limitBytes: $0.limitBytes, stillsDrawn: stillsDrawn,
                                          framesFromStill: framesFromStill,
                                          stillsFromTiles: heldPicturesFromTiles, tilesRead: $0.tilesRead,
                                          flatTiles: $0.flatTiles) }
    }

    /// Chooses the frames to composite from rasters: moving frames (a camera shown once) of a flat
    /// north-up Mercator view, at levels where no layer fades, whose tiles are shown often enough to
    /// be cheaper drawn once than the frames drawn from the vectors. A camera at rest (shown twice or
    /// more in a row) is always drawn from the vectors: the picture held longest is exact.
    public func plan(frames cameras: [Camera], width: Int, height: Int, scale: Double) {
        plannedCameras = [:]
        plannedScale = nil
        heldCameras = []
        heldFromTiles = [:]
        releaseStill()
        guard cachesRasters || holdsStills else { return }
        let cache = self.cache ?? RasterCache(limitBytes: RasterCache.defaultLimit(width: width, height: height))
        func viewport(_ camera: Camera) -> Viewport { Viewport(camera: camera, width: width, height: height, scale: scale) }
        // World views (the 1:110m data) draw in a millisecond from the vectors, and their thin lines at
        // small scale suffer most from resampling: only close-ups are cached.
        func cacheable(_ v: Viewport) -> Bool { Self.isFlatMercator(v) && v.camera.zoom >= MapLayer.detailZoom }
        // A camera at rest on the pixel grid gets a level of its own world width: its picture is then
        // its tiles copied one for one (exact), and the frames flying in and out share them.
        let holds = cameras.indices.filter { i in
            i + 1 < cameras.count && cameras[i + 1] == cameras[i] && (i == 0 || cameras[i - 1] != cameras[i])
        }
        cache.addLevels(worldWidths: !cachesRasters ? [] : holds.compactMap { i in
            let v = viewport(cameras[i])
            return cacheable(v) ? Self.gridWidth(v) : nil
        })
        var uses: [RasterCache.TileID: Int] = [:]
        var candidates: [(camera: Camera, ids: [RasterCache.TileID], held: Bool)] = []
        for (i, camera) in cameras.enumerated() {
            if i > 0 && cameras[i - 1] == camera {
                if holdsStills { heldCameras.insert(camera) }
                continue
            }
            let held = i + 1 < cameras.count && cameras[i + 1] == camera
            // Flights from tiles only with the raster cache; a held picture from tiles only when held.
            guard cachesRasters, !held || holdsStills else { continue }
            let v = viewport(camera)
            guard cacheable(v), !held || Self.gridWidth(v) != nil else { continue }
            let levels = cache.levels(for: v)
            guard levels.allSatisfy({ cache.isSteady(level: $0.level, scale: scale, layers: layers) }) else { continue }
            if held && (levels.count != 1 || cache.levelWidth(levels[0].level) != Self.gridWidth(v)) { continue }
            let ids = levels.flatMap { cache.tileIDs(level: $0.level, for: v) }
            for id in ids { uses[id, default: 0] += 1 }
            candidates.append((camera, ids, held))
        }
        let tileArea = Double((cache.tileSize + 2) * (cache.tileSize + 2))
        let frameArea = Double(width * height)
        var scheduled: [[RasterCache.TileID]] = []
        for (camera, ids, held) in candidates {
            let drawn = ids.reduce(0.0) { $0 + tileArea / Double(uses[$1]!) }
            if drawn < rasterBreakEven * frameArea {
                if held { heldFromTiles[camera] = scheduled.count } else { plannedCameras[camera] = scheduled.count }
                scheduled.append(ids)
            }
        }
        cache.schedule(scheduled)
        if let drawnTiles {
            let recipe = tileRecipe(cache, scale: scale)
            if cache.store?.recipe != recipe { cache.store = drawnTiles.store(recipe: recipe) }
            cache.readAhead()
        }
        plannedScale = scheduled.isEmpty ? nil : scale
        cache.resamples = compositesWithOwnKernel
        if !plannedCameras.isEmpty || !heldCameras.isEmpty { self.cache = cache }
    }

    /// Everything the raster cache's tiles depend on (`tileDrawing`), for the drawn tile cache: this
    /// build of maptrip, the libraries that draw and convert them, the map's files and how their
    /// levels are made, its style and layers, the pixel ratio, the cache's tiles.
    func tileRecipe(_ cache: RasterCache, scale: Double) -> String {
        var lines = ["maptrip drawn tiles/3", DrawnTileCache.programIdentity, CairoLibrary.versions, "libyuv \(YUV.version)",
                     ShapefileDatasource.recipe, cache.recipe, "scale \(scale)", "strokes \(strokesItself ? "maptrip" : "cairo")",
                     "fills \(fillsItself ? "maptrip" : "cairo")", "style \(String(reflecting: style))", "layers \(String(reflecting: layers))"]
        for source in Set(layers.map(\.source)).sorted() {
            let base = directory.appendingPathComponent(source).path
            lines.append(source + " " + CacheKeys.identity(of: [base + ".shp", base + ".shx", base + ".prj"]))
        }
        return lines.joined(separator: "\n")
    }

    /// Whether tiles are composited with maptrip's own bilinear kernel where the CPU runs it (else with
    /// pixman, through Cairo): the benchmark compares the two. Set before `plan`.
    public var compositesWithOwnKernel = true

    /// A frame is composited when the tiles it draws new (each shared among the frames that show it)
    /// come to less than this share of the frame's own area (drawing a tile costs about what drawing
    /// the same area of a frame does; compositing a frame, a fifth of drawing it).
    public var rasterBreakEven = 0.6

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

    public func draw(_ viewport: Viewport, in cr: Context) throws {
        if let cache, heldCameras.contains(viewport.camera) {
            try drawHeld(viewport, cache: cache, in: cr)
            return
        }
        // The camera moves on: the tiles get the picture's room back.
        if still != nil || planarStill != nil { releaseStill() }
        try drawUncached(viewport, in: cr)
    }

    /// Lets the held picture go and gives its room back to the tiles.
    private func releaseStill() {
        still = nil
        planarStill = nil
        cache?.reserve(0)
    }

    /// A held camera: its picture of the map drawn once from the vectors and copied under every frame
    /// drawn while it holds (pixel for pixel what drawing it each time gives).
    private func drawHeld(_ viewport: Viewport, cache: RasterCache, in cr: Context) throws {
        if let still, still.viewport == viewport {
            framesFromStill += 1
            Self.copy(still.surface, to: cr)
            return
        }
        releaseStill()
        cache.reserve(viewport.width * viewport.height * 4)
        let surface = try ImageSurface.mapped(width: viewport.width, height: viewport.height)
        try surface.withContext { try drawUncached(viewport, in: $0) }
        still = (viewport, surface)
        stillsDrawn += 1
        Self.copy(surface, to: cr)
    }

    private static func copy(_ surface: ImageSurface, to cr: Context) {
        cr.save()
        cr.setOperator(.source)
        cr.setSource(surface, x: 0, y: 0)
        cr.paint()
        cr.restore()
    }

    public func drawPlanar(_ viewport: Viewport, into picture: PlanarPicture, scratch: ImageSurface) throws -> Bool {
        guard let cache, picture.width == viewport.width, picture.height == viewport.height else { return false }
        if heldCameras.contains(viewport.camera) {
            guard scratch.width == viewport.width, scratch.height >= 2 else { return false }
            // The held picture, drawn from the vectors once (through the scratch), kept in I420 (3 MB, not 8).
            if let still = planarStill, still.viewport == viewport, still.picture.matrix == picture.matrix {
                framesFromStill += 1
                if let history = picture.history, history.still === still.picture {
                    // A picture that holds it already, but for what the overlays drew over it.
                    still.picture.copy(history.drawnOver, into: picture)
                    framesRestored += 1
                } else {
                    still.picture.copy(into: picture)
                }
                picture.history?.holds(still.picture)
                return true
            }
            releaseStill()
            let held = PlanarTile(width: viewport.width, height: viewport.height, matrix: picture.matrix)
            cache.reserve(PlanarTile.bytes(width: held.width, height: held.height))
            if let position = heldFromTiles[viewport.camera],
               try cache.compositePlanar(viewport, position: position, outside: style.water, into: held.picture,
                                         draw: tileDrawing(scale: viewport.scale)) {
                heldPicturesFromTiles += 1
            } else {
                try drawHeldInBands(viewport, into: held, through: scratch)
            }
            planarStill = (viewport, held)
            stillsDrawn += 1
            held.copy(into: picture)
            picture.history?.holds(held)
            return true
        }
        guard let position = plannedCameras[viewport.camera], Self.isFlatMercator(viewport) else { return false }
        if still != nil || planarStill != nil { releaseStill() }
        picture.history?.forget()
        return try cache.compositePlanar(viewport, position: position, outside: style.water, into: picture,
                                         draw: tileDrawing(scale: viewport.scale))
    }

    /// The next tile the coming composited frames will show, drawn ahead (`RasterCache.prefetch`), over
    /// the next second of them.
    public func drawAhead() throws -> Bool {
        guard let cache, let scale = plannedScale else { return false }
        return try cache.prefetch(horizon: 30, draw: tileDrawing(scale: scale), scale: scale)
    }

    /// Draws a held picture from the vectors a band of rows at a time on `band` (BGRA rows of the
    /// frame's width), each converted into its rows of `held`: in a band's memory rather than a whole
    /// BGRA frame's, and the same pixels as one drawing of the whole. Each band's fills and lines are
    /// clipped to its rows (with the frame edges' margin: nothing inside the band changes), but dashed
    /// lines, which are given the whole frame's geometry (Cairo leaves what falls outside the band):
    /// clipped, a dashed border would start its dashes at the band's edge. Drawing-thread CPU over
    /// the world tour's 8 held pictures: 95-105 ms, against 108-126 with every layer whole in every
    /// band; the bands' rows are even, as the chroma's 2x2 blocks are.
    private func drawHeldInBands(_ viewport: Viewport, into held: PlanarTile, through band: ImageSurface) throws {
        let rowsPerBand = band.height & ~1
        for top in stride(from: 0, to: viewport.height, by: rowsPerBand) {
            let rows = top..<min(top + rowsPerBand, viewport.height)
            try band.withContext { cr in
                cr.translate(0, -Double(top))
                try drawUncached(viewport, in: cr, rows: rows)
            }
            try held.convert(band, rows: rows)
        }
        // Left transparent, as it was lent (the overlays are drawn on it next, over nothing).
        try band.withContext { cr in
            cr.setOperator(.clear)
            cr.paint()
        }
    }

    /// The recording is over: the drawn tile cache's pack of this render ends with its index.
    public func endRecording() { cache?.store?.finish() }

    /// How the raster cache's tiles are drawn: water, then the layers at the tile's zoom. Two tiles
    /// may be drawn at once: their threads look the layers' data up in turn.
    private func tileDrawing(scale: Double) -> RasterCache.TileDrawing {
        let water = style.water
        let lookup = NSLock()
        return { [unowned self] tile, transforms, zoom, worker in
            try tile.withContext { tcr in
                // Every pixel replaced: the surface may be an evicted tile's.
                tcr.setOperator(.source)
                tcr.setSource(water)
                tcr.paint()
                tcr.setOperator(.over)
                let clip = Self.clip(width: tile.width, height: tile.height, scale: scale)
                let dashScale = transforms.first.map { Self.dashScale(worldWidth: $0.scale) } ?? 1
                try drawLayers(zoom: zoom, scale: scale, dashScale: dashScale, in: tcr, scratch: scratch[worker]) { layer, s in
                    s.path.tracksAlong = layer.isDashed
                    let data = try lookup.withLock { datasource(layer.source) }.levels.geometry(zoom: zoom, scale: scale)
                    for t in transforms { s.clipper.append(data, transform: t, clip: clip, to: &s.path) }
                }
            }
        }
    }

    /// `rows`: only these rows of the frame are drawn (a band, see `drawHeldInBands`): lines and
    /// fills are clipped to them, with the same margin as the frame's edges, but for dashed lines,
    /// whose dashes are counted from their start.
    private func drawUncached(_ viewport: Viewport, in cr: Context, rows: Range<Int>? = nil) throws {
        if let cache, let position = plannedCameras[viewport.camera], Self.isFlatMercator(viewport) {
            try cache.composite(viewport, position: position, outside: style.water, in: cr,
                                draw: tileDrawing(scale: viewport.scale))
            return
        }
        cr.save()
        defer { cr.restore() }
        let frameClip = Self.clip(width: viewport.width, height: viewport.height, scale: viewport.scale)
        let bandClip = Self.clip(width: viewport.width, height: viewport.height, scale: viewport.scale, rows: rows)
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
        let dashScale = if case .webMercator = viewport.projection { Self.dashScale(worldWidth: viewport.worldSize) } else { 1.0 }
        try drawLayers(zoom: zoom, scale: scale, dashScale: dashScale, in: cr, scratch: scratch[0]) { layer, s in
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
                // Half the parts' vertices on each of two threads (the sphere's clipping costs a tenth of
                // a globe frame): the same path, in the same order.
                let data = try datasource(layer.source).sphere(zoom: zoom, scale: scale)
                let other = scratch[1], middle = data.middlePart
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
        }
        if case .globe = viewport.projection {
            let atmosphere = style.atmosphere
            try Bands.draw(on: cr, width: viewport.width, height: viewport.height) {
                GlobeBackdrop.drawRim(viewport, atmosphere: atmosphere, in: $0)
            }
        }
    }

    /// The factor on a Web Mercator map's dash lengths in a world this many pixels wide: the world's
    /// width over that of the first quarter zoom at least as wide (`RasterCache.stepWidth`), 0.84-1.
    /// The raster cache's tiles, drawn at those widths (or a resting camera's, between them) and
    /// scaled down, show the same dashes as a frame drawn from the vectors: dashes of one length on
    /// the map between two quarter zooms, counted from the lines' starts (`PixelPath.tracksAlong`).
    static func dashScale(worldWidth: Double) -> Double {
        let step = RasterCache.stepWidth(atLeast: worldWidth, stepsPerZoom: RasterCache.defaultStepsPerZoom)
        return min(1, worldWidth / Double(step))
    }

    /// Paints every layer that shows at `zoom`, one path each: `geometry` appends the layer's pixels
    /// to `scratch.path` (with `scratch.clipper`); dash lengths are the style's times `scale` and
    /// `dashScale`.
    private func drawLayers(zoom: Double, scale: Double, dashScale: Double, in cr: Context, scratch: DrawScratch,
                            geometry: (MapLayer, DrawScratch) throws -> Void) throws {
        for layer in layers {
            let opacity = layer.opacity(zoom: zoom)
            if opacity <= 0 { continue }
            scratch.path.removeAll()
            try geometry(layer, scratch)
            let path = scratch.path
            if path.subpathCount == 0 { continue }
            if case .stroke(let stroke) = layer.symbolizer,
               self.stroke(path, stroke, opacity: opacity, scale: scale, dashScale: dashScale, in: cr, scratch: scratch) {
                continue
            }
            if case .fill(let color) = layer.symbolizer, fillsItself, let target = PixelTarget(cr),
               target.fill(path, color: color.withAlpha(color.alpha * opacity)) {
                continue
            }
            // One path for all copies of the world, filled once: pieces that meet at the
            // antimeridian are rasterised together, so no seam shows between them.
            cr.newPath()
            emit(path, cr)
            switch layer.symbolizer {
            case .fill(let color):
                cr.setFillRule(.winding)
                cr.setSource(color.withAlpha(color.alpha * opacity))
                cr.fill()
            case .stroke(let stroke):
                cr.setSource(stroke.color.withAlpha(stroke.color.alpha * opacity))
                let width = stroke.width * scale
                cr.setLineWidth(width)
                let thin = Self.isHairline(width)
                cr.setLineJoin(thin ? .bevel : .round)
                cr.setLineCap(thin ? .butt : .round)
                let pattern = stroke.dash.map { $0 * scale * dashScale }
                guard path.hasAlong, pattern.reduce(0, +) >= 1 else {
                    cr.setDash(pattern)
                    cr.stroke()
                    continue
                }
                // Each piece dashed from its distance along its whole line, as maptrip's stroker
                // does (`Dashes`): a stroke each.
                cr.newPath()
                for k in 0..<path.subpathCount {
                    let r = path.range(k)
                    cr.move(to: path.xs[r.lowerBound], path.ys[r.lowerBound])
                    for i in (r.lowerBound + 1)..<r.upperBound { cr.line(to: path.xs[i], path.ys[i]) }
                    cr.setDash(pattern, offset: path.along[r.lowerBound])
                    cr.stroke()
                }
            }
        }
    }

    /// A layer's lines (dashed or not) drawn by maptrip's own stroker where the context lets it
    /// (`RoundStroke`): each dash a round-capped piece (`Dashes`), cut short at its ends so that it
    /// inks what Cairo's dash does (`RoundStroke.capInset`). Cairo samples fifteen sub-rows a row
    /// for the same lines: the 1:10m borders of a moving 1080p frame drawn from the vectors took 4.4
    /// ms, 1.3 this way (`maptrip-bench --profile`, clipping included); the globe's and Robinson's
    /// frames 28-32% less. False where the context does not allow it: Cairo strokes.
    private func stroke(_ path: PixelPath, _ stroke: MapStyle.Stroke, opacity: Double, scale: Double, dashScale: Double,
                        in cr: Context, scratch: DrawScratch) -> Bool {
        guard strokesItself, let target = PixelTarget(cr) else { return false }
        let width = stroke.width * scale
        let pattern = stroke.dash.map { $0 * scale * dashScale }
        // Dashes finer than a pixel are left to Cairo (which draws them as a fainter solid line): as
        // pieces, a long line would be millions of them.
        guard pattern.isEmpty || pattern.reduce(0, +) >= 1 else { return false }
        scratch.dashXY.removeAll(keepingCapacity: true)
        scratch.dashCounts.removeAll(keepingCapacity: true)
        // Flat caps on hairlines, round ones above, as Cairo strokes them (`drawLayers`).
        Dashes.pieces(of: path, pattern: pattern,
                      inset: RoundStroke.capInset(width: width, flatCaps: Self.isHairline(width)),
                      within: target.box(margin: width / 2 + 1),
                      into: &scratch.dashXY, counts: &scratch.dashCounts)
        return target.stroke(xy: &scratch.dashXY, counts: scratch.dashCounts,
                             passes: [(stroke.color.withAlpha(stroke.color.alpha * opacity), width)])
    }

    /// Whether a map line this wide (pixels) is a hairline, which Cairo strokes with bevel joins and
    /// flat ends (and maptrip's stroker cuts to ink as those do): round joins and caps cost Cairo's
    /// rasteriser an arc at every vertex and dash end, and on hairlines look no different.
    static func isHairline(_ width: Double) -> Bool { width <= 2 }

    /// Whether the layers' lines go through maptrip's own stroker where the context allows (false:
    /// Cairo strokes them all; the tests compare the two).
    public var strokesItself = true

    /// Whether the layers' fills (land, lakes) go through maptrip's own filler where the context
    /// allows (`PixelTarget.fill`: exact area cover, the land's whole pixels written without a blend;
    /// false: Cairo fills them all; the tests compare the two).
    public var fillsItself = true

    /// The pixels geometry is clipped to on a surface of this size: a little beyond its edges, so that
    /// strokes and antialiasing don't show the clip; or, with `rows`, a little beyond those rows.
    static func clip(width: Int, height: Int, scale: Double, rows: Range<Int>? = nil) -> Box {
        let margin = 4 * scale + 2
        let rows = rows ?? 0..<height
        return Box(minX: -margin, minY: Double(rows.lowerBound) - margin, maxX: Double(width) + margin,
                   maxY: Double(rows.upperBound) + margin)
    }

    /// The world width of a flat Mercator view on the pixel grid (`Camera.onPixelGrid`: a whole
    /// number of pixels, the frame's corner on an even pixel of it); nil off the grid.
    static func gridWidth(_ v: Viewport) -> Int? {
        let size = v.worldSize, whole = size.rounded()
        guard isFlatMercator(v), whole >= 1, whole < 1e15, abs(size - whole) < 1e-6 else { return nil }
        let c = v.center
        guard PixelGrid.isOn(c.x, frame: v.width, world: whole), PixelGrid.isOn(c.y, frame: v.height, world: whole) else {
            return nil
        }
        return Int(whole)
    }

    /// Whether a view is Web Mercator, north up: what the raster cache composites.
    static func isFlatMercator(_ viewport: Viewport) -> Bool {
        if case .webMercator = viewport.projection { return !viewport.isRotated }
        return false
    }

    private func emit(_ p: PixelPath, _ cr: Context) {
        p.xs.withUnsafeBufferPointer { xs in
            p.ys.withUnsafeBufferPointer { ys in
                for k in 0..<p.subpathCount {
                    let r = p.range(k)
                    cr.move(to: xs[r.lowerBound], ys[r.lowerBound])
                    for i in (r.lowerBound + 1)..<r.upperBound {
                        cr.line(to: xs[i], ys[i])
                    }
                    if p.closed { cr.closePath() }
                }
            }
        }
    }
}

/// One drawing thread's path and clipper (their buffers are kept from one layer to the next).
private final class DrawScratch: @unchecked Sendable {
    var path = PixelPath()
    var clipper = PathClipper()
    /// A layer's dashes for `RoundStroke` (x, y pairs; points a piece).
    var dashXY: [Double] = []
    var dashCounts: [Int32] = []
}
