import Foundation
import Testing

/// Every file a scene or an option names, given a FIFO, a directory, /dev/zero or (in a batch) a file
/// outside the scene's folder: one clear line and exit 1, in bounded time. A FIFO used to block
/// open(2) beyond Ctrl-C; /dev/zero never ends; a scene-level vehicle skipped the batch's path check.
struct SpecialFilesTests {
    /// Where a file is named, and the scene (and options) that name `NAME`.
    struct Key: Sendable, CustomTestStringConvertible {
        var label: String
        var file: String
        var scene: String
        var options: [String] = []
        var testDescription: String { label }
    }

    static let places = #"[ { "lat": 37.5, "lon": 127 }, { "lat": 35.2, "lon": 129.1 } ]"#
    static let video = #""video": { "width": 320, "height": 180, "fps": 12 }"#

    static let keys: [Key] = [
        Key(label: "places[].photo", file: "x.png",
            scene: #"{ \#(video), "places": [ { "lat": 37.5, "lon": 127, "photo": "NAME" }, { "lat": 35.2, "lon": 129.1 } ] }"#),
        Key(label: "vehicle", file: "x.png", scene: #"{ \#(video), "vehicle": "NAME", "places": \#(places) }"#),
        Key(label: "places[].vehicle", file: "x.png",
            scene: #"{ \#(video), "places": [ { "lat": 37.5, "lon": 127 }, { "lat": 35.2, "lon": 129.1, "vehicle": "NAME" } ] }"#),
        Key(label: "audio", file: "x.wav", scene: #"{ \#(video), "audio": "NAME", "places": \#(places) }"#),
        Key(label: "map.tiles", file: "x.mbtiles",
            scene: #"{ \#(video), "map": { "tiles": "NAME", "attribution": "t" }, "places": \#(places) }"#),
        Key(label: "--audio", file: "x.wav", scene: #"{ \#(video), "places": \#(places) }"#, options: ["--audio", "NAME"]),
    ]

    enum Kind: String, CaseIterable, Sendable { case fifo, directory, devZero = "/dev/zero" }

    static func make(_ kind: Kind, at url: URL) throws {
        switch kind {
        case .fifo: #expect(mkfifo(url.path, 0o644) == 0)
        case .directory: try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        case .devZero: try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: "/dev/zero")
        }
    }

    @Test(arguments: keys, Kind.allCases)
    func aSpecialFileIsAnErrorNotAHang(key: Key, kind: Kind) throws {
        try Trip.withDirectory("special") { dir in
            try Self.make(kind, at: dir.appendingPathComponent(key.file))
            try Data(key.scene.replacingOccurrences(of: "NAME", with: key.file).utf8)
                .write(to: dir.appendingPathComponent("scene.json"))
            let options = key.options.map { $0 == "NAME" ? key.file : $0 }
            // A killed run (60 s) is recorded as an issue by CLIProcess.
            let render = try CLIProcess.run(["render", "scene.json", "-o", "out.mp4"] + options, in: dir, timeout: 60)
            #expect(render.status == 1, "\(key.label) \(kind.rawValue): \(render)")
            let lines = render.stderr.split(separator: "\n").filter { !$0.contains("warning:") }
            #expect(lines.count == 1 && lines[0].hasPrefix("maptrip: error:"), "\(key.label) \(kind.rawValue): \(render)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.mp4").path))
            if key.options.isEmpty {
                let validate = try CLIProcess.run(["validate", "scene.json"], in: dir, timeout: 60)
                #expect(validate.status == 1 || kind == .directory && key.label == "map.tiles",
                        "\(key.label) \(kind.rawValue): \(validate)")
            }
        }
    }

    /// In a batch, each key naming a file outside the scene's folder is refused before it is read,
    /// and the file's bytes never reach the manifest or the gallery.
    @Test(arguments: keys.filter { $0.options.isEmpty })
    func aBatchReadsNoFileOutsideTheScenesFolder(key: Key) throws {
        try Trip.withDirectory("outside") { dir in
            let secret = dir.appendingPathComponent("private/\(key.file)")
            try FileManager.default.createDirectory(at: secret.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("SECRET-BYTES-\(key.label)".utf8).write(to: secret)
            let scenes = dir.appendingPathComponent("scenes")
            try FileManager.default.createDirectory(at: scenes, withIntermediateDirectories: true)
            try Data(key.scene.replacingOccurrences(of: "NAME", with: "../private/\(key.file)").utf8)
                .write(to: scenes.appendingPathComponent("a.json"))
            let result = try CLIProcess.run(["batch", "scenes", "-o", "clips"], in: dir, timeout: 60)
            #expect(result.status == 1, "\(key.label): \(result)")
            #expect(result.stdout.contains("is outside the scene's folder"), "\(key.label): \(result)")
            for page in ["clips/manifest.json", "clips/index.html"] {
                let text = (try? String(contentsOf: dir.appendingPathComponent(page), encoding: .utf8)) ?? ""
                #expect(!text.contains("SECRET-BYTES"), "\(key.label): \(page) quotes the file")
            }
            #expect(!(result.stdout + result.stderr).contains("SECRET-BYTES"))
        }
    }
}
