import Foundation
import Testing
import FFmpeg
import YUV
import TestBasics

/// Synthetic BGRA pictures: a pure red square moving over a pure blue background.
fileprivate struct MovingSquare {
    let width: Int
    let height: Int
    let side = 160
    var stride: Int { width * 4 }

    /// Top-left corner of the square in frame n.
    func origin(_ n: Int) -> (x: Int, y: Int) { (100 + 8 * n, 200 + 4 * n) }

    func pixels(_ n: Int) -> [UInt8] { TestMedia.square(width: width, height: height, origin: origin(n), side: side) }
}

private func temporaryDirectory() throws -> URL { try TemporaryFolder.make("ffmpeg-tests") }

/// Converts a BGRA buffer into a yuv420p frame with libyuv (after makeWritable).
private func fill(_ frame: Frame, bgra: [UInt8], stride: Int) throws {
    try frame.makeWritable()
    try bgra.withUnsafeBufferPointer { src in
        try YUV.argbToI420(src: src.baseAddress!, srcStride: stride,
                           y: frame.data(plane: 0)!, yStride: frame.linesize(plane: 0),
                           u: frame.data(plane: 1)!, uStride: frame.linesize(plane: 1),
                           v: frame.data(plane: 2)!, vStride: frame.linesize(plane: 2),
                           width: frame.width, height: frame.height)
    }
}

private func close(_ a: UInt8, _ b: UInt8, _ tolerance: Int) -> Bool { abs(Int(a) - Int(b)) <= tolerance }

/// Largest per-sample difference and how many samples differ.
private func difference(_ a: BGRAImage, _ b: BGRAImage) -> (max: Int, count: Int) {
    var maxDiff = 0, count = 0
    for i in 0..<min(a.pixels.count, b.pixels.count) {
        let d = abs(Int(a.pixels[i]) - Int(b.pixels[i]))
        if d > 0 { count += 1; maxDiff = max(maxDiff, d) }
    }
    return (maxDiff, count)
}

@Suite("FFmpeg: VideoWriter + VideoReader")
struct FFmpegVideoTests {
    static let frameCount = 45

    /// Encodes `frameCount` moving-square frames at 1280x720@30, then 10 repeats of the last frame object.
    fileprivate static func writeSample(to path: String) throws -> (sent: Int, source: MovingSquare) {
        let square = MovingSquare(width: 1280, height: 720)
        let writer = try VideoWriter(path: path, settings: VideoEncoderSettings(width: 1280, height: 720, fps: 30))
        let frame = try Frame(width: 1280, height: 720, pixelFormat: .yuv420p)
        var pts: Int64 = 0
        for n in 0..<frameCount - 10 {
            try fill(frame, bgra: square.pixels(n), stride: square.stride)
            try writer.send(frame: frame, pts: pts)
            pts += 1
        }
        for _ in 0..<10 {  // still stretch: same Frame, same pixels, new pts
            try writer.send(frame: frame, pts: pts)
            pts += 1
        }
        try writer.finish()
        #expect(writer.framesSent == frameCount)
        #expect(writer.packetsWritten == frameCount)
        return (writer.framesSent, square)
    }

    @Test func encodesH264HighThatReadsBack() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("sample.mp4").path
        _ = try Self.writeSample(to: path)

        let reader = try VideoReader(path: path)
        let info = reader.info
        #expect(info.codecName == "h264")
        #expect(info.profileName == "High")
        #expect(info.width == 1280 && info.height == 720)
        #expect(info.pixelFormatName == "yuv420p")
        #expect(info.frameRate == Rational(30, 1))
        #expect(info.frameCount == Self.frameCount)
        let expected = Double(Self.frameCount) / 30
        #expect(abs((info.duration ?? 0) - expected) <= 1.0 / 30 + 1e-9, "duration \(String(describing: info.duration))")
        #expect(abs((info.containerDuration ?? 0) - expected) <= 1.0 / 30 + 1e-9)
        #expect(info.colorTags == .bt601Limited, "\(info.colorTags)")
        #expect(info.colorTags.spaceName == "smpte170m")
        #expect(info.colorTags.rangeName == "tv")
        #expect(info.colorTags.primariesName == "bt709")
        #expect(info.colorTags.transferName == "bt709")
        #expect(try reader.countFrames() == Self.frameCount)
    }

    @Test func decodedPixelsMatchTheSourceAndRepeatsAreIdentical() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("pixels.mp4").path
        let (_, square) = try Self.writeSample(to: path)

        let reader = try VideoReader(path: path)
        var images: [BGRAImage] = []
        while let image = try reader.nextImage() { images.append(image) }
        #expect(images.count == Self.frameCount)

        for n in [0, 17, Self.frameCount - 11] {
            let image = images[n]
            #expect(image.width == 1280 && image.height == 720 && image.stride == 1280 * 4)
            let (ox, oy) = square.origin(n)
            let inside = image.pixel(x: ox + square.side / 2, y: oy + square.side / 2)
            #expect(close(inside.r, 255, 12) && close(inside.g, 0, 12) && close(inside.b, 0, 12) && inside.a == 255,
                    "frame \(n) square centre \(inside)")
            let outside = image.pixel(x: 1100, y: 80)
            #expect(close(outside.r, 0, 12) && close(outside.g, 0, 12) && close(outside.b, 255, 12),
                    "frame \(n) background \(outside)")
        }
        // The still stretch (same Frame object re-sent) decodes to the picture it repeats: H.264 is lossy,
        // so the encoder may refine edge pixels by a level or three (well under 0.1% of samples), nothing more.
        let last = images[Self.frameCount - 11]
        for image in images[(Self.frameCount - 10)...] {
            let (maxDiff, differing) = difference(image, last)
            #expect(maxDiff <= 4 && differing <= image.pixels.count / 1000, "repeat differs by up to \(maxDiff) in \(differing) samples")
        }
    }

    @Test func faststartPutsMoovBeforeMdat() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("faststart.mp4").path
        let writer = try VideoWriter(path: path, settings: VideoEncoderSettings(width: 320, height: 240, fps: 25))
        let frame = try Frame(width: 320, height: 240, pixelFormat: .yuv420p)
        let gray = [UInt8](repeating: 128, count: 320 * 4 * 240)
        try fill(frame, bgra: gray, stride: 320 * 4)
        for n in 0..<5 { try writer.send(frame: frame, pts: Int64(n)) }
        try writer.finish()
        try writer.finish()  // again: nothing happens

        let boxes = TestMedia.topLevelBoxes(try Data(contentsOf: URL(fileURLWithPath: path)))
        let moov = try #require(boxes.firstIndex(of: "moov"))
        let mdat = try #require(boxes.firstIndex(of: "mdat"))
        #expect(boxes.first == "ftyp")
        #expect(moov < mdat, "\(boxes)")
        #expect(writer.streamTimeBase != writer.timeBase)  // the MP4 muxer chose its own time base
        #expect(try VideoReader(path: path).countFrames() == 5)
    }

    @Test func badInputsThrowUsefulErrors() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("x.mp4").path

        var settings = VideoEncoderSettings(width: 320, height: 240, fps: 30)
        settings.codecName = "no-such-codec"
        let badCodec = #expect(throws: FFmpegError.self) { try VideoWriter(path: path, settings: settings) }
        #expect(badCodec?.code == FFmpegError.encoderNotFound)
        #expect(badCodec?.description.contains("no-such-codec") == true, "\(String(describing: badCodec))")

        let badFormat = #expect(throws: FFmpegError.self) {
            try VideoWriter(path: path, format: "no-such-format",
                            settings: VideoEncoderSettings(width: 320, height: 240, fps: 30))
        }
        #expect(badFormat?.description.contains("no-such-format") == true, "\(String(describing: badFormat))")

        let missingDirectory = dir.appendingPathComponent("missing/x.mp4").path
        let noDir = #expect(throws: FFmpegError.self) {
            try VideoWriter(path: missingDirectory, settings: VideoEncoderSettings(width: 320, height: 240, fps: 30))
        }
        #expect(noDir?.description == "avio_open \(missingDirectory): No such file or directory",
                "\(String(describing: noDir))")

        var typo = VideoEncoderSettings(width: 320, height: 240, fps: 30)
        typo.options = ["nosuchoption": "1"]
        let unused = #expect(throws: FFmpegError.self) { try Encoder(video: typo) }
        #expect(unused?.description.contains("nosuchoption=1") == true, "\(String(describing: unused))")

        var badPreset = VideoEncoderSettings(width: 320, height: 240, fps: 30)
        badPreset.preset = "warp-speed"
        let preset = #expect(throws: FFmpegError.self) { try Encoder(video: badPreset) }
        #expect(preset?.operation.hasPrefix("avcodec_open2 libx264") == true, "\(String(describing: preset))")

        #expect(throws: FFmpegError.self) { try Encoder(video: VideoEncoderSettings(width: 0, height: 240, fps: 30)) }
        #expect(throws: FFmpegError.self) { try Encoder(video: VideoEncoderSettings(width: 320, height: 240, fps: 0)) }

        // A frame of the wrong size or format is refused, not read out of bounds.
        let writer = try VideoWriter(path: path, settings: VideoEncoderSettings(width: 320, height: 240, fps: 30))
        let small = try Frame(width: 160, height: 120, pixelFormat: .yuv420p)
        #expect(throws: FFmpegError.self) { try writer.send(frame: small, pts: 0) }
        let bgra = try Frame(width: 320, height: 240, pixelFormat: .bgra)
        #expect(throws: FFmpegError.self) { try writer.send(frame: bgra, pts: 0) }
        let good = try Frame(width: 320, height: 240, pixelFormat: .yuv420p)
        try writer.send(frame: good, pts: 3)
        #expect(throws: FFmpegError.self) { try writer.send(frame: good, pts: 3) }  // pts must increase
        try writer.finish()
        #expect(throws: FFmpegError.self) { try writer.send(frame: good, pts: 4) }

        #expect(throws: FFmpegError.self) { try VideoReader(path: dir.appendingPathComponent("none.mp4").path) }
        let garbage = dir.appendingPathComponent("garbage.mp4")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: garbage)
        #expect(throws: FFmpegError.self) { _ = try VideoReader(path: garbage.path).countFrames() }
    }
}

@Suite("FFmpeg: Frame")
struct FFmpegFrameTests {
    @Test func allocatesPlanes() throws {
        let frame = try Frame(width: 641, height: 361, pixelFormat: .yuv420p)
        #expect(frame.width == 641 && frame.height == 361 && frame.pixelFormat == .yuv420p)
        #expect(frame.linesize(plane: 0) >= 641 && frame.linesize(plane: 1) >= 321 && frame.linesize(plane: 2) >= 321)
        #expect(frame.data(plane: 0) != nil && frame.data(plane: 2) != nil && frame.data(plane: 3) == nil)
        #expect(frame.data(plane: 99) == nil && frame.linesize(plane: -1) == 0)
        #expect(frame.isWritable)
        #expect(frame.pts == nil)
        frame.pts = 42
        #expect(frame.pts == 42)
        #expect(throws: FFmpegError.self) { try Frame(width: -1, height: 10, pixelFormat: .yuv420p) }
        #expect(throws: FFmpegError.self) { try Frame(width: 10, height: 10, pixelFormat: .unknown) }
        #expect(PixelFormat(name: "yuv420p") == .yuv420p && PixelFormat.bgra.name == "bgra")
        #expect(PixelFormat(name: "nonsense") == nil)
    }

    @Test func makeWritableDetachesSharedBuffers() throws {
        let frame = try Frame(width: 64, height: 64, pixelFormat: .gray)
        frame.data(plane: 0)!.update(repeating: 10, count: frame.linesize(plane: 0) * 64)
        let held = try frame.makeReference()  // what an encoder holding the frame looks like
        #expect(!frame.isWritable)
        try frame.makeWritable()
        #expect(frame.isWritable)
        #expect(frame.data(plane: 0) != held.data(plane: 0))
        #expect(frame.data(plane: 0)![5] == 10)  // the picture was copied
        frame.data(plane: 0)!.update(repeating: 200, count: frame.linesize(plane: 0) * 64)
        #expect(held.data(plane: 0)![5] == 10)  // the holder still sees the old picture
    }

    @Test func errorsCarryCodeMessageAndOperation() {
        let error = FFmpegError(code: FFmpegError.invalidArgument, operation: "avcodec_open2 libx264")
        #expect(error.message == "Invalid argument")
        #expect(error.description == "avcodec_open2 libx264: Invalid argument")
        #expect(FFmpegError.string(for: FFmpegError.eof) == "End of file")
        #expect(throws: FFmpegError.self) { try FFmpegError.check(-22, "x") }
        #expect((try? FFmpegError.check(3, "x")) == 3)
    }
}

@Suite("FFmpeg: ImageDecoder")
struct FFmpegImageDecoderTests {
    // 16x16, left half red, right half blue (ffmpeg -q:v 2, yuvj420p).
    static let jpeg = "/9j/4AAQSkZJRgABAgAAAQABAAD//gAQTGF2YzU5LjM3LjEwMAD/2wBDAAgEBAQEBAUFBQUFBQYGBgYGBgYGBgYGBgYHBwcICAgHBwcGBgcHCAgICAkJCQgICAgJCQoKCgwMCwsODg4RERT/xABOAAEAAAAAAAAAAAAAAAAAAAAGAQEAAAAAAAAAAAAAAAAAAAAGEAEAAAAAAAAAAAAAAAAAAAAAEQADAQEAAAAAAAAAAAAAAAAACEbEhf/AABEIABAAEAMBIgACEQADEQD/2gAMAwEAAhEDEQA/ABYgXiBUstXx941YaZ6uI//Z"
    // 16x16 lossless WebP (argb): left half red at alpha 127, right half opaque blue.
    static let webpLossless = "UklGRiYAAABXRUJQVlA4TBoAAAAvD8ADEA8Q87//B/wPB2LBZP7S3RlE9D9yAQ=="
    // 16x16 lossy WebP (yuv420p): left half red, right half blue.
    static let webpLossy = "UklGRkQAAABXRUJQVlA4IDgAAAAwAgCdASoQABAAAMASJaACdLoB+AH4gARoAAD+/TnP/97M//93m/10S8z/60c//rRlcH9aOb+gAA=="
    // 4x4 RGBA PNG from the ffmpeg CLI: green at alpha 63.
    static let png = "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAYAAACp8Z5+AAAACXBIWXMAAAABAAAAAQBPJcTWAAAAEUlEQVR4nGNg+M9gj4JJFwAApjIT4TEEQRAAAAAASUVORK5CYII="

    // 4x4 8-bit grayscale PNG, level 0x40 (full range: must decode to 64, not be stretched as video range).
    static let grayPNG = "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAAAAACMmsGiAAAACXBIWXMAAAABAAAAAQBPJcTWAAAADklEQVR4nGNwAAIGVAIAKBQEAWYuTM4AAAAASUVORK5CYII="

    static func bytes(_ base64: String) -> Data { Data(base64Encoded: base64)! }

    @Test func detectsFormatsByMagic() {
        #expect(ImageDecoder.format(of: Self.bytes(Self.jpeg)) == .jpeg)
        #expect(ImageDecoder.format(of: Self.bytes(Self.png)) == .png)
        #expect(ImageDecoder.format(of: Self.bytes(Self.webpLossy)) == .webp)
        #expect(ImageDecoder.format(of: Data("<html>".utf8)) == nil)
        #expect(ImageDecoder.format(of: Data()) == nil)
    }

    @Test func decodesPNGWithAlphaFromTheEncoder() throws {
        var source = BGRAImage(width: 7, height: 5)
        for y in 0..<5 {
            for x in 0..<7 {
                source.setPixel(x: x, y: y, b: UInt8(x * 30), g: UInt8(y * 50), r: 200, a: UInt8(255 - x * 20 - y))
            }
        }
        source.setPixel(x: 0, y: 0, b: 1, g: 2, r: 3, a: 0)
        let png = try ImageEncoder.png(source)
        #expect(ImageDecoder.format(of: png) == .png)
        let decoded = try ImageDecoder.decode(png)
        #expect(decoded == source)  // lossless, alpha kept straight
    }

    @Test func decodesEmbeddedPNG() throws {
        let image = try ImageDecoder.decode(Self.bytes(Self.png))
        #expect(image.width == 4 && image.height == 4 && image.stride == 16 && image.pixels.count == 64)
        let p = image.pixel(x: 3, y: 3)
        #expect(p.b == 0 && p.g == 255 && p.r == 0 && p.a == 63)
        let gray = try ImageDecoder.decode(Self.bytes(Self.grayPNG)).pixel(x: 2, y: 1)
        #expect(gray.b == 64 && gray.g == 64 && gray.r == 64 && gray.a == 255, "\(gray)")
    }

    @Test func decodesJPEG() throws {
        let image = try ImageDecoder.decode(Self.bytes(Self.jpeg))
        #expect(image.width == 16 && image.height == 16)
        let left = image.pixel(x: 2, y: 8), right = image.pixel(x: 13, y: 8)
        #expect(close(left.r, 255, 8) && close(left.g, 0, 8) && close(left.b, 0, 8) && left.a == 255, "\(left)")
        #expect(close(right.r, 0, 8) && close(right.g, 0, 8) && close(right.b, 255, 8) && right.a == 255, "\(right)")
    }

    @Test func decodesWebP() throws {
        let lossless = try ImageDecoder.decode(Self.bytes(Self.webpLossless))
        #expect(lossless.width == 16 && lossless.height == 16)
        let l = lossless.pixel(x: 2, y: 8), r = lossless.pixel(x: 13, y: 8)
        #expect(l.b == 0 && l.g == 0 && l.r == 255 && l.a == 127, "\(l)")
        #expect(r.b == 255 && r.g == 0 && r.r == 0 && r.a == 255, "\(r)")

        let lossy = try ImageDecoder.decode(Self.bytes(Self.webpLossy))
        let a = lossy.pixel(x: 2, y: 8), b = lossy.pixel(x: 13, y: 8)
        #expect(close(a.r, 255, 10) && close(a.g, 0, 10) && close(a.b, 0, 10) && a.a == 255, "\(a)")
        #expect(close(b.r, 0, 10) && close(b.g, 0, 10) && close(b.b, 255, 10) && b.a == 255, "\(b)")
    }

    @Test func premultipliesForCairo() throws {
        var image = try ImageDecoder.decode(Self.bytes(Self.webpLossless))
        image.premultiplyAlpha()
        let l = image.pixel(x: 2, y: 8)
        #expect(l.r == 127 && l.a == 127 && l.g == 0 && l.b == 0)
        #expect(image.pixel(x: 13, y: 8).b == 255)
    }

    @Test func rejectsGarbageAndTruncatedData() throws {
        let garbage = #expect(throws: FFmpegError.self) { try ImageDecoder.decode(Data("<html>404</html>".utf8)) }
        #expect(garbage?.code == FFmpegError.invalidData)
        #expect(garbage?.message.contains("not a PNG, JPEG or WebP") == true)
        #expect(throws: FFmpegError.self) { try ImageDecoder.decode(Data()) }

        // Right magic, broken body: an error, not a crash.
        for sample in [Self.png, Self.jpeg, Self.webpLossy, Self.webpLossless] {
            let data = Self.bytes(sample)
            #expect(throws: FFmpegError.self) { try ImageDecoder.decode(data.prefix(16)) }
        }
        // Larger than the caller allows (a decompression bomb from a tile server): refused.
        let big = try ImageEncoder.png(BGRAImage(width: 100, height: 50))
        #expect(try ImageDecoder.decode(big).width == 100)
        let tooBig = #expect(throws: FFmpegError.self) { try ImageDecoder.decode(big, maxPixels: 4999) }
        #expect(tooBig != nil, "\(String(describing: tooBig))")

        var png = [UInt8](Self.bytes(Self.png))
        for i in 40..<png.count { png[i] = 0xA5 }
        #expect(throws: FFmpegError.self) { try ImageDecoder.decode(Data(png)) }
    }
}

@Suite("YUV")
struct YUVTests {
    /// Converts a solid colour and returns the (Y, U, V) of the centre sample.
    static func convert(b: UInt8, g: UInt8, r: UInt8, width: Int = 6, height: Int = 4) throws -> (UInt8, UInt8, UInt8) {
        let src = [UInt8]((0..<width * height).flatMap { _ in [b, g, r, 255] })
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        var y = [UInt8](repeating: 0, count: width * height)
        var u = [UInt8](repeating: 0, count: cw * ch)
        var v = [UInt8](repeating: 0, count: cw * ch)
        try src.withUnsafeBufferPointer { s in
            try YUV.argbToI420(src: s.baseAddress!, srcStride: width * 4, y: &y, yStride: width,
                               u: &u, uStride: cw, v: &v, vStride: cw, width: width, height: height)
        }
        #expect(Set(y).count == 1 && Set(u).count == 1 && Set(v).count == 1)
        return (y[0], u[0], v[0])
    }

    @Test func bt601LimitedRange() throws {
        let white = try Self.convert(b: 255, g: 255, r: 255)
        #expect(white.0 == 235 && close(white.1, 128, 1) && close(white.2, 128, 1))
        let black = try Self.convert(b: 0, g: 0, r: 0)
        #expect(black.0 == 16 && black.1 == 128 && black.2 == 128)
        // BT.601: red -> Y 81, Cb 90, Cr 240; blue -> Y 41, Cb 240, Cr 110.
        let red = try Self.convert(b: 0, g: 0, r: 255, width: 5, height: 3)
        #expect(close(red.0, 82, 1) && close(red.1, 90, 1) && close(red.2, 240, 1), "\(red)")
        let blue = try Self.convert(b: 255, g: 0, r: 0)
        #expect(close(blue.0, 41, 1) && close(blue.1, 240, 1) && close(blue.2, 110, 1), "\(blue)")
    }

    @Test func refusesBadArguments() {
        var buffer = [UInt8](repeating: 0, count: 64)
        buffer.withUnsafeMutableBufferPointer { b in
            let p = b.baseAddress!
            #expect(throws: YUVError.self) {
                try YUV.argbToI420(src: p, srcStride: 4, y: p, yStride: 2, u: p, uStride: 1, v: p, vStride: 1,
                                   width: 2, height: 2)  // src stride < width * 4
            }
            #expect(throws: YUVError.self) {
                try YUV.argbToI420(src: p, srcStride: 8, y: p, yStride: 2, u: p, uStride: 1, v: p, vStride: 1,
                                   width: 0, height: 2)
            }
        }
    }
}
