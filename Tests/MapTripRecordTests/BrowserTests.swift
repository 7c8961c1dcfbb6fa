import Foundation
import Testing

/// A real browser plays what maptrip writes: the default MP4 (H.264) and the WebM (VP9), loaded in
/// headless Chromium, report their duration and size through the `video` element.
///
/// Chromium is a test-only dependency: `.ci/test` installs it. Without it this test fails, unless
/// MAPTRIP_SKIP_BROWSER=1 is set.
@Suite struct BrowserTests {
    static let skipBrowser = ProcessInfo.processInfo.environment["MAPTRIP_SKIP_BROWSER"] == "1"

    @Test(.enabled(if: !skipBrowser, "MAPTRIP_SKIP_BROWSER=1 is set"))
    func chromiumPlaysTheMP4AndTheWebM() throws {
        guard let chromium = Chromium.find() else {
            throw Chromium.Failure(description: """
                chromium is not installed (looked for \(Chromium.names.joined(separator: ", ")) on PATH): \
                run `bash .ci/test`, which installs it, or set MAPTRIP_SKIP_BROWSER=1 to skip this test
                """)
        }
        try Trip.withDirectory("browser") { dir in
            let scene = TripScene.korea
            try scene.write(to: dir)
            // Both renders at once: they are independent.
            let renders = try ["out.mp4", "out.webm"].map { name in
                let process = try CLIProcess(["render", "scene.json", "-o", name, "--quiet"], in: dir)
                try process.start()
                return (name, process)
            }
            for (name, process) in renders {
                let result = try process.wait()
                try #require(result.reason == .exit && result.status == 0, "render \(name): \(result)")
            }
            try Data(Chromium.page(videos: ["out.mp4", "out.webm"]).utf8)
                .write(to: dir.appendingPathComponent("page.html"))

            let report = try Chromium.load(dir.appendingPathComponent("page.html"), with: chromium, in: dir)
            let duration = Double(scene.stops.reduce(0) { $0 + $1.dwell })
            for name in ["out.mp4", "out.webm"] {
                let video = try #require(report.videos[name], "no report for \(name): \(report)")
                if let code = video.error {
                    Issue.record("chromium cannot play \(name): MediaError \(Chromium.mediaError(code)) (\(video))")
                    continue
                }
                #expect(video.readyState >= 2, "chromium has no decoded frame of \(name): \(video)")
                #expect(video.duration.map { abs($0 - duration) <= 1 / Double(scene.fps) } == true,
                        "\(name) lasts \(video.duration.map { "\($0)" } ?? "NaN") s in chromium, not \(duration) s: \(video)")
                #expect(video.videoWidth == scene.width && video.videoHeight == scene.height,
                        "\(name) is \(video.videoWidth)x\(video.videoHeight) in chromium, not \(scene.width)x\(scene.height)")
            }
        }
    }
}

/// Headless Chromium, driven through `--dump-dom`: the page writes what its `video` elements report
/// into the DOM in its `load` handler, and Chromium prints the DOM once the page has loaded. A media
/// element delays the document's load event until it has its first frame or has failed (HTML's
/// "delaying-the-load-event flag"), so by then every video has its final state; should the load
/// event come early anyway (Chromium stops waiting for a resource that stalls for 3 s, which a very
/// loaded machine could cause), the page says so and Chromium is run again.
enum Chromium {
    static let names = ["chromium", "chromium-browser"]

    /// The first of `names` found on PATH.
    static func find() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for name in names {
            for dir in path.split(separator: ":") where !dir.isEmpty {
                let url = URL(fileURLWithPath: String(dir)).appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                   FileManager.default.isExecutableFile(atPath: url.path) {
                    return url
                }
            }
        }
        return nil
    }

    /// `MediaError.code` by its name.
    static func mediaError(_ code: Int) -> String {
        let names = [1: "MEDIA_ERR_ABORTED", 2: "MEDIA_ERR_NETWORK", 3: "MEDIA_ERR_DECODE", 4: "MEDIA_ERR_SRC_NOT_SUPPORTED"]
        return "\(code)" + (names[code].map { " (\($0))" } ?? "")
    }

    /// What one `video` element reported.
    struct Video: Decodable, CustomStringConvertible {
        /// Seconds; nil when NaN (no metadata).
        var duration: Double?
        var videoWidth: Int
        var videoHeight: Int
        var readyState: Int
        var networkState: Int
        /// `MediaError.code` (3 decode, 4 source not supported), nil when there is no error.
        var error: Int?
        var errorMessage: String?
        /// `canPlayType` of the file's MIME type and codec.
        var canPlay: String

        /// Either it has its metadata or it has failed: nothing more to wait for.
        var settled: Bool { error != nil || readyState >= 1 }

        var description: String {
            "duration \(duration.map { "\($0)" } ?? "NaN"), \(videoWidth)x\(videoHeight), readyState \(readyState), "
                + "networkState \(networkState), error \(error.map { "\($0)" } ?? "none")"
                + (errorMessage.map { $0.isEmpty ? "" : " \($0.debugDescription)" } ?? "") + ", canPlayType \(canPlay.debugDescription)"
        }
    }

    struct Report: CustomStringConvertible {
        var videos: [String: Video]
        var description: String {
            videos.keys.sorted().map { "\($0): \(videos[$0]!)" }.joined(separator: "; ")
        }
    }

    /// An HTML page with a `video` element for each file (relative to the page), which writes their
    /// state as `MAPTRIP-RESULT <percent-encoded JSON> MAPTRIP-END` when the page has loaded.
    static func page(videos: [String]) -> String {
        let elements = videos.enumerated().map { i, name in
            "<video id=\"v\(i)\" src=\"\(name)\" preload=\"auto\" muted></video>"
        }.joined(separator: "\n")
        let types = videos.map { name in
            name.hasSuffix(".webm") ? "video/webm; codecs=\"vp9\"" : "video/mp4; codecs=\"avc1.640014\""
        }
        let list = try! String(decoding: JSONSerialization.data(withJSONObject: videos), as: UTF8.self)
        let typeList = try! String(decoding: JSONSerialization.data(withJSONObject: types), as: UTF8.self)
        return """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>maptrip in a browser</title></head>
            <body>
            \(elements)
            <pre id="result">MAPTRIP-PENDING</pre>
            <script>
            const names = \(list), types = \(typeList);
            window.addEventListener("load", () => {
              const report = {};
              names.forEach((name, i) => {
                const v = document.getElementById("v" + i);
                report[name] = {
                  duration: Number.isFinite(v.duration) ? v.duration : null,
                  videoWidth: v.videoWidth, videoHeight: v.videoHeight,
                  readyState: v.readyState, networkState: v.networkState,
                  error: v.error ? v.error.code : null, errorMessage: v.error ? v.error.message : null,
                  canPlay: v.canPlayType(types[i]),
                };
              });
              document.getElementById("result").textContent =
                "MAPTRIP-RESULT " + encodeURIComponent(JSON.stringify(report)) + " MAPTRIP-END";
            });
            </script>
            </body></html>

            """
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Loads `page` in headless Chromium and returns what its videos reported. Each run of Chromium
    /// is killed after `timeout` seconds; a run whose page loaded before every video settled is
    /// repeated, up to `attempts` runs.
    static func load(_ page: URL, with chromium: URL, in directory: URL, timeout: Double = 60,
                     attempts: Int = 3) throws -> Report {
        var last: Report?
        for attempt in 1...attempts {
            let run = try Run(chromium, page: page, in: directory.appendingPathComponent("chromium-\(attempt)"))
            let output = try run.finish(timeout: timeout)
            guard let report = try parse(output.stdout) else {
                throw Failure(description: "chromium printed no result for \(page.lastPathComponent) "
                              + "(attempt \(attempt)): \(output)")
            }
            if report.videos.values.allSatisfy(\.settled) { return report }
            last = report
        }
        throw Failure(description: "the page loaded before its videos had their metadata, \(attempts) times: \(last!)")
    }

    /// The report in a dumped DOM; nil when the page never wrote one.
    static func parse(_ dom: String) throws -> Report? {
        guard let start = dom.range(of: "MAPTRIP-RESULT "),
              let end = dom.range(of: " MAPTRIP-END", range: start.upperBound..<dom.endIndex)
        else { return nil }
        let encoded = String(dom[start.upperBound..<end.lowerBound])
        guard let json = encoded.removingPercentEncoding else {
            throw Failure(description: "cannot percent-decode the page's result \(encoded.debugDescription)")
        }
        do {
            return Report(videos: try JSONDecoder().decode([String: Video].self, from: Data(json.utf8)))
        } catch {
            throw Failure(description: "cannot decode the page's result \(json.debugDescription): \(error)")
        }
    }

    /// What a run of Chromium printed.
    struct Output: CustomStringConvertible {
        var status: Int32
        var reason: Process.TerminationReason
        var seconds: Double
        var stdout: String
        var stderr: String

        var description: String {
            // Headless Chromium without a session bus logs D-Bus errors; they say nothing here.
            let noise = ["dbus/", "D-Bus", "DBus"]
            let lines = stderr.split(separator: "\n").filter { line in !noise.contains { line.contains($0) } }
            return "chromium exited \(status) (\(reason == .exit ? "exit" : "signal")) after "
                + String(format: "%.1f", seconds) + " s; stdout: \(String(stdout.suffix(2000)).debugDescription); "
                + "stderr: \(lines.suffix(20).joined(separator: "\n").debugDescription)"
        }
    }

    /// One Chromium process, in a folder of its own (its profile, HOME, and its output files).
    final class Run {
        let process = Process()
        let started = Date()
        private let outURL: URL
        private let errURL: URL

        init(_ chromium: URL, page: URL, in folder: URL) throws {
            let home = folder.appendingPathComponent("home")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            outURL = folder.appendingPathComponent("stdout")
            errURL = folder.appendingPathComponent("stderr")
            _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
            process.executableURL = chromium
            process.arguments = [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--mute-audio", "--user-data-dir=" + folder.appendingPathComponent("profile").path,
                // Chromium's own limit, below the kill: it then prints whatever the page holds.
                "--timeout=45000",
                "--dump-dom", page.absoluteString,
            ]
            var environment = ProcessInfo.processInfo.environment
            environment["HOME"] = home.path
            environment["XDG_CONFIG_HOME"] = home.appendingPathComponent(".config").path
            environment["XDG_CACHE_HOME"] = home.appendingPathComponent(".cache").path
            process.environment = environment
            process.currentDirectoryURL = folder
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(forWritingTo: outURL)
            process.standardError = try FileHandle(forWritingTo: errURL)
            try process.run()
        }

        deinit {
            if process.isRunning {
                kill(-process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }

        /// Waits for Chromium to end; after `timeout` seconds kills it, with every process it started
        /// (Process makes the child the leader of a new process group), and throws.
        func finish(timeout: Double) throws -> Output {
            let deadline = started.addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            let timedOut = process.isRunning
            if timedOut { kill(-process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let output = Output(status: process.terminationStatus, reason: process.terminationReason,
                                seconds: Date().timeIntervalSince(started),
                                stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
                                stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
            if timedOut {
                throw Failure(description: "chromium did not finish within \(Int(timeout)) s; killed. \(output)")
            }
            return output
        }
    }
}
