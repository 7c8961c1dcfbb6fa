import Foundation
import Testing

/// Standard output and standard error closed under maptrip's feet (`maptrip render t.json 2>&1 | true`,
/// `maptrip validate *.json | head -1`): every subcommand, succeeding or failing, ends with its own exit
/// status, never a signal (a write to a closed pipe used to trap), and a render still writes its file.
struct ClosedStreamsTests {
    static let commands: [[String]] = [
        ["render", "scene.json", "-o", "out.mp4"],
        ["render", "scene.json", "-o", "out.xyz"],
        ["render", "missing.json"],
        ["preview", "scene.json", "--at", "1", "-o", "p.png"],
        ["plan", "scene.json"],
        ["plan", "scene.json", "--json", "--frames"],
        ["validate", "scene.json", "missing.json", "scene.json"],
        ["schema"],
        ["schema", "--markdown"],
        ["info", "before.mp4"],
        ["info", "before.mp4", "--json"],
        ["places", "search", "Busan"],
        ["concat", "before.mp4", "missing.mp4", "-o", "joined.mp4"],
        ["batch", "scenes", "-o", "clips"],
        ["tiles", "t.mbtiles", "--max-zoom", "1"],
        ["--help"],
        ["--version"],
        ["render", "--help"],
        ["no-such-command"],
    ]

    /// The files the commands read: a scene, a folder of scenes, and a video when they name one.
    static func prepare(_ dir: URL, for arguments: [String]) throws {
        try TripScene.korea.write(to: dir)
        let scenes = dir.appendingPathComponent("scenes")
        try FileManager.default.createDirectory(at: scenes, withIntermediateDirectories: true)
        try TripScene.korea.write(to: scenes)
        if arguments.contains("before.mp4") {
            #expect(try CLIProcess.run(["render", "scene.json", "-o", "before.mp4", "-q"], in: dir).status == 0)
        }
    }

    /// maptrip started with standard output and standard error both `output`.
    static func launch(_ arguments: [String], in dir: URL, output: FileHandle) throws -> Process {
        let process = Process()
        process.executableURL = try Trip.executable()
        process.arguments = arguments
        process.currentDirectoryURL = dir
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        return process
    }

    @Test(arguments: commands)
    func closedStandardStreamsNeverCrash(_ arguments: [String]) throws {
        try Trip.withDirectory("closed") { dir in
            try Self.prepare(dir, for: arguments)
            // A pipe whose reading end is closed before maptrip starts: every write fails with EPIPE.
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            close(ends[0])
            let writer = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
            let process = try Self.launch(arguments, in: dir, output: writer)
            try writer.close()
            process.waitUntilExit()
            #expect(process.terminationReason == .exit,
                    "maptrip \(arguments.joined(separator: " ")) ended by signal \(process.terminationStatus)")
            #expect([0, 1].contains(process.terminationStatus),
                    "maptrip \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
            if arguments == Self.commands[0] {
                // The render's progress went nowhere; its video did.
                #expect(process.terminationStatus == 0)
                #expect(try Trip.decode(dir.appendingPathComponent("out.mp4")).frames.count == 84)
            }
        }
    }

    /// The same commands with standard output and standard error a pipe that is already full (a
    /// reader that stopped reading): a write blocks, where a Ctrl-C flag polled between frames is
    /// never seen. Ctrl-C after a second still ends each one (by the signal's default action, or
    /// with 130 once maptrip handles signals: at the latest its grace of 5 s after the signal), and
    /// leaves no temporary file behind.
    @Test(arguments: commands)
    func fullStandardStreamsDoNotOutliveCtrlC(_ arguments: [String]) throws {
        try Trip.withDirectory("full") { dir in
            try Self.prepare(dir, for: arguments)
            // A pipe filled to the brim before maptrip starts: its first write blocks.
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            let flags = fcntl(ends[1], F_GETFL)
            _ = fcntl(ends[1], F_SETFL, flags | O_NONBLOCK)
            let block = [UInt8](repeating: 0x2E, count: 4096)
            while write(ends[1], block, block.count) > 0 {}
            _ = fcntl(ends[1], F_SETFL, flags)
            let writer = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
            let reader = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
            let process = try Self.launch(arguments, in: dir, output: writer)
            try writer.close()
            let ended = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in ended.signal() }
            // A command that finishes without writing may end before the signal: that is fine too.
            if ended.wait(timeout: .now() + 1) == .timedOut {
                kill(process.processIdentifier, SIGINT)
                if ended.wait(timeout: .now() + 60) == .timedOut {
                    Issue.record("maptrip \(arguments.joined(separator: " ")) still running 60 s after Ctrl-C")
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                }
            }
            try reader.close()
            let how = process.terminationReason == .uncaughtSignal ? "signal" : "exit"
            #expect((how == "signal" && process.terminationStatus == SIGINT) || [0, 1, 130].contains(process.terminationStatus),
                    "maptrip \(arguments.joined(separator: " ")) ended by \(how) \(process.terminationStatus)")
            #expect(Trip.temporaryFiles(dir).isEmpty && Trip.temporaryFiles(dir.appendingPathComponent("clips")).isEmpty,
                    "maptrip \(arguments.joined(separator: " ")) left \(Trip.temporaryFiles(dir))")
        }
    }
}
