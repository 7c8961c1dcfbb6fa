import Foundation

/// One live value a playback shows on its readout panel (`readouts`), of one mover: the one the camera
/// follows (`camera.follow`), else the first track.
public enum ReadoutItem: String, Equatable, Sendable, CaseIterable {
    /// Ground speed from the positions, averaged over `ReadoutItem.speedWindow` seconds of recording.
    case speed
    /// Height above sea level, as recorded.
    case altitude
    /// Distance covered since the track's first fix.
    case distance
    /// Recorded time since the track's first fix.
    case elapsed
    /// Sensor values as recorded (FIT, TCX, GPX extensions).
    case heartRate, cadence, power
    /// The whole track's elevation profile, the part travelled highlighted, a mark at the mover.
    case profile

    /// Seconds of recording the speed is averaged over (centred on the frame's recorded time): the same
    /// value at the same recorded time whatever the frame rate or playback speed.
    public static let speedWindow = 10.0

    /// The label on the panel.
    public var label: String {
        switch self {
        case .speed: return "SPEED"
        case .altitude: return "ALTITUDE"
        case .distance: return "DISTANCE"
        case .elapsed: return "TIME"
        case .heartRate: return "HEART RATE"
        case .cadence: return "CADENCE"
        case .power: return "POWER"
        case .profile: return "ELEVATION"
        }
    }

    /// Whether the track has what the item shows (positions and times always; a channel when a point has it).
    public func isRecorded(in geometry: TrackGeometry) -> Bool {
        channel(of: geometry).map { $0.contains { $0 != nil } } ?? true
    }

    /// The recorded channel an item needs beside positions and times (nil: none).
    public func channel(of geometry: TrackGeometry) -> [Double?]? {
        switch self {
        case .altitude, .profile: return geometry.altitudes
        case .heartRate: return geometry.heartRates
        case .cadence: return geometry.cadences
        case .power: return geometry.powers
        case .speed, .distance, .elapsed: return nil
        }
    }
}

extension Scene {
    /// The track whose values the readouts show: the one they name (`readouts.mover`), else the one the
    /// camera follows, else the first.
    public var readoutTrack: Int { readoutMover ?? camera?.follow ?? 0 }

    /// The places whose legs follow a recording (`places[i].track`), in order: on a place trip, the
    /// readouts measure these legs, joined.
    public var trackLegs: [Int] { places.indices.filter { $0 > 0 && places[$0].track != nil } }

    /// The recordings the readouts measure: the measured playback track, else a place trip's track legs.
    public var readoutGeometries: [TrackGeometry] {
        if isPlayback { return tracks.indices.contains(readoutTrack) ? [tracks[readoutTrack].geometry] : [] }
        return trackLegs.compactMap { places[$0].track?.geometry }
    }

    /// The readouts drawn: those whose data the measured track has (on a place trip, any of its track legs).
    public var shownReadouts: [ReadoutItem] {
        let geometries = readoutGeometries
        return readouts.filter { item in geometries.contains { item.isRecorded(in: $0) } }
    }
}
