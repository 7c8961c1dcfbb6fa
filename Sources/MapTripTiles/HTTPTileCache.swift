import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the disk cache knows about one stored tile (the JSON sidecar next to the bytes).
public struct HTTPCacheMetadata: Codable, Sendable, Equatable {
    public var url: String
    /// Fresh until this time (epoch seconds); after it the tile is revalidated or fetched again.
    public var expires: Double
    public var etag: String?
    public var lastModified: String?
    /// When the bytes were stored or last revalidated (epoch seconds).
    public var stored: Double
    /// Length of the `.tile` file, to detect a tile and sidecar that do not belong together.
    public var size: Int

    public func isFresh(now: Double) -> Bool { expires > now }
    /// Can be revalidated with a conditional request.
    public var hasValidator: Bool { etag != nil || lastModified != nil }
}

/// The on-disk tile cache: `<directory>/<first 2 hex>/<hash>.tile` with `<hash>.json` beside it,
/// where hash is the FNV-1a 64 of the URL in 16 hex digits. Files are written to a temporary name
/// and renamed into place, so concurrent renders (threads or processes) sharing a directory only
/// ever see whole files. Every method is best-effort: a broken or unwritable cache is a miss.
public struct HTTPTileCache: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// The stable key of a URL: FNV-1a 64 of its absolute string, 16 lowercase hex digits.
    public static func key(for url: URL) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.absoluteString.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    public func tileFile(for url: URL) -> URL { file(for: url, ext: "tile") }
    public func metadataFile(for url: URL) -> URL { file(for: url, ext: "json") }

    private func file(for url: URL, ext: String) -> URL {
        let key = Self.key(for: url)
        return directory.appendingPathComponent(String(key.prefix(2)), isDirectory: true)
            .appendingPathComponent("\(key).\(ext)", isDirectory: false)
    }

    /// The sidecar of `url`, when there is one and it really is for `url`.
    public func metadata(for url: URL) -> HTTPCacheMetadata? {
        guard let data = try? Data(contentsOf: metadataFile(for: url)),
              let meta = try? JSONDecoder().decode(HTTPCacheMetadata.self, from: data),
              meta.url == url.absoluteString else { return nil }
        return meta
    }

    /// The stored bytes and their metadata, fresh or not.
    public func load(_ url: URL) -> (data: Data, metadata: HTTPCacheMetadata)? {
        guard let meta = metadata(for: url),
              let data = try? Data(contentsOf: tileFile(for: url)), data.count == meta.size else { return nil }
        return (data, meta)
    }

    /// Stores bytes then sidecar, each atomically.
    public func store(_ data: Data, metadata: HTTPCacheMetadata) throws {
        guard let url = URL(string: metadata.url) else { return }
        var meta = metadata
        meta.size = data.count
        try atomicWrite(data, to: tileFile(for: url))
        try storeMetadata(meta)
    }

    /// Replaces only the sidecar (after a 304).
    public func storeMetadata(_ metadata: HTTPCacheMetadata) throws {
        guard let url = URL(string: metadata.url) else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try atomicWrite(try encoder.encode(metadata), to: metadataFile(for: url))
    }

    public func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: metadataFile(for: url))
        try? FileManager.default.removeItem(at: tileFile(for: url))
    }

    private func atomicWrite(_ data: Data, to destination: URL) throws {
        let folder = destination.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temp = folder.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try data.write(to: temp)
            guard rename(temp.path, destination.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path])
            }
        } catch {
            try? FileManager.default.removeItem(at: temp)
            throw error
        }
    }
}
