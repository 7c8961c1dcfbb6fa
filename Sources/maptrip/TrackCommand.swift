import ArgumentParser
import Foundation
import MapTripGeometry
import MapTripSupport
import MapTripTracks

/// `maptrip track`: what maptrip reads from recorded tracks (not yet drawn: scenes do not name
/// tracks yet): format, name, segments, points, waypoints, time span and length, the warnings of
/// the points dropped, and each file's error.
struct TrackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "track",
        abstract: "Read recorded tracks (GPX, TCX, FIT, KML, KMZ, GeoJSON) and describe them.",
        discussion: """
            The format is recognised by the file's content. Points that are not a number, repeat the \
            one before, go back in time or jump faster than 1000 km/h are dropped with a warning. A \
            file that cannot be read gets one error line (file:line:column, or file: record N for FIT); \
            the others are still described, and the exit status is 1.
            """)

    @Argument(help: "The track files.")
    var files: [String]

    func run() throws {
        var failed = false
        for file in files {
            do {
                let reading = try TrackFile.read(contentsOf: URL(fileURLWithPath: file))
                printDiagnostics(reading.diagnostics)
                print(Self.summary(reading))
            } catch {
                failed = true
                _ = fail(error)
            }
        }
        if failed { throw ExitCode.failure }
    }

    /// `ride.gpx: GPX "Morning ride", 2 segments, 1204 points, 3 waypoints, 2024-05-01T09:30:00Z to
    /// 2024-05-01T11:02:13Z, 41.3 km`.
    static func summary(_ reading: TrackReading) -> String {
        let t = reading.track
        var parts = [t.format.rawValue + (t.name.map { " \"\(Wording.excerpt($0, limit: 80))\"" } ?? "")]
        parts.append(t.segments.count == 1 ? "1 segment" : "\(t.segments.count) segments")
        let points = t.segments.reduce(0) { $0 + $1.count }
        parts.append(points == 1 ? "1 point" : "\(points) points")
        if !t.waypoints.isEmpty { parts.append(t.waypoints.count == 1 ? "1 waypoint" : "\(t.waypoints.count) waypoints") }
        let times = t.segments.flatMap { $0.compactMap(\.time) }
        if let first = times.min(), let last = times.max() {
            let f = ISO8601DateFormatter()
            parts.append("\(f.string(from: first)) to \(f.string(from: last))")
        }
        let km = t.segments.reduce(0.0) { sum, s in
            zip(s, s.dropFirst()).reduce(sum) { $0 + Geodesy.distanceKm($1.0.lonLat, $1.1.lonLat) }
        }
        parts.append(String(format: "%.1f km", km))
        return reading.file + ": " + parts.joined(separator: ", ")
    }
}
