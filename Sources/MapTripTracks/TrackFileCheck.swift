import Exif
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripSupport

/// A track a place's leg follows (`places[i].track`), read as `validate` and a render's start read it:
/// a file that does not read is an error, its warnings (points dropped) are passed on; each says where
/// in the track file (`track ride.gpx:12:7: ...`). The scene gets the points (segments joined in order)
/// and, when every point has one, their times in seconds from the first.
public struct TrackFileCheck: TrackChecking {
    public init() {}

    public func read(_ url: URL) -> (track: TrackGeometry?, errors: [(message: String, hint: String?)],
                                     warnings: [(message: String, hint: String?)]) {
        /// `track ride.gpx:12:7: message`, the hint apart.
        func said(_ d: Diagnostic) -> (message: String, hint: String?) {
            var bare = d
            bare.hint = nil
            return ("track " + bare.description, d.hint)
        }
        let reading: TrackReading
        do {
            reading = try TrackFile.read(contentsOf: url)
        } catch {
            return (nil, error.diagnostics.map(said), [])
        }
        let points = reading.track.points
        guard let first = points.first else {
            let waypoints = reading.track.waypoints.count
            guard waypoints > 0 else {
                return (nil, [("track \(reading.file): the recording has no points", "is this the right file?")], [])
            }
            // A file of waypoints only (a GPX of wpt) has places but no line to follow or play back.
            return (nil, [("track \(reading.file): the file has \(waypoints) waypoint\(waypoints == 1 ? "" : "s") but no track points, "
                           + "and a track needs a line to follow",
                           "export the recording with its trk or rte, or list the waypoints as \"places\" of the scene")], [])
        }
        let stamps = points.compactMap(\.time)
        let times = stamps.count == points.count ? stamps.map { $0.timeIntervalSince(stamps[0]) } : nil
        var geometry = TrackGeometry(points: points.map(\.lonLat), times: times, start: times == nil ? nil : stamps[0])
        /// One value per point, or none when no point has one.
        func channel(_ value: (TrackPoint) -> Double?) -> [Double?] {
            let values = points.map(value)
            return values.contains { $0 != nil } ? values : []
        }
        geometry.utcOffset = reading.track.utcOffset
        geometry.altitudes = channel(\.altitude)
        geometry.heartRates = channel { $0.heartRate.map(Double.init) }
        geometry.cadences = channel { $0.cadence.map(Double.init) }
        geometry.powers = channel { $0.power.map(Double.init) }
        geometry.waypoints = reading.track.waypoints.map {
            TrackWaypoint(name: $0.name?.trimmingCharacters(in: .whitespacesAndNewlines), position: LonLat(lon: $0.longitude, lat: $0.latitude))
        }
        return (geometry, [], reading.diagnostics.map(said))
    }

    /// A photo's EXIF through libexif: DateTimeOriginal (with OffsetTimeOriginal) and the GPS position.
    /// A picture with no EXIF block has none of them (the loader warns); a broken block is an error.
    public func readPhoto(_ url: URL) -> Result<PhotoMetadata, PhotoReadError> {
        do {
            let exif = try ExifRecord(contentsOf: url)
            let time = exif.dateTimeOriginal.flatMap { PhotoTime.parse($0, offset: exif.offsetTimeOriginal) }
            return .success(PhotoMetadata(wallClock: time?.wallClock, offset: time?.offset,
                                          position: exif.position.map { LonLat(lon: $0.lon, lat: $0.lat) },
                                          orientation: exif.orientation ?? 1, camera: exif.model))
        } catch where error.absent {
            return .success(PhotoMetadata())
        } catch {
            return .failure(PhotoReadError(message: error.message))
        }
    }
}

/// A photo's EXIF time: DateTimeOriginal ("2024:06:08 10:03:09", the camera's wall clock) read as if on
/// UTC, and OffsetTimeOriginal ("+03:00") when it is one, as track times are read (`ISOTime`).
enum PhotoTime {
    static func parse(_ dateTime: String, offset: String?) -> (wallClock: Double, offset: Int?)? {
        // "2024:06:08 10:03:09": the date's colons as ISO 8601's dashes.
        let parts = dateTime.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let iso = parts[0].replacingOccurrences(of: ":", with: "-") + " " + parts[1]
        guard let wall = ISOTime.parse(Substring(iso))?.timeIntervalSince1970 else { return nil }
        guard let offset, let utc = ISOTime.parse(Substring(iso + offset))?.timeIntervalSince1970 else { return (wall, nil) }
        return (wall, Int((wall - utc).rounded()))
    }
}
