import Foundation
import Testing
import TestSupport
import MapTripGeometry
import MapTripScene
@testable import MapTripRender

/// Where overlays go in a frame: label placement and the frame layout (moved from the cinematics
/// tests when layout moved to the render module).
@Suite("Layout")
struct LayoutTests {
    static func overlap(_ a: Box, _ b: Box) -> Bool {
        a.minX < b.maxX && b.minX < a.maxX && a.minY < b.maxY && b.minY < a.maxY
    }

    static func padded(_ b: Box, _ p: Double) -> Box {
        Box(minX: b.minX - p, minY: b.minY - p, maxX: b.maxX + p, maxY: b.maxY + p)
    }

    // MARK: 5. Label placement

    static let labelBounds = Box(minX: 0, minY: 0, maxX: 1920, maxY: 1080)

    static func randomRequests(_ count: Int, seed: UInt64, always: [Int: (Double, Double)]) -> [LabelPlacer.Request] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { k in
            var x = rng.unit() * 1920, y = rng.unit() * 1080
            if let fixed = always[k] { (x, y) = fixed }
            return LabelPlacer.Request(anchorX: x, anchorY: y, width: 120, height: 28, gap: 10, rise: 24,
                                       always: always[k] != nil)
        }
    }

    /// Checks the placer's promises for one layout: inside the bounds, no overlaps (with the padding),
    /// obstacles avoided, always-labels shown, each label at its first free candidate, and a hidden
    /// label only when every candidate collides.
    static func checkPlacement(_ requests: [LabelPlacer.Request], obstacles: [Box], padding: Double) -> [Box?] {
        let boxes = LabelPlacer.place(requests, within: labelBounds, avoiding: obstacles, padding: padding)
        #expect(boxes.count == requests.count)
        let placed = boxes.indices.filter { boxes[$0] != nil }
        for k in placed {
            let b = boxes[k]!
            #expect(labelBounds.contains(b), "label \(k) \(b) leaves the frame")
            #expect(abs(b.maxX - b.minX - 120) < 1e-9 && abs(b.maxY - b.minY - 28) < 1e-9)
            for m in placed where m > k {
                #expect(!overlap(padded(b, padding), boxes[m]!), "labels \(k) and \(m) overlap")
            }
            if !requests[k].always {
                #expect(!obstacles.contains { overlap(b, $0) }, "label \(k) covers an obstacle")
            }
        }
        for (k, r) in requests.enumerated() where r.always { #expect(boxes[k] != nil, "always-label \(k) hidden") }

        // Placed in order (always-labels first): each takes its first candidate free at its turn.
        let order = requests.indices.filter { requests[$0].always } + requests.indices.filter { !requests[$0].always }
        for (turn, k) in order.enumerated() where !requests[k].always {
            let before = order[..<turn].compactMap { boxes[$0] }
            func free(_ c: Box) -> Bool {
                labelBounds.contains(c) && !before.contains { overlap(padded(c, padding), $0) }
                    && !obstacles.contains { overlap(c, $0) }
            }
            let candidates = requests[k].candidates()
            if let b = boxes[k] {
                let index = candidates.firstIndex(of: b)
                #expect(index != nil, "label \(k) is not at one of its candidates")
                if let index { #expect(!candidates[..<index].contains(where: free), "label \(k) skipped a free spot") }
            } else {
                #expect(!candidates.contains(where: free), "label \(k) hidden with a free spot")
            }
        }
        return boxes
    }

    @Test func denseLabelsNeverOverlap() {
        let always: [Int: (Double, Double)] = [0: (400, 300), 20: (1500, 700)]
        let requests = Self.randomRequests(40, seed: 0x5EED_CAFE, always: always)
        let caption = Box(minX: 300, minY: 940, maxX: 1620, maxY: 1040)
        let boxes = Self.checkPlacement(requests, obstacles: [caption], padding: 0)
        #expect(boxes.compactMap { $0 }.count >= 30)
        _ = Self.checkPlacement(requests, obstacles: [caption], padding: 6)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func crowdedLabelsHideSome(seed: UInt64) {
        let requests = Self.randomRequests(250, seed: seed, always: [0: (960, 540)])
        let boxes = Self.checkPlacement(requests, obstacles: [], padding: 2)
        let hidden = boxes.filter { $0 == nil }.count
        #expect(hidden > 0 && hidden < requests.count, "\(hidden) hidden")
    }

    @Test func aLabelWithNoFreeSpotIsHidden() {
        let r = LabelPlacer.Request(anchorX: 960, anchorY: 540, width: 120, height: 28, gap: 10, rise: 24)
        // Every candidate lies within 200 px of the anchor: a card over all of them.
        let card = Box(minX: 700, minY: 300, maxX: 1220, maxY: 780)
        #expect(r.candidates().allSatisfy { Self.overlap($0, card) })
        #expect(LabelPlacer.place([r], within: Self.labelBounds, avoiding: [card]) == [nil])
        var current = r
        current.always = true
        // The current place's label shows anyway, inside the frame.
        let shown = LabelPlacer.place([r, current], within: Self.labelBounds, avoiding: [card])
        #expect(shown[0] == nil)
        #expect(shown[1] != nil && Self.labelBounds.contains(shown[1]!))
        // A label whose every candidate leaves the frame is hidden; the current one is kept inside.
        let outside = LabelPlacer.Request(anchorX: 3000, anchorY: -500, width: 120, height: 28, gap: 10, rise: 24)
        var outsideCurrent = outside
        outsideCurrent.always = true
        let placed = LabelPlacer.place([outside, outsideCurrent], within: Self.labelBounds)
        #expect(placed[0] == nil)
        #expect(placed[1] != nil && Self.labelBounds.contains(placed[1]!))
        // Two labels competing for the right side: the second takes its next free spot.
        let twin = LabelPlacer.place([r, r], within: Self.labelBounds)
        #expect(twin[0] == r.candidates()[0])
        #expect(twin[1] != nil && !Self.overlap(twin[0]!, twin[1]!))
    }

    @Test func alwaysLabelsKeptInsideTheFrameDoNotLandOnEachOther() {
        // Two current-place labels for a pin just above the frame: no candidate fits, so both are moved
        // inside; the second must not be moved onto the first.
        let r = LabelPlacer.Request(anchorX: 960, anchorY: -60, width: 120, height: 28, gap: 10, rise: 24, always: true)
        #expect(!r.candidates().contains { Self.labelBounds.contains($0) })
        let boxes = LabelPlacer.place([r, r], within: Self.labelBounds, padding: 3)
        #expect(boxes.allSatisfy { $0 != nil && Self.labelBounds.contains($0!) })
        if let a = boxes[0], let b = boxes[1] {
            #expect(!Self.overlap(Self.padded(a, 3), b), "\(a) and \(b) overlap")
        }
        // A single one is the first candidate moved inside, as before.
        let one = LabelPlacer.place([r], within: Self.labelBounds)
        #expect(one == [Box(minX: 970, minY: 0, maxX: 1090, maxY: 28)])
    }

    // MARK: 6. The frame layout

    @Test(arguments: [(1920, 1080), (1080, 1920), (1080, 1080), (3840, 2160), (1280, 720), (1080, 1350)])
    func frameLayout(width: Int, height: Int) {
        let layout = FrameLayout(width: width, height: height)
        let w = Double(width), h = Double(height)
        #expect(layout.unit == min(w, h) / 1080 * SafeArea.upright(width: w, height: h))
        #expect(abs(layout.size(10) - 10 * layout.unit) < 1e-12)
        let safe = layout.safe
        #expect(layout.frame.contains(safe))
        #expect(safe.minX >= 0.05 * w - 1e-9 && w - safe.maxX >= 0.05 * w - 1e-9)
        #expect(safe.minY >= 0.05 * h - 1e-9 && h - safe.maxY >= 0.05 * h - 1e-9)
        #expect(safe.maxX > safe.minX && safe.maxY > safe.minY)
        for aspect in [0.5, 1, 2, 16.0 / 9, 9.0 / 16] {
            let box = layout.photoBox(aspect: aspect)
            let bw = box.maxX - box.minX, bh = box.maxY - box.minY
            #expect(bw > 0 && bh > 0)
            #expect(safe.contains(box), "\(width)x\(height) aspect \(aspect): \(box) outside \(safe)")
            #expect(abs(bw / bh - aspect) < 1e-9 * aspect, "\(width)x\(height): \(bw / bh) is not \(aspect)")
            if layout.isPortrait {
                #expect((box.minY + box.maxY) / 2 < h / 2, "a tall frame puts the photo in its upper part")
            } else {
                #expect(box.minX >= w / 2, "a wide frame puts the photo in its right half")
            }
            // It keeps clear of the caption at the bottom of the safe area.
            #expect(box.maxY < layout.captionBottom)
        }
        for bad in [0.0, -1, .nan, .infinity] {
            let box = layout.photoBox(aspect: bad)
            #expect(abs((box.maxX - box.minX) - (box.maxY - box.minY)) < 1e-9, "aspect \(bad) falls back to square")
        }
        #expect(layout.isPortrait == (h > 1.2 * w))
    }

    @Test func layoutScalesWithTheShorterSide() {
        let hd = FrameLayout(width: 1920, height: 1080), uhd = FrameLayout(width: 3840, height: 2160)
        #expect(uhd.unit == 2 * hd.unit)
        let a = hd.photoBox(aspect: 1.5), b = uhd.photoBox(aspect: 1.5)
        for (x, y) in [(a.minX, b.minX), (a.minY, b.minY), (a.maxX, b.maxX), (a.maxY, b.maxY)] {
            #expect(abs(2 * x - y) < 1e-9)
        }
        // Upright frames, watched on a phone, have larger text and pins: 1.4 times at 9:16.
        let phone = FrameLayout(width: 1080, height: 1920).unit
        #expect(abs(phone - 1.4 * FrameLayout(width: 1920, height: 1080).unit) < 1e-12)
        let square = FrameLayout(width: 1080, height: 1080).unit, portrait = FrameLayout(width: 1080, height: 1350).unit
        #expect(1 < square && square < portrait && portrait < phone)
        #expect(FrameLayout(width: 2560, height: 1080).unit == 1)
    }

    @Test(arguments: SafeZone.allCases)
    func aPlatformsZoneIsKeptClear(zone: SafeZone) {
        let layout = FrameLayout(width: 1080, height: 1920, safeZone: zone)
        let standard = FrameLayout(width: 1080, height: 1920)
        let z = zone.insets
        #expect(layout.safe.minX >= z.left * 1080 - 1e-9 && layout.safe.maxX <= 1080 * (1 - z.right) + 1e-9)
        #expect(layout.safe.minY >= z.top * 1920 - 1e-9 && layout.safe.maxY <= 1920 * (1 - z.bottom) + 1e-9)
        // Never less than the standard margins; `social` inside every platform's zone.
        #expect(standard.safe.contains(layout.safe))
        #expect(FrameLayout(width: 1080, height: 1920, safeZone: zone).safe.contains(FrameLayout(width: 1080, height: 1920, safeZone: .social).safe))
        // The cards keep inside it.
        #expect(layout.safe.padded(by: 1e-6).contains(layout.photoBox(aspect: 1.5)))
        #expect(layout.captionBottom <= 1920 * (1 - z.bottom) + 1e-9)
        // The credit shows: in the frame's corner, or inside a platform's zone.
        #expect(zone == .standard ? layout.creditBottom == 1920 : layout.safe.contains(Box(minX: layout.creditRight - 1, minY: layout.creditBottom - 1, maxX: layout.creditRight, maxY: layout.creditBottom)))
    }
}
