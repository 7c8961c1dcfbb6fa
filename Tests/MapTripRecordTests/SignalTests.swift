import FFmpeg
import Foundation
import Testing
import TestSupport
import TileServerFixture

/// Signals at random moments (#10): SIGINT, SIGTERM, SIGHUP and SIGKILL sent to `maptrip render` at
/// random times, from start-up through tile fetching and drawing to finishing. Whatever the moment:
/// the output is either exactly what it was before or a whole new video (when the render had already
/// finished), never anything partial; a catchable signal leaves no temporary file; and the next run
/// removes what a SIGKILL left.
@Suite(.enabled(if: HTTPTestServer.pythonAvailable)) struct SignalTests {
    static let kills = 56
    static let signals: [(Int32, String)] = [(SIGINT, "Ctrl-C"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGKILL, "SIGKILL")]

    struct Trial {
        var name: String
        var arguments: [String]
        /// Seconds from start until the temporary output appears, and until the render ends.
        var opens = 0.0
        var seconds = 0.0
        var frames = 0
    }

    @Test func randomSignalsNeverDamageTheOutput() throws {
        try HTTPTestServer.with { server in
            try Trip.withDirectory("signals") { dir in
                // One scene on the embedded map, one on tiles served slowly enough that kills land
                // while they are fetched (each run starts with an empty tile cache).
                try TripScene.korea.write(to: dir, name: "map.json")
                var tiled = TripScene.korea
                tiled.stops = tiled.stops.map { var s = $0; s.zoom = 6; return s }
                let template = "http://127.0.0.1:\(server.port)/ok/{z}/{x}/{y}.png?delay=0.05"
                let json = tiled.json.replacingOccurrences(
                    of: "\"places\"", with: "\"map\": {\"tiles\": \(Trip.quoted(template)), \"attribution\": \"Test\"},\n  \"places\"")
                try Data(json.utf8).write(to: dir.appendingPathComponent("tiles.json"))
                let output = dir.appendingPathComponent("out.mp4")
                var trials = [
                    Trial(name: "map", arguments: ["render", "map.json", "-o", "out.mp4", "-q"]),
                    Trial(name: "tiles", arguments: ["render", "tiles.json", "-o", "out.mp4", "-q", "--cache-dir", "cache"]),
                ]
                // Each twice without a signal: when its output opens, how long it takes, how many
                // frames (the faster run's times: a first run may be slowed by cold caches).
                for i in trials.indices {
                    trials[i].seconds = .infinity
                    for _ in 0..<2 {
                        try? FileManager.default.removeItem(at: dir.appendingPathComponent("cache"))
                        let start = Date()
                        let process = try CLIProcess(trials[i].arguments, in: dir)
                        try process.start()
                        while process.process.isRunning, Trip.temporaryFiles(dir).isEmpty { usleep(2_000) }
                        let opens = Date().timeIntervalSince(start)
                        let result = try process.wait()
                        let seconds = Date().timeIntervalSince(start)
                        #expect(result.status == 0, "\(result)")
                        if seconds < trials[i].seconds { (trials[i].opens, trials[i].seconds) = (opens, seconds) }
                    }
                    trials[i].frames = try VideoReader(path: output.path).countFrames()
                }
                try Trip.previousOutput.write(to: output)

                var landed = (beforeOutput: 0, whileWriting: 0, afterFinish: 0)
                var order = (0..<Self.kills).map { Self.signals[$0 % Self.signals.count] }
                // Seeded: a failing order and set of moments comes back on the next run.
                var rng = SplitMix64(seed: 0x5161_0A15)
                order.shuffle(using: &rng)
                for (k, (signal, name)) in order.enumerated() {
                    let trial = trials[k % trials.count]
                    let context = "kill \(k + 1) (\(name), \(trial.name))"
                    try? FileManager.default.removeItem(at: dir.appendingPathComponent("cache"))
                    let before = try Data(contentsOf: output)
                    // Half the kills at any moment of the run (start-up, tile fetching, drawing,
                    // finishing, or just after), half while frames are being written: once this run's
                    // temporary output is there, within the first 80% of the time writing took.
                    let anyMoment = k % 4 < 2
                    let delay = anyMoment ? Double.random(in: 0...(trial.seconds * 1.05), using: &rng)
                        : Double.random(in: 0...(max(0, trial.seconds - trial.opens) * 0.8), using: &rng)
                    let process = try CLIProcess(trial.arguments, in: dir)
                    try process.start()
                    let pid = process.process.processIdentifier
                    if !anyMoment {
                        let deadline = Date().addingTimeInterval(60)
                        while process.process.isRunning, Date() < deadline,
                              !Trip.temporaryFiles(dir).contains(where: { $0.contains(".maptrip-\(pid)-") }) { usleep(1_000) }
                    }
                    usleep(useconds_t(delay * 1_000_000))
                    let writing = Trip.temporaryFiles(dir).contains { $0.contains(".maptrip-\(pid)-") }
                    process.signal(signal)
                    let result = try process.wait(timeout: 120)

                    let now = try Data(contentsOf: output)
                    if result.reason == .exit && result.status == 0 || now != before {
                        // Finished before the signal came (or came as it exited, the video already in
                        // place): the output is the new video, whole.
                        landed.afterFinish += 1
                        #expect(try VideoReader(path: output.path).countFrames() == trial.frames, "\(context)")
                        continue
                    }
                    if writing { landed.whileWriting += 1 } else { landed.beforeOutput += 1 }
                    if signal == SIGKILL || result.reason == .uncaughtSignal {
                        // Killed outright (or before the handlers were in place, at start-up).
                        #expect(result.reason == .uncaughtSignal && result.status == signal, "\(context): \(result)")
                    } else {
                        #expect(result.status == 128 + signal, "\(context): \(result)")
                        #expect(result.stderr == "maptrip: interrupted by \(name)\n", "\(context): \(result)")
                    }
                    if signal != SIGKILL {
                        #expect(!Trip.temporaryFiles(dir).contains { $0.contains(".maptrip-\(pid)-") },
                                "\(context): left \(Trip.temporaryFiles(dir))")
                    }
                }
                print("signals: \(Self.kills) kills: \(landed.beforeOutput) before the output opened, "
                      + "\(landed.whileWriting) while it was written, \(landed.afterFinish) after the render finished")
                #expect(landed.whileWriting >= 5, "too few kills landed mid-render to prove anything: \(landed)")

                // A run to the end removes what the SIGKILLs left, and leaves only its own output.
                let last = try CLIProcess.run(trials[0].arguments, in: dir)
                #expect(last.status == 0, "\(last)")
                #expect(Trip.temporaryFiles(dir).isEmpty, "\(Trip.contents(dir))")
                #expect(try VideoReader(path: output.path).countFrames() == trials[0].frames)
            }
        }
    }
}
