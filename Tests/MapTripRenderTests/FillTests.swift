import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
@testable import MapTripRender
import Testing
import RasterKernels

/// maptrip's own filler (`PixelTarget.fill`, `Kernels.fillNonZero`) against Cairo's non-zero fills
/// of the same polygons: the same ink, each pixel close, clipped and moved as Cairo's context is.
@Suite struct FillTests {
    /// Rings in pixels: a wavy coast-like polygon with a hole (a lake, wound the other way), a
    /// five-pointed star drawn in one self-crossing ring (its centre wound twice: filled by the
    /// non-zero rule), slivers and a polygon smaller than a pixel, and one running far off the frame.
    static let rings: [[(x: Double, y: Double)]] = {
        var coast: [(x: Double, y: Double)] = (0..<120).map { i in
            let a = Double(i) / 120 * 2 * .pi
            let r = 90 + 12 * sin(7 * a) + 5 * cos(17 * a)
            return (x: 150 + r * cos(a), y: 130 + 0.8 * r * sin(a))
        }
        coast.append(coast[0])
        let hole: [(x: Double, y: Double)] = (0..<40).reversed().map { i in
            let a = Double(i) / 40 * 2 * .pi
            return (x: 140 + 25 * cos(a), y: 120 + 18 * sin(a))
        }
        let star: [(x: Double, y: Double)] = (0..<5).map { i in
            let a = -Double.pi / 2 + Double(i * 2) * 2 * .pi / 5
            return (x: 330 + 60 * cos(a), y: 120 + 60 * sin(a))
        }
        let sliver: [(x: Double, y: Double)] = [(x: 250.2, y: 220.1), (x: 410.7, y: 228.9), (x: 251.0, y: 221.3)]
        let speck: [(x: Double, y: Double)] = [(x: 20.3, y: 20.2), (x: 20.9, y: 20.4), (x: 20.5, y: 20.8)]
        // (Cairo's fixed point holds +-8.4 million: within it, both draw the same wedge.)
        let far: [(x: Double, y: Double)] = [(x: -2e6, y: 240), (x: 60, y: 200.5), (x: 1e6, y: 5e5)]
        return [coast, hole, star, sliver, speck, far]
    }()

    static func path(_ rings: [[(x: Double, y: Double)]]) -> PixelPath {
        var p = PixelPath()
        p.closed = true
        for ring in rings {
            p.starts.append(p.xs.count)
            for q in ring {
                p.xs.append(q.x)
                p.ys.append(q.y)
            }
        }
        return p
    }

    static func cairoFill(_ rings: [[(x: Double, y: Double)]], color: Color, in cr: Context) {
        cr.setFillRule(.winding)
        cr.setSource(color)
        RoundStrokeTests.trace(rings, closed: true, in: cr)
        cr.fill()
    }

    /// Draws `rings` over the background with Cairo and with the filler.
    static func both(_ rings: [[(x: Double, y: Double)]], color: Color) throws -> (ours: ImageSurface, cairo: ImageSurface) {
        let cairo = try RoundStrokeTests.background(), ours = try RoundStrokeTests.background()
        try cairo.withContext { cr in Self.cairoFill(rings, color: color, in: cr) }
        var drawn = false
        try ours.withContext { cr in drawn = try #require(PixelTarget(cr)).fill(Self.path(rings), color: color) }
        cairo.flush()
        ours.flush()
        #expect(drawn)
        return (ours, cairo)
    }

    static func alpha(_ s: ImageSurface, _ x: Int, _ y: Int) -> UInt8 { s.data[y * s.stride + x * 4 + 3] }

    @Test(arguments: [1.0, 0.55])
    func itFillsWhatCairoFills(alpha: Double) throws {
        guard Kernels.isAvailable else { return }
        let color = Color(red: 0.95, green: 0.93, blue: 0.88, alpha: alpha)
        // Every ring but the self-crossing star.
        let (ours, cairo) = try Self.both(Self.rings.enumerated().filter { $0.offset != 2 }.map(\.element), color: color)
        // The ink the same within a tenth of a percent; no 4x4 block off by more than a pixel's
        // worth of alpha; no byte by more than 20 levels: Cairo samples fifteen sub-rows a row, so a
        // shallow edge's cover steps by 17 levels in its pixels, where the filler takes the exact area.
        let blocks = AlphaBlocks.difference(ours, cairo)
        #expect(blocks.ink > 60_000 * 255 / 2, "\(blocks)")
        #expect(Double(blocks.total) <= 0.001 * Double(blocks.ink), "alpha \(alpha): \(blocks)")
        #expect(blocks.block <= 255, "alpha \(alpha): \(blocks)")
        let bytes = AlphaBlocks.bytes(ours, cairo)
        #expect(bytes.worst <= 20, "alpha \(alpha): \(bytes)")
        // The hole is open; the far ring's wedge is there.
        let background = try RoundStrokeTests.background()
        #expect(Self.alpha(ours, 140, 120) == Self.alpha(background, 140, 120), "the hole")
        #expect(Self.alpha(ours, 5, 250) == Self.alpha(cairo, 5, 250) && Self.alpha(ours, 5, 250) != Self.alpha(background, 5, 250),
                "the far ring")
    }

    /// A ring that crosses itself, its centre wound twice: filled by the non-zero rule. Where two of
    /// its edges cross inside a pixel their covers add (up to the whole pixel), where Cairo takes the
    /// union: a little more ink at the crossings, the rest the same.
    @Test func aSelfCrossingRingIsFilledByTheNonZeroRule() throws {
        guard Kernels.isAvailable else { return }
        let (ours, cairo) = try Self.both([Self.rings[2]], color: Color(red: 0.2, green: 0.3, blue: 0.4, alpha: 1))
        let blocks = AlphaBlocks.difference(ours, cairo)
        #expect(blocks.ink > 4_000 * 255, "\(blocks)")
        #expect(Double(blocks.total) <= 0.005 * Double(blocks.ink), "\(blocks)")
        #expect(Self.alpha(ours, 330, 122) == 255 && Self.alpha(cairo, 330, 122) == 255, "the centre")
    }

    /// A band of rows filled on its own, through a clip and a translation (as a held picture is drawn
    /// band by band), gets the same pixels as the whole, byte for byte; a narrower clip leaves what is
    /// outside it.
    @Test func aClippedAndMovedContextFillsTheSameRowsAsTheWhole() throws {
        guard Kernels.isAvailable else { return }
        let color = Color(red: 0.3, green: 0.6, blue: 0.2, alpha: 0.9)
        let whole = try RoundStrokeTests.background()
        try whole.withContext { cr in _ = try #require(PixelTarget(cr)).fill(Self.path(Self.rings), color: color) }
        whole.flush()
        for narrow in [false, true] {
            // Rows 100-159 through a band of their own, clipped to rows 10-49 (and to columns 30-389).
            let band = try ImageSurface(width: 420, height: 60)
            let redrawn = try RoundStrokeTests.background()
            for y in 0..<60 {
                (band.data + y * band.stride).update(from: redrawn.data + (100 + y) * redrawn.stride, count: 420 * 4)
            }
            band.markDirty()
            let columns = narrow ? 30..<390 : 0..<420
            try band.withContext { cr in
                cr.rectangle(Double(columns.lowerBound), 10, Double(columns.count), 40)
                cr.clip()
                cr.translate(0, -100)
                _ = try #require(PixelTarget(cr)).fill(Self.path(Self.rings), color: color)
            }
            band.flush()
            var worst = 0, changed = 0
            for y in 0..<60 {
                for x in 0..<420 {
                    let inClip = (10..<50).contains(y) && columns.contains(x)
                    let source = inClip ? whole : redrawn
                    for c in 0..<4 {
                        let a = Int(band.data[y * band.stride + 4 * x + c]), b = Int(source.data[(100 + y) * source.stride + 4 * x + c])
                        if !inClip && a != b { changed += 1 }
                        worst = max(worst, abs(a - b))
                    }
                }
            }
            #expect(changed == 0, "narrow \(narrow): \(changed) bytes outside the clip changed")
            // Full rows: exactly the whole's. A clip's left edge cuts the edges crossing it: their
            // pieces' areas round differently in the column they cross.
            #expect(worst <= (narrow ? 1 : 0), "narrow \(narrow): worst \(worst)")
        }
    }

    /// A point that is not a number (a projection's failure) is left out and its neighbours joined:
    /// the ring stays closed, and fills as the ring without it (Cairo is not given such points).
    @Test func aPointThatIsNotANumberIsLeftOut() throws {
        guard Kernels.isAvailable else { return }
        let color = Color(red: 0.5, green: 0.2, blue: 0.1, alpha: 1)
        let coast = Self.rings[0]
        var broken = coast
        broken.insert((x: .nan, y: 40), at: 30)
        broken.insert((x: 100, y: .infinity), at: 61)
        broken.insert((x: .nan, y: .nan), at: 0)
        let with = try RoundStrokeTests.background(), without = try RoundStrokeTests.background()
        try with.withContext { cr in _ = try #require(PixelTarget(cr)).fill(Self.path([broken]), color: color) }
        try without.withContext { cr in _ = try #require(PixelTarget(cr)).fill(Self.path([coast]), color: color) }
        with.flush()
        without.flush()
        let bytes = AlphaBlocks.bytes(with, without)
        #expect(bytes.differing == 0, "\(bytes)")
        #expect(AlphaBlocks.difference(with, try RoundStrokeTests.background()).total > 20_000 * 255 / 2)
    }

    @Test func nothingOutsideTheClipOrOfNoAlphaIsDrawn() throws {
        guard Kernels.isAvailable else { return }
        let surface = try RoundStrokeTests.background(), untouched = try RoundStrokeTests.background()
        try surface.withContext { cr in
            let target = try #require(PixelTarget(cr))
            // Wholly left, right, above and below the surface; then a ring of no alpha.
            let outside: [[(x: Double, y: Double)]] = [
                [(x: -50, y: 10), (x: -5, y: 10), (x: -20, y: 200)],
                [(x: 425, y: 10), (x: 900, y: 10), (x: 500, y: 200)],
                [(x: 10, y: -80), (x: 300, y: -1), (x: 100, y: -40)],
                [(x: 10, y: 261), (x: 300, y: 300), (x: 100, y: 400)],
            ]
            #expect(target.fill(Self.path(outside), color: Color(red: 1, green: 0, blue: 0, alpha: 1)))
            #expect(target.fill(Self.path(Self.rings), color: Color(red: 1, green: 0, blue: 0, alpha: 0)))
        }
        surface.flush()
        #expect(AlphaBlocks.bytes(surface, untouched).differing == 0)
    }
}

/// The base map's land and lakes through maptrip's filler against Cairo's fills, on the map's own data.
@Suite struct MapFillTests {
    static func draw(center: LonLat, zoom: Double, scale: Double, ownFiller: Bool) throws -> ImageSurface {
        let map = try ShapefileBaseMap(assets: assets, caching: MapCaching(cachesRasters: false))
        map.painter.fillsItself = ownFiller
        let w = Int(480 * scale), h = Int(270 * scale)
        let viewport = Viewport(camera: Camera(center: center, zoom: zoom), width: w, height: h, scale: scale)
        try map.prepare(for: [viewport])
        let surface = try ImageSurface(width: w, height: h)
        try surface.withContext { try map.draw(viewport, in: $0) }
        surface.flush()
        return surface
    }

    /// The Baltic's coasts and lakes (1:10m), the whole world at zoom 0 (1:110m, three copies across
    /// the frame), the Bering Strait across the antimeridian, and Finland's lakes at 2x.
    @Test(arguments: [(LonLat(lon: 20, lat: 58), 4.5, 1.0), (LonLat(lon: 0, lat: 20), 0.0, 1.0),
                      (LonLat(lon: 180, lat: 64), 3.5, 1.0), (LonLat(lon: 27, lat: 62), 5.5, 2.0)])
    func landAndLakesMatchCairosFills(center: LonLat, zoom: Double, scale: Double) throws {
        guard Kernels.isAvailable else { return }
        let ours = try Self.draw(center: center, zoom: zoom, scale: scale, ownFiller: true)
        let cairo = try Self.draw(center: center, zoom: zoom, scale: scale, ownFiller: false)
        var differing = 0, worst = 0, sum = 0, land = 0
        let landColor = MapStyle.standard.land
        let landBytes = [landColor.blue, landColor.green, landColor.red].map { Int(($0 * 255).rounded()) }
        for y in 0..<ours.height {
            for x in 0..<ours.width {
                var off = 0
                for c in 0..<3 {
                    let p = Int(ours.data[y * ours.stride + 4 * x + c]), q = Int(cairo.data[y * cairo.stride + 4 * x + c])
                    off = max(off, abs(p - q))
                    sum += abs(p - q)
                }
                if off > 0 { differing += 1 }
                worst = max(worst, off)
                if (0..<3).allSatisfy({ Int(cairo.data[y * cairo.stride + 4 * x + $0]) == landBytes[$0] }) { land += 1 }
            }
        }
        let pixels = ours.width * ours.height
        // Both show land (a real comparison), and differ only along edges, by a few levels.
        #expect(land > pixels / 10, "land pixels \(land) of \(pixels)")
        #expect(worst <= 24, "\(center) zoom \(zoom): worst \(worst)")
        #expect(Double(sum) / Double(pixels * 3) < 0.1, "\(center) zoom \(zoom): mean \(Double(sum) / Double(pixels * 3))")
        #expect(differing < pixels / 10, "\(center) zoom \(zoom): \(differing) pixels differ")
    }
}
