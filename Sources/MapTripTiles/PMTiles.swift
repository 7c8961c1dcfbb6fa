import Foundation
import MapTripGeometry
import Zlib

/// The PMTiles v3 format (github.com/protomaps/PMTiles, spec/v3/spec.md): a 127-byte header, a
/// root directory, JSON metadata, leaf directories and tile data in one file, read by byte ranges.
public enum PMTiles {
    /// "PMTiles" in ASCII: the first 7 bytes of every archive, then the version byte (3).
    public static let magic: [UInt8] = Array("PMTiles".utf8)
    public static let headerLength = 127
    /// Directories nest at most this deep below the root (the reference reader's bound).
    public static let maxDirectoryDepth = 3

    /// Whether bytes start like a PMTiles archive of any version (the magic number).
    public static func hasMagic(_ data: Data) -> Bool {
        data.count >= 7 && Array(data.prefix(7)) == magic
    }

    /// The compression of directories, metadata or tiles.
    public enum Compression: UInt8, Sendable, Equatable, CustomStringConvertible {
        case unknown = 0, none = 1, gzip = 2, brotli = 3, zstd = 4

        public var description: String {
            switch self {
            case .unknown: return "unknown"
            case .none: return "none"
            case .gzip: return "gzip"
            case .brotli: return "brotli"
            case .zstd: return "zstd"
            }
        }
    }

    /// What the tiles are.
    public enum TileType: UInt8, Sendable, Equatable, CustomStringConvertible {
        case unknown = 0, mvt = 1, png = 2, jpeg = 3, webp = 4, avif = 5, mlt = 6

        public var description: String {
            switch self {
            case .unknown: return "unknown"
            case .mvt: return "MVT vector tiles"
            case .png: return "PNG"
            case .jpeg: return "JPEG"
            case .webp: return "WebP"
            case .avif: return "AVIF"
            case .mlt: return "MapLibre Tiles (MLT)"
            }
        }

        /// The tile format maptrip knows by this type, if any.
        public var format: TileFormat? {
            switch self {
            case .mvt: return .pbf
            case .png: return .png
            case .jpeg: return .jpeg
            case .webp: return .webp
            case .unknown, .avif, .mlt: return nil
            }
        }
    }

    /// The 127-byte header.
    public struct Header: Sendable, Equatable {
        public var rootDirectoryOffset: UInt64
        public var rootDirectoryLength: UInt64
        public var metadataOffset: UInt64
        public var metadataLength: UInt64
        public var leafDirectoriesOffset: UInt64
        public var leafDirectoriesLength: UInt64
        public var tileDataOffset: UInt64
        public var tileDataLength: UInt64
        public var addressedTiles: UInt64
        public var tileEntries: UInt64
        public var tileContents: UInt64
        public var clustered: Bool
        public var internalCompression: Compression
        public var tileCompression: Compression
        public var tileType: TileType
        public var minZoom: Int
        public var maxZoom: Int
        /// west, south, east, north in degrees.
        public var bounds: GeoBounds?
        public var centerZoom: Int
        public var centerLongitude: Double
        public var centerLatitude: Double

        /// Reads a header; the reason it is not one otherwise (the caller names the file).
        public init(_ data: Data) throws {
            let b = [UInt8](data.prefix(PMTiles.headerLength))
            if b.count < 8, b == Array(PMTiles.magic.prefix(b.count)) {
                throw PMTilesError.reason("the header is cut short (\(b.count) of \(PMTiles.headerLength) bytes)")
            }
            guard b.count >= 8, Array(b[0..<7]) == PMTiles.magic else {
                throw PMTilesError.reason("it does not start with the PMTiles magic number")
            }
            guard b[7] == 3 else {
                throw PMTilesError.reason("it is PMTiles version \(b[7]); maptrip reads version 3"
                                          + (b[7] < 3 ? " (convert it with `pmtiles convert`)" : ""))
            }
            guard b.count == PMTiles.headerLength else {
                throw PMTilesError.reason("the header is cut short (\(b.count) of \(PMTiles.headerLength) bytes)")
            }
            func u64(_ i: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(b[i + $1]) << (8 * UInt64($1)) } }
            func i32(_ i: Int) -> Double {
                Double(Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(b[i + $1]) << (8 * UInt32($1)) })) / 10_000_000
            }
            rootDirectoryOffset = u64(8)
            rootDirectoryLength = u64(16)
            metadataOffset = u64(24)
            metadataLength = u64(32)
            leafDirectoriesOffset = u64(40)
            leafDirectoriesLength = u64(48)
            tileDataOffset = u64(56)
            tileDataLength = u64(64)
            addressedTiles = u64(72)
            tileEntries = u64(80)
            tileContents = u64(88)
            clustered = b[96] == 1
            guard let ic = Compression(rawValue: b[97]) else {
                throw PMTilesError.reason("internal compression \(b[97]) is not one the format defines (0-4)")
            }
            guard let tc = Compression(rawValue: b[98]) else {
                throw PMTilesError.reason("tile compression \(b[98]) is not one the format defines (0-4)")
            }
            internalCompression = ic
            tileCompression = tc
            tileType = TileType(rawValue: b[99]) ?? .unknown
            minZoom = Int(b[100])
            maxZoom = Int(b[101])
            guard minZoom <= maxZoom else {
                throw PMTilesError.reason("its min zoom \(minZoom) is above its max zoom \(maxZoom)")
            }
            let (w, s, e, n) = (i32(102), i32(106), i32(110), i32(114))
            bounds = GeoBounds(parsing: "\(w),\(s),\(e),\(n)")
            centerZoom = Int(b[118])
            centerLongitude = i32(119)
            centerLatitude = i32(123)
            guard rootDirectoryLength > 0 else { throw PMTilesError.reason("its root directory is empty (length 0)") }
        }
    }

    /// One directory entry: a run of tiles, or (run length 0) a leaf directory.
    public struct Entry: Sendable, Equatable {
        public var tileID: UInt64
        public var offset: UInt64
        public var length: UInt64
        public var runLength: UInt64
    }

    /// The Hilbert tile id of a key: tiles of all shallower zooms first, then the key's place along
    /// the Hilbert curve of its zoom. nil for keys off the grid or deeper than zoom 31.
    public static func tileID(_ key: TileKey) -> UInt64? {
        guard key.isValid, key.z <= 31 else { return nil }
        let z = UInt64(key.z)
        var acc: UInt64 = ((UInt64(1) << (2 * z)) - 1) / 3
        var tx = UInt64(key.x), ty = UInt64(key.y)
        var s = z == 0 ? 0 : UInt64(1) << (z - 1)
        while s > 0 {
            let rx: UInt64 = (tx & s) > 0 ? 1 : 0
            let ry: UInt64 = (ty & s) > 0 ? 1 : 0
            acc += s * s * ((3 * rx) ^ ry)
            // rotate
            if ry == 0 {
                if rx == 1 {
                    tx = s - 1 - (tx & (s - 1))
                    ty = s - 1 - (ty & (s - 1))
                }
                swap(&tx, &ty)
            }
            tx &= s - 1
            ty &= s - 1
            s >>= 1
        }
        return acc
    }

    /// The key of a Hilbert tile id (the inverse of `tileID`); nil beyond zoom 31.
    public static func key(tileID id: UInt64) -> TileKey? {
        var acc: UInt64 = 0
        for z in 0...31 {
            let count = UInt64(1) << (2 * UInt64(z))
            if id < acc + count {
                var position = id - acc
                var x: UInt64 = 0, y: UInt64 = 0
                var s: UInt64 = 1
                let n = UInt64(1) << UInt64(z)
                while s < n {
                    let rx = 1 & (position / 2)
                    let ry = 1 & (position ^ rx)
                    if ry == 0 {
                        if rx == 1 {
                            x = s - 1 - x
                            y = s - 1 - y
                        }
                        swap(&x, &y)
                    }
                    x += s * rx
                    y += s * ry
                    position /= 4
                    s *= 2
                }
                return TileKey(z: z, x: Int(x), y: Int(y))
            }
            acc += count
        }
        return nil
    }

    /// Decodes a directory (already decompressed): a varint count, then the delta-coded tile ids,
    /// run lengths, lengths and offsets (0: right after the previous entry, else offset + 1).
    public static func decodeDirectory(_ data: Data) throws -> [Entry] {
        var reader = VarintReader(data)
        let count = try reader.next("the entry count")
        // Each entry takes at least 4 bytes: a count beyond that is a lie, not an allocation to make.
        guard count > 0 else { throw PMTilesError.reason("a directory has no entries") }
        guard count <= UInt64(reader.remaining / 4) else {
            throw PMTilesError.reason("a directory claims \(count) entries in \(data.count) bytes")
        }
        let n = Int(count)
        var entries = [Entry](repeating: Entry(tileID: 0, offset: 0, length: 0, runLength: 0), count: n)
        var last: UInt64 = 0
        for i in 0..<n {
            let delta = try reader.next("a tile id")
            let (id, overflow) = last.addingReportingOverflow(delta)
            guard !overflow, i == 0 || delta > 0 else {
                throw PMTilesError.reason("a directory's tile ids are not ascending (entry \(i))")
            }
            entries[i].tileID = id
            last = id
        }
        for i in 0..<n {
            let run = try reader.next("a run length")
            guard run <= UInt64(UInt32.max) else { throw PMTilesError.reason("a run length of \(run) (entry \(i))") }
            entries[i].runLength = run
        }
        for i in 0..<n {
            let length = try reader.next("a length")
            guard length > 0, length <= UInt64(UInt32.max) else {
                throw PMTilesError.reason("entry \(i) has a length of \(length) (lengths are 1 to 2^32-1)")
            }
            entries[i].length = length
        }
        for i in 0..<n {
            let value = try reader.next("an offset")
            if value == 0 {
                guard i > 0 else { throw PMTilesError.reason("the first entry's offset is coded as 'after the previous'") }
                let (o, overflow) = entries[i - 1].offset.addingReportingOverflow(entries[i - 1].length)
                guard !overflow else { throw PMTilesError.reason("entry \(i)'s offset overflows") }
                entries[i].offset = o
            } else {
                entries[i].offset = value - 1
            }
        }
        return entries
    }

    /// The entry holding `tileID`: its run of tiles, or the leaf directory to look in; nil when the
    /// archive has no such tile. `entries` ascend by tile id.
    public static func find(_ tileID: UInt64, in entries: [Entry]) -> Entry? {
        var lo = 0, hi = entries.count - 1
        while lo <= hi {
            let mid = (lo + hi) >> 1
            let id = entries[mid].tileID
            if tileID > id { lo = mid + 1 } else if tileID < id { hi = mid - 1 } else { return entries[mid] }
        }
        guard hi >= 0 else { return nil }
        let e = entries[hi]
        if e.runLength == 0 { return e }
        return tileID - e.tileID < e.runLength ? e : nil
    }

    /// Protobuf-style little-endian base-128 varints.
    struct VarintReader {
        let bytes: [UInt8]
        var index = 0

        init(_ data: Data) { bytes = [UInt8](data) }

        var remaining: Int { bytes.count - index }

        mutating func next(_ what: @autoclosure () -> String) throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard index < bytes.count else { throw PMTilesError.reason("a directory is cut short (reading \(what()))") }
                let b = bytes[index]
                index += 1
                guard shift < 64, shift < 63 || b <= 1 else {
                    throw PMTilesError.reason("a varint is longer than 64 bits (reading \(what()))")
                }
                value |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { return value }
                shift += 7
            }
        }
    }
}

/// What is wrong with a PMTiles archive (the source adds the file's name).
public enum PMTilesError: Error, CustomStringConvertible, Equatable, Sendable {
    case reason(String)
    public var description: String {
        switch self { case .reason(let r): return r }
    }
}
