import Foundation
import Testing
import TestSupport
import MapTripGeometry
import MapTripScene
import MapTripTime

/// Readouts on a place trip whose legs follow recordings: each frame's values are those of the leg being
/// flown where its vehicle is (by the recorded time, or by distance), held after it; distance and
/// elapsed time add up over the track legs; hidden before the first one begins.
@Suite("Track leg readouts")
struct TrackLegReadoutTests {
    static let items: [ReadoutItem] = [.speed, .altitude, .distance, .elapsed, .heartRate, .cadence, .profile]

    @Test func eachFramesValuesAreTheLegsRecordingWhereTheVehicleIs() throws {
        let rides = TrackLegRides(seed: 6011)
        let fps = 25
        let timeline = Timeline(scene: rides.scene(fps: fps, readouts: Self.items))
        let series = try #require(timeline.readouts)
        #expect(series.items == Self.items && series.legs.map(\.place) == [1, 3])
        #expect(abs(series.lengthKm - rides.first.lengthKm - rides.second.lengthKm) < 1e-9)
        var shown = 0
        for n in 0..<timeline.frameCount {
            let values = timeline.values(at: n)
            guard let e = rides.expected(frame: n, fps: fps) else {
                #expect(values.readouts == nil, "frame \(n): shown before the first track leg")
                continue
            }
            let v = try #require(values.readouts, "frame \(n)")
            shown += 1
            #expect(abs(v.elapsed - e.elapsed) < 1e-6, "frame \(n): \(v.elapsed) s, expected \(e.elapsed)")
            #expect(abs(v.km - e.km) < 1e-7, "frame \(n): \(v.km) km, expected \(e.km)")
            #expect(abs(v.kmh - e.kmh) < 1e-4, "frame \(n): \(v.kmh) km/h, expected \(e.kmh)")
            #expect(abs(v.altitude! - e.altitude!) < 1e-5, "frame \(n)")
            #expect(abs(v.heartRate! - e.heartRate!) < 1e-4, "frame \(n)")
            #expect(abs(v.cadence! - e.cadence!) < 1e-4, "frame \(n)")
        }
        #expect(shown == timeline.frameCount - fps)
        // The panel fades in as the first track leg begins.
        #expect(timeline.values(at: fps).readoutPanelOpacity < 0.2 && timeline.values(at: 3 * fps).readoutPanelOpacity == 1)
    }

    @Test func thirtyAndSixtyFramesASecondGiveTheSameValuesAtTheSameTime() throws {
        let rides = TrackLegRides(seed: 6012)
        let at30 = Timeline(scene: rides.scene(fps: 30, readouts: Self.items))
        let at60 = Timeline(scene: rides.scene(fps: 60, readouts: Self.items))
        #expect(at60.frameCount == 2 * at30.frameCount)
        var compared = 0
        for n in 0..<at30.frameCount {
            let a = at30.values(at: n).readouts, b = at60.values(at: 2 * n).readouts
            #expect(a == b, "30 fps frame \(n) against 60 fps frame \(2 * n)")
            if a != nil { compared += 1 }
        }
        #expect(compared == at30.frameCount - 30)
    }
}
