import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripSupport
import MapTripTime
@testable import MapTripRender
import Testing
import YUV
import TestSupport
import RasterKernels
import MapTripTracks

/// Frames drawn straight into I420 (the raster cache's planar tiles, the overlays blended over them)
/// against the same frames drawn in BGRA and converted by libyuv, as every other frame is.
@Suite(.enabled(if: Kernels.isAvailable, "the kernel needs AVX2"))
struct PlanarCompositeTests {
    /// The planes of an I420 picture held one after the other at `p`, each row as wide as the plane,
    /// as the kernels take them.
    static func planes(at p: UnsafeMutablePointer<UInt8>, width: Int, height: Int, matrix: YUVMatrix = .bt601) -> YUVPlanes {
        let u = p + width * height, v = u + width * height / 4
        return YUVPlanes(y: PixelPlane(data: p, stride: width, width: width, height: height),
                         u: PixelPlane(data: u, stride: width / 2, width: width / 2, height: height / 2),
                         v: PixelPlane(data: v, stride: width / 2, width: width / 2, height: height / 2),
                         coefficients: matrix.coefficients)
    }

    /// An I420 picture in memory of its own.
    final class Picture {
        let width: Int, height: Int
        var y: [UInt8], u: [UInt8], v: [UInt8]

        init(width: Int, height: Int) {
            self.width = width
            self.height = height
            y = [UInt8](repeating: 0, count: width * height)
            u = [UInt8](repeating: 0, count: width * height / 4)
            v = u
        }

        /// The picture libyuv makes of a BGRA surface.
        convenience init(converting s: ImageSurface) throws {
            self.init(width: s.width, height: s.height)
            s.flush()
            try YUV.argbToI420(src: s.data, srcStride: s.stride, y: &y, yStride: width, u: &u, uStride: width / 2,
                               v: &v, vStride: width / 2, width: width, height: height)
        }

        /// Runs `body` with the planes as a `PlanarPicture`.
        func with<R>(_ body: (PlanarPicture) throws -> R) rethrows -> R {
            try y.withUnsafeMutableBufferPointer { yp in
                try u.withUnsafeMutableBufferPointer { up in
                    try v.withUnsafeMutableBufferPointer { vp in
                        try body(PlanarPicture(y: yp.baseAddress!, yStride: width, u: up.baseAddress!, uStride: width / 2,
                                               v: vp.baseAddress!, vStride: width / 2, width: width, height: height))
                    }
                }
            }
        }

        /// Per plane (Y, U, V): the largest and the mean absolute difference from `other`.
        func difference(_ other: Picture) -> [(worst: Int, mean: Double)] {
            zip([y, u, v], [other.y, other.u, other.v]).map { a, b in
                var worst = 0, total = 0
                for (p, q) in zip(a, b) {
                    let d = abs(Int(p) - Int(q))
                    worst = max(worst, d)
                    total += d
                }
                return (worst, Double(total) / Double(a.count))
            }
        }
    }

    /// The plane kernel's arithmetic, one sample at a time: rows blended with 6-bit weights, rounded,
    /// then columns, rounded; edges padded.
    static func reference(_ src: [UInt8], width sw: Int, height sh: Int, x0: Int32, y0: Int32, step: Int32,
                          width: Int, height: Int) -> [UInt8] {
        func at(_ x: Int, _ y: Int) -> Int { Int(src[min(max(y, 0), sh - 1) * sw + min(max(x, 0), sw - 1)]) }
        var out = [UInt8](repeating: 0, count: width * height)
        for r in 0..<height {
            let y = Int(y0) + r * Int(step), iy = y >> 16, wy = (y >> 10) & 63
            for j in 0..<width {
                let x = Int(x0) + j * Int(step), ix = x >> 16, f = (x >> 10) & 63
                let a = (at(ix, iy) * (64 - wy) + at(ix, iy + 1) * wy + 32) >> 6
                let b = (at(ix + 1, iy) * (64 - wy) + at(ix + 1, iy + 1) * wy + 32) >> 6
                out[r * width + j] = UInt8((a * (64 - f) + b * f + 32) >> 6)
            }
        }
        return out
    }

    @Test func theOverlayBlendComputesWhatItsReferenceDoes() throws {
        // Premultiplied overlays of every kind (clear stretches, faint and opaque pixels, lone pixels in
        // a block, alpha 255 over black and white) over noise, on widths on both sides of the vector
        // path's 16-pixel steps: each vector blend (AVX-512, AVX2) gives the plain C one's samples exactly,
        // and clears the same pixels of the overlay.
        var state: UInt32 = 7
        func next() -> UInt32 {
            state = state &* 1_664_525 &+ 1_013_904_223
            return state >> 8
        }
        for (width, height) in [(16, 2), (2, 2), (30, 4), (48, 6), (62, 10), (200, 8)] {
            for density in [0, 3, 30, 100] {
                var overlay = [UInt8](repeating: 0, count: width * height * 4)
                for p in 0..<(width * height) where Int(next() % 100) < density {
                    let a = [255, 1, 128, Int(next() % 256)][Int(next() % 4)]
                    let channels = (0..<3).map { _ in [0, a, Int(next() % UInt32(a + 1))][Int(next() % 3)] }
                    overlay[4 * p] = UInt8(channels[0])
                    overlay[4 * p + 1] = UInt8(channels[1])
                    overlay[4 * p + 2] = UInt8(channels[2])
                    overlay[4 * p + 3] = UInt8(a)
                }
                let picture = (0..<(width * height * 3 / 2)).map { _ in UInt8(truncatingIfNeeded: next()) }
                for matrix in [YUVMatrix.bt601, .bt709] {
                // The best path, then every vector path this CPU has (AVX-512's and AVX2's), then plain C.
                var results: [([UInt8], [UInt8])] = []
                for path in [-1] + Array((1...max(1, Kernels.planeLevel)).reversed()) + [0] {
                    var o = overlay, pic = picture
                    let done = o.withUnsafeMutableBufferPointer { ov in
                        pic.withUnsafeMutableBufferPointer { pp in
                            let planes = Self.planes(at: pp.baseAddress!, width: width, height: height, matrix: matrix)
                            let layer = PixelPlane(data: ov.baseAddress!, stride: width * 4, width: width, height: height)
                            return path < 0 ? Kernels.blend(layer, over: planes)
                                : path == 0 ? Kernels.Reference.blend(layer, over: planes) : Kernels.blend(layer, over: planes, level: path)
                        }
                    }
                    #expect(done)
                    results.append((pic, o))
                }
                for (k, r) in results.enumerated().dropLast() {
                    #expect(r.0 == results.last!.0, "\(width)x\(height), \(density)%, \(matrix), path \(k): samples")
                    #expect(r.1 == results.last!.1, "\(width)x\(height), \(density)%, \(matrix), path \(k): overlay left")
                }
                #expect(results[0].1.allSatisfy { $0 == 0 })
                if overlay.contains(where: { $0 != 0 }) { #expect(results[0].0 != picture) }
                }
            }
        }
    }

    /// maptrip's RGB to I420 kernel (BT.709 has none in this libyuv): its AVX2 path gives the plain C
    /// one's samples exactly, on seeded noise of sizes on both sides of its 8-pixel steps (odd ones
    /// too); with BT.601's coefficients it gives libyuv's ARGBToI420 within 1 (libyuv's vector rows
    /// halve the chroma coefficients).
    @Test func theRGBToI420KernelMatchesItsReferenceAndLibyuv() throws {
        var random = SplitMix64(seed: 709)
        for (width, height) in [(8, 2), (16, 4), (37, 11), (2, 2), (1, 1), (64, 6), (130, 9)] {
            let stride = width * 4 + 12
            let src = (0..<(stride * height)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let cw = (width + 1) / 2, ch = (height + 1) / 2
            func convert(_ f: (UnsafePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>, Int,
                               UnsafeMutablePointer<UInt8>, Int) throws -> Void) rethrows -> [UInt8] {
                var y = [UInt8](repeating: 0, count: width * height), u = [UInt8](repeating: 0, count: cw * ch), v = u
                try f(src, stride, &y, width, &u, cw, &v, cw)
                return y + u + v
            }
            /// The kernel `f` as `convert` calls it.
            func kernel(_ f: @escaping (PixelPlane, YUVPlanes) -> Void, _ matrix: YUVMatrix)
                -> (UnsafePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>, Int,
                    UnsafeMutablePointer<UInt8>, Int) -> Void {
                { src, srcStride, y, yStride, u, uStride, v, vStride in
                    f(PixelPlane(reading: src, stride: srcStride, width: width, height: height),
                      YUVPlanes(y: PixelPlane(data: y, stride: yStride, width: width, height: height),
                                u: PixelPlane(data: u, stride: uStride, width: cw, height: ch),
                                v: PixelPlane(data: v, stride: vStride, width: cw, height: ch), coefficients: matrix.coefficients))
                }
            }
            for matrix in [YUVMatrix.bt601, .bt709] {
                let fast = convert(kernel({ Kernels.argbToI420($0, into: $1) }, matrix))
                let plain = convert(kernel({ Kernels.Reference.argbToI420($0, into: $1) }, matrix))
                #expect(fast == plain, "\(width)x\(height) \(matrix)")
                if matrix == .bt601 {
                    let libyuv = try convert { try YUV.argbToI420(src: $0, srcStride: $1, y: $2, yStride: $3, u: $4, uStride: $5,
                                                                  v: $6, vStride: $7, width: width, height: height) }
                    let worst = zip(fast, libyuv).map { abs(Int($0) - Int($1)) }.max() ?? 0
                    #expect(worst <= 1, "\(width)x\(height): \(worst) from libyuv")
                }
            }
        }
    }

    /// An overlay's picture painted on a band by maptrip's own OVER (`Kernels.over`, and its C
    /// reference) gives Cairo's bytes, at full opacity and faded, over a band holding other ink.
    @Test func picturesPaintedOnABandMatchCairo() throws {
        var state: UInt64 = 0x853C_49E6_748F_EA9B
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        /// Random premultiplied pixels: transparent, opaque and in between (each channel at most alpha).
        func fill(_ surface: ImageSurface) {
            for r in 0..<surface.height {
                let row = surface.data + r * surface.stride
                for x in 0..<surface.width {
                    let a = [0, 255, next(256)][next(3)]
                    for c in 0..<3 { row[4 * x + c] = UInt8(a == 0 ? 0 : next(a + 1)) }
                    row[4 * x + 3] = UInt8(a)
                }
            }
            surface.markDirty()
        }
        let picture = try ImageSurface(width: 37, height: 23)
        fill(picture)
        for alpha in [1.0, 0.5, 0.3, 0.77, 0.013, 0.999] {
            let band = try ImageSurface(width: 64, height: 40)
            fill(band)
            band.flush()
            let bytes = band.stride * band.height
            let before = Array(UnsafeBufferPointer(start: band.data, count: bytes))
            // Cairo: the picture at (9, 7), as a mark is painted everywhere else.
            try band.withContext { cr in
                Mark(picture: picture, x: 9, y: 7, alpha: alpha).paint(in: cr)
            }
            band.flush()
            let cairo = Array(UnsafeBufferPointer(start: band.data, count: bytes))
            let a = Int32(Int((alpha * 65535 + 0.5).rounded(.down)) >> 8)
            for reference in [false, true] {
                var ours = before
                ours.withUnsafeMutableBufferPointer { d in
                    let target = PixelPlane(data: d.baseAddress!, stride: band.stride, width: band.width, height: band.height)
                        .rectangle(x: 9, y: 7, width: picture.width, height: picture.height, bytesPerPixel: 4)
                    if reference {
                        Kernels.Reference.over(picture.pixels, alpha: a, onto: target)
                    } else {
                        Kernels.over(picture.pixels, alpha: a, onto: target)
                    }
                }
                let differing = zip(ours, cairo).filter { $0 != $1 }.count
                #expect(differing == 0, "alpha \(alpha), reference \(reference): \(differing) bytes differ")
            }
        }
    }

    /// Random premultiplied pixels from a seeded generator: transparent, opaque and in between.
    static func noise(_ surface: ImageSurface, _ rng: inout SplitMix64) {
        for r in 0..<surface.height {
            let row = surface.data + r * surface.stride
            for x in 0..<surface.width {
                let a = [0, 255, Int(rng.next() % 256)][Int(rng.next() % 3)]
                for c in 0..<3 { row[4 * x + c] = UInt8(a == 0 ? 0 : Int(rng.next() % UInt64(a + 1))) }
                row[4 * x + 3] = UInt8(a)
            }
        }
        surface.markDirty()
    }

    /// Every width from 1 to 40 (the AVX2 path's masked tail of 1 to 7 pixels after 0 to 4 whole steps,
    /// AVX-512's of 1 to 15 after 0 to 2), at full opacity and faded, along every path this CPU has: the
    /// bytes of the plain C path, rows past the width untouched.
    @Test func overKernelsTailEqualsItsReference() throws {
        var rng = SplitMix64(seed: 58)
        for width in 1...40 {
            let picture = try ImageSurface(width: width, height: 5)
            Self.noise(picture, &rng)
            for a in [255, 235, 128, 3] as [Int32] {
                let band = try ImageSurface(width: 40, height: 7)
                Self.noise(band, &rng)
                let bytes = band.stride * band.height
                var results: [[UInt8]] = []
                // The best path, each vector path, then plain C.
                for path in [-1] + Array((1...max(1, Kernels.planeLevel)).reversed()) + [0] {
                    var ours = Array(UnsafeBufferPointer(start: band.data, count: bytes))
                    ours.withUnsafeMutableBufferPointer { d in
                        let target = PixelPlane(data: d.baseAddress!, stride: band.stride, width: band.width, height: band.height)
                            .rectangle(x: 3, y: 1, width: width, height: 5, bytesPerPixel: 4)
                        if path < 0 { Kernels.over(picture.pixels, alpha: a, onto: target) } else if path == 0 {
                            Kernels.Reference.over(picture.pixels, alpha: a, onto: target)
                        } else {
                            Kernels.over(picture.pixels, alpha: a, onto: target, level: path)
                        }
                    }
                    results.append(ours)
                }
                for (k, r) in results.enumerated().dropLast() { #expect(r == results.last!, "width \(width), alpha \(a), path \(k)") }
            }
        }
    }

    /// Marks of one translucent colour painted by maptrip (`PixelTarget.paint`: a group in strips of
    /// rows) over a clip: Cairo's bytes, as it paints them into a group painted at that opacity.
    /// Marks along a diagonal, overlapping their neighbours, some past the clip.
    @Test func marksPaintedAsOneLayerMatchCairosGroup() throws {
        var rng = SplitMix64(seed: 5958)
        for alpha in [0.92, 0.5, 1.0] {
            var marks: [Mark] = []
            for k in 0..<14 {
                let picture = try ImageSurface(width: 5 + Int(rng.next() % 14), height: 5 + Int(rng.next() % 17))
                Self.noise(picture, &rng)
                picture.flush()
                marks.append(Mark(picture: picture, x: 9 * k - 12 + Int(rng.next() % 4), y: 7 * k - 10 + Int(rng.next() % 5), alpha: 1))
            }
            let ours = try ImageSurface(width: 120, height: 90), cairo = try ImageSurface(width: 120, height: 90)
            Self.noise(ours, &rng)
            ours.flush()
            memcpy(cairo.data, ours.data, ours.stride * ours.height)
            cairo.markDirty()
            var painted = false
            try ours.withContext { cr in
                cr.rectangle(2, 3, 110, 80)
                cr.clip()
                painted = try #require(PixelTarget(cr)).paint(marks, alpha: alpha)
            }
            try cairo.withContext { cr in
                cr.rectangle(2, 3, 110, 80)
                cr.clip()
                GlyphPictures.paintByCairo(marks, alpha: alpha, in: cr)
            }
            ours.flush()
            cairo.flush()
            #expect(painted)
            let differing = (0..<(ours.stride * ours.height)).filter { ours.data[$0] != cairo.data[$0] }.count
            #expect(differing == 0, "alpha \(alpha): \(differing) bytes differ")
        }
    }

    @Test func thePlaneKernelComputesWhatItsReferenceDoes() throws {
        // Noise, so that any sample taken from the wrong neighbour shows; widths on both sides of the
        // kernel's 32-sample steps, scales from enlarging to halving, positions before and past the edges.
        let sw = 131, sh = 97
        var state: UInt32 = 99
        let src = (0..<(sw * sh)).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 13)
        }
        var cases = 0
        for width in [1, 7, 31, 32, 33, 100] {
            for scale in [0.55, 0.84, 1.0, 1.19, 1.7] {
                for origin in [-3.3, 0.0, 12.6] {
                    let step = Int32((65536 / scale).rounded())
                    let x0 = Int32((origin * 65536).rounded()), y0 = Int32((origin * 0.7 * 65536).rounded())
                    let height = 9
                    var out = [UInt8](repeating: 0, count: width * height)
                    let done = src.withUnsafeBufferPointer { s in
                        out.withUnsafeMutableBufferPointer { o in
                            Kernels.resample(PixelPlane(reading: s.baseAddress!, stride: sw, width: sw, height: sh),
                                             bytesPerPixel: 1,
                                             into: PixelPlane(data: o.baseAddress!, stride: width, width: width, height: height),
                                             x0: x0, y0: y0, dx: step, dy: step)
                        }
                    }
                    #expect(done)
                    let expected = Self.reference(src, width: sw, height: sh, x0: x0, y0: y0, step: step,
                                                  width: width, height: height)
                    #expect(out == expected, "width \(width), scale \(scale), origin \(origin)")
                    cases += 1
                }
            }
        }
        #expect(cases == 90)
    }

    /// A tile whose every sample of each plane is the same (open sea) is filled, not resampled: the
    /// kernel's blend of equal samples is that sample, so the fill writes what the kernel would, at any
    /// scale and position, clipped to a band's rows the same way. A tile with one sample off, anywhere
    /// (its border too), is not flat.
    @Test func aFlatTileIsFilledWithWhatTheKernelWouldWrite() throws {
        guard Kernels.isAvailable else { return }
        let tile = PlanarTile(width: 260, height: 260)
        let values: [UInt8] = [0, 1, 128, 203, 255]
        for value in values {
            for plane in tile.planes { plane.data.update(repeating: value, count: plane.stride * plane.height) }
            tile.noteFlatness()
            #expect(tile.flat.map { [$0.y, $0.u, $0.v] } == [value, value, value])
            for scale in [0.55, 0.84, 1.0, 1.19] {
                for (originX, originY) in [(-3.3, 12.6), (0.0, 0.0), (17.25, -40.5)] {
                    let w = 300, h = 90, firstRow = 40
                    var painted = [UInt8](repeating: 7, count: w * h), filled = painted
                    painted.withUnsafeMutableBufferPointer { p in
                        let target = PixelPlane(data: p.baseAddress!, stride: w, width: w, height: h)
                        #expect(Kernels.resample(tile.planes[0], bytesPerPixel: 1, scale: scale, originX: originX,
                                                 originY: originY, into: target, firstRow: firstRow,
                                                 x: 11, y: 25, width: 250, height: 200))
                    }
                    filled.withUnsafeMutableBufferPointer { p in
                        let target = PixelPlane(data: p.baseAddress!, stride: w, width: w, height: h)
                        Kernels.fill(value, into: target, firstRow: firstRow, x: 11, y: 25, width: 250, height: 200)
                    }
                    #expect(painted == filled, "value \(value), scale \(scale), origin \(originX), \(originY)")
                    #expect(filled.contains(value) && filled.contains(7), "the rectangle within the band's rows, and only it")
                }
            }
        }
        // One sample off, in each plane (the last: the border's corner), and the tile is not flat.
        for plane in 0..<3 {
            for p in tile.planes { p.data.update(repeating: 90, count: p.stride * p.height) }
            let p = tile.planes[plane]
            p.data[p.stride * p.height - 1] = 91
            tile.noteFlatness()
            #expect(tile.flat == nil, "plane \(plane)")
        }
    }

    /// Overlays like the frame's: text with a halo, a pin, a translucent card, a hairline.
    static func drawOverlays(in cr: Context, width: Int, height: Int) {
        cr.setSource(Color(red: 1, green: 1, blue: 1, alpha: 0.85))
        cr.roundedRectangle(20, 20, 180, 60, radius: 8)
        cr.fill()
        cr.setSource(Color(red: 0.85, green: 0.25, blue: 0.15, alpha: 1))
        cr.arc(x: Double(width) * 0.6, y: Double(height) * 0.5, radius: 9)
        cr.fill()
        cr.setLineWidth(2.5)
        cr.move(to: 30, Double(height) - 30)
        cr.curve(to: Double(width) - 40, 40, c1x: Double(width) * 0.3, c1y: 0, c2x: Double(width) * 0.7, c2y: Double(height))
        cr.stroke()
        cr.setSource(Color(red: 0.1, green: 0.1, blue: 0.1, alpha: 0.6))
        cr.setLineWidth(0.6)
        cr.move(to: 0, 101.5)
        cr.line(to: Double(width), 140.3)
        cr.stroke()
    }

    @Test func overlaysBlendedOverAPictureMatchThemDrawnOverItAndConverted() throws {
        let width = 320, height = 180
        let map = try BilinearResampleTests.tile(width: width, height: height)
        // Drawn over, then converted: what every BGRA frame goes through.
        let drawn = try ImageSurface(width: width, height: height)
        try drawn.withContext { cr in
            cr.setSource(map, x: 0, y: 0)
            cr.paint()
            Self.drawOverlays(in: cr, width: width, height: height)
        }
        let expected = try Picture(converting: drawn)
        // Converted, then the overlays blended over from a transparent layer of their own.
        let picture = try Picture(converting: map)
        let layer = try ImageSurface(width: width, height: height)
        try layer.withContext { Self.drawOverlays(in: $0, width: width, height: height) }
        layer.flush()
        #expect(picture.with { $0.blend(layer.data, stride: layer.stride) })
        let d = picture.difference(expected)
        #expect(d[0].worst <= 2 && d[0].mean < 0.2, "Y \(d[0])")
        // Chroma: the blend averages each 2x2 block's overlay over the block's chroma, libyuv the
        // block's blended colours: the same where the map is flat under the overlay's edge.
        #expect(d[1].mean < 0.3 && d[2].mean < 0.3, "U \(d[1]) V \(d[2])")
        #expect(d[1].worst <= 24 && d[2].worst <= 24, "U \(d[1]) V \(d[2])")
        // The layer is left transparent for the next frame's overlays.
        #expect((0..<(layer.stride * height)).allSatisfy { layer.data[$0] == 0 })
        // A blend that lost the overlay (or put it a row off) differs by far more.
        let untouched = try Picture(converting: map)
        #expect(untouched.difference(expected)[0].mean > 2)
    }

    /// Two maps planned over `cameras` in a frame `width` x `height`, every frame cached (a few
    /// frames share too few tiles to be worth it by default): one draws the reference, the other the
    /// way under test.
    func plannedMaps(_ cameras: [Camera], width: Int, height: Int) throws -> [ShapefileBaseMap] {
        try (0..<2).map { _ in
            let map = try ShapefileBaseMap(assets: assets)
            map.caching.rasterBreakEven = .infinity
            try map.prepare(for: cameras.map { Viewport(camera: $0, width: width, height: height) })
            map.plan(frames: cameras, format: FrameFormat(width: width, height: height, fps: 30, scale: 1))
            return map
        }
    }

    @Test func aFlightCompositedIntoI420MatchesItCompositedInBGRAAndConverted() throws {
        // Across a level boundary (zoom 4.25) and the antimeridian, and up to the world's top edge (no
        // map above it): edge tiles, two levels, the outside rows.
        let width = 640, height = 360
        let cameras = RasterCacheTests().flight(Camera(center: LonLat(lon: 176, lat: -38), zoom: 4.2),
                                                Camera(center: LonLat(lon: -176, lat: -40), zoom: 4.3), count: 6)
            + [Camera(center: LonLat(lon: 20, lat: 82), zoom: 4.6), Camera(center: LonLat(lon: 21, lat: 82.5), zoom: 4.62)]
        let viewports = cameras.map { Viewport(camera: $0, width: width, height: height) }
        let maps = try plannedMaps(cameras, width: width, height: height)
        let bgra = try ImageSurface(width: width, height: height)
        let scratch = try ImageSurface(width: width, height: 64)
        var worst = [0, 0, 0], total = [0.0, 0.0, 0.0], off = [0, 0]
        for v in viewports {
            try bgra.withContext { try maps[0].draw(v, in: $0) }
            let expected = try Picture(converting: bgra)
            let picture = Picture(width: width, height: height)
            #expect(try picture.with { try maps[1].drawPlanar(v, into: $0, scratch: scratch) })
            // Pixels off by more than rounding: dashes whose phase differs (the two kinds of tile
            // clip their lines to different borders), nothing else.
            off[0] += zip(picture.y, expected.y).filter { abs(Int($0) - Int($1)) > 8 }.count
            off[1] += zip(picture.u + picture.v, expected.u + expected.v).filter { abs(Int($0) - Int($1)) > 24 }.count
            for (i, d) in picture.difference(expected).enumerated() {
                worst[i] = max(worst[i], d.worst)
                total[i] += d.mean / Double(viewports.count)
            }
        }
        #expect(maps[1].rasterCacheStatistics?.framesComposited == cameras.count)
        // Luma: resampled from the tiles' Y as the BGRA tiles' pixels, within rounding.
        let pixels = viewports.count * width * height
        #expect(total[0] < 0.05, "Y worst \(worst[0]), mean \(total[0])")
        #expect(off[0] * 2000 < pixels, "Y: \(off[0]) of \(pixels) pixels off by more than 8")
        #expect(off[1] * 2000 < pixels / 2, "U, V: \(off[1]) of \(pixels / 2) samples off by more than 24")
        // Chroma: sampled from the tiles' 2x2 averages instead of averaging the resampled pixels: a
        // little softer along hairlines, the same on fills. A tile a pixel off, or a band's rows
        // shifted, gives means of several levels.
        #expect(total[1] < 0.5 && total[2] < 0.5, "U mean \(total[1]), V mean \(total[2]), worst \(worst[1]), \(worst[2])")
    }

    /// Two maps planned over a flight from Paris into `rest` (`count` frames) and two frames resting
    /// there; the held view; and what drawing it from the vectors in BGRA and converting gives.
    func heldAfterFlight(into rest: Camera, count: Int) throws
        -> (cameras: [Camera], maps: [ShapefileBaseMap], held: Viewport, expected: Picture) {
        let cameras = RasterCacheTests().flight(Camera(center: LonLat(lon: 2, lat: 48), zoom: 4.6), rest, count: count)
            + [rest, rest]
        let maps = try plannedMaps(cameras, width: 320, height: 180)
        let held = Viewport(camera: rest, width: 320, height: 180)
        let bgra = try ImageSurface(width: 320, height: 180)
        try bgra.withContext { try maps[0].draw(held, in: $0) }
        return (cameras, maps, held, try Picture(converting: bgra))
    }

    @Test func aHeldCameraIsDrawnIntoI420FromTheVectorsOnce() throws {
        // A camera at rest: drawn from the vectors once, converted, and copied for the frames after
        // (a pin arriving, a card fading): exactly what drawing it in BGRA and converting gives; the
        // scratch it was drawn through left transparent.
        let (_, maps, held, expected) = try heldAfterFlight(into: Camera(center: LonLat(lon: 10, lat: 50), zoom: 5), count: 4)
        let scratch = try ImageSurface(width: 320, height: 50)
        for _ in 0..<3 {
            let picture = Picture(width: 320, height: 180)
            #expect(try picture.with { try maps[1].drawPlanar(held, into: $0, scratch: scratch) })
            #expect(picture.y == expected.y && picture.u == expected.u && picture.v == expected.v)
            // The scratch is given back transparent: the frame's overlays are drawn on it next.
            scratch.flush()
            let bytes = UnsafeBufferPointer(start: scratch.data, count: scratch.stride * scratch.height)
            #expect(bytes.allSatisfy { $0 == 0 })
        }
        let s = try #require(maps[1].rasterCacheStatistics)
        #expect(s.stillsDrawn == 1 && s.framesFromStill == 2)
        // Its 3 MB are held within the cache's bound.
        #expect(s.peakBytes <= s.limitBytes)
    }

    @Test func aHeldCameraOnThePixelGridIsItsTilesCopied() throws {
        // A camera at rest on the pixel grid (as the timeline puts it) has a level of its own: its
        // picture in I420 is its tiles copied one for one (shared with the frames flying in), and it
        // is what drawing it from the vectors in BGRA and converting gives.
        let rest = Camera(center: LonLat(lon: 10.3, lat: 50.2), zoom: 5.37).onPixelGrid(width: 320, height: 180, scale: 1)
        let (cameras, maps, held, expected) = try heldAfterFlight(into: rest, count: 6)
        let scratch = try ImageSurface(width: 320, height: 50)
        for n in 0..<(cameras.count - 2) {
            let picture = Picture(width: 320, height: 180)
            _ = try picture.with { try maps[1].drawPlanar(Viewport(camera: cameras[n], width: 320, height: 180), into: $0, scratch: scratch) }
        }
        let picture = Picture(width: 320, height: 180)
        #expect(try picture.with { try maps[1].drawPlanar(held, into: $0, scratch: scratch) })
        let s = try #require(maps[1].rasterCacheStatistics)
        #expect(s.stillsDrawn == 1 && s.stillsFromTiles == 1)
        let d = picture.difference(expected)
        let off = zip(picture.y, expected.y).filter { abs(Int($0) - Int($1)) > 8 }.count
        let offChroma = zip(picture.u + picture.v, expected.u + expected.v).filter { abs(Int($0) - Int($1)) > 24 }.count
        print("held from tiles vs vectors: Y \(d[0]), U \(d[1]), V \(d[2]); \(off) luma, \(offChroma) chroma samples off by more than 8, 24")
        #expect(d[0].mean < 0.05 && d[1].mean < 0.05 && d[2].mean < 0.05, "Y \(d[0]), U \(d[1]), V \(d[2])")
        // Off by more than rounding: only where a dashed border's dashes start elsewhere (a tile clips
        // its lines to its own border; here one border near the top-left corner, 28 samples).
        #expect(off * 1000 < 320 * 180 && offChroma * 2000 < 320 * 180 / 2, "\(off) luma, \(offChroma) chroma")
        // Off the grid by a third of a pixel: drawn from the vectors, as before.
        var moved = rest
        moved.center.lon += 360 / WebMercator.worldSize(zoom: rest.zoom) / 3
        #expect(held.pixelGridWidth != nil)
        #expect(Viewport(camera: moved, width: 320, height: 180).pixelGridWidth == nil)
    }

    /// Over open sea every tile is one colour: each is kept as its three samples, not as planes (the
    /// cache's room goes to tiles with pixels to resample), and the frames are that colour, as the
    /// vectors drawn in BGRA and converted give them.
    @Test func flatTilesAreKeptAsTheirSamples() throws {
        let width = 320, height = 180
        let cameras = RasterCacheTests().flight(Camera(center: LonLat(lon: -122, lat: -46), zoom: 4.6),
                                                Camera(center: LonLat(lon: -116, lat: -43), zoom: 5.2), count: 6)
        let maps = try plannedMaps(cameras, width: width, height: height)
        let bgra = try ImageSurface(width: width, height: height)
        let scratch = try ImageSurface(width: width, height: 64)
        for camera in cameras {
            let v = Viewport(camera: camera, width: width, height: height)
            try bgra.withContext { try maps[0].draw(v, in: $0) }
            let expected = try Picture(converting: bgra)
            let picture = Picture(width: width, height: height)
            #expect(try picture.with { try maps[1].drawPlanar(v, into: $0, scratch: scratch) })
            #expect(picture.y == expected.y && picture.u == expected.u && picture.v == expected.v)
            #expect(Set(picture.y).count == 1, "open sea: one colour")
        }
        let s = try #require(maps[1].rasterCacheStatistics)
        #expect(s.framesComposited == cameras.count && s.tilesDrawn > 6 && s.flatTiles == s.tilesDrawn)
        // All of them together take less than one tile's planes.
        #expect(s.peakBytes <= s.tilesDrawn * PlanarTile.flatBytes)
        #expect(s.peakBytes < PlanarTile.bytes(width: 260, height: 260))
    }

    @Test func tilesDrawnAheadLeaveEveryFrameAsItWasWithinTheBound() throws {
        // A flight across three levels: one map draws each frame's missing tiles when the frame comes;
        // the other draws ahead before every frame, all it will (as the drawing thread does while the
        // encoder is busy). The same pictures, byte for byte; the frames find most of their tiles drawn;
        // the cache keeps its bound.
        let width = 640, height = 360
        let cameras = RasterCacheTests().flight(Camera(center: LonLat(lon: 2, lat: 48), zoom: 4.3),
                                                Camera(center: LonLat(lon: 24, lat: 41), zoom: 5.1), count: 30)
        let maps = try plannedMaps(cameras, width: width, height: height)
        let scratch = try ImageSurface(width: width, height: 64)
        // Nothing to draw ahead before the first frame: the tiles' form is not known yet.
        #expect(try !maps[1].drawAhead())
        var inFrames = [0, 0], ahead = 0
        for camera in cameras {
            let v = Viewport(camera: camera, width: width, height: height)
            while try maps[1].drawAhead() {
                ahead += 1
                try #require(ahead < 10_000, "drawing ahead never ends")
            }
            var pictures: [Picture] = []
            for (i, map) in maps.enumerated() {
                let before = map.rasterCacheStatistics?.tilesDrawn ?? 0
                let picture = Picture(width: width, height: height)
                #expect(try picture.with { try map.drawPlanar(v, into: $0, scratch: scratch) })
                inFrames[i] += (map.rasterCacheStatistics?.tilesDrawn ?? 0) - before
                pictures.append(picture)
            }
            #expect(pictures[0].y == pictures[1].y && pictures[0].u == pictures[1].u && pictures[0].v == pictures[1].v)
        }
        let a = try #require(maps[0].rasterCacheStatistics), b = try #require(maps[1].rasterCacheStatistics)
        print("drawing ahead: \(ahead) tiles ahead; tiles drawn by the frames \(inFrames[1]) against \(inFrames[0]); "
              + "in all \(b.tilesDrawn) against \(a.tilesDrawn); peak \(b.peakBytes) of \(b.limitBytes) bytes")
        #expect(ahead > 0 && inFrames[1] * 2 < inFrames[0])
        // A tile is drawn ahead only in room no sooner-wanted tile needs: few are drawn twice.
        #expect(b.tilesDrawn <= a.tilesDrawn + a.tilesDrawn / 10)
        #expect(b.peakBytes <= b.limitBytes && a.peakBytes <= a.limitBytes)
    }

    /// A renderer of `sc` on the embedded map with its raster cache used for every moving frame,
    /// prepared and planned for the whole trip.
    static func cachingRenderer(_ sc: Scene, timeline: Timeline, overlays: [Overlay]? = nil) throws -> FrameRenderer {
        let map = try ShapefileBaseMap(assets: assets)
        map.caching.rasterBreakEven = .infinity
        let r = try FrameRenderer(scene: sc, baseMap: map, overlays: overlays)
        try map.prepare(for: (0..<timeline.frameCount).map { r.viewport(timeline.camera(at: $0)) })
        r.planBaseMap(timeline)
        return r
    }

    /// Renders every `step`th frame of `sc` into I420 and in BGRA, converted, and expects them alike;
    /// returns how many frames went the I420 way and the renderer that drew them.
    func compareRenderedIntoI420(_ sc: Scene, step: Int) throws -> (planarFrames: Int, renderer: FrameRenderer) {
        let timeline = Timeline(scene: sc)
        let renderers = try (0..<2).map { _ in try Self.cachingRenderer(sc, timeline: timeline) }
        let (w, h) = (sc.video.width, sc.video.height)
        var planarFrames = 0
        for n in stride(from: 0, to: timeline.frameCount, by: step) {
            let values = timeline.values(at: n)
            try renderers[0].render(values)
            let expected = try Picture(converting: renderers[0].surface)
            let picture = Picture(width: w, height: h)
            guard try picture.with({ try renderers[1].renderPlanar(values, into: $0) }) else { continue }
            planarFrames += 1
            let d = picture.difference(expected)
            let off = zip(picture.y, expected.y).filter { abs(Int($0) - Int($1)) > 8 }.count
            #expect(d[0].mean < 0.1 && off * 2000 < w * h, "frame \(n): Y \(d[0]), \(off) pixels off by more than 8")
            #expect(d[1].mean < 0.5 && d[2].mean < 0.5, "frame \(n): U \(d[1]), V \(d[2])")
        }
        return (planarFrames, renderers[1])
    }

    @Test func aFrameRenderedIntoI420MatchesItRenderedAndConverted() throws {
        // A flight between two places, its title still showing, the first place's pin and label:
        // the map composited into I420, the overlays recorded, replayed in their rectangles and
        // blended, against the whole frame drawn in BGRA and converted.
        let places = [Place(name: "Seoul 서울", position: LonLat(lon: 126.978, lat: 37.5665), zoom: 7),
                      Place(name: "Busan", position: LonLat(lon: 129.0756, lat: 35.1796), zoom: 7.5)]
        let sc = scene(places, title: "Korea")
        let (planarFrames, renderer) = try compareRenderedIntoI420(sc, step: 7)
        // Every frame went the I420 way: the flight's composited, the rests' copied from their held picture.
        #expect(planarFrames == (Timeline(scene: sc).frameCount + 6) / 7)
        #expect((renderer.baseMap as? ShapefileBaseMap)?.rasterCacheStatistics.map { $0.stillsDrawn == 2 && $0.framesComposited > 3 } == true)
    }

    /// Frames drawn into a few pictures reused in turn, as the recorder's frames are (each with its
    /// `PictureHistory`): at a rest, a picture that holds the held picture already gets back only what
    /// the overlays drew over it, and every frame comes out exactly as drawn into a fresh picture,
    /// through the flights (composited: the history forgotten) and the rests (pins and labels coming in).
    @Test func aReusedPictureGetsBackOnlyWhatTheOverlaysDrewOverIt() throws {
        let places = [Place(name: "Seoul 서울", position: LonLat(lon: 126.978, lat: 37.5665), dwell: 2, zoom: 7),
                      Place(name: "Busan", position: LonLat(lon: 129.0756, lat: 35.1796), dwell: 2, zoom: 7.5),
                      Place(name: "Jeju", position: LonLat(lon: 126.53, lat: 33.5), dwell: 2, zoom: 7)]
        let sc = scene(places, title: "Korea")
        let timeline = Timeline(scene: sc)
        let renderers = try (0..<2).map { _ in try Self.cachingRenderer(sc, timeline: timeline) }
        let (w, h) = (sc.video.width, sc.video.height)
        let pool = (0..<3).map { _ in (Picture(width: w, height: h), PictureHistory()) }
        var last: FrameValues?, drawn = 0
        for n in 0..<timeline.frameCount {
            let values = timeline.values(at: n)
            if values == last { continue }
            last = values
            let fresh = Picture(width: w, height: h)
            #expect(try fresh.with { try renderers[0].renderPlanar(values, into: $0) })
            let (reused, history) = pool[drawn % pool.count]
            drawn += 1
            #expect(try reused.with { picture in
                var picture = picture
                picture.history = history
                return try renderers[1].renderPlanar(values, into: picture)
            })
            #expect(reused.y == fresh.y && reused.u == fresh.u && reused.v == fresh.v, "frame \(n)")
        }
        let map = try #require(renderers[1].baseMap as? ShapefileBaseMap)
        let stats = try #require(map.rasterCacheStatistics)
        print("reused pictures: \(drawn) frames drawn, \(stats.framesFromStill) from held pictures, "
              + "\(map.caching.framesRestored) of them only where the overlays drew")
        #expect(map.caching.framesRestored > 10 && map.caching.framesRestored < stats.framesFromStill)
    }

    /// Strokes drawn straight into an I420 picture (`Kernels.strokeRound`) give the bytes of the
    /// same strokes drawn one after the other over a transparent BGRA overlay (`Kernels.strokeRound`)
    /// that is then blended over the picture: an outlined line and a thin one crossing it, and lines
    /// running off the frame, over noise.
    @Test func strokesDrawnStraightIntoI420MatchThemDrawnOverAnOverlayAndBlended() throws {
        guard Kernels.isAvailable else { return }
        let (width, height) = (420, 260)
        let first = RoundStrokeTests.lines
        let second: [[(x: Double, y: Double)]] = [[(x: 10.5, y: 250), (x: 400.25, y: 12.75)], [(x: -50, y: 131), (x: 500, y: 129.5)]]
        let strokes: [(lines: [[(x: Double, y: Double)]], passes: [(color: Color, width: Double)])] = [
            (first, [(Color(red: 1, green: 1, blue: 1, alpha: 0.95), 9.5), (Color(red: 0.89, green: 0.34, blue: 0.18, alpha: 1), 5)]),
            (second, [(Color(red: 0.12, green: 0.37, blue: 0.66, alpha: 0.7), 2.5)]),
        ]
        var state: UInt32 = 11
        let noise = (0..<(width * height * 3 / 2)).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 13)
        }
        // Over an overlay, then blended.
        var blended = noise
        var overlay = [UInt8](repeating: 0, count: width * height * 4)
        overlay.withUnsafeMutableBufferPointer { o in
            let pixels = PixelPlane(data: o.baseAddress!, stride: width * 4, width: width, height: height)
            for stroke in strokes {
                let xy = stroke.lines.flatMap { $0.flatMap { [$0.x, $0.y] } }, counts = stroke.lines.map { Int32($0.count) }
                let colors = stroke.passes.flatMap { [$0.color.red, $0.color.green, $0.color.blue, $0.color.alpha] }
                #expect(Kernels.strokeRound(pixels, clip: (0, 0, width, height), xy: xy, counts: counts,
                                            widths: stroke.passes.map(\.width), colors: colors))
            }
        }
        #expect(overlay.contains { $0 != 0 })
        overlay.withUnsafeMutableBufferPointer { o in
            blended.withUnsafeMutableBufferPointer { b in
                #expect(Kernels.blend(PixelPlane(data: o.baseAddress!, stride: width * 4, width: width, height: height),
                                      over: Self.planes(at: b.baseAddress!, width: width, height: height)))
            }
        }
        // Straight into the picture.
        var straight = noise
        let lines = strokes.flatMap(\.lines), passes = strokes.flatMap(\.passes)
        let drawn = straight.withUnsafeMutableBufferPointer { b in
            Kernels.strokeRound(Self.planes(at: b.baseAddress!, width: width, height: height),
                                lineCounts: strokes.map { Int32($0.lines.count) }, passCounts: strokes.map { Int32($0.passes.count) },
                                xy: lines.flatMap { $0.flatMap { [$0.x, $0.y] } }, counts: lines.map { Int32($0.count) },
                                widths: passes.map(\.width),
                                colors: passes.flatMap { [$0.color.red, $0.color.green, $0.color.blue, $0.color.alpha] })
        }
        let spans = try #require(drawn)
        #expect(spans.count == height)
        #expect(blended != noise)
        #expect(straight == blended)
        // Every sample changed lies within its pair of rows' span, and the spans are even.
        var changed = 0
        for r in 0..<height {
            for x in 0..<width where straight[r * width + x] != noise[r * width + x] {
                changed += 1
                let top = r & ~1
                #expect(spans[top] <= x && x < spans[top + 1], "row \(r), column \(x)")
            }
        }
        #expect(changed > 1000)
        #expect(stride(from: 0, to: height, by: 2).allSatisfy { spans[$0] % 2 == 0 && spans[$0 + 1] % 2 == 0 && spans[$0] <= spans[$0 + 1] })
    }

    /// A route that draws itself straight into I420 (`RouteOverlay.drawPlanar`) gives a frame what the
    /// same route drawn on the frame's band and blended gives, through a flight.
    @Test func aRouteDrawnStraightIntoI420MatchesItDrawnOnTheBand() throws {
        guard Kernels.isAvailable else { return }
        let places = [Place(name: "Lisbon", position: LonLat(lon: -9.14, lat: 38.72), zoom: 4),
                      Place(name: "Moscow", position: LonLat(lon: 37.62, lat: 55.76), zoom: 4.2),
                      Place(name: "Cairo", position: LonLat(lon: 31.24, lat: 30.04), zoom: 4)]
        let sc = scene(places)
        let timeline = Timeline(scene: sc)
        let overlays: [[Overlay]] = [FrameRenderer.standardOverlays(),
                                     FrameRenderer.standardOverlays().map { ($0 as? RouteOverlay).map(Banded.init) ?? $0 }]
        let renderers = try overlays.map { try Self.cachingRenderer(sc, timeline: timeline, overlays: $0) }
        var straight = 0
        for n in stride(from: 0, to: timeline.frameCount, by: 7) {
            let values = timeline.values(at: n)
            let pictures = (0..<2).map { _ in Picture(width: sc.video.width, height: sc.video.height) }
            let drawn = try zip(renderers, pictures).map { r, p in try p.with { try r.renderPlanar(values, into: $0) } }
            guard drawn.allSatisfy({ $0 }) else { continue }
            // The band cuts the lines at its rows, a hair apart from the whole frame's cut: a level
            // of luma at most, here and there. A 2x2 block where the line's edge and a pin's or a
            // label's share the block is blended twice rather than once: a few levels of chroma there.
            let d = pictures[0].difference(pictures[1])
            #expect(d[0].worst <= 1 && d[1].worst <= 8 && d[2].worst <= 8 && d.allSatisfy { $0.mean < 1e-3 }, "frame \(n): \(d)")
            let frame = FrameContext(scene: sc, values: values, viewport: renderers[0].viewport(values.camera),
                                     layout: renderers[0].layout, baseMap: renderers[0].baseMap,
                                     routes: Timeline.routes(for: sc), media: SceneMedia())
            if !values.legs.isEmpty, try Picture(width: sc.video.width, height: sc.video.height).with({
                try RouteOverlay().drawPlanar(frame, into: $0) != nil
            }) { straight += 1 }
        }
        #expect(straight > 3, "frames whose route went straight into the picture")
    }

    /// An overlay that draws as `overlay` draws and tells its cells, but never draws straight into I420.
    final class Banded: OverlayFastPaths {
        let overlay: OverlayFastPaths
        init(_ overlay: OverlayFastPaths) { self.overlay = overlay }
        func draw(_ frame: FrameContext, in cr: Context) throws { try overlay.draw(frame, in: cr) }
        func inkCells(_ frame: FrameContext) throws -> InkCells? { try overlay.inkCells(frame) }
    }

    /// An overlay drawn as `overlay` draws, that does not tell its cells: recorded and replayed in its
    /// bounding box, as every overlay was before cells.
    final class Recorded: Overlay {
        let overlay: Overlay
        init(_ overlay: Overlay) { self.overlay = overlay }
        func draw(_ frame: FrameContext, in cr: Context) throws { try overlay.draw(frame, in: cr) }
    }

    @Test func linesDrawnInTheirCellsMatchThemRecordedAndReplayed() throws {
        // Long legs across the frame on diagonals, one outlined, one dashed in another colour, and a
        // graticule: drawn on each band only in the cells their geometry passes through, and blended
        // only there, against the same lines recorded and replayed in their bounding boxes: the same
        // picture, within rounding. A cell left out leaves a piece of line out.
        var places = [Place(name: "Lisbon", position: LonLat(lon: -9.14, lat: 38.72), zoom: 4),
                      Place(name: "Moscow", position: LonLat(lon: 37.62, lat: 55.76), zoom: 4.2),
                      Place(name: "Cairo", position: LonLat(lon: 31.24, lat: 30.04), zoom: 4)]
        places[2].route = RouteStyle(color: Color(hex: "#1f5fa8")!, width: 3, dash: [10, 6], outline: nil)
        var sc = scene(places)
        sc.graticule = 10
        let timeline = Timeline(scene: sc)
        // Cairo strokes the lines both ways (a recording is replayed by Cairo; maptrip's own stroker,
        // which draws solid lines straight into a band, is held to Cairo's lines in RoundStrokeTests).
        let cairoLines = { FrameRenderer.standardOverlays().map { $0 is RouteOverlay ? RouteOverlay(strokesItself: false) : $0 } }
        let overlays: [[Overlay]] = [cairoLines(),
                                     cairoLines().map { $0 is RouteOverlay || $0 is GraticuleOverlay ? Recorded($0) : $0 },
                                     cairoLines().filter { !($0 is RouteOverlay || $0 is GraticuleOverlay) }]
        let renderers = try overlays.map { try Self.cachingRenderer(sc, timeline: timeline, overlays: $0) }
        var compared = 0, withLines = 0
        for n in stride(from: 0, to: timeline.frameCount, by: 5) {
            let values = timeline.values(at: n)
            let pictures = (0..<3).map { _ in Picture(width: 640, height: 360) }
            let drawn = try zip(renderers, pictures).map { r, p in try p.with { try r.renderPlanar(values, into: $0) } }
            guard drawn.allSatisfy({ $0 }) else { continue }
            compared += 1
            // Cairo's edges start from the clip's first row, so a sample on a line's edge may round
            // the other way: a level apart at most, and rarely.
            let d = pictures[0].difference(pictures[1])
            #expect(d.allSatisfy { $0.worst <= 1 && $0.mean < 1e-4 }, "frame \(n): \(d)")
            if pictures[0].y != pictures[2].y { withLines += 1 }
        }
        #expect(compared == (timeline.frameCount + 4) / 5)
        #expect(withLines == compared)
        // The lines told their cells: a diagonal leg's are a small part of its bounding box.
        let last = timeline.frameCount - 1
        let frame = FrameContext(scene: sc, values: timeline.values(at: last), viewport: renderers[0].viewport(timeline.camera(at: last)),
                                 layout: renderers[0].layout, baseMap: renderers[0].baseMap, routes: Timeline.routes(for: sc),
                                 media: SceneMedia())
        let area = { (c: InkCells) in c.runs(in: 0..<360).reduce(0) { $0 + $1.width * $1.height } }
        let route = try #require(try RouteOverlay().inkCells(frame)), graticule = try #require(try GraticuleOverlay().inkCells(frame))
        #expect(area(route) > 0 && area(route) < 640 * 360 / 3)
        #expect(area(graticule) > 0 && area(graticule) < 640 * 360 / 2)
    }
}

extension PlanarCompositeTests {
    @Test func aChasesTravelledLineIsStrokedInItsCellsAsPreviewStrokesIt() throws {
        // A heading-up chase: the camera moves every frame, so the travelled line is not kept from frame
        // to frame; a frame drawn into I420 strokes it on each band, in its cells, with the stroker
        // preview uses, where it was recorded through Cairo and replayed (Cairo's edges, not preview's).
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("chase-cells-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let walk = TrackFixture.walk(seed: 6203, count: 60, start: LonLat(lon: 24.94, lat: 60.17), stepKm: 0.4, turn: 30)
        try walk.gpx.write(to: dir.appendingPathComponent("ride.gpx"), atomically: true, encoding: .utf8)
        let json = """
            { "video": { "width": 640, "height": 360, "fps": 10 },
              "tracks": [ { "file": "ride.gpx", "name": "ride", "color": "#1f5fa8" } ],
              "playback": { "speed": 80, "clock": "none" },
              "camera": { "follow": "ride", "zoom": 11, "headingUp": true, "intro": 0 }, "outro": 0 }
            """
        try json.write(to: dir.appendingPathComponent("ride.json"), atomically: true, encoding: .utf8)
        let report = SceneLoader.check(contentsOf: dir.appendingPathComponent("ride.json"), tracks: TrackFileCheck())
        let sc = try #require(report.scene, "\(report.errors)")
        let timeline = Timeline(scene: sc)
        let lines = MoverOverlay(drawsMovers: false)
        let renderers = try [[lines as Overlay], [Recorded(MoverOverlay(drawsMovers: false))]].map {
            try Self.cachingRenderer(sc, timeline: timeline, overlays: $0)
        }
        var compared = 0, inCells = 0, recordedWorse = 0
        for n in stride(from: 5, to: timeline.frameCount - 5, by: 6) {
            let values = timeline.values(at: n)
            try renderers[0].render(values, frame: n)
            let expected = try Picture(converting: renderers[0].surface)
            let pictures = (0..<2).map { _ in Picture(width: 640, height: 360) }
            let drawn = try zip(renderers, pictures).map { r, p in try p.with { try r.renderPlanar(values, frame: n, into: $0) } }
            guard drawn.allSatisfy({ $0 }) else { continue }
            compared += 1
            let frame = FrameContext(scene: sc, values: values, viewport: renderers[0].viewport(values.camera),
                                     layout: renderers[0].layout, baseMap: renderers[0].baseMap,
                                     routes: Timeline.routes(for: sc), media: SceneMedia())
            if try lines.inkCells(frame) != nil { inCells += 1 }
            // Blending rounds once more than drawing over the map and converting: a level of luma.
            let d = pictures[0].difference(expected), r = pictures[1].difference(expected)
            #expect(d[0].worst <= 2 && d[0].mean < 0.01, "frame \(n): Y \(d[0]) in cells, \(r[0]) recorded")
            if r[0].worst > d[0].worst { recordedWorse += 1 }
        }
        #expect(compared >= 5 && inCells == compared, "\(inCells) of \(compared) frames told their cells")
        // The test can tell: Cairo's replayed stroke is further from preview's line.
        #expect(recordedWorse * 2 > compared, "recorded further from preview in \(recordedWorse) of \(compared) frames")
    }
}

extension PlanarCompositeTests {
    @Test func aDashedRouteDrawnStraightIntoI420MatchesPreview() throws {
        // Dashed legs through a flight and the rests: one outlined (dashes over a solid casing), one
        // of dots (dashes shorter than the line is wide), drawn straight into I420 by maptrip's
        // stroker (`RouteOverlay.drawPlanar`, the dashes as pieces) against preview (the same
        // stroker over the BGRA frame), converted. A solid line where preview dashes is thousands of
        // pixels off.
        guard Kernels.isAvailable else { return }
        var places = [Place(name: "Lisbon", position: LonLat(lon: -9.14, lat: 38.72), zoom: 4),
                      Place(name: "Moscow", position: LonLat(lon: 37.62, lat: 55.76), zoom: 4.2),
                      Place(name: "Cairo", position: LonLat(lon: 31.24, lat: 30.04), zoom: 4)]
        places[1].route = RouteStyle(color: Color(hex: "#1f5fa8")!, width: 8, dash: [20, 10], outline: Color(hex: "#ffffff")!)
        places[2].route = RouteStyle(color: Color(hex: "#a81f5f")!, width: 8, dash: [6, 12], outline: nil)
        let sc = scene(places)
        let timeline = Timeline(scene: sc)
        let (planarFrames, renderer) = try compareRenderedIntoI420(sc, step: 6)
        #expect(planarFrames == (timeline.frameCount + 5) / 6)
        // The route went straight into the picture on every frame that shows one, dashes and all.
        var straight = 0, withLegs = 0
        for n in stride(from: 0, to: timeline.frameCount, by: 6) {
            let values = timeline.values(at: n)
            guard !values.legs.isEmpty else { continue }
            withLegs += 1
            let frame = FrameContext(scene: sc, values: values, viewport: renderer.viewport(values.camera),
                                     layout: renderer.layout, baseMap: renderer.baseMap,
                                     routes: Timeline.routes(for: sc), media: SceneMedia())
            if try Picture(width: sc.video.width, height: sc.video.height).with({
                try RouteOverlay().drawPlanar(frame, into: $0) != nil
            }) { straight += 1 }
        }
        #expect(withLegs > 5 && straight == withLegs, "\(straight) of \(withLegs) frames with legs drawn straight into I420")
    }
}
