import Foundation
import Testing
@testable import MapTripTracks

/// Real FIT files (python-fitparse's test files): every good one decodes to the records and positions
/// fitparse gives; every broken one is refused with an error naming its record.
@Suite struct FITTests {
    static var expected: [String: Any] { (try? Fixtures.json("fit/expected-fitparse.json") as? [String: Any]) ?? [:] }
    /// Every file of python-fitparse's tests/files that fitparse decodes (its other files, below, it refuses).
    static let good = ["2013-02-06-12-11-14.fit", "2015-10-13-08-43-15.fit", "20170518-191602-1740899583.fit",
                       "2019-02-17-062644-ELEMNT-297E-195-0.fit", "Activity.fit", "DeveloperData.fit",
                       "Edge810-Vector-2013-08-16-15-35-10.fit", "MonitoringFile.fit", "Settings.fit", "Settings2.fit",
                       "WeightScaleMultiUser.fit", "WeightScaleSingleUser.fit", "WorkoutCustomTargetValues.fit",
                       "WorkoutIndividualSteps.fit", "WorkoutRepeatGreaterThanStep.fit", "WorkoutRepeatSteps.fit",
                       "activity-large-fenxi2-multisport.fit", "activity-settings.fit", "activity-small-fenix2-run.fit",
                       "antfs-dump.63.fit", "compressed-speed-distance.fit", "coros-pace-2-cycling-misaligned-fields.fit",
                       "developer-types-sample.fit", "elemnt-bolt-no-application-id-inside-developer-data-id.fit",
                       "event_timestamp.fit", "garmin-edge-500-activity.fit", "garmin-edge-820-bike.fit", "garmin-fenix-5-bike.fit",
                       "garmin-fenix-5-run.fit", "garmin-fenix-5-walk.fit", "nametest.FIT", "null_compressed_speed_dist.fit",
                       "sample-activity-indoor-trainer.fit", "sample-activity.fit", "sample_mulitple_header.fit"]

    /// Every FIT file of the fixtures is classified here: good (decoded as fitparse does) or broken
    /// (refused with its error), so that a file added is a file tested.
    @Test func everyFixtureIsGoodOrBroken() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.url("fit").path)
            .filter { $0.lowercased().hasSuffix(".fit") }
        #expect(names.count == 42)
        #expect(Set(names) == Set(Self.good + Self.broken.map(\.0)))
    }

    @Test func theExpectedValuesAreThere() {
        #expect(Self.expected.keys.sorted() == Self.good)
    }

    @Test(arguments: good)
    func decodesAsFitparseDoes(_ name: String) throws {
        let entry = try #require(Self.expected[name] as? [String: Any])  // read once per file
        let points = try #require(entry["points"] as? [[Any]])
        // A long recording's expected values list every stride-th position (positions counts them all).
        let positions = try #require(entry["positions"] as? Int), stride = try #require(entry["stride"] as? Int)
        var decoder = FITDecoder(try Data(contentsOf: Fixtures.url("fit/" + name)))
        let raw = try decoder.decode()
        #expect(decoder.counts.records == entry["records"] as? Int)
        let decoded = raw.segments.flatMap { $0 }
        #expect(decoded.count == positions)
        // The segments, split where fitparse reads the timer's stop events, position for position.
        #expect(raw.segments.map(\.count) == entry["segments"] as? [Int], "\(name)")
        let listed = Swift.stride(from: 0, to: decoded.count, by: stride).map { decoded[$0] }
        #expect(listed.count == points.count)
        for (p, q) in zip(listed, points) {
            let lat = try #require(q[0] as? Double), lon = try #require(q[1] as? Double)
            // fitparse converts semicircles the same way: equal to the last bit, within 1e-9 degrees.
            #expect(abs(p.point.latitude - lat) < 1e-9 && abs(p.point.longitude - lon) < 1e-9, "\(name) record \(p.location.record ?? -1)")
            let time = (q[2] as? Int).map { Date(timeIntervalSince1970: TimeInterval($0)) }
            #expect(p.point.time == time, "\(name) record \(p.location.record ?? -1)")
        }
        // Through the public reader: a file with positions reads; one without says so.
        if positions == 0 {
            #expect(Fixtures.error(try Data(contentsOf: Fixtures.url("fit/" + name)), name: name)
                == "\(name): no track points: the file has no record message with a position (export the recording again as a track)")
        } else {
            let reading = try TrackFile.read(contentsOf: Fixtures.url("fit/" + name))
            #expect(reading.track.format == .fit)
            let kept = reading.track.points.count, dropped = reading.warnings.reduce(0) { $0 + $1.count }
            #expect(kept + dropped == positions)
        }
    }

    @Test func chainedFilesAndTimerStops() throws {
        var decoder = FITDecoder(try Data(contentsOf: Fixtures.url("fit/activity-settings.fit")))
        _ = try decoder.decode()
        #expect(decoder.counts.files == 2)
        // A ride with pauses: fitparse reads seven timer stops with positions between them, so seven
        // segments of the sizes its events give (read here from fitparse's output, not the decoder's).
        let entry = try #require(Self.expected["2015-10-13-08-43-15.fit"] as? [String: Any])
        let expected = try #require(entry["segments"] as? [Int])
        #expect(expected == [2, 41, 86, 81, 6, 4, 1])
        let reading = try TrackFile.read(contentsOf: Fixtures.url("fit/2015-10-13-08-43-15.fit"))
        #expect(reading.track.segments.map(\.count) == expected)
        let run = try TrackFile.read(contentsOf: Fixtures.url("fit/2013-02-06-12-11-14.fit"))
        let sensors = run.track.points.filter { $0.heartRate != nil }
        #expect(!sensors.isEmpty)
    }

    static let broken: [(String, String)] = [
        ("activity-filecrc.fit", "activity-filecrc.fit: record 0: the file's CRC is 0xB1D5, but its bytes give 0xA1D5: the file is damaged (copy it from the device again)"),
        ("activity-activity-filecrc.fit", "activity-activity-filecrc.fit: record 32: the file's CRC is 0xB1D5, but its bytes give 0xA1D5: the file is damaged (copy it from the device again)"),
        ("activity-settings-corruptheader.fit", "activity-settings-corruptheader.fit: record 32: not a FIT file header at byte 771: a header is 12 or 14 bytes with \".FIT\" at byte 8 (the file after the first one in this chain is damaged)"),
        ("activity-settings-nodata.fit", "activity-settings-nodata.fit: record 32: the data ends inside a definition message (5 bytes needed, 2 left) (the file was cut short: copy it from the device again)"),
        ("activity-unexpected-eof.fit", "activity-unexpected-eof.fit: record 31: the data ends inside a data message of 17 bytes (17 bytes needed, 16 left) (the file was cut short: copy it from the device again)"),
        ("nick.fit", "nick.fit: record 0: the file's CRC is 0x0040, but its bytes give 0x1AD2: the file is damaged (copy it from the device again)"),
        ("strava-android-app-201.10-b1218918.fit", "strava-android-app-201.10-b1218918.fit: record 502: a data message of local type 11, which no definition message before it defines (the file is damaged or its writer broke the FIT protocol)"),
    ]

    @Test(arguments: broken.map(\.0))
    func brokenFilesAreRefusedWithTheirRecord(_ name: String) throws {
        let message = try #require(Fixtures.error(try Data(contentsOf: Fixtures.url("fit/" + name)), name: name))
        #expect(message == Self.broken.first { $0.0 == name }?.1)
    }

    /// A compressed time (a 5-bit offset) after a full time near 2^32 rolls over as FIT's 32-bit
    /// seconds do, and the file after it is read: the fuzzer's crasher (Fuzz/Corpus/fit) trapped on
    /// the addition's overflow.
    @Test func compressedTimesRollOverAtTheTop() throws {
        let crasher = Fixtures.folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Corpus/fit/crash-compressed-timestamp-overflow")
        var decoder = FITDecoder(try Data(contentsOf: crasher))
        _ = try? decoder.decode()
    }

    /// Every prefix of a good file, and every file with one byte changed, is read or refused: no trap.
    @Test func cutAndFlippedFilesNeverTrap() throws {
        let data = try Data(contentsOf: Fixtures.url("fit/Activity.fit"))
        for n in 0..<data.count { _ = Fixtures.error(data.prefix(n), name: "cut.fit") }
        var bytes = [UInt8](data)
        for i in 0..<bytes.count {
            let saved = bytes[i]
            bytes[i] ^= 0x5A
            var decoder = FITDecoder(Data(bytes))
            _ = try? decoder.decode()
            bytes[i] = saved
        }
    }
}
