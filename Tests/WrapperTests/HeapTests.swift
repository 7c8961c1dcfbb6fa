import Foundation
import Testing
import FFmpeg
import Heap
import TestBasics

/// x264 reads some memory it allocated before writing it (see `Heap.fillNewBlocks`): the same pictures
/// must encode to the same bytes whatever the process's heap held before.
@Suite("Heap: encodes that do not depend on what the heap held")
struct HeapTests {
    /// Fills and frees blocks of the sizes x264 allocates at this size (its pictures with their
    /// lookahead planes in one block of some 600 kB, its arrays), each byte `dirt`: what malloc hands
    /// out next. A 16 MB block freed first raises glibc's mmap threshold as a render's frames do, so
    /// the blocks come from the heap rather than as fresh zeroed pages.
    static func dirtyTheHeap(with dirt: UInt8) {
        free(malloc(16 << 20))
        var blocks: [UnsafeMutableRawPointer] = []
        for size in stride(from: 64, to: 1_500_000, by: 9_973) {
            guard let p = malloc(size) else { continue }
            memset(p, Int32(dirt), size)
            blocks.append(p)
        }
        blocks.forEach { free($0) }
    }

    /// 48 frames of a seeded texture zoomed into at 320x192 (x264's veryfast, CRF 20, one
    /// thread, B-frames and its macroblock tree on: the batch's defaults), encoded to bytes.
    static func encode(after dirt: UInt8, in dir: URL) throws -> Data {
        dirtyTheHeap(with: dirt)
        let path = dir.appendingPathComponent("dirt-\(dirt).mp4").path
        var settings = VideoEncoderSettings(width: 320, height: 192, fps: 24)
        settings.preset = "veryfast"
        settings.crf = 20
        settings.threads = 1
        let writer = try VideoWriter(path: path, settings: settings)
        let frame = try Frame(width: 320, height: 192, pixelFormat: .yuv420p)
        var random = SplitMix64(seed: 59)
        let texture = (0..<(640 * 384)).map { _ in UInt8.random(in: 16...235, using: &random) }
        for n in 0..<48 {
            try frame.makeWritable()
            for plane in 0..<3 {
                let (w, h) = plane == 0 ? (320, 192) : (160, 96)
                let data = frame.data(plane: plane)!, stride = frame.linesize(plane: plane)
                for y in 0..<h {
                    for x in 0..<w {
                        // Zooming in on the texture about its centre, as a flight does.
                        let zoom = 1 - 0.012 * Double(n)
                        let sx = 320 + Int((Double(x - w / 2) * zoom).rounded()) * (plane == 0 ? 1 : 2)
                        let sy = 192 + Int((Double(y - h / 2) * zoom).rounded()) * (plane == 0 ? 1 : 2)
                        let t = texture[sy * 640 + sx]
                        data[y * stride + x] = plane == 0 ? t : 128 + t / 32
                    }
                }
            }
            try writer.send(frame: frame, pts: Int64(n))
        }
        try writer.finish()
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test(.enabled(if: Heap.isGlibcMalloc, "a sanitizer's allocator has no M_PERTURB"))
    func theSamePicturesEncodeToTheSameBytesWhateverTheHeapHeld() throws {
        #expect(Heap.fillNewBlocks())
        let dir = try TemporaryFolder.make("heap-tests")
        defer { try? FileManager.default.removeItem(at: dir) }
        let dirts: [UInt8] = [0x00, 0xff, 0x37]
        let files = try dirts.map { try Self.encode(after: $0, in: dir) }
        #expect(files[0].count > 1000)
        // Compared as a Bool: a failed comparison of two Data would be diffed byte by byte, for minutes.
        for (i, file) in files.enumerated().dropFirst() {
            let same = file == files[0]
            #expect(same, "after a heap of byte \(dirts[i]): \(file.count) bytes, against \(files[0].count)")
        }
    }
}
