import Foundation
import MapTripGeometry
import MapTripScene

/// The readouts' values at one frame (`Scene.readouts`), of one mover, in SI units: each a pure function
/// of the frame's recorded time (seconds since the track's first fix, held within it), so any frame
/// drawn alone shows what it shows in the whole video, at any frame rate. nil: the track does not have it.
public struct ReadoutValues: Equatable, Sendable {
    /// Recorded seconds since the track's first fix.
    public var elapsed: Double
    /// Kilometres covered since the first fix (along the fixes, linear in time between two).
    public var km: Double
    /// Kilometres per hour over `ReadoutItem.speedWindow` seconds centred on `elapsed` (cut to the track).
    public var kmh: Double
    /// Metres above sea level, beats per minute, revolutions per minute, watts: linear in time between
    /// the two fixes around `elapsed` that have a value (the nearest one's beyond them).
    public var altitude: Double?
    public var heartRate: Double?
    public var cadence: Double?
    public var power: Double?
    /// The mover is inside a privacy zone (`Scene.privacy`): the values that tell where it is (speed,
    /// distance, altitude, the profile's mark) are not shown, nor listed by `plan`.
    public var hidden = false

    public init(elapsed: Double, km: Double, kmh: Double, altitude: Double? = nil, heartRate: Double? = nil,
                cadence: Double? = nil, power: Double? = nil) {
        self.elapsed = elapsed
        self.km = km
        self.kmh = kmh
        self.altitude = altitude
        self.heartRate = heartRate
        self.cadence = cadence
        self.power = power
    }

    /// An item's value as the panel shows it, in `units`: the number and its unit (nil: `profile`,
    /// which is drawn, or a value the track does not have).
    public func text(_ item: ReadoutItem, units: Units) -> (value: String, unit: String)? {
        let metric = units == .metric
        func whole(_ v: Double?) -> String? { v.map { String(Int($0.rounded())) } }
        if hidden, ReadoutItem.positional.contains(item) {
            return item == .altitude && altitude == nil ? nil
                : ("–", item == .speed ? (metric ? "km/h" : "mph") : item == .distance ? (metric ? "km" : "mi") : (metric ? "m" : "ft"))
        }
        switch item {
        case .speed:
            return (String(format: "%.1f", metric ? kmh : kmh / ReadoutSeries.kmPerMile), metric ? "km/h" : "mph")
        case .distance:
            return (String(format: "%.2f", metric ? km : km / ReadoutSeries.kmPerMile), metric ? "km" : "mi")
        case .altitude:
            return whole(altitude.map { metric ? $0 : $0 / ReadoutSeries.metresPerFoot }).map { ($0, metric ? "m" : "ft") }
        case .elapsed:
            // The clock counts from the first fix's seconds since 1970: its rounding (1e-7 s) kept off a second's edge.
            let s = Int((elapsed + 1e-6).rounded(.down))
            return (String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60), "")
        case .heartRate: return whole(heartRate).map { ($0, "bpm") }
        case .cadence: return whole(cadence).map { ($0, "rpm") }
        case .power: return whole(power).map { ($0, "W") }
        case .profile: return nil
        }
    }
}

/// A scene's readouts (`Scene.readouts`): the track they measure, made ready once (its distance at each
/// fix, its recorded channels), and its values at any recorded time. On a place trip the track legs'
/// recordings are joined into one for the profile: each leg's first fix follows the previous leg's last
/// one with no time and no distance between them, so that distance and elapsed time add up over the legs
/// flown; each leg's values (its speed window cut to it) come from its own recording (`legs`).
public struct ReadoutSeries: Sendable {
    public static let kmPerMile = 1.609344
    public static let metresPerFoot = 0.3048
    /// Points at most on the drawn elevation profile.
    public static let profilePoints = 400

    /// A place trip's track leg in the joined recording: the place it leads to, the recorded seconds and
    /// kilometres of the legs before it, and its own recording's readouts.
    public struct Leg: Sendable {
        public let place: Int
        public let startTime: Double, startKm: Double
        public let series: ReadoutSeries
    }

    /// The items shown, in the scene's order, without those the track has no data for.
    public let items: [ReadoutItem]
    public let units: Units
    /// The index of the track in `Scene.tracks` (0 on a place trip).
    public let track: Int
    /// What the plan calls the measured track, and the colour of the travelled profile: the playback
    /// track's; on a place trip the track legs' files, and the first track leg's route colour.
    public let name: String
    public let color: Color
    /// A place trip's track legs, in order (empty for a playback).
    public let legs: [Leg]
    /// Seconds since the first fix, and kilometres covered, at each fix.
    public let times: [Double]
    public let cumulativeKm: [Double]
    /// Each channel's fixes that have a value: (seconds since the first fix, value).
    let distances: [(Double, Double)], altitudes: [(Double, Double)], heartRates: [(Double, Double)], cadences: [(Double, Double)], powers: [(Double, Double)]
    /// The elevation profile: (kilometre, metres) at most `profilePoints` points along the track (empty
    /// without altitudes).
    public let profile: [(km: Double, metres: Double)]

    public var duration: Double { times.last ?? 0 }
    public var lengthKm: Double { cumulativeKm.last ?? 0 }

    /// nil for a scene without readouts, or without tracks and track legs.
    public init?(scene: Scene) {
        let geometries = scene.readoutGeometries
        guard !scene.readouts.isEmpty, !geometries.isEmpty else { return nil }
        if scene.isPlayback {
            self.init(geometries, items: scene.shownReadouts, units: scene.units, track: scene.readoutTrack,
                      name: scene.tracks[scene.readoutTrack].name, color: scene.tracks[scene.readoutTrack].color, legs: [])
            return
        }
        var legs: [Leg] = [], time = 0.0, km = 0.0
        for (place, g) in zip(scene.trackLegs, geometries) {
            let own = ReadoutSeries([g], items: [], units: scene.units, track: 0, name: "", color: RouteStyle().color, legs: [])
            legs.append(Leg(place: place, startTime: time, startKm: km, series: own))
            time += own.duration
            km += own.lengthKm
        }
        self.init(geometries, items: scene.shownReadouts, units: scene.units, track: 0,
                  name: scene.trackLegs.compactMap { scene.places[$0].track?.file }.joined(separator: " + "),
                  color: scene.route(into: scene.trackLegs[0])?.color ?? RouteStyle().color, legs: legs)
    }

    /// The recordings joined: each one's times and kilometres carried on from the end of the one before.
    private init(_ geometries: [TrackGeometry], items: [ReadoutItem], units: Units, track: Int, name: String, color: Color,
                 legs: [Leg]) {
        self.items = items
        self.units = units
        self.track = track
        self.name = name
        self.color = color
        self.legs = legs
        var times: [Double] = [], km: [Double] = []
        var altitudes: [Double?] = [], heartRates: [Double?] = [], cadences: [Double?] = [], powers: [Double?] = []
        for g in geometries {
            let t0 = times.last ?? 0, km0 = km.last ?? 0
            times += (g.times ?? g.points.map { _ in 0 }).map { t0 + $0 }
            km.append(km0)
            for j in g.points.indices.dropFirst() { km.append(km[km.count - 1] + Geodesy.distanceKm(g.points[j - 1], g.points[j])) }
            func padded(_ c: [Double?]) -> [Double?] { c.isEmpty ? g.points.map { _ in nil } : c }
            altitudes += padded(g.altitudes)
            heartRates += padded(g.heartRates)
            cadences += padded(g.cadences)
            powers += padded(g.powers)
        }
        self.times = times
        cumulativeKm = km
        func pairs(_ channel: [Double?]) -> [(Double, Double)] {
            zip(times, channel).compactMap { t, v in v.map { (t, $0) } }
        }
        distances = Array(zip(times, km))
        self.altitudes = pairs(altitudes)
        self.heartRates = pairs(heartRates)
        self.cadences = pairs(cadences)
        self.powers = pairs(powers)
        // The profile by distance, thinned evenly to at most `profilePoints`.
        let byKm = zip(km, altitudes).compactMap { k, a in a.map { (km: k, metres: $0) } }
        let step = max(1, Int((Double(byKm.count) / Double(Self.profilePoints)).rounded(.up)))
        var thin = stride(from: 0, to: byKm.count, by: step).map { byKm[$0] }
        if let last = byKm.last, thin.last?.km != last.km { thin.append(last) }
        profile = thin
    }

    /// The values where the vehicle is on track leg `k` (an index in `legs`): `progress` of its length
    /// along by distance, or with the recorded pace `run` of its recorded time; elapsed time and distance
    /// counted from the first track leg's first fix.
    public func values(leg k: Int, progress: Double, run: Double?) -> ReadoutValues {
        let leg = legs[k], own = leg.series
        let t = (own.duration > 0 ? run : nil).map { min(max($0, 0), 1) * own.duration }
            ?? own.time(atKm: min(max(progress, 0), 1) * own.lengthKm)
        var v = own.values(atElapsed: t)
        v.elapsed += leg.startTime
        v.km += leg.startKm
        return v
    }

    /// The recorded seconds at which the track has covered `km` (the first of them where it stood).
    func time(atKm km: Double) -> Double {
        guard let k = cumulativeKm.firstIndex(where: { $0 >= km }) else { return duration }
        guard k > 0, cumulativeKm[k] > cumulativeKm[k - 1] else { return times[k] }
        return times[k - 1] + (times[k] - times[k - 1]) * (km - cumulativeKm[k - 1]) / (cumulativeKm[k] - cumulativeKm[k - 1])
    }

    /// The values at `seconds` since the track's first fix (held to the track's span).
    public func values(atElapsed seconds: Double) -> ReadoutValues {
        let t = min(max(seconds.isNaN ? 0 : seconds, 0), duration)
        let half = ReadoutItem.speedWindow / 2
        let a = max(0, t - half), b = min(duration, t + half)
        let kmh = b > a ? (km(at: b) - km(at: a)) / (b - a) * 3600 : 0
        return ReadoutValues(elapsed: t, km: km(at: t), kmh: kmh, altitude: Self.interpolate(altitudes, at: t),
                             heartRate: Self.interpolate(heartRates, at: t), cadence: Self.interpolate(cadences, at: t),
                             power: Self.interpolate(powers, at: t))
    }

    /// Kilometres covered at `t` seconds since the first fix: linear in time between fixes.
    public func km(at t: Double) -> Double {
        Self.interpolate(distances, at: t) ?? 0
    }

    /// The value at t, linear between the samples around it (the first or last one beyond them); nil
    /// without samples. Samples at one time: the last of them from there on.
    public static func interpolate(_ samples: [(Double, Double)], at t: Double) -> Double? {
        guard let first = samples.first, let last = samples.last else { return nil }
        if t <= first.0 { return first.1 }
        if t >= last.0 { return last.1 }
        // The last sample at or before t.
        var lo = 0, hi = samples.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if samples[mid].0 <= t { lo = mid } else { hi = mid - 1 }
        }
        let (t0, v0) = samples[lo], (t1, v1) = samples[lo + 1]
        return t1 > t0 ? v0 + (v1 - v0) * (t - t0) / (t1 - t0) : v1
    }
}

extension ReadoutItem {
    /// The items whose values tell where the mover is, hidden inside privacy zones.
    public static let positional: Set<ReadoutItem> = [.speed, .distance, .altitude, .profile]
}
