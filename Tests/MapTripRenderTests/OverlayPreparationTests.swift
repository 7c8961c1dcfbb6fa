import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
@testable import MapTripRender
import Testing

/// The places' labels made ahead (`FrameRenderer.prepareOverlays`, while a render starts) are the
/// labels a frame draws: the same pixels as without, and drawn before the frame; told the first
/// frame, only its labels are made before it, the rest by `drawAhead` on the drawing thread.
@Suite struct OverlayPreparationTests {
    enum Preparation { case none, all, firstFrameFirst }

    @Test func preparedLabelsDrawTheSameFrame() throws {
        let places = [Place(name: "東京 Tokyo", position: LonLat(lon: 139.69, lat: 35.69)),
                      Place(name: "Москва", position: LonLat(lon: 37.62, lat: 55.76)),
                      Place(name: "London", position: LonLat(lon: -0.13, lat: 51.51))]
        let sc = scene(places, width: 640, height: 360)
        let values = FrameValues(camera: Camera(center: LonLat(lon: 60, lat: 45), zoom: 1.2), reached: places.count,
                                 current: 1, titleOpacity: 0)
        var pixels: [[UInt8]] = []
        var madeWithAll = 0
        for preparation in [Preparation.none, .all, .firstFrameFirst] {
            let overlay = PlacesOverlay()
            let r = try FrameRenderer(scene: sc, baseMap: GlobePinTests.Blank(), overlays: [overlay])
            switch preparation {
            case .none:
                break
            case .all:
                // Drawn off this thread; the frame waits for it before its overlays.
                r.prepareOverlays()
            case .firstFrameFirst:
                r.prepareOverlays(first: values)
                #expect(try !r.drawAhead(), "nothing made on the drawing thread before the first frame's labels are")
            }
            try r.render(values)
            switch preparation {
            case .none:
                #expect(overlay.labelPicturesDrawn <= places.count + 1, "only the labels the frame shows")
            case .all:
                #expect(overlay.labelPicturesDrawn >= 2 * places.count, "both styles of every label, ahead")
                madeWithAll = overlay.labelPicturesDrawn
            case .firstFrameFirst:
                // Labels are made at whole pixels; the frame draws its own where it places them between.
                #expect(overlay.labelPicturesDrawn == madeWithAll - places.count,
                        "the first frame's labels, not the other style of each")
                var steps = 0
                while try r.drawAhead() { steps += 1 }
                #expect(steps == places.count, "the other style of each label, one a step")
                #expect(overlay.labelPicturesDrawn == madeWithAll)
            }
            pixels.append(Array(UnsafeBufferPointer(start: r.surface.data, count: r.surface.stride * r.surface.height)))
        }
        #expect(pixels[0] == pixels[1])
        #expect(pixels[0] == pixels[2])
    }
}
