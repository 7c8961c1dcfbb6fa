import CCairo

/// An unbounded surface that records drawing instead of rasterising it (cairo's recording surface):
/// the drawing's ink extents are known before it is replayed (`Context.setSource(_:x:y:)`, paint)
/// onto an image, so that only the pixels it touches need be looked at after.
public final class RecordingSurface {
    public let pointer: OpaquePointer

    public init() throws {
        pointer = try CairoError.checked(surface: cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, nil),
                                         "recording surface")
    }

    /// A recording bounded to the device rectangle (0, 0, width, height). Its ink extents are always
    /// known: an unbounded recording's are not once a group is painted on it (cairo 1.16 reports a
    /// negative width for `cairo_push_group` ... `cairo_paint`, and a frame drawn from such a recording
    /// would leave the group out); a bounded one reports at most its rectangle.
    public init(width: Int, height: Int) throws {
        var extents = cairo_rectangle_t(x: 0, y: 0, width: Double(width), height: Double(height))
        pointer = try CairoError.checked(surface: cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &extents),
                                         "recording surface")
    }

    deinit { cairo_surface_destroy(pointer) }

    /// The rectangle of device space the recorded drawing touches, in whole pixels; nil when nothing
    /// visible was drawn.
    public var inkExtents: (x: Int, y: Int, width: Int, height: Int)? {
        var x = 0.0, y = 0.0, w = 0.0, h = 0.0
        cairo_recording_surface_ink_extents(pointer, &x, &y, &w, &h)
        guard w > 0, h > 0, x.isFinite, y.isFinite, w.isFinite, h.isFinite else { return nil }
        // Far beyond any picture: clamped, so that whole numbers hold them.
        let limit = 1e9
        x = min(max(x, -limit), limit)
        y = min(max(y, -limit), limit)
        w = min(w, limit)
        h = min(h, limit)
        let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
        return (x0, y0, Int((x + w).rounded(.up)) - x0, Int((y + h).rounded(.up)) - y0)
    }
}
