import Cairo
import Foundation
import MapTripScene
@testable import MapTripRender
import Testing
import RasterKernels

/// maptrip's own bilinear kernel against pixman (Cairo's bilinear filter, padded edges, the source
/// operator): the raster cache paints its tiles with whichever this CPU runs, and the two must agree.
@Suite(.enabled(if: Kernels.isAvailable, "the kernel needs AVX2"))
struct BilinearResampleTests {
    /// A tile like the cache's: a map-like picture (flat fills, hairlines, a soft edge) with noise in
    /// one corner, so that every way of getting a neighbour wrong shows.
    static func tile(width: Int, height: Int) throws -> ImageSurface {
        let s = try ImageSurface(width: width, height: height)
        try s.withContext { cr in
            cr.setSource(Color(red: 0.67, green: 0.83, blue: 0.92, alpha: 1))
            cr.paint()
            cr.setSource(Color(red: 0.95, green: 0.94, blue: 0.9, alpha: 1))
            cr.move(to: 10, 5)
            cr.line(to: Double(width) - 20, 30)
            cr.line(to: Double(width) * 0.6, Double(height) - 8)
            cr.line(to: 3, Double(height) * 0.7)
            cr.closePath()
            cr.fill()
            cr.setSource(Color(red: 0.5, green: 0.3, blue: 0.6, alpha: 1))
            cr.setLineWidth(0.7)
            for k in 0..<12 {
                cr.move(to: 0, Double(k) * 9.3)
                cr.line(to: Double(width), Double(k) * 11.1 + 4)
            }
            cr.stroke()
        }
        s.flush()
        var state: UInt32 = 12345
        for y in 0..<min(40, height) {
            for x in 0..<min(40, width) {
                state = state &* 1_664_525 &+ 1_013_904_223
                let p = s.data + y * s.stride + x * 4
                p[0] = UInt8(truncatingIfNeeded: state >> 8)
                p[1] = UInt8(truncatingIfNeeded: state >> 16)
                p[2] = UInt8(truncatingIfNeeded: state >> 24)
                p[3] = 255
            }
        }
        s.markDirty()
        return s
    }

    /// Paints `image` both ways into a frame rectangle; returns the largest and mean channel difference.
    func compare(_ image: ImageSurface, scale: Double, originX: Double, originY: Double,
                 x: Int, y: Int, width: Int, height: Int) throws -> (max: Int, mean: Double) {
        let w = 320, h = 240
        let ours = try ImageSurface(width: w, height: h), theirs = try ImageSurface(width: w, height: h)
        for s in [ours, theirs] { try s.withContext { $0.setSource(Color(red: 1, green: 0, blue: 1, alpha: 1)); $0.paint() } }
        ours.flush()
        #expect(Kernels.resample(image.pixels, bytesPerPixel: 4, scale: scale, originX: originX, originY: originY,
                                 into: ours.pixels, firstRow: 0, x: x, y: y, width: width, height: height))
        ours.markDirty()
        try theirs.withContext { cr in
            cr.setOperator(.source)
            cr.paintImage(image, into: originX, originY, Double(image.width) * scale, Double(image.height) * scale,
                          clipX: x, clipY: y, clipWidth: width, clipHeight: height, filter: .bilinear)
        }
        ours.flush()
        theirs.flush()
        var worst = 0, sum = 0
        for row in 0..<h {
            for i in 0..<(w * 4) {
                let d = abs(Int(ours.data[row * ours.stride + i]) - Int(theirs.data[row * theirs.stride + i]))
                worst = max(worst, d)
                sum += d
            }
        }
        return (worst, Double(sum) / Double(w * h * 4))
    }

    @Test(arguments: [1.0, 0.97, 0.9, 0.841, 0.6, 1.19])
    func resampledTilesMatchPixman(scale: Double) throws {
        let image = try Self.tile(width: 258, height: 200)
        // The whole tile at a fractional position, and a clip reaching past its edges (padded), in
        // widths that are and are not a multiple of eight; clips wholly beside the tile, left and right
        // of it (every pixel its nearest edge column's).
        for (ox, oy, x, y, width, height) in [(3.3, 7.71, 4, 8, 210, 160), (-20.45, -11.2, 0, 0, 237, 151),
                                               (40.5, 30.25, 37, 28, 1, 97), (12.9, 2.2, 10, 0, 203, 13),
                                               (150.3, 7.7, 0, 8, 120, 60), (-300.2, 3.1, 30, 10, 250, 50)] {
            let (worst, mean) = try compare(image, scale: scale, originX: ox, originY: oy, x: x, y: y,
                                            width: width, height: height)
            // 6-bit weights and a rounded middle step against pixman's 7-bit, truncated ones: within a
            // few levels at the noise, a fraction of one on average.
            #expect(worst <= 6, "scale \(scale), origin (\(ox), \(oy)): largest difference \(worst)")
            #expect(mean < 0.1, "scale \(scale), origin (\(ox), \(oy)): mean difference \(mean)")
        }
    }

    @Test func flatColoursComeOutExactly() throws {
        let image = try ImageSurface(width: 64, height: 64)
        try image.withContext { $0.setSource(Color(red: 243 / 255, green: 241 / 255, blue: 234 / 255, alpha: 1)); $0.paint() }
        image.flush()
        let frame = try ImageSurface(width: 100, height: 100)
        frame.flush()
        #expect(Kernels.resample(image.pixels, bytesPerPixel: 4, scale: 0.913, originX: 0.37, originY: -0.8,
                                 into: frame.pixels, firstRow: 0, x: 0, y: 0, width: 58, height: 57))
        for y in 0..<57 {
            for x in 0..<58 {
                let p = frame.pixel(x: x, y: y)
                #expect(p.r == 243 && p.g == 241 && p.b == 234 && p.a == 255, "(\(x), \(y)): \(p)")
                if p.r != 243 || p.g != 241 || p.b != 234 { return }
            }
        }
        // Nothing outside the rectangle is touched.
        #expect(frame.pixel(x: 58, y: 10).a == 0 && frame.pixel(x: 10, y: 57).a == 0)
    }

    @Test func aBandGetsItsOwnRowsOnly() throws {
        // A surface holding frame rows 100..<160: the rectangle's rows outside it are left out, and
        // those inside come out as painting the whole frame gives.
        let image = try Self.tile(width: 258, height: 258)
        let whole = try ImageSurface(width: 300, height: 300)
        let band = try ImageSurface(width: 300, height: 60)
        whole.flush()
        band.flush()
        for (surface, first) in [(whole, 0), (band, 100)] {
            #expect(Kernels.resample(image.pixels, bytesPerPixel: 4, scale: 0.93, originX: 5.5, originY: 20.25,
                                     into: surface.pixels, firstRow: first, x: 6, y: 21, width: 230, height: 230))
        }
        #expect(memcmp(band.data, whole.data + 100 * whole.stride, 60 * whole.stride) == 0)
    }

    /// One plane of samples comes out as that channel of the pixels: the same weights, whatever the
    /// position, also wholly beside the source.
    @Test func planesMatchTheirChannelOfThePixels() throws {
        let image = try Self.tile(width: 258, height: 200)
        let plane = UnsafeMutablePointer<UInt8>.allocate(capacity: 258 * 200)
        defer { plane.deallocate() }
        for y in 0..<200 {
            for x in 0..<258 { plane[y * 258 + x] = image.data[y * image.stride + x * 4 + 1] }
        }
        let w = 320, h = 240
        let samples = UnsafeMutablePointer<UInt8>.allocate(capacity: w * h)
        defer { samples.deallocate() }
        for (scale, ox, oy, x, y, width, height) in [(0.9, 3.3, 7.71, 4, 8, 210, 160), (1.19, -20.45, -11.2, 0, 0, 237, 151),
                                                     (0.841, 150.3, 7.7, 0, 8, 120, 60), (0.6, -300.2, 3.1, 30, 10, 250, 50),
                                                     (0.97, 12.9, 260.5, 10, 0, 203, 13)] {
            let pixels = try ImageSurface(width: w, height: h)
            pixels.flush()
            samples.initialize(repeating: 7, count: w * h)
            let source = PixelPlane(data: plane, stride: 258, width: 258, height: 200)
            #expect(Kernels.resample(image.pixels, bytesPerPixel: 4, scale: scale, originX: ox, originY: oy,
                                     into: pixels.pixels, firstRow: 0, x: x, y: y, width: width, height: height))
            #expect(Kernels.resample(source, bytesPerPixel: 1, scale: scale, originX: ox, originY: oy,
                                     into: PixelPlane(data: samples, stride: w, width: w, height: h),
                                     firstRow: 0, x: x, y: y, width: width, height: height))
            var differing = 0
            for row in 0..<h {
                for column in 0..<w {
                    let inside = (x..<(x + width)).contains(column) && (y..<(y + height)).contains(row)
                    let expected = inside ? pixels.data[row * pixels.stride + column * 4 + 1] : 7
                    if samples[row * w + column] != expected { differing += 1 }
                }
            }
            #expect(differing == 0, "scale \(scale), origin (\(ox), \(oy)): \(differing) samples differ")
        }
    }

    /// The AVX-512 kernel (taken where the CPU has it) gives the AVX2 kernel's bytes: scales up to the
    /// limit of two source columns a sample, rectangles beside and across the source's edges, widths on
    /// and off its 64-sample step, sources wider than its stack buffer.
    @Test(.enabled(if: Kernels.planeLevel >= 2, "the CPU has no AVX-512 VBMI"))
    func bothPlaneKernelsGiveTheSameBytes() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        for (sw, sh) in [(258, 258), (1500, 40), (7, 5), (65, 64)] {
            let source = UnsafeMutablePointer<UInt8>.allocate(capacity: sw * sh)
            defer { source.deallocate() }
            for i in 0..<(sw * sh) { source[i] = UInt8(truncatingIfNeeded: i * 31 + (i / sw) * 7 + next(3)) }
            for _ in 0..<40 {
                let width = 1 + next(sw == 1500 ? 1400 : 300), height = 1 + next(50)
                let dx = Int32(16384 + next(2 * 65536 - 16384 + 1)), dy = Int32(16384 + next(2 * 65536 - 16384))
                let x0 = Int32(next(sw * 2 * 65536)) - Int32(sw / 2 * 65536), y0 = Int32(next(sh * 65536 * 2)) - Int32(sh * 65536 / 2)
                var outputs: [[UInt8]] = []
                for level in [1, 2] {
                    var out = [UInt8](repeating: 7, count: (width + 70) * height)
                    let written = out.withUnsafeMutableBufferPointer {
                        Kernels.resamplePlane(PixelPlane(data: source, stride: sw, width: sw, height: sh),
                                              into: PixelPlane(data: $0.baseAddress!, stride: width + 70, width: width,
                                                               height: height),
                                              x0: x0, y0: y0, dx: dx, dy: dy, level: level)
                    }
                    #expect(written)
                    outputs.append(out)
                }
                #expect(outputs[0] == outputs[1], "source \(sw)x\(sh), \(width)x\(height) at (\(x0), \(y0)) step (\(dx), \(dy))")
            }
        }
    }

    /// A thread keeps the kernel's plan of the last call's columns for the next call with the same ones
    /// (a frame's tiles in one column share it): a call with the same columns gives the bytes of one
    /// that made its plan afresh, and a call differing in any of them (its first column, step, width,
    /// the source's width) makes its own.
    @Test func aKeptPlanServesOnlyTheSameColumns() throws {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let sw = 300, sh = 120
        let source = UnsafeMutablePointer<UInt8>.allocate(capacity: sw * sh)
        defer { source.deallocate() }
        for i in 0..<(sw * sh) { source[i] = UInt8(truncatingIfNeeded: i * 13 + (i / sw) * 5 + next(7)) }
        struct Call { var width: Int, height: Int, sourceWidth: Int, x0: Int32, y0: Int32, dx: Int32, dy: Int32 }
        func run(_ level: Int, _ c: Call) -> [UInt8] {
            var out = [UInt8](repeating: 7, count: (c.width + 70) * c.height)
            let written = out.withUnsafeMutableBufferPointer {
                Kernels.resamplePlane(PixelPlane(data: source, stride: sw, width: c.sourceWidth, height: sh),
                                      into: PixelPlane(data: $0.baseAddress!, stride: c.width + 70, width: c.width,
                                                       height: c.height),
                                      x0: c.x0, y0: c.y0, dx: c.dx, dy: c.dy, level: level)
            }
            #expect(written)
            return out
        }
        // A call with other columns: whatever plan it leaves, the next call with these does not match it.
        let other = Call(width: 50, height: 3, sourceWidth: sw, x0: 123_456, y0: 0, dx: 80_000, dy: 65536)
        for level in 1...Kernels.planeLevel {
            for _ in 0..<30 {
                let call = Call(width: 1 + next(250), height: 1 + next(40), sourceWidth: 200 + next(100),
                                x0: Int32(next(100 * 65536)) - 20 * 65536, y0: Int32(next(60 * 65536)),
                                dx: Int32(40_000 + next(60_000)), dy: Int32(30_000 + next(60_000)))
                _ = run(level, other)
                let fresh = run(level, call)
                // The same columns, other rows: from the kept plan.
                var rows = call
                rows.y0 = Int32(next(60 * 65536))
                rows.height = 1 + next(40)
                let kept = run(level, rows)
                _ = run(level, other)
                #expect(kept == run(level, rows), "level \(level): other rows")
                #expect(run(level, call) == fresh)
                // Each column parameter changed alone, right after a call with the plan kept.
                for k in 0..<4 {
                    var changed = call
                    switch k {
                    case 0: changed.x0 += 1 + Int32(next(3 * 65536))
                    case 1: changed.dx += 1 + Int32(next(500))
                    case 2: changed.width = call.width + 1 + next(60)
                    default: changed.sourceWidth = call.sourceWidth - 1 - next(50)
                    }
                    _ = run(level, call)
                    let afterKept = run(level, changed)
                    _ = run(level, other)
                    #expect(afterKept == run(level, changed), "level \(level): column parameter \(k) changed")
                }
            }
        }
    }
}
