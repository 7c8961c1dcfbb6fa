import FFmpeg
import Foundation
import MapTripScene
import MapTripOutput
import MapTripRecord
import MapTripRender
import Testing
import TestSupport

/// `maptrip render` outputs as a user meets them: nothing is ever lost, every format, posters, sound,
/// live streams.
@Suite("render outputs")
struct OutputCLITests {
    // MARK: Nothing is lost

    @Test func theSceneFileIsNeverTheOutput() throws {
        try Trip.withDirectory("out") { dir in
            let scene = try TripScene.korea.write(to: dir, name: "ok.json")
            let before = try Data(contentsOf: scene)
            let result = try CLIProcess.run(["render", "ok.json", "-o", "ok.json"], in: dir)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.hasPrefix("maptrip: error: output ok.json is the scene file; it would be overwritten"),
                    "\(result)")
            #expect(try Data(contentsOf: scene) == before)
            #expect(Trip.contents(dir) == ["ok.json"])
            // The same file by another name.
            let other = try CLIProcess.run(["render", "ok.json", "-o", "./sub/../ok.json"], in: dir)
            #expect(other.status == 1 && other.stderr.contains("is the scene file"), "\(other)")
            #expect(try Data(contentsOf: scene) == before)
        }
    }

    @Test func theSceneSoundTrackIsNeverTheOutput() throws {
        try Trip.withDirectory("out") { dir in
            try Self.writeTone(to: dir.appendingPathComponent("music.wav"), seconds: 1)
            try Self.writeScene(dir, audio: #"{"file": "music.wav"}"#)
            let tone = try Data(contentsOf: dir.appendingPathComponent("music.wav"))
            let result = try CLIProcess.run(["render", "scene.json", "-o", "music.wav"], in: dir)
            #expect(result.status == 1 && result.stderr.contains("is the scene's input"), "\(result)")
            #expect(try Data(contentsOf: dir.appendingPathComponent("music.wav")) == tone)
        }
    }

    @Test func devNullStaysADevice() throws {
        try Trip.withDirectory("out") { dir in
            try TripScene.korea.write(to: dir)
            let result = try CLIProcess.run(["render", "scene.json", "-o", "/dev/null", "-q"], in: dir)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
            var info = stat()
            #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "/dev/null is still a device")
            #expect(Trip.contents(dir) == ["scene.json"])
        }
    }

    @Test func standardOutputCarriesAPlayableStream() throws {
        try Trip.withDirectory("out") { dir in
            try TripScene.korea.write(to: dir)
            let result = try CLIProcess.run(["render", "scene.json", "-o", "-", "--format", "webm", "-q"], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let file = dir.appendingPathComponent("received.webm")
            try result.stdoutData.write(to: file)
            let reader = try VideoReader(path: file.path)
            #expect(reader.info.codecName == "vp9")
            #expect(try reader.countFrames() == 84)
            // Without a format there is nothing to choose by: say so.
            let bare = try CLIProcess.run(["render", "scene.json", "-o", "-"], in: dir)
            #expect(bare.status == 1 && bare.stderr.contains("pass --format"), "\(bare)")
        }
    }

    @Test(arguments: [
        ("existing", "output existing is a folder; name a file in it, e.g. existing/trip.mp4"),
        ("clip.xyz", "output clip.xyz: maptrip does not write .xyz files; it writes .mp4 (H.264, HEVC), .webm"),
        ("blocker/sub/clip.mp4", "cannot create the output's folder blocker/sub: "),
        ("clip", "output clip has no extension to choose a format by"),
    ])
    func badOutputsAreRefusedBeforeAnyFrameIsDrawn(output: String, message: String) throws {
        try Trip.withDirectory("out") { dir in
            // A long 1080p scene: refusing it must not take a render's time.
            var trip = TripScene.korea
            (trip.width, trip.height) = (1920, 1080)
            trip.stops = trip.stops.map { var s = $0; s.dwell = 20; return s }
            try trip.write(to: dir)
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("existing"),
                                                    withIntermediateDirectories: true)
            try Data("x".utf8).write(to: dir.appendingPathComponent("blocker"))
            let result = try CLIProcess.run(["render", "scene.json", "-o", output], in: dir)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.hasPrefix("maptrip: error: " + message), "\(result)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result)")
            // Refused before rendering: no temporary output was ever opened (listed below).
            #expect(Trip.contents(dir) == ["blocker", "existing", "scene.json"])
            #expect(Trip.contents(dir.appendingPathComponent("existing")).isEmpty)
        }
    }

    @Test func optionsThatDoNotApplyAreErrors() throws {
        try Trip.withDirectory("out") { dir in
            try TripScene.korea.write(to: dir)
            let crf = try CLIProcess.run(["render", "scene.json", "-o", "a.mov", "--crf", "20"], in: dir)
            #expect(crf.status == 1 && crf.stderr.contains("--crf does not apply to prores"), "\(crf)")
            let alpha = try CLIProcess.run(["render", "scene.json", "-o", "a.mp4", "--transparent"], in: dir)
            #expect(alpha.status == 1 && alpha.stderr.contains("h264 cannot carry transparency; write .mov"), "\(alpha)")
            let codec = try CLIProcess.run(["render", "scene.json", "-o", "a.webm", "--codec", "hevc"], in: dir)
            #expect(codec.status == 1 && codec.stderr.contains("--codec hevc cannot go in .webm"), "\(codec)")
            #expect(Trip.contents(dir) == ["scene.json"])
        }
    }

    // MARK: Formats through the CLI

    @Test func gifDefaultsToFifteenFramesASecondAndAtMost720Wide() throws {
        try Trip.withDirectory("out") { dir in
            var trip = TripScene.korea
            (trip.width, trip.height, trip.fps) = (1280, 720, 30)
            try trip.write(to: dir)
            let result = try CLIProcess.run(["render", "scene.json", "-o", "clip.gif"], in: dir)
            #expect(result.status == 0, "\(result)")
            let reader = try VideoReader(path: dir.appendingPathComponent("clip.gif").path)
            #expect(reader.info.codecName == "gif")
            #expect(reader.info.width == 720 && reader.info.height == 405)
            var frames: [BGRAImage] = []
            while let image = try reader.nextImage() { frames.append(image) }
            #expect(frames.count == 53, "3.5 s at 15 fps")  // round(15 x 1) + round(15 x 2.5) - ... on the grid
            // The same map as the video, smaller: sea and land where the 1280 render has them.
            let sea = frames[0].pixel(x: 700, y: 40)
            #expect(sea.b > sea.r, "sea at the top right: \(sea)")
            let other = try CLIProcess.run(["render", "scene.json", "-o", "small.gif", "--fps", "10", "--width", "320"],
                                           in: dir)
            #expect(other.status == 0, "\(other)")
            let small = try VideoReader(path: dir.appendingPathComponent("small.gif").path)
            #expect(small.info.width == 320 && small.info.height == 180)
            #expect(try small.countFrames() == 35)
        }
    }

    @Test func posterIsTheFirstPlaceAtRest() throws {
        try Trip.withDirectory("out") { dir in
            try TripScene.korea.write(to: dir)
            let result = try CLIProcess.run(["render", "scene.json", "-o", "trip.mp4", "--poster"], in: dir)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("wrote trip.jpg"), "\(result)")
            #expect(Trip.contents(dir) == ["scene.json", "trip.jpg", "trip.mp4"])
            let poster = try ImageDecoder.decode(Data(contentsOf: dir.appendingPathComponent("trip.jpg")))
            #expect(poster.width == 320 && poster.height == 180)
            // The same picture as the video's last frame before the first flight (frame 23 at 24 fps).
            let video = try Trip.decode(dir.appendingPathComponent("trip.mp4"))
            #expect(Trip.meanDifference(poster, video.frames[23]) < 3)
            #expect(Trip.meanDifference(poster, video.frames[60]) > Trip.meanDifference(poster, video.frames[23]) + 3)

            let png = try CLIProcess.run(["render", "scene.json", "-o", "t.mp4", "--poster-file", "p.png", "--poster-at", "2.5"],
                                         in: dir)
            #expect(png.status == 0, "\(png)")
            #expect(png.stdout.contains("wrote p.png"), "\(png)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("t.jpg").path))
            let at = try ImageDecoder.decode(Data(contentsOf: dir.appendingPathComponent("p.png")))
            #expect(Trip.meanDifference(at, video.frames[60]) < 3)

            // --poster is a flag: the word after it is the next argument (here the scene itself).
            let flag = try CLIProcess.run(["render", "--poster", "scene.json", "-o", "u.mp4", "-q"], in: dir)
            #expect(flag.status == 0, "\(flag)")
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("u.jpg").path))
            let alone = try CLIProcess.run(["render", "scene.json", "-o", "v.mp4", "--poster-at", "1"], in: dir)
            #expect(alone.status == 1 && alone.stderr == "maptrip: error: --poster-at needs --poster or --poster-file "
                    + "(see 'maptrip render --help')\n", "\(alone)")
        }
    }

    // MARK: Sound

    @Test func sceneSoundTrackIsCutToTheVideoAndFadedOut() throws {
        try Trip.withDirectory("out") { dir in
            try Self.writeTone(to: dir.appendingPathComponent("music.wav"), seconds: 10)
            try Self.writeScene(dir, audio: #"{"file": "music.wav", "offset": 2, "fadeOut": 1}"#)
            for file in ["trip.mp4", "trip.webm"] {
                let result = try CLIProcess.run(["render", "scene.json", "-o", file, "-q"], in: dir)
                #expect(result.status == 0, "\(result)")
                let info = try MediaInfo(path: dir.appendingPathComponent(file).path)
                let audio = try #require(info.audioStreams.first, "\(file) has a sound track")
                #expect(audio.codecName == (file.hasSuffix("mp4") ? "aac" : "opus"))
                #expect(audio.sampleRate == 48000 && audio.channels == 2)
                let reader = try AudioReader(path: dir.appendingPathComponent(file).path, sampleRate: 48000, channels: 2)
                let samples = try reader.readAll()[0]
                let seconds = Double(samples.count) / 48000
                // AAC's last frame is padded (FFmpeg 5.1 does not trim it): at most 1024 samples more.
                #expect(seconds >= 3.5 - 1.0 / 24 && seconds <= 3.5 + 1024.0 / 48000 + 1.0 / 24, "\(file): \(seconds) s")
                let tail = samples[(Int(3.5 * 48000) - 2400)..<Int(3.5 * 48000)]
                let rms = (tail.reduce(0) { $0 + Double($1 * $1) } / Double(tail.count)).squareRoot()
                #expect(rms < 0.01, "\(file): the last 50 ms are silent (rms \(rms))")
                let body = samples[24000..<48000]
                let bodyRMS = (body.reduce(0) { $0 + Double($1 * $1) } / Double(body.count)).squareRoot()
                #expect(bodyRMS > 0.2, "\(file): the tone plays (rms \(bodyRMS))")
            }
            // GIF has no sound: said, not hidden.
            let gif = try CLIProcess.run(["render", "scene.json", "-o", "trip.gif"], in: dir)
            #expect(gif.status == 0 && gif.stderr.contains("warning: .gif has no sound: music.wav is not written"),
                    "\(gif)")
            // A missing file: one clear error before rendering.
            let missing = try CLIProcess.run(["render", "scene.json", "-o", "x.mp4", "--audio", "nope.mp3"], in: dir)
            #expect(missing.status == 1 && missing.stderr.contains("nope.mp3") && !missing.stderr.contains("\n\n"),
                    "\(missing)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.mp4").path))
        }
    }

    // MARK: Live

    /// Live pacing on a virtual clock: frame n leaves at exactly n/fps, never early, and a sink
    /// slower than the clock is reported late.
    @Test func pacedSinkHandsFrameNOnAtNOverFPS() throws {
        final class Stamps: FrameSink {
            let clock: VirtualClock
            var times: [Double] = []
            var cost = 0.0
            init(_ clock: VirtualClock) { self.clock = clock }
            func write(bgra: UnsafePointer<UInt8>, stride: Int) throws { stamp() }
            func repeatLast() throws { stamp() }
            private func stamp() {
                times.append(clock.now())
                clock.sleep(seconds: cost)
            }
        }
        let clock = VirtualClock()
        let stamps = Stamps(clock)
        let paced = PacedSink(stamps, fps: 24, clock: clock)
        var pixel: [UInt8] = [0, 0, 0, 255]
        for n in 0..<48 { try n % 3 == 0 ? paced.write(bgra: &pixel, stride: 4) : paced.repeatLast() }
        #expect(stamps.times.enumerated().allSatisfy { abs($1 - stamps.times[0] - Double($0) / 24) < 1e-9 })
        #expect(abs(paced.elapsed - 47.0 / 24) < 1e-9 && paced.report == nil)
        // A sink that takes two frames' time per frame falls behind, and says so.
        let slow = Stamps(clock)
        slow.cost = 2.0 / 24
        let late = PacedSink(slow, fps: 24, clock: clock)
        for _ in 0..<10 { try late.repeatLast() }
        #expect(late.lateFrames > 0 && late.report != nil)
    }

    /// A live stream over UDP, paced by the wall clock (not to flood the socket); its pacing is the
    /// test above's.
    @Test func liveUDPStreamIsPacedByTheClock() throws {
        let scene = try TripScene(flight: 0.5, stops: [
            .init(name: "Seoul", lat: 37.5665, lon: 126.978, dwell: 2),
            .init(name: "Busan", lat: 35.1796, lon: 129.0756, dwell: 2),
            .init(name: "Jeju", lat: 33.4996, lon: 126.5312, dwell: 2),
        ]).scene()
        let receiver = try UDPReceiver()
        let plan = try OutputPlan.make(OutputRequest(path: "udp://127.0.0.1:\(receiver.port)"))
        #expect(plan.format == .mpegts)
        let recorder = try Recorder(scene: scene, baseMap: try ShapefileBaseMap(assets: Trip.assets))
        let output = try MediaOutput(plan: plan, width: 320, height: 180, fps: 24)
        let paced = PacedSink(output, fps: 24)
        _ = try recorder.record(to: paced)
        try output.finish()
        let frames = 144
        let bytes = receiver.finish()
        try Trip.withDirectory("udp") { dir in
            let file = dir.appendingPathComponent("received.ts")
            try bytes.write(to: file)
            let reader = try VideoReader(path: file.path)
            #expect(reader.info.codecName == "h264")
            #expect(try reader.countFrames() == frames)
        }
    }

    @Test func liveHLSEndsWithItsEndTagEvenWhenInterrupted() throws {
        try Trip.withDirectory("hls") { dir in
            try TripScene.korea.write(to: dir)
            let done = try CLIProcess.run(["render", "scene.json", "--live", "live/trip.m3u8", "-q"], in: dir)
            #expect(done.status == 0, "\(done)")
            let playlist = try String(contentsOf: dir.appendingPathComponent("live/trip.m3u8"), encoding: .utf8)
            #expect(playlist.hasSuffix("#EXT-X-ENDLIST\n"), "\(playlist)")
            let segments = playlist.split(separator: "\n").filter { $0.hasSuffix(".ts") }
            #expect(segments.count >= 2, "\(playlist)")
            var total = 0
            for s in segments {
                total += try VideoReader(path: dir.appendingPathComponent("live/\(s)").path).countFrames()
            }
            #expect(total == 84)

            // Ctrl-C in the middle: the stream ends cleanly.
            var long = TripScene.korea
            long.stops = long.stops.map { var s = $0; s.dwell = 4; return s }
            try long.write(to: dir, name: "long.json")
            let process = try CLIProcess(["render", "long.json", "--live", "cut/trip.m3u8"], in: dir)
            try process.start()
            let cut = dir.appendingPathComponent("cut/trip.m3u8")
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline,
                  !((try? String(contentsOf: cut, encoding: .utf8))?.contains(".ts") ?? false) {
                Thread.sleep(forTimeInterval: 0.1)
            }
            process.signal(SIGINT)
            let result = try process.wait()
            #expect(result.status == 128 + SIGINT, "\(result)")
            let text = try String(contentsOf: cut, encoding: .utf8)
            #expect(text.hasSuffix("#EXT-X-ENDLIST\n"), "\(text)")
        }
    }

    // MARK: Helpers

    static func writeTone(to url: URL, seconds: Double) throws {
        let rate = 48000
        let samples = (0..<Int(seconds * Double(rate))).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / Double(rate))) }
        try AudioFileWriter.write([samples, samples], sampleRate: rate, to: url.path)
    }

    static func writeScene(_ dir: URL, audio: String) throws {
        var text = TripScene.korea.json
        text = text.replacingOccurrences(of: "{\n", with: "{\n  \"audio\": \(audio),\n", options: [], range: text.startIndex..<text.index(text.startIndex, offsetBy: 2))
        try Data(text.utf8).write(to: dir.appendingPathComponent("scene.json"))
    }
}

/// A UDP socket on 127.0.0.1 collecting every datagram until 2 s pass without one.
final class UDPReceiver: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init() throws {
        guard let (fd, port) = LoopbackSocket.bound(Int32(SOCK_DGRAM.rawValue)) else { throw CocoaError(.fileWriteUnknown) }
        var buffer = 4 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, socklen_t(MemoryLayout<Int>.size))
        self.fd = fd
        self.port = port
        Thread { [self] in receive() }.start()
    }

    private func receive() {
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            data.append(contentsOf: buffer[0..<n])
            timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        close(fd)
        done.signal()
    }

    /// Waits for the stream to end and returns what arrived.
    func finish() -> Data {
        done.wait()
        return data
    }
}
