import Foundation
import MapTripGeometry
import MapTripSupport

/// One fix of a recording: where (WGS 84 degrees), and what the device knew there. Every value but
/// the position may be missing (a route drawn on a map has no times; a phone records no heart rate).
public struct TrackPoint: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    public var time: Date?
    /// Metres above sea level.
    public var altitude: Double?
    /// Metres per second, as the device measured it (not derived from the positions).
    public var speed: Double?
    /// Beats per minute.
    public var heartRate: Int?
    /// Revolutions (or, running, steps of one foot) per minute.
    public var cadence: Int?
    /// Watts.
    public var power: Int?

    public var lonLat: LonLat { LonLat(lon: longitude, lat: latitude) }
}

/// A named place in a track file (GPX `wpt`, TCX `CoursePoint`, a KML or GeoJSON point).
public struct Waypoint: Sendable, Equatable {
    public var name: String?
    public var latitude: Double
    public var longitude: Double
    public var time: Date?
    public var altitude: Double?

    public init(name: String? = nil, latitude: Double, longitude: Double, time: Date? = nil, altitude: Double? = nil) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.time = time
        self.altitude = altitude
    }
}

/// The file formats maptrip reads tracks from, recognised by their content.
public enum TrackFormat: String, Sendable, Equatable, CaseIterable {
    case gpx = "GPX", tcx = "TCX", fit = "FIT", kml = "KML", kmz = "KMZ", geoJSON = "GeoJSON"
}

/// A recording read and checked: segments of points in the file's order (a GPX `trkseg`, a TCX
/// `Track`, a KML `LineString`, a FIT file's stretches between timer stops), each at least one point,
/// every point finite, in range, not a repeat of the one before, never earlier than it, never reached
/// faster than 1,000 km/h.
public struct Track: Sendable, Equatable {
    public var name: String?
    public var format: TrackFormat
    public var segments: [[TrackPoint]]
    public var waypoints: [Waypoint]
    /// The offset from UTC of the clock the recording was made by (seconds east), where the file says:
    /// a FIT activity's local time, or a GPX, TCX or KML time written with an offset (`+02:00`; not `Z`).
    public var utcOffset: Int?

    public init(name: String? = nil, format: TrackFormat, segments: [[TrackPoint]], waypoints: [Waypoint] = []) {
        self.name = name
        self.format = format
        self.segments = segments
        self.waypoints = waypoints
    }

    /// Every point, segment after segment.
    public var points: [TrackPoint] { segments.flatMap { $0 } }
}

/// Where in a track file something is: a line and column (XML, JSON), or a FIT record's index
/// (every definition and data message counts, from 0).
public struct TrackLocation: Sendable, Equatable {
    public var line: Int?
    public var column: Int?
    public var record: Int?

    public init(line: Int? = nil, column: Int? = nil, record: Int? = nil) {
        self.line = line
        self.column = column
        self.record = record
    }

    public static let none = TrackLocation()

    /// `record 12`, for a diagnostic's path (FIT has no lines).
    var recordPath: String? { record.map { "record \($0)" } }
}

/// Something odd in the data that maptrip read past: the points at fault were dropped (or, for
/// `ignored`, a part of the file was skipped). One warning per kind and segment, with how many points
/// it dropped and where the first one is.
public struct TrackWarning: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// A latitude or longitude that is NaN, infinite or out of range.
        case invalidPosition
        /// A point reached from the one before faster than 1,000 km/h.
        case jump
        /// The same position (and time) as the point before.
        case duplicate
        /// A time earlier than the point before's.
        case timeBackwards
        /// A part of the file maptrip does not read (a polygon, times that do not match the positions...).
        case ignored
    }

    public var kind: Kind
    public var message: String
    /// Points dropped (0 for `ignored`).
    public var count: Int
    /// Where the first of them is.
    public var location: TrackLocation

    public init(kind: Kind, message: String, count: Int = 0, location: TrackLocation = .none) {
        self.kind = kind
        self.message = message
        self.count = count
        self.location = location
    }

    public func diagnostic(file: String?) -> Diagnostic {
        Diagnostic(.warning, message: message, file: file, line: location.line, column: location.line == nil ? nil : location.column,
                   path: location.recordPath)
    }

    public var description: String { diagnostic(file: nil).description }
}

/// What `TrackFile.read` gives: the checked track and what was dropped on the way.
public struct TrackReading: Sendable, Equatable {
    public var track: Track
    public var warnings: [TrackWarning]
    /// The file's name as given to the reader (for the warnings' diagnostics).
    public var file: String

    public init(track: Track, warnings: [TrackWarning], file: String) {
        self.track = track
        self.warnings = warnings
        self.file = file
    }

    /// The warnings as maptrip prints them.
    public var diagnostics: [Diagnostic] { warnings.map { $0.diagnostic(file: file) } }
}
