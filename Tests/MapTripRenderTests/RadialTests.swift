import Cairo
import Foundation
import MapTripScene
@testable import MapTripRender
import Testing
import RasterKernels

/// maptrip's own concentric gradients (`PixelTarget.radial`, `Kernels.radialOver`: the globe's
/// atmosphere and sea disc) against Cairo's radial gradients over the same rings: each pixel close,
/// nothing painted outside the ring, the disc's inside exactly its colour.
@Suite(.enabled(if: Kernels.isAvailable, "maptrip's own gradients need AVX2"))
struct RadialTests {
    typealias Stops = [(offset: Double, color: Color)]
    static let glow: Stops = [(0, Color(red: 0.35, green: 0.55, blue: 0.95, alpha: 0.8)),
                              (0.35, Color(red: 0.35, green: 0.55, blue: 0.95, alpha: 0.3)),
                              (1, Color(red: 0.35, green: 0.55, blue: 0.95, alpha: 0))]

    /// A frame-like surface (space above, a band of something else below) of 420 x 300.
    static func background() throws -> ImageSurface {
        let s = try ImageSurface(width: 420, height: 300)
        try s.withContext { cr in
            cr.setSource(Color(red: 0.02, green: 0.03, blue: 0.08, alpha: 1))
            cr.paint()
            cr.setSource(Color(red: 0.8, green: 0.7, blue: 0.2, alpha: 1))
            cr.rectangle(0, 200, 420, 100)
            cr.fill()
        }
        s.flush()
        return s
    }

    /// Paints the ring both ways: Cairo (an even-odd annulus filled with its radial gradient) and ours,
    /// through a context moved by `shift` rows and clipped to `clip` (a band's, as `Bands` draws).
    static func both(cx: Double, cy: Double, inner: Double, outer: Double, from g0: Double, to g1: Double,
                     stops: Stops) throws -> (ours: ImageSurface, cairo: ImageSurface) {
        let cairo = try background(), ours = try background()
        try cairo.withContext { cr in
            let g = try RadialGradient(x0: cx, y0: cy, r0: g0, x1: cx, y1: cy, r1: g1)
            for (offset, c) in stops { g.addStop(offset, red: c.red, green: c.green, blue: c.blue, alpha: c.alpha) }
            cr.newPath()
            cr.arc(x: cx, y: cy, radius: outer)
            if inner > 0 {
                cr.newSubPath()
                cr.arc(x: cx, y: cy, radius: inner)
            }
            cr.setFillRule(.evenOdd)
            cr.setSource(g)
            cr.fill()
        }
        cairo.flush()
        // Two bands, each through a context of its own moved to frame coordinates (as `Bands` does).
        for rows in [0..<130, 130..<300] {
            let band = try ours.band(rows)
            let cr = try Context(surface: band)
            cr.translate(0, -Double(rows.lowerBound))
            let target = try #require(PixelTarget(cr))
            #expect(target.radial(cx: cx, cy: cy, inner: inner, outer: outer, from: g0, to: g1, stops: stops))
            band.flush()
        }
        ours.markDirty()
        ours.flush()
        return (ours, cairo)
    }

    /// The largest and mean channel difference, and how many pixels differ at all.
    static func difference(_ a: ImageSurface, _ b: ImageSurface) -> (worst: Int, mean: Double, differing: Int) {
        var worst = 0, total = 0, differing = 0
        for y in 0..<a.height {
            for x in 0..<(a.width * 4) {
                let d = abs(Int(a.data[y * a.stride + x]) - Int(b.data[y * b.stride + x]))
                worst = max(worst, d)
                total += d
                if d > 0 && x % 4 == 0 { differing += 1 }
            }
        }
        return (worst, Double(total) / Double(a.width * a.height * 4), differing)
    }

    @Test func aGlowRingMatchesCairosGradient() throws {
        let (ours, cairo) = try Self.both(cx: 210.3, cy: 140.6, inner: 98, outer: 131, from: 98, to: 131, stops: Self.glow)
        let d = Self.difference(ours, cairo)
        // Cairo's circle is a polygon within a tenth of a pixel, its edge's cover in steps of a fifteenth
        // (as the filler's tests allow); ours is the distance's.
        #expect(d.worst <= 24, "\(d)")
        #expect(d.mean < 0.1, "\(d)")
        // Inside the ring's hole and well outside it, the background as it was.
        let bg = try Self.background()
        for (x, y) in [(210, 140), (250, 160), (10, 10), (410, 290), (210, 5)] {
            #expect(memcmp(ours.data + y * ours.stride + 4 * x, bg.data + y * bg.stride + 4 * x, 4) == 0, "(\(x), \(y))")
        }
        // And the gradient itself: brighter near the inner circle than near the outer.
        func blue(_ x: Int, _ y: Int) -> Int { Int(ours.data[y * ours.stride + 4 * x]) }
        #expect(blue(210 + 101, 140) > blue(210 + 125, 140) + 40)
    }

    @Test func aDiscIsItsColourInsideAndCairosAtItsEdge() throws {
        let sea = Color(red: 0.1, green: 0.2, blue: 0.35, alpha: 1)
        let (ours, cairo) = try Self.both(cx: 200, cy: 150.25, inner: 0, outer: 120.4, from: 0, to: 120.4, stops: [(0, sea)])
        let d = Self.difference(ours, cairo)
        #expect(d.worst <= 24, "\(d)")
        #expect(d.mean < 0.1, "\(d)")
        // Every pixel wholly inside is exactly the colour (written, not blended).
        let s = solidPixel(sea)
        for (x, y) in [(200, 150), (120, 150), (200, 40), (290, 220)] {
            #expect(ours.data.advanced(by: y * ours.stride + 4 * x).withMemoryRebound(to: UInt32.self, capacity: 1) { $0[0] } == s)
        }
    }

    @Test func aRingLargerThanTheFrameDrawsOnlyItsArc() throws {
        // A globe of radius 5000 whose limb crosses the frame (a zoomed-in globe's rim).
        let rim: Stops = [(0, Color(red: 0.4, green: 0.6, blue: 1, alpha: 0)), (1, Color(red: 0.4, green: 0.6, blue: 1, alpha: 0.45))]
        let (ours, cairo) = try Self.both(cx: 210, cy: 5150, inner: 4500, outer: 5000, from: 4500, to: 5000, stops: rim)
        let d = Self.difference(ours, cairo)
        #expect(d.worst <= 24, "\(d)")
        #expect(d.mean < 0.15, "\(d)")
        #expect(d.differing < 420 * 300 / 10)
    }

    func solidPixel(_ c: Color) -> UInt32 {
        func ch(_ v: Double) -> UInt32 { UInt32((v * c.alpha * 255).rounded()) }
        return UInt32((c.alpha * 255).rounded()) << 24 | ch(c.red) << 16 | ch(c.green) << 8 | ch(c.blue)
    }
}
