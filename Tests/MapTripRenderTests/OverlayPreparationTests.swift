import Cairo
import Foundation
import MapTripCore
@testable import MapTripRender
import Testing

/// The places' labels made ahead (`FrameRenderer.prepareOverlays`, while a render starts) are the
/// labels a frame draws: the same pixels as without, and drawn before the frame.
@Suite struct OverlayPreparationTests {
    @Test func preparedLabelsDrawTheSameFrame() throws {
        let places = [Place(name: "東京 Tokyo", position: LonLat(lon: 139.69, lat: 35.69)),
                      Place(name: "Москва", position: LonLat(lon: 37.62, lat: 55.76)),
                      Place(name: "London", position: LonLat(lon: -0.13, lat: 51.51))]
        let sc = scene(places, width: 640, height: 360)
        let values = FrameValues(camera: Camera(center: LonLat(lon: 60, lat: 45), zoom: 1.2), reached: places.count,
                                 current: 1, titleOpacity: 0)
        var pixels: [[UInt8]] = []
        for prepared in [false, true] {
            let overlay = PlacesOverlay()
            let r = try FrameRenderer(scene: sc, baseMap: GlobePinTests.Blank(), overlays: [overlay])
            if prepared {
                r.prepareOverlays()
                // Drawn off this thread; the frame waits for it before its overlays.
            }
            try r.render(values)
            if prepared {
                #expect(overlay.labelPicturesDrawn >= 2 * places.count, "both styles of every label, ahead")
            } else {
                #expect(overlay.labelPicturesDrawn <= places.count + 1, "only the labels the frame shows")
            }
            pixels.append(Array(UnsafeBufferPointer(start: r.surface.data, count: r.surface.stride * r.surface.height)))
        }
        #expect(pixels[0] == pixels[1])
    }
}
