import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
@testable import MapTripRender
import Testing
import RasterKernels

/// maptrip's own stroker for solid round lines (`RoundStroke`) against Cairo's strokes of the same
/// lines: the same ink, each pixel close, and where it steps aside for Cairo.
@Suite struct RoundStrokeTests {
    /// A route-like arc across a frame (a vertex every dozen pixels, steep and shallow stretches), a
    /// short second line with a sharp turn, a zero-length one (a dot with round caps) and one running
    /// off the frame.
    static let lines: [[(x: Double, y: Double)]] = [
        (0..<90).map { i in
            let t = Double(i) / 89
            return (x: 40 + 330 * t + 60 * sin(t * 3), y: 230 - 210 * t + 25 * sin(t * 5))
        },
        [(x: 300.3, y: 60.7), (x: 380.9, y: 75.2), (x: 392.0, y: 160.5)],
        [(x: 120.5, y: 40.25), (x: 120.5, y: 40.25)],
        [(x: -1e4, y: 200), (x: 250, y: 210.5), (x: 1e5, y: 3e4)],
    ]

    static func cairoStroke(_ lines: [[(x: Double, y: Double)]], width: Double, color: Color, in cr: Context) {
        cr.setLineCap(.round)
        cr.setLineJoin(.round)
        cr.setLineWidth(width)
        cr.setSource(color)
        trace(lines, closed: false, in: cr)
        cr.stroke()
    }

    /// A new path of the lines (closed: rings).
    static func trace(_ lines: [[(x: Double, y: Double)]], closed: Bool, in cr: Context) {
        cr.newPath()
        for line in lines {
            cr.move(to: line[0].x, line[0].y)
            for p in line.dropFirst() { cr.line(to: p.x, p.y) }
            if closed { cr.closePath() }
        }
    }

    /// A surface with something under the lines (they go over it), as the route goes over the map.
    static func background() throws -> ImageSurface {
        let s = try ImageSurface(width: 420, height: 260)
        try s.withContext { cr in
            cr.setSource(Color(red: 0.2, green: 0.5, blue: 0.8, alpha: 0.6))
            cr.rectangle(0, 130, 420, 130)
            cr.fill()
        }
        s.flush()
        return s
    }

    @Test(arguments: [0.6, 1.0, 2.5, 3.5, 9.0])
    func itDrawsWhatCairoDraws(width: Double) throws {
        guard Kernels.isAvailable else { return }
        let color = Color(red: 0.95, green: 0.45, blue: 0.1, alpha: 0.9)
        let cairo = try Self.background(), ours = try Self.background()
        try cairo.withContext { cr in Self.cairoStroke(Self.lines, width: width, color: color, in: cr) }
        cairo.flush()
        var drawn = false
        try ours.withContext { cr in
            let target = try #require(PixelTarget(cr))
            drawn = target.stroke(Self.lines, passes: [(color, width)])
        }
        ours.flush()
        #expect(drawn)
        // The ink the same within half a percent; no block of 4x4 pixels off by more than two and a
        // half percent of its alpha; no pixel by more than a third of full scale (where two edges of
        // a line share a pixel, at a sharp turn or a crossing, it takes the larger cover of the two,
        // where Cairo takes their union).
        let blocks = AlphaBlocks.difference(ours, cairo)
        #expect(Double(abs(blocks.total)) <= 0.005 * Double(blocks.ink), "width \(width): \(blocks)")
        #expect(blocks.block <= 100, "width \(width): \(blocks)")
        #expect(AlphaBlocks.bytes(ours, cairo).worst <= 85, "width \(width)")
    }

    @Test func aLineFromFarOffTheFrameIsDrawnAsItsVisiblePart() throws {
        guard Kernels.isAvailable else { return }
        // Cairo's fixed point cannot hold -1e9 (it draws the cut line here); the stroker cuts the
        // line to what it can show before its single-precision arithmetic.
        let far: [[(x: Double, y: Double)]] = [[(x: -1e9, y: 100 - 1e9 * 0.05), (x: 250, y: 112.5)]]
        let cut: [[(x: Double, y: Double)]] = [[(x: -100, y: 95), (x: 250, y: 112.5)]]
        let color = Color(red: 0.2, green: 0.2, blue: 0.2, alpha: 1)
        let cairo = try Self.background(), ours = try Self.background()
        try cairo.withContext { cr in Self.cairoStroke(cut, width: 3, color: color, in: cr) }
        try ours.withContext { cr in _ = try #require(PixelTarget(cr)).stroke(far, passes: [(color, 3)]) }
        cairo.flush()
        ours.flush()
        let blocks = AlphaBlocks.difference(ours, cairo)
        #expect(blocks.ink > 250 * 3 * 200)
        #expect(Double(abs(blocks.total)) <= 0.005 * Double(blocks.ink), "\(blocks)")
        #expect(blocks.block <= 100, "\(blocks)")
    }

    @Test func aClippedAndMovedContextDrawsTheSameRowsAsTheWhole() throws {
        guard Kernels.isAvailable else { return }
        let color = Color(red: 0.1, green: 0.2, blue: 0.3, alpha: 1)
        let whole = try Self.background()
        try whole.withContext { cr in
            _ = try #require(PixelTarget(cr)).stroke(Self.lines, passes: [(color, 4)])
        }
        whole.flush()
        // Rows 100-159 drawn into a band of their own, through a clip and a translation, as a frame's
        // overlays draw band by band.
        let band = try ImageSurface(width: 420, height: 60)
        let redrawn = try Self.background()
        for y in 0..<60 {
            (band.data + y * band.stride).update(from: redrawn.data + (100 + y) * redrawn.stride, count: 420 * 4)
        }
        band.markDirty()
        try band.withContext { cr in
            cr.rectangle(0, 10, 420, 40)
            cr.clip()
            cr.translate(0, -100)
            _ = try #require(PixelTarget(cr)).stroke(Self.lines, passes: [(color, 4)])
        }
        band.flush()
        for y in 0..<60 {
            let inClip = (10..<50).contains(y)
            let source = inClip ? whole : redrawn
            let same = memcmp(band.data + y * band.stride, source.data + (100 + y) * source.stride, 420 * 4) == 0
            #expect(same, "row \(y) of the band (\(inClip ? "inside" : "outside") the clip)")
        }
    }

    /// A route's outline and line in one call: every pixel as from the two strokes one after the
    /// other (each row gets both passes in turn), whatever the order of widths; a pass of no width or
    /// no alpha draws nothing.
    @Test(arguments: [(7.0, 3.5), (2.0, 5.0)])
    func passesInOneCallDrawWhatSeparateStrokesDraw(outline: Double, line: Double) throws {
        guard Kernels.isAvailable else { return }
        // The lines within the frame (no segment cut at the clip, where the widest pass's reach sets the cut).
        let inside = Array(Self.lines.prefix(3))
        let under = Color(red: 1, green: 1, blue: 1, alpha: 0.85), over = Color(red: 0.8, green: 0.1, blue: 0.3, alpha: 0.9)
        let together = try Self.background(), apart = try Self.background()
        var drawn = false
        try together.withContext { cr in
            drawn = try #require(PixelTarget(cr)).stroke(
                inside, passes: [(under, outline), (over, 0), (Color(red: 0, green: 0, blue: 0, alpha: 0), 9), (over, line)])
        }
        try apart.withContext { cr in
            let target = try #require(PixelTarget(cr))
            _ = target.stroke(inside, passes: [(under, outline)])
            _ = target.stroke(inside, passes: [(over, line)])
        }
        together.flush()
        apart.flush()
        #expect(drawn)
        var differing = 0
        for y in 0..<together.height {
            if memcmp(together.data + y * together.stride, apart.data + y * apart.stride, together.width * 4) != 0 {
                differing += 1
            }
        }
        #expect(differing == 0, "\(differing) rows differ")
        // The passes drew: ink over the background, along the lines.
        let blocks = AlphaBlocks.difference(together, try Self.background())
        #expect(blocks.total > 200 * 255, "\(blocks)")
    }

    /// A context moved by a fraction of a pixel (a label's picture at a half pixel): the lines as
    /// moved by it in the surface's pixels, byte for byte.
    @Test func aContextMovedByAFractionDrawsTheLinesMovedByIt() throws {
        guard Kernels.isAvailable else { return }
        let color = Color(red: 0.1, green: 0.2, blue: 0.3, alpha: 0.9)
        let inside = Array(Self.lines.prefix(3))
        let moved = try Self.background(), shifted = try Self.background()
        try moved.withContext { cr in
            cr.translate(10.5, -3.25)
            let drawn = try #require(PixelTarget(cr)).stroke(inside, passes: [(color, 3)])
            #expect(drawn)
        }
        try shifted.withContext { cr in
            let lines = inside.map { $0.map { (x: $0.x + 10.5, y: $0.y - 3.25) } }
            let drawn = try #require(PixelTarget(cr)).stroke(lines, passes: [(color, 3)])
            #expect(drawn)
        }
        moved.flush()
        shifted.flush()
        let same = AlphaBlocks.bytes(moved, shifted)
        #expect(same.differing == 0, "\(same)")
        #expect(same.drawn > 1000)
    }

    /// A label's halo (the glyphs' outlines, flattened, stroked with round joins by maptrip's stroker)
    /// inks what Cairo's stroke of the outlines inks, at whole and at half pixels, in Latin and in
    /// other scripts' glyphs.
    @Test(arguments: [(0.0, 0.0), (0.5, 0.5)])
    func aLabelsHaloInksWhatCairosInks(fx: Double, fy: Double) throws {
        guard Kernels.isAvailable else { return }
        let style = TextStyle(weight: "Bold", size: 22, color: Color(red: 0.1, green: 0.1, blue: 0.1, alpha: 1),
                              halo: Color(red: 1, green: 1, blue: 1, alpha: 0.92), haloWidth: 4)
        let text = TextCache()
        func label(_ s: String, cairo: Bool) throws -> ImageSurface {
            let surface = try ImageSurface(width: 420, height: 60)
            try surface.withContext { cr in
                cr.translate(6 + fx, 8 + fy)
                let l = try text.layout(s, style, scale: 1, in: cr)
                // In a group, maptrip's stroker steps aside: Cairo strokes the halo.
                if cairo { cr.pushGroup() }
                text.draw(l, style, x: 0, y: 0, scale: 1, in: cr)
                if cairo {
                    cr.popGroupToSource()
                    cr.paint()
                }
            }
            surface.flush()
            return surface
        }
        for name in ["Rio de Janeiro", "東京 Ωmega", "Sankt-Peterburg"] {
            let ours = try label(name, cairo: false), cairos = try label(name, cairo: true)
            // The ink the same within half a percent (measured: 0.03-0.12%); no block of 4x4 pixels off
            // by more than a tenth of its alpha (measured: at most 7.5%); no byte by more than 110
            // (measured 70-98: where two edges of an outline share a pixel, at a glyph's sharp corner,
            // the stroker takes the larger cover of the two, where Cairo takes their union).
            let blocks = AlphaBlocks.difference(ours, cairos), bytes = AlphaBlocks.bytes(ours, cairos)
            #expect(blocks.ink > 400_000, "\(name): \(blocks)")
            #expect(Double(blocks.total) <= 0.005 * Double(blocks.ink), "\(name): \(blocks)")
            #expect(blocks.block <= 16 * 255 / 10, "\(name): \(blocks)")
            #expect(bytes.worst <= 110, "\(name): \(bytes)")
        }
    }

    @Test func itStepsAsideWhereItCannotDrawStraightIntoPixels() throws {
        let surface = try ImageSurface(width: 64, height: 64)
        try surface.withContext { cr in
            #expect((PixelTarget(cr) != nil) == Kernels.isAvailable, "an image, unmoved, unclipped")
            cr.save()
            cr.scale(2, 2)
            #expect(PixelTarget(cr) == nil, "scaled")
            cr.restore()
            cr.save()
            cr.translate(0.5, 0)
            #expect((PixelTarget(cr) != nil) == Kernels.isAvailable, "moved by half a pixel, unclipped")
            cr.rectangle(0, 0, 10, 10)
            cr.clip()
            #expect(PixelTarget(cr) == nil, "moved by half a pixel, clipped between pixels")
            cr.restore()
            cr.save()
            cr.arc(x: 32, y: 32, radius: 10)
            cr.clip()
            #expect(PixelTarget(cr) == nil, "clipped to a circle")
            cr.restore()
            cr.save()
            cr.setOperator(.source)
            #expect(PixelTarget(cr) == nil, "another operator")
            cr.restore()
            cr.pushGroup()
            #expect(PixelTarget(cr) == nil, "a group pushed")
            cr.popGroupToSource()
        }
        let recording = try RecordingSurface()
        let rc = try Context(recording: recording)
        #expect(PixelTarget(rc) == nil, "a recording")
    }
}

/// The base map's lines (borders, provinces) through maptrip's stroker, each dash a round-capped piece
/// (`Dashes`) cut to ink what Cairo's dash inks (`RoundStroke.capInset`), against Cairo's dashed
/// strokes of the same layers.
@Suite struct MapLineStrokeTests {
    /// Central Europe's 1:10m borders and provinces alone (`solid`: without their dashes), over nothing
    /// (transparent water and land): what the lines ink is the alpha channel.
    static func draw(scale: Double, zoom: Double, ownStroker: Bool, solid: Bool = false) throws -> ImageSurface {
        let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)
        var border = Style.standard.borders, province = Style.standard.provinces
        if solid {
            border.dash = []
            province.dash = []
        }
        let style = MapStyle(water: clear, land: clear, border: border, province: province)
        let lines = MapLayer.standard(style).filter { if case .stroke = $0.symbolizer { true } else { false } }
        let map = try ShapefileBaseMap(assets: assets, style: style, layers: lines, caching: MapCaching(cachesRasters: false))
        map.painter.strokesItself = ownStroker
        let w = Int(480 * scale), h = Int(270 * scale)
        let viewport = Viewport(camera: Camera(center: LonLat(lon: 14.5, lat: 48.7), zoom: zoom), width: w, height: h,
                                scale: scale)
        try map.prepare(for: [viewport])
        let surface = try ImageSurface(width: w, height: h)
        try surface.withContext { try map.draw(viewport, in: $0) }
        surface.flush()
        return surface
    }

    /// Hairlines (flat-capped by Cairo) at 1x, round-capped lines at 2x, and the provinces' finer
    /// dashes beside the borders at zoom 6.5.
    @Test(arguments: [(1.0, 5.0), (1.0, 6.5), (2.0, 5.0)])
    func dashedLinesInkWhatCairosDashesInk(scale: Double, zoom: Double) throws {
        guard Kernels.isAvailable else { return }
        let ours = try Self.draw(scale: scale, zoom: zoom, ownStroker: true)
        let cairo = try Self.draw(scale: scale, zoom: zoom, ownStroker: false)
        let blocks = AlphaBlocks.difference(ours, cairo)
        #expect(blocks.ink > 200_000, "no lines drawn: \(blocks)")
        // The same ink within 3% (the stroker takes the larger cover where a wiggly line's segments
        // meet, Cairo their union with a bevel: 2% less ink on the solid 1.1 px borders, dashes or
        // not), each dash where Cairo's is: no 4x4 block off by more than a third of its full alpha.
        #expect(Double(blocks.total) <= 0.03 * Double(blocks.ink), "\(scale)x zoom \(zoom): \(blocks)")
        #expect(blocks.block <= 16 * 255 / 3, "\(scale)x zoom \(zoom): \(blocks)")
        // And not a solid line: the pattern's gaps are there.
        let solid = AlphaBlocks.difference(cairo, try Self.draw(scale: scale, zoom: zoom, ownStroker: false, solid: true))
        #expect(Double(blocks.ink) < 0.9 * Double(solid.ink), "\(blocks) against solid \(solid)")
    }
}
