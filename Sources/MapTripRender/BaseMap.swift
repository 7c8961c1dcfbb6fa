import Cairo
import MapTripGeometry
import MapTripSupport

/// What lies under the overlays: the embedded shapefile map, or a tiled map. Like a Mapnik
/// datasource + layers + style, seen from the frame renderer as one thing that paints a viewport.
public protocol BaseMap: AnyObject {
    /// Gets ready for a render that will show these viewports (loads the data their zooms need,
    /// fetches their tiles), so that drawing never waits frame by frame. Called once, before drawing.
    func prepare(for viewports: [Viewport]) throws
    /// The camera of every frame of the recording about to be drawn, in order (a held camera repeated),
    /// and the frames' format: a map that caches can tell flights from rests. Called after `prepare`.
    func plan(frames cameras: [Camera], format: FrameFormat)
    /// Paints the whole frame for a viewport.
    func draw(_ viewport: Viewport, in context: Context) throws
    /// Paints the whole frame for a viewport straight into an I420 picture, where the map can (a frame
    /// it composites from rasters, a held picture it keeps); false, painting nothing, where it cannot:
    /// `draw` it then. `scratch`: BGRA rows of the frame's width (a band of its rows, an even number
    /// of them) the map may draw through, a band at a time; transparent, and to be left so.
    func drawPlanar(_ viewport: Viewport, into picture: PlanarPicture, scratch: ImageSurface) throws -> Bool
    /// Does a little of the drawing the coming frames will need (a tile of a raster cache), while the
    /// drawing thread would otherwise wait for the encoder; false when there is none to do.
    func drawAhead() throws -> Bool
    /// The recording is over (done, failed or stopped) and its drawing thread with it: keeps what the
    /// map kept for later renders in the form they read fastest (a drawn tile cache's pack index).
    func endRecording()
    /// The credit that must be shown bottom-right while this map is on screen (nil: none needed).
    var attribution: String? { get }
    /// A warning to show in the frame instead of a credit (a tile map given no attribution).
    var attributionWarning: String? { get }
    /// Problems that did not stop the render (failed tiles, ...), to report once at the end.
    var warnings: [String] { get }
    /// What the map's raster cache did so far (nil: it has none).
    var rasterCacheStatistics: RasterCacheStatistics? { get }
}

extension BaseMap {
    public func prepare(for viewports: [Viewport]) throws {}
    public func plan(frames cameras: [Camera], format: FrameFormat) {}
    public func drawPlanar(_ viewport: Viewport, into picture: PlanarPicture, scratch: ImageSurface) throws -> Bool { false }
    public func drawAhead() throws -> Bool { false }
    public func endRecording() {}
    public var attribution: String? { nil }
    public var attributionWarning: String? { nil }
    public var warnings: [String] { [] }
    public var rasterCacheStatistics: RasterCacheStatistics? { nil }
}

/// No map: every frame starts fully transparent, for overlays laid over other footage
/// (`"background": "transparent"`).
public final class TransparentBaseMap: BaseMap {
    public init() {}

    public func draw(_ viewport: Viewport, in context: Context) throws {
        context.save()
        context.setOperator(.clear)
        context.paint()
        context.restore()
    }
}

/// What a base map's raster cache did: tiles drawn from the vectors (and read back from the drawn
/// tile cache instead), frames composited from them, the most pixel memory it held and its bound;
/// held cameras' pictures made (of them, those copied from tiles), and frames copied from them.
public struct RasterCacheStatistics: Sendable, Equatable {
    public var tilesDrawn: Int
    /// Of `tilesDrawn`, tiles the cache had drawn (or read back) before in the render: evicted by the
    /// bound and wanted again.
    public var tilesDrawnAgain: Int = 0
    public var framesComposited: Int
    public var peakBytes: Int
    public var limitBytes: Int
    public var stillsDrawn: Int
    public var framesFromStill: Int
    public var stillsFromTiles: Int = 0
    public var tilesRead: Int = 0
    /// Tiles found flat (one colour: open sea) and kept as their samples rather than planes.
    public var flatTiles: Int = 0
}
