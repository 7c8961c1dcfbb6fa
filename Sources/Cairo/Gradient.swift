import CCairo

/// A radial gradient between two circles (`cairo_pattern_create_radial`), with colour stops.
public final class RadialGradient {
    let pointer: OpaquePointer

    public init(x0: Double, y0: Double, r0: Double, x1: Double, y1: Double, r1: Double) throws {
        guard let p = cairo_pattern_create_radial(x0, y0, r0, x1, y1, r1) else {
            throw CairoError(CAIRO_STATUS_NO_MEMORY, "create radial gradient")
        }
        let status = cairo_pattern_status(p)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_pattern_destroy(p)
            throw CairoError(status, "create radial gradient")
        }
        pointer = p
    }

    deinit { cairo_pattern_destroy(pointer) }

    /// A colour at `offset` in [0, 1] from the first circle to the second.
    public func addStop(_ offset: Double, red: Double, green: Double, blue: Double, alpha: Double) {
        cairo_pattern_add_color_stop_rgba(pointer, offset, red, green, blue, alpha)
    }
}

extension Context {
    /// Paints with a gradient from now on.
    public func setSource(_ gradient: RadialGradient) { cairo_set_source(pointer, gradient.pointer) }
}
