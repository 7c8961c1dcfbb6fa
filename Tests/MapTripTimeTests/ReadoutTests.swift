import Foundation
import Testing
import TestSupport
import MapTripGeometry
import MapTripScene
import MapTripTime

/// A playback's readouts (`readouts`): each a pure function of the frame's recorded time, equal to the
/// recording's values there as computed here from the raw fixes, the speed over a window of recorded
/// seconds (the same at 30 and 60 fps), in metric or imperial units.
@Suite("Readouts")
struct ReadoutTests {
    static func scene(_ ride: RideFixture, heartRates: Bool = true, readouts: [ReadoutItem], fps: Int, speed: Double = 7) -> Scene {
        var geometry = TrackGeometry(points: ride.walk.points, times: ride.walk.times, start: TrackFixture.start)
        geometry.altitudes = ride.altitudes
        geometry.heartRates = heartRates ? ride.heartRates : []
        var s = Scene(video: Video(width: 1280, height: 720, fps: fps), places: [])
        s.tracks = [PlaybackTrack(file: "ride.gpx", name: "ride", color: PlaybackTrack.palette[0], geometry: geometry)]
        s.playback = Playback(speed: speed)
        s.readouts = readouts
        return s
    }

    @Test func eachFramesValuesAreTheRecordingsAtItsRecordedTime() throws {
        let ride = RideFixture(seed: 5911)
        let speed = 7.0, fps = 25
        let scene = Self.scene(ride, readouts: [.speed, .altitude, .distance, .heartRate, .elapsed], fps: fps, speed: speed)
        let timeline = Timeline(scene: scene)
        #expect(timeline.readouts?.items == [.speed, .altitude, .distance, .heartRate, .elapsed])
        for n in 0..<timeline.frameCount {
            let v = try #require(timeline.values(at: n).readouts, "frame \(n)")
            // The playback's last frame shows the last fix (PlaybackClock); the clock counts from the
            // first fix's seconds since 1970, so times carry its rounding (1e-7 s).
            let t = n == timeline.frameCount - 1 ? ride.duration : min(Double(n) * speed / Double(fps), ride.duration)
            let e = ride.expected(at: t)
            #expect(abs(v.elapsed - t) < 1e-6, "frame \(n)")
            #expect(abs(v.km - e.km) < 1e-7, "frame \(n): \(v.km) km, expected \(e.km)")
            #expect(abs(v.kmh - e.kmh) < 1e-4, "frame \(n): \(v.kmh) km/h, expected \(e.kmh)")
            #expect(abs(v.altitude! - e.altitude!) < 1e-5, "frame \(n)")
            #expect(abs(v.heartRate! - e.heartRate!) < 1e-4, "frame \(n)")
        }
        // Walking pace: a few km/h somewhere, never absurd.
        let speeds = (0..<timeline.frameCount).compactMap { timeline.values(at: $0).readouts?.kmh }
        #expect(speeds.max()! > 5 && speeds.max()! < 200)
    }

    @Test func thirtyAndSixtyFramesASecondGiveTheSameValuesAtTheSameTime() throws {
        let ride = RideFixture(seed: 5912)
        let items: [ReadoutItem] = [.speed, .altitude, .distance, .elapsed, .heartRate, .profile]
        let at30 = Timeline(scene: Self.scene(ride, readouts: items, fps: 30))
        let at60 = Timeline(scene: Self.scene(ride, readouts: items, fps: 60))
        #expect(at60.frameCount == 2 * (at30.frameCount - 1) + 1)
        var differing = 0
        for n in 0..<at30.frameCount {
            let a = try #require(at30.values(at: n).readouts), b = try #require(at60.values(at: 2 * n).readouts)
            #expect(a == b, "30 fps frame \(n) against 60 fps frame \(2 * n)")
            // The odd frames at 60 fps lie between (the speed is not a per-frame difference).
            if n + 1 < at30.frameCount, at60.values(at: 2 * n + 1).readouts != a { differing += 1 }
        }
        #expect(differing > at30.frameCount / 2)
    }

    @Test func aReadoutTheTrackHasNoDataForIsLeftOut() throws {
        let ride = RideFixture(seed: 5913, count: 60)
        let scene = Self.scene(ride, heartRates: false, readouts: [.heartRate, .speed, .cadence, .profile], fps: 10)
        let timeline = Timeline(scene: scene)
        #expect(scene.shownReadouts == [.speed, .profile])
        #expect(timeline.readouts?.items == [.speed, .profile])
        let v = try #require(timeline.values(at: 3).readouts)
        #expect(v.heartRate == nil && v.cadence == nil && v.text(.heartRate, units: .metric) == nil)
        // A scene without readouts has none on its frames.
        let none = Timeline(scene: Self.scene(ride, readouts: [], fps: 10))
        #expect(none.readouts == nil && none.values(at: 3).readouts == nil)
    }

    @Test func metricAndImperialText() {
        let v = ReadoutValues(elapsed: 3725.9, km: 1.609344 * 12.346, kmh: 16.09344 * 2.5, altitude: 304.8, heartRate: 142.4,
                              cadence: 87.6, power: 231.5)
        #expect(v.text(.speed, units: .metric)! == ("40.2", "km/h"))
        #expect(v.text(.speed, units: .imperial)! == ("25.0", "mph"))
        #expect(v.text(.distance, units: .metric)! == ("19.87", "km"))
        #expect(v.text(.distance, units: .imperial)! == ("12.35", "mi"))
        #expect(v.text(.altitude, units: .metric)! == ("305", "m"))
        #expect(v.text(.altitude, units: .imperial)! == ("1000", "ft"))
        #expect(v.text(.elapsed, units: .imperial)! == ("1:02:05", ""))
        #expect(v.text(.heartRate, units: .metric)! == ("142", "bpm"))
        #expect(v.text(.cadence, units: .metric)! == ("88", "rpm"))
        #expect(v.text(.power, units: .metric)! == ("232", "W"))
        #expect(v.text(.profile, units: .metric) == nil)
    }

    @Test func aMoverWaitingForItsRecordingStandsAtZero() throws {
        // The playback starts 60 recorded seconds before the ride (a negative offset): it waits at its
        // first fix, at 0 km/h, then runs at the recording's speed.
        let ride = RideFixture(seed: 5912)
        var scene = Self.scene(ride, readouts: [.speed], fps: 10, speed: 10)
        scene.playback.offset = -60
        let t = Timeline(scene: scene)
        let waiting = try #require(t.values(at: 30).readouts)
        #expect(waiting.kmh == 0 && waiting.elapsed == 0)
        #expect(waiting.text(.speed, units: .metric)?.value == "0.0")
        let n = 60 + 20  // 20 s into the ride
        let running = try #require(t.values(at: n).readouts)
        #expect(abs(running.kmh - ride.expected(at: 20).kmh) < 1e-4 && running.kmh > 1)
    }
}
