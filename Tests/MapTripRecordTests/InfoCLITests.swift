import FFmpeg
import Foundation
import Testing

/// `maptrip info` run as a subprocess on a rendered trip, a WAV file and files it cannot read.
@Suite("maptrip info CLI")
struct InfoCLITests {
    /// Renders the Korea trip (320x180, 24 fps, 3.5 s: 84 frames) with a title into `dir/out.mp4`.
    private func renderTrip(in dir: URL) throws {
        var trip = TripScene.korea
        trip.title = "Korea 한국"
        try trip.write(to: dir)
        let result = try CLIProcess.run(["render", "scene.json", "-o", "out.mp4", "--quiet"], in: dir)
        try #require(result.reason == .exit && result.status == 0, "\(result)")
    }

    /// A WAV file of silence: 48 kHz, 16-bit stereo, 0.5 s.
    private func writeWAV(_ url: URL) throws {
        let dataSize = 24000 * 2 * 2
        var d = Data()
        func u32(_ v: Int) { d.append(contentsOf: withUnsafeBytes(of: UInt32(v).littleEndian, Array.init)) }
        func u16(_ v: Int) { d.append(contentsOf: withUnsafeBytes(of: UInt16(v).littleEndian, Array.init)) }
        d.append(contentsOf: Array("RIFF".utf8)); u32(36 + dataSize); d.append(contentsOf: Array("WAVE".utf8))
        d.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(1); u16(2); u32(48000); u32(48000 * 4); u16(4); u16(16)
        d.append(contentsOf: Array("data".utf8)); u32(dataSize)
        d.append(Data(count: dataSize))
        try d.write(to: url)
    }

    @Test func infoDescribesARenderedTrip() throws {
        try Trip.withDirectory("info") { dir in
            try renderTrip(in: dir)
            try writeWAV(dir.appendingPathComponent("tone.wav"))

            let result = try CLIProcess.run(["info", "out.mp4", "tone.wav"], in: dir)
            #expect(result.reason == .exit && result.status == 0, "\(result)")
            #expect(result.stderr.isEmpty, "\(result)")
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            try #require(lines.count >= 9, "\(result)")
            #expect(lines[0] == "out.mp4")
            #expect(lines[1].hasPrefix("  container: mp4, 3.50 s, "), "\(lines[1])")
            #expect(lines[1].contains(" kB, ") && lines[1].hasSuffix(" kb/s"), "\(lines[1])")
            #expect(lines[2] == "  video: h264 (High) 320x180 24 fps yuv420p, 84 frames", "\(lines[2])")
            #expect(lines[3] == "  title: Korea 한국", "\(lines[3])")
            #expect(lines[4] == "")  // a blank line between files
            #expect(lines[5] == "tone.wav")
            #expect(lines[6] == "  container: wav, 0.50 s, 96.0 kB, 1.54 Mb/s", "\(lines[6])")
            #expect(lines[7] == "  audio: pcm_s16le 48000 Hz stereo, 0.50 s", "\(lines[7])")
            #expect(lines.count == 9 && lines[8] == "", "\(result)")
        }
    }

    @Test func infoJSONIsOneArray() throws {
        try Trip.withDirectory("info") { dir in
            try renderTrip(in: dir)
            try writeWAV(dir.appendingPathComponent("tone.wav"))

            let result = try CLIProcess.run(["info", "--json", "out.mp4", "tone.wav"], in: dir)
            #expect(result.reason == .exit && result.status == 0, "\(result)")
            #expect(result.stderr.isEmpty, "\(result)")
            #expect(result.stdout.hasPrefix("[") && result.stdout.hasSuffix("]\n"), "\(result)")

            let infos = try JSONDecoder().decode([MediaInfo].self, from: Data(result.stdout.utf8))
            try #require(infos.count == 2)
            #expect(infos[0].path == "out.mp4" && infos[1].path == "tone.wav")
            #expect(infos[0].formatName == "mp4")
            #expect(infos[0].title == "Korea 한국")
            #expect(abs((infos[0].duration ?? 0) - 3.5) < 0.01)
            let v = try #require(infos[0].videoStreams.first)
            #expect(v.codecName == "h264" && v.profileName == "High" && v.codecTag == "avc1")
            #expect(v.width == 320 && v.height == 180 && v.frameRate == Rational(24, 1))
            #expect(v.frameCount == 84 && !v.hasAlpha && v.pixelFormatName == "yuv420p")
            #expect(infos[1].audioStreams.first?.sampleRate == 48000)

            // Keys are sorted: the same file described again gives the same text.
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
            #expect(object[0]["formatName"] as? String == "mp4")
            let again = try CLIProcess.run(["info", "--json", "out.mp4", "tone.wav"], in: dir)
            #expect(again.stdout == result.stdout)
        }
    }

    @Test func unreadableFilesGetOneLineEachAndTheRestIsStillDescribed() throws {
        try Trip.withDirectory("info") { dir in
            try renderTrip(in: dir)
            try Data("these are notes, not a video\n".utf8).write(to: dir.appendingPathComponent("notes.mp4"))

            let result = try CLIProcess.run(["info", "notes.mp4", "out.mp4", "missing.mov"], in: dir)
            #expect(result.reason == .exit && result.status == 1, "\(result)")
            #expect(result.stderrLines == [
                "maptrip: error: notes.mp4: not a media file, or a damaged one (invalid data found when processing input)",
                "maptrip: error: missing.mov: No such file or directory",
            ], "\(result)")
            #expect(result.stdout.hasPrefix("out.mp4\n  container: mp4, 3.50 s, "), "\(result)")
            #expect(result.stdout.contains("\n  video: h264 (High) 320x180 24 fps yuv420p, 84 frames\n"), "\(result)")

            let json = try CLIProcess.run(["info", "--json", "out.mp4", "notes.mp4"], in: dir)
            #expect(json.reason == .exit && json.status == 1, "\(json)")
            #expect(json.stderrLines.count == 1 && json.stderrLines.first?.hasPrefix("maptrip: error: notes.mp4: ") == true,
                    "\(json)")
            let infos = try JSONDecoder().decode([MediaInfo].self, from: Data(json.stdout.utf8))
            #expect(infos.map(\.path) == ["out.mp4"])
        }
    }

    /// `info udp://127.0.0.1:9` waited for ever, and a FIFO blocked in open(): a network input that
    /// sends nothing ends with one line after --timeout, and a special file is refused unopened.
    @Test func aSilentStreamTimesOutAndAFIFOIsNotOpened() throws {
        try Trip.withDirectory("info-wait") { dir in
            // A UDP port nothing sends to: bound for a moment to find a free one, then let go.
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length); return getsockname(fd, $0, &length) }
            }
            let port = Int(UInt16(bigEndian: address.sin_port))
            close(fd)
            let url = "udp://127.0.0.1:\(port)"
            let silent = try CLIProcess.run(["info", url, "--timeout", "0.5"], in: dir)
            #expect(silent.reason == .exit && silent.status == 1, "\(silent)")
            #expect(silent.stderrLines == ["maptrip: error: \(url): nothing received within 0.5 s (check the address, and that something is sending to it)"])

            #expect(mkfifo(dir.appendingPathComponent("pipe.mp4").path, 0o644) == 0)
            let fifo = try CLIProcess.run(["info", "pipe.mp4"], in: dir)
            #expect(fifo.reason == .exit && fifo.status == 1, "\(fifo)")
            #expect(fifo.stderrLines == ["maptrip: error: pipe.mp4: a special file (a FIFO, a socket or a device), not a regular file (name a video file)"])
        }
    }
}
