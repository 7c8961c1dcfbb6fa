import Foundation
import Testing

/// `maptrip validate` and `maptrip schema` as a designer uses them.
@Suite("validate and schema")
struct ValidateCLITests {
    static let broken = """
        {
          "title": "",
          "dwel": 3,
          "video": {"width": 1921, "fps": 0},
          "places": [
            {"name": "Seoul", "lat": 95, "lon": 127},
            {"name": "Busan", "zoom": "9"},
            {"name": "Nowhereville"},
            {"lat": 1}
          ]
        }

        """
    static let odd = """
        {
          "video": {"fps": 24},
          "map": {"tiles": "tiles", "maxZoom": 10},
          "places": [
            {"name": "Seoul", "lat": 37.5665, "lon": 126.978, "dwell": 0.01},
            {"name": "Busan", "lat": 35.1796, "lon": 129.0756, "zoom": 12, "flight": 4, "dwell": 2}
          ]
        }

        """

    @Test func everyProblemInEveryFileAtItsPlace() throws {
        try Trip.withDirectory("validate") { dir in
            try Data(Self.broken.utf8).write(to: dir.appendingPathComponent("broken.json"))
            try TripScene.korea.write(to: dir, name: "good.json")
            let result = try CLIProcess.run(["validate", "broken.json", "good.json"], in: dir)
            #expect(result.status == 1, "\(result)")
            #expect(result.stdout == """
                broken.json:2:12: title: title must not be empty
                broken.json:3:3: dwel: unknown key 'dwel' (did you mean 'dwell'?)
                broken.json:4:22: video.width: width 1921 is odd; H.264 with 4:2:0 chroma needs even frame sizes (use 1920 or 1922)
                broken.json:4:35: video.fps: fps 0 is outside [1, 240]
                broken.json:6:30: places[0].lat: latitude 95 is outside [-90, 90]
                broken.json:7:31: places[1].zoom: expected a number, found a string (write the number without quotes)
                broken.json:8:14: places[2].name: no place called 'Nowhereville' in the gazetteer (give "lat" and "lon" instead, or check the spelling)
                broken.json:9:5: places[3]: lat is given without lon (give both, or neither to look the name up)

                """, "\(result)")
            #expect(result.stderr == "2 files: 8 errors, 0 warnings\n")
        }
    }

    /// Problems go to standard output, the count to standard error: sent to one pipe (`2>&1`), the
    /// count still comes last.
    @Test func theCountComesAfterTheProblemsInOneStream() throws {
        try Trip.withDirectory("validate") { dir in
            try Data(Self.broken.utf8).write(to: dir.appendingPathComponent("broken.json"))
            let result = try CLIProcess.run(["validate", "broken.json"], in: dir,
                                            prefix: ["/bin/sh", "-c", #"exec "$0" "$@" 2>&1"#])
            #expect(result.status == 1, "\(result)")
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.count == 9, "\(result)")
            #expect(lines.dropLast().allSatisfy { $0.hasPrefix("broken.json:") }, "\(result)")
            #expect(lines.last == "1 file: 8 errors, 0 warnings", "\(result)")
        }
    }

    @Test func warningsDoNotFailAndJSONHasItsShape() throws {
        try Trip.withDirectory("validate") { dir in
            try Data(Self.odd.utf8).write(to: dir.appendingPathComponent("odd.json"))
            let result = try CLIProcess.run(["validate", "odd.json"], in: dir)
            #expect(result.status == 0, "\(result)")
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.count == 4, "\(result)")
            #expect(lines.allSatisfy { $0.contains(": warning: ") }, "\(result)")
            #expect(lines[0].hasPrefix("odd.json:3:10: warning: map: the tile map has no attribution"))
            #expect(lines[1].hasPrefix("odd.json:5:64: warning: places[0].dwell: dwell 0.01 s is under one frame"))
            #expect(lines[2].hasPrefix("odd.json:6:64: warning: places[1].zoom: Busan: zoom 12 is deeper than the tile source's maxZoom (10)"), "\(lines[2])")
            #expect(lines[3].hasPrefix("odd.json:6:78: warning: places[1].flight: the flight of 4 s is longer"), "\(lines[3])")

            let json = try CLIProcess.run(["validate", "--json", "odd.json"], in: dir)
            #expect(json.status == 0)
            let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            #expect(array.count == 4)
            #expect(Set(array[0].keys) == ["file", "line", "column", "path", "severity", "message", "hint"])
            #expect(array.allSatisfy { $0["severity"] as? String == "warning" })
            #expect(array[1]["line"] as? Int == 5 && array[1]["path"] as? String == "places[0].dwell")
        }
    }

    @Test func renderListsEveryErrorToo() throws {
        try Trip.withDirectory("validate") { dir in
            try Data(Self.broken.utf8).write(to: dir.appendingPathComponent("broken.json"))
            let result = try CLIProcess.run(["render", "broken.json"], in: dir)
            #expect(result.status == 1)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 8 && lines.allSatisfy { $0.hasPrefix("maptrip: error: broken.json:") }, "\(result)")
            #expect(Trip.contents(dir) == ["broken.json"])
        }
    }

    @Test func schemaCommandPrintsTheCheckedInSchema() throws {
        try Trip.withDirectory("schema") { dir in
            let result = try CLIProcess.run(["schema"], in: dir)
            #expect(result.status == 0)
            let file = try String(contentsOf: Trip.assets.appendingPathComponent("scene.schema.json"), encoding: .utf8)
            #expect(result.stdout == file)
        }
    }
}
