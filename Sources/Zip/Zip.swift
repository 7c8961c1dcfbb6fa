import CZip
import Foundation

/// A libzip failure, with libzip's own message (`zip_error_strerror`, `zip_file_strerror`) and what
/// was being done.
public struct ZipError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String
    public let operation: String

    public var description: String { "libzip: \(operation): \(message)" }

    public init(message: String, operation: String) {
        self.message = message
        self.operation = operation
    }
}

/// A ZIP archive read from memory by libzip (Debian's), read only. libzip checks what it reads
/// against the archive's own sizes and CRCs, so a damaged entry is an error, never an endless read.
public final class ZipArchive {
    /// One file or folder in the archive's directory.
    public struct Entry: Sendable, Equatable {
        public let index: UInt64
        public let path: String
        /// Its size inflated, and stored (both as the directory claims).
        public let size: UInt64
        public let compressedSize: UInt64
        public var isDirectory: Bool { path.hasSuffix("/") }
    }

    private let archive: OpaquePointer
    public let entries: [Entry]

    /// Opens the archive in `data` (copied: libzip owns its copy and frees it with the archive).
    public init(data: Data) throws(ZipError) {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        let copy = malloc(max(1, data.count))!
        data.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { copy.copyMemory(from: base, byteCount: bytes.count) }
        }
        // freep 1: the source frees `copy`, with the archive or when opening fails.
        guard let source = zip_source_buffer_create(copy, zip_uint64_t(data.count), 1, &error) else {
            free(copy)
            throw ZipError(message: String(cString: zip_error_strerror(&error)), operation: "zip_source_buffer_create")
        }
        guard let archive = zip_open_from_source(source, ZIP_RDONLY, &error) else {
            zip_source_free(source)
            throw ZipError(message: String(cString: zip_error_strerror(&error)), operation: "zip_open_from_source")
        }
        self.archive = archive
        var entries: [Entry] = []
        let count = max(0, zip_get_num_entries(archive, 0))
        for index in 0..<zip_uint64_t(count) {
            var stat = zip_stat_t()
            zip_stat_init(&stat)
            guard zip_stat_index(archive, index, zip_flags_t(ZIP_FL_ENC_GUESS), &stat) == 0, let name = stat.name else { continue }
            entries.append(Entry(index: index, path: String(cString: name),
                                 size: stat.valid & zip_uint64_t(ZIP_STAT_SIZE) != 0 ? stat.size : 0,
                                 compressedSize: stat.valid & zip_uint64_t(ZIP_STAT_COMP_SIZE) != 0 ? stat.comp_size : 0))
        }
        self.entries = entries
    }

    deinit {
        zip_discard(archive)
    }

    /// The entry's bytes, inflated and checked against its CRC; refuses more than `maxBytes`
    /// (a ZIP bomb) with an error saying so.
    public func read(_ entry: Entry, maxBytes: Int) throws(ZipError) -> Data {
        guard let file = zip_fopen_index(archive, entry.index, 0) else {
            throw ZipError(message: String(cString: zip_error_strerror(zip_get_error(archive))), operation: "zip_fopen_index")
        }
        defer { zip_fclose(file) }
        var out = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let read = buffer.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress!, zip_uint64_t($0.count)) }
            if read < 0 { throw ZipError(message: String(cString: zip_file_strerror(file)), operation: "zip_fread") }
            if read == 0 { return out }
            guard out.count + Int(read) <= maxBytes else {
                throw ZipError(message: "inflates to more than \(maxBytes) bytes (refused: a ZIP bomb?)", operation: "zip_fread")
            }
            out.append(contentsOf: buffer[0..<Int(read)])
        }
    }
}
