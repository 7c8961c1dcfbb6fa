import CZlibSystem
import Foundation

/// A zlib failure, with zlib's own message (the stream's `msg`, else `zError` of the code) and what
/// was being done.
public struct ZlibError: Error, CustomStringConvertible, Sendable, Equatable {
    /// zlib's return code (Z_DATA_ERROR -3, Z_BUF_ERROR -5, ...), or Z_BUF_ERROR for a stream cut
    /// short and for output over the caller's bound.
    public let code: Int32
    public let message: String
    public let operation: String

    public var description: String { "zlib: \(operation): \(message)" }

    static func from(_ stream: UnsafeMutablePointer<z_stream>?, _ code: Int32, _ operation: String) -> ZlibError {
        if let m = stream?.pointee.msg { return ZlibError(code: code, message: String(cString: m), operation: operation) }
        return ZlibError(code: code, message: String(cString: zError(code)), operation: operation)
    }
}

/// zlib (the C library, as Debian ships it): inflate of gzip and zlib streams with a bound on the
/// output, and deflate (for writers and tests).
public enum Zlib {
    /// zlib's version, e.g. "1.2.13".
    public static var libraryVersion: String { String(cString: zlibVersion()) }

    /// Whether the bytes start with gzip's magic number (1F 8B).
    public static func isGzip(_ data: Data) -> Bool {
        data.count >= 2 && data[data.startIndex] == 0x1F && data[data.startIndex + 1] == 0x8B
    }

    /// Inflates one gzip or zlib stream (told apart by its header). Refuses output over `maxOutput`
    /// bytes (a decompression bomb) and a stream cut short, with a `ZlibError`.
    public static func inflate(_ data: Data, maxOutput: Int) throws -> Data {
        try Inflater(format: .auto).inflate(data, maxOutput: maxOutput)
    }

    /// Compresses `data` as a gzip (or zlib) stream.
    public static func deflate(_ data: Data, gzip: Bool = true, level: Int32 = Z_DEFAULT_COMPRESSION) throws -> Data {
        try Deflater(gzip: gzip, level: level).deflate(data)
    }
}

/// One inflate stream (`z_stream`, ended in deinit). Not for sharing between threads.
public final class Inflater {
    public enum Format: Sendable {
        /// gzip or zlib, from the header (windowBits 15 + 32).
        case auto
        case gzip
        case zlib
        /// Bare deflate, no header.
        case raw

        var windowBits: Int32 {
            switch self {
            case .auto: return 15 + 32
            case .gzip: return 15 + 16
            case .zlib: return 15
            case .raw: return -15
            }
        }
    }

    private let stream: UnsafeMutablePointer<z_stream>

    public init(format: Format = .auto) throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let rc = maptrip_inflate_init2(stream, format.windowBits)
        if rc != Z_OK {
            let error = ZlibError.from(stream, rc, "inflateInit2")
            stream.deallocate()
            throw error
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Inflates one whole stream (resetting first, so an inflater can be reused). Bytes after the
    /// stream's end are ignored.
    public func inflate(_ data: Data, maxOutput: Int) throws -> Data {
        let rc = inflateReset(stream)
        guard rc == Z_OK else { throw ZlibError.from(stream, rc, "inflateReset") }
        guard !data.isEmpty else {
            throw ZlibError(code: Z_BUF_ERROR, message: "no data (an empty stream)", operation: "inflate")
        }
        guard data.count <= Int(UInt32.max) else {
            throw ZlibError(code: Z_BUF_ERROR, message: "\(data.count) bytes of input is more than one call takes",
                            operation: "inflate")
        }
        let limit = max(0, maxOutput)
        var out = Data()
        let chunk = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        return try data.withUnsafeBytes { (input: UnsafeRawBufferPointer) -> Data in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.pointee.avail_in = uInt(input.count)
            defer { stream.pointee.next_in = nil; stream.pointee.avail_in = 0 }
            while true {
                let (status, produced) = buffer.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = uInt(out.count)
                    let status = CZlibSystem.inflate(stream, Z_NO_FLUSH)
                    let produced = out.count - Int(stream.pointee.avail_out)
                    stream.pointee.next_out = nil
                    return (status, produced)
                }
                if produced > 0 {
                    guard out.count + produced <= limit else {
                        throw ZlibError(code: Z_BUF_ERROR,
                                        message: "inflates to more than \(limit) bytes (refused: a decompression bomb?)",
                                        operation: "inflate")
                    }
                    out.append(contentsOf: buffer[0..<produced])
                }
                switch status {
                case Z_STREAM_END:
                    return out
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.pointee.avail_in == 0:
                    throw ZlibError(code: Z_BUF_ERROR,
                                    message: "the stream is cut short (truncated after \(input.count) bytes)",
                                    operation: "inflate")
                case Z_NEED_DICT:
                    throw ZlibError(code: Z_NEED_DICT, message: "the stream needs a preset dictionary", operation: "inflate")
                default:
                    throw ZlibError.from(stream, status, "inflate")
                }
            }
        }
    }
}

/// One deflate stream (`z_stream`, ended in deinit).
public final class Deflater {
    private let stream: UnsafeMutablePointer<z_stream>

    public init(gzip: Bool = true, level: Int32 = Z_DEFAULT_COMPRESSION) throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let rc = maptrip_deflate_init2(stream, level, gzip ? 15 + 16 : 15)
        if rc != Z_OK {
            let error = ZlibError.from(stream, rc, "deflateInit2")
            stream.deallocate()
            throw error
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Compresses `data` as one whole stream.
    public func deflate(_ data: Data) throws -> Data {
        let rc = deflateReset(stream)
        guard rc == Z_OK else { throw ZlibError.from(stream, rc, "deflateReset") }
        guard data.count <= Int(UInt32.max) / 2 else {
            throw ZlibError(code: Z_BUF_ERROR, message: "\(data.count) bytes of input is more than one call takes",
                            operation: "deflate")
        }
        let bound = Int(deflateBound(stream, uLong(data.count)))
        var out = [UInt8](repeating: 0, count: bound)
        let produced = try data.withUnsafeBytes { (input: UnsafeRawBufferPointer) -> Int in
            try out.withUnsafeMutableBufferPointer { buffer -> Int in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.pointee.avail_in = uInt(input.count)
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = uInt(buffer.count)
                defer {
                    stream.pointee.next_in = nil; stream.pointee.avail_in = 0
                    stream.pointee.next_out = nil; stream.pointee.avail_out = 0
                }
                let status = CZlibSystem.deflate(stream, Z_FINISH)
                guard status == Z_STREAM_END else { throw ZlibError.from(stream, status, "deflate") }
                return buffer.count - Int(stream.pointee.avail_out)
            }
        }
        return Data(out[0..<produced])
    }
}
