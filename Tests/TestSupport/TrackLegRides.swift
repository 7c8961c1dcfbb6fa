import Foundation
import MapTripGeometry
import MapTripScene

extension RideFixture {
    /// Kilometres from the first fix to the last (haversine).
    public var lengthKm: Double {
        zip(walk.points, walk.points.dropFirst()).reduce(0) { $0 + Self.haversineKm($1.0, $1.1) }
    }

    /// The recorded seconds at which the ride has covered `km`, linear between fixes (the first of them
    /// where it stood).
    public func time(atKm km: Double) -> Double {
        let times = walk.times ?? walk.points.map { _ in 0 }
        var covered = [0.0]
        for k in walk.points.indices.dropFirst() { covered.append(covered[k - 1] + Self.haversineKm(walk.points[k - 1], walk.points[k])) }
        guard let k = covered.firstIndex(where: { $0 >= km }) else { return duration }
        guard k > 0, covered[k] > covered[k - 1] else { return times[k] }
        return times[k - 1] + (times[k] - times[k - 1]) * (km - covered[k - 1]) / (covered[k] - covered[k - 1])
    }

    /// The ride as a track leg's geometry, with its channels.
    public var geometry: TrackGeometry {
        var g = TrackGeometry(points: walk.points, times: walk.times, start: TrackFixture.start)
        g.altitudes = altitudes
        g.heartRates = heartRates
        g.cadences = cadences
        g.powers = powers
        return g
    }
}

/// A place trip with two track legs for the readouts' tests: Start (1 s), then `first` flown by the
/// recorded pace over 6 s of an 8-second slot, a plain leg (2 s of 3), and `second` flown by distance
/// over 5 s of 7; and what the readouts must say at each frame, computed here from the documented
/// shares (`Timeline.trackFlyShare`) and the rides' fixes.
public struct TrackLegRides: Sendable {
    public var first: RideFixture, second: RideFixture
    public static let dwells = [1.0, 8, 3, 7], flights = [0.0, 6, 2, 5]
    public static let flyShare = 0.2

    public init(seed: UInt64, start: LonLat = LonLat(lon: 24.94, lat: 60.17)) {
        first = RideFixture(seed: seed, count: 200, start: start)
        second = RideFixture(seed: seed ^ 0xbeef, count: 150, start: LonLat(lon: first.walk.points[199].lon + 0.01,
                                                                            lat: first.walk.points[199].lat))
    }

    /// Where the plain leg ends and the second ride begins.
    public var middle: LonLat { second.walk.points[0] }

    /// The scene in code.
    public func scene(fps: Int, readouts: [ReadoutItem]) -> Scene {
        var b = Place(name: "B", position: first.walk.points[first.walk.points.count - 1], dwell: Self.dwells[1], zoom: 13,
                      flight: Self.flights[1])
        b.track = TrackLeg(file: "first.gpx", pace: .recorded, geometry: first.geometry)
        let c = Place(name: "C", position: middle, dwell: Self.dwells[2], zoom: 13, flight: Self.flights[2])
        var d = Place(name: "D", position: second.walk.points[second.walk.points.count - 1], dwell: Self.dwells[3], zoom: 13,
                      flight: Self.flights[3])
        d.track = TrackLeg(file: "second.gpx", pace: .distance, geometry: second.geometry)
        var s = Scene(video: Video(width: 1280, height: 720, fps: fps),
                      places: [Place(name: "A", position: first.walk.points[0], dwell: Self.dwells[0], zoom: 13), b, c, d])
        s.vehicle = .icon(.bike)
        s.readouts = readouts
        return s
    }

    /// The scene as JSON, beside `first.gpx` and `second.gpx` (`files`).
    public func json(fps: Int, size: (Int, Int), readouts: [String]) -> String {
        let c = middle
        return """
            { "video": { "width": \(size.0), "height": \(size.1), "fps": \(fps) }, "vehicle": "bike",
              "readouts": [ \(readouts.map { "\"\($0)\"" }.joined(separator: ", ")) ],
              "places": [
                { "name": "A", "lat": \(first.walk.points[0].lat), "lon": \(first.walk.points[0].lon), "zoom": 13, "dwell": 1 },
                { "name": "B", "track": "first.gpx", "pace": "recorded", "zoom": 13, "flight": 6, "dwell": 8 },
                { "name": "C", "lat": \(c.lat), "lon": \(c.lon), "zoom": 13, "flight": 2, "dwell": 3 },
                { "name": "D", "track": "second.gpx", "zoom": 13, "flight": 5, "dwell": 7 } ] }
            """
    }

    public var files: [String: String] { ["first.gpx": first.gpx(), "second.gpx": second.gpx()] }

    /// The fraction of a track leg's run at frame n of a flight of `frames` from `start`.
    static func run(_ n: Int, start: Int, frames: Int) -> Double {
        let u = Double(n - start) / Double(frames)
        return min(max((u - flyShare) / (1 - 2 * flyShare), 0), 1)
    }

    /// What the readouts must say at frame n (nil: hidden, no track leg begun): the first ride at its
    /// recorded time, held after it; then the second at its distance, after the first's time and distance.
    public func expected(frame n: Int, fps: Int) -> RideFixture.Expected? {
        let starts = [0, 1, 9, 12].map { Int(Double($0) * Double(fps)) }
        let first1 = starts[1], arrive1 = starts[1] + 6 * fps, start2 = starts[3], arrive2 = start2 + 5 * fps
        if n < first1 { return nil }
        if n < start2 {
            var e = first.expected(at: n < arrive1 ? Self.run(n, start: first1, frames: 6 * fps) * first.duration : first.duration)
            if !Self.running(n, start: first1, frames: 6 * fps) { e.kmh = 0 }
            return e
        }
        let t = n < arrive2 ? second.time(atKm: Self.run(n, start: start2, frames: 5 * fps) * second.lengthKm) : second.duration
        var e = second.expected(at: t)
        e.elapsed += first.duration
        e.km += first.lengthKm
        if !Self.running(n, start: start2, frames: 5 * fps) { e.kmh = 0 }
        return e
    }

    /// Whether the vehicle runs its track at frame n of a flight of `frames` from `start` (it stands
    /// while the camera flies out and in, and at the places).
    static func running(_ n: Int, start: Int, frames: Int) -> Bool {
        let u = Double(n - start) / Double(frames)
        return u > flyShare && u < 1 - flyShare
    }
}
