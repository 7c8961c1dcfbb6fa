import MapTripGeometry

/// A base map that places labels of its own (a MapLibre style's) and keeps them clear of boxes it is
/// given: the trip's pins and labels on the frame about to be drawn, so that no map label covers them.
public protocol AvoidsTripMarks: BaseMap {
    /// The boxes (frame pixels) the next frame's labels keep clear of.
    func avoid(_ boxes: [Box])
}

extension StyledMap: AvoidsTripMarks {
    public func avoid(_ boxes: [Box]) { labels.obstacles = boxes }
}

extension FrameRenderer {
    /// Tells a map that places labels (`AvoidsTripMarks`) where the trip's pins and labels go on this
    /// frame, once the overlays' preparation is done (the first places overlay's `tripBoxes`), and what
    /// else sits over the map there (the counter, the clock, the readouts, the furniture, the credit:
    /// a map label under them could not be read); nothing for other maps.
    func tellMapTripMarks(_ frame: FrameContext) throws {
        guard let map = baseMap as? AvoidsTripMarks else { return }
        // The places overlay's text is laid out by its preparation until then.
        waitForOverlays()
        let places = overlays.lazy.compactMap { $0 as? PlacesOverlay }.first
        let credit = overlays.lazy.compactMap { $0 as? AttributionOverlay }.first
        let creditBoxes = try credit?.marks(frame)?.map(\.box) ?? []
        map.avoid(try (places?.tripBoxes(frame) ?? []) + frame.overlayBoxes + creditBoxes)
    }
}
