import FFmpeg
import Foundation

/// Videos for the clip and presenter tests, written with the project's own encoder: frame k is a flat
/// colour of its own (hues a golden angle apart, so neighbours differ strongly) with a white square
/// in its top-left corner (which shows how the picture is turned).
enum TestClips {
    /// The colour of frame k (R, G, B).
    static func color(_ k: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let h = (Double(k) * 0.618_033_988_75).truncatingRemainder(dividingBy: 1) * 6
        let x = 1 - abs(h.truncatingRemainder(dividingBy: 2) - 1)
        let (r, g, b): (Double, Double, Double)
        switch Int(h) {
        case 0: (r, g, b) = (1, x, 0)
        case 1: (r, g, b) = (x, 1, 0)
        case 2: (r, g, b) = (0, 1, x)
        case 3: (r, g, b) = (0, x, 1)
        case 4: (r, g, b) = (x, 0, 1)
        default: (r, g, b) = (1, 0, x)
        }
        func c(_ v: Double) -> UInt8 { UInt8((30 + 200 * v).rounded()) }
        return (c(r), c(g), c(b))
    }

    /// Writes `frames` frames at `fps`, frame k at pts k * `ptsStep` (in frames), keyframes every
    /// `gopSeconds`; `rotation`: a display matrix turning it clockwise.
    static func write(_ url: URL, width: Int, height: Int, fps: Int, frames: Int, ptsStep: Int64 = 1,
                      gopSeconds: Double = 1, rotation: Double? = nil) throws {
        var settings = VideoEncoderSettings(width: width, height: height, frameRate: Rational(Int32(fps), 1),
                                            preset: "ultrafast", crf: 12, profile: nil, gopSeconds: gopSeconds, threads: 1)
        settings.options = ["bf": "0"]
        let writer = try VideoWriter(path: url.path, settings: settings, rotation: rotation)
        let scaler = Scaler()
        let side = max(2, min(width, height) / 4)
        for k in 0..<frames {
            var image = BGRAImage(width: width, height: height)
            let (r, g, b) = color(k)
            for y in 0..<height {
                for x in 0..<width {
                    let white = x < side && y < side
                    image.setPixel(x: x, y: y, b: white ? 255 : b, g: white ? 255 : g, r: white ? 255 : r, a: 255)
                }
            }
            let yuv = try Frame(width: width, height: height, pixelFormat: .yuv420p)
            yuv.colorTags = settings.colorTags
            try scaler.scale(try image.makeFrame(), into: yuv)
            try writer.send(frame: yuv, pts: Int64(k) * ptsStep)
        }
        try writer.finish()
    }

    /// Every frame of a video as ffmpeg's own command decodes it (no maptrip code), scaled to
    /// `width` x `height` (bilinear), in BGRA: the reference the tests compare renders with. The
    /// test command installs ffmpeg (.ci/test); without it the proofs fail rather than pass unseen.
    static func ffmpegFrames(_ url: URL, width: Int, height: Int, filter: String? = nil) throws -> [BGRAImage]? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey:
                "/usr/bin/ffmpeg is missing: the clips' proofs compare with its decoding (bash .ci/test installs it)"])
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        let scale = "scale=\(width):\(height):flags=bilinear"
        p.arguments = ["-v", "error", "-i", url.path, "-vsync", "passthrough", "-vf", (filter.map { $0 + "," } ?? "") + scale,
                       "-f", "rawvideo", "-pix_fmt", "bgra", "-"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let size = width * height * 4
        guard p.terminationStatus == 0, size > 0 else { return nil }
        return stride(from: 0, to: data.count - size + 1, by: size).map { offset in
            BGRAImage(width: width, height: height, stride: width * 4, pixels: [UInt8](data[offset..<offset + size]))
        }
    }

    /// The part of `image` inside [x0, x1) x [y0, y1).
    static func crop(_ image: BGRAImage, _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) -> BGRAImage {
        var out = BGRAImage(width: x1 - x0, height: y1 - y0)
        for y in y0..<y1 {
            let from = y * image.stride + x0 * 4
            out.pixels.replaceSubrange((y - y0) * out.stride..<(y - y0) * out.stride + out.width * 4,
                                       with: image.pixels[from..<from + out.width * 4])
        }
        return out
    }

    /// PSNR over R, G and B (infinity when identical).
    static func psnr(_ a: BGRAImage, _ b: BGRAImage) -> Double { ConcatTests.psnr(a, b) }
}
