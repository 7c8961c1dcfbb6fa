import CProj

/// A PROJ failure with PROJ's own message (`proj_context_errno_string`).
public struct ProjError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let message: String
    public let operation: String
    public var description: String { "proj: \(operation): \(message)" }

    init(context: OpaquePointer?, _ operation: String) {
        let code = proj_context_errno(context)
        self.code = code
        self.message = proj_context_errno_string(context, code).map { String(cString: $0) } ?? "error \(code)"
        self.operation = operation
    }
}

/// A PROJ context. PROJ contexts are not thread-safe: use one per thread.
public final class ProjContext {
    public let pointer: OpaquePointer

    public init() throws {
        guard let c = proj_context_create() else { throw ProjError(context: nil, "create context") }
        pointer = c
    }

    deinit { proj_context_destroy(pointer) }
}

/// A coordinate operation between two CRSs, in the axis order used for maps (longitude/easting
/// first: `proj_normalize_for_visualization`, so EPSG:4326 takes lon, lat).
public final class Transformation {
    private let pointer: OpaquePointer
    public let context: ProjContext

    public init(from source: String, to target: String, context: ProjContext) throws {
        self.context = context
        guard let raw = proj_create_crs_to_crs(context.pointer, source, target, nil) else {
            throw ProjError(context: context.pointer, "\(source) to \(target)")
        }
        defer { proj_destroy(raw) }
        guard let norm = proj_normalize_for_visualization(context.pointer, raw) else {
            throw ProjError(context: context.pointer, "normalize \(source) to \(target)")
        }
        pointer = norm
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
