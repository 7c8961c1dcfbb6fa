import Foundation
import Testing
import MapTripGeometry
import MapTripScene
import MapTripTime
@testable import MapTripRender

/// Issue 56's leftovers on boxes: a tall frame's first photo card clear of the opening's title card,
/// and pins and labels clear of the end card while the closing pulls out past it.
@Suite("Cards keep clear")
struct CardClearanceTests {
    /// Jeju, Busan, Seoul: a trip northward, so that as the closing pulls out from Seoul the earlier
    /// pins come up from under the end card.
    static func northward(width: Int, height: Int) -> Scene {
        var scene = Scene(title: "Korea in a week", flight: 1, video: Video(width: width, height: height, fps: 10), places: [
            Place(name: "Jeju", position: LonLat(lon: 126.531, lat: 33.500), dwell: 2, zoom: 8),
            Place(name: "Busan", position: LonLat(lon: 129.076, lat: 35.180), dwell: 2, zoom: 8),
            Place(name: "Seoul", position: LonLat(lon: 126.978, lat: 37.567), dwell: 2, zoom: 8),
        ], end: EndCard(title: "Korea", subtitle: "Jeju · Busan · Seoul"), outro: 2)
        scene.opening = true
        scene.closing = true
        return scene
    }

    @Test(arguments: [(1080, 1920), (1920, 1080), (1080, 1080)])
    func theFirstPhotoCardKeepsClearOfTheTitleCard(width: Int, height: Int) throws {
        let scene = Self.northward(width: width, height: height)
        let layout = FrameLayout(width: width, height: height)
        let text = TextCache()
        let title = try #require(try TitleOverlay.titleBox(scene, layout: layout, text: text))
        let timeline = Timeline(scene: scene)
        let renderer = try FrameRenderer(scene: scene, baseMap: TransparentBaseMap())
        let frame = renderer.context(timeline.values(at: 0), frame: 0)
        for aspect in [0.75, 4.0 / 3, 16.0 / 9] {
            let photo = frame.photoBox(aspect: aspect, place: 0, text: text)
            #expect(!photo.overlaps(title), "\(width)x\(height), aspect \(aspect): photo \(photo), title \(title)")
            #expect(layout.safe.contains(photo))
            // At least a fifth of the safe area's width: a card, not a stamp.
            #expect(photo.maxX - photo.minX > (layout.safe.maxX - layout.safe.minX) / 5)
        }
        // Later places' cards are as before: the title does not show over them.
        #expect(frame.photoBox(aspect: 1.5, place: 1, text: text) == layout.photoBox(aspect: 1.5))
    }

    @Test(arguments: [(1920, 1080), (1080, 1920)])
    func pinsUnderTheEndCardFadeWithIt(width: Int, height: Int) throws {
        let scene = Self.northward(width: width, height: height)
        let timeline = Timeline(scene: scene)
        let renderer = try FrameRenderer(scene: scene, baseMap: TransparentBaseMap(), overlays: [PlacesOverlay()])
        renderer.planBaseMap(timeline)
        let card = try #require(try TitleOverlay.endBox(scene, layout: renderer.layout, text: TextCache()))
        var under = 0, checked = 0
        for n in 0..<timeline.frameCount {
            let values = timeline.values(at: n)
            guard let end = values.cards.first(where: { if case .end = $0.cue { true } else { false } }), end.opacity > 0 else { continue }
            // A pin's tip inside the card: what the old frames drew over it.
            let v = renderer.viewport(values.camera)
            if values.pins.contains(where: { pin in
                v.pixel(scene.places[pin.place].position).map { card.contains(x: $0.x, y: $0.y) } ?? false
            }) { under += 1 }
            try renderer.render(values, frame: n)
            let s = renderer.surface
            var alpha = 0
            for y in Int(card.minY.rounded(.up))..<Int(card.maxY) {
                for x in Int(card.minX.rounded(.up))..<Int(card.maxX) {
                    alpha = max(alpha, Int(s.data[y * s.stride + x * 4 + 3]))
                }
            }
            #expect(Double(alpha) <= 255 * (1 - end.opacity) + 3, "frame \(n): alpha \(alpha) under the card at \(end.opacity)")
            checked += 1
        }
        #expect(checked > 5)
        #expect(under > 0, "no pin came under the end card: the test shows nothing")
    }
}

private extension Box {
    func contains(x: Double, y: Double) -> Bool { x >= minX && x <= maxX && y >= minY && y <= maxY }
}
