import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
@testable import MapTripRender
import Testing
import TestBasics
import RasterKernels
import YUV

/// Turned frames composited straight into I420: the turned-tile kernel on one plane of samples
/// against a plain reference, and a turned frame of sharp colour edges composited into I420 against
/// the same frame composited in BGRA and converted (the chroma planes turned about their own sample
/// centres, not half a pixel off the luma).
@Suite(.enabled(if: Kernels.isAvailable, "the kernel needs AVX2"))
struct TurnedPlaneTests {
    /// One random case: a tile plane (`width` x `height` samples, pixel 0 at level pixel u0 - border)
    /// and the turn of its square into a 128 x 128 frame, about the frame's centre.
    struct Case {
        var tile: [UInt8], width: Int, height: Int, border: Int
        var inverse: [Double], u0: Double, v0: Double, u1: Double, v1: Double

        init(_ random: inout SplitMix64) {
            func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * Double(random.next() >> 11) / Double(1 << 53) }
            border = Int(random.next() % 2) + 1
            width = Int(random.next() % 40) + 20
            height = Int(random.next() % 40) + 20
            tile = (0..<(width * height)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            // Squares on whole or half level pixels (a chroma plane's, for odd luma edges).
            u0 = Double(random.next() % 2000) / 2
            v0 = Double(random.next() % 2000) / 2
            u1 = u0 + Double(width - 2 * border)
            v1 = v0 + Double(height - 2 * border)
            let r = uniform(0, 2 * .pi), s = uniform(0.6, 1.7)
            let a = s * cos(r), b = -s * sin(r), c = s * sin(r), d = s * cos(r)
            let (uc, vc) = ((u0 + u1) / 2, (v0 + v1) / 2)
            let ox = 64 - (a * uc + b * vc), oy = 64 - (c * uc + d * vc)
            let det = a * d - b * c
            let ia = d / det, ib = -b / det, id = -c / det, ie = a / det
            inverse = [ia, ib, -(ia * ox + ib * oy), id, ie, -(id * ox + ie * oy)]
        }

        /// The plain reference: the sample at frame pixel (x, y), or nil where its centre is outside
        /// the square; bilinear in doubles, the tile's edges padded.
        func reference(_ x: Int, _ y: Int) -> Double? {
            let cx = Double(x) + 0.5, cy = Double(y) + 0.5
            let u = inverse[0] * cx + inverse[1] * cy + inverse[2], v = inverse[3] * cx + inverse[4] * cy + inverse[5]
            guard u >= u0, u < u1, v >= v0, v < v1 else { return nil }
            let tu = u - (u0 - Double(border)) - 0.5, tv = v - (v0 - Double(border)) - 0.5
            func at(_ i: Int, _ j: Int) -> Double {
                Double(tile[min(max(j, 0), height - 1) * width + min(max(i, 0), width - 1)])
            }
            let i = Int(tu.rounded(.down)), j = Int(tv.rounded(.down))
            let fx = tu - Double(i), fy = tv - Double(j)
            let top = at(i, j) * (1 - fx) + at(i + 1, j) * fx, bottom = at(i, j + 1) * (1 - fx) + at(i + 1, j + 1) * fx
            return top * (1 - fy) + bottom * fy
        }

        /// The kernel's frame: rows `rows` of a 128 x 128 plane (those outside left at `background`).
        func painted(background: UInt8, rows: Range<Int> = 0..<128, level: Int? = nil) -> [UInt8] {
            var frame = [UInt8](repeating: background, count: 128 * rows.count)
            var tile = self.tile
            let done = tile.withUnsafeMutableBufferPointer { t in
                frame.withUnsafeMutableBufferPointer { f in
                    Kernels.resampleTurned(PixelPlane(data: t.baseAddress!, stride: width, width: width, height: height),
                                           bytesPerPixel: 1, border: border,
                                           into: PixelPlane(data: f.baseAddress!, stride: 128, width: 128, height: rows.count),
                                           firstRow: rows.lowerBound, rows: rows, inverse: inverse,
                                           u0: u0, v0: v0, u1: u1, v1: v1, level: level)
                }
            }
            #expect(done)
            return frame
        }
    }

    @Test func theTurnedPlaneKernelComputesWhatAPlainReferenceDoes() {
        var random = SplitMix64(seed: 5901)
        var worst = 0, total = 0, compared = 0, covered = 0
        for _ in 0..<60 {
            let c = Case(&random)
            // Painted over 0 and over 255: a pixel it wrote is the same in both.
            let a = c.painted(background: 0), b = c.painted(background: 255)
            // AVX2, AVX-512 and plain C give the same bytes; a band of rows gets those rows of the whole.
            for level in 0..<Kernels.planeLevel { #expect(c.painted(background: 0, level: level) == a) }
            #expect(c.painted(background: 0, rows: 37..<91) == Array(a[(37 * 128)..<(91 * 128)]))
            for y in 0..<128 {
                for x in 0..<128 {
                    let wrote = a[y * 128 + x] == b[y * 128 + x]
                    guard let expected = c.reference(x, y) else {
                        #expect(!wrote, "pixel (\(x), \(y)) outside the square written")
                        continue
                    }
                    #expect(wrote, "pixel (\(x), \(y)) inside the square left out")
                    let d = Int((Double(a[y * 128 + x]) - expected).magnitude.rounded())
                    worst = max(worst, d)
                    total += d
                    compared += 1
                }
            }
            covered += a.indices.filter { a[$0] == b[$0] }.count
        }
        #expect(compared > 100_000 && covered == compared)
        // Weights of 6 bits down and 7 across, truncated, on noise (the harshest content): measured
        // worst 4, mean 0.65 (the truncation's bias).
        #expect(worst <= 4, "worst \(worst)")
        #expect(Double(total) / Double(compared) < 0.8, "mean \(Double(total) / Double(compared))")
    }

    /// The vector kernels against plain C on planes of every size a tile takes and beyond (a row of
    /// 2 to 300 samples, rows padded or not), turned and scaled at random (0.3 to 3 samples a frame
    /// pixel: groups of samples that reach over more columns or rows than the permutes take go to
    /// the gathers), squares reaching past the tile's edges (the samples clamped), frames 1 to 400
    /// pixels wide (groups cut short at the row's end): the same bytes, and each plane allocated
    /// to its last byte (a read past it would be another allocation's, or a fault).
    @Test func theVectorKernelsPaintWhatPlainCPaintsAtAnyTurnAndSize() {
        var random = SplitMix64(seed: 5903)
        func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * Double(random.next() >> 11) / Double(1 << 53) }
        var painted = 0, differing = 0
        for _ in 0..<400 {
            let width = Int(random.next() % 299) + 2, height = Int(random.next() % 299) + 2
            let stride = width + (random.next() % 3 == 0 ? Int(random.next() % 64) : 0)
            let border = min(Int(random.next() % 17), (min(width, height) - 1) / 2)
            let frameWidth = Int(random.next() % 400) + 1, frameHeight = Int(random.next() % 200) + 1
            // Exactly the plane's bytes, the last row no longer than its samples.
            let tile = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * (height - 1) + width)
            defer { tile.deallocate() }
            for i in 0..<(stride * (height - 1) + width) { tile[i] = UInt8(truncatingIfNeeded: random.next()) }
            let u0 = Double(random.next() % 2000) / 2, v0 = Double(random.next() % 2000) / 2
            // The square: the tile's, or up to 24 samples past its edges (sampled clamped there).
            let grow = random.next() % 2 == 0 ? 0.0 : uniform(0, 24)
            let u1 = u0 + Double(width - 2 * border) + grow, v1 = v0 + Double(height - 2 * border) + grow
            let r = uniform(0, 2 * .pi), s = 1 / uniform(0.3, 3)
            let a = s * cos(r), b = -s * sin(r), c = s * sin(r), d = s * cos(r)
            let (uc, vc) = ((u0 + u1) / 2 + uniform(-40, 40), (v0 + v1) / 2 + uniform(-40, 40))
            let ox = Double(frameWidth) / 2 - (a * uc + b * vc), oy = Double(frameHeight) / 2 - (c * uc + d * vc)
            let det = a * d - b * c
            let ia = d / det, ib = -b / det, id = -c / det, ie = a / det
            let inverse = [ia, ib, -(ia * ox + ib * oy), id, ie, -(id * ox + ie * oy)]
            func frame(_ level: Int, background: UInt8) -> [UInt8] {
                var f = [UInt8](repeating: background, count: frameWidth * frameHeight)
                let done = f.withUnsafeMutableBufferPointer { f in
                    Kernels.resampleTurned(PixelPlane(data: tile, stride: stride, width: width, height: height),
                                           bytesPerPixel: 1, border: border,
                                           into: PixelPlane(data: f.baseAddress!, stride: frameWidth, width: frameWidth,
                                                            height: frameHeight),
                                           firstRow: 0, rows: 0..<frameHeight, inverse: inverse,
                                           u0: u0, v0: v0, u1: u1, v1: v1, level: level)
                }
                #expect(done)
                return f
            }
            let plain = frame(0, background: 0)
            painted += zip(plain, frame(0, background: 255)).filter { $0 == $1 }.count
            for level in 1...Kernels.planeLevel {
                let f = frame(level, background: 0)
                differing += zip(f, plain).filter { $0 != $1 }.count
            }
        }
        #expect(differing == 0, "\(differing) samples differ from plain C")
        // Not a test of nothing: most cases paint (measured: 2,342,064 samples).
        #expect(painted > 1_000_000, "\(painted) samples painted")
    }

    @Test func aFlatTileFillsTheSamePixelsTheKernelPaints() {
        var random = SplitMix64(seed: 5902)
        for _ in 0..<20 {
            let c = Case(&random)
            let painted = c.painted(background: 0)
            var filled = [UInt8](repeating: 0, count: 128 * 128)
            let done = filled.withUnsafeMutableBufferPointer { f in
                Kernels.fillTurned(77, into: PixelPlane(data: f.baseAddress!, stride: 128, width: 128, height: 128),
                                   firstRow: 0, rows: 0..<128, inverse: c.inverse, u0: c.u0, v0: c.v0, u1: c.u1, v1: c.v1)
            }
            #expect(done)
            let b = c.painted(background: 255)
            for i in filled.indices { #expect((filled[i] == 77) == (painted[i] == b[i])) }
        }
    }

    /// A picture of sharp colour edges (a chequer of red and blue squares `cell` level pixels wide,
    /// the world's coordinates), drawn into tiles pixel by pixel.
    static func chequer(cell: Double) -> RasterCache.TileDrawing {
        { surface, transforms, _, _ in
            let t = transforms[0]
            for py in 0..<surface.height {
                for px in 0..<surface.width {
                    // The pixel's centre in the level's pixels (the tile transform's scale is the level's width).
                    let x = Double(px) + 0.5 - t.offsetX, y = Double(py) + 0.5 - t.offsetY
                    let i = Int((x / cell).rounded(.down)) + Int((y / cell).rounded(.down))
                    let p = surface.data + py * surface.stride + px * 4
                    let red = i & 1 == 0
                    (p[0], p[1], p[2], p[3]) = red ? (30, 20, 220, 255) : (230, 60, 20, 255)
                }
            }
            surface.markDirty()
        }
    }

    /// A turned frame of sharp colour edges composited into I420 from planar tiles, against it
    /// composited in BGRA and converted. A chroma plane sampled half a pixel off (its samples turned
    /// about the luma's pixel centres, not their 2x2 blocks') moves every edge's chroma: the means
    /// grow several times over.
    @Test(arguments: [(23.0, 6.3), (-141.0, 7.05), (95.0, 9.6)])
    func aTurnedFrameOfColourEdgesComesOutInI420AsConverted(turn: (bearing: Double, zoom: Double)) throws {
        let width = 320, height = 240
        let v = Viewport(camera: Camera(center: LonLat(lon: 10, lat: 45), zoom: turn.zoom, bearing: turn.bearing),
                         width: width, height: height)
        #expect(v.isRotated)
        let draw = Self.chequer(cell: 13)
        let outside = Color(red: 0.2, green: 0.3, blue: 0.4, alpha: 1)
        let bgra = try ImageSurface(width: width, height: height)
        let cache = RasterCache(limitBytes: 64 << 20)
        try bgra.withContext { try cache.composite(v, outside: outside, in: $0, draw: draw) }
        let expected = try PlanarCompositeTests.Picture(converting: bgra)
        let picture = PlanarCompositeTests.Picture(width: width, height: height)
        let planar = RasterCache(limitBytes: 64 << 20)
        #expect(try picture.with { try planar.compositePlanar(v, outside: outside, into: $0, draw: draw) })
        #expect(planar.framesComposited == 1)
        let d = picture.difference(expected)
        // Luma: the same arithmetic on each channel, then on Y: rounding apart.
        #expect(d[0].worst <= 2 && d[0].mean < 0.3, "Y \(d[0])")
        let psnr = 10 * log10(255 * 255 / zip(picture.y, expected.y).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) }
                                  * Double(picture.y.count))
        #expect(psnr > 45, "Y PSNR \(psnr)")
        // Chroma: from the tiles' 2x2 averages rather than averaging the turned pixels: the edges'
        // samples differ either way, the squares' insides not at all. Measured means 3.6-4.2 (edges
        // every 13 pixels); with the chroma turned half a luma pixel off, 7.7-9.2.
        #expect(d[1].mean < 5 && d[2].mean < 5, "U \(d[1]), V \(d[2])")
    }

    /// A turned frame whose tiles are mostly flat, of one colour (a vector map's empty land around a
    /// small extract): the band is filled with that colour at once and those tiles skipped; every pixel
    /// still shows its own tile, against the frame composited in BGRA and converted. Seeded: which tiles
    /// are chequered, the turn and the zoom.
    @Test func aTurnedFrameOfMostlyFlatTilesComesOutAsConverted() throws {
        var random = SplitMix64(seed: 59)
        let chequer = Self.chequer(cell: 11)
        let chequered = (0..<64).map { _ in Int.random(in: 0..<4, using: &random) == 0 }
        let draw: RasterCache.TileDrawing = { surface, transforms, a, b in
            let t = transforms[0]
            let column = Int((-t.offsetX / 256).rounded()), row = Int((-t.offsetY / 256).rounded())
            if chequered[abs(column * 7 + row * 3) % 64] { return try chequer(surface, transforms, a, b) }
            for py in 0..<surface.height {
                for px in 0..<surface.width { (surface.data + py * surface.stride + px * 4).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee = 0xFFD8_E4C8 } }
            }
            surface.markDirty()
        }
        for _ in 0..<3 {
            let width = 640, height = 360
            let camera = Camera(center: LonLat(lon: Double.random(in: -20...20, using: &random), lat: Double.random(in: -40...40, using: &random)),
                                zoom: Double.random(in: 8...10, using: &random), bearing: Double.random(in: -170...170, using: &random))
            let v = Viewport(camera: camera, width: width, height: height)
            let outside = Color(red: 0.2, green: 0.3, blue: 0.4, alpha: 1)
            let bgra = try ImageSurface(width: width, height: height)
            try bgra.withContext { try RasterCache(limitBytes: 64 << 20).composite(v, outside: outside, in: $0, draw: draw) }
            let expected = try PlanarCompositeTests.Picture(converting: bgra)
            let picture = PlanarCompositeTests.Picture(width: width, height: height)
            let planar = RasterCache(limitBytes: 64 << 20)
            #expect(try picture.with { try planar.compositePlanar(v, outside: outside, into: $0, draw: draw) })
            #expect(planar.flatTiles * 2 >= planar.tilesDrawn && planar.flatTiles < planar.tilesDrawn,
                    "\(planar.flatTiles) flat of \(planar.tilesDrawn)")
            let d = picture.difference(expected)
            #expect(d[0].worst <= 2 && d[0].mean < 0.3, "Y \(d[0])")
            #expect(d[1].mean < 5 && d[2].mean < 5, "U \(d[1]), V \(d[2])")
        }
    }

    /// A turning flight over the embedded map (a heading-up chase, a banking flight), and a turned
    /// frame reaching past the world's top: composited into I420 from planar tiles, against it
    /// composited in BGRA from BGRA tiles and converted, as `aFlightCompositedIntoI420...` for north up.
    @Test func aTurnedFlightOfTheEmbeddedMapComesOutInI420AsConverted() throws {
        let width = 640, height = 360
        let cameras = RasterCacheTests().flight(Camera(center: LonLat(lon: 126, lat: 36), zoom: 6.6),
                                                Camera(center: LonLat(lon: 128, lat: 35), zoom: 7.4), count: 8)
            .enumerated().map { i, c in Camera(center: c.center, zoom: c.zoom, bearing: -40 + Double(i) * 17.3) }
            + [Camera(center: LonLat(lon: 20, lat: 82), zoom: 4.6, bearing: 30)]
        let viewports = cameras.map { Viewport(camera: $0, width: width, height: height) }
        let maps = try PlanarCompositeTests().plannedMaps(cameras, width: width, height: height)
        let bgra = try ImageSurface(width: width, height: height)
        let scratch = try ImageSurface(width: width, height: 64)
        var worst = [0, 0, 0], total = [0.0, 0.0, 0.0], off = [0, 0], squared = 0.0
        for v in viewports {
            #expect(v.isRotated)
            try bgra.withContext { try maps[0].draw(v, in: $0) }
            let expected = try PlanarCompositeTests.Picture(converting: bgra)
            let picture = PlanarCompositeTests.Picture(width: width, height: height)
            #expect(try picture.with { try maps[1].drawPlanar(v, into: $0, scratch: scratch) })
            off[0] += zip(picture.y, expected.y).filter { abs(Int($0) - Int($1)) > 8 }.count
            off[1] += zip(picture.u + picture.v, expected.u + expected.v).filter { abs(Int($0) - Int($1)) > 24 }.count
            squared += zip(picture.y, expected.y).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) }
            for (i, d) in picture.difference(expected).enumerated() {
                worst[i] = max(worst[i], d.worst)
                total[i] += d.mean / Double(viewports.count)
            }
        }
        #expect(maps[1].rasterCacheStatistics?.framesComposited == cameras.count)
        let pixels = viewports.count * width * height
        let psnr = 10 * log10(255 * 255 * Double(pixels) / max(squared, 1e-9))
        // Measured: Y worst 1, mean 0.010, PSNR 68 dB; U, V means 0.09 (0.18 with the chroma turned
        // half a luma pixel off).
        #expect(worst[0] <= 2 && total[0] < 0.05 && psnr > 45, "Y worst \(worst[0]), mean \(total[0]), PSNR \(psnr)")
        #expect(off[0] * 2000 < pixels, "Y: \(off[0]) of \(pixels) pixels off by more than 8")
        #expect(off[1] * 2000 < pixels / 2, "U, V: \(off[1]) of \(pixels / 2) samples off by more than 24")
        #expect(total[1] < 0.14 && total[2] < 0.14, "U mean \(total[1]), V mean \(total[2]), worst \(worst[1]), \(worst[2])")
    }
}
