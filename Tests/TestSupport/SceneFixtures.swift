import Foundation
import Testing
@testable import MapTripCore

/// The first problem decoding `json` finds (records an issue and returns nil if it succeeds).
func decodeError(_ json: String, file: String = "trip.json",
                 sourceLocation: SourceLocation = #_sourceLocation) -> SceneError? {
    decodeErrors(json, file: file, sourceLocation: sourceLocation).first
}

/// Every problem decoding `json` finds, in document order.
func decodeErrors(_ json: String, file: String = "trip.json",
                  sourceLocation: SourceLocation = #_sourceLocation) -> [SceneError] {
    do {
        _ = try SceneLoader.decode(Data(json.utf8), file: file)
        Issue.record("expected an error, but the scene decoded", sourceLocation: sourceLocation)
    } catch let error as SceneErrors {
        return error.errors
    } catch {
        Issue.record("expected SceneErrors, got \(error)", sourceLocation: sourceLocation)
    }
    return []
}

/// The `SceneError` that parsing `json` throws.
func parseError(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> SceneError? {
    do {
        _ = try JSONParser.parse(bytes, file: "doc.json")
        Issue.record("expected a parse error", sourceLocation: sourceLocation)
    } catch let error as SceneError {
        return error
    } catch {
        Issue.record("expected a SceneError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

func parseError(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> SceneError? {
    parseError(Array(json.utf8), sourceLocation: sourceLocation)
}

/// 1-based line and column (in Unicode scalars) of the `occurrence`-th appearance of `needle`.
func position(of needle: String, in text: String, occurrence: Int = 1) -> SourcePosition? {
    var searchStart = text.startIndex
    var found: Range<String.Index>?
    for _ in 0..<occurrence {
        guard let r = text.range(of: needle, range: searchStart..<text.endIndex) else { return nil }
        found = r
        searchStart = r.upperBound
    }
    guard let found else { return nil }
    var line = 1, column = 1
    for scalar in text[..<found.lowerBound].unicodeScalars {
        if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
    }
    return SourcePosition(line: line, column: column)
}

func scene(places: [Place], title: String? = nil, dwell: Double = Scene.defaultDwell,
           flight: Double = Scene.defaultFlight, fps: Int = 30) -> Scene {
    Scene(title: title, dwell: dwell, flight: flight, video: Video(fps: fps), places: places)
}

/// Places on a line of longitudes, each with the given dwell.
func places(_ count: Int, dwell: Double, flight: Double? = nil) -> [Place] {
    (0..<count).map { i in
        Place(name: "P\(i + 1)", position: LonLat(lon: Double(i % 360) - 179.5, lat: Double(i % 120) / 2 - 30),
              dwell: dwell, zoom: 5 + Double(i % 5), flight: flight)
    }
}

extension Camera {
    func isClose(to other: Camera, tolerance: Double = 1e-9) -> Bool {
        abs(center.lon - other.center.lon) <= tolerance && abs(center.lat - other.center.lat) <= tolerance
            && abs(zoom - other.zoom) <= tolerance
    }
}

let tokyo = LonLat(lon: 139.69, lat: 35.69)
let sanFrancisco = LonLat(lon: -122.42, lat: 37.77)
let seoul = LonLat(lon: 126.978, lat: 37.5665)
let busan = LonLat(lon: 129.0756, lat: 35.1796)
let paris = LonLat(lon: 2.3522, lat: 48.8566)
let newYork = LonLat(lon: -74.006, lat: 40.7128)

extension Camera {
    /// Whether this camera shows `other`'s centre within a pixel of its own, at nearly its zoom (the
    /// world's width within half a pixel of the same), at pixel ratio `scale`.
    func isWithinAPixel(of other: Camera, scale: Double) -> Bool {
        let size = WebMercator.worldSize(zoom: zoom) * scale
        let p = WebMercator.project(center), q = WebMercator.project(other.center)
        return abs(size - WebMercator.worldSize(zoom: other.zoom) * scale) <= 0.5
            && abs(p.x - q.x) * size <= 1.0001 && abs(p.y - q.y) * size <= 1.0001 && bearing == other.bearing
    }
}
