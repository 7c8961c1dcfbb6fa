import Foundation
import Testing
@testable import MapTripGeometry
@testable import MapTripScene

/// The first problem decoding `json` finds (records an issue and returns nil if it succeeds).
public func decodeError(_ json: String, file: String = "trip.json",
                 sourceLocation: SourceLocation = #_sourceLocation) -> SceneError? {
    decodeErrors(json, file: file, sourceLocation: sourceLocation).first
}

/// Every problem decoding `json` finds, in document order.
public func decodeErrors(_ json: String, file: String = "trip.json",
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
public func parseError(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> SceneError? {
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

public func parseError(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> SceneError? {
    parseError(Array(json.utf8), sourceLocation: sourceLocation)
}

/// 1-based line and column (in Unicode scalars) of the `occurrence`-th appearance of `needle`.
public func position(of needle: String, in text: String, occurrence: Int = 1) -> SourcePosition? {
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

public func scene(places: [Place], title: String? = nil, dwell: Double = Scene.defaultDwell,
           flight: Double = Scene.defaultFlight, fps: Int = 30) -> Scene {
    Scene(title: title, dwell: dwell, flight: flight, video: Video(fps: fps), places: places)
}

/// Places on a line of longitudes, each with the given dwell.
public func places(_ count: Int, dwell: Double, flight: Double? = nil) -> [Place] {
    (0..<count).map { i in
        Place(name: "P\(i + 1)", position: LonLat(lon: Double(i % 360) - 179.5, lat: Double(i % 120) / 2 - 30),
              dwell: dwell, zoom: 5 + Double(i % 5), flight: flight)
    }
}

