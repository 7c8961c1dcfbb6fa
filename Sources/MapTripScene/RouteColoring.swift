import Foundation
import MapTripGeometry

/// How a scene writes the values it shows (`units`): kilometres, km/h and metres, or miles, mph and feet.
public enum Units: String, Equatable, Sendable, CaseIterable {
    case metric, imperial
}

/// The colour ramps a route coloured by a value runs through (`route.palette`), low to high.
public enum RoutePalette: String, Equatable, Sendable, CaseIterable {
    /// Dark blue through green to yellow (matplotlib's viridis): even in lightness, read in grey too.
    case viridis
    /// Black through purple and orange to pale yellow (matplotlib's magma).
    case magma
    /// Diverging: blue at the low end (descents), white in the middle (level), red at the high end
    /// (climbs) (ColorBrewer's RdBu, turned round).
    case redBlue

    /// Its colours at even steps from 0 to 1.
    public var stops: [Color] {
        let hex: [String]
        switch self {
        case .viridis:
            hex = ["#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725"]
        case .magma:
            hex = ["#000004", "#180f3d", "#440f76", "#721f81", "#9e2f7f", "#cd4071", "#f1605d", "#fd9668", "#feca8d", "#fcfdbf"]
        case .redBlue:
            hex = ["#053061", "#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7", "#fddbc7", "#f4a582", "#d6604d", "#b2182b", "#67001f"]
        }
        return hex.compactMap(Color.init(hex:))
    }

    /// The colour at f (clamped to 0...1), interpolated between the two stops either side.
    public func color(at f: Double) -> Color {
        let stops = self.stops
        let x = (f.isNaN ? 0 : min(max(f, 0), 1)) * Double(stops.count - 1)
        let i = min(Int(x), stops.count - 2)
        return stops[i].mixed(with: stops[i + 1], x - Double(i))
    }
}

/// A route line coloured by a value of its recording (`route.colorBy`): each stretch in the palette's
/// colour for the value there, within a range (the scene's, or the recording's own from its 2nd to
/// its 98th percentile, so that a GPS spike does not wash the rest out). The colours come in
/// `buckets` steps, so that a line is stroked once per step, not once per point.
public struct RouteColoring: Equatable, Sendable {
    public enum Quantity: String, Equatable, Sendable, CaseIterable {
        /// Ground speed from the positions and times, averaged over `speedWindow` seconds of recording.
        case speed
        /// Height above sea level, as recorded.
        case elevation
        /// The slope in percent, over `gradientWindow` metres of track.
        case gradient

        /// The unit its values are in, under `units`.
        public func unit(_ units: Units) -> String {
            switch self {
            case .speed: units == .metric ? "km/h" : "mph"
            case .elevation: units == .metric ? "m" : "ft"
            case .gradient: "%"
            }
        }
    }

    /// Seconds of recording a point's speed is averaged over (GPS positions wander by metres).
    public static let speedWindow = 30.0
    /// Metres of track a point's gradient is measured over (recorded heights wander by metres).
    public static let gradientWindow = 100.0
    /// The colour steps between the range's ends.
    public static let buckets = 64

    public var by: Quantity
    public var palette: RoutePalette
    /// The values at the palette's ends, in the scene's units (nil: the recording's own).
    public var range: ClosedRange<Double>?

    public init(by: Quantity, palette: RoutePalette? = nil, range: ClosedRange<Double>? = nil) {
        self.by = by
        self.palette = palette ?? (by == .gradient ? .redBlue : .viridis)
        self.range = range
    }

    /// What a recording lacks for this value, in words (nil: it has what it needs).
    public func missing(in track: TrackGeometry) -> String? {
        switch by {
        case .speed: track.times == nil ? "a time at every point" : nil
        case .elevation, .gradient: track.heights == nil ? "altitudes" : nil
        }
    }

    /// The value at each point of `track`, in `units`; nil where the track lacks what it needs.
    public func values(_ track: TrackGeometry, units: Units) -> [Double]? {
        let metres = Self.cumulativeMetres(track.points)
        switch by {
        case .speed:
            guard let times = track.times, let first = times.first, let last = times.last else { return nil }
            let factor = units == .metric ? 3.6 : 3.6 / 1.609344
            return times.map { t in
                let lo = max(first, t - Self.speedWindow / 2), hi = min(last, t + Self.speedWindow / 2)
                guard hi > lo else { return 0 }
                return (Self.interpolate(times, metres, hi) - Self.interpolate(times, metres, lo)) / (hi - lo) * factor
            }
        case .elevation:
            guard let altitudes = track.heights else { return nil }
            return units == .metric ? altitudes : altitudes.map { $0 / 0.3048 }
        case .gradient:
            guard let altitudes = track.heights, let total = metres.last else { return nil }
            return metres.map { s in
                let lo = max(0, s - Self.gradientWindow / 2), hi = min(total, s + Self.gradientWindow / 2)
                guard hi > lo else { return 0 }
                return (Self.interpolate(metres, altitudes, hi) - Self.interpolate(metres, altitudes, lo)) / (hi - lo) * 100
            }
        }
    }

    /// The range the palette spans for `values`: the scene's, or from the 2nd to the 98th percentile
    /// (a gradient's made even about 0, so that level ground takes the palette's middle); never empty.
    public func range(for values: [Double]) -> ClosedRange<Double> {
        if let range { return range }
        let sorted = values.filter(\.isFinite).sorted()
        guard !sorted.isEmpty else { return 0...1 }
        func percentile(_ q: Double) -> Double { sorted[Int((Double(sorted.count - 1) * q).rounded())] }
        var lo = percentile(0.02), hi = percentile(0.98)
        if by == .gradient {
            let m = max(abs(lo), abs(hi))
            (lo, hi) = (-m, m)
        }
        if hi - lo < 1e-9 { (lo, hi) = (lo - 1, hi + 1) }
        return lo...hi
    }

    /// The step a value falls in, 0 ..< buckets (clamped at the range's ends).
    public static func bucket(_ value: Double, in range: ClosedRange<Double>) -> Int {
        let f = (value - range.lowerBound) / (range.upperBound - range.lowerBound)
        guard f.isFinite else { return 0 }
        return min(max(Int(f * Double(buckets)), 0), buckets - 1)
    }

    /// The colour a step is drawn in: the palette at its middle.
    public func color(bucket: Int) -> Color {
        palette.color(at: (Double(bucket) + 0.5) / Double(Self.buckets))
    }

    /// The colour a value is drawn in (its step's).
    public func color(for value: Double, in range: ClosedRange<Double>) -> Color {
        color(bucket: Self.bucket(value, in: range))
    }

    /// Metres along the points from the first, one per point (haversine).
    static func cumulativeMetres(_ points: [LonLat]) -> [Double] {
        var out = [0.0]
        out.reserveCapacity(points.count)
        for k in points.indices.dropFirst() { out.append(out[k - 1] + Geodesy.distanceKm(points[k - 1], points[k]) * 1000) }
        return out
    }

    /// y at x, linearly between the samples either side (xs never decreasing; held at the ends).
    static func interpolate(_ xs: [Double], _ ys: [Double], _ x: Double) -> Double {
        guard let first = xs.first, let last = xs.last, x > first else { return ys[0] }
        guard x < last else { return ys[ys.count - 1] }
        var lo = 0, hi = xs.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if xs[mid] <= x { lo = mid } else { hi = mid }
        }
        let span = xs[hi] - xs[lo]
        return span > 0 ? ys[lo] + (ys[hi] - ys[lo]) * (x - xs[lo]) / span : ys[hi]
    }
}

/// An earlier recording drawn faintly under everything from the first frame (`backgroundTracks`).
public struct BackgroundTrack: Equatable, Sendable {
    public var file: String
    public var geometry: TrackGeometry

    public init(file: String, geometry: TrackGeometry) {
        self.file = file
        self.geometry = geometry
    }
}

extension TrackGeometry {
    /// Per-point values with the missing ones filled in: linearly between the known ones either side,
    /// held beyond the first and the last; nil when none is known.
    public static func filled(_ values: [Double?]) -> [Double]? {
        let known = values.indices.filter { values[$0]?.isFinite == true }
        guard let firstKnown = known.first, let lastKnown = known.last else { return nil }
        var out = [Double](repeating: values[firstKnown]!, count: values.count)
        for k in values.indices where k > lastKnown { out[k] = values[lastKnown]! }
        for (a, b) in zip(known, known.dropFirst()) {
            let va = values[a]!, vb = values[b]!
            for k in a...b { out[k] = va + (vb - va) * Double(k - a) / Double(b - a) }
        }
        return out
    }
}
