import Foundation
import RasterKernels

/// `--turned`: the turned plane kernel alone (`Kernels.resampleTurned`, what a turned frame of a
/// 4:2:0 output is composited with): 1080p frames' three planes painted from 256-pixel tiles of
/// seeded noise (planar tiles' border of 2 luma pixels, 1 chroma), each frame's tiles mostly new to
/// the caches, at several turns and scales, by each kernel this CPU has (0 plain C, 1 AVX2 gathers, 2 AVX-512 permutes), on one thread. Prints
/// CPU nanoseconds per sample painted (the best of `runs` rounds of `frames` frames) and whether
/// every kernel painted the same bytes as plain C.
func turnedKernelPhase(runs: Int) throws {
    let width = 1920, height = 1080, tileSize = 256, border = 2, frames = 8
    var state: UInt64 = 59
    func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    // 256 tiles' planes (Y, U, V: 26 MB), shared out over the level: each frame of a round is
    // centred 2,000 level pixels on from the one before, so its tiles mostly come from memory, not
    // the caches, as a ride's new tiles do.
    let sizes = [tileSize + 2 * border, (tileSize + 2 * border) / 2, (tileSize + 2 * border) / 2]
    let tiles: [[UnsafeMutablePointer<UInt8>]] = (0..<256).map { _ in
        sizes.map { s in
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: s * s)
            for i in 0..<(s * s) { p[i] = UInt8(truncatingIfNeeded: next()) }
            return p
        }
    }
    defer { for t in tiles { for p in t { p.deallocate() } } }
    let planes = [(width, height), (width / 2, height / 2), (width / 2, height / 2)]
    let frame = planes.map { UnsafeMutablePointer<UInt8>.allocate(capacity: $0.0 * $0.1) }
    defer { for p in frame { p.deallocate() } }
    let levels = Array(0...Kernels.planeLevel)
    func threadSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
    print("maptrip-bench --turned: the turned plane kernel, 1080p frames' Y, U and V (tiles mostly new to the caches) from \(tileSize)-pixel tiles, "
          + "CPU ns per sample (best of \(runs) rounds of \(frames) frames); kernels "
          + levels.map { ["plain C", "AVX2 gathers", "AVX-512 permutes"][$0] }.joined(separator: ", "))
    func right(_ s: String) -> String { String(repeating: " ", count: max(0, 8 - s.count)) + s }
    print("turn  scale   " + levels.map { right(["C", "AVX2", "AVX-512"][$0]) }.joined()
          + (levels.count > 2 ? "  AVX-512/AVX2" : "") + "  same bytes")
    var sums = [Double](repeating: 0, count: levels.count)
    for (turn, scale) in [(3.0, 1.0), (20, 1.0), (45, 1.0), (70, 1.0), (90, 1.0), (135, 1.0), (45, 1.41), (160, 0.71)] {
        // Frame pixels per level pixel `scale`, turned `turn` degrees about the frame's centre, which
        // shows level point (40000.3, 30000.7).
        let r = turn * .pi / 180, s = scale
        let a = s * cos(r), b = -s * sin(r), c = s * sin(r), d = s * cos(r)
        let det = a * d - b * c
        let ia = d / det, ib = -b / det, id = -c / det, ie = a / det
        let t = Double(tileSize)
        func paint(_ level: Int, frame f: Int = 0) -> Bool {
            let (uc, vc) = (40_000.3 + Double(f) * 2_000, 30_000.7 + Double(f) * 1_000)
            let ox = Double(width) / 2 - (a * uc + b * vc), oy = Double(height) / 2 - (c * uc + d * vc)
            let luma = [ia, ib, -(ia * ox + ib * oy), id, ie, -(id * ox + ie * oy)]
            // The tiles whose squares meet the frame's bounding box in level pixels.
            let corners = [(0.0, 0.0), (Double(width), 0.0), (0.0, Double(height)), (Double(width), Double(height))]
                .map { (luma[0] * $0.0 + luma[1] * $0.1 + luma[2], luma[3] * $0.0 + luma[4] * $0.1 + luma[5]) }
            let columns = Int((corners.map(\.0).min()! / t).rounded(.down))...Int((corners.map(\.0).max()! / t).rounded(.down))
            let rows = Int((corners.map(\.1).min()! / t).rounded(.down))...Int((corners.map(\.1).max()! / t).rounded(.down))
            for plane in 0..<3 {
                let h = plane == 0 ? 1.0 : 2.0, (pw, ph) = planes[plane], size = sizes[plane]
                let inverse = plane == 0 ? luma : Kernels.halved(luma)
                let target = PixelPlane(data: frame[plane], stride: pw, width: pw, height: ph)
                for column in columns {
                    for row in rows {
                        let tile = PixelPlane(data: tiles[(column * 7 + row * 13) & 255][plane], stride: size, width: size, height: size)
                        let u0 = Double(column) * t, v0 = Double(row) * t
                        guard Kernels.resampleTurned(tile, bytesPerPixel: 1, border: border / Int(h), into: target, firstRow: 0,
                                                     rows: 0..<ph, inverse: inverse, u0: u0 / h, v0: v0 / h,
                                                     u1: (u0 + t) / h, v1: (v0 + t) / h, level: level) else { return false }
                    }
                }
            }
            return true
        }
        var best = [Double](repeating: .infinity, count: levels.count)
        var pictures: [[[UInt8]]] = []
        for level in levels {
            guard paint(level) else { throw Failure(description: "--turned: the kernel refused a tile") }
            pictures.append(zip(frame, planes).map { Array(UnsafeBufferPointer(start: $0, count: $1.0 * $1.1)) })
        }
        for _ in 0..<runs {
            for level in levels {
                let start = threadSeconds()
                for f in 0..<frames { _ = paint(level, frame: f + 1) }
                best[level] = min(best[level], threadSeconds() - start)
            }
        }
        let samples = Double(frames * width * height * 3 / 2)
        let ns = best.map { $0 / samples * 1e9 }
        for (i, v) in ns.enumerated() { sums[i] += v }
        print(String(format: "%4.0f  %5.2f   ", turn, scale) + ns.map { String(format: "%8.3f", $0) }.joined()
              + (levels.count > 2 ? String(format: "  %13.2f", ns[2] / ns[1]) : "")
              + "  " + (pictures.allSatisfy { $0 == pictures[0] } ? "yes" : "NO"))
    }
    print("mean          " + sums.map { String(format: "%8.3f", $0 / 8) }.joined()
          + (levels.count > 2 ? String(format: "  %13.2f", sums[2] / sums[1]) : ""))
}
