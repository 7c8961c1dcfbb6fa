import Foundation
import MapTripGeometry

/// A seeded ride for the readouts' tests: a walk with an altitude, a heart rate and a cadence at each fix
/// (a few fixes without), written as GPX with Garmin's TrackPointExtension, and what a readout must say
/// at a recorded time, computed here from the fixes alone (haversine on a sphere of the mean Earth
/// radius; linear in time between fixes; the speed over 10 recorded seconds centred on the time).
public struct RideFixture: Sendable {
    public var walk: TrackFixture
    public var altitudes: [Double?]
    public var heartRates: [Double?]
    public var cadences: [Double?]
    public var powers: [Double?] = []

    /// A recording's fixes and channels as its writer wrote them.
    public init(walk: TrackFixture, altitudes: [Double?], heartRates: [Double?], cadences: [Double?], powers: [Double?]) {
        self.walk = walk
        self.altitudes = altitudes
        self.heartRates = heartRates
        self.cadences = cadences
        self.powers = powers
    }

    public init(seed: UInt64, count: Int = 240, start: LonLat = LonLat(lon: 24.94, lat: 60.17)) {
        walk = TrackFixture.walk(seed: seed, count: count, start: start, stepKm: 0.03)
        var rng = SplitMix64(seed: seed ^ 0x5eed)
        var altitude = 40.0
        altitudes = []
        heartRates = []
        cadences = []
        for k in 0..<count {
            altitude += (rng.unit() * 2 - 1) * 3
            altitudes.append(k % 17 == 5 ? nil : (altitude * 10).rounded() / 10)
            heartRates.append(k % 11 == 3 ? nil : Double(100 + Int(rng.unit() * 60)))
            cadences.append(Double(70 + Int(rng.unit() * 25)))
        }
    }

    /// The ride as GPX 1.1, its first fix at `base`.
    public func gpx(start base: Date = TrackFixture.start) -> String {
        let iso = ISO8601DateFormatter()
        let times = walk.times ?? []
        let points = walk.points.indices.map { k in
            var p = "<trkpt lat=\"\(walk.points[k].lat)\" lon=\"\(walk.points[k].lon)\">"
            if let a = altitudes[k] { p += "<ele>\(a)</ele>" }
            p += "<time>\(iso.string(from: base.addingTimeInterval(times[k])))</time><extensions><gpxtpx:TrackPointExtension>"
            if let h = heartRates[k] { p += "<gpxtpx:hr>\(Int(h))</gpxtpx:hr>" }
            if let c = cadences[k] { p += "<gpxtpx:cad>\(Int(c))</gpxtpx:cad>" }
            return p + "</gpxtpx:TrackPointExtension></extensions></trkpt>"
        }
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="maptrip tests" xmlns="http://www.topografix.com/GPX/1/1"
          xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
        <trk><name>ride</name><trkseg>
        \(points.joined(separator: "\n"))
        </trkseg></trk>
        </gpx>
        """
    }

    public static func haversineKm(_ a: LonLat, _ b: LonLat) -> Double {
        let r = Double.pi / 180, dLat = (b.lat - a.lat) * r, dLon = (b.lon - a.lon) * r
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.lat * r) * cos(b.lat * r) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6371.0088 * asin(min(1, sqrt(h)))
    }

    /// The value at t, linear between the samples around it, the end ones held beyond.
    static func linear(_ samples: [(Double, Double)], _ t: Double) -> Double? {
        guard let first = samples.first, let last = samples.last else { return nil }
        if t <= first.0 { return first.1 }
        if t >= last.0 { return last.1 }
        let k = samples.lastIndex { $0.0 <= t }!
        let (t0, v0) = samples[k], (t1, v1) = samples[k + 1]
        return t1 > t0 ? v0 + (v1 - v0) * (t - t0) / (t1 - t0) : v1
    }

    public struct Expected: Sendable {
        public var elapsed: Double, km: Double, kmh: Double
        public var altitude: Double?, heartRate: Double?, cadence: Double?, power: Double?
    }

    /// Seconds from the first fix to the last.
    public var duration: Double { walk.times?.last ?? 0 }

    /// What the readouts must say at `t` recorded seconds since the first fix (held to the ride).
    public func expected(at t: Double) -> Expected {
        let times = walk.times ?? walk.points.map { _ in 0 }
        var km = [0.0]
        for k in walk.points.indices.dropFirst() { km.append(km[k - 1] + Self.haversineKm(walk.points[k - 1], walk.points[k])) }
        let distance = Array(zip(times, km))
        let t = min(max(t, 0), duration)
        let a = max(0, t - 5), b = min(duration, t + 5)
        let kmh = b > a ? (Self.linear(distance, b)! - Self.linear(distance, a)!) / (b - a) * 3600 : 0
        func channel(_ c: [Double?]) -> [(Double, Double)] { zip(times, c).compactMap { t, v in v.map { (t, $0) } } }
        return Expected(elapsed: t, km: Self.linear(distance, t)!, kmh: kmh, altitude: Self.linear(channel(altitudes), t),
                        heartRate: Self.linear(channel(heartRates), t), cadence: Self.linear(channel(cadences), t),
                        power: Self.linear(channel(powers), t))
    }
}
