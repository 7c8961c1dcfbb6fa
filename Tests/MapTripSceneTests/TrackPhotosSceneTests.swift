import Foundation
import Testing
import MapTripGeometry
import MapTripScene
import MapTripTracks
import TestBasics
import TestSupport

/// Scene-level `photos`: each JPEG's EXIF (written by `ExifWriter`, read through `TrackFileCheck`) placed on
/// the mover's track by time (between fixes) or by position (the nearest fix); what cannot be placed is a
/// warning naming the file, at the key's path.
@Suite("Photos along a track in scenes")
struct TrackPhotosSceneTests {
    static let anna = TrackFixture.walk(seed: 63, count: 200, start: LonLat(lon: 24.94, lat: 60.17))
    static let ben = TrackFixture.walk(seed: 64, count: 150, start: LonLat(lon: 24.95, lat: 60.18))
    static let t0 = TrackFixture.start.timeIntervalSince1970

    /// The scene `photos` (JSON) over tracks anna and ben, with `photos` (name: EXIF) in folder shots/, and
    /// `bare` (name: bytes) written as they are.
    static func check(_ photos: String, _ files: [String: ExifWriter.Fields], bare: [String: [UInt8]] = [:],
                      extra: String = "") throws -> SceneReport {
        try TemporaryFolder.with("track-photos-scene") { dir in
            try anna.gpx.write(to: dir.appendingPathComponent("anna.gpx"), atomically: true, encoding: .utf8)
            try ben.gpx.write(to: dir.appendingPathComponent("ben.gpx"), atomically: true, encoding: .utf8)
            let shots = dir.appendingPathComponent("shots")
            try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
            for (name, fields) in files {
                try Data(ExifWriter.inserting(fields, into: ExifWriter.emptyJPEG)).write(to: shots.appendingPathComponent(name))
            }
            for (name, bytes) in bare { try Data(bytes).write(to: shots.appendingPathComponent(name)) }
            let url = dir.appendingPathComponent("scene.json")
            try """
                { "tracks": [ { "file": "anna.gpx", "name": "Anna" }, { "file": "ben.gpx", "name": "Ben" } ],
                  "photos": \(photos)\(extra) }
                """.write(to: url, atomically: true, encoding: .utf8)
            return SceneLoader.check(contentsOf: url, tracks: TrackFileCheck())
        }
    }

    static func exifTime(_ t: Double) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(secondsFromGMT: 0)
        f.dateFormat = "yyyy:MM:dd HH:mm:ss"
        return f.string(from: Date(timeIntervalSince1970: t))
    }

    @Test func byTimeAPhotoIsBetweenTheFixesAroundIt() throws {
        let times = try #require(Self.anna.times)
        var random = SplitMix64(seed: 63)
        var fields: [String: ExifWriter.Fields] = [:], expected: [(name: String, t: Double, at: LonLat)] = []
        for k in 0..<6 {
            let i = 10 + Int(random.next() % 180), f = Double(random.next() % 10) / 10
            // Whole seconds (EXIF's resolution) within the step from fix i to i + 1.
            let t = (times[i] + f * (times[i + 1] - times[i])).rounded(.down)
            let share = (t - times[i]) / (times[i + 1] - times[i])
            let name = "p\(k).jpg"
            fields[name] = .init(dateTimeOriginal: Self.exifTime(Self.t0 + t + 30))  // a clock 30 s fast
            expected.append((name, Self.t0 + t, Geodesy.interpolate(Self.anna.points[i], Self.anna.points[i + 1], fraction: share)))
        }
        let report = try Self.check(#"{ "folder": "shots", "timeOffset": -30 }"#, fields)
        #expect(report.errors.isEmpty && report.warnings.isEmpty, "\(report.errors) \(report.warnings)")
        let photos = try #require(report.scene?.photos)
        #expect(photos.track == 0 && photos.placing == .time && photos.hold == TrackPhotos.defaultHold)
        // In the order the mover passes them.
        expected.sort { $0.t < $1.t }
        #expect(photos.photos.map(\.file) == expected.map { "shots/" + $0.name })
        for (photo, want) in zip(photos.photos, expected) {
            #expect(photo.time == want.t)
            #expect(Geodesy.distanceKm(photo.position, want.at) < 1e-6, "\(photo.file)")
        }
    }

    @Test func byPositionAPhotoIsAtTheNearestFixOfTheNamedMover() throws {
        let times = try #require(Self.ben.times)
        let p = Self.ben.points[70]
        let report = try Self.check(#"{ "folder": "shots", "by": "position", "mover": "Ben", "hold": 4 }"#,
                                    ["a.jpg": .init(latitude: p.lat + 0.00005, longitude: p.lon - 0.00005)])
        #expect(report.errors.isEmpty && report.warnings.isEmpty, "\(report.errors) \(report.warnings)")
        let photos = try #require(report.scene?.photos)
        #expect(photos.track == 1 && photos.hold == 4)
        #expect(photos.photos == [TrackPhotos.Photo(file: "shots/a.jpg", time: Self.t0 + times[70], position: p)])
    }

    /// No time (by time), no position (by position), outside the recording, far from it: each a warning
    /// naming the file at `photos.folder`, and the photo left out.
    @Test func photosThatCannotBePlacedAreWarningsNamingTheFile() throws {
        let start = Self.anna.points[0]
        let byTime = try Self.check(#"{ "folder": "shots" }"#, [
            "gps-only.jpg": .init(latitude: start.lat, longitude: start.lon),
            "next-day.jpg": .init(dateTimeOriginal: Self.exifTime(Self.t0 + 86_400)),
        ])
        #expect(byTime.errors.isEmpty)
        #expect(byTime.scene?.photos?.photos == [])
        #expect(byTime.warnings.map(\.path) == ["photos.folder", "photos.folder"])
        #expect(byTime.warnings.map(\.message).sorted() == [
            "photo 'shots/gps-only.jpg' is left out: its EXIF has no DateTimeOriginal",
            "photo 'shots/next-day.jpg' is left out: taken at 2024-05-02T09:30:00Z is outside the recording "
                + "(2024-05-01T09:30:00Z to \(TrackPhotos.utcText(Self.t0 + (Self.anna.times?.last ?? 0))))",
        ])
        let byPosition = try Self.check(#"{ "folder": "shots", "by": "position" }"#, [
            "time-only.jpg": .init(dateTimeOriginal: Self.exifTime(Self.t0 + 60)),
            "far.jpg": .init(latitude: start.lat - 0.5, longitude: start.lon),  // some 55 km south
        ])
        #expect(byPosition.scene?.photos?.photos == [])
        let messages = byPosition.warnings.map(\.message)
        #expect(messages.contains("photo 'shots/time-only.jpg' is left out: its EXIF has no GPS position"))
        #expect(messages.contains { $0.hasPrefix("photo 'shots/far.jpg' is left out: taken ") && $0.hasSuffix(" m from track 'anna.gpx'") },
                "\(messages)")
    }

    /// `timeOffset` corrects the photos that state no offset from UTC; one that states its own
    /// (OffsetTimeOriginal) is corrected by that alone, not by both.
    @Test func eachPhotosTimeIsCorrectedOnce() throws {
        let times = try #require(Self.anna.times)
        var random = SplitMix64(seed: 6302)
        var fields: [String: ExifWriter.Fields] = [:], expected: [String: Double] = [:]
        for k in 0..<8 {
            let t = Self.t0 + times[20 + Int(random.next() % 160)].rounded(.down)
            let name = "p\(k).jpg"
            if k % 2 == 0 {
                // A camera on Helsinki's summer time that writes no offset: timeOffset -10800 corrects it.
                fields[name] = .init(dateTimeOriginal: Self.exifTime(t + 10_800))
            } else {
                // A phone on the same wall clock that says so: right as it is.
                fields[name] = .init(dateTimeOriginal: Self.exifTime(t + 10_800), offsetTimeOriginal: "+03:00")
            }
            expected["shots/" + name] = t
        }
        let report = try Self.check(#"{ "folder": "shots", "timeOffset": -10800 }"#, fields)
        #expect(report.errors.isEmpty && report.warnings.isEmpty, "\(report.errors) \(report.warnings)")
        let photos = try #require(report.scene?.photos)
        #expect(photos.photos.count == 8)
        for photo in photos.photos { #expect(photo.time == expected[photo.file], "\(photo.file)") }
    }

    /// A camera that states its offset from UTC but whose clock was wrong is corrected by `cameras` (by
    /// its EXIF Model, case aside), after its offset; other cameras keep `timeOffset`; a listed camera
    /// that took none of the photos is a warning at its entry.
    @Test func aCamerasClockIsCorrectedByItsModel() throws {
        let times = try #require(Self.anna.times)
        var random = SplitMix64(seed: 6303)
        var fields: [String: ExifWriter.Fields] = [:], expected: [String: Double] = [:]
        for k in 0..<9 {
            let t = Self.t0 + times[20 + Int(random.next() % 160)].rounded(.down)
            let name = "p\(k).jpg"
            switch k % 3 {
            case 0:
                // On summer time, says so, and 10 minutes fast.
                fields[name] = .init(dateTimeOriginal: Self.exifTime(t + 10_800 + 600), offsetTimeOriginal: "+03:00",
                                     model: "ILCE-7M3")
            case 1:
                // On summer time, without an offset: the scene's timeOffset.
                fields[name] = .init(dateTimeOriginal: Self.exifTime(t + 10_800), model: "Canon EOS R6")
            default:
                // A phone that states its offset and keeps good time: as it is.
                fields[name] = .init(dateTimeOriginal: Self.exifTime(t + 10_800), offsetTimeOriginal: "+03:00", model: "Pixel 8")
            }
            expected["shots/" + name] = t
        }
        let cameras = #"[ { "model": "ilce-7m3", "timeOffset": -600 }, { "model": "EOS 5D", "timeOffset": 30 } ]"#
        let report = try Self.check(#"{ "folder": "shots", "timeOffset": -10800, "cameras": \#(cameras) }"#, fields)
        #expect(report.errors.isEmpty, "\(report.errors)")
        let photos = try #require(report.scene?.photos)
        #expect(photos.photos.count == 9)
        for photo in photos.photos { #expect(photo.time == expected[photo.file], "\(photo.file)") }
        #expect(report.warnings.map(\.path) == ["photos.cameras[1].model"])
        #expect(report.warnings.first?.message == "no photo in 'shots' was taken by camera 'EOS 5D': its correction changes nothing")
        #expect(report.warnings.first?.hint == "the photos' cameras are 'ILCE-7M3', 'Canon EOS R6' or 'Pixel 8'")
        // Without the correction, the Sony's photos are 10 minutes late.
        let plain = try Self.check(#"{ "folder": "shots", "timeOffset": -10800 }"#, fields)
        let late = try #require(plain.scene?.photos).photos.filter { expected[$0.file] != $0.time }
        #expect(late.count == 3 && late.allSatisfy { $0.time == expected[$0.file]! + 600 })
    }

    /// A JPEG with no EXIF at all (or with neither time nor position) among the photos is one warning
    /// naming the file, by time or by position, and the others are placed; a broken EXIF stays an error.
    @Test func aPhotoWithoutTimeOrPositionIsAWarningNotAnError() throws {
        let times = try #require(Self.anna.times)
        let good = ["good.jpg": ExifWriter.Fields(dateTimeOriginal: Self.exifTime(Self.t0 + times[50]),
                                                  latitude: Self.anna.points[50].lat, longitude: Self.anna.points[50].lon)]
        for by in ["time", "position"] {
            let report = try Self.check(#"{ "folder": "shots", "by": "\#(by)" }"#,
                                        good.merging(["oriented.jpg": .init(orientation: 6)]) { a, _ in a },
                                        bare: ["plain.jpg": ExifWriter.emptyJPEG])
            #expect(report.errors.isEmpty, "\(by): \(report.errors)")
            #expect(report.scene?.photos?.photos.map(\.file) == ["shots/good.jpg"], "\(by)")
            #expect(report.warnings.map(\.path) == ["photos.folder", "photos.folder"], "\(by)")
            #expect(report.warnings.map(\.message).sorted() == [
                "photo 'shots/oriented.jpg' is left out: its EXIF has no time or GPS position",
                "photo 'shots/plain.jpg' is left out: its EXIF has no time or GPS position",
            ], "\(by)")
        }
        let broken: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x10] + Array("Exif".utf8) + [0, 0] + Array("XX".utf8)
            + [0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0xFF, 0xD9]
        let refused = try Self.check(#"{ "folder": "shots" }"#, good, bare: ["broken.jpg": broken])
        #expect(refused.errors.map(\.message) == ["photo 'shots/broken.jpg': its EXIF cannot be read (Unknown encoding.)"])
    }

    @Test func aMoverNoTrackIsNamedIsAnError() throws {
        let report = try Self.check(#"{ "folder": "shots", "mover": "Bne" }"#, ["a.jpg": .init(dateTimeOriginal: Self.exifTime(Self.t0))])
        #expect(report.errors.map(\.message) == ["no track is named 'Bne'"])
        #expect(report.errors.first?.hint == "did you mean 'Ben'?")
        #expect(report.errors.first?.path == "photos.mover")
    }
}
