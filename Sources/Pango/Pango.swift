import CPango
import Cairo

/// A Pango failure. Pango reports few errors itself; the message says what could not be done.
public struct PangoError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { "pango: \(message)" }
}

/// A font description such as "Noto Sans Bold 24px" (Pango's own syntax).
public final class FontDescription {
    let pointer: OpaquePointer

    public init(_ description: String) throws {
        guard let d = pango_font_description_from_string(description) else {
            throw PangoError(message: "cannot parse font description '\(description)'")
        }
        pointer = d
    }

    deinit { pango_font_description_free(pointer) }

    /// Size in device pixels.
    public func setAbsoluteSize(_ pixels: Double) {
        pango_font_description_set_absolute_size(pointer, pixels * Double(PANGO_SCALE))
    }
}

/// Which installed family fontconfig draws a font in.
public enum FontMatch {
    /// The family fontconfig gives for a description such as "Open Sans Bold" (Pango's syntax): the
    /// family asked for when it is installed, its nearest installed family when not; nil when no
    /// font loads at all.
    public static func family(_ description: String) -> String? {
        guard let found = maptrip_matched_family(description) else { return nil }
        defer { maptrip_g_free(found) }
        return String(cString: found)
    }
}

/// A paragraph of text laid out by Pango (shaping, bidi, font fallback for every script) for a
/// Cairo context.
public final class Layout {
    let pointer: OpaquePointer

    /// A layout for text drawn on `context` (and on any context with the same transformation).
    public init(context: Context) throws {
        guard let l = pango_cairo_create_layout(context.pointer) else {
            throw PangoError(message: "cannot create a layout")
        }
        pointer = l
        // Frames must not depend on hinting: metrics stay linear so text moves smoothly.
        let options = cairo_font_options_create()
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        pango_cairo_context_set_font_options(pango_layout_get_context(l), options)
        cairo_font_options_destroy(options)
        pango_layout_context_changed(l)
    }

    deinit { maptrip_g_object_unref(UnsafeMutableRawPointer(pointer)) }

    public var text: String {
        get { String(cString: pango_layout_get_text(pointer)) }
        set { pango_layout_set_text(pointer, newValue, -1); extents = nil }
    }

    public func setFont(_ font: FontDescription) { pango_layout_set_font_description(pointer, font.pointer); extents = nil }

    /// OpenType features for the whole text, as CSS's font-feature-settings says them ("tnum",
    /// "tnum, lnum"): a font-features attribute over every byte.
    public func setFontFeatures(_ features: String) {
        let list = pango_attr_list_new()
        pango_attr_list_insert(list, pango_attr_font_features_new(features))
        pango_layout_set_attributes(pointer, list)
        pango_attr_list_unref(list)
        extents = nil
    }

    /// Wraps at this width in pixels (nil: no wrapping).
    public func setWidth(_ pixels: Double?) {
        pango_layout_set_width(pointer, pixels.map { Int32($0 * Double(PANGO_SCALE)) } ?? -1)
        extents = nil
    }

    public enum Alignment: Sendable { case left, center, right }
    public func setAlignment(_ a: Alignment) {
        pango_layout_set_alignment(pointer, a == .center ? PANGO_ALIGN_CENTER : a == .right ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT)
        extents = nil
    }

    /// Ellipsizes at the end rather than overflow when a width is set.
    /// Wraps at word boundaries, and inside a word only when it is longer than a line.
    public func setWrapWordChar() { pango_layout_set_wrap(pointer, PANGO_WRAP_WORD_CHAR); extents = nil }

    public func setEllipsizeEnd() { pango_layout_set_ellipsize(pointer, PANGO_ELLIPSIZE_END); extents = nil }

    /// The ink and logical rectangles, measured once after each change (Pango walks every run's glyphs
    /// for them, and a label's are asked for on every frame it shows).
    private var extents: (ink: PangoRectangle, logical: PangoRectangle)?

    private var measured: (ink: PangoRectangle, logical: PangoRectangle) {
        if let extents { return extents }
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_extents(pointer, &ink, &logical)
        extents = (ink, logical)
        return (ink, logical)
    }

    /// The logical size in pixels.
    public var size: (width: Double, height: Double) {
        let rect = measured.logical
        return (Double(rect.width) / Double(PANGO_SCALE), Double(rect.height) / Double(PANGO_SCALE))
    }

    /// The ink (visible) rectangle relative to the layout's origin, in pixels.
    public var inkRect: (x: Double, y: Double, width: Double, height: Double) {
        let ink = measured.ink
        let s = Double(PANGO_SCALE)
        return (Double(ink.x) / s, Double(ink.y) / s, Double(ink.width) / s, Double(ink.height) / s)
    }

    /// Baseline of the first line, in pixels from the top.
    public var baseline: Double { Double(pango_layout_get_baseline(pointer)) / Double(PANGO_SCALE) }

    /// Glyphs no installed font could draw (shown as boxes). 0 means every character renders.
    public var unknownGlyphsCount: Int { Int(pango_layout_get_unknown_glyphs_count(pointer)) }

    /// The layout's clusters (the smallest runs of text shaped as one: a letter and its marks, a
    /// ligature) in visual order, each its byte range in the text and its logical left edge and
    /// advance in pixels (the whole layout's kerning and shaping included).
    public var clusters: [(byteStart: Int, left: Double, advance: Double)] {
        guard let iter = pango_layout_get_iter(pointer) else { return [] }
        defer { pango_layout_iter_free(iter) }
        var out: [(byteStart: Int, left: Double, advance: Double)] = []
        let s = Double(PANGO_SCALE)
        repeat {
            var ink = PangoRectangle(), logical = PangoRectangle()
            pango_layout_iter_get_cluster_extents(iter, &ink, &logical)
            // The line's end is a position, not a cluster.
            if logical.width != 0 {
                let x = logical.width < 0 ? logical.x + logical.width : logical.x
                out.append((Int(pango_layout_iter_get_index(iter)), Double(x) / s, Double(abs(logical.width)) / s))
            }
        } while pango_layout_iter_next_cluster(iter) != 0
        return out
    }

    /// Adds the text outlines to a context's path at its current point (for halos). Any context
    /// with the same transformation as the one the layout was made for will do.
    public func appendPath(in cr: Context) { pango_cairo_layout_path(cr.pointer, pointer) }

    /// Draws the text with a context's source at its current point.
    public func show(in cr: Context) { pango_cairo_show_layout(cr.pointer, pointer) }
}
