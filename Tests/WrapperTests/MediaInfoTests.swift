import FFmpeg
import TestBasics
import Foundation
import Testing

// Real files written with VideoWriter (and Muxer + Encoder for container tags), read back with MediaInfo.

/// A fresh folder under the system's temporary directory, removed after the body.
private func withDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    try TemporaryFolder.with("mediainfo-tests", body)
}

/// Synthetic pictures for any of the planar formats the tests write.
private enum Picture {
    /// Planes of a format: horizontal and vertical subsampling (as shifts) and bytes per sample.
    static func planes(_ format: PixelFormat) -> [(xShift: Int, yShift: Int, bytes: Int)] {
        switch format.name {
        case "yuv420p": return [(0, 0, 1), (1, 1, 1), (1, 1, 1)]
        case "yuva420p": return [(0, 0, 1), (1, 1, 1), (1, 1, 1), (0, 0, 1)]
        case "yuva444p10le": return [(0, 0, 2), (0, 0, 2), (0, 0, 2), (0, 0, 2)]
        case "pal8": return [(0, 0, 1)]
        default: preconditionFailure("the tests do not draw \(format.name)")
        }
    }

    /// Fills every plane with `value(plane, x, y)`, an 8-bit level (scaled up for 10-bit planes). A pal8
    /// frame gets a grey ramp as its palette.
    static func paint(_ frame: Frame, _ value: (_ plane: Int, _ x: Int, _ y: Int) -> Int) throws {
        try frame.makeWritable()
        for (i, p) in planes(frame.pixelFormat).enumerated() {
            let base = try #require(frame.data(plane: i))
            let stride = frame.linesize(plane: i)
            let w = (frame.width + (1 << p.xShift) - 1) >> p.xShift
            let h = (frame.height + (1 << p.yShift) - 1) >> p.yShift
            for y in 0..<h {
                let row = base + y * stride
                for x in 0..<w {
                    let v = max(0, min(255, value(i, x, y)))
                    if p.bytes == 1 {
                        row[x] = UInt8(v)
                    } else {
                        let v10 = v << 2
                        row[2 * x] = UInt8(v10 & 0xff)
                        row[2 * x + 1] = UInt8(v10 >> 8)
                    }
                }
            }
        }
        if frame.pixelFormat == .pal8, let palette = frame.data(plane: 1) {
            for i in 0..<256 {  // B, G, R, A
                palette[4 * i] = UInt8(i); palette[4 * i + 1] = UInt8(i); palette[4 * i + 2] = UInt8(i)
                palette[4 * i + 3] = 255
            }
        }
    }

    /// A checkerboard moving right by 3 pixels a frame: smooth motion, no scene cut; alpha (plane 3)
    /// opaque on the left half, a quarter on the right.
    static func checkerboard(_ frame: Frame, _ n: Int) throws {
        let width = frame.width
        try paint(frame) { plane, x, y in
            switch plane {
            case 0: return ((x + 3 * n) / 8 + y / 8) % 2 == 0 ? 200 : 50
            case 1: return 110
            case 2: return 150
            default: return x < width / 2 ? 255 : 64
            }
        }
    }

    /// The moving checkerboard under noise (up to ±24 levels in every plane): an encoder cannot make it
    /// much smaller, so bit-rate control spends what it is allowed.
    static func noisy(_ frame: Frame, _ n: Int) throws {
        var state = UInt64(n + 1) &* 0x9e37_79b9_7f4a_7c15
        let width = frame.width
        try paint(frame) { plane, x, y in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let jitter = Int((state >> 40) % 49) - 24
            let base: Int
            switch plane {
            case 0: base = ((x + 3 * n) / 8 + y / 8) % 2 == 0 ? 200 : 50
            case 1: base = 110
            case 2: base = 150
            default: base = x < width / 2 ? 255 : 64
            }
            return base + jitter
        }
    }
}

/// Writes `count` pictures with `settings` into `path` (container `format`).
private func writeVideo(_ path: String, format: String = "mp4", settings: VideoEncoderSettings, frames count: Int,
                        draw: (Frame, Int) throws -> Void = Picture.checkerboard) throws {
    let writer = try VideoWriter(path: path, format: format, settings: settings)
    let frame = try Frame(width: settings.width, height: settings.height, pixelFormat: settings.pixelFormat)
    for n in 0..<count {
        try draw(frame, n)
        try writer.send(frame: frame, pts: Int64(n))
    }
    try writer.finish()
}

/// H.264 (libx264, High, yuv420p) at `fps`, one keyframe a second, one thread (x264's decisions then do
/// not depend on the machine's cores).
private func h264(width: Int = 320, height: Int = 240, fps: Int = 30, options: [String: String] = [:])
    -> VideoEncoderSettings {
    var s = VideoEncoderSettings(width: width, height: height, fps: fps)
    s.gopSeconds = 1
    s.threads = 1
    s.options = options
    return s
}

/// A WAV file of silence (16-bit PCM), written by hand.
private func writeWAV(_ url: URL, sampleRate: Int, channels: Int, seconds: Double) throws {
    let frames = Int((Double(sampleRate) * seconds).rounded())
    let dataSize = frames * channels * 2
    var d = Data()
    func u32(_ v: Int) { d.append(contentsOf: withUnsafeBytes(of: UInt32(v).littleEndian, Array.init)) }
    func u16(_ v: Int) { d.append(contentsOf: withUnsafeBytes(of: UInt16(v).littleEndian, Array.init)) }
    d.append(contentsOf: Array("RIFF".utf8)); u32(36 + dataSize); d.append(contentsOf: Array("WAVE".utf8))
    d.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(1); u16(channels); u32(sampleRate)
    u32(sampleRate * channels * 2); u16(channels * 2); u16(16)
    d.append(contentsOf: Array("data".utf8)); u32(dataSize)
    d.append(Data(count: dataSize))
    try d.write(to: url)
}

private func fileSize(_ path: String) throws -> Int {
    try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
}

@Suite("FFmpeg: MediaInfo")
struct MediaInfoTests {
    /// Encodes `count` 64x64 checkerboards into `stream` of `muxer`, drains the encoder and closes the file.
    static func writeCheckerboards(_ count: Int, encoder: Encoder, muxer: Muxer, stream: Int) throws {
        let frame = try Frame(width: 64, height: 64, pixelFormat: .yuv420p)
        for n in 0..<count {
            try Picture.checkerboard(frame, n)
            frame.pts = Int64(n)
            try encoder.encode(frame) { try muxer.write($0, stream: stream, timeBase: encoder.timeBase) }
        }
        try encoder.encode(nil) { try muxer.write($0, stream: stream, timeBase: encoder.timeBase) }
        try muxer.finish()
    }

    // MARK: MediaInfo

    @Test func readsH264InMP4() throws {
        try withDirectory { dir in
            let path = dir.appendingPathComponent("h264.mp4").path
            try writeVideo(path, settings: h264(), frames: 90)

            let info = try MediaInfo(path: path)
            #expect(info.path == path)
            #expect(info.formatName == "mp4")
            #expect(info.demuxerName == "mov,mp4,m4a,3gp,3g2,mj2")
            #expect(abs((info.duration ?? 0) - 3) < 0.01, "\(String(describing: info.duration))")
            let size = try fileSize(path)
            #expect(info.fileSize == size)
            #expect((info.bitRate ?? 0) > 0)
            #expect(info.tag("major_brand") == "isom")
            #expect(info.encoder?.hasPrefix("Lavf") == true, "\(info.metadata)")
            #expect(info.title == nil)
            #expect(info.audioStreams.isEmpty && info.otherStreams.isEmpty)

            try #require(info.videoStreams.count == 1)
            let v = info.videoStreams[0]
            #expect(v.index == 0)
            #expect(v.codecName == "h264")
            #expect(v.profileName == "High")
            #expect(v.codecTag == "avc1")
            #expect(v.width == 320 && v.height == 240)
            #expect(v.frameRate == Rational(30, 1))
            #expect(v.fps == 30)
            #expect(v.pixelFormatName == "yuv420p")
            #expect(v.pixelFormat == .yuv420p)
            #expect(!v.hasAlpha)
            #expect(v.frameCount == 90)
            #expect(abs((v.duration ?? 0) - 3) < 1e-6, "\(String(describing: v.duration))")
            #expect((v.bitRate ?? 0) > 0)
            #expect(v.colorTags == .bt601Limited, "\(v.colorTags)")
            #expect(!v.isAttachedPicture)
        }
    }

    @Test func readsVP9InWebMWithAndWithoutAlpha() throws {
        try withDirectory { dir in
            for alpha in [false, true] {
                let path = dir.appendingPathComponent(alpha ? "alpha.webm" : "opaque.webm").path
                var s = VideoEncoderSettings(codecName: "libvpx-vp9", width: 160, height: 96,
                                             frameRate: Rational(25, 1), pixelFormat: alpha ? .yuva420p : .yuv420p,
                                             preset: nil, crf: 32, profile: nil)
                s.options = ["deadline": "realtime", "cpu-used": "8"]
                try writeVideo(path, format: "webm", settings: s, frames: 30)

                let info = try MediaInfo(path: path)
                #expect(info.formatName == "matroska,webm")
                #expect(abs((info.duration ?? 0) - 1.2) < 0.01, "\(String(describing: info.duration))")
                try #require(info.videoStreams.count == 1)
                let v = info.videoStreams[0]
                #expect(v.codecName == "vp9")
                #expect(v.profileName == "Profile 0")
                #expect(v.codecTag == nil)  // Matroska stores a codec ID, not a four-character code
                #expect(v.width == 160 && v.height == 96)
                #expect(v.frameRate == Rational(25, 1))
                // The alpha plane travels beside the picture: the stream reads yuv420p, flagged alpha_mode 1.
                #expect(v.pixelFormatName == "yuv420p")
                #expect(v.hasAlpha == alpha, "alpha \(alpha): \(v.metadata)")
                #expect(v.metadata["alpha_mode"] == (alpha ? "1" : nil))
                #expect(v.frameCount == 30)  // Matroska states no count: the packets were counted
                #expect(abs((v.duration ?? 0) - 1.2) < 0.01, "\(String(describing: v.duration))")
                #expect((v.bitRate ?? 0) > 0)  // measured from the packets
            }
        }
    }

    @Test func readsProRes4444WithAlphaInMOV() throws {
        try withDirectory { dir in
            let path = dir.appendingPathComponent("prores.mov").path
            let s = VideoEncoderSettings(codecName: "prores_ks", width: 128, height: 96, frameRate: Rational(24, 1),
                                         pixelFormat: PixelFormat(name: "yuva444p10le")!,
                                         preset: nil, crf: nil, profile: nil)  // prores_ks picks 4444 for alpha
            try writeVideo(path, format: "mov", settings: s, frames: 12)

            let info = try MediaInfo(path: path)
            #expect(info.formatName == "mov")
            #expect(info.tag("major_brand")?.hasPrefix("qt") == true, "\(info.metadata)")
            try #require(info.videoStreams.count == 1)
            let v = info.videoStreams[0]
            #expect(v.codecName == "prores")
            #expect(v.profileName == "4444")
            #expect(v.codecTag == "ap4h")
            #expect(v.width == 128 && v.height == 96)
            #expect(v.frameRate == Rational(24, 1))
            // Written from yuva444p10le; a ProRes 4444 stream does not record the source's depth and
            // FFmpeg 5.1's decoder gives 12 bits (ffprobe says the same).
            #expect(v.pixelFormatName == "yuva444p12le")
            #expect(v.hasAlpha)
            #expect(v.frameCount == 12)
            #expect(abs((v.duration ?? 0) - 0.5) < 1e-6, "\(String(describing: v.duration))")
        }
    }

    @Test func readsGIFAndCountsItsFrames() throws {
        try withDirectory { dir in
            let path = dir.appendingPathComponent("anim.gif").path
            let s = VideoEncoderSettings(codecName: "gif", width: 64, height: 48, frameRate: Rational(10, 1),
                                         pixelFormat: .pal8, preset: nil, crf: nil, profile: nil)
            try writeVideo(path, format: "gif", settings: s, frames: 7)

            let info = try MediaInfo(path: path)
            #expect(info.formatName == "gif")
            try #require(info.videoStreams.count == 1)
            let v = info.videoStreams[0]
            #expect(v.codecName == "gif")
            #expect(v.width == 64 && v.height == 48)
            #expect(v.frameCount == 7)  // GIF states no count
            #expect(v.codecTag == nil)
        }
    }

    @Test func readsContainerTagsAndCodecTags() throws {
        try withDirectory { dir in
            let path = dir.appendingPathComponent("tagged.mp4").path
            let settings = h264(width: 64, height: 64, fps: 25)
            let muxer = try Muxer(path: path, format: "mp4")
            let encoder = try Encoder(video: settings, globalHeader: muxer.needsGlobalHeader)
            let stream = try muxer.addStream(from: encoder)
            try muxer.setMetadata("title", "Korea 한국")
            try muxer.setMetadata("comment", "five stops")
            try muxer.writeHeader()
            try Self.writeCheckerboards(5, encoder: encoder, muxer: muxer, stream: stream)

            let info = try MediaInfo(path: path)
            #expect(info.title == "Korea 한국")
            #expect(info.comment == "five stops")
            #expect(info.metadata["title"] == "Korea 한국")
            #expect(info.tag("TITLE") == "Korea 한국")  // any case
            #expect(info.videoStreams.first?.frameCount == 5)
        }
    }

    @Test func readsHEVCTaggedHvc1() throws {
        try withDirectory { dir in
            let path = dir.appendingPathComponent("hevc.mp4").path
            var settings = VideoEncoderSettings(codecName: "libx265", width: 64, height: 64,
                                                frameRate: Rational(25, 1), preset: "ultrafast", crf: 28,
                                                profile: "main")
            settings.options = ["x265-params": "log-level=error"]
            let muxer = try Muxer(path: path, format: "mp4")
            let encoder: Encoder
            do {
                encoder = try Encoder(video: settings, globalHeader: muxer.needsGlobalHeader)
            } catch let e as FFmpegError where e.code == FFmpegError.encoderNotFound {
                return  // an FFmpeg without libx265: nothing to check
            }
            let stream = try muxer.addStream(from: encoder, codecTag: "hvc1")
            try muxer.writeHeader()
            try Self.writeCheckerboards(3, encoder: encoder, muxer: muxer, stream: stream)

            let v = try #require(try MediaInfo(path: path).videoStreams.first)
            #expect(v.codecName == "hevc")
            #expect(v.profileName == "Main")
            #expect(v.codecTag == "hvc1")
            #expect(v.frameCount == 3)
        }
    }

    @Test func readsAudioOnlyWAV() throws {
        try withDirectory { dir in
            let url = dir.appendingPathComponent("tone.wav")
            try writeWAV(url, sampleRate: 48000, channels: 2, seconds: 0.5)

            let info = try MediaInfo(path: url.path)
            #expect(info.formatName == "wav")
            #expect(info.videoStreams.isEmpty)
            try #require(info.audioStreams.count == 1)
            let a = info.audioStreams[0]
            #expect(a.codecName == "pcm_s16le")
            #expect(a.profileName == nil)
            #expect(a.sampleRate == 48000)
            #expect(a.channels == 2)
            #expect(a.channelLayout == nil)  // a plain WAV gives a count, no layout
            #expect(a.sampleFormatName == "s16")
            #expect(abs((a.duration ?? 0) - 0.5) < 1e-6, "\(String(describing: a.duration))")
            #expect(a.bitRate == 48000 * 2 * 16)

            let noVideo = #expect(throws: FFmpegError.self) { try MediaInfo.scanVideo(path: url.path) }
            #expect(noVideo?.code == FFmpegError.streamNotFound)
            #expect(noVideo?.message == "no video stream")
        }
    }

    @Test func roundTripsThroughJSON() throws {
        try withDirectory { dir in
            let path = dir.appendingPathComponent("json.mp4").path
            try writeVideo(path, settings: h264(width: 64, height: 48), frames: 4)
            let info = try MediaInfo(path: path)

            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(info)
            #expect(try JSONDecoder().decode(MediaInfo.self, from: data) == info)
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.contains(#""frameRate":"30/1""#), "\(text)")
            #expect(text.contains(#""colorTags":{"primaries":"bt709","range":"tv","space":"smpte170m","transfer":"bt709"}"#),
                    "\(text)")
            #expect(text.contains(#""formatName":"mp4""#) && text.contains(#""codecTag":"avc1""#), "\(text)")
        }
    }

    // MARK: Bad input

    @Test func missingFileThrows() throws {
        try withDirectory { dir in
            let path = dir.appendingPathComponent("missing.mp4").path
            let error = #expect(throws: FFmpegError.self) { try MediaInfo(path: path) }
            #expect(error?.message == "No such file or directory", "\(String(describing: error))")
            #expect(error?.description.contains(path) == true)
            #expect(throws: FFmpegError.self) { try MediaInfo.scanVideo(path: path) }
        }
    }

    @Test func nonMediaFilesThrow() throws {
        try withDirectory { dir in
            let text = dir.appendingPathComponent("notes.mp4")
            try Data(String(repeating: "these are notes, not a video\n", count: 40).utf8).write(to: text)
            let empty = dir.appendingPathComponent("empty.mkv")
            try Data().write(to: empty)
            for url in [text, empty] {
                let error = #expect(throws: FFmpegError.self) { try MediaInfo(path: url.path) }
                #expect(error?.code == FFmpegError.invalidData, "\(String(describing: error))")
                #expect(error?.message.hasPrefix("not a media file") == true, "\(String(describing: error))")
                #expect(throws: FFmpegError.self) { try MediaInfo.scanVideo(path: url.path) }
            }
            #expect(throws: FFmpegError.self) { try MediaInfo(path: dir.path) }  // a folder
        }
    }

    // MARK: scanVideo

    @Test func scanFindsTheGOPAndBFrames() throws {
        try withDirectory { dir in
            let path = dir.appendingPathComponent("gop.mp4").path
            try writeVideo(path, settings: h264(), frames: 90)  // x264 defaults: B-frames allowed

            let scan = try MediaInfo.scanVideo(path: path)
            #expect(scan.streamIndex == 0)
            #expect(scan.codecName == "h264")
            #expect(scan.packetCount == 90)
            #expect(scan.decodedFrames == 90)
            #expect(scan.keyframeIndices == [0, 30, 60], "\(scan.keyframeIndices)")
            #expect(scan.keyframeInterval == 30)
            #expect(scan.iFrames >= 3, "\(scan)")
            #expect(scan.bFrames > 0, "\(scan)")
            #expect(scan.iFrames + scan.pFrames + scan.bFrames + scan.otherFrames == 90)
            let size = try fileSize(path)
            #expect(scan.byteCount > 0 && scan.byteCount < size)
            #expect(abs((scan.duration ?? 0) - 3) < 1e-6, "\(String(describing: scan.duration))")
            let bitRate = try #require(scan.bitRate)
            #expect(abs(bitRate - Double(scan.byteCount) * 8 / 3) < 1e-6)
        }
    }

    @Test func scanSeesNoBFramesWhenTheyAreOff() throws {
        try withDirectory { dir in
            let path = dir.appendingPathComponent("nob.mp4").path
            try writeVideo(path, settings: h264(options: ["bf": "0"]), frames: 60)

            let scan = try MediaInfo.scanVideo(path: path)
            #expect(scan.packetCount == 60 && scan.decodedFrames == 60)
            #expect(scan.bFrames == 0, "\(scan)")
            #expect(scan.keyframeIndices == [0, 30])
            #expect(scan.iFrames == 2 && scan.pFrames == 58, "\(scan)")
        }
    }

    @Test func scanMeasuresTheBitRate() throws {
        try withDirectory { dir in
            let path = dir.appendingPathComponent("rate.mp4").path
            var s = h264()
            s.crf = nil
            s.bitRate = 1_000_000
            // With a VBV buffer of half a second: x264's ABR alone overshoots a short clip by 20% or more.
            s.options = ["maxrate": "1000000", "bufsize": "500000"]
            try writeVideo(path, settings: s, frames: 90, draw: Picture.noisy)

            let scan = try MediaInfo.scanVideo(path: path)
            let bitRate = try #require(scan.bitRate)
            #expect(abs(bitRate / 1_000_000 - 1) <= 0.15, "\(bitRate) b/s")
            let stated = try #require(try MediaInfo(path: path).videoStreams.first?.bitRate)
            #expect(abs(Double(stated) / bitRate - 1) < 0.02, "the container says \(stated) b/s")
        }
    }

    @Test func scanReadsVP9AndProRes() throws {
        try withDirectory { dir in
            let webm = dir.appendingPathComponent("scan.webm").path
            var vp9 = VideoEncoderSettings(codecName: "libvpx-vp9", width: 96, height: 64, frameRate: Rational(25, 1),
                                           preset: nil, crf: 32, profile: nil)
            vp9.options = ["deadline": "realtime", "cpu-used": "8"]
            try writeVideo(webm, format: "webm", settings: vp9, frames: 20)
            let v = try MediaInfo.scanVideo(path: webm)
            #expect(v.codecName == "vp9")
            #expect(v.packetCount == 20 && v.decodedFrames == 20, "\(v)")
            #expect(v.keyframeIndices.first == 0)
            #expect(v.bFrames == 0)

            let mov = dir.appendingPathComponent("scan.mov").path
            let prores = VideoEncoderSettings(codecName: "prores_ks", width: 64, height: 64,
                                              frameRate: Rational(24, 1), pixelFormat: PixelFormat(name: "yuva444p10le")!,
                                              preset: nil, crf: nil, profile: nil)
            try writeVideo(mov, format: "mov", settings: prores, frames: 6)
            let p = try MediaInfo.scanVideo(path: mov)
            #expect(p.codecName == "prores")
            #expect(p.keyframeIndices == Array(0..<6))  // intra-only
            #expect(p.keyframeInterval == 1)
            #expect(p.iFrames == 6 && p.decodedFrames == 6, "\(p)")
        }
    }
}
