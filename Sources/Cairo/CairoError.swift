import CCairo

/// A Cairo failure, with Cairo's own message (`cairo_status_to_string`) and what was being done.
public struct CairoError: Error, CustomStringConvertible, Sendable {
    public let status: UInt32
    public let message: String
    public let operation: String

    init(_ status: cairo_status_t, _ operation: String) {
        self.status = status.rawValue
        self.message = String(cString: cairo_status_to_string(status))
        self.operation = operation
    }

    public var description: String { "cairo: \(operation): \(message)" }

    /// A surface Cairo just created, checked: nil is out of memory; a surface in an error state is
    /// destroyed and its status thrown.
    static func checked(surface s: OpaquePointer?, _ operation: @autoclosure () -> String) throws -> OpaquePointer {
        guard let s else { throw CairoError(CAIRO_STATUS_NO_MEMORY, operation()) }
        let status = cairo_surface_status(s)
        if status != CAIRO_STATUS_SUCCESS {
            cairo_surface_destroy(s)
            throw CairoError(status, operation())
        }
        return s
    }

    @inline(__always)
    static func check(_ status: cairo_status_t, _ operation: @autoclosure () -> String) throws {
        if status != CAIRO_STATUS_SUCCESS { throw CairoError(status, operation()) }
    }
}
