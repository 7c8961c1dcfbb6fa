import Foundation
import MapTripGeometry

/// Photos placed along a playback's recording (`photos`): each JPEG of a folder where the followed
/// mover was when it was taken (its EXIF time) or where it was taken (its EXIF GPS position), shown as
/// a card for `hold` seconds as the mover passes.
public struct TrackPhotos: Equatable, Sendable {
    public enum Placing: String, Equatable, Sendable, CaseIterable {
        /// At the mover's position at the photo's EXIF time (plus `timeOffset`).
        case time
        /// At the point of the track nearest its EXIF GPS position.
        case position
    }

    public static let defaultHold = 2.5
    /// Metres from the track beyond which a photo placed by position is left out (a warning).
    public static let farMetres = 500.0

    /// One photo on the track: its file (relative to the scene's folder), the moment the mover passes it
    /// (seconds since 1970, UTC, the recording's clock) and where.
    public struct Photo: Equatable, Sendable {
        public var file: String
        public var time: Double
        public var position: LonLat
        /// EXIF Orientation (1...8; 1: upright as stored): the card shows it turned upright.
        public var orientation: Int

        public init(file: String, time: Double, position: LonLat, orientation: Int = 1) {
            self.file = file
            self.time = time
            self.position = position
            self.orientation = orientation
        }
    }

    /// A camera's clock correction (`photos.cameras`): seconds added to the time of every photo whose
    /// EXIF Model is `model`, after the photo's own offset from UTC, whether it states one or not.
    public struct Camera: Equatable, Sendable {
        public var model: String
        public var timeOffset: Double

        public init(model: String, timeOffset: Double) {
            self.model = model
            self.timeOffset = timeOffset
        }

        /// Whether a photo's EXIF Model names this camera (case and surrounding spaces aside).
        public func matches(_ camera: String?) -> Bool {
            guard let camera else { return false }
            return camera.trimmingCharacters(in: .whitespaces).caseInsensitiveCompare(model.trimmingCharacters(in: .whitespaces))
                == .orderedSame
        }
    }

    public var folder: String
    public var placing: Placing
    /// Seconds added to the EXIF time of each photo that states no offset from UTC (OffsetTimeOriginal)
    /// and whose camera is not in `cameras`: a clock that was wrong or on local time.
    public var timeOffset: Double
    /// Clock corrections by camera (EXIF Model), which win over `timeOffset` for their photos.
    public var cameras: [Camera] = []
    /// The track (`tracks[i]`) the photos are placed on.
    public var track: Int
    /// Seconds of video each card shows.
    public var hold: Double
    /// The photos placed, by the time the mover passes them (files sorted by name first).
    public var photos: [Photo]

    public init(folder: String, placing: Placing = .time, timeOffset: Double = 0, track: Int = 0,
                hold: Double = TrackPhotos.defaultHold, photos: [Photo] = []) {
        self.folder = folder
        self.placing = placing
        self.timeOffset = timeOffset
        self.track = track
        self.hold = hold
        self.photos = photos
    }

    /// The moment a photo was taken on the recording's clock (seconds since 1970, UTC), corrected once:
    /// by its camera's correction where `cameras` names it (after the photo's own offset from UTC), else
    /// by the offset from UTC it states (OffsetTimeOriginal), else by `timeOffset`. Nil without a time.
    public func time(of photo: PhotoMetadata) -> Double? {
        guard let taken = photo.utc else { return nil }
        if let camera = cameras.first(where: { $0.matches(photo.camera) }) { return taken + camera.timeOffset }
        return taken + (photo.offset == nil ? timeOffset : 0)
    }

    /// Where a recording is at `time` (seconds since 1970): between its fixes, on a straight line;
    /// nil outside its span or without times.
    public static func position(of track: TrackGeometry, at time: Double) -> LonLat? {
        guard let start = track.start?.timeIntervalSince1970, let times = track.times, !times.isEmpty else { return nil }
        let t = time - start
        guard t >= 0, t <= times[times.count - 1] else { return nil }
        // The last fix at or before t.
        var lo = 0, hi = times.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if times[mid] <= t { lo = mid } else { hi = mid - 1 }
        }
        guard lo + 1 < times.count, times[lo + 1] > times[lo] else { return track.points[lo] }
        let f = (t - times[lo]) / (times[lo + 1] - times[lo])
        return Geodesy.interpolate(track.points[lo], track.points[lo + 1], fraction: f)
    }

    /// A moment as "2024-06-01T12:00:00Z" (seconds since 1970, UTC), for messages.
    public static func utcText(_ t: Double) -> String {
        let f = ISO8601DateFormatter()
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: Date(timeIntervalSince1970: t.rounded()))
    }

    /// The recording's fix nearest `point`: its index and the distance, metres.
    public static func nearest(in track: TrackGeometry, to point: LonLat) -> (index: Int, metres: Double) {
        var best = (index: 0, metres: Double.infinity)
        for (i, p) in track.points.enumerated() {
            let d = Geodesy.distanceKm(p, point) * 1000
            if d < best.metres { best = (i, d) }
        }
        return best
    }
}

/// What a photo's EXIF says (read outside the pure modules: `PhotoChecking`).
public struct PhotoMetadata: Equatable, Sendable {
    /// DateTimeOriginal as if on UTC (seconds since 1970), and OffsetTimeOriginal (seconds east) when given.
    public var wallClock: Double?
    public var offset: Int?
    public var position: LonLat?
    /// EXIF Orientation (1...8), 1 when absent.
    public var orientation: Int
    /// EXIF Model: the camera's model name (nil: absent or empty).
    public var camera: String?

    public init(wallClock: Double? = nil, offset: Int? = nil, position: LonLat? = nil, orientation: Int = 1,
                camera: String? = nil) {
        self.wallClock = wallClock
        self.offset = offset
        self.position = position
        self.orientation = (1...8).contains(orientation) ? orientation : 1
        self.camera = camera?.isEmpty == false ? camera : nil
    }

    /// The moment taken, UTC: the wall clock less the offset the file gives (none: the clock read as UTC).
    public var utc: Double? { wallClock.map { $0 - Double(offset ?? 0) } }
}

/// Why a photo's EXIF cannot be read (libexif's message).
public struct PhotoReadError: Error, Equatable, Sendable {
    public var message: String
    public init(message: String) { self.message = message }
}
