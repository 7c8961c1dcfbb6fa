import Foundation

/// The FIT protocol (Garmin's Flexible and Interoperable Data Transfer), decoded by hand from its
/// published description: a file header (12 or 14 bytes, ".FIT", with or without a header CRC), then
/// records, each a definition message (a local type's global message number, byte order and fields)
/// or a data message (normal or compressed-timestamp header), then the file's CRC-16; files may be
/// chained one after another. Every read is bounded by the bytes there are; a record index names
/// where a problem is (every definition and data message counts, from 0, across chained files).
struct FITDecoder {
    /// Seconds from 1970-01-01 to the FIT epoch, 1989-12-31T00:00:00Z.
    static let epoch: TimeInterval = 631_065_600
    /// Degrees per semicircle: 180 / 2^31.
    static let degreesPerSemicircle = 180.0 / 2_147_483_648.0

    /// What was decoded, besides the track: for the tests and the command's summary.
    struct Counts: Equatable {
        var files = 0
        var definitions = 0
        var dataMessages = 0
        /// Record messages (global number 20), with a position or without.
        var records = 0
        var recordsWithPosition = 0
    }

    struct Field {
        var number: UInt8
        var offset: Int
        var size: Int
        var baseType: UInt8
    }

    struct Definition {
        var global: UInt16
        var bigEndian: Bool
        var fields: [Field]
        /// Bytes of a data message of this type (developer fields included).
        var size: Int
        func field(_ number: UInt8) -> Field? { fields.first { $0.number == number } }
    }

    let bytes: [UInt8]
    var counts = Counts()
    var record = 0

    init(_ data: Data) { bytes = [UInt8](data) }

    /// Whether `data` starts as a FIT file: a header of 12 or 14 bytes with ".FIT" at byte 8.
    static func looksLikeFIT(_ data: Data) -> Bool {
        guard data.count >= 12, let h = data.first, h == 12 || h == 14 else { return false }
        let s = data.startIndex
        return data[s + 8] == 0x2E && data[s + 9] == 0x46 && data[s + 10] == 0x49 && data[s + 11] == 0x54
    }

    static let crcTable: [UInt16] = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
                                     0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]

    /// FIT's CRC-16 of `bytes[range]`.
    static func crc(_ bytes: [UInt8], _ range: Range<Int>) -> UInt16 {
        var crc: UInt16 = 0
        for i in range {
            let b = bytes[i]
            var t = crcTable[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ t ^ crcTable[Int(b & 0xF)]
            t = crcTable[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ t ^ crcTable[Int((b >> 4) & 0xF)]
        }
        return crc
    }

    func le16(_ i: Int) -> UInt16 { UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 }
    func le32(_ i: Int) -> UInt32 { UInt32(le16(i)) | UInt32(le16(i + 2)) << 16 }

    func problem(_ message: String, hint: String? = nil) -> TrackProblem {
        TrackProblem(message, at: TrackLocation(record: record), hint: hint)
    }

    static let cutShort = "the file was cut short: copy it from the device again"

    /// Decodes every chained file: the points of record messages, split into segments where the
    /// timer stops.
    mutating func decode() throws(TrackProblem) -> RawTrack {
        var raw = RawTrack(whatHasPoints: "record message")
        var start = 0
        while start < bytes.count {
            // Padding after the last file (zeros) is no file.
            if counts.files > 0 && bytes[start...].allSatisfy({ $0 == 0 }) { break }
            start = try decodeFile(at: start, into: &raw)
            counts.files += 1
        }
        if counts.files == 0 { throw problem("the file is empty") }
        return raw
    }

    /// One file of a chain from its header at `start`; returns where the next one would start.
    mutating func decodeFile(at start: Int, into raw: inout RawTrack) throws(TrackProblem) -> Int {
        let remaining = bytes.count - start
        guard remaining >= 12 else {
            throw problem("the file ends inside a FIT file header (\(remaining) bytes where 12 or 14 are needed)", hint: Self.cutShort)
        }
        let headerSize = Int(bytes[start])
        guard headerSize == 12 || headerSize == 14, remaining >= headerSize,
              bytes[start + 8] == 0x2E, bytes[start + 9] == 0x46, bytes[start + 10] == 0x49, bytes[start + 11] == 0x54 else {
            throw problem("not a FIT file header at byte \(start): a header is 12 or 14 bytes with \".FIT\" at byte 8",
                          hint: counts.files > 0 ? "the file after the first one in this chain is damaged" : "the file is damaged or not a FIT file")
        }
        if headerSize == 14 {
            let stored = le16(start + 12)
            let computed = Self.crc(bytes, start..<start + 12)
            if stored != 0 && stored != computed {
                throw problem(String(format: "the FIT header's CRC is 0x%04X, but its bytes give 0x%04X: the header is damaged", stored, computed),
                              hint: "copy the file from the device again")
            }
        }
        let dataSize = Int(le32(start + 4))
        let dataStart = start + headerSize
        let dataEnd = dataStart + dataSize
        let available = min(dataEnd, bytes.count)
        if dataEnd + 2 <= bytes.count {
            let stored = le16(dataEnd)
            let computed = Self.crc(bytes, start..<dataEnd)
            if stored != computed {
                throw problem(String(format: "the file's CRC is 0x%04X, but its bytes give 0x%04X: the file is damaged", stored, computed),
                              hint: "copy it from the device again")
            }
        }
        try decodeRecords(dataStart..<available, into: &raw)
        guard dataEnd + 2 <= bytes.count else {
            throw problem("the file ends after \(bytes.count - dataStart) of the \(dataSize) data bytes its header announces, before its CRC",
                          hint: Self.cutShort)
        }
        return dataEnd + 2
    }

    /// The records in `range`, into `raw`'s segments.
    mutating func decodeRecords(_ range: Range<Int>, into raw: inout RawTrack) throws(TrackProblem) {
        var definitions = [Definition?](repeating: nil, count: 16)
        var lastTimestamp: UInt32?
        var segment: [RawPoint] = []
        var timerStopped = false
        var p = range.lowerBound
        let end = range.upperBound
        func need(_ n: Int, _ what: String) throws(TrackProblem) {
            guard p + n <= end else {
                throw problem("the data ends inside \(what) (\(n) bytes needed, \(end - p) left)",
                              hint: end < bytes.count ? "the header's data size is wrong: the file is damaged" : Self.cutShort)
            }
        }
        while p < end {
            let header = bytes[p]
            p += 1
            var local: Int
            var timestamp: UInt32?
            if header & 0x80 != 0 {
                // Compressed timestamp: a 5-bit offset from the last full timestamp, rolling over.
                local = Int((header >> 5) & 0x3)
                let offset = UInt32(header & 0x1F)
                if let last = lastTimestamp {
                    // FIT times are seconds in 32 bits: the roll-over wraps (a damaged file's last
                    // full time may be near the top).
                    var t = (last & ~0x1F) &+ offset
                    if offset < last & 0x1F { t &+= 0x20 }
                    timestamp = t
                    lastTimestamp = t
                }
            } else if header & 0x40 != 0 {
                try need(5, "a definition message")
                let bigEndian = bytes[p + 1] == 1
                let global = bigEndian ? UInt16(bytes[p + 2]) << 8 | UInt16(bytes[p + 3]) : le16(p + 2)
                let count = Int(bytes[p + 4])
                p += 5
                try need(3 * count, "a definition message's \(count) fields")
                var fields: [Field] = []
                fields.reserveCapacity(count)
                var size = 0
                for k in 0..<count {
                    let q = p + 3 * k
                    fields.append(Field(number: bytes[q], offset: size, size: Int(bytes[q + 1]), baseType: bytes[q + 2]))
                    size += Int(bytes[q + 1])
                }
                p += 3 * count
                if header & 0x20 != 0 {
                    // Developer fields: only their sizes matter here (their values are skipped).
                    try need(1, "a definition message's developer fields")
                    let devCount = Int(bytes[p])
                    p += 1
                    try need(3 * devCount, "a definition message's \(devCount) developer fields")
                    for k in 0..<devCount { size += Int(bytes[p + 3 * k + 1]) }
                    p += 3 * devCount
                }
                definitions[Int(header & 0x0F)] = Definition(global: global, bigEndian: bigEndian, fields: fields, size: size)
                counts.definitions += 1
                record += 1
                continue
            } else {
                local = Int(header & 0x0F)
            }
            guard let definition = definitions[local] else {
                throw problem("a data message of local type \(local), which no definition message before it defines",
                              hint: "the file is damaged or its writer broke the FIT protocol")
            }
            try need(definition.size, "a data message of \(definition.size) bytes")
            counts.dataMessages += 1
            if let t = uint(definition, 253, p), timestamp == nil {
                timestamp = UInt32(truncatingIfNeeded: t)
                lastTimestamp = timestamp
            }
            switch definition.global {
            case 20:
                counts.records += 1
                if let point = recordPoint(definition, p, timestamp) {
                    counts.recordsWithPosition += 1
                    if timerStopped && !segment.isEmpty {
                        raw.segments.append(segment)
                        segment = []
                    }
                    timerStopped = false
                    segment.append(RawPoint(point: point, location: TrackLocation(record: record)))
                }
            case 34:
                // The activity: its local time (field 5) less its UTC timestamp is the offset from UTC.
                if raw.utcOffset == nil, let local = uint(definition, 5, p), let utc = uint(definition, 253, p),
                   abs(local - utc) <= 16 * 3600 {
                    raw.utcOffset = Int(local - utc)
                }
            case 21:
                // An event: the timer (event 0) stopping (type 1 stop, 4 stop all) ends a segment.
                if uint(definition, 0, p) == 0, let type = uint(definition, 1, p), type == 1 || type == 4 { timerStopped = true }
            default:
                break
            }
            p += definition.size
            record += 1
        }
        if !segment.isEmpty { raw.segments.append(segment) }
    }

    /// A record message's point, when it has a position.
    func recordPoint(_ d: Definition, _ p: Int, _ timestamp: UInt32?) -> TrackPoint? {
        guard let lat = sint(d, 0, p), let lon = sint(d, 1, p) else { return nil }
        var point = TrackPoint(latitude: Double(lat) * Self.degreesPerSemicircle, longitude: Double(lon) * Self.degreesPerSemicircle)
        point.time = timestamp.map { Date(timeIntervalSince1970: Self.epoch + TimeInterval($0)) }
        if let a = uint(d, 78, p) ?? uint(d, 2, p) { point.altitude = Double(a) / 5 - 500 }
        if let s = uint(d, 73, p) ?? uint(d, 6, p) { point.speed = Double(s) / 1000 }
        point.heartRate = uint(d, 3, p).map { Int($0) }
        point.cadence = uint(d, 4, p).map { Int($0) }
        point.power = uint(d, 7, p).map { Int($0) }
        return point
    }

    /// The bytes of an integer base type (by its number, the low 5 bits), and whether it is signed.
    static func integerType(_ baseType: UInt8) -> (size: Int, signed: Bool, zeroInvalid: Bool)? {
        switch baseType & 0x1F {
        case 0x00, 0x02: (1, false, false)  // enum, uint8
        case 0x01: (1, true, false)
        case 0x0A: (1, false, true)  // uint8z
        case 0x03: (2, true, false)
        case 0x04: (2, false, false)
        case 0x0B: (2, false, true)
        case 0x05: (4, true, false)
        case 0x06: (4, false, false)
        case 0x0C: (4, false, true)
        default: nil
        }
    }

    /// Field `number` of the data message at `p` as an integer, nil when absent, of another kind,
    /// smaller than its type (a misaligned field) or the type's invalid value.
    func integer(_ d: Definition, _ number: UInt8, _ p: Int) -> Int64? {
        guard let f = d.field(number), let type = Self.integerType(f.baseType), f.size >= type.size else { return nil }
        var u: UInt64 = 0
        for k in 0..<type.size {
            let b = UInt64(bytes[p + f.offset + k])
            u |= d.bigEndian ? b << UInt64(8 * (type.size - 1 - k)) : b << UInt64(8 * k)
        }
        let bits = UInt64(8 * type.size)
        let allOnes: UInt64 = bits == 64 ? .max : (1 << bits) - 1
        if type.zeroInvalid { return u == 0 ? nil : Int64(u) }
        if type.signed {
            if u == allOnes >> 1 { return nil }  // 0x7F, 0x7FFF, 0x7FFFFFFF
            let sign: UInt64 = 1 << (bits - 1)
            return u & sign != 0 ? Int64(u) - Int64(1 << bits) : Int64(u)
        }
        return u == allOnes ? nil : Int64(u)
    }

    func uint(_ d: Definition, _ number: UInt8, _ p: Int) -> Int64? { integer(d, number, p).flatMap { $0 >= 0 ? $0 : nil } }
    func sint(_ d: Definition, _ number: UInt8, _ p: Int) -> Int64? { integer(d, number, p) }
}
