import FFmpeg
import Foundation
import Testing
import TestSupport
@testable import MapTripOutput
import MapTripSupport

/// Every format written through MediaOutput and decoded back with libavformat: codec, profile, pixel
/// format, size, frame count, duration, pixels (and alpha where promised).
@Suite("Output formats")
struct FormatTests {
    static let width = 320
    static let height = 240
    static let fps = 30

    /// A picture: a red 64x64 square at (20 + 4n, 40 + 2n) over blue, or over full transparency.
    /// Premultiplied BGRA, as Cairo draws.
    static func picture(_ n: Int, transparent: Bool = false) -> [UInt8] {
        let stride = width * 4
        var p = [UInt8](repeating: 0, count: stride * height)
        let ox = 20 + 4 * n, oy = 40 + 2 * n
        for y in 0..<height {
            for x in 0..<width {
                let i = y * stride + x * 4
                if x >= ox && x < ox + 64 && y >= oy && y < oy + 64 {
                    (p[i], p[i + 1], p[i + 2], p[i + 3]) = (0, 0, 255, 255)
                } else if !transparent {
                    (p[i], p[i + 1], p[i + 2], p[i + 3]) = (255, 0, 0, 255)
                }
            }
        }
        return p
    }

    static func withDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        try TemporaryFolder.with("formats", body)
    }

    /// Writes `moving` frames then `still` repeats through a plan (two passes for GIF).
    static func write(_ request: OutputRequest, moving: Int = 12, still: Int = 6, fps: Int = fps) throws {
        let plan = try OutputPlan.make(request)
        var palette: Frame?
        if plan.codec == .gif {
            let pass = try GIFPalettePass(width: width, height: height, fps: fps, transparent: plan.transparent)
            for n in 0..<moving {
                try picture(n, transparent: plan.transparent).withUnsafeBufferPointer {
                    try pass.write(bgra: $0.baseAddress!, stride: width * 4)
                }
            }
            palette = try pass.finish()
        }
        let out = try MediaOutput(plan: plan, width: width, height: height, fps: fps,
                                  metadata: ["title": "Formats 서울", "encoder": "maptrip test"], palette: palette)
        for n in 0..<moving {
            try picture(n, transparent: plan.transparent).withUnsafeBufferPointer {
                try out.write(bgra: $0.baseAddress!, stride: width * 4)
            }
        }
        for _ in 0..<still { try out.repeatLast() }
        try out.finish()
    }

    static func near(_ a: UInt8, _ b: Int, _ tolerance: Int = 16) -> Bool { abs(Int(a) - b) <= tolerance }

    /// The square's centre is red and the background blue (or transparent) in decoded frame `n`.
    static func checkPixels(_ image: BGRAImage, frame n: Int, transparent: Bool = false, tolerance: Int = 16,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        let c = image.pixel(x: 20 + 4 * n + 32, y: 40 + 2 * n + 32)
        #expect(near(c.r, 255, tolerance) && near(c.g, 0, tolerance) && near(c.b, 0, tolerance) && c.a == 255,
                "square, frame \(n): \(c)", sourceLocation: sourceLocation)
        let bg = image.pixel(x: 300, y: 10)
        if transparent {
            #expect(bg.a == 0, "background alpha, frame \(n): \(bg)", sourceLocation: sourceLocation)
        } else {
            #expect(near(bg.b, 255, tolerance) && near(bg.r, 0, tolerance) && bg.a == 255,
                    "background, frame \(n): \(bg)", sourceLocation: sourceLocation)
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var file: String
        var codec: VideoCodec?
        var codecName: String
        var profile: String?
        var pixelFormat: String
        var tag: String?
        var testDescription: String { "\(file) \(codec?.rawValue ?? "default")" }
    }

    static let cases: [Case] = [
        Case(file: "a.mp4", codec: nil, codecName: "h264", profile: "High", pixelFormat: "yuv420p", tag: "avc1"),
        Case(file: "a.mp4", codec: .hevc, codecName: "hevc", profile: "Main", pixelFormat: "yuv420p", tag: "hvc1"),
        Case(file: "a.webm", codec: nil, codecName: "vp9", profile: "Profile 0", pixelFormat: "yuv420p", tag: nil),
        Case(file: "a.webm", codec: .av1, codecName: "av1", profile: "Main", pixelFormat: "yuv420p", tag: nil),
        Case(file: "a.mov", codec: nil, codecName: "prores", profile: "4444", pixelFormat: "yuv444p12le", tag: "ap4h"),
        Case(file: "a.mov", codec: .h264, codecName: "h264", profile: "High", pixelFormat: "yuv420p", tag: "avc1"),
    ]

    @Test(arguments: cases)
    func eachFormatDecodesBack(_ c: Case) throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent(c.file)
            try Self.write(OutputRequest(path: url.path, codec: c.codec))
            #expect(Trip.contents(dir) == [c.file], "no temporary file left")
            let reader = try VideoReader(path: url.path)
            #expect(reader.info.codecName == c.codecName)
            #expect(reader.info.profileName == c.profile)
            #expect(reader.info.pixelFormatName == c.pixelFormat)
            #expect(reader.info.width == Self.width && reader.info.height == Self.height)
            #expect(reader.info.frameRate == Rational(30, 1))
            #expect(abs((reader.info.duration ?? 0) - 18.0 / 30) < 0.5 / 30, "\(String(describing: reader.info.duration))")
            if c.codecName != "prores" { #expect(reader.info.colorTags == .bt601Limited) }
            var frames: [BGRAImage] = []
            while let image = try reader.nextImage() { frames.append(image) }
            #expect(frames.count == 18)
            for n in [0, 7, 11] { Self.checkPixels(frames[n], frame: n) }
            Self.checkPixels(frames[17], frame: 11)  // a repeat shows the last picture

            let info = try MediaInfo(path: url.path)
            #expect(info.videoStreams.first?.codecTag == c.tag || c.tag == nil)
            #expect(info.metadata["title"] == "Formats 서울")
            if c.file.hasSuffix(".mp4") || c.file.hasSuffix(".mov") {
                #expect(info.metadata[c.file.hasSuffix(".mov") ? "encoder" : "comment"] == "maptrip test", "\(info.metadata)")
                // faststart: the index (moov) before the media (mdat), so players start at once.
                let bytes = try Data(contentsOf: url)
                let moov = bytes.range(of: Data("moov".utf8))?.lowerBound ?? .max
                let mdat = bytes.range(of: Data("mdat".utf8))?.lowerBound ?? -1
                #expect(moov < mdat, "moov at \(moov), mdat at \(mdat)")
            }
        }
    }

    @Test func losslessH264IsHigh444AndExact() throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("lossless.mp4")
            try Self.write(OutputRequest(path: url.path, options: EncodingOptions(crf: 0)), moving: 4, still: 0)
            let reader = try VideoReader(path: url.path)
            #expect(reader.info.profileName == "High 4:4:4 Predictive")
            #expect(reader.info.pixelFormatName == "yuv444p")
            let image = try #require(try reader.nextImage())
            // Lossless from 4:4:4: only the RGB <-> YUV rounding remains.
            Self.checkPixels(image, frame: 0, tolerance: 3)
        }
    }

    @Test func replayKitPresetMatchesTheOriginalCaptureSettings() throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("replaykit.mp4")
            try Self.write(OutputRequest(path: url.path, options: EncodingOptions(preset: "replaykit")),
                           moving: 40, still: 50)
            let info = try MediaInfo(path: url.path)
            #expect(info.videoStreams.first?.profileName == "High")
            let scan = try MediaInfo.scanVideo(path: url.path)
            #expect(scan.packetCount == 90)
            #expect(scan.keyframeIndices == [0, 30, 60], "\(scan.keyframeIndices)")
            #expect(scan.bFrames == 0 && scan.pFrames > 0, "\(scan)")
            let target = Double(Self.width * Self.height) * CodecProfile.replayKitBitsPerPixel
            let rate = try #require(scan.bitRate)
            #expect(abs(rate - target) / target < 0.15, "bit rate \(rate), target \(target)")
        }
    }

    @Test func gifHasAPaletteMadeForTheClip() throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("clip.gif")
            try Self.write(OutputRequest(path: url.path), fps: 15)
            let reader = try VideoReader(path: url.path)
            #expect(reader.info.codecName == "gif")
            var frames: [BGRAImage] = []
            while let image = try reader.nextImage() { frames.append(image) }
            #expect(frames.count == 18)
            // Two colours, both in the palette: exact.
            for n in [0, 11] { Self.checkPixels(frames[n], frame: n, tolerance: 2) }
        }
    }

    @Test(arguments: ["a.mov", "a.webm", "a.gif", "seq_%04d.png"])
    func transparencyIsKept(_ file: String) throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent(file)
            try Self.write(OutputRequest(path: url.path, transparent: true), moving: 6, still: 2)
            let info = try MediaInfo(path: url.path)
            let stream = try #require(info.videoStreams.first)
            if !file.hasSuffix(".gif") { #expect(stream.hasAlpha, "\(stream)") }
            // FFmpeg's own VP9 decoder drops alpha; libvpx's keeps it.
            let reader = try VideoReader(path: url.path, decoder: file.hasSuffix(".webm") ? "libvpx-vp9" : nil)
            var frames: [BGRAImage] = []
            while let image = try reader.nextImage() { frames.append(image) }
            #expect(frames.count == 8)
            for n in [0, 5] { Self.checkPixels(frames[n], frame: n, transparent: true) }
        }
    }

    @Test func alphaNeedsACodecThatCarriesIt() throws {
        let error = #expect(throws: OutputError.self) {
            try OutputPlan.make(OutputRequest(path: "/tmp/x.mp4", transparent: true))
        }
        #expect(error == .noAlpha(codec: "h264"))
        #expect(error?.description.contains(".mov (ProRes 4444), .webm (VP9), .gif") == true)
        #expect(throws: OutputError.noAlpha(codec: "av1")) {
            try OutputPlan.make(OutputRequest(path: "/tmp/x.webm", codec: .av1, transparent: true))
        }
    }

    /// `--width 17` became 18 in silence while `"width": 17` in the scene is an error: both follow the
    /// one rule (even sizes) and say so the same way; an even width is taken as asked.
    @Test(arguments: [17, 1081, 8191])
    func anOddWidthIsRefusedAsTheSceneRefusesIt(width: Int) throws {
        let error = #expect(throws: OutputError.self) {
            try OutputPlan.make(OutputRequest(path: "/tmp/a.mp4", width: width))
        }
        let hint = [width - 1, width + 1].filter { $0 <= 8192 }.map(String.init).joined(separator: " or ")
        #expect(error?.description == "--width \(width) is odd; H.264 with 4:2:0 chroma needs even frame sizes (use \(hint))")
        let even = try OutputPlan.make(OutputRequest(path: "/tmp/a.mp4", width: width + 1))
        #expect(try even.frameFormat(for: FrameFormat(width: 1920, height: 1080, fps: 30)).width == width + 1)
    }

    /// `--format gif -o a.mp4` wrote GIF bytes into a file named .mp4: a format that contradicts the
    /// file's extension is refused, one that agrees with it (or a stream, which has none) is not.
    @Test func aFormatThatContradictsTheExtensionIsRefused() throws {
        let error = #expect(throws: OutputError.self) {
            try OutputPlan.make(OutputRequest(path: "/tmp/a.mp4", format: .gif))
        }
        #expect(error?.description == "--format gif contradicts the output's extension .mp4; name it a.gif or leave --format out")
        #expect(throws: OutputError.self) { try OutputPlan.make(OutputRequest(path: "/tmp/a.mov", format: .webm)) }
        #expect(try OutputPlan.make(OutputRequest(path: "/tmp/a.gif", format: .gif)).format == .gif)
        #expect(try OutputPlan.make(OutputRequest(path: "udp://127.0.0.1:1234", format: .mpegts)).format == .mpegts)
    }

    @Test func pngSequenceIsWrittenWholeAndReplacesAnOlderLongerOne() throws {
        try Self.withDirectory { dir in
            let frames = dir.appendingPathComponent("frames")
            try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
            // An earlier, longer render of the same name, and a file of the user's.
            for n in 0..<30 { try Data("old".utf8).write(to: frames.appendingPathComponent(String(format: "f_%05d.png", n))) }
            try Data("keep".utf8).write(to: frames.appendingPathComponent("notes.txt"))
            try Self.write(OutputRequest(path: frames.appendingPathComponent("f_%05d.png").path), moving: 5, still: 2)
            let names = Trip.contents(frames)
            #expect(names == (0..<7).map { String(format: "f_%05d.png", $0) } + ["notes.txt"])
            #expect(Trip.contents(dir) == ["frames"], "no temporary folder left")
            let image = try ImageDecoder.decode(Data(contentsOf: frames.appendingPathComponent("f_00003.png")))
            Self.checkPixels(image, frame: 3, tolerance: 0)
        }
    }

    @Test func aFIFOReceivesAPlayableStreamAndADeviceStaysADevice() throws {
        try Self.withDirectory { dir in
            let fifo = dir.appendingPathComponent("pipe.mp4")
            #expect(mkfifo(fifo.path, 0o600) == 0)
            let received = dir.appendingPathComponent("received.mp4")
            // A reader on the other end, as a player would be.
            let done = DispatchSemaphore(value: 0)
            let reader = Thread {
                var data = Data()
                let fd = open(fifo.path, O_RDONLY)  // blocks until the writer opens its end
                if fd >= 0 {
                    var buffer = [UInt8](repeating: 0, count: 65536)
                    while true {
                        let n = read(fd, &buffer, buffer.count)
                        if n <= 0 { break }
                        data.append(contentsOf: buffer[0..<n])
                    }
                    close(fd)
                }
                try? data.write(to: received)
                done.signal()
            }
            reader.start()
            let plan = try OutputPlan.make(OutputRequest(path: fifo.path))
            #expect(plan.fragmented)
            try Self.write(OutputRequest(path: fifo.path))
            done.wait()
            var info = stat()
            #expect(stat(fifo.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "still a FIFO")
            let decoded = try VideoReader(path: received.path)
            #expect(decoded.info.codecName == "h264")
            #expect(try decoded.countFrames() == 18)

            // /dev/null: written to, never replaced.
            let null = try OutputPlan.make(OutputRequest(path: "/dev/null"))
            #expect(null.target == .stream(url: "file:/dev/null", label: "/dev/null"))
            try Self.write(OutputRequest(path: "/dev/null", format: .webm))
            #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
        }
    }
}
