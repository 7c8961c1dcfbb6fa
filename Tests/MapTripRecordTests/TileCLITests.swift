import FFmpeg
import Foundation
import MapTripTiles
import Testing
import TileServerFixture

/// `maptrip render` on a tiled map served over HTTP by a tile server on 127.0.0.1: the whole path a
/// user takes, from the scene's `map` section to the cache on disk.
@Suite(.enabled(if: HTTPTestServer.pythonAvailable)) struct TileCLITests {
    func scene(_ template: String, attribution: String? = "Test tiles") -> String {
        let credit = attribution.map { ", \"attribution\": \(Trip.quoted($0))" } ?? ""
        return """
            {
              "video": { "width": 320, "height": 180, "fps": 12 },
              "flight": 0.5,
              "map": { "tiles": \(Trip.quoted(template))\(credit) },
              "places": [
                { "name": "Seoul", "lat": 37.5665, "lon": 126.978, "zoom": 6, "dwell": 1 },
                { "name": "Busan", "lat": 35.1796, "lon": 129.0756, "zoom": 6.5, "dwell": 1 }
              ]
            }
            """
    }

    @Test func renderFetchesOnceWithItsAgentThenRendersFromTheCache() throws {
        try HTTPTestServer.with { server in
            try Trip.withDirectory("tiles-cli") { dir in
                try scene("http://127.0.0.1:\(server.port)/ok/{z}/{x}/{y}.png")
                    .write(to: dir.appendingPathComponent("trip.json"), atomically: true, encoding: .utf8)
                let args = ["render", "trip.json", "-o", "trip.mp4", "--cache-dir", "cache",
                            "--contact", "maps@example.org"]
                let first = try CLIProcess.run(args, in: dir)
                #expect(first.status == 0, "\(first)")
                let fetched = try server.log().requests.filter { $0.path.hasPrefix("/ok/") }
                #expect(!fetched.isEmpty)
                // Public tile services require an agent that names the tool, its version and a contact.
                for r in fetched {
                    #expect(r.userAgent == "maptrip/\(MapTripVersion.string) (+maps@example.org)")
                }
                let video = try VideoReader(path: dir.appendingPathComponent("trip.mp4").path)
                #expect(video.info.codecName == "h264" && video.info.width == 320)
                #expect(try video.countFrames() == 24)

                // The same render again: every tile comes from the disk cache, no request is made.
                let second = try CLIProcess.run(args + ["-o", "again.mp4"], in: dir)
                #expect(second.status == 0, "\(second)")
                #expect(try server.log().requests.filter { $0.path.hasPrefix("/ok/") }.count == fetched.count)
                #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("again.mp4").path))
            }
        }
    }

    @Test func missingTilesWarnOnceOrFailWithStrict() throws {
        try HTTPTestServer.with { server in
            try Trip.withDirectory("tiles-cli-404") { dir in
                try scene("http://127.0.0.1:\(server.port)/404/{z}/{x}/{y}.png")
                    .write(to: dir.appendingPathComponent("trip.json"), atomically: true, encoding: .utf8)
                let lenient = try CLIProcess.run(["render", "trip.json", "--cache-dir", "cache", "-q"], in: dir)
                #expect(lenient.status == 0, "\(lenient)")
                // One warning for the run, however many tiles failed.
                let warnings = lenient.stderrLines.filter { $0.hasPrefix("maptrip: warning:") }
                #expect(warnings.count == 1, "\(lenient)")
                #expect(warnings.first?.contains("tile") == true)
                #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("trip.mp4").path))

                try FileManager.default.removeItem(at: dir.appendingPathComponent("trip.mp4"))
                let strict = try CLIProcess.run(["render", "trip.json", "--cache-dir", "cache", "--strict"], in: dir)
                #expect(strict.status == 1, "\(strict)")
                #expect(strict.stderrLines.count == 1 && strict.stderrLines[0].hasPrefix("maptrip: error:"), "\(strict)")
                #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("trip.mp4").path))
                #expect(Trip.temporaryFiles(dir).isEmpty)
            }
        }
    }
}

@Suite struct TilesCommandTests {
    /// A folder rerun with a smaller --max-zoom (or other bounds) kept the deeper zooms' stale tiles:
    /// after a run the folder holds exactly its pyramid, and files that are not tiles stay.
    @Test func aRerunLeavesOnlyItsOwnTiles() throws {
        try Trip.withDirectory("tiles-rerun") { dir in
            let tiles = dir.appendingPathComponent("tiles")
            try FileManager.default.createDirectory(at: tiles, withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: tiles.appendingPathComponent("notes.txt"))
            func pngs() -> [String] {
                let walker = FileManager.default.enumerator(atPath: tiles.path)
                return ((walker?.allObjects as? [String]) ?? []).filter { $0.hasSuffix(".png") }.sorted()
            }
            let deep = try CLIProcess.run(["tiles", "tiles", "--max-zoom", "3", "-q"], in: dir)
            #expect(deep.status == 0, "\(deep)")
            #expect(pngs().count == 1 + 4 + 16 + 64)
            let shallow = try CLIProcess.run(["tiles", "tiles", "--max-zoom", "1", "-q"], in: dir)
            #expect(shallow.status == 0, "\(shallow)")
            #expect(pngs() == ["0/0/0.png", "1/0/0.png", "1/0/1.png", "1/1/0.png", "1/1/1.png"])
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: tiles.path)) == ["0", "1", "metadata.json", "notes.txt"])
            // A box: only the tiles it touches, at every zoom.
            let box = try CLIProcess.run(["tiles", "tiles", "--min-zoom", "1", "--max-zoom", "2", "--bounds", "10,10,20,20", "-q"], in: dir)
            #expect(box.status == 0, "\(box)")
            #expect(pngs() == ["1/1/0.png", "2/2/1.png"])
        }
    }

    /// `tiles ""` wrote into the folder it ran in; `tiles scene.json` printed a raw Cocoa error.
    @Test func anEmptyOutputOrAFileInTheWayIsOneLine() throws {
        try Trip.withDirectory("tiles-args") { dir in
            try Data("{}".utf8).write(to: dir.appendingPathComponent("scene.json"))
            let empty = try CLIProcess.run(["tiles", "", "--max-zoom", "0"], in: dir)
            #expect(empty.status == 1, "\(empty)")
            #expect(empty.stderrLines == ["maptrip: error: the output is empty: name a folder (tiles/) or a file ending in .mbtiles (see 'maptrip tiles --help')"])
            let file = try CLIProcess.run(["tiles", "scene.json", "--max-zoom", "0"], in: dir)
            #expect(file.status == 1, "\(file)")
            #expect(file.stderrLines == ["maptrip: error: cannot write scene.json: it is a file, not a folder (name a new folder for the tiles, or a file ending in .mbtiles)"])
            #expect(Trip.contents(dir) == ["scene.json"])
            #expect(try Data(contentsOf: dir.appendingPathComponent("scene.json")) == Data("{}".utf8))
        }
    }

    /// What a SIGKILLed run left (its process gone) is removed by the next run to the same file.
    @Test func aRunRemovesWhatAKilledRunLeft() throws {
        try Trip.withDirectory("tiles-stale") { dir in
            let stale = dir.appendingPathComponent(".world.mbtiles.maptrip-2147483646-1.tmp")  // beyond any pid_max
            try Data("partial".utf8).write(to: stale)
            let result = try CLIProcess.run(["tiles", "world.mbtiles", "--max-zoom", "1", "-q"], in: dir)
            #expect(result.status == 0, "\(result)")
            #expect(Trip.contents(dir) == ["world.mbtiles"])
        }
    }

    /// Ctrl-C or a closed terminal in the middle of `maptrip tiles x.mbtiles`: exit 128 + signal, no
    /// partial file, the previous x.mbtiles untouched.
    @Test(arguments: [SIGINT, SIGHUP])
    func interruptedPyramidLeavesNothingBehind(signal: Int32) throws {
        try Trip.withDirectory("tiles-interrupt") { dir in
            let target = dir.appendingPathComponent("world.mbtiles")
            try Trip.previousOutput.write(to: target)
            let p = try CLIProcess(["tiles", "world.mbtiles", "--max-zoom", "8", "-q"], in: dir)
            try p.start()
            // Wait until tiles are being written (the partial file exists), then interrupt.
            let deadline = Date().addingTimeInterval(60)
            while Trip.temporaryFiles(dir).isEmpty && Date() < deadline {
                usleep(20_000)
            }
            #expect(!Trip.temporaryFiles(dir).isEmpty)
            p.signal(signal)
            let result = try p.wait()
            #expect(result.status == 128 + signal, "\(result)")
            #expect(result.stderrLines.count == 1 && result.stderrLines[0].hasPrefix("maptrip: interrupted"), "\(result)")
            #expect(Trip.contents(dir) == ["world.mbtiles"])
            #expect(try Data(contentsOf: target) == Trip.previousOutput)
        }
    }
}
