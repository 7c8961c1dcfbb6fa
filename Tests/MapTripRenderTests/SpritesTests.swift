import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripRender
import Testing

/// Marks drawn once and painted wherever they go, against the same marks drawn in place.
@Suite struct SpritesTests {
    /// A label-like mark: a thick round-joined stroke around a filled shape (a halo), anchored at
    /// the origin, within (-30, -20)...(60, 12).
    static func mark(_ cr: Context) {
        cr.newPath()
        cr.move(to: -20, 0)
        cr.line(to: 0, -12)
        cr.line(to: 45, -9)
        cr.line(to: 50, 4)
        cr.closePath()
        cr.setSource(Color(red: 1, green: 1, blue: 1, alpha: 0.92))
        cr.setLineWidth(8)
        cr.setLineJoin(.round)
        cr.strokePreserve()
        cr.setSource(Color(red: 0.1, green: 0.1, blue: 0.1, alpha: 1))
        cr.fill()
    }
    static let extent = Box(minX: -30, minY: -20, maxX: 60, maxY: 12)

    @Test func aMarkPaintedFromItsPictureLandsWhereItIsDrawn() throws {
        // At whole, half and in-between positions: the picture's anchor is within a quarter pixel of
        // the mark's each way, so every 4x4 block holds the same ink within what an edge across it
        // (at most 4 x 1.414 px long) moved by up to 0.354 px changes: 2 pixels' worth, 510 alpha
        // units; and the mark as a whole the same ink. (Painted a whole pixel off, blocks
        // differ by 900 and more.)
        let sprites = Sprites()
        for (x, y) in [(100.0, 60.0), (100.5, 60.5), (120.3, 70.8), (140.74, 75.26), (150.2, 80.6), (101.0, 61.0)] {
            let painted = try ImageSurface(width: 240, height: 140), drawn = try ImageSurface(width: 240, height: 140)
            try painted.withContext { cr in
                try sprites.mark("mark", x: x, y: y, extent: Self.extent, alpha: 1, draw: Self.mark).paint(in: cr)
            }
            try drawn.withContext { cr in
                cr.translate(x, y)
                Self.mark(cr)
            }
            painted.flush()
            drawn.flush()
            let d = AlphaBlocks.difference(painted, drawn)
            #expect(d.ink > 1000 * 255, "the mark is drawn")
            #expect(d.block <= 510, "at (\(x), \(y)): a block's ink differs by \(d.block)")
            #expect(Double(d.total) < 0.005 * Double(d.ink), "at (\(x), \(y)): the mark's ink differs by \(d.total) of \(d.ink)")
            // Drawn on a whole pixel, the picture is the drawing, pixel for pixel.
            if x == x.rounded() && y == y.rounded() {
                #expect(memcmp(painted.data, drawn.data, painted.stride * painted.height) == 0)
            }
        }
        // One picture per half-pixel phase: (100, 60) and (101, 61) share one; four in all.
        #expect(sprites.drawn == 4)
    }

    @Test func aFadedMarkFadesAsOnePicture() throws {
        // Painted at half opacity: every pixel has half the alpha of the mark at full opacity.
        let sprites = Sprites()
        let full = try ImageSurface(width: 120, height: 60), half = try ImageSurface(width: 120, height: 60)
        try full.withContext { try sprites.mark("m", x: 40, y: 30, extent: Self.extent, alpha: 1, draw: Self.mark).paint(in: $0) }
        try half.withContext { try sprites.mark("m", x: 40, y: 30, extent: Self.extent, alpha: 0.5, draw: Self.mark).paint(in: $0) }
        full.flush()
        half.flush()
        var worst = 0
        for y in 0..<60 {
            for x in 0..<120 {
                let a = Int(full.data[y * full.stride + x * 4 + 3]), b = Int(half.data[y * half.stride + x * 4 + 3])
                worst = max(worst, abs(b - a / 2))
            }
        }
        #expect(worst <= 1)
        #expect(sprites.drawn == 1)
    }

    @Test func picturesStayWithinTheirBound() throws {
        // Marks enough to fill the bound several times over: the least recently used go, the bytes
        // held never pass the bound, and a mark painted again after it went is drawn again.
        let sprites = Sprites(limitBytes: 64 << 10)  // about six pictures of 94 x 35 pixels
        let surface = try ImageSurface(width: 200, height: 100)
        try surface.withContext { cr in
            for k in 0..<40 {
                try sprites.mark("mark \(k)", x: 80, y: 50, extent: Self.extent, alpha: 1, draw: Self.mark).paint(in: cr)
                #expect(sprites.bytes <= sprites.limitBytes)
            }
            #expect(sprites.drawn == 40)
            try sprites.mark("mark 39", x: 80, y: 50, extent: Self.extent, alpha: 1, draw: Self.mark).paint(in: cr)
            #expect(sprites.drawn == 40)  // the latest is still held
            try sprites.mark("mark 0", x: 80, y: 50, extent: Self.extent, alpha: 1, draw: Self.mark).paint(in: cr)
            #expect(sprites.drawn == 41)  // the first went long ago
        }
        #expect(sprites.bytes > sprites.limitBytes / 2)
    }
}
