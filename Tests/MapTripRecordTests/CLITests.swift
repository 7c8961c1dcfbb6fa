import FFmpeg
import Foundation
import MapTripTime
import MapTripRecord
import Testing

/// The built `maptrip` executable, run as a subprocess in a scratch folder.
@Suite("maptrip CLI")
struct CLITests {
    // MARK: render

    @Test func renderWritesTheVideoAndOneLine() throws {
        try Trip.withDirectory("cli") { dir in
            try TripScene.korea.write(to: dir)
            let result = try CLIProcess.run(["render", "scene.json", "-o", "out.mp4"], in: dir)
            #expect(result.reason == .exit && result.status == 0, "\(result)")
            // stdout is not a terminal: no progress line, only the summary.
            #expect(result.stderr.isEmpty, "\(result)")
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 2 && lines.last == "", "\(result)")
            #expect(result.stdout.hasPrefix("wrote out.mp4: 3.50 s, 84 frames (41 drawn) in "), "\(result)")
            #expect(result.stdout.hasSuffix("x real time\n"), "\(result)")
            #expect(Trip.contents(dir) == ["out.mp4", "scene.json"])

            let decoded = try Trip.decode(dir.appendingPathComponent("out.mp4"))
            #expect(decoded.info.codecName == "h264")
            #expect(decoded.info.width == 320 && decoded.info.height == 180)
            #expect(decoded.info.frameRate == Rational(24, 1))
            #expect(decoded.info.frameCount == 84)
            #expect(decoded.frames.count == 84)
        }
    }

    @Test func renderWarnsOfAZoomPastTheEmbeddedMap() throws {
        try Trip.withDirectory("cli") { dir in
            var trip = TripScene.korea
            trip.stops[1].zoom = 9.5
            try trip.write(to: dir)
            let result = try CLIProcess.run(["render", "scene.json", "-o", "out.mp4"], in: dir)
            #expect(result.reason == .exit && result.status == 0, "\(result)")
            // One warning, naming the place, where the scene asks, with what to do; the video is written.
            #expect(result.stderr.hasPrefix("maptrip: warning: scene.json:"), "\(result)")
            #expect(result.stderr.contains("places[1].zoom: Busan: zoom 9.5 is deeper than the embedded map's data (8)"), "\(result)")
            #expect(result.stderr.contains("\"tiles\""), "\(result)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
            #expect(try VideoReader(path: dir.appendingPathComponent("out.mp4").path).countFrames() == 84)
        }
    }

    @Test func quietRenderPrintsNothing() throws {
        try Trip.withDirectory("cli") { dir in
            try TripScene.korea.write(to: dir)
            let result = try CLIProcess.run(["render", "scene.json", "--quiet", "-o", "quiet.mp4"], in: dir)
            #expect(result.reason == .exit && result.status == 0, "\(result)")
            #expect(result.stdout.isEmpty && result.stderr.isEmpty, "\(result)")
            #expect(try VideoReader(path: dir.appendingPathComponent("quiet.mp4").path).countFrames() == 84)
        }
    }

    @Test func defaultOutputIsTheScenePathWithMP4() throws {
        try Trip.withDirectory("cli") { dir in
            let trips = dir.appendingPathComponent("trips")
            try FileManager.default.createDirectory(at: trips, withIntermediateDirectories: true)
            var trip = TripScene.korea
            trip.stops.removeLast()  // 2.5 s
            try trip.write(to: trips, name: "trip.json")
            let result = try CLIProcess.run(["render", "trips/trip.json"], in: dir)
            #expect(result.reason == .exit && result.status == 0, "\(result)")
            #expect(result.stdout.hasPrefix("wrote trips/trip.mp4: 2.50 s, 60 frames"), "\(result)")
            #expect(Trip.contents(dir) == ["trips"])
            #expect(Trip.contents(trips) == ["trip.json", "trip.mp4"])
            #expect(try VideoReader(path: trips.appendingPathComponent("trip.mp4").path).countFrames() == 60)
        }
    }

    @Test func badPresetIsAUsageError() throws {
        try Trip.withDirectory("cli") { dir in
            try TripScene.korea.write(to: dir)
            // A preset of another codec: known once the output's codec is.
            let result = try CLIProcess.run(["render", "scene.json", "--preset", "placebo", "-o", "a.webm"], in: dir)
            #expect(result.reason == .exit && result.status == 1, "\(result)")
            #expect(result.stderr == "maptrip: error: unknown --preset 'placebo' for vp9; use one of 0, 1, 2, 3, 4, 5, "
                    + "6, 7, 8\n", "\(result)")
            #expect(Trip.contents(dir) == ["scene.json"])
        }
    }

    /// The closed sets of values are the parser's: listed in the help, any other value turned away on
    /// one line before anything runs, with the values the option takes.
    @Test func typedOptionsListTheirValues() throws {
        try Trip.withDirectory("cli") { dir in
            let help = try CLIProcess.run(["render", "--help"], in: dir)
            #expect(help.status == 0, "\(help)")
            for value in ["mpegts", "prores", "ultrafast", "yuv422p10le", "--poster-file <file>"] {
                #expect(help.stdout.contains(value), "no \(value) in: \(help.stdout)")
            }
            for arguments in [["render", "s.json", "--codec", "divx"], ["render", "s.json", "--pix-fmt", "nv12"],
                              ["batch", "s.json", "-o", "out", "--format", "mkv"], ["tiles", "t", "--tile-size", "300"]] {
                let result = try CLIProcess.run(arguments, in: dir)
                #expect(result.reason == .exit && result.status == 1, "\(result)")
                #expect(result.stderr.hasPrefix("maptrip: error: The value '\(arguments.last!)' is invalid for "), "\(result)")
                #expect(result.stderr.hasSuffix(" (see 'maptrip \(arguments[0]) --help')\n"), "\(result)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
            }
            // Other names of the listed values pass the parser (the missing scene is the error).
            let ts = try CLIProcess.run(["render", "missing.json", "--format", "ts", "--codec", "X264", "-o", "a.ts"], in: dir)
            #expect(ts.status == 1 && ts.stderr.hasPrefix("maptrip: error: missing.json") && !ts.stderr.contains("(see"),
                    "\(ts)")
            #expect(Trip.contents(dir).isEmpty)
        }
    }

    // MARK: Bad scenes

    /// A broken scene file: `text` with `@` where the error must point (removed before writing).
    struct BadScene: CustomTestStringConvertible, Sendable {
        var name: String
        var text: String
        var path: String
        var message: String

        var testDescription: String { name }

        /// The file's text and the 1-based line and column of the `@`.
        var file: (text: String, line: Int, column: Int) {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let line = lines.firstIndex { $0.contains("@") }!
            let column = lines[line].distance(from: lines[line].startIndex, to: lines[line].firstIndex(of: "@")!)
            return (text.replacingOccurrences(of: "@", with: ""), line + 1, column + 1)
        }

        /// A scene with one place, edited.
        static func scene(video: String = #""width": 320, "height": 180, "fps": 24"#,
                          place: String = #""name": "Seoul", "lat": 37.5665, "lon": 126.978, "dwell": 1"#) -> String {
            """
            {
              "video": {\(video)},
              "places": [
                {\(place)}
              ]
            }

            """
        }

        static let all: [BadScene] = [
            BadScene(name: "latitude 95", text: scene(place: #""name": "Seoul", "lat": @95, "lon": 126.978"#),
                     path: "places[0].lat", message: "latitude 95 is outside [-90, 90]"),
            BadScene(name: "missing lon", text: scene(place: #""name": "Seoul", "lat": 37.5"#)
                        .replacingOccurrences(of: "    {", with: "    @{"),
                     path: "places[0]", message: "lat is given without lon (give both, or neither to look 'Seoul' up)"),
            BadScene(name: "misspelt key", text: scene(place: #""lat": 37.5, "lon": 127, @"dwel": 2"#),
                     path: "places[0].dwel", message: "unknown key 'dwel' (did you mean 'dwell'?)"),
            BadScene(name: "no places", text: "{\n  \"places\": @[]\n}\n",
                     path: "places", message: "places must list at least one place"),
            BadScene(name: "dwell 0", text: scene(place: #""lat": 37.5, "lon": 127, "dwell": @0"#),
                     path: "places[0].dwell", message: "dwell must be greater than 0 seconds, found 0"),
            BadScene(name: "fps 0", text: scene(video: #""fps": @0"#),
                     path: "video.fps", message: "fps 0 is outside [1, 240]"),
            BadScene(name: "odd width", text: scene(video: #""width": @1921, "height": 1080"#),
                     path: "video.width", message: "width 1921 is odd"),
            BadScene(name: "missing comma", text: scene(place: #""name": "Seoul" @"lat": 37.5, "lon": 127"#),
                     path: "places[0]", message: "expected ',' or '}' after object member"),
        ]
    }

    @Test(arguments: BadScene.all, [false, true])
    func badSceneFailsWithOneLineAndWritesNothing(_ bad: BadScene, existingOutput: Bool) throws {
        try Trip.withDirectory("cli") { dir in
            let (text, line, column) = bad.file
            try Data(text.utf8).write(to: dir.appendingPathComponent("bad.json"))
            let output = dir.appendingPathComponent("bad.mp4")
            if existingOutput { try Trip.previousOutput.write(to: output) }

            let result = try CLIProcess.run(["render", "bad.json"], in: dir)
            #expect(result.reason == .exit && result.status == 1, "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
            #expect(result.stderrLines.count == 1 && result.stderr.hasSuffix("\n"), "\(result)")
            let prefix = "maptrip: error: bad.json:\(line):\(column): \(bad.path): \(bad.message)"
            #expect(result.stderr.hasPrefix(prefix), "\(result)\nexpected: \(prefix)")
            if existingOutput {
                #expect(Trip.contents(dir) == ["bad.json", "bad.mp4"])
                #expect(try Data(contentsOf: output) == Trip.previousOutput)
            } else {
                #expect(Trip.contents(dir) == ["bad.json"])
            }

            // plan reports the same problem the same way.
            let plan = try CLIProcess.run(["plan", "bad.json", "--json"], in: dir)
            #expect(plan.reason == .exit && plan.status == 1, "\(plan)")
            #expect(plan.stdout.isEmpty && plan.stderr == result.stderr, "\(plan)")
        }
    }

    // MARK: plan

    static func object(_ text: String) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(value as? [String: Any], "not a JSON object: \(text.prefix(200))")
    }

    static func number(_ any: Any?) -> Double? { (any as? NSNumber)?.doubleValue }

    @Test func planJSONDescribesTheSlots() throws {
        try Trip.withDirectory("cli") { dir in
            try TripScene.korea.write(to: dir)
            let result = try CLIProcess.run(["plan", "scene.json", "--json"], in: dir)
            #expect(result.reason == .exit && result.status == 0 && result.stderr.isEmpty, "\(result)")
            #expect(result.stdout.hasSuffix("}\n") && result.stdout.split(separator: "\n").count == 1)
            let plan = try Self.object(result.stdout)
            #expect(Self.number(plan["fps"]) == 24)
            #expect(Self.number(plan["frames"]) == 84)
            #expect(Self.number(plan["duration"]) == 3.5)
            #expect(plan["cameras"] == nil)
            let slots = try #require(plan["slots"] as? [[String: Any]])
            #expect(slots.count == 3)
            let expected: [(String, Double, Double, Double, Double, Double, Double)] = [
                ("Seoul", 37.5665, 126.978, 7, 0, 0, 1),
                ("Busan", 35.1796, 129.0756, 7, 1, 1.5, 2.5),
                ("Jeju", 33.4996, 126.5312, 7, 2.5, 3, 3.5),
            ]
            for (slot, e) in zip(slots, expected) {
                #expect(slot["name"] as? String == e.0)
                #expect(Self.number(slot["lat"]) == e.1 && Self.number(slot["lon"]) == e.2, "\(slot)")
                #expect(Self.number(slot["zoom"]) == e.3, "\(slot)")
                #expect(Self.number(slot["start"]) == e.4 && Self.number(slot["arrive"]) == e.5
                        && Self.number(slot["end"]) == e.6, "\(slot)")
            }
        }
    }

    @Test func planJSONWithFramesListsEveryCamera() throws {
        try Trip.withDirectory("cli") { dir in
            try TripScene.korea.write(to: dir)
            let result = try CLIProcess.run(["plan", "scene.json", "--json", "--frames"], in: dir)
            #expect(result.reason == .exit && result.status == 0 && result.stderr.isEmpty, "\(result)")
            let plan = try Self.object(result.stdout)
            #expect(Self.number(plan["frames"]) == 84)
            let cameras = try #require(plan["cameras"] as? [[String: Any]])
            #expect(cameras.count == 84)
            let timeline = Timeline(scene: try TripScene.korea.scene())
            for n in [0, 23, 24, 30, 35, 36, 83] {
                let c = timeline.camera(at: n)
                let camera = cameras[n]
                #expect(abs((Self.number(camera["t"]) ?? -1) - Double(n) / 24) < 1e-9, "\(camera)")
                #expect(abs((Self.number(camera["lon"]) ?? 999) - c.center.lon) <= 1e-6, "frame \(n): \(camera)")
                #expect(abs((Self.number(camera["lat"]) ?? 999) - c.center.lat) <= 1e-6, "frame \(n): \(camera)")
                #expect(abs((Self.number(camera["zoom"]) ?? 999) - c.zoom) <= 1e-6, "frame \(n): \(camera)")
            }
            // The last frame rests on Jeju (126.5312, 33.4996), within a pixel (the camera on the pixel grid).
            let lat = Self.number(cameras[83]["lat"]) ?? 999, lon = Self.number(cameras[83]["lon"]) ?? 999
            let degreesPerPixel = 360 / (256 * pow(2, Self.number(cameras[83]["zoom"]) ?? 0))
            #expect(abs(lat - 33.4996) <= degreesPerPixel && abs(lon - 126.5312) <= degreesPerPixel, "\(cameras[83])")
        }
    }

    @Test func planTableNamesEveryPlace() throws {
        try Trip.withDirectory("cli") { dir in
            try TripScene.korea.write(to: dir)
            let result = try CLIProcess.run(["plan", "scene.json"], in: dir)
            #expect(result.reason == .exit && result.status == 0 && result.stderr.isEmpty, "\(result)")
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.first == "24 fps, 84 frames, EPSG:3857, 3.500 s (0:03.5)", "\(result)")
            for name in ["Seoul", "Busan", "Jeju"] {
                #expect(lines.contains { $0.contains(name) }, "no row for \(name): \(result)")
            }
            #expect(lines.contains { $0.contains("Busan") && $0.contains("1.500") && $0.contains("2.500") })
        }
    }

    // MARK: Signals

    /// 1080p and 20 s: long enough, in a debug build, to be interrupted in the middle.
    static let longTrip = TripScene(width: 1920, height: 1080, fps: 30, flight: 1.5, stops: (0..<10).map { i in
        let p = [(37.5665, 126.978), (35.1796, 129.0756), (33.4996, 126.5312)][i % 3]
        return TripScene.Stop(name: "Stop \(i + 1)", lat: p.0, lon: p.1, dwell: 2)
    })

    @Test(arguments: [(SIGTERM, "SIGTERM"), (SIGINT, "Ctrl-C")])
    func signalStopsTheRenderCleanly(signal: Int32, name: String) throws {
        try Trip.withDirectory("cli") { dir in
            try Self.longTrip.write(to: dir, name: "long.json")
            let output = dir.appendingPathComponent("long.mp4")
            try Trip.previousOutput.write(to: output)

            let process = try CLIProcess(["render", "long.json"], in: dir)
            try process.start()
            // Once the temporary file exists the signal handlers are in place and frames are flowing.
            let deadline = Date().addingTimeInterval(60)
            while process.process.isRunning, Trip.temporaryFiles(dir).isEmpty, Date() < deadline { usleep(10_000) }
            #expect(Trip.temporaryFiles(dir).count == 1, "no temporary file appeared: \(Trip.contents(dir))")
            usleep(300_000)
            #expect(process.process.isRunning, "the render ended before it could be interrupted")
            process.signal(signal)
            let result = try process.wait(timeout: 60)

            #expect(result.reason == .exit, "\(result)")
            #expect(result.status == 128 + signal, "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
            #expect(result.stderr == "maptrip: interrupted by \(name)\n", "\(result)")
            #expect(Trip.temporaryFiles(dir).isEmpty, "\(Trip.contents(dir))")
            #expect(Trip.contents(dir) == ["long.json", "long.mp4"])
            #expect(try Data(contentsOf: output) == Trip.previousOutput)
        }
    }

    // MARK: On a terminal

    @Test func progressShowsOnATerminalAndEndsItsLine() throws {
        try Trip.withDirectory("cli") { dir in
            try TripScene.korea.write(to: dir)
            let tty = try PseudoTerminal()
            let process = try CLIProcess(["render", "scene.json"], in: dir, stderr: tty.terminal)
            defer { tty.closeTerminal() }
            try process.start()
            tty.closeTerminal()
            let result = try process.wait()
            let screen = tty.output()
            #expect(result.reason == .exit && result.status == 0, "\(result)")
            #expect(result.stdout.hasPrefix("wrote scene.mp4: 3.50 s, 84 frames"), "\(result)")
            // Redrawn in place (carriage returns), the last state at 100%, then the line is ended
            // (the terminal turns "\n" into "\r\n").
            #expect(screen.hasPrefix("\rscene.json  frame 1/84 "), "\(screen.debugDescription)")
            #expect(screen.hasSuffix("\r\n"), "\(screen.debugDescription)")
            let last = screen.components(separatedBy: CharacterSet(charactersIn: "\r\n")).last { !$0.isEmpty } ?? ""
            let trimmed = last.replacingOccurrences(of: " +$", with: "", options: .regularExpression)
            #expect(trimmed.hasPrefix("scene.json  frame 84/84  100.0%  ") && trimmed.hasSuffix(" fps"),
                    "\(screen.debugDescription)")
        }
    }

    @Test func interruptionMessageStartsOnItsOwnLineOnATerminal() throws {
        try Trip.withDirectory("cli") { dir in
            try Self.longTrip.write(to: dir, name: "long.json")
            let tty = try PseudoTerminal()
            let process = try CLIProcess(["render", "long.json"], in: dir, stderr: tty.terminal)
            defer { tty.closeTerminal() }
            try process.start()
            tty.closeTerminal()
            // Wait until a progress line is on the screen (its first draw comes with the first frame,
            // which on a loaded machine can take a while after the temporary file appears).
            let deadline = Date().addingTimeInterval(90)
            while process.process.isRunning, !tty.outputSoFar().contains(" frame "), Date() < deadline {
                usleep(10_000)
            }
            #expect(process.process.isRunning, "the render ended before it could be interrupted")
            process.signal(SIGTERM)
            let result = try process.wait(timeout: 60)
            let screen = tty.output()
            #expect(result.reason == .exit && result.status == 128 + SIGTERM, "\(result)")
            #expect(screen.hasPrefix("\rlong.json  frame "), "\(screen.debugDescription)")
            // The message is not glued to the end of the progress line.
            #expect(screen.hasSuffix("\r\nmaptrip: interrupted by SIGTERM\r\n"), "\(screen.debugDescription)")
            #expect(Trip.temporaryFiles(dir).isEmpty, "\(Trip.contents(dir))")
        }
    }

    // MARK: Help and version

    @Test func versionPrintsTheVersion() throws {
        try Trip.withDirectory("cli") { dir in
            let result = try CLIProcess.run(["--version"], in: dir)
            #expect(result.reason == .exit && result.status == 0, "\(result)")
            #expect(result.stdout == maptripVersion + "\n", "\(result)")
            #expect(!maptripVersion.isEmpty && maptripVersion.first!.isNumber)
        }
    }

    @Test func renderHelpListsTheEncoderOptions() throws {
        try Trip.withDirectory("cli") { dir in
            let result = try CLIProcess.run(["render", "--help"], in: dir)
            #expect(result.reason == .exit && result.status == 0, "\(result)")
            for option in ["--preset", "--crf", "--output", "--quiet"] {
                #expect(result.stdout.contains(option), "no \(option) in: \(result.stdout)")
            }
        }
    }
}
