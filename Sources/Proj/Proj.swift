import CProj

/// A PROJ failure with PROJ's own message (`proj_context_errno_string`).
public struct ProjError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let message: String
    public let operation: String
    public var description: String { "proj: \(operation): \(message)" }

    init(context: OpaquePointer?, _ operation: String, logged: String? = nil) {
        let code = proj_context_errno(context)
        self.code = code
        let text = proj_context_errno_string(context, code).map { String(cString: $0) } ?? "error \(code)"
        // PROJ's log often says more than its error code ("crs not found" beside "Unknown error").
        if let logged, !logged.isEmpty, text.hasPrefix("Unknown error") || code == 0 {
            self.message = logged
        } else {
            self.message = text
        }
        self.operation = operation
    }
}

/// A PROJ context. PROJ contexts are not thread-safe: use one per thread.
public final class ProjContext {
    public let pointer: OpaquePointer
    /// The last error PROJ logged on this context (kept instead of printed to stderr).
    public fileprivate(set) var lastLogged: String?

    public init() throws {
        guard let c = proj_context_create() else { throw ProjError(context: nil, "create context") }
        pointer = c
        proj_log_func(c, Unmanaged.passUnretained(self).toOpaque()) { data, level, message in
            guard let data, let message, level <= Int32(PJ_LOG_ERROR.rawValue) else { return }
            let context = Unmanaged<ProjContext>.fromOpaque(data).takeUnretainedValue()
            var text = String(cString: message)
            // "proj_create: crs not found": the function's name is not for users.
            if let colon = text.firstIndex(of: ":"), text.index(after: colon) < text.endIndex,
               text[text.index(after: colon)] == " " {
                text = String(text[text.index(colon, offsetBy: 2)...])
            }
            context.lastLogged = text
        }
    }

    deinit { proj_context_destroy(pointer) }

    /// A PROJ object from a definition, owned by the caller (freed with `proj_destroy`).
    func create(_ definition: String) throws -> OpaquePointer {
        guard let p = proj_create(pointer, definition) else {
            throw ProjError(context: pointer, "'\(definition)'", logged: lastLogged)
        }
        return p
    }
}

/// A coordinate operation between two CRSs, in the axis order used for maps (longitude/easting
/// first: `proj_normalize_for_visualization`, so EPSG:4326 takes lon, lat).
public final class Transformation {
    private let pointer: OpaquePointer
    public let context: ProjContext

    public init(from source: String, to target: String, context: ProjContext) throws {
        self.context = context
        guard let raw = proj_create_crs_to_crs(context.pointer, source, target, nil) else {
            throw ProjError(context: context.pointer, "\(source) to \(target)", logged: context.lastLogged)
        }
        defer { proj_destroy(raw) }
        guard let norm = proj_normalize_for_visualization(context.pointer, raw) else {
            throw ProjError(context: context.pointer, "normalize \(source) to \(target)")
        }
        pointer = norm
    }

    /// An operation given as a PROJ pipeline (`+proj=pipeline +step ...`, the form `projinfo -o PROJ`
    /// prints), built from the string alone: no CRS is looked up in PROJ's database, which costs
    /// about 11 MB of memory for the life of the context.
    public init(pipeline definition: String, context: ProjContext) throws {
        self.context = context
        pointer = try context.create(definition)
    }

    deinit { proj_destroy(pointer) }

    /// Transforms one coordinate.
    public func forward(x: Double, y: Double) throws -> (x: Double, y: Double) {
        var c = proj_coord(x, y, 0, 0)
        c = proj_trans(pointer, PJ_FWD, c)
        if c.v.0 == .infinity || c.v.1 == .infinity || proj_errno(pointer) != 0 {
            defer { proj_errno_reset(pointer) }
            throw ProjError(context: context.pointer, "transform (\(x), \(y))")
        }
        return (c.v.0, c.v.1)
    }

    /// Transforms coordinates in place, in one call.
    public func forward(xs: inout [Double], ys: inout [Double]) throws {
        precondition(xs.count == ys.count, "coordinate arrays must have the same length")
        let n = xs.count
        if n == 0 { return }
        proj_errno_reset(pointer)
        let stride = MemoryLayout<Double>.stride
        let done = xs.withUnsafeMutableBufferPointer { xp in
            ys.withUnsafeMutableBufferPointer { yp in
                proj_trans_generic(pointer, PJ_FWD, xp.baseAddress, stride, n, yp.baseAddress, stride, n,
                                   nil, 0, 0, nil, 0, 0)
            }
        }
        if done != n || proj_errno(pointer) != 0 {
            defer { proj_errno_reset(pointer) }
            throw ProjError(context: context.pointer, "transform \(n) coordinates")
        }
    }
}

extension Transformation {
    /// Transforms one coordinate back (target to source); nil where the inverse has no value.
    public func inverse(x: Double, y: Double) -> (x: Double, y: Double)? {
        var c = proj_coord(x, y, 0, 0)
        c = proj_trans(pointer, PJ_INV, c)
        if proj_errno(pointer) != 0 {
            proj_errno_reset(pointer)
            return nil
        }
        guard c.v.0.isFinite, c.v.1.isFinite, c.v.0 != .infinity else { return nil }
        return (c.v.0, c.v.1)
    }

    /// Transforms coordinates in place, one call for all; a coordinate PROJ cannot transform becomes
    /// NaN instead of failing the whole batch.
    public func forwardAllowingFailures(xs: inout [Double], ys: inout [Double]) {
        precondition(xs.count == ys.count, "coordinate arrays must have the same length")
        let n = xs.count
        if n == 0 { return }
        let stride = MemoryLayout<Double>.stride
        _ = xs.withUnsafeMutableBufferPointer { xp in
            ys.withUnsafeMutableBufferPointer { yp in
                proj_trans_generic(pointer, PJ_FWD, xp.baseAddress, stride, n, yp.baseAddress, stride, n,
                                   nil, 0, 0, nil, 0, 0)
            }
        }
        proj_errno_reset(pointer)
        for i in 0..<n where !(xs[i].isFinite && ys[i].isFinite) || xs[i] == .infinity || abs(xs[i]) > 1e30 {
            xs[i] = .nan
            ys[i] = .nan
        }
    }
}

/// A coordinate reference system, as PROJ reads it from a definition (`EPSG:3035`, `+proj=robin`...).
public final class CRS {
    let pointer: OpaquePointer
    public let context: ProjContext

    public init(_ definition: String, context: ProjContext) throws {
        self.context = context
        pointer = try context.create(definition)
    }

    deinit { proj_destroy(pointer) }

    /// Whether PROJ reads the definition as a CRS (not a bare coordinate operation).
    public var isCRS: Bool { proj_is_crs(pointer) != 0 }

    /// Whether coordinates are longitude and latitude (a geographic CRS: no projection).
    public var isGeographic: Bool {
        let t = proj_get_type(pointer)
        return t == PJ_TYPE_GEOGRAPHIC_2D_CRS || t == PJ_TYPE_GEOGRAPHIC_3D_CRS || t == PJ_TYPE_GEOGRAPHIC_CRS
    }

    /// What the CRS is when it puts no positions on a map, for messages: a geocentric CRS
    /// (`+proj=cart`: x, y, z in metres from the Earth's centre), a vertical or a temporal one; nil
    /// for a map's (geographic, projected, bound or compound) CRS.
    public var notAMap: String? {
        switch proj_get_type(pointer) {
        case PJ_TYPE_GEOCENTRIC_CRS: "a geocentric coordinate system (x, y, z in metres from the Earth's centre)"
        case PJ_TYPE_VERTICAL_CRS: "a vertical coordinate system (heights)"
        case PJ_TYPE_TEMPORAL_CRS: "a temporal coordinate system"
        default: nil
        }
    }

    /// The CRS's name, as PROJ gives it.
    public var name: String? { proj_get_name(pointer).map { String(cString: $0) } }

    /// Where the CRS may be used (degrees; west > east crosses the antimeridian), with the area's
    /// name; nil when PROJ knows none.
    public var areaOfUse: (west: Double, south: Double, east: Double, north: Double, name: String)? {
        var w = 0.0, s = 0.0, e = 0.0, n = 0.0
        var name: UnsafePointer<CChar>?
        guard proj_get_area_of_use(context.pointer, pointer, &w, &s, &e, &n, &name) != 0,
              w > -1000, s > -1000 else { return nil }
        return (w, s, e, n, name.map { String(cString: $0) } ?? "")
    }
}
