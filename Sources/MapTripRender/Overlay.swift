import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Pango

/// Everything an overlay needs to draw one frame: the scene, every track's value at this frame,
/// the viewport, the layout, the base map and the pictures the scene names.
public struct FrameContext {
    public var scene: Scene
    public var values: FrameValues
    public var viewport: Viewport
    public var layout: FrameLayout
    public var baseMap: BaseMap
    /// The line of the leg into place i (nil for place 0).
    public var routes: [RouteLine?]
    public var media: SceneMedia
    /// The frame's number in the trip, and the trip's other frames (nil: a frame drawn on its own,
    /// without a timeline): for what changes by its own clock between frames, such as a label that
    /// changes sides fading across (see `PlacesOverlay`).
    public var number: Int? = nil
    public var frameAt: ((Int) -> FrameContext)? = nil
    /// The trip's frame count, and its frames' viewports (without their other values), when the frame
    /// has a number.
    public var frameCount: Int? = nil
    public var viewportAt: ((Int) -> Viewport)? = nil
    /// The frames from the timeline's last event to its next (a flight, from the timer firing to the
    /// arrival; a rest, from the arrival to the next firing; the outro), when the frame has a number.
    public var stretch: Range<Int>? = nil
    /// The shortcuts the frame's renderer takes (an overlay that keeps what it drew between frames,
    /// the travelled lines, keeps it only where `lines` is on).
    public var fastPaths: FastPaths = .all

    /// Where the presenter sits on this frame (nil: not showing): cards, captions, labels and the
    /// counter keep clear of it.
    public var presenterBox: Box? { values.presenter == nil ? nil : layout.presenter }
}

/// A layer drawn over the base map (route, pins and labels, vehicle, cards, credit). It draws the
/// values of its tracks, placed by the frame's layout; the renderer draws its layers in order, and
/// new ones join the list without touching the others. A layer that can do more than draw (be made
/// ahead, drawn straight into I420, tell where its ink goes) adopts `OverlayFastPaths` too.
public protocol Overlay: AnyObject {
    func draw(_ frame: FrameContext, in cr: Context) throws
}

/// What an overlay may offer beside `draw`, each optional (the defaults offer nothing): the fast
/// paths of a frame drawn into I420, and work made ahead of the frames. Each must give the pixels
/// `draw` gives (`FastPaths` turns them off, and the conformance matrix compares).
public protocol OverlayFastPaths: Overlay {
    /// For an overlay of long thin lines (a route, the graticule): the cells of the frame its ink may
    /// touch on `frame`, found without drawing; nil where it cannot tell (its ink is then recorded and
    /// its bounding box taken). A frame drawn into I420 draws such an overlay straight onto each band
    /// of rows, clipped to its cells there, and blends only those cells: a diagonal line's bounding
    /// box is most of the frame, its cells a few percent of it.
    func inkCells(_ frame: FrameContext) throws -> InkCells?
    /// Draws straight into an I420 picture the pixels `draw` gives on a transparent overlay blended
    /// over it, where the overlay can: the rectangles it drew in (nil: nothing drawn, it cannot). A
    /// frame asks only where nothing is drawn under the overlay yet.
    func drawPlanar(_ frame: FrameContext, into picture: PlanarPicture) throws -> [InkCells.Rect]?
    /// For an overlay of pictures drawn once (labels, pins, the credit): what it paints on `frame`, in
    /// order, as `draw` paints it; nil where it draws otherwise on this frame. A frame drawn into I420
    /// paints each such picture on the bands of rows it meets, and blends only their rectangles,
    /// without recording the overlay first.
    func marks(_ frame: FrameContext) throws -> [Mark]?
    /// What the overlay can make ahead of the frames that draw it (text laid out, pictures drawn once),
    /// in small steps, in the order the trip needs them: those the first frame drawn needs (its values
    /// `first`; nil: every step) made off the drawing thread while a render starts, the others by the
    /// drawing thread while it waits for the encoder (see `FrameRenderer.prepareOverlays`). An overlay
    /// with nothing to make ahead has no steps.
    func preparation(_ scene: Scene, layout: FrameLayout, first: FrameValues?) -> [PreparationStep]
    /// Whether the overlay changes on `frame` by its own clock, its values the same as the frame
    /// before's (a label fading across sides): such a frame is drawn, not repeated.
    func animates(_ frame: FrameContext) throws -> Bool
}

/// A piece of an overlay's work made ahead of the frames that need it (see `OverlayFastPaths.preparation`).
public struct PreparationStep {
    /// Whether the first frame drawn needs it.
    public var forFirstFrame: Bool
    public var make: () throws -> Void

}

extension OverlayFastPaths {
    public func inkCells(_ frame: FrameContext) throws -> InkCells? { nil }
    public func drawPlanar(_ frame: FrameContext, into picture: PlanarPicture) throws -> [InkCells.Rect]? { nil }
    public func marks(_ frame: FrameContext) throws -> [Mark]? { nil }
    public func preparation(_ scene: Scene, layout: FrameLayout, first: FrameValues?) -> [PreparationStep] { [] }
    public func animates(_ frame: FrameContext) throws -> Bool { false }
}
