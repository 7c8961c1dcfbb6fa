import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripSupport

/// What a map gives the caching strategy that draws its frames (`MapCaching`): how to draw a frame
/// from its data, how to draw a raster tile of itself, and what its tiles depend on.
protocol CacheableMap: AnyObject {
    /// The layers drawn, bottom to top (a level where one fades is drawn from the data).
    var layers: [MapLayer] { get }
    /// Painted beyond the map's world (above and below Web Mercator's square): its water.
    var outside: Color { get }
    /// Paints the frame for a viewport from the map's data; `rows`: only these rows of it (a band).
    func drawDirect(_ viewport: Viewport, in cr: Context, rows: Range<Int>?) throws
    /// How the raster cache's tiles of the map are drawn at a pixel ratio.
    func tileDrawing(scale: Double) -> RasterCache.TileDrawing
    /// Everything the map's tiles depend on, for the drawn tile cache (see `DrawnTileCache`).
    func tileRecipe(_ cache: RasterCache, scale: Double) -> String
}

/// How a map's frames are cached, a strategy the map is given rather than part of it: flights
/// composited from raster tiles of the map (see `RasterCache`), the picture of a camera at rest drawn
/// once and copied under each of its frames, tiles kept between renders (`DrawnTileCache`). Every
/// other frame is drawn from the map's data. What is cached is chosen by `plan`, over the whole
/// recording's cameras.
public final class MapCaching {
    /// Whether flights are composited from rasters of the map; false: every frame is drawn from the data.
    public let cachesRasters: Bool
    /// Whether the map of a camera at rest is drawn once and copied under each of its frames.
    public let holdsStills: Bool
    /// Where the raster cache's tiles are kept between runs (nil: drawn in every render).
    let drawnTiles: DrawnTileCache?
    private(set) var cache: RasterCache?
    /// The cameras `plan` found worth compositing from the raster cache, each with its place in the
    /// order they are composited (the cache's schedule).
    private var plannedCameras: [Camera: Int] = [:]
    /// Cameras held for two frames or more: while one holds, its picture of the map is kept and
    /// copied under each frame whose overlays move (a pin arriving, a card fading).
    private var heldCameras: Set<Camera> = []
    /// Held cameras on the pixel grid whose pictures, in I420, are their tiles copied (each with its
    /// place in the cache's schedule); the others' are drawn from the data.
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

    /// Whether tiles are composited with maptrip's own bilinear kernel where the CPU runs it (else with
    /// pixman, through Cairo): the benchmark compares the two. Set before `plan`.
    public var compositesWithOwnKernel = true

    /// A frame is composited when the tiles it draws new (each shared among the frames that show it)
    /// come to less than this share of the frame's own area (drawing a tile costs about what drawing
    /// the same area of a frame does; compositing a frame, a fifth of drawing it).
    public var rasterBreakEven = 0.6

    /// The most the raster cache's bound is raised to (bytes of BGRA tiles; planar tiles take 3/8 of
    /// theirs, held within 0.57 of the bound, `RasterCache.tileRoom`: 146 MB at most). `plan` gives the
    /// cache room for every tile the trip's frames show, one frame's picture beside them, so that each
    /// is drawn (or read back) once per render, where that fits under this; a trip showing more keeps
    /// this bound, and its tiles shown again soonest. Never below the room one frame's tiles need
    /// (`RasterCache.defaultLimit`). 256 MB holds a 1080p world tour's 578 tiles (154 MB as BGRA), the
    /// two-hour ride's 337 (90 MB); 0: that smallest bound always.
    public var tileMemoryCap: Int

    /// `tileMemoryCap`'s default.
    public static let defaultTileMemoryCap = 256 << 20

    public init(cachesRasters: Bool = true, holdsStills: Bool = true, drawnTiles: DrawnTileCache? = nil,
                tileMemoryCap: Int = defaultTileMemoryCap) {
        self.cachesRasters = cachesRasters
        self.holdsStills = holdsStills
        self.drawnTiles = drawnTiles
        self.tileMemoryCap = tileMemoryCap
    }

    /// What the raster cache did so far (nil: no cache).
    public var statistics: RasterCacheStatistics? {
        cache.map { RasterCacheStatistics(tilesDrawn: $0.tilesDrawn, tilesDrawnAgain: $0.tilesDrawnAgain,
                                          framesComposited: $0.framesComposited,
                                          peakBytes: $0.peakBytes, limitBytes: $0.limitBytes, stillsDrawn: stillsDrawn,
                                          framesFromStill: framesFromStill,
                                          stillsFromTiles: heldPicturesFromTiles, tilesRead: $0.tilesRead,
                                          flatTiles: $0.flatTiles) }
    }

    /// The zooms a viewport's frame is drawn at from the data: the camera's, and for a frame
    /// composited from the raster cache its tiles' (up to a level step above the camera's).
    func zoomsDrawn(_ v: Viewport) -> [Double] {
        guard let cache, plannedCameras[v.camera] != nil, Self.isMercator(v) else { return [v.camera.zoom] }
        return [v.camera.zoom, cache.zoom(level: cache.level(worldSize: v.worldSize), scale: v.scale)]
    }

    /// Chooses the frames to composite from rasters: moving frames (a camera shown once) of a flat
    /// north-up Mercator view, at levels where no layer fades, whose tiles are shown often enough to
    /// be cheaper drawn once than the frames drawn from the data. A camera at rest (shown twice or
    /// more in a row) is always drawn from the data: the picture held longest is exact.
    func plan(frames cameras: [Camera], format: FrameFormat, map: CacheableMap) {
        let width = format.width, height = format.height, scale = format.scale
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
        func cacheable(_ v: Viewport) -> Bool { Self.isMercator(v) && v.camera.zoom >= MapLayer.detailZoom }
        // A camera at rest on the pixel grid gets a level of its own world width: its picture is then
        // its tiles copied one for one (exact), and the frames flying in and out share them.
        let holds = cameras.indices.filter { i in
            i + 1 < cameras.count && cameras[i + 1] == cameras[i] && (i == 0 || cameras[i - 1] != cameras[i])
        }
        cache.addLevels(worldWidths: !cachesRasters ? [] : holds.compactMap { i in
            let v = viewport(cameras[i])
            return cacheable(v) ? v.pixelGridWidth : nil
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
            guard cacheable(v), !held || v.pixelGridWidth != nil else { continue }
            let levels = cache.levels(for: v)
            guard levels.allSatisfy({ cache.isSteady(level: $0.level, scale: scale, layers: map.layers, frameZoom: camera.zoom) })
            else { continue }
            if held && (levels.count != 1 || cache.levelWidth(levels[0].level) != v.pixelGridWidth) { continue }
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
        // Room for all the scheduled tiles (and a held picture) where the cap allows: none drawn twice.
        let least = RasterCache.defaultLimit(width: width, height: height, tileSize: cache.tileSize,
                                             stepsPerZoom: cache.stepsPerZoom, crossFade: cache.crossFade)
        cache.limitBytes = max(least, min(cache.bytesToHold(scheduled) + width * height * 4, tileMemoryCap))
        if let drawnTiles {
            let recipe = map.tileRecipe(cache, scale: scale)
            if cache.store?.recipe != recipe { cache.store = drawnTiles.store(recipe: recipe) }
            cache.readAhead()
        }
        plannedScale = scheduled.isEmpty ? nil : scale
        cache.resamples = compositesWithOwnKernel
        if !plannedCameras.isEmpty || !heldCameras.isEmpty { self.cache = cache }
    }

    /// How a frame's map was made.
    enum Drawn { case held, composited, direct }

    /// Paints the whole frame for a viewport: a held camera's picture copied, a planned flight
    /// composited, anything else drawn from the map's data.
    @discardableResult
    func draw(_ viewport: Viewport, in cr: Context, map: CacheableMap) throws -> Drawn {
        if let cache, heldCameras.contains(viewport.camera) {
            try drawHeld(viewport, cache: cache, in: cr, map: map)
            return .held
        }
        // The camera moves on: the tiles get the picture's room back.
        if still != nil || planarStill != nil { releaseStill() }
        return try drawUncached(viewport, in: cr, map: map)
    }

    /// A frame composited from the raster cache where it was planned so, else drawn from the data
    /// (`rows`: only these rows of it).
    @discardableResult
    private func drawUncached(_ viewport: Viewport, in cr: Context, rows: Range<Int>? = nil,
                              map: CacheableMap) throws -> Drawn {
        if let cache, let position = plannedCameras[viewport.camera], Self.isMercator(viewport) {
            try cache.composite(viewport, position: position, outside: map.outside, in: cr,
                                draw: map.tileDrawing(scale: viewport.scale))
            return .composited
        }
        try map.drawDirect(viewport, in: cr, rows: rows)
        return .direct
    }

    /// Lets the held picture go and gives its room back to the tiles.
    private func releaseStill() {
        still = nil
        planarStill = nil
        cache?.reserve(0)
    }

    /// A held camera: its picture of the map drawn once and copied under every frame drawn while it
    /// holds (pixel for pixel what drawing it each time gives).
    private func drawHeld(_ viewport: Viewport, cache: RasterCache, in cr: Context, map: CacheableMap) throws {
        if let still, still.viewport == viewport {
            framesFromStill += 1
            Self.copy(still.surface, to: cr)
            return
        }
        releaseStill()
        cache.reserve(viewport.width * viewport.height * 4)
        let surface = try ImageSurface.mapped(width: viewport.width, height: viewport.height)
        try surface.withContext { try drawUncached(viewport, in: $0, map: map) }
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

    /// Paints the frame straight into an I420 picture where it is cached (see `BaseMap.drawPlanar`):
    /// a held camera's picture (its tiles copied, or drawn from the data a band at a time through
    /// `scratch`, once), a planned flight composited; false elsewhere. `overTiles` is given each
    /// picture composited from the raster cache's tiles (a flight's, a held picture's before it is
    /// kept), to draw over them what the tiles leave out (a styled map's labels).
    func drawPlanar(_ viewport: Viewport, into picture: PlanarPicture, scratch: ImageSurface, map: CacheableMap,
                    overTiles: ((PlanarPicture) throws -> Void)? = nil) throws -> Bool {
        guard let cache, picture.width == viewport.width, picture.height == viewport.height else { return false }
        if heldCameras.contains(viewport.camera) {
            guard scratch.width == viewport.width, scratch.height >= 2 else { return false }
            // The held picture, drawn from the data once (through the scratch), kept in I420 (3 MB, not 8).
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
               try cache.compositePlanar(viewport, position: position, outside: map.outside, into: held.picture,
                                         draw: map.tileDrawing(scale: viewport.scale)) {
                heldPicturesFromTiles += 1
                try overTiles?(held.picture)
            } else {
                try drawHeldInBands(viewport, into: held, through: scratch, map: map)
            }
            planarStill = (viewport, held)
            stillsDrawn += 1
            held.copy(into: picture)
            picture.history?.holds(held)
            return true
        }
        guard let position = plannedCameras[viewport.camera], Self.isMercator(viewport) else { return false }
        if still != nil || planarStill != nil { releaseStill() }
        picture.history?.forget()
        guard try cache.compositePlanar(viewport, position: position, outside: map.outside, into: picture,
                                        draw: map.tileDrawing(scale: viewport.scale)) else { return false }
        try overTiles?(picture)
        return true
    }

    /// The next tile the coming composited frames will show, drawn ahead (`RasterCache.prefetch`), over
    /// the next second of them.
    func drawAhead(map: CacheableMap) throws -> Bool {
        guard let cache, let scale = plannedScale else { return false }
        return try cache.prefetch(horizon: 30, draw: map.tileDrawing(scale: scale), scale: scale)
    }

    /// The recording is over: the drawn tile cache's pack of this render ends with its index.
    func endRecording() { cache?.store?.finish() }

    /// Draws a held picture from the data a band of rows at a time on `band` (BGRA rows of the
    /// frame's width), each converted into its rows of `held`: in a band's memory rather than a whole
    /// BGRA frame's, and the same pixels as one drawing of the whole. Each band's fills and lines are
    /// clipped to its rows (with the frame edges' margin: nothing inside the band changes), but dashed
    /// lines, which are given the whole frame's geometry (Cairo leaves what falls outside the band):
    /// clipped, a dashed border would start its dashes at the band's edge. Drawing-thread CPU over
    /// the world tour's 8 held pictures: 95-105 ms, against 108-126 with every layer whole in every
    /// band; the bands' rows are even, as the chroma's 2x2 blocks are.
    private func drawHeldInBands(_ viewport: Viewport, into held: PlanarTile, through band: ImageSurface,
                                 map: CacheableMap) throws {
        let rowsPerBand = band.height & ~1
        for top in stride(from: 0, to: viewport.height, by: rowsPerBand) {
            let rows = top..<min(top + rowsPerBand, viewport.height)
            try band.withContext { cr in
                cr.translate(0, -Double(top))
                try drawUncached(viewport, in: cr, rows: rows, map: map)
            }
            try held.convert(band, rows: rows)
        }
        // Left transparent, as it was lent (the overlays are drawn on it next, over nothing).
        try band.withContext { cr in
            cr.setOperator(.clear)
            cr.paint()
        }
    }

    /// Whether a view is Web Mercator, at any bearing: what the raster cache composites (into BGRA or
    /// I420, north up or turned).
    static func isMercator(_ viewport: Viewport) -> Bool {
        if case .webMercator = viewport.projection { return true }
        return false
    }
}
