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
}
