import Foundation
import MapTripGeometry
@testable import MapTripRender
import Testing

/// The rectangles a styled map's labels are drawn and blended in over an I420 picture
/// (`StyledMap.inkAreas`): apart, even, within the frame, each label's ink inside the one that holds it.
struct LabelInkAreasTests {
    @Test(arguments: [1, 7, 58])
    func areasAreApartAndHoldEveryLabelOnce(seed: UInt64) {
        var state = seed
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        let width = 640, height = 360
        // Labels crowded enough to meet (and some past the frame's edges).
        let inks = (0..<80).map { _ -> Box in
            let x = next() * 760 - 60, y = next() * 440 - 40, w = 8 + next() * 90, h = 6 + next() * 20
            return Box(minX: x, minY: y, maxX: x + w, maxY: y + h)
        }
        let areas = StyledMap.inkAreas(inks, width: width, height: height)
        #expect(areas.count > 5 && areas.count < inks.count, "\(areas.count) areas: some labels merged, not all")
        var seen: [Int] = []
        for (i, a) in areas.enumerated() {
            let r = a.rect
            #expect(r.x % 2 == 0 && r.y % 2 == 0 && r.width % 2 == 0 && r.height % 2 == 0, "\(r) not even")
            #expect(r.x >= 0 && r.y >= 0 && r.x + r.width <= width && r.y + r.height <= height, "\(r) outside the frame")
            #expect(a.labels == a.labels.sorted())
            for (j, b) in areas.enumerated() where j > i {
                let o = b.rect
                let meet = o.x < r.x + r.width && r.x < o.x + o.width && o.y < r.y + r.height && r.y < o.y + o.height
                #expect(!meet, "\(r) and \(o) overlap")
            }
            for l in a.labels {
                // The label's ink, within the frame, is inside its area.
                let ink = inks[l]
                #expect(max(ink.minX, 0) >= Double(r.x) && max(ink.minY, 0) >= Double(r.y)
                        && min(ink.maxX, Double(width)) <= Double(r.x + r.width)
                        && min(ink.maxY, Double(height)) <= Double(r.y + r.height), "label \(l) \(ink) outside \(r)")
            }
            seen += a.labels
        }
        // Every label that shows in the frame, once; those wholly outside it, not at all.
        let shown = inks.indices.filter { inks[$0].maxX > 0 && inks[$0].maxY > 0 && inks[$0].minX < Double(width) && inks[$0].minY < Double(height) }
        #expect(seen.sorted() == shown)
    }
}
