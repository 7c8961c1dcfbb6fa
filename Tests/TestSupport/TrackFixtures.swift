import Foundation
import MapTripGeometry
import TestBasics

/// Recordings made in code for the track-leg tests: a seeded random walk and the GPX text that holds it.
public struct TrackFixture: Sendable {
    public var points: [LonLat]
    /// Seconds since the first point (nil: written without times).
    public var times: [Double]?

    public init(points: [LonLat], times: [Double]?) {
        self.points = points
        self.times = times
    }

    /// `count` points from `start`, each `stepKm` on average further along a heading that wanders by up to
    /// `turn` degrees a step, seconds apart at random (and one pause of a minute when `timed`).
    public static func walk(seed: UInt64, count: Int, start: LonLat, stepKm: Double = 0.05, turn: Double = 25,
                            heading: Double = 60, timed: Bool = true) -> TrackFixture {
        var rng = SplitMix64(seed: seed)
        var points = [start], times = [0.0]
        var bearing = heading
        for i in 1..<count {
            bearing += (rng.unit() * 2 - 1) * turn
            let p = points[i - 1], km = stepKm * (0.5 + rng.unit())
            // A small step on the sphere: north and east components of the heading.
            let dLat = km * cos(bearing * .pi / 180) / 111.195
            let dLon = km * sin(bearing * .pi / 180) / (111.195 * cos(p.lat * .pi / 180))
            points.append(LonLat(lon: Self.wrap(p.lon + dLon), lat: p.lat + dLat))
            times.append(times[i - 1] + 1 + (rng.unit() * 9).rounded() + (i == count / 2 ? 60 : 0))
        }
        return TrackFixture(points: points, times: timed ? times : nil)
    }

    /// The walk with a stop of `idle` seconds at point k (a second fix there, `idle` later; the rest shifted).
    public func stopped(at k: Int, idle: Double) -> TrackFixture {
        let stamps = times ?? []
        var points = Array(self.points[0...k]), out = Array(stamps[0...k])
        points.append(self.points[k])
        out.append(stamps[k] + idle)
        points += self.points[(k + 1)...]
        out += stamps[(k + 1)...].map { $0 + idle }
        return TrackFixture(points: points, times: out)
    }

    static func wrap(_ lon: Double) -> Double { lon >= 180 ? lon - 360 : (lon < -180 ? lon + 360 : lon) }

    /// The walk as GPX 1.1: one track, its points split over two segments (read back joined in order).
    public var gpx: String { gpx(start: Self.start) }

    /// When the walk's first fix was taken, as `gpx` writes it.
    public static let start = Date(timeIntervalSince1970: 1_714_555_800)

    /// The walk as GPX 1.1, its first fix at `base`.
    public func gpx(start base: Date) -> String {
        let iso = ISO8601DateFormatter()
        func point(_ i: Int) -> String {
            let time = times.map { "<time>\(iso.string(from: base.addingTimeInterval($0[i])))</time>" } ?? ""
            return "<trkpt lat=\"\(points[i].lat)\" lon=\"\(points[i].lon)\">\(time)</trkpt>"
        }
        let half = points.count / 2
        let segments = [0..<half, half..<points.count].map { range in
            "<trkseg>\n" + range.map(point).joined(separator: "\n") + "\n</trkseg>"
        }
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="maptrip tests" xmlns="http://www.topografix.com/GPX/1/1">
        <trk><name>walk</name>
        \(segments.joined(separator: "\n"))
        </trk>
        </gpx>
        """
    }

    /// The point `km` along the walk, interpolated linearly between its fixes (the reference the
    /// timeline's vehicle is held to; steps of tens of metres make the difference to the great circle
    /// millimetres).
    public func point(atKm km: Double) -> LonLat {
        var done = 0.0
        for i in 1..<points.count {
            let step = Geodesy.distanceKm(points[i - 1], points[i])
            if done + step >= km, step > 0 { return Self.between(points[i - 1], points[i], (km - done) / step) }
            done += step
        }
        return points[points.count - 1]
    }

    /// The point at `seconds` since the first fix, interpolated linearly in time between fixes.
    public func point(atSeconds t: Double) -> LonLat {
        guard let times else { return points[0] }
        for i in 1..<points.count where times[i] >= t {
            let span = times[i] - times[i - 1]
            return Self.between(points[i - 1], points[i], span > 0 ? (t - times[i - 1]) / span : 1)
        }
        return points[points.count - 1]
    }

    /// The walk's length, km (haversine between fixes).
    public var lengthKm: Double {
        (1..<points.count).reduce(0) { $0 + Geodesy.distanceKm(points[$1 - 1], points[$1]) }
    }

    static func between(_ a: LonLat, _ b: LonLat, _ f: Double) -> LonLat {
        var dLon = b.lon - a.lon
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        return LonLat(lon: wrap(a.lon + f * dLon), lat: a.lat + f * (b.lat - a.lat))
    }
}
