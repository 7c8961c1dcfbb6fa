import Foundation
import MapTripGeometry
@testable import MapTripScene
import MapTripTime
import Testing

/// The scene side of clips and the presenter (#57): their keys, the rules between them, when they
/// show on the timeline, and the sound cues handed to the mixer.
@Suite("clips and the presenter in the scene")
struct ClipSceneTests {
    static let json = """
    { "video": { "width": 640, "height": 360, "fps": 30 }, "opening": false, "closing": false, "flight": 0.5,
      "presenter": { "file": "me.mp4", "corner": "top-left", "size": 0.3, "shape": "rounded", "places": ["C", "B"], "from": 2, "volume": 0.5 },
      "places": [
        { "name": "A", "lat": 48.8566, "lon": 2.3522, "zoom": 5, "dwell": 1 },
        { "name": "B", "lat": 52.52, "lon": 13.405, "zoom": 5, "dwell": 2, "clip": "c.mp4", "from": 0.5, "muted": false, "volume": 0.8 },
        { "name": "C", "lat": 48.2082, "lon": 16.3738, "zoom": 5, "dwell": 1, "clip": "d.mp4" }
      ] }
    """

    @Test func readsTheKeys() throws {
        let scene = try SceneLoader.decode(Data(Self.json.utf8), file: "t.json")
        #expect(scene.places[1].clip == Clip(file: "c.mp4", from: 0.5, muted: false, volume: 0.8))
        #expect(scene.places[2].clip == Clip(file: "d.mp4"))
        #expect(scene.places[2].clip?.muted == true)
        #expect(scene.places[0].clip == nil)
        #expect(scene.presenter == Presenter(file: "me.mp4", corner: .topLeft, size: 0.3, shape: .rounded, places: [1, 2],
                                             from: 2, volume: 0.5))
    }

    @Test(arguments: [
        (#"{ "lat": 1, "lon": 2, "from": 3 }"#, "places[0].from: from is for a clip, and this place has none"),
        (#"{ "lat": 1, "lon": 2, "muted": false }"#, "places[0].muted: muted is for a clip, and this place has none"),
        (#"{ "lat": 1, "lon": 2, "clip": "c.mp4", "photo": "p.png" }"#, "places[0].clip: a place's card shows a photo or a clip, not both"),
        (#"{ "lat": 1, "lon": 2, "clip": "c.mp4", "from": -1 }"#, "places[0].from: from must be 0 seconds or more, found -1"),
    ])
    func refuses(place: String, message: String) throws {
        let text = #"{ "places": [ "# + place + " ] }"
        #expect(throws: SceneErrors.self) { try SceneLoader.decode(Data(text.utf8), file: "t.json") }
        let report = SceneLoader.check(Data(text.utf8), file: "t.json")
        #expect(report.errors.map { "\($0.path): \($0.message)" } == [message])
    }

    @Test func aPresenterAtAPlaceTheSceneLacksIsAnError() {
        let text = #"{ "presenter": { "file": "me.mp4", "places": ["Nowhere"] }, "places": [ { "name": "Here", "lat": 1, "lon": 2 } ] }"#
        let report = SceneLoader.check(Data(text.utf8), file: "t.json")
        #expect(report.errors.map(\.path) == ["presenter.places[0]"])
        #expect(report.errors.first?.message == "no place is named 'Nowhere'")
    }

    @Test func theTimelineTimesTheClipAndThePresenter() throws {
        var scene = try SceneLoader.decode(Data(Self.json.utf8), file: "t.json")
        scene.places[1].clip?.duration = 1.2
        let timeline = Timeline(scene: scene)
        let slot = timeline.slots[1]
        // The clip's card is a cue of its own over the rest; its second runs from `from`, held at the end.
        let window = try #require(timeline.clipWindows[1])
        #expect(window.lowerBound == Double(slot.arriveFrame) / 30)
        let at = { (n: Int) in timeline.values(at: n).cards.first { $0.cue == .clip(1) }?.seconds }
        #expect(at(slot.arriveFrame) == 0.5)
        #expect(abs((at(slot.arriveFrame + 15) ?? 0) - 1.0) < 1e-9)
        #expect(at(slot.endFrame - 1) == 1.2)
        #expect(at(slot.arriveFrame - 1) == nil)
        #expect(timeline.values(at: slot.arriveFrame + 3).opacity(of: .photo(1)) == 0)
        // The presenter: the slots of B and C joined, from B's start to the end.
        let track = try #require(timeline.presenterTrack)
        #expect(track.windows == [slot.startFrame..<timeline.frameCount])
        #expect(timeline.values(at: slot.startFrame - 1).presenter == nil)
        #expect(timeline.values(at: timeline.frameCount - 1).presenter?.opacity == 1)
        #expect(timeline.values(at: 45).presenter?.seconds == 2 + 45.0 / 30)
    }

    @Test func soundCuesListWhatIsHeard() throws {
        var scene = try SceneLoader.decode(Data(Self.json.utf8), file: "t.json")
        scene.places[1].clip?.duration = 1.2
        let timeline = Timeline(scene: scene)
        let dir = URL(fileURLWithPath: "/trip")
        let cues = timeline.soundCues(for: scene, directory: dir)
        let rest = try #require(timeline.clipWindows[1])
        let presenter = timeline.presenterTrack!.seconds[0]
        // C's clip is muted: not heard. B's plays from 0.5 s until its file ends at 1.2 s.
        #expect(cues == [
            SoundCue(file: URL(fileURLWithPath: "/trip/me.mp4"), start: presenter.lowerBound, offset: 2 + presenter.lowerBound,
                     duration: presenter.upperBound - presenter.lowerBound, gain: 0.5),
            SoundCue(file: URL(fileURLWithPath: "/trip/c.mp4"), start: rest.lowerBound, offset: 0.5, duration: 1.2 - 0.5, gain: 0.8),
        ].sorted { ($0.start, $0.file.path) < ($1.start, $1.file.path) })
    }
}
