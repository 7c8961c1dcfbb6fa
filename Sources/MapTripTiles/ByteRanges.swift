import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Bytes of one file or resource read by range (a PMTiles archive is read this way: its header,
/// then directories and tiles, never the whole file).
public protocol ByteRangeReading: AnyObject {
    /// The file or URL, for messages.
    var label: String { get }
    /// The size in bytes when known (a local file); nil over HTTP.
    var size: UInt64? { get }
    /// Exactly `length` bytes from `offset`; throws when fewer are there.
    func read(offset: UInt64, length: Int) throws -> Data
    /// As `read`, from one version of the resource (an HTTP ETag): `version` nil takes the one there
    /// now (`fresh`: asked of the server, not a cache) and returns it with the bytes; a version given
    /// is kept to, and `ResourceChanged` thrown when the resource is no longer that one.
    func read(offset: UInt64, length: Int, version: String?, fresh: Bool) throws -> (data: Data, version: String?)
}

extension ByteRangeReading {
    /// A resource without versions (a local file): read as it is.
    public func read(offset: UInt64, length: Int, version: String?, fresh: Bool) throws -> (data: Data, version: String?) {
        (try read(offset: offset, length: length), nil)
    }
}

/// The resource is no longer the version a read asked for (its ETag changed, or the server answered
/// 412 Precondition Failed to If-Match).
public struct ResourceChanged: Error, CustomStringConvertible, Sendable {
    public var from: String
    /// Its ETag now, when the server said.
    public var to: String?
    public var description: String { "it changed on the server (ETag \(from) became \(to ?? "another"))" }
}

/// Why a range could not be read.
public struct ByteRangeError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String
    public var description: String { message }
}

/// A local file read with pread (one descriptor, closed in deinit). Safe to use from several threads.
public final class FileRangeReader: ByteRangeReading, @unchecked Sendable {
    public let path: String
    private let fd: Int32
    public let size: UInt64?

    public init(path: String) throws {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            throw ByteRangeError(message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw ByteRangeError(message: "\(path) is not a regular file")
        }
        self.fd = fd
        size = UInt64(st.st_size)
    }

    deinit { close(fd) }

    public var label: String { path }

    public func read(offset: UInt64, length: Int) throws -> Data {
        guard length > 0 else { return Data() }
        guard let size, offset <= size, UInt64(length) <= size - offset else {
            throw ByteRangeError(message: "bytes \(offset)-\(offset + UInt64(length) - 1) are past the end of the file "
                                 + "(\(size ?? 0) bytes)")
        }
        var data = Data(count: length)
        let got = data.withUnsafeMutableBytes { buffer -> Int in
            var done = 0
            while done < length {
                let n = pread(fd, buffer.baseAddress! + done, length - done, off_t(offset) + off_t(done))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return n < 0 ? -1 : done }
                done += n
            }
            return done
        }
        guard got == length else {
            throw ByteRangeError(message: got < 0 ? "cannot read \(path): \(String(cString: strerror(errno)))"
                                 : "\(path) ended after \(got) of \(length) bytes at \(offset)")
        }
        return data
    }
}

/// A resource over HTTP(S) read with range requests through `HTTPTileClient` (cached like tiles).
public final class HTTPRangeReader: ByteRangeReading {
    public let url: URL
    public let client: HTTPTileClient

    public init(url: URL, client: HTTPTileClient) {
        self.url = url
        self.client = client
    }

    public var label: String { url.absoluteString }
    public var size: UInt64? { nil }

    public func read(offset: UInt64, length: Int) throws -> Data {
        try read(offset: offset, length: length, version: nil, fresh: false).data
    }

    /// Versions are ETags, as the PMTiles specification asks: each range after the first is asked
    /// for with If-Match. A weak ETag (W/) names no version that If-Match can keep to: none is kept.
    public func read(offset: UInt64, length: Int, version: String?, fresh: Bool) throws -> (data: Data, version: String?) {
        guard length > 0 else { return (Data(), version) }
        let (end, overflow) = offset.addingReportingOverflow(UInt64(length))
        guard !overflow else { throw ByteRangeError(message: "bytes at \(offset) run past 2^64") }
        switch client.fetch(url, range: offset..<end, ifMatch: version, revalidate: fresh) {
        case .success(let answer):
            let etag = answer.etag.flatMap { $0.hasPrefix("W/") ? nil : $0 }
            // A server that does not check If-Match still says which version it sent.
            if let version, let etag, etag != version { throw ResourceChanged(from: version, to: etag) }
            return (answer.data, version ?? etag)
        case .failure(.status(412)) where version != nil:
            throw ResourceChanged(from: version!, to: nil)
        case .failure(let error):
            throw ByteRangeError(message: "\(error)")
        }
    }
}
