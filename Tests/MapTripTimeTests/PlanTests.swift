import Foundation
import Testing
import TestSupport
@testable import MapTripGeometry
@testable import MapTripScene
@testable import MapTripTime

@Suite("Plan")
struct PlanTests {
    let scene = Scene(title: "Korea", video: Video(fps: 30), places: [
        Place(name: "Seoul", position: seoul, dwell: 3.33),
        Place(name: "Busan \"the port\"\n", position: busan, dwell: 2, zoom: 9, flight: 1),
        Place(name: "제주", position: LonLat(lon: 126.5312, lat: 33.4996), dwell: 2.5),
    ])

    @Test func jsonShape() throws {
        let plan = Plan(scene: scene)
        let json = plan.json(includeFrames: false)
        #expect(json.hasPrefix(#"{"fps":30,"frames":235,"projection":"EPSG:3857","duration":7.833333333333333,"slots":[{"name":"Seoul","#))
        #expect(json.contains(#""lat":37.5665,"lon":126.978,"zoom":7,"start":0,"arrive":0,"end":3.3333333333333335}"#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["fps", "frames", "projection", "duration", "slots"])
        #expect(object["fps"] as? Int == 30)
        #expect(object["frames"] as? Int == 235)
        let slots = try #require(object["slots"] as? [[String: Any]])
        #expect(slots.count == 3)
        for slot in slots {
            #expect(Set(slot.keys) == ["name", "lat", "lon", "zoom", "start", "arrive", "end"])
        }
        #expect(slots[1]["name"] as? String == "Busan \"the port\"\n")
        #expect(slots[2]["name"] as? String == "제주")
        #expect(slots[1]["start"] as? Double == 100.0 / 30)
        #expect(slots[1]["arrive"] as? Double == 130.0 / 30)
        #expect(slots[2]["end"] as? Double == 235.0 / 30)
        // Key order as documented.
        let keys = ["\"name\"", "\"lat\"", "\"lon\"", "\"zoom\"", "\"start\"", "\"arrive\"", "\"end\""]
        let offsets = keys.map { json.range(of: $0)!.lowerBound }
        #expect(offsets == offsets.sorted())
    }

    @Test func jsonWithFrames() throws {
        let plan = Plan(scene: scene)
        let json = plan.json(includeFrames: true)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["frames"] as? Int == plan.timeline.frameCount)
        let cameras = try #require(object["cameras"] as? [[String: Any]])
        #expect(cameras.count == plan.timeline.frameCount)
        for camera in cameras { #expect(Set(camera.keys) == ["t", "lon", "lat", "zoom"]) }
        #expect(cameras[0]["t"] as? Double == 0)
        // The first frame rests on Seoul (126.978, 37.5665), on the pixel grid: within a pixel of it.
        let rest = plan.timeline.slots[0].camera
        #expect(rest.isWithinAPixel(of: scene.places[0].camera, scale: scene.video.scale))
        func six(_ v: Double) -> Double { (v * 1e6).rounded() / 1e6 }
        #expect(cameras[0]["lon"] as? Double == six(rest.center.lon))
        #expect(cameras[0]["lat"] as? Double == six(rest.center.lat))
        #expect(cameras[3]["t"] as? Double == 0.1)
        #expect(json.contains(#"{"t":0,"lon":\#(six(rest.center.lon)),"lat":\#(six(rest.center.lat)),"zoom":7}"#))
        // Camera values have at most six decimals.
        let mid = plan.timeline.camera(at: 110)
        let entry = cameras[110]
        #expect(entry["lon"] as? Double == (mid.center.lon * 1e6).rounded() / 1e6)
        #expect(entry["zoom"] as? Double == (mid.zoom * 1e6).rounded() / 1e6)
    }

    @Test func table() {
        let plan = Plan(scene: scene)
        let lines = plan.table(includeFrames: false).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "Korea")
        #expect(lines[1] == "30 fps, 235 frames, EPSG:3857, 7.833 s (0:07.8)")
        #expect(lines[3].hasPrefix("#"))
        #expect(lines.count == 4 + 3)
        #expect(lines[4].contains("Seoul") && lines[4].contains("37.56650") && lines[4].contains("3.333"))
        // Columns line up: every row has "end" values ending at the same terminal column.
        let widths = lines[3...].map { TextTable.displayWidth(String($0)) }
        #expect(Set(widths).count == 1, "\(lines.joined(separator: "\n"))")

        let withFrames = plan.table(includeFrames: true).split(separator: "\n")
        #expect(withFrames.count == 3 + 3 + 1 + plan.timeline.frameCount)
        #expect(withFrames.last!.split(separator: " ").first == "234")
        #expect(lines[5].contains(#"Busan "the port"\n"#))
    }

    @Test func displayWidth() {
        #expect(TextTable.displayWidth("Seoul") == 5)
        #expect(TextTable.displayWidth("제주") == 4)
        #expect(TextTable.displayWidth("東京") == 4)
        #expect(TextTable.displayWidth("Zürich") == 6)
        #expect(TextTable.displayWidth("e\u{301}") == 1)
    }
}
