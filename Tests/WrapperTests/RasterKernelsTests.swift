import Foundation
import RasterKernels
import Testing

/// The wrapper's contract (`Kernels`): a kernel that cannot do its work writes nothing and says so, for
/// the caller to draw its own way; one that can stays within what it was given.
@Suite struct RasterKernelsTests {
    /// `count` bytes of `value`, as a plane of `width` x `height` (`stride` = `width` x `bytesPerPixel`).
    final class Buffer {
        var bytes: [UInt8]
        let width: Int, height: Int, bytesPerPixel: Int
        init(width: Int, height: Int, bytesPerPixel: Int, value: UInt8) {
            bytes = [UInt8](repeating: value, count: width * height * bytesPerPixel)
            self.width = width
            self.height = height
            self.bytesPerPixel = bytesPerPixel
        }
        func with<T>(_ body: (PixelPlane) -> T) -> T {
            bytes.withUnsafeMutableBufferPointer {
                body(PixelPlane(data: $0.baseAddress!, stride: width * bytesPerPixel, width: width, height: height))
            }
        }
    }

    /// `Kernels.resample` of `source` into the whole of `target` (of its pixel size) at `scale`, the
    /// target being the frame's rows from `firstRow`.
    static func resample(_ source: Buffer, into target: Buffer, scale: Double, firstRow: Int) -> Bool {
        source.with { s in
            target.with { t in
                Kernels.resample(s, bytesPerPixel: target.bytesPerPixel, scale: scale, originX: 0, originY: 0, into: t,
                                 firstRow: firstRow, x: 0, y: 0, width: target.width, height: target.height)
            }
        }
    }

    @Test func aKernelThatCannotWritesNothingAndSaysSo() {
        let source = Buffer(width: 16, height: 16, bytesPerPixel: 1, value: 200)
        let target = Buffer(width: 16, height: 16, bytesPerPixel: 1, value: 7)
        // A scale out of the resampler's range.
        let done = Self.resample(source, into: target, scale: 100, firstRow: 0)
        #expect(!done)
        #expect(target.bytes.allSatisfy { $0 == 7 })
        // An odd size, which the blend into I420 cannot take.
        let overlay = Buffer(width: 3, height: 2, bytesPerPixel: 4, value: 255)
        let y = Buffer(width: 3, height: 2, bytesPerPixel: 1, value: 16)
        let u = Buffer(width: 2, height: 1, bytesPerPixel: 1, value: 128), v = Buffer(width: 2, height: 1, bytesPerPixel: 1, value: 128)
        let blended = overlay.with { o in
            y.with { y in u.with { u in v.with { v in
                Kernels.blend(o, over: YUVPlanes(y: y, u: u, v: v, coefficients: .bt709))
            } } }
        }
        #expect(!blended)
        #expect(overlay.bytes.allSatisfy { $0 == 255 } && y.bytes.allSatisfy { $0 == 16 })
        // Without AVX2, the stroker steps aside (with it, it draws: below).
        let pixels = Buffer(width: 8, height: 8, bytesPerPixel: 4, value: 0)
        let stroked = pixels.with {
            Kernels.strokeRound($0, clip: (0, 0, 8, 8), xy: [0, 4, 8, 4], counts: [2], widths: [2], colors: [1, 0, 0, 1])
        }
        #expect(stroked == Kernels.isAvailable)
        #expect(pixels.bytes.contains { $0 != 0 } == Kernels.isAvailable)
    }

    /// Nothing of the rectangle within the target's rows: done, as nothing is to be painted.
    @Test func aRectangleOutsideTheTargetIsDoneWithoutWriting() {
        let source = Buffer(width: 16, height: 16, bytesPerPixel: 4, value: 200)
        let target = Buffer(width: 16, height: 16, bytesPerPixel: 4, value: 7)
        let done = Self.resample(source, into: target, scale: 1, firstRow: 100)
        #expect(done)
        #expect(target.bytes.allSatisfy { $0 == 7 })
    }

    /// The stroker draws within its clip only, and the fill of a plane within the band's rows only.
    @Test(.enabled(if: Kernels.isAvailable, "the stroker needs AVX2"))
    func kernelsStayWithinWhatTheyWereGiven() {
        let pixels = Buffer(width: 32, height: 32, bytesPerPixel: 4, value: 0)
        let stroked = pixels.with {
            Kernels.strokeRound($0, clip: (8, 8, 24, 24), xy: [0, 16, 32, 16, 16, 0, 16, 32], counts: [2, 2], widths: [4],
                                colors: [0.2, 0.4, 0.6, 1])
        }
        #expect(stroked)
        for row in 0..<32 {
            for column in 0..<32 {
                let inked = pixels.bytes[(row * 32 + column) * 4 + 3] != 0
                if !(8..<24).contains(row) || !(8..<24).contains(column) { #expect(!inked, "(\(column), \(row))") }
            }
        }
        #expect(pixels.bytes[(16 * 32 + 16) * 4 + 3] == 255)
        // Frame rows 10..<20 of a rectangle 5..<15 wide, in a band holding rows 12..<16.
        let band = Buffer(width: 20, height: 4, bytesPerPixel: 1, value: 0)
        band.with { Kernels.fill(9, into: $0, firstRow: 12, x: 5, y: 10, width: 10, height: 10) }
        #expect(band.bytes == (0..<80).map { (5..<15).contains($0 % 20) ? 9 : 0 })
    }

    /// A GPS ride's travelled line: ten laps of a loop in steps of a few pixels, a little apart, drawn
    /// as a casing and a line over it. The distance pass sixteen pixels at a time (AVX-512) gives the
    /// bytes of eight at a time (AVX2), in clips that start and end anywhere.
    @Test(.enabled(if: Kernels.planeLevel >= 2, "the sixteen-pixel distance pass needs AVX-512"))
    func theStrokersDistancePassesGiveTheSameBytes() {
        var seed: UInt64 = 59
        func jitter() -> Double {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Double(seed >> 11) / Double(1 << 53) - 0.5
        }
        var xy: [Double] = []
        let steps = 180
        for lap in 0..<10 {
            for i in 0...steps {
                let a = Double(i) / Double(steps) * 2 * .pi
                let r = 70 + Double(lap) * 0.3 + 1.5 * jitter()
                xy += [150 + 1.6 * r * cos(a) + jitter(), 100 + r * sin(a) + jitter()]
            }
        }
        let counts = [Int32(xy.count / 2)]
        let widths = [9.0, 5.0], colors = [1, 1, 1, 0.9, 0.85, 0.2, 0.3, 1]
        var inked = 0
        for clip in [(0, 0, 300, 200), (3, 5, 297, 199), (37, 21, 151, 64), (140, 90, 300, 200)] {
            let drawn = [1, 2].map { level -> [UInt8] in
                let pixels = Buffer(width: 300, height: 200, bytesPerPixel: 4, value: 0)
                let done = pixels.with {
                    Kernels.strokeRound($0, clip: clip, xy: xy, counts: counts, widths: widths, colors: colors, level: level)
                }
                #expect(done)
                return pixels.bytes
            }
            #expect(drawn[0] == drawn[1], "clip \(clip)")
            inked += stride(from: 3, to: drawn[1].count, by: 4).filter { drawn[1][$0] != 0 }.count
        }
        // The line drawn: about its length times the casing's width in each clip.
        #expect(inked > 10_000)
        // A row's passes skip the stretches no segment reached (between the loop's two sides): the
        // whole width at once gives the bytes of the same lines stroked in narrow columns side by side.
        for level in [1, 2] {
            let whole = Buffer(width: 300, height: 200, bytesPerPixel: 4, value: 0)
            let columns = Buffer(width: 300, height: 200, bytesPerPixel: 4, value: 0)
            _ = whole.with {
                Kernels.strokeRound($0, clip: (0, 0, 300, 200), xy: xy, counts: counts, widths: widths, colors: colors, level: level)
            }
            for (x0, x1) in zip([0, 7, 40, 41, 97, 160, 229], [7, 40, 41, 97, 160, 229, 300]) {
                _ = columns.with {
                    Kernels.strokeRound($0, clip: (x0, 0, x1, 200), xy: xy, counts: counts, widths: widths, colors: colors,
                                        level: level)
                }
            }
            #expect(whole.bytes == columns.bytes, "level \(level)")
        }
    }
}
