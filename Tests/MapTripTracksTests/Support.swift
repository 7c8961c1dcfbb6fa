import Foundation
@testable import MapTripTracks

/// The fixtures' folder and readers of what the tests compare against.
enum Fixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func url(_ path: String) -> URL { folder.appendingPathComponent(path) }

    static func json(_ path: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url(path)))
    }

    /// A track file's text read as UTF-8 bytes, named `name` in messages.
    static func read(_ text: String, name: String = "t") throws(TrackError) -> TrackReading {
        try TrackFile.read(Data(text.utf8), name: name)
    }

    /// The error reading `text` gives, as maptrip prints it (nil when it reads).
    static func error(_ text: String, name: String = "t.gpx") -> String? {
        error(Data(text.utf8), name: name)
    }

    static func error(_ data: Data, name: String) -> String? {
        do {
            _ = try TrackFile.read(data, name: name)
            return nil
        } catch {
            return error.description
        }
    }

    static func gpx(_ body: String) -> String {
        #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n" + #"<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">"# + "\n" + body + "\n</gpx>\n"
    }

    static func trkpt(_ lat: Double, _ lon: Double, _ time: String? = nil) -> String {
        "<trkpt lat=\"\(lat)\" lon=\"\(lon)\">" + (time.map { "<time>\($0)</time>" } ?? "") + "</trkpt>"
    }

    /// python3 with the writers, when this machine has them (the committed fixtures are read either way).
    static let pythonWithWriters: Bool = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import gpxpy, simplekml, fit_tool"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()
}
