import CRsvg
import Cairo
import Foundation

/// A librsvg failure; the message is librsvg's own (its GError message) after what was being done.
public struct RsvgError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { "rsvg: \(message)" }

    init(_ operation: String, _ error: UnsafeMutablePointer<GError>?) {
        if let error {
            let text = (error.pointee.message.map { String(cString: $0) } ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            g_error_free(error)
            message = text.isEmpty ? operation : "\(operation): \(text)"
        } else {
            message = operation
        }
    }
}

/// A parsed SVG document (an RsvgHandle), ready to render into Cairo contexts.
public final class SVGDocument {
    let pointer: UnsafeMutablePointer<RsvgHandle>

    /// Parses a whole SVG document from memory. External references (images, stylesheets) are
    /// not resolved: there is no base location.
    public init(data: Data) throws {
        guard !data.isEmpty else { throw RsvgError(message: "cannot parse SVG: no data") }
        var error: UnsafeMutablePointer<GError>?
        let handle = data.withUnsafeBytes { bytes in
            rsvg_handle_new_from_data(bytes.baseAddress!.assumingMemoryBound(to: guint8.self), gsize(bytes.count), &error)
        }
        guard let handle else { throw RsvgError("cannot parse SVG", error) }
        if let error { g_error_free(error) }  // not expected alongside a handle
        pointer = handle
    }

    public convenience init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw RsvgError(message: "cannot read \(url.path): \(error.localizedDescription)")
        }
        do {
            try self.init(data: data)
        } catch let error as RsvgError {
            throw RsvgError(message: "\(url.lastPathComponent): \(error.message)")
        }
    }

    deinit { maptrip_rsvg_handle_unref(pointer) }

    /// Intrinsic size in pixels if the document states one (width and height in absolute units
    /// or none; nil when they are percentages or otherwise need a viewport).
    public var intrinsicSize: (width: Double, height: Double)? {
        var width = 0.0, height = 0.0
        guard rsvg_handle_get_intrinsic_size_in_pixels(pointer, &width, &height) != 0 else { return nil }
        return (width, height)
    }

    /// Renders the whole document scaled to fit the rectangle (aspect ratio kept, centred, as the
    /// document's preserveAspectRatio says), with the context's current transformation.
    public func render(in context: Context, x: Double, y: Double, width: Double, height: Double) throws {
        guard width.isFinite, height.isFinite, x.isFinite, y.isFinite, width >= 0, height >= 0 else {
            throw RsvgError(message: "cannot render SVG into \(width)x\(height) at (\(x), \(y))")
        }
        var viewport = RsvgRectangle(x: x, y: y, width: width, height: height)
        var error: UnsafeMutablePointer<GError>?
        guard rsvg_handle_render_document(pointer, context.pointer, &viewport, &error) != 0 else {
            throw RsvgError("cannot render SVG", error)
        }
        if let error { g_error_free(error) }
    }
}

extension RsvgError {
    init(message: String) { self.message = message }
}
