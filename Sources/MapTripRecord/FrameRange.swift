import Foundation
import MapTripSupport
import MapTripScene
import MapTripTime

/// Frames [start, end) of a trip: a part rendered on its own (`maptrip render --frames A:B`), to be
/// joined to the others with `maptrip concat`. Frame n of a part is frame n of the whole trip.
public struct FrameRange: Equatable, Sendable, CustomStringConvertible {
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    public init(_ range: Range<Int>) { self.init(start: range.lowerBound, end: range.upperBound) }

    /// `A:B`, as `--frames` takes it.
    public init(parsing text: String) throws {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let a = Int(parts[0].trimmingCharacters(in: .whitespaces)),
              let b = Int(parts[1].trimmingCharacters(in: .whitespaces)) else {
            throw FrameRangeError.malformed(text)
        }
        self.init(start: a, end: b)
    }

    public var range: Range<Int> { start..<max(start, end) }
    public var count: Int { max(0, end - start) }
    /// `A:B`
    public var description: String { "\(start):\(end)" }

    /// Throws unless the range is a non-empty part of a trip of `frameCount` frames.
    public func check(frameCount: Int) throws {
        if start < 0 { throw FrameRangeError.negative(self) }
        if end <= start { throw FrameRangeError.endNotAfterStart(self) }
        if end > frameCount { throw FrameRangeError.outside(self, frameCount: frameCount) }
    }
}

/// A `--frames` value that names no part of the trip: one line, with what to write instead.
public enum FrameRangeError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError, DiagnosticConvertible {
    case malformed(String)
    case negative(FrameRange)
    case endNotAfterStart(FrameRange)
    case outside(FrameRange, frameCount: Int)

    public var description: String {
        switch self {
        case .malformed(let text):
            return "--frames \(text): write START:END, frame numbers from 0 with the end excluded (e.g. 0:42)"
        case .negative(let r):
            return "--frames \(r): frames are numbered from 0"
        case .endNotAfterStart(let r):
            return "--frames \(r): the end must be after the start (START:END renders frames START to END-1)"
        case .outside(let r, let frameCount):
            return "--frames \(r): the trip has \(frameCount) frames (0:\(frameCount) is all of it; see maptrip plan)"
        }
    }

    public var errorDescription: String? { description }
}

/// A stretch of a trip by its times, as `maptrip plan` prints them (`render --from 0:04 --to 0:19`):
/// rendered as its own file, sound included. Each time goes to the nearest frame boundary
/// (round(t x fps), halves away from zero): the stretch holds the frames from --from's up to, not
/// including, --to's, so `--from 0:04 --to 0:19` at 30 fps is frames 120 to 569, 4.000 s to 19.000 s.
public struct TimeStretch: Equatable, Sendable {
    /// Seconds into the trip (nil: its start, its end).
    public var from: Double?
    public var to: Double?
    /// The times as given, for messages.
    public var fromText: String?
    public var toText: String?

    /// Reads the times (TimeText: `4`, `4.5s`, `0:04`, `0:04.5`, `1:02:03`); throws `TimeStretchError`
    /// for a time it cannot read and for --to not after --from.
    public init(from: String?, to: String?) throws {
        fromText = from
        toText = to
        func seconds(_ text: String?, _ flag: String) throws -> Double? {
            guard let text else { return nil }
            guard let t = TimeText.seconds(in: text), t.isFinite, t >= 0, t < 1e7 else {
                throw TimeStretchError.malformed(flag: flag, text: text)
            }
            return t
        }
        self.from = try seconds(from, "--from")
        self.to = try seconds(to, "--to")
        if let a = self.from, let b = self.to, b <= a {
            throw TimeStretchError.endNotAfterStart(from: from ?? "", to: to ?? "")
        }
    }

    /// The frames of a trip of `frameCount` frames at `fps` the stretch holds; throws when it is not within.
    public func frames(fps: Int, frameCount: Int) throws -> FrameRange {
        let start = from.map { FrameGrid.frames(seconds: $0, fps: fps) } ?? 0
        let end = to.map { FrameGrid.frames(seconds: $0, fps: fps) } ?? frameCount
        let length = Plan.clock(Double(frameCount) / Double(fps))
        if start >= frameCount {
            throw TimeStretchError.beyondEnd(flag: "--from", text: fromText ?? "", length: length)
        }
        if end > frameCount {
            throw TimeStretchError.beyondEnd(flag: "--to", text: toText ?? "", length: length)
        }
        guard end > start else {
            throw TimeStretchError.endNotAfterStart(from: fromText ?? "0", to: toText ?? length)
        }
        return FrameRange(start: start, end: end)
    }
}

/// A `--from`/`--to` that names no stretch of the trip: one line, with what to write instead.
public enum TimeStretchError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError, DiagnosticConvertible {
    case malformed(flag: String, text: String)
    case endNotAfterStart(from: String, to: String)
    case beyondEnd(flag: String, text: String, length: String)
    case withFrames

    public var description: String {
        switch self {
        case .malformed(let flag, let text):
            return "\(flag) \(text): write a time as maptrip plan prints it, such as 0:04, 0:04.5 or 12.5"
        case .endNotAfterStart(let from, let to):
            return "--to \(to) is not after --from \(from) (on the frame grid): the stretch would be empty"
        case .beyondEnd(let flag, let text, let length):
            return "\(flag) \(text) is beyond the trip's end: it lasts \(length) (see maptrip plan)"
        case .withFrames:
            return "give --from/--to (a stretch as its own file, with sound) or --frames (a part for maptrip concat), not both"
        }
    }

    public var errorDescription: String? { description }
}
