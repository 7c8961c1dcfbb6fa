import Foundation
import MapTripGeometry
import MapTripScene

/// A stretch of the recordings shown without a cut: recorded seconds `recorded` (on the playback's
/// clock) over frames `frames`.
public struct PlaybackStretch: Equatable, Sendable {
    public var recorded: ClosedRange<Double>
    public var frames: Range<Int>
}

/// Where a mover is in its recording at one frame.
public enum MoverState: Equatable, Sendable {
    /// Before its recording starts: at its first point.
    case waiting, moving
    /// After its recording ends: at its last point.
    case finished
}

/// A mover's value at one frame: track `vehicle.place` at `vehicle.progress` of its line's length, drawn
/// as a leg's vehicle is (its heading smoothed), and its state.
public struct MoverValue: Equatable, Sendable {
    public var vehicle: VehicleValue
    public var state: MoverState

    public var track: Int { vehicle.place }
    public var position: LonLat { vehicle.position }
}

/// The clock readout at one frame: the time it shows (the wall clock's seconds since 1970 in its time
/// zone, or since the start of a ghost race; counted down to what the clock shows), its opacity (it dips
/// across a cut) and the zone's offset from UTC then (seconds east; 0 in a ghost race).
public struct ClockValue: Equatable, Sendable {
    public var seconds: Double
    public var opacity: Double
    public var utcOffset: Double = 0
}

/// The playback of a scene's recorded tracks (`Scene.tracks`) by their own clock.
///
/// The playback's clock: each track's points at `offset + time since its first fix`, where the offset is
/// its recorded start (seconds since 1970; `"start": "recorded"`) or 0 (`"together"`: a ghost race). It
/// runs from the earliest first fix plus `playback.offset` (`t0`; a negative offset starts with a hold)
/// to the latest last fix. A step between two fixes of one track
/// moves when it covers ground faster than `movingSpeed`; where no track moves for longer than `skipIdle`
/// seconds the stretch is cut out (the picture dips through black and the clock fades across the cut,
/// over `cutFade` seconds of video each side). Frame n of stretch k shows recorded time `recorded.lowerBound + (n - frames.lowerBound) * speed / fps`:
/// without a cut, `t0 + n * speed / fps`. The stretches' frames lie on the grid of their summed video
/// seconds (`FrameGrid`'s rounding), and one frame more shows the last fix: a playback of S seconds of
/// recording at speed v lasts `round(S / v * fps) + 1` frames.
public struct PlaybackClock: Sendable {
    /// Metres per second under which a step between fixes counts as still (GPS wanders at rest).
    public static let movingSpeed = 0.5
    /// Seconds of video the picture and the clock take to dip out before a cut and back after it.
    public static let cutFade = 0.3

    public let fps: Int
    public let speed: Double
    public let start: Playback.Start
    public let stretches: [PlaybackStretch]
    /// The stretches cut out (recorded time ranges on the playback's clock).
    public let cuts: [ClosedRange<Double>]
    /// Each track's line (with its times).
    public let lines: [RouteLine]
    /// Each track's first fix on the playback's clock.
    public let offsets: [Double]
    /// Frames the playback takes.
    public let frameCount: Int
    /// The zone the clock reads recorded times in (`Playback.clockZone`: the scene's `timeZone`, else the
    /// followed recording's own offset, else the first stated, else UTC; nil in a ghost race).
    public let zone: ClockZone?
    private let clock: Playback.Clock
    private let fadeFrames: Double
    /// Whether each track's mover has a vehicle, whose icon turns with the smoothed heading (the others'
    /// heading is the line's own there: nothing draws it; a thousand movers' smoothing was 3% of a frame).
    private let smoothsHeading: [Bool]

    /// `follow`: the track the camera follows (its file's offset sets the clock's zone first).
    public init(tracks: [PlaybackTrack], playback: Playback, fps: Int, follow: Int? = nil) {
        precondition(!tracks.isEmpty && fps > 0 && playback.speed > 0, "a playback has tracks, fps and a speed")
        self.fps = fps
        speed = playback.speed
        start = playback.start
        clock = playback.clock
        zone = playback.clockZone(tracks: tracks, follow: follow)
        lines = tracks.map { RouteLine(track: $0.geometry.points, times: $0.geometry.times) }
        smoothsHeading = tracks.map { $0.vehicle != .none }
        offsets = tracks.map { playback.start == .together ? 0 : $0.geometry.start?.timeIntervalSince1970 ?? 0 }
        let first = offsets.min() ?? 0
        let t1 = zip(offsets, tracks).map { $0 + $1.duration }.max() ?? first
        // The playback starts `playback.offset` recorded seconds after the first fix (before it: a hold).
        let t0 = min(first + playback.offset, t1)
        let offsets = self.offsets
        let cuts = playback.skipIdle.map { Self.idleGaps(tracks: tracks, offsets: offsets, from: max(t0, first), to: t1, longerThan: $0) } ?? []
        self.cuts = cuts
        // The stretches between the cuts, on the grid of their summed video seconds.
        var bounds: [(Double, Double)] = []
        var from = t0
        for cut in cuts {
            bounds.append((from, cut.lowerBound))
            from = cut.upperBound
        }
        bounds.append((from, t1))
        // A cut at the very start or the end leaves an empty stretch there: the playback starts and ends
        // with movement.
        let kept = bounds.filter { $0.1 > $0.0 }
        bounds = kept.isEmpty ? [bounds[0]] : kept
        var stretches: [PlaybackStretch] = []
        var seconds = 0.0, frame = 0
        for (a, b) in bounds {
            seconds += (b - a) / playback.speed
            let end = Int((seconds * Double(fps)).rounded())
            stretches.append(PlaybackStretch(recorded: a...b, frames: frame..<max(frame, end)))
            frame = end
        }
        self.stretches = stretches
        frameCount = frame + 1
        fadeFrames = max(1, (Self.cutFade * Double(fps)).rounded())
    }

    /// The recorded time (on the playback's clock) frame n shows; the last frame and after show the end.
    public func time(atFrame n: Int) -> Double {
        if let last = stretches.last, n >= last.frames.upperBound { return last.recorded.upperBound }
        let s = stretches[stretch(at: n)]
        let t = s.recorded.lowerBound + Double(max(n - s.frames.lowerBound, 0)) * speed / Double(fps)
        return min(t, s.recorded.upperBound)
    }

    /// The first frame that shows recorded time `t` (on the playback's clock) or later: the first frame
    /// after a cut for a time within it, the first frame for a time before the playback, the last for one after.
    public func frame(reaching t: Double) -> Int {
        for s in stretches {
            if t <= s.recorded.lowerBound { return s.frames.lowerBound }
            if t <= s.recorded.upperBound {
                // Frame lower + k shows lower + k * speed / fps: the first k at or past t (a hair of rounding forgiven).
                let k = ((t - s.recorded.lowerBound) * Double(fps) / speed - 1e-9).rounded(.up)
                // At most the stretch's end (its frames lie on the rounded grid): the next stretch's first frame.
                return min(s.frames.lowerBound + Int(max(k, 0)), s.frames.upperBound, frameCount - 1)
            }
        }
        return frameCount - 1
    }

    /// The index of the stretch frame n belongs to (the last one for the final frame and after).
    public func stretch(at n: Int) -> Int {
        stretches.lastIndex { $0.frames.lowerBound <= n && !$0.frames.isEmpty } ?? 0
    }

    /// Track i at recorded time t (on the playback's clock): where it is, along which heading.
    public func mover(_ i: Int, at t: Double) -> MoverValue {
        let line = lines[i]
        let local = t - offsets[i]
        let duration = line.times?.last ?? 0
        let state: MoverState = local < 0 ? .waiting : (local >= duration ? .finished : .moving)
        let progress = self.progress(i, at: t)
        let at = line.point(at: progress)
        let heading = smoothsHeading[i] ? line.smoothedHeading(at: progress, windowKm: line.headingWindowKm) : at.heading
        return MoverValue(vehicle: VehicleValue(place: i, progress: progress, position: at.position, heading: heading),
                          state: state)
    }

    /// The fraction of track i's line its mover has covered at recorded time t (on the playback's clock).
    public func progress(_ i: Int, at t: Double) -> Double {
        let line = lines[i], local = t - offsets[i]
        let duration = line.times?.last ?? 0
        return duration > 0 ? line.fraction(atTimeFraction: local / duration) ?? 0 : (local < 0 ? 0 : 1)
    }

    /// Every mover and the clock at frame n of the playback.
    public func values(at n: Int) -> (movers: [MoverValue], clock: ClockValue?) {
        let t = time(atFrame: n)
        let movers = lines.indices.map { mover($0, at: t) }
        guard clock != .none else { return (movers, nil) }
        let step = clock == .seconds ? 1.0 : 60.0
        let offset = utcOffset(at: t)
        let shown = ((t + offset) / step).rounded(.down) * step
        return (movers, ClockValue(seconds: shown, opacity: cutOpacity(at: n), utcOffset: offset))
    }

    /// The clock's offset from UTC at recorded time t (seconds east; 0 in a ghost race).
    public func utcOffset(at t: Double) -> Double {
        zone.map { Double($0.offset(at: t)) } ?? 0
    }

    /// 1, dipping at each cut: down over the last `cutFade` of video before it, up over the first after
    /// (the frames either side of the cut at 1 / (fade frames + 1)): the clock's opacity, and the
    /// picture's through black (`FrameValues.cutDip`).
    public func cutOpacity(at n: Int) -> Double {
        var o = 1.0
        for s in stretches.dropFirst() {
            let cut = s.frames.lowerBound
            let d = n < cut ? cut - n : n - cut + 1
            o = min(o, Double(d) / (fadeFrames + 1))
        }
        return o
    }

    /// The stretches (recorded time on the playback's clock) where no track moves for longer than
    /// `limit` seconds, within `t0...t1`.
    static func idleGaps(tracks: [PlaybackTrack], offsets: [Double], from t0: Double, to t1: Double,
                         longerThan limit: Double) -> [ClosedRange<Double>] {
        var moving: [(Double, Double)] = []
        for (track, offset) in zip(tracks, offsets) {
            guard let times = track.geometry.times else { continue }
            let points = track.geometry.points
            for k in points.indices.dropFirst() {
                let dt = times[k] - times[k - 1]
                guard dt > 0 else { continue }
                let metres = Geodesy.distanceKm(points[k - 1], points[k]) * 1000
                if metres / dt >= movingSpeed { moving.append((offset + times[k - 1], offset + times[k])) }
            }
        }
        moving.sort { $0.0 < $1.0 }
        var gaps: [ClosedRange<Double>] = []
        var reached = t0
        for (a, b) in moving {
            if a - reached > limit { gaps.append(reached...a) }
            reached = max(reached, b)
        }
        if t1 - reached > limit { gaps.append(reached...t1) }
        return gaps
    }

    /// The clock's text for `value` (the wall clock in its zone, or since the start of a ghost race).
    public func clockText(_ value: ClockValue) -> String {
        Self.clockText(value.seconds, format: clock, since: start == .together, utcOffset: value.utcOffset)
    }

    /// `13:02 UTC`, `15:02 UTC+2`, `18:32:03 UTC+5:30`: `seconds` (the wall clock's, since 1970) with its
    /// zone's offset from UTC; a ghost race's time since its start has none.
    public static func clockText(_ seconds: Double, format: Playback.Clock, since: Bool, utcOffset: Double = 0) -> String {
        let total = Int(seconds.rounded(.down))
        let day = since ? total : ((total % 86_400) + 86_400) % 86_400
        let h = day / 3600, m = day / 60 % 60, s = day % 60
        let text = format == .seconds ? String(format: "%02d:%02d:%02d", h, m, s) : String(format: "%02d:%02d", h, m)
        return since ? text : text + " " + ClockZone.label(utcOffset)
    }
}
