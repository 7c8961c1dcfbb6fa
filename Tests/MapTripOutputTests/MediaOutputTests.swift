import Foundation
import Testing
import FFmpeg
import MapTripOutput
import TestSupport

@Suite("MediaOutput")
struct MediaOutputTests {
    static let width = 1280
    static let height = 720
    static let stride = width * 4

    /// Blue background, a pure red 160x160 square whose top-left corner is (100 + 8n, 200 + 4n).
    static func picture(_ n: Int) -> [UInt8] {
        TestMedia.square(width: width, height: height, origin: (100 + 8 * n, 200 + 4 * n))
    }

    static func makeDirectory() throws -> URL { try TemporaryFolder.make("mediaoutput-tests") }

    static func contents(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    static func write(_ output: MediaOutput, frame n: Int) throws {
        try picture(n).withUnsafeBufferPointer { try output.write(bgra: $0.baseAddress!, stride: stride) }
    }

    static func near(_ a: UInt8, _ b: UInt8) -> Bool { abs(Int(a) - Int(b)) <= 12 }

    @Test func aFullOrForbiddenDiskIsExplainedForWhatWasWritten() {
        // A render's video: its -o. A tile set (`maptrip tiles`): its output path.
        let temporary = URL(fileURLWithPath: "/data/.out.mp4.maptrip-1-x.tmp")
        #expect(TemporaryFiles.storageFailure(errno: ENOSPC, writing: temporary)
                == "\(String(cString: strerror(ENOSPC))) (free some space, or write the video elsewhere with -o)")
        #expect(TemporaryFiles.storageFailure(errno: ENOSPC, writing: temporary, output: .tiles)
                == "\(String(cString: strerror(ENOSPC))) (free some space, or write the tiles to another path)")
        #expect(TemporaryFiles.storageFailure(errno: EACCES, writing: temporary, output: .tiles)?
                .hasSuffix("(this user may not write in /data: write the tiles to another path)") == true)
        #expect(TemporaryFiles.storageFailure(errno: EIO, writing: temporary, output: .tiles)?
                .hasSuffix("(the disk failed while the tiles were written)") == true)
        #expect(TemporaryFiles.storageFailure(errno: EINVAL, writing: temporary, output: .tiles) == nil)
    }

    /// A SIGKILL'd render's temporary file stayed when the next render wrote another name in the
    /// folder: any run that writes into a folder removes the temporary files of dead processes there,
    /// whatever their target; never a live process's, nor one another host wrote (a batch task on
    /// another node of a cluster, whose pids mean nothing here).
    @Test func aRunRemovesTheFoldersStaleTemporaryFilesOfDeadProcessesOfThisHost() throws {
        try TemporaryFolder.with("stale") { dir in
            let dead = Process()
            dead.executableURL = URL(fileURLWithPath: "/bin/true")
            try dead.run()
            dead.waitUntilExit()
            let pid = dead.processIdentifier
            let host = TemporaryFiles.host
            let names = [
                "gone": ".other.mp4.maptrip-\(pid)-abc@\(host).tmp",
                "goneOlder": ".older.gif.maptrip-\(pid)-abc.tmp",  // before names carried the host
                "goneFolder": ".frames_%05d.png.maptrip-\(pid)-q@\(host).tmp",
                "live": ".live.mp4.maptrip-1-abc@\(host).tmp",
                "elsewhere": ".node2.mp4.maptrip-\(pid)-abc@another-node.tmp",
                "notOurs": ".notes.txt.tmp",
            ]
            for (key, name) in names {
                let url = dir.appendingPathComponent(name)
                if key == "goneFolder" {
                    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
                } else {
                    try Data([1, 2, 3]).write(to: url)
                }
            }
            let fresh = TemporaryFiles.name(beside: dir.appendingPathComponent("trip.mp4"))
            #expect(fresh.lastPathComponent.hasPrefix(".trip.mp4.maptrip-\(getpid())-"))
            #expect(fresh.lastPathComponent.hasSuffix("@\(host).tmp"))
            #expect(TemporaryFiles.owner(fresh.lastPathComponent) == getpid())
            let left = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
            #expect(left == Set([names["live"]!, names["elsewhere"]!, names["notOurs"]!]), "\(left)")
        }
    }

    @Test func writesToTheTemporaryFileThenRenamesOnFinish() throws {
        let dir = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("trip.mp4")
        let output = try MediaOutput(file: target, width: Self.width, height: Self.height, fps: 30)

        #expect(output.temporaryURL!.deletingLastPathComponent().path == dir.path)
        #expect(output.temporaryURL!.lastPathComponent.hasPrefix(".trip.mp4.maptrip-\(getpid())-"))
        #expect(output.temporaryURL!.pathExtension == "tmp")

        let moving = 20, still = 10
        for n in 0..<moving { try Self.write(output, frame: n) }
        for _ in 0..<still { try output.repeatLast() }
        #expect(output.framesWritten == moving + still)
        #expect(FileManager.default.fileExists(atPath: output.temporaryURL!.path))
        #expect(!FileManager.default.fileExists(atPath: target.path))
        #expect(Self.contents(dir) == [output.temporaryURL!.lastPathComponent])

        try output.finish()
        #expect(Self.contents(dir) == ["trip.mp4"])
        #expect(throws: FFmpegError.self) { try output.repeatLast() }  // finished

        let reader = try VideoReader(path: target.path)
        #expect(reader.info.codecName == "h264")
        #expect(reader.info.profileName == "High")
        #expect(reader.info.width == Self.width && reader.info.height == Self.height)
        #expect(reader.info.pixelFormatName == "yuv420p")
        #expect(reader.info.colorTags == .bt709Limited)  // HD: BT.709 (ColorMatrixTests)
        #expect(reader.info.frameCount == moving + still)
        #expect(abs((reader.info.duration ?? 0) - Double(moving + still) / 30) <= 1.0 / 30 + 1e-9)

        var images: [BGRAImage] = []
        while let image = try reader.nextImage() { images.append(image) }
        #expect(images.count == moving + still)
        for n in [0, 9, moving - 1] {
            let centre = images[n].pixel(x: 100 + 8 * n + 80, y: 200 + 4 * n + 80)
            #expect(Self.near(centre.r, 255) && Self.near(centre.g, 0) && Self.near(centre.b, 0), "frame \(n): \(centre)")
            let background = images[n].pixel(x: 1200, y: 40)
            #expect(Self.near(background.r, 0) && Self.near(background.g, 0) && Self.near(background.b, 255),
                    "frame \(n): \(background)")
        }
        // Repeats show the last written picture. H.264 is lossy: the encoder may refine edge pixels of the
        // repeated picture by a level or three (well under 0.1% of samples), nothing more.
        let last = images[moving - 1]
        for image in images[moving...] {
            var maxDiff = 0, differing = 0
            for i in 0..<image.pixels.count where image.pixels[i] != last.pixels[i] {
                differing += 1
                maxDiff = max(maxDiff, abs(Int(image.pixels[i]) - Int(last.pixels[i])))
            }
            #expect(maxDiff <= 4 && differing <= image.pixels.count / 1000, "repeat differs by up to \(maxDiff) in \(differing) samples")
        }
    }

    @Test func finishReplacesAnExistingTargetOnlyAtTheEnd() throws {
        let dir = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("trip.mp4")
        let old = Data("previous render".utf8)
        try old.write(to: target)

        let output = try MediaOutput(file: target, width: 320, height: 240, fps: 25)
        let gray = [UInt8](repeating: 90, count: 320 * 4 * 240)
        try gray.withUnsafeBufferPointer { try output.write(bgra: $0.baseAddress!, stride: 320 * 4) }
        try output.repeatLast()
        #expect(try Data(contentsOf: target) == old)
        try output.finish()
        #expect(Self.contents(dir) == ["trip.mp4"])
        #expect(try VideoReader(path: target.path).countFrames() == 2)
    }

    @Test func cancelAndDeinitLeaveNoTemporaryFileAndTheTargetUntouched() throws {
        let dir = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("trip.mp4")
        let old = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0) })
        try old.write(to: target)
        let gray = [UInt8](repeating: 200, count: 320 * 4 * 240)

        let cancelled = try MediaOutput(file: target, width: 320, height: 240, fps: 30)
        try gray.withUnsafeBufferPointer { try cancelled.write(bgra: $0.baseAddress!, stride: 320 * 4) }
        #expect(Self.contents(dir).count == 2)
        cancelled.cancel()
        #expect(Self.contents(dir) == ["trip.mp4"])
        #expect(try Data(contentsOf: target) == old)
        #expect(throws: FFmpegError.self) { try cancelled.finish() }
        #expect(Self.contents(dir) == ["trip.mp4"])

        var abandoned: MediaOutput? = try MediaOutput(file: target, width: 320, height: 240, fps: 30)
        try gray.withUnsafeBufferPointer { try abandoned!.write(bgra: $0.baseAddress!, stride: 320 * 4) }
        try abandoned!.repeatLast()
        #expect(Self.contents(dir).count == 2)
        abandoned = nil
        #expect(Self.contents(dir) == ["trip.mp4"])
        #expect(try Data(contentsOf: target) == old)
    }

    @Test func createsAMissingDirectory() throws {
        let dir = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("a/b/trip.mp4")
        let output = try MediaOutput(file: target, width: 64, height: 64, fps: 30)
        let black = [UInt8](repeating: 0, count: 64 * 4 * 64)
        try black.withUnsafeBufferPointer { try output.write(bgra: $0.baseAddress!, stride: 64 * 4) }
        try output.finish()
        #expect(Self.contents(dir.appendingPathComponent("a/b")) == ["trip.mp4"])
    }

    @Test func badSettingsThrowAndLeaveNothingBehind() throws {
        let dir = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("trip.mp4")

        let codec = #expect(throws: OutputError.self) {
            try MediaOutput(file: target, width: 320, height: 240, fps: 30, codec: .vp9)
        }
        #expect(codec == .codecNotInFormat(codec: "vp9", format: "mp4", allowed: ["h264", "hevc"]))
        #expect(Self.contents(dir).isEmpty)
        let container = #expect(throws: OutputError.self) {
            try MediaOutput(file: dir.appendingPathComponent("trip.mp5"), width: 320, height: 240, fps: 30)
        }
        #expect(container?.description.contains("does not write .mp5 files") == true, "\(String(describing: container))")
        let preset = #expect(throws: OutputError.self) {
            try MediaOutput(file: target, width: 320, height: 240, fps: 30, options: EncodingOptions(preset: "ludicrous"))
        }
        #expect(preset?.description.contains("unknown --preset 'ludicrous' for h264; use one of ultrafast") == true)
        let misspelt = #expect(throws: OutputError.self) {
            try MediaOutput(file: target, width: 320, height: 240, fps: 30, options: EncodingOptions(preset: "fastest"))
        }
        #expect(misspelt?.description.contains("unknown --preset 'fastest' for h264 (did you mean 'faster'?); use one of")
                == true, "\(String(describing: misspelt))")
        #expect(Self.contents(dir).isEmpty)

        #expect(throws: OutputError.self) { try MediaOutput(file: target, width: 321, height: 240, fps: 30) }
        #expect(throws: (any Error).self) { try MediaOutput(file: target, width: 320, height: 240, fps: 0) }

        // A directory that cannot be created (its parent is a file): a clear error.
        let file = dir.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let unwritable = #expect(throws: OutputError.self) {
            try MediaOutput(file: file.appendingPathComponent("sub/trip.mp4"), width: 320, height: 240, fps: 30)
        }
        #expect(unwritable?.description.contains(file.path) == true, "\(String(describing: unwritable))")
        // A directory where files cannot be created: said of the output, not of its temporary file.
        let proc = #expect(throws: OutputError.self) {
            try MediaOutput(file: URL(fileURLWithPath: "/proc/trip.mp4"), width: 320, height: 240, fps: 30)
        }
        #expect(proc?.description == "cannot write /proc/trip.mp4: No such file or directory", "\(String(describing: proc))")
        #expect(Self.contents(dir) == ["file"])

        let output = try MediaOutput(file: target, width: 320, height: 240, fps: 30)
        #expect(throws: FFmpegError.self) { try output.repeatLast() }  // nothing written yet
        let short = [UInt8](repeating: 0, count: 16)
        #expect(throws: (any Error).self) {
            try short.withUnsafeBufferPointer { try output.write(bgra: $0.baseAddress!, stride: 4) }  // stride < width*4
        }
        output.cancel()
        #expect(Self.contents(dir) == ["file"])
    }
}
