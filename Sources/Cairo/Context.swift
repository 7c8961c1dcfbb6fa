import CCairo

/// A Cairo drawing context on a surface. Thin: each method is one Cairo call.
public final class Context {
    public let pointer: OpaquePointer
    /// The target, kept alive as long as the context.
    private let image: ImageSurface?
    private let recording: RecordingSurface?

    /// The image surface drawn on. Only image contexts have one: a recording context's drawing is
    /// replayed, never read (asking for its surface is a programming error).
    public var surface: ImageSurface {
        guard let image else { preconditionFailure("a recording context has no image surface") }
        return image
    }

    public init(surface: ImageSurface) throws {
        pointer = try Self.create(surface.pointer)
        image = surface
        recording = nil
    }

    /// A context recording onto `recording` (see `RecordingSurface`).
    public init(recording: RecordingSurface) throws {
        pointer = try Self.create(recording.pointer)
        image = nil
        self.recording = recording
    }

    private static func create(_ target: OpaquePointer) throws -> OpaquePointer {
        guard let cr = cairo_create(target) else {
            throw CairoError(CAIRO_STATUS_NO_MEMORY, "create context")
        }
        let status = cairo_status(cr)
        if status != CAIRO_STATUS_SUCCESS {
            cairo_destroy(cr)
            throw CairoError(status, "create context")
        }
        return cr
    }

    deinit { cairo_destroy(pointer) }

    /// Throws the context's sticky error, if drawing hit one.
    public func checkStatus(_ operation: String) throws {
        try CairoError.check(cairo_status(pointer), operation)
    }

    // MARK: State

    public func save() { cairo_save(pointer) }
    public func restore() { cairo_restore(pointer) }

    /// A solid source with straight (not premultiplied) components in 0...1.
    public func setSource(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        cairo_set_source_rgba(pointer, red, green, blue, alpha)
    }
    public func setSource(_ surface: ImageSurface, x: Double, y: Double) {
        cairo_set_source_surface(pointer, surface.pointer, x, y)
    }
    /// A recording's drawing as the source, replayed when painted.
    public func setSource(_ recording: RecordingSurface, x: Double, y: Double) {
        cairo_set_source_surface(pointer, recording.pointer, x, y)
    }
    func setSource(rawSurface: OpaquePointer, x: Double, y: Double) {
        cairo_set_source_surface(pointer, rawSurface, x, y)
    }

    /// Raw values: `cairo_filter_t`'s, a stable part of Cairo's ABI.
    public enum Filter: UInt32, Sendable { case fast = 0, good = 1, best = 2, nearest = 3, bilinear = 4 }
    /// The filter used when the current source (a surface) is scaled.
    public func setSourceFilter(_ f: Filter) {
        cairo_pattern_set_filter(cairo_get_source(pointer), cairo_filter_t(rawValue: f.rawValue))
    }

    /// Pads the source surface's edges outwards instead of fading them to transparent, so scaled
    /// images laid edge to edge show no seams.
    public func setSourceExtendPad() { cairo_pattern_set_extend(cairo_get_source(pointer), CAIRO_EXTEND_PAD) }

    public func setLineWidth(_ w: Double) { cairo_set_line_width(pointer, w) }
    public enum LineJoin: Sendable { case miter, round, bevel }
    public func setLineJoin(_ j: LineJoin) {
        cairo_set_line_join(pointer, j == .round ? CAIRO_LINE_JOIN_ROUND : j == .bevel ? CAIRO_LINE_JOIN_BEVEL : CAIRO_LINE_JOIN_MITER)
    }
    public enum LineCap: Sendable { case butt, round, square }
    public func setLineCap(_ c: LineCap) {
        cairo_set_line_cap(pointer, c == .round ? CAIRO_LINE_CAP_ROUND : c == .square ? CAIRO_LINE_CAP_SQUARE : CAIRO_LINE_CAP_BUTT)
    }
    public func setDash(_ dashes: [Double], offset: Double = 0) {
        dashes.withUnsafeBufferPointer { cairo_set_dash(pointer, $0.baseAddress, Int32($0.count), offset) }
    }
    public enum FillRule: Sendable { case winding, evenOdd }
    public func setFillRule(_ r: FillRule) {
        cairo_set_fill_rule(pointer, r == .evenOdd ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
    }
    /// Raw values: `cairo_antialias_t`'s.
    public enum Antialias: UInt32, Sendable { case `default` = 0, none = 1, fast = 4, good = 5, best = 6 }
    /// How edges are rasterised. Beware `.fast` with Cairo 1.16 (Debian 12): its "tor22" scan
    /// converter writes past its own buffers on some paths (seen under valgrind with maptrip's
    /// borders, and reported as crashes elsewhere, e.g. mplcairo issue 13). maptrip never uses it.
    public func setAntialias(_ a: Antialias) { cairo_set_antialias(pointer, cairo_antialias_t(rawValue: a.rawValue)) }
    public func setTolerance(_ t: Double) { cairo_set_tolerance(pointer, t) }
    public enum Operator: Sendable { case over, source, clear }
    public func setOperator(_ o: Operator) {
        cairo_set_operator(pointer, o == .source ? CAIRO_OPERATOR_SOURCE : o == .clear ? CAIRO_OPERATOR_CLEAR : CAIRO_OPERATOR_OVER)
    }

    // MARK: Transform

    public func translate(_ x: Double, _ y: Double) { cairo_translate(pointer, x, y) }
    public func scale(_ x: Double, _ y: Double) { cairo_scale(pointer, x, y) }
    /// Rotates user space by `radians` (clockwise on screen, where y points down).
    public func rotate(_ radians: Double) { cairo_rotate(pointer, radians) }
    public func identityMatrix() { cairo_identity_matrix(pointer) }
    /// Whether user space is device space (no transform set).
    public var hasIdentityMatrix: Bool {
        var m = cairo_matrix_t()
        cairo_get_matrix(pointer, &m)
        return m.xx == 1 && m.yx == 0 && m.xy == 0 && m.yy == 1 && m.x0 == 0 && m.y0 == 0
    }
    /// The image surface drawing goes to: nil for a recording context, or while a group is pushed.
    public var imageTarget: ImageSurface? {
        guard let image, cairo_get_group_target(pointer) == image.pointer else { return nil }
        return image
    }

    /// Where user space's origin is in device space, when user space is device space moved (by any
    /// amount; nil: scaled or rotated).
    public var translation: (x: Double, y: Double)? {
        var m = cairo_matrix_t()
        cairo_get_matrix(pointer, &m)
        guard m.xx == 1, m.yx == 0, m.xy == 0, m.yy == 1, abs(m.x0) < 1e6, abs(m.y0) < 1e6 else { return nil }
        return (m.x0, m.y0)
    }

    /// The clip in device pixels, when user space is only moved (`translation`) and the clip is one
    /// rectangle with whole-pixel edges in device space; an empty one when nothing can be drawn; nil
    /// when it is anything else.
    public var deviceClipRectangle: (x0: Int, y0: Int, x1: Int, y1: Int)? {
        guard let (tx, ty) = translation, let list = cairo_copy_clip_rectangle_list(pointer) else { return nil }
        defer { cairo_rectangle_list_destroy(list) }
        guard list.pointee.status == CAIRO_STATUS_SUCCESS else { return nil }
        if list.pointee.num_rectangles == 0 { return (0, 0, 0, 0) }
        guard list.pointee.num_rectangles == 1, let r = list.pointee.rectangles?.pointee else { return nil }
        let edges = [r.x + tx, r.y + ty, r.x + r.width + tx, r.y + r.height + ty].map { e -> Double? in
            let whole = e.rounded()
            return abs(e - whole) < 1e-6 && abs(whole) < 1e6 ? whole : nil
        }
        guard let x0 = edges[0], let y0 = edges[1], let x1 = edges[2], let y1 = edges[3] else { return nil }
        return (Int(x0), Int(y0), Int(x1), Int(y1))
    }

    /// Whether drawing composites over what is there (Cairo's default operator).
    public var drawsOver: Bool { cairo_get_operator(pointer) == CAIRO_OPERATOR_OVER }

    /// The clip's bounding box in user space.
    public var clipExtents: (x0: Double, y0: Double, x1: Double, y1: Double) {
        var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
        cairo_clip_extents(pointer, &x0, &y0, &x1, &y1)
        return (x0, y0, x1, y1)
    }

    // MARK: Path

    public func newPath() { cairo_new_path(pointer) }
    public func newSubPath() { cairo_new_sub_path(pointer) }
    @inline(__always) public func move(to x: Double, _ y: Double) { cairo_move_to(pointer, x, y) }
    @inline(__always) public func line(to x: Double, _ y: Double) { cairo_line_to(pointer, x, y) }
    public func curve(to x: Double, _ y: Double, c1x: Double, c1y: Double, c2x: Double, c2y: Double) {
        cairo_curve_to(pointer, c1x, c1y, c2x, c2y, x, y)
    }
    public func closePath() { cairo_close_path(pointer) }
    public func rectangle(_ x: Double, _ y: Double, _ w: Double, _ h: Double) { cairo_rectangle(pointer, x, y, w, h) }
    public func arc(x: Double, y: Double, radius: Double, from a0: Double = 0, to a1: Double = 2 * .pi) {
        cairo_arc(pointer, x, y, radius, a0, a1)
    }
    /// A rectangle with rounded corners.
    public func roundedRectangle(_ x: Double, _ y: Double, _ w: Double, _ h: Double, radius r: Double) {
        let r = min(r, w / 2, h / 2)
        newSubPath()
        arc(x: x + w - r, y: y + r, radius: r, from: -.pi / 2, to: 0)
        arc(x: x + w - r, y: y + h - r, radius: r, from: 0, to: .pi / 2)
        arc(x: x + r, y: y + h - r, radius: r, from: .pi / 2, to: .pi)
        arc(x: x + r, y: y + r, radius: r, from: .pi, to: 3 * .pi / 2)
        closePath()
    }

    /// The current path flattened into lines (curves within the context's tolerance), in user space:
    /// each subpath's points in order, a closed subpath's first point repeated at its end (a subpath of
    /// one point, a move that draws nothing, is left out). Nil when Cairo cannot give it (out of
    /// memory, a matrix it cannot invert).
    public func flattenedPath() -> [[(x: Double, y: Double)]]? {
        guard let path = cairo_copy_path_flat(pointer) else { return nil }
        defer { cairo_path_destroy(path) }
        guard path.pointee.status == CAIRO_STATUS_SUCCESS else { return nil }
        var lines: [[(x: Double, y: Double)]] = []
        var line: [(x: Double, y: Double)] = []
        let data = path.pointee.data!
        var i = 0
        while i < Int(path.pointee.num_data) {
            let header = data[i].header
            switch header.type {
            case CAIRO_PATH_MOVE_TO:
                if line.count > 1 { lines.append(line) }
                line = [(data[i + 1].point.x, data[i + 1].point.y)]
            case CAIRO_PATH_LINE_TO:
                line.append((data[i + 1].point.x, data[i + 1].point.y))
            case CAIRO_PATH_CLOSE_PATH:
                // Cairo follows a close with a move to the subpath's start.
                if let first = line.first { line.append(first) }
            default:
                break  // no curves in a flattened path
            }
            i += Int(header.length)
        }
        if line.count > 1 { lines.append(line) }
        return lines
    }

    // MARK: Painting

    public func fill() { cairo_fill(pointer) }
    public func fillPreserve() { cairo_fill_preserve(pointer) }
    public func stroke() { cairo_stroke(pointer) }
    public func strokePreserve() { cairo_stroke_preserve(pointer) }
    public func paint() { cairo_paint(pointer) }
    public func paint(alpha: Double) { cairo_paint_with_alpha(pointer, alpha) }
    public func clip() { cairo_clip(pointer) }
    public func resetClip() { cairo_reset_clip(pointer) }
    public func pushGroup() { cairo_push_group(pointer) }
    public func popGroupToSource() { cairo_pop_group_to_source(pointer) }
}
