import FFmpeg
import Foundation
import Testing

/// `maptrip batch`: discovery, sub-folders, a bad scene among good ones, resume (after SIGKILL too),
/// `--force`, manifest.json and the gallery page in a real browser.
@Suite struct BatchTests {
    /// The Korea trip (320x180, 3.5 s) under another title.
    static func scene(_ title: String, dwell: Double = 1) -> TripScene {
        var s = TripScene.korea
        s.title = title
        s.stops[0].dwell = dwell
        return s
    }

    static func write(_ scene: TripScene, _ path: String, in dir: URL) throws {
        let url = dir.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(scene.json.utf8).write(to: url)
    }

    struct Event: Decodable {
        var event: String
        var index: Int?
        var total: Int?
        var scene: String?
        var output: String?
        var poster: String?
        var duration: Double?
        var frames: Int?
        var error: String?
        var rendered: Int?
        var skipped: Int?
        var failed: Int?
    }

    static func events(_ result: CLIResult) throws -> [Event] {
        try result.stdout.split(separator: "\n").map { try JSONDecoder().decode(Event.self, from: Data($0.utf8)) }
    }

    struct Manifest: Decodable {
        struct Entry: Decodable {
            var scene: String
            var output: String
            var poster: String?
            var title: String?
            var duration: Double?
            var frames: Int?
            var size: Int?
            var status: String
            var error: String?
        }
        var scenes: [Entry]
    }

    static func manifest(_ folder: URL) throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: folder.appendingPathComponent("manifest.json")))
    }

    /// Inode and modification time: the same file, untouched.
    static func identity(_ url: URL) throws -> String {
        let a = try FileManager.default.attributesOfItem(atPath: url.path)
        let mtime = (a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return "\(a[.systemFileNumber] ?? "?")@\(mtime)"
    }

    /// Every file name under a folder (relative), recursively, sorted.
    static func tree(_ dir: URL) -> [String] {
        (FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String } ?? []).sorted()
    }

    static func temporaryFiles(_ dir: URL) -> [String] {
        tree(dir).filter { ($0 as NSString).lastPathComponent.hasPrefix(".") && $0.contains(".maptrip-") }
    }

    /// The hash clips record: libavutil's SHA-256, checked against FIPS 180-2's vectors.
    @Test func sha256() throws {
        #expect(try SHA256.hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(try SHA256.hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let h = try SHA256()
        h.update("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
        #expect(h.finalHex() == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        let million = try SHA256()
        for _ in 0..<1000 { million.update(Data(repeating: UInt8(ascii: "a"), count: 1000)) }
        #expect(million.finalHex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func folderRecursiveWithABadScene() throws {
        try Trip.withDirectory("batch-folder") { dir in
            try Self.write(Self.scene("Alpha"), "scenes/a.json", in: dir)
            try Self.write(Self.scene("Beta", dwell: 1.5), "scenes/trips/b.json", in: dir)
            try Data("{\"places\": [\n".utf8).write(to: dir.appendingPathComponent("scenes/trips/bad.json"))
            try Data("not json".utf8).write(to: dir.appendingPathComponent("scenes/notes.txt"))
            // Left out: other files, hidden files, a batch manifest.
            try Data("{}".utf8).write(to: dir.appendingPathComponent("scenes/.hidden.json"))
            try Data(#"{"scenes": ["a.json"]}"#.utf8).write(to: dir.appendingPathComponent("scenes/batch.json"))

            let result = try CLIProcess.run(["batch", "scenes", "-o", "clips", "--json"], in: dir)
            #expect(result.reason == .exit && result.status == 1, "\(result)")
            let events = try Self.events(result)
            let ends = events.filter { ["done", "skipped", "failed"].contains($0.event) }
            #expect(ends.map { $0.scene ?? "" }.sorted() == ["a.json", "trips/b.json", "trips/bad.json"], "\(result)")
            let bad = try #require(ends.first { $0.scene == "trips/bad.json" })
            #expect(bad.event == "failed" && bad.error?.contains("bad.json:2") == true, "\(result)")
            #expect(events.filter { $0.event == "done" }.count == 2, "\(result)")
            let summary = try #require(events.last)
            #expect(summary.event == "summary" && summary.rendered == 2 && summary.failed == 1 && summary.skipped == 0)

            let clips = dir.appendingPathComponent("clips")
            #expect(Self.tree(clips) == ["a.jpg", "a.mp4", "index.html", "manifest.json", "trips", "trips/b.jpg",
                                         "trips/b.mp4"])
            let a = try MediaInfo(path: clips.appendingPathComponent("a.mp4").path)
            let b = try MediaInfo(path: clips.appendingPathComponent("trips/b.mp4").path)
            #expect(abs((a.duration ?? 0) - 3.5) < 0.05 && abs((b.duration ?? 0) - 4) < 0.05)
            #expect(a.videoStreams.first?.frameCount == 84 && b.videoStreams.first?.frameCount == 96)
            #expect(a.metadata["title"] == "Alpha")
            #expect(a.metadata.first { $0.key.lowercased() == "comment" }?.value.contains("maptrip-source=") == true,
                    "\(a.metadata)")

            let manifest = try Self.manifest(clips)
            #expect(manifest.scenes.map(\.scene) == ["a.json", "trips/b.json", "trips/bad.json"])
            let ma = manifest.scenes[0], mb = manifest.scenes[1], mbad = manifest.scenes[2]
            #expect(ma.output == "a.mp4" && ma.poster == "a.jpg" && ma.status == "rendered" && ma.title == "Alpha"
                    && ma.frames == 84 && ma.duration == 3.5 && ma.error == nil)
            #expect(ma.size == a.fileSize && (ma.size ?? 0) > 1000)
            #expect(mb.output == "trips/b.mp4" && mb.poster == "trips/b.jpg" && mb.duration == 4 && mb.frames == 96)
            #expect(mbad.status == "failed" && mbad.error?.contains("bad.json:2") == true && mbad.duration == nil)

            // One line per scene when not a terminal, the failure on stderr; nothing rendered twice.
            let again = try CLIProcess.run(["batch", "scenes", "-o", "clips"], in: dir)
            #expect(again.status == 1)
            #expect(again.stdout.contains("[1/3] a.json -> clips/a.mp4 up to date, skipped"), "\(again)")
            #expect(again.stdout.contains("0 rendered, 2 skipped, 1 failed"), "\(again)")
            #expect(again.stderrLines.count == 1 && again.stderr.contains("trips/bad.json"), "\(again)")
            #expect(try Self.manifest(clips).scenes.map(\.status) == ["skipped", "skipped", "failed"])
        }
    }

    /// A batch renders scenes it did not write: a file a scene names (here a photo) must be inside the
    /// scene's folder, whether reached by `..`, an absolute path or a symbolic link, unless
    /// `--allow-paths` allows its folder.
    @Test func scenesMayNameFilesOnlyInTheirFolderUnlessAllowed() throws {
        try Trip.withDirectory("batch-paths") { dir in
            let shared = dir.appendingPathComponent("shared")
            try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Trip.assets.deletingLastPathComponent().appendingPathComponent("Scenes/photos/seoul.jpg"),
                                             to: shared.appendingPathComponent("seoul.jpg"))
            func scene(photo: String) -> String {
                TripScene.korea.json.replacingOccurrences(of: #""name": "Seoul","#, with: #""name": "Seoul", "photo": \#(Trip.quoted(photo)),"#)
            }
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("scenes"), withIntermediateDirectories: true)
            try Data(scene(photo: "../shared/seoul.jpg").utf8).write(to: dir.appendingPathComponent("scenes/up.json"))
            try Data(scene(photo: shared.appendingPathComponent("seoul.jpg").path).utf8)
                .write(to: dir.appendingPathComponent("scenes/absolute.json"))
            try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent("scenes/link.jpg"),
                                                       withDestinationURL: shared.appendingPathComponent("seoul.jpg"))
            try Data(scene(photo: "link.jpg").utf8).write(to: dir.appendingPathComponent("scenes/link.json"))

            let confined = try CLIProcess.run(["batch", "scenes", "-o", "clips", "--json"], in: dir)
            #expect(confined.status == 1, "\(confined)")
            let failed = try Self.events(confined).filter { $0.event == "failed" }
            #expect(failed.map { $0.scene ?? "" }.sorted() == ["absolute.json", "link.json", "up.json"], "\(confined)")
            let up = try #require(failed.first { $0.scene == "up.json" })
            #expect(up.error?.contains("places[0].photo: photo '../shared/seoul.jpg' is outside the scene's folder "
                                       + "(a batch reads only files inside each scene's folder: move it there, or allow "
                                       + "its folder with --allow-paths DIR)") == true, "\(up)")
            #expect(up.error?.contains("up.json:") == true, "\(up)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("clips/up.mp4").path))

            let allowed = try CLIProcess.run(["batch", "scenes", "-o", "clips", "--json", "--allow-paths", "shared"], in: dir)
            #expect(allowed.status == 0, "\(allowed)")
            #expect(try Self.events(allowed).filter { $0.event == "done" }.count == 3, "\(allowed)")

            // A single render trusts its scene.
            let single = try CLIProcess.run(["render", "scenes/up.json", "-o", "up.mp4", "-q"], in: dir)
            #expect(single.status == 0, "\(single)")

            let missing = try CLIProcess.run(["batch", "scenes", "-o", "clips", "--allow-paths", "nope"], in: dir)
            #expect(missing.status == 1 && missing.stderr.contains("--allow-paths nope: no such folder"), "\(missing)")
        }
    }

    @Test func listAndManifestWithDefaults() throws {
        try Trip.withDirectory("batch-list") { dir in
            try Self.write(Self.scene("Alpha"), "a.json", in: dir)
            try Self.write(Self.scene("Beta"), "trips/b.json", in: dir)
            let list = try CLIProcess.run(["batch", "a.json", "trips/b.json", "-o", "out", "--jobs", "2",
                                           "--preset", "ultrafast"], in: dir)
            #expect(list.status == 0, "\(list)")
            #expect(list.stdout.contains("a.json -> out/a.mp4 3.5 s, 84 frames in "), "\(list)")
            #expect(list.stdout.contains("trips/b.json -> out/trips/b.mp4 3.5 s, 84 frames in "), "\(list)")
            #expect(Self.tree(dir.appendingPathComponent("out")) == [
                "a.jpg", "a.mp4", "index.html", "manifest.json", "trips", "trips/b.jpg", "trips/b.mp4"])

            // Side by side (sharing the base map's data) the clips and posters are those of one at a time.
            let serial = try CLIProcess.run(["batch", "a.json", "trips/b.json", "-o", "serial", "--preset", "ultrafast"],
                                            in: dir)
            #expect(serial.status == 0, "\(serial)")
            for file in ["a.mp4", "a.jpg", "trips/b.mp4", "trips/b.jpg"] {
                let one = try Data(contentsOf: dir.appendingPathComponent("serial/" + file))
                let two = try Data(contentsOf: dir.appendingPathComponent("out/" + file))
                #expect(one == two, "\(file) differs between --jobs 1 and --jobs 2")
            }

            // A manifest: paths relative to it, its defaults (here a format) apply to every scene.
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("jobs"), withIntermediateDirectories: true)
            try Data(#"{"scenes": ["../a.json", "../trips/b.json"], "defaults": {"format": "webm", "crf": 40}}"#.utf8)
                .write(to: dir.appendingPathComponent("jobs/batch.json"))
            let fromManifest = try CLIProcess.run(["batch", "jobs/batch.json", "-o", "web"], in: dir)
            #expect(fromManifest.status == 0, "\(fromManifest)")
            #expect(Self.tree(dir.appendingPathComponent("web")) == [
                "a.jpg", "a.webm", "b.jpg", "b.webm", "index.html", "manifest.json"])
            let info = try MediaInfo(path: dir.appendingPathComponent("web/a.webm").path)
            #expect(info.videoStreams.first?.codecName == "vp9")

            // A manifest's mistake is one line, and nothing is rendered.
            try Data(#"{"scenes": ["a.json"], "defaults": {"crff": 20}}"#.utf8)
                .write(to: dir.appendingPathComponent("broken.json"))
            let broken = try CLIProcess.run(["batch", "broken.json", "-o", "nothing"], in: dir)
            #expect(broken.status == 1 && broken.stderrLines.count == 1, "\(broken)")
            #expect(broken.stderr.contains("broken.json: defaults: unknown key 'crff'"), "\(broken)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("nothing").path))
        }
    }

    @Test func resumeSkipsUpToDateClipsAndForceRendersAll() throws {
        try Trip.withDirectory("batch-resume") { dir in
            try Self.write(Self.scene("Alpha"), "scenes/a.json", in: dir)
            try Self.write(Self.scene("Beta"), "scenes/b.json", in: dir)
            let clips = dir.appendingPathComponent("clips")
            let first = try CLIProcess.run(["batch", "scenes", "-o", "clips"], in: dir)
            #expect(first.status == 0, "\(first)")
            let a = clips.appendingPathComponent("a.mp4"), b = clips.appendingPathComponent("b.mp4")
            let (idA, idB) = (try Self.identity(a), try Self.identity(b))

            // The scene changed: only its clip is rendered again.
            try Self.write(Self.scene("Beta", dwell: 2), "scenes/b.json", in: dir)
            let second = try CLIProcess.run(["batch", "scenes", "-o", "clips", "--json"], in: dir)
            #expect(second.status == 0, "\(second)")
            let ends = try Self.events(second).filter { $0.event != "start" && $0.event != "summary" }
            #expect(ends.map(\.event) == ["skipped", "done"], "\(second)")
            #expect(try Self.identity(a) == idA)
            #expect(try Self.identity(b) != idB)
            #expect(abs((try MediaInfo(path: b.path).duration ?? 0) - 4.5) < 0.05)

            // An option that changes pixels: rendered again.
            let crf = try CLIProcess.run(["batch", "scenes", "-o", "clips", "--json", "--crf", "30"], in: dir)
            #expect(try Self.events(crf).filter { $0.event == "done" }.count == 2, "\(crf)")
            let (idA2, idB2) = (try Self.identity(a), try Self.identity(b))
            let same = try CLIProcess.run(["batch", "scenes", "-o", "clips", "--json", "--crf", "30"], in: dir)
            #expect(try Self.events(same).filter { $0.event == "skipped" }.count == 2, "\(same)")

            let forced = try CLIProcess.run(["batch", "scenes", "-o", "clips", "--json", "--crf", "30", "--force"], in: dir)
            #expect(forced.status == 0)
            #expect(try Self.events(forced).filter { $0.event == "done" }.count == 2, "\(forced)")
            #expect(try Self.identity(a) != idA2 && Self.identity(b) != idB2)
            #expect(Self.temporaryFiles(clips).isEmpty)
        }
    }

    @Test func resumeAfterSIGKILL() throws {
        try Trip.withDirectory("batch-kill") { dir in
            let names = ["s1", "s2", "s3", "s4"]
            for (i, name) in names.enumerated() {
                try Self.write(Self.scene("Scene \(i + 1)", dwell: 3), "scenes/\(name).json", in: dir)
            }
            let clips = dir.appendingPathComponent("clips")
            let first = clips.appendingPathComponent("s1.mp4")
            // One job at a time, so the kill lands between two scenes (the resume is the same with more).
            let process = try CLIProcess(["batch", "scenes", "-o", "clips", "--jobs", "1"], in: dir)
            try process.start()
            // Killed once s1 is complete (its poster is written last) and s2 is under way (its
            // temporary file exists).
            let deadline = Date().addingTimeInterval(120)
            func midway() -> Bool {
                FileManager.default.fileExists(atPath: clips.appendingPathComponent("s1.jpg").path)
                    && !Self.temporaryFiles(clips).isEmpty
            }
            while !midway() && process.process.isRunning && Date() < deadline { usleep(2_000) }
            process.signal(SIGKILL)
            let killed = try process.wait()
            try #require(killed.reason == .uncaughtSignal, "the batch ended before it was killed: \(killed)")
            try #require(FileManager.default.fileExists(atPath: first.path))
            #expect(!FileManager.default.fileExists(atPath: clips.appendingPathComponent("s4.mp4").path))
            let before = try Self.identity(first)
            let poster = try Self.identity(clips.appendingPathComponent("s1.jpg"))
            // A temporary file of another dead process, as a crash would leave.
            let dead = Process()
            dead.executableURL = URL(fileURLWithPath: "/bin/true")
            try dead.run()
            dead.waitUntilExit()
            let stale = clips.appendingPathComponent(".s4.mp4.maptrip-\(dead.processIdentifier)-123.tmp")
            try Data("partial".utf8).write(to: stale)

            let rerun = try CLIProcess.run(["batch", "scenes", "-o", "clips", "--json"], in: dir)
            #expect(rerun.status == 0, "\(rerun)")
            let ends = try Self.events(rerun).filter { $0.event == "done" || $0.event == "skipped" }
            #expect(ends.count == 4, "\(rerun)")
            #expect(ends.first { $0.scene == "s1.json" }?.event == "skipped", "\(rerun)")
            #expect(ends.filter { $0.event == "done" }.map { $0.scene ?? "" }.sorted() == ["s2.json", "s3.json", "s4.json"],
                    "\(rerun)")
            #expect(try Self.identity(first) == before, "s1.mp4 was rendered again")
            #expect(try Self.identity(clips.appendingPathComponent("s1.jpg")) == poster)
            for name in names {
                #expect(abs((try MediaInfo(path: clips.appendingPathComponent("\(name).mp4").path).duration ?? 0) - 5.5) < 0.05)
                #expect(FileManager.default.fileExists(atPath: clips.appendingPathComponent("\(name).jpg").path))
            }
            #expect(Self.temporaryFiles(clips).isEmpty, "left behind: \(Self.temporaryFiles(clips))")
            #expect(try Self.manifest(clips).scenes.count == 4)
        }
    }

    @Test(.enabled(if: !BrowserTests.skipBrowser, "MAPTRIP_SKIP_BROWSER=1 is set"))
    func galleryInChromium() throws {
        guard let chromium = Chromium.find() else {
            throw Chromium.Failure(description: "chromium is not installed: run `bash .ci/test`, or set MAPTRIP_SKIP_BROWSER=1")
        }
        try Trip.withDirectory("batch-gallery") { dir in
            try Self.write(Self.scene("Alpha & <Omega>"), "scenes/a.json", in: dir)
            try Self.write(Self.scene("Beta", dwell: 1.5), "scenes/sub folder/b.json", in: dir)
            let result = try CLIProcess.run(["batch", "scenes", "-o", "clips"], in: dir)
            try #require(result.status == 0, "\(result)")
            let clips = dir.appendingPathComponent("clips")
            let html = try String(contentsOf: clips.appendingPathComponent("index.html"), encoding: .utf8)
            #expect(html.contains("Alpha &amp; &lt;Omega&gt;") && html.contains("0:03.5") && html.contains("0:04.0"))
            #expect(html.contains("src=\"sub%20folder/b.mp4\""), "relative, percent-encoded links")

            // The page as it is, plus a script that reports what the browser made of it on load.
            let probe = """
                <pre id="maptrip-result">MAPTRIP-PENDING</pre>
                <script>
                window.addEventListener("load", () => {
                  const images = [...document.querySelectorAll("img")].map(i => ({src: i.getAttribute("src"), width: i.naturalWidth}));
                  const videos = [...document.querySelectorAll("video")].map(v => ({src: v.getAttribute("src"),
                    duration: Number.isFinite(v.duration) ? v.duration : null, readyState: v.readyState,
                    error: v.error ? v.error.code : null}));
                  document.getElementById("maptrip-result").textContent =
                    "MAPTRIP-RESULT " + encodeURIComponent(JSON.stringify({images, videos})) + " MAPTRIP-END";
                });
                </script>
                </body>
                """
            let page = clips.appendingPathComponent("probe.html")
            try Data(html.replacingOccurrences(of: "</body>", with: probe).utf8).write(to: page)

            struct Image: Decodable { var src: String; var width: Int }
            struct Video: Decodable { var src: String; var duration: Double?; var readyState: Int; var error: Int? }
            struct Report: Decodable { var images: [Image]; var videos: [Video] }
            var report: Report?
            for attempt in 1...3 {
                let run = try Chromium.Run(chromium, page: page, in: dir.appendingPathComponent("chromium-\(attempt)"))
                let output = try run.finish(timeout: 60)
                guard let start = output.stdout.range(of: "MAPTRIP-RESULT "),
                      let end = output.stdout.range(of: " MAPTRIP-END", range: start.upperBound..<output.stdout.endIndex),
                      let json = String(output.stdout[start.upperBound..<end.lowerBound]).removingPercentEncoding
                else { Issue.record("no result from chromium: \(output)"); return }
                let r = try JSONDecoder().decode(Report.self, from: Data(json.utf8))
                report = r
                if r.videos.allSatisfy({ $0.error != nil || $0.readyState >= 1 }) { break }
            }
            let r = try #require(report)
            #expect(r.images.map(\.src) == ["a.jpg", "sub%20folder/b.jpg"])
            for image in r.images { #expect(image.width == 320, "poster \(image.src) not shown: \(image)") }
            #expect(r.videos.map(\.src) == ["a.mp4", "sub%20folder/b.mp4"])
            for (video, duration) in zip(r.videos, [3.5, 4.0]) {
                #expect(video.error == nil, "\(video)")
                #expect(video.duration.map { abs($0 - duration) < 0.05 } == true, "\(video)")
            }
        }
    }
}
