import Foundation
import Testing
import MapTripScene
import MapTripTime
import TestSupport

/// Voices as the scene loader reads them: the `voices` section's values, each voice's length from the
/// reader, rests timed by the timeline, a voice too long for its rest reported or its rest lengthened.
@Suite("Scene voices")
struct VoiceSceneTests {
    /// Voices of given lengths (by file name), rests from the real timeline.
    struct Lengths: VoiceChecking {
        var seconds: [String: Double]
        func read(_ url: URL) -> (duration: Double?, errors: [(message: String, hint: String?)]) {
            (seconds[url.lastPathComponent], [])
        }
        func rests(of scene: Scene) -> [Double] { Timeline(scene: scene).restSeconds }
    }

    static func load(_ voices: String, lengths: [String: Double]) throws -> SceneReport {
        let dir = try TemporaryFolder.make("voice-scene")
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in lengths.keys { try Data("sound".utf8).write(to: dir.appendingPathComponent(name)) }
        let text = """
        { "flight": 1, "opening": false, "closing": false,\(voices)
          "places": [ { "lat": 37.5, "lon": 127, "dwell": 2 },
                      { "name": "Busan", "lat": 35.2, "lon": 129.1, "dwell": 3, "voice": "busan.m4a" },
                      { "lat": 33.5, "lon": 126.5, "dwell": 2, "voice": "jeju.m4a" } ] }
        """
        let url = dir.appendingPathComponent("scene.json")
        try Data(text.utf8).write(to: url)
        return SceneLoader.check(contentsOf: url, voices: Lengths(seconds: lengths))
    }

    @Test func theSectionsValuesAndTheVoicesLengthsAreRead() throws {
        let report = try Self.load(#" "voices": { "volume": 0.8, "duck": { "gain": -9, "attack": 0.1, "release": 1 } },"#,
                                   lengths: ["busan.m4a": 1.5, "jeju.m4a": 0.75])
        let scene = try #require(report.scene, "\(report.errors)")
        #expect(scene.voices == Voices(volume: 0.8, duckGain: -9, attack: 0.1, release: 1, extendRests: false))
        #expect(scene.places.map(\.voice) == [nil, PlaceVoice(file: "busan.m4a", duration: 1.5),
                                              PlaceVoice(file: "jeju.m4a", duration: 0.75)])
        #expect(scene.places.map(\.dwell) == [2, 3, 2])
        // The defaults.
        let plain = try #require(try Self.load("", lengths: ["busan.m4a": 1, "jeju.m4a": 1]).scene)
        #expect(plain.voices == Voices() && Voices().duckGain == -12 && Voices().attack == 0.25 && Voices().release == 0.5)
    }

    /// Busan rests 2 s (3 s slot, 1 s flight): a 2.3 s voice is an error at its JSON path, or with
    /// extendRests its dwell becomes 3.3 s (the 0.05 s grid), and the timeline's rest then holds it.
    @Test func aVoiceLongerThanItsRestIsReportedOrLengthensIt() throws {
        let lengths = ["busan.m4a": 2.3, "jeju.m4a": 1]
        let report = try Self.load("", lengths: lengths)
        #expect(report.scene == nil)
        let error = try #require(report.errors.first)
        #expect(error.path == "places[1].voice" && error.line == 3)
        #expect(error.message == "voice 'busan.m4a' lasts 2.30 s, longer than Busan's rest of 2.00 s (it would be cut)")
        #expect(error.hint == #"give Busan a dwell of at least 3.3, or set "voices": { "extendRests": true }"#)

        let extended = try #require(try Self.load(#" "voices": { "extendRests": true },"#, lengths: lengths).scene)
        #expect(extended.places.map(\.dwell) == [2, 3.3, 2])
        #expect(abs(Timeline(scene: extended).restSeconds[1] - 2.3) < 1e-9)
    }

    /// A voice equal to its rest fits; the last place's rest runs to the video's end.
    @Test func aVoiceThatFillsItsRestFits() throws {
        #expect(try Self.load("", lengths: ["busan.m4a": 2, "jeju.m4a": 1]).errors.isEmpty)
        #expect(try Self.load(#" "outro": 1,"#, lengths: ["busan.m4a": 1, "jeju.m4a": 2]).errors.isEmpty)
        #expect(try Self.load("", lengths: ["busan.m4a": 1, "jeju.m4a": 2]).errors.count == 1)
    }
}
