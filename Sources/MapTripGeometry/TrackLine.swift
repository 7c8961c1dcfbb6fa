import Foundation

/// What a leg that follows a recording needs of its line beyond drawing it: where the vehicle is by the
/// recording's clock, which way it faces without GPS noise turning it, and the ground it covers.
extension RouteLine {
    /// The fraction of the length reached at fraction `f` (clamped to 0...1) of the recorded time, the
    /// distance interpolated linearly in time between fixes (a pause holds it); nil without times. A
    /// recording whose times do not advance is taken at an even pace.
    public func fraction(atTimeFraction f: Double) -> Double? {
        guard let times, let first = times.first, let last = times.last else { return nil }
        let f = f.isNaN ? 0 : min(max(f, 0), 1)
        guard last > first, lengthKm > 0 else { return f }
        let t = first + f * (last - first)
        // The last fix at or before t.
        var lo = 0, hi = times.count - 2
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if times[mid] <= t { lo = mid } else { hi = mid - 1 }
        }
        let span = times[lo + 1] - times[lo]
        let share = span > 0 ? min(max((t - times[lo]) / span, 0), 1) : 1
        let km = cumulativeKm[lo] + share * (cumulativeKm[lo + 1] - cumulativeKm[lo])
        return min(max(km / lengthKm, 0), 1)
    }

    /// Kilometres either side of a point that `smoothedHeading` looks along: a 20th of a kilometre or a
    /// hundredth of the line, whichever is longer (GPS wanders by metres).
    public var headingWindowKm: Double { max(0.05, lengthKm / 100) }

    /// The direction of travel at fraction f (degrees clockwise from north), smoothed: the bearing from
    /// the point `windowKm` behind to the point `windowKm` ahead (each clamped to the line), so that
    /// noise in a recording does not turn the vehicle from frame to frame. The segment's own heading
    /// where both are the same point.
    public func smoothedHeading(at f: Double, windowKm: Double) -> Double {
        let length = lengthKm
        guard length > 0 else { return point(at: f).heading }
        let s = (f.isNaN ? 0 : min(max(f, 0), 1)) * length
        let behind = point(at: max(0, s - windowKm) / length).position
        let ahead = point(at: min(length, s + windowKm) / length).position
        return behind == ahead ? point(at: f).heading : Geodesy.initialBearing(behind, ahead)
    }

    /// The line's bounds in the unit Web Mercator world (x unwrapped, as the points' longitudes are;
    /// latitudes clamped to the map's), with `extra` positions brought within 180 degrees of its start.
    public func worldBounds(including extra: [LonLat] = []) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let start = points[0].lon
        let all = points + extra.map { LonLat(lon: Self.unwrapped($0.lon, near: start), lat: $0.lat) }
        var box = (minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)
        for p in all {
            let w = WebMercator.project(p)
            box = (min(box.minX, w.x), min(box.minY, w.y), max(box.maxX, w.x), max(box.maxY, w.y))
        }
        return box
    }
}
