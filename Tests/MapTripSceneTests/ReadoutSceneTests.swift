import Foundation
import Testing
import MapTripGeometry
import MapTripScene
import MapTripSupport
import MapTripTracks
import TestSupport

/// `readouts` and `units` in scenes: read through `TrackFileCheck` (the recording's sensor channels
/// with it), the mover they measure, a readout without data warned of at its place in the list.
@Suite("Readouts in scenes")
struct ReadoutSceneTests {
    static let ride = RideFixture(seed: 71, count: 80)
    static let files = ["ride.gpx": ride.gpx(), "walk.gpx": PlaybackSceneTests.anna.gpx]

    @Test func theRecordingsChannelsAndTheReadoutsAreRead() throws {
        let report = try PlaybackSceneTests.check("""
            { "tracks": [ { "file": "walk.gpx", "name": "Walk" }, { "file": "ride.gpx", "name": "Ride" } ],
              "camera": { "follow": "Ride" }, "readouts": [ "speed", "heartRate", "cadence", "profile" ], "units": "imperial" }
            """, files: Self.files)
        #expect(report.errors.isEmpty && report.warnings.isEmpty, "\(report.errors) \(report.warnings)")
        let scene = try #require(report.scene)
        #expect(scene.readouts == [.speed, .heartRate, .cadence, .profile] && scene.units == .imperial)
        // The followed mover is measured; its channels are the GPX's, one per fix.
        #expect(scene.readoutTrack == 1 && scene.shownReadouts == scene.readouts)
        let g = scene.tracks[1].geometry
        #expect(g.altitudes == Self.ride.altitudes && g.heartRates == Self.ride.heartRates && g.cadences == Self.ride.cadences)
        #expect(g.powers.isEmpty)
    }

    @Test func aReadoutTheTrackHasNoDataForIsAWarningAtItsPlace() throws {
        // Without a followed mover the first track is measured: the walk has no altitudes or heart rate.
        let report = try PlaybackSceneTests.check("""
            { "tracks": [ { "file": "walk.gpx" }, { "file": "ride.gpx" } ], "readouts": [ "speed", "heartRate", "profile" ] }
            """, files: Self.files)
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.warnings.map(\.path) == ["readouts[1]", "readouts[2]"], "\(report.warnings)")
        #expect(report.warnings.first?.message == "heartRate is not shown: track 'walk.gpx' has no heart rate")
        let scene = try #require(report.scene)
        #expect(scene.readoutTrack == 0 && scene.shownReadouts == [.speed] && scene.units == .metric)
    }

    @Test func aRepeatedReadoutAndUnitsWithoutReadoutsAreWarnings() throws {
        let twice = try PlaybackSceneTests.check("""
            { "tracks": [ { "file": "ride.gpx" } ], "readouts": [ "speed", "cadence", "speed" ] }
            """, files: Self.files)
        #expect(twice.errors.isEmpty && twice.warnings.map(\.path) == ["readouts[2]"], "\(twice.warnings)")
        #expect(twice.scene?.readouts == [.speed, .cadence])
        let units = try PlaybackSceneTests.check("""
            { "tracks": [ { "file": "ride.gpx" } ], "units": "imperial" }
            """, files: Self.files)
        #expect(units.errors.isEmpty && units.warnings.map(\.path) == ["units"], "\(units.warnings)")
        #expect(units.scene?.readouts == [])
    }

    @Test func theLongFormNamesTheMoverMeasured() throws {
        // The camera follows the walk; the readouts measure the ride, their warnings at readouts.items[k].
        let report = try PlaybackSceneTests.check("""
            { "tracks": [ { "file": "walk.gpx", "name": "Walk" }, { "file": "ride.gpx", "name": "Ben" } ],
              "camera": { "follow": "Walk" }, "readouts": { "mover": "Ben", "items": [ "speed", "heartRate", "power" ] } }
            """, files: Self.files)
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.warnings.map(\.path) == ["readouts.items[2]"], "\(report.warnings)")
        let scene = try #require(report.scene)
        #expect(scene.readoutTrack == 1 && scene.camera?.follow == 0 && scene.shownReadouts == [.speed, .heartRate])
        // An unknown name is an error where the scene gives it.
        let unknown = try PlaybackSceneTests.check("""
            { "tracks": [ { "file": "walk.gpx", "name": "Walk" }, { "file": "ride.gpx", "name": "Ben" } ],
              "readouts": { "mover": "Bne", "items": [ "speed" ] } }
            """, files: Self.files)
        #expect(unknown.errors.map(\.path) == ["readouts.mover"], "\(unknown.errors)")
        #expect(unknown.errors.first?.message == "no track is named 'Bne'" && unknown.errors.first?.hint == "did you mean 'Ben'?")
        // Neither a list nor an object.
        let wrong = try PlaybackSceneTests.check("""
            { "tracks": [ { "file": "ride.gpx" } ], "readouts": "speed" }
            """, files: Self.files)
        #expect(wrong.errors.map(\.path) == ["readouts"], "\(wrong.errors)")
    }
}
