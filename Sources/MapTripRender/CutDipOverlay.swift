import Cairo
import MapTripScene
import MapTripTime

/// A playback's jump over an idle stretch (`playback.skipIdle`) as a short fade: the map, its lines,
/// movers and furniture dip through black across the cut (`FrameValues.cutDip`), under the cards,
/// readouts and clock (which fades by itself), so the jump ahead is seen as one, not as a glitch.
public final class CutDipOverlay: OverlayFastPaths {
    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        let dip = frame.values.cutDip
        guard dip > 0 else { return }
        cr.save()
        cr.setSource(Color(red: 0, green: 0, blue: 0, alpha: min(1, dip)))
        cr.paint()
        cr.restore()
    }

    /// Nothing on the frames away from a cut (most of them), without recording the layer.
    public func marks(_ frame: FrameContext) throws -> [Mark]? {
        frame.values.cutDip > 0 ? nil : []
    }
}
