import Foundation
import MapTripGeometry

/// A recording played back by its own clock (`tracks[i]`): the file as the scene names it, the
/// mover's name, colour and vehicle, and its geometry (with a time at every point: playback needs them).
public struct PlaybackTrack: Equatable, Sendable {
    public var file: String
    public var name: String
    public var color: Color
    public var vehicle: Vehicle
    public var geometry: TrackGeometry

    public init(file: String, name: String, color: Color, vehicle: Vehicle = .none, geometry: TrackGeometry) {
        self.file = file
        self.name = name
        self.color = color
        self.vehicle = vehicle
        self.geometry = geometry
    }

    /// Seconds from its first fix to its last.
    public var duration: Double { geometry.times?.last ?? 0 }

    /// The colours movers take in order when their track gives none.
    public static let palette = ["#e4572e", "#1b998b", "#2e86ab", "#f3a712", "#a23b72", "#3b1f2b"]
        .compactMap(Color.init(hex:))
}

/// How the scene's `tracks` are played back (`playback`): how many recorded seconds one second of video
/// shows, which still stretches are cut out, how the clock reads and whether the tracks start together.
public struct Playback: Equatable, Sendable {
    public enum Start: String, Equatable, Sendable, CaseIterable {
        /// Each track at its own recorded time: tracks recorded together move together.
        case recorded
        /// Every track from the same moment (a ghost race): the clock shows the time since the start.
        case together
    }

    public enum Clock: String, Equatable, Sendable, CaseIterable {
        case minutes = "HH:mm"
        case seconds = "HH:mm:ss"
        case none
    }

    public static let defaultSpeed = 60.0

    /// Recorded seconds per second of video.
    public var speed: Double
    /// Where no mover moves for longer than this many seconds, the stretch is cut out (nil: never).
    public var skipIdle: Double?
    public var clock: Clock
    public var start: Start
    /// Recorded seconds skipped before the video's first frame (negative: the movers wait at their
    /// first fixes that long first), to line the playback up with the user's own footage.
    public var offset: Double
    /// The zone the clock shows recorded times in (`timeZone`; nil: the recordings' own, else UTC).
    public var timeZone: ClockZone?

    public init(speed: Double = Playback.defaultSpeed, skipIdle: Double? = nil, clock: Clock = .minutes,
                start: Start = .recorded, offset: Double = 0, timeZone: ClockZone? = nil) {
        self.offset = offset
        self.timeZone = timeZone
        self.speed = speed
        self.skipIdle = skipIdle
        self.clock = clock
        self.start = start
    }

    /// The zone the clock reads recorded times in (nil in a ghost race, which counts from its start):
    /// the scene's `timeZone` when it sets one; else the offset the followed track's file states (`follow`),
    /// else the first stated by any track's file; else UTC.
    public func clockZone(tracks: [PlaybackTrack], follow: Int?) -> ClockZone? {
        guard start != .together else { return nil }
        if let timeZone { return timeZone }
        if let follow, tracks.indices.contains(follow), let own = tracks[follow].geometry.utcOffset { return .offset(own) }
        return tracks.lazy.compactMap(\.geometry.utcOffset).first.map(ClockZone.offset) ?? .offset(0)
    }
}

/// The time zone a playback's clock reads in (`playback.timeZone`): a fixed offset from UTC (`"+02:00"`,
/// `"-0330"`, `"UTC"`) or a zone of the IANA database (`"Europe/Helsinki"`), resolved with Foundation's
/// `TimeZone`, whose offset follows daylight saving time at each recorded moment.
public enum ClockZone: Equatable, Sendable {
    /// Seconds east of UTC.
    case offset(Int)
    /// An IANA zone's identifier.
    case named(String)

    /// The zone `text` names, nil when it names none.
    public init?(_ text: String) {
        if ["UTC", "Z", "GMT"].contains(text) {
            self = .offset(0)
            return
        }
        let chars = Array(text)
        if let sign = chars.first, sign == "+" || sign == "-" {
            let digits = chars.dropFirst().filter { $0 != ":" }
            let colons = chars.dropFirst().filter { $0 == ":" }.count
            guard digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), digits.count == 2 || digits.count == 4,
                  colons == 0 || (colons == 1 && digits.count == 4 && chars.count == 6 && chars[3] == ":"),
                  let hh = Int(String(digits.prefix(2))), let mm = digits.count == 4 ? Int(String(digits.suffix(2))) : 0,
                  hh <= 14, mm <= 59 else { return nil }
            self = .offset((sign == "-" ? -1 : 1) * (hh * 3600 + mm * 60))
            return
        }
        guard text.contains("/") || text.allSatisfy({ $0.isLetter }), TimeZone(identifier: text) != nil else { return nil }
        self = .named(text)
    }

    /// An offset from UTC (seconds east) as `UTC`, `UTC+2`, `UTC-3:30`.
    public static func label(_ utcOffset: Double) -> String {
        let minutes = Int((utcOffset / 60).rounded())
        guard minutes != 0 else { return "UTC" }
        let a = abs(minutes)
        return "UTC" + (minutes < 0 ? "-" : "+") + (a % 60 == 0 ? "\(a / 60)" : String(format: "%d:%02d", a / 60, a % 60))
    }

    /// Seconds east of UTC at `seconds` since 1970 (UTC).
    public func offset(at seconds: Double) -> Int {
        switch self {
        case .offset(let s): return s
        case .named(let id):
            return TimeZone(identifier: id)?.secondsFromGMT(for: Date(timeIntervalSince1970: seconds)) ?? 0
        }
    }
}
