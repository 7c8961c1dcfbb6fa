import Foundation
import MapTripSupport

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
