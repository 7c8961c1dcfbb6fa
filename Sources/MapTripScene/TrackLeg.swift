import Foundation
import MapTripGeometry

/// A recording as the scene carries it: plain positions (and times), read once by the loader through
/// a `TrackChecking` reader, so that the timeline and the renderer never read files.
public struct TrackGeometry: Equatable, Sendable {
    /// Every point of the recording, its segments joined in order (at least one).
    public var points: [LonLat]
    /// Seconds since the first point, one per point, never decreasing; nil unless every point has a time.
    public var times: [Double]?
    /// When the first point was recorded, when it says (the clock a playback shows).
    public var start: Date?
    /// The recording's own offset from UTC (seconds east), where its file states one: a playback's
    /// clock reads in it.
    public var utcOffset: Int?
    /// What the device recorded beside each position (one per point, nil where a point has none; empty
    /// when no point has it): metres above sea level, beats and revolutions per minute, watts. The
    /// playback's readouts (`Scene.readouts`) show them.
    public var altitudes: [Double?] = []
    public var heartRates: [Double?] = []
    public var cadences: [Double?] = []
    public var powers: [Double?] = []
    /// The named places the file marks (GPX `wpt`, TCX `CoursePoint`, KML and GeoJSON points): a
    /// playback whose scene lists no places pins them as its stops.
    public var waypoints: [TrackWaypoint] = []

    public init(points: [LonLat], times: [Double]? = nil, start: Date? = nil, altitudes: [Double?] = []) {
        self.points = points
        self.times = times
        self.start = start
        self.altitudes = altitudes.count == points.count && altitudes.contains { $0 != nil } ? altitudes : []
    }

    /// Metres above sea level, one per point (a point the file gives none taken from its neighbours);
    /// nil when no point has one (the route coloured by elevation or gradient draws these).
    public var heights: [Double]? { altitudes.isEmpty ? nil : Self.filled(altitudes) }

    /// The great-circle length of the recording, km.
    public var lengthKm: Double {
        zip(points, points.dropFirst()).reduce(0) { $0 + Geodesy.distanceKm($1.0, $1.1) }
    }
}

/// A named place a track file marks (a GPX `wpt`): its name, when the file gives one, and position.
public struct TrackWaypoint: Equatable, Sendable {
    public var name: String?
    public var position: LonLat

    public init(name: String?, position: LonLat) {
        self.name = name
        self.position = position
    }
}

/// A leg that follows a recording (`places[i].track`): the file as the scene names it, how the
/// vehicle keeps pace along it, and its geometry.
public struct TrackLeg: Equatable, Sendable {
    public enum Pace: String, Equatable, Sendable, CaseIterable {
        /// An even speed along the track's length.
        case distance
        /// The recording's own clock, squeezed into the flight.
        case recorded
    }

    public var file: String
    public var pace: Pace
    public var geometry: TrackGeometry

    public init(file: String, pace: Pace = .distance, geometry: TrackGeometry) {
        self.file = file
        self.pace = pace
        self.geometry = geometry
    }
}

/// Reads a recorded track a place's leg follows (`places[i].track`), so that `validate` and a render's
/// start say what is wrong with it where the scene names it (each message says where in the track file),
/// and the scene carries its geometry. Adopted outside the pure modules (the reader uses libxml2).
public protocol TrackChecking: Sendable {
    func read(_ url: URL) -> (track: TrackGeometry?, errors: [(message: String, hint: String?)],
                              warnings: [(message: String, hint: String?)])
    /// A photo's EXIF (`photos`: when and where it was taken along the recordings), or why it cannot be read.
    func readPhoto(_ url: URL) -> Result<PhotoMetadata, PhotoReadError>
}
