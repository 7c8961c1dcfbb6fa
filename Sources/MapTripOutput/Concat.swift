import FFmpeg
import Foundation
import MapTripSupport

/// Why parts cannot be joined: one line naming the parts and what to do.
public enum ConcatError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError, DiagnosticConvertible {
    case noParts
    case unknownOutput(String)
    case outputIsPart(String)
    case notAVideo(String, reason: String)
    case hasOtherStreams(String)
    case empty(String)
    case notStartingWithKeyframe(String)
    /// Two parts that differ in `what` (size, codec, frame rate, pixel format, codec parameters).
    case mismatch(first: String, part: String, what: String, firstValue: String, partValue: String)
    /// Two parts encoded with different settings: their codec's global headers (H.264's avcC with its
    /// SPS and PPS) differ, from byte `offset` on.
    case parametersDiffer(first: String, part: String, offset: Int)
    /// Frames missing between two parts: `previous` ends before frame `end`, `next` starts at `start` > `end`.
    case gap(previous: String, next: String, end: Int, start: Int)
    /// Frames in both parts: `next` starts at `start` < `end`, where `previous` ends.
    case overlap(previous: String, next: String, end: Int, start: Int)
    /// `next` starts before `previous` does: the parts are not in order.
    case outOfOrder(previous: String, next: String, previousStart: Int, start: Int)
    /// `next`'s first packet decodes before `previous`'s last one (another reordering delay).
    case decodeOrder(previous: String, next: String)
    /// A part whose own frames are not contiguous.
    case holes(String, frames: Int, start: Int, end: Int)

    public var description: String {
        switch self {
        case .noParts:
            return "concat needs the parts to join, e.g. maptrip concat part1.mp4 part2.mp4 -o trip.mp4"
        case .unknownOutput(let path):
            return "output \(path): concat writes .mp4 or .mov files"
        case .outputIsPart(let path):
            return "output \(path) is one of the parts; it would be overwritten (choose another output)"
        case .notAVideo(let path, let reason):
            return "\(path) is not a video maptrip can join (\(reason)); give the parts written by "
                + "maptrip render --frames"
        case .hasOtherStreams(let path):
            return "\(path) has sound or other streams beside its video; concat joins the silent parts "
                + "written by maptrip render --frames"
        case .empty(let path):
            return "\(path) has no frames; render the part again"
        case .notStartingWithKeyframe(let path):
            return "\(path) does not start with a keyframe, so it cannot be joined without re-encoding; "
                + "render it with maptrip render --frames"
        case .mismatch(let first, let part, let what, let firstValue, let partValue):
            return "\(part) has \(what) \(partValue) but \(first) has \(firstValue); render every part "
                + "with the same options"
        case .parametersDiffer(let first, let part, let offset):
            return "\(part) was encoded with other settings than \(first): their codec parameters (extradata) "
                + "differ from byte \(offset) on; render every part with the same --crf, --preset, --bitrate and --pix-fmt"
        case .gap(let previous, let next, let end, let start):
            return "frames \(end) to \(start - 1) are missing between \(previous) (ends before frame \(end)) "
                + "and \(next) (starts at frame \(start)); render --frames \(end):\(start) and put it between them"
        case .overlap(let previous, let next, let end, let start):
            return "\(previous) and \(next) both hold frames \(start) to \(end - 1) (\(previous) ends before "
                + "frame \(end), \(next) starts at frame \(start)); the next part must start at frame \(end)"
        case .outOfOrder(let previous, let next, let previousStart, let start):
            return "\(next) starts at frame \(start), before \(previous) (which starts at frame \(previousStart)); "
                + "give the parts in order"
        case .decodeOrder(let previous, let next):
            return "\(next) cannot follow \(previous): its first frame would decode before the last of "
                + "\(previous) (another B-frame delay); render every part with the same --preset"
        case .holes(let path, let frames, let start, let end):
            return "\(path) holds \(frames) frames but its timestamps span frames \(start) to \(end - 1); "
                + "render it again"
        }
    }

    public var errorDescription: String? { description }
}

/// What a join wrote.
public struct ConcatSummary: Sendable, Equatable {
    public var frames: Int
    /// Seconds.
    public var duration: Double
    /// The first frame of each part, then the end (frame numbers of the whole trip).
    public var boundaries: [Int]
}

/// Joins parts of one trip (`maptrip render --frames A:B`, each starting with a keyframe, their
/// timestamps continuing from A) into one file without re-encoding: the packets are copied into one
/// MP4 (or MOV) with its index at the front, written to a temporary file beside the output and
/// renamed onto it only when complete. Parts must fit together: the same codec, size, pixel format,
/// frame rate and codec parameters (H.264's avcC), each one starting exactly where the one before
/// it ends.
public enum Concat {
    public static func join(parts: [URL], to output: URL) throws -> ConcatSummary {
        guard !parts.isEmpty else { throw ConcatError.noParts }
        let ext = output.pathExtension.lowercased()
        let format: String
        switch ext {
        case "mp4", "m4v": format = "mp4"
        case "mov": format = "mov"
        default: throw ConcatError.unknownOutput(output.relativePath)
        }
        for part in parts where sameFile(part, output) { throw ConcatError.outputIsPart(output.relativePath) }

        // Paths as the user gave them, for messages.
        let name = parts.map(\.relativePath)
        var readers: [PacketReader] = []
        // A file that is not a video is reported here in one line: libavformat's own complaint
        // ("moov atom not found") would only repeat it, unless its log was asked for.
        let logLevel = FFmpegLog.level
        if logLevel <= FFmpegLog.error { FFmpegLog.level = FFmpegLog.quiet }
        defer { FFmpegLog.level = logLevel }
        for (i, part) in parts.enumerated() {
            do {
                readers.append(try PacketReader(path: part.path))
            } catch let error as FFmpegError {
                throw ConcatError.notAVideo(name[i], reason: error.code == FFmpegError.streamNotFound
                                            ? "it has no video stream" : error.message)
            }
        }
        FFmpegLog.level = logLevel
        // A part cut short (a copy that stopped, a disk that filled) opens, but libavformat found no
        // picture in it to learn its pixel format from.
        for (i, r) in readers.enumerated() where r.pixelFormat.rawValue < 0 || r.width <= 0 {
            throw ConcatError.notAVideo(name[i], reason: "it is cut short or damaged: no picture of its video can be read; "
                                        + "render that part again")
        }
        let first = readers[0]
        for (i, r) in readers.enumerated() {
            if r.otherStreamCount > 0 { throw ConcatError.hasOtherStreams(name[i]) }
            func differ(_ what: String, _ a: String, _ b: String) throws {
                if a != b {
                    throw ConcatError.mismatch(first: name[0], part: name[i], what: what, firstValue: a, partValue: b)
                }
            }
            try differ("the codec", first.codecName, r.codecName)
            try differ("the size", "\(first.width)x\(first.height)", "\(r.width)x\(r.height)")
            try differ("the pixel format", first.pixelFormat.name, r.pixelFormat.name)
            try differ("the frame rate", "\(first.frameRate)", "\(r.frameRate)")
            if first.extradata != r.extradata {
                let a = first.extradata, b = r.extradata
                let offset = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
                throw ConcatError.parametersDiffer(first: name[0], part: name[i], offset: offset)
            }
        }
        let fps = first.frameRate
        guard fps.isValid else { throw ConcatError.notAVideo(name[0], reason: "its frame rate is unknown") }
        /// A timestamp in `timeBase` as a frame number of the trip.
        func frame(_ ts: Int64, _ timeBase: Rational) -> Int {
            Int(Rational.rescale(ts, from: timeBase, to: fps.inverted))
        }

        let temporary = TemporaryFiles.name(beside: output)
        do {
            let muxer = try Muxer(path: temporary.path, format: format)
            let stream = try muxer.addStream(copying: first.parameters, timeBase: first.timeBase, frameRate: fps)
            let tags = first.metadata
            for key in ["title", "comment"] { if let value = tags[key] { try muxer.setMetadata(key, value) } }
            try muxer.writeHeader(options: ["movflags": "+faststart"])
            let packet = try Packet()
            var boundaries: [Int] = []
            var previousEnd: Int?
            var lastDTS: Int64?
            var total = 0
            for (i, r) in readers.enumerated() {
                var count = 0
                var start = 0, end = 0
                // Moves the part's timestamps onto the frame grid: an MP4 whose first frame follows an
                // empty edit in a coarser movie time scale reads back a few ticks early.
                var shift: Int64 = 0
                while try r.read(into: packet) {
                    let tb = r.timeBase
                    guard let read = packet.pts else {
                        packet.unref()
                        throw ConcatError.notAVideo(name[i], reason: "a packet has no timestamp")
                    }
                    if count == 0 {
                        shift = Rational.rescale(Int64(frame(read, tb)), from: fps.inverted, to: tb) - read
                    }
                    let pts = read + shift
                    packet.pts = pts
                    if let dts = packet.dts { packet.dts = dts + shift }
                    let f = frame(pts, tb)
                    let next = f + max(1, frame(packet.duration, tb))
                    if count == 0 {
                        guard packet.isKeyFrame else {
                            packet.unref()
                            throw ConcatError.notStartingWithKeyframe(name[i])
                        }
                        start = f
                        end = next
                        if let previousEnd, previousEnd != f {
                            packet.unref()
                            throw f < boundaries[i - 1]
                                ? ConcatError.outOfOrder(previous: name[i - 1], next: name[i],
                                                         previousStart: boundaries[i - 1], start: f)
                                : f > previousEnd
                                ? ConcatError.gap(previous: name[i - 1], next: name[i], end: previousEnd, start: f)
                                : ConcatError.overlap(previous: name[i - 1], next: name[i], end: previousEnd, start: f)
                        }
                        boundaries.append(f)
                    }
                    start = min(start, f)
                    end = max(end, next)
                    if let dts = packet.dts {
                        let common = Rational.rescale(dts, from: tb, to: first.timeBase)
                        if let lastDTS, common <= lastDTS {
                            packet.unref()
                            throw i > 0 && count == 0 ? ConcatError.decodeOrder(previous: name[i - 1], next: name[i])
                                : ConcatError.notAVideo(name[i], reason: "its decoding timestamps go back")
                        }
                        lastDTS = common
                    }
                    count += 1
                    try muxer.write(packet, stream: stream, timeBase: tb)
                    packet.unref()
                }
                if count == 0 { throw ConcatError.empty(name[i]) }
                if end - start != count { throw ConcatError.holes(name[i], frames: count, start: start, end: end) }
                previousEnd = end
                total += count
            }
            try muxer.finish()
            try TemporaryFiles.commit(temporary, onto: output)
            boundaries.append(previousEnd ?? 0)
            return ConcatSummary(frames: total, duration: Double(total) / fps.doubleValue, boundaries: boundaries)
        } catch {
            MediaOutput.remove(temporary)
            throw error
        }
    }

    /// Two paths naming the same file (the same device and inode), or the same path.
    static func sameFile(_ a: URL, _ b: URL) -> Bool {
        if a.standardizedFileURL.path == b.standardizedFileURL.path { return true }
        var sa = stat(), sb = stat()
        guard stat(a.path, &sa) == 0, stat(b.path, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }
}
