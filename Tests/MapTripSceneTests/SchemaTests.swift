import Foundation
import Testing
import MapTripTracks
@testable import MapTripScene

/// The JSON Schema and the README's table come from `SceneFormat`; they are checked in, and must stay
/// what the description generates. An independent validator (python3-jsonschema) agrees with the loader.
@Suite("Scene schema")
struct SchemaTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardizedFileURL
    static let schemaFile = root.appendingPathComponent("Assets/scene.schema.json")

    @Test func checkedInSchemaIsWhatTheDescriptionGenerates() throws {
        let file = try String(contentsOf: Self.schemaFile, encoding: .utf8)
        #expect(file == SceneSchema.json(), "run `maptrip schema > Assets/scene.schema.json`")
        // It is JSON, and a schema of the right draft.
        let object = try JSONSerialization.jsonObject(with: Data(file.utf8)) as? [String: Any]
        #expect(object?["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
    }

    @Test func readmeTableIsWhatTheDescriptionGenerates() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let begin = try #require(readme.range(of: SceneSchema.tableBegin), "README lacks the table's begin marker")
        let end = try #require(readme.range(of: SceneSchema.tableEnd), "README lacks the table's end marker")
        let table = readme[begin.upperBound..<end.lowerBound].trimmingCharacters(in: .newlines)
        #expect(table + "\n" == SceneSchema.markdownTable(), "run `maptrip schema --markdown` into the README")
    }

    @Test func everyKeyIsDocumentedEverywhere() throws {
        let schema = SceneSchema.json()
        let table = SceneSchema.markdownTable()
        func walk(_ o: SceneFormat.Object, _ prefix: String) {
            for f in o.fields {
                #expect(!f.doc.isEmpty, "\(prefix)\(f.key) has no documentation")
                #expect(schema.contains("\"\(f.key)\" : {"), "\(f.key) is not in the schema")
                if f.key != "$schema" {
                    switch f.kind {
                    case .object(let inner): walk(inner, prefix + f.key + ".")
                    case .array(.object(let inner), _, _, _): walk(inner, prefix + f.key + "[].")
                    case .stringOr(let inner, _), .switchOr(let inner, _, _):
                        #expect(table.contains("| `\(prefix)\(f.key)` |"))
                        walk(inner, prefix + f.key + ".")
                    default: #expect(table.contains("| `\(prefix)\(f.key)` |"), "\(prefix)\(f.key) not in the table")
                    }
                }
            }
        }
        walk(SceneFormat.scene, "")
    }

    /// Rules JSON Schema cannot state: sums over the places, comparisons between two keys, whether a
    /// name is in the gazetteer.
    static let beyondTheSchema = ["add up to", "frames, over the limit", "shorter than one frame",
                                  "is greater than maxZoom", "gazetteer"]

    @Test func independentValidatorAgreesWithTheLoader() throws {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            Issue.record("no \(python): run `bash .ci/test`, which installs python3-jsonschema")
            return
        }
        // Every example scene (valid) and every bad-scene case that parses as JSON.
        var documents: [(name: String, json: String, valid: Bool)] = []
        let scenes = Self.root.appendingPathComponent("Scenes")
        for name in try FileManager.default.contentsOfDirectory(atPath: scenes.path).sorted() where name.hasSuffix(".json") {
            let text = try String(contentsOf: scenes.appendingPathComponent(name), encoding: .utf8)
            // Read as a file beside its tracks (Scenes/ride.json follows one).
            let report = SceneLoader.check(Data(text.utf8), file: scenes.appendingPathComponent(name).path,
                                           tracks: TrackFileCheck())
            let byName = report.errors.contains { $0.message.contains("gazetteer") }
            #expect(report.errors.isEmpty || byName, "\(name): \(report.errors)")
            documents.append((name, text, true))
        }
        for c in SceneLoaderTests.cases {
            guard (try? JSONSerialization.jsonObject(with: Data(c.json.utf8), options: [.fragmentsAllowed])) != nil,
                  !Self.beyondTheSchema.contains(where: c.message.contains) else { continue }
            documents.append((c.testDescription, c.json, false))
        }
        documents.append(("by name", #"{"places": [{"name": "Busan"}, {"name": "Paris", "country": "FR"}]}"#, true))
        documents.append(("no name nor coordinates", #"{"places": [{"zoom": 3}]}"#, false))
        documents.append(("lat alone", #"{"places": [{"name": "x", "lat": 3}]}"#, false))
        documents.append(("audio file", #"{"audio": "a.mp3", "places": [{"lat": 1, "lon": 2}]}"#, true))
        documents.append(("odd width", #"{"video": {"width": 1921}, "places": [{"lat": 1, "lon": 2}]}"#, false))
        #expect(documents.count > 60)

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let list = documents.map(\.json)
        try JSONSerialization.data(withJSONObject: list).write(to: dir.appendingPathComponent("docs.json"))
        let script = """
            import json, sys
            from jsonschema import Draft202012Validator
            schema = json.load(open(sys.argv[1]))
            Draft202012Validator.check_schema(schema)
            v = Draft202012Validator(schema)
            for text in json.load(open(sys.argv[2])):
                try:
                    doc = json.loads(text)
                except ValueError:
                    print("unparsable")
                    continue
                print("valid" if v.is_valid(doc) else "invalid")
            """
        try Data(script.utf8).write(to: dir.appendingPathComponent("check.py"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [dir.appendingPathComponent("check.py").path, Self.schemaFile.path,
                             dir.appendingPathComponent("docs.json").path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let message = String(decoding: errors, as: UTF8.self)
        try #require(process.terminationStatus == 0,
                     "python3-jsonschema failed (run `bash .ci/test`, which installs it): \(message)")
        let verdicts = String(decoding: output, as: UTF8.self).split(separator: "\n")
        #expect(verdicts.count == documents.count)
        #expect(verdicts.filter { $0 != "unparsable" }.count > 60)
        for (d, verdict) in zip(documents, verdicts) where verdict != "unparsable" {
            let schemaValid = verdict == "valid"
            #expect(schemaValid == d.valid, "\(d.name): the schema says \(schemaValid ? "valid" : "invalid"), the loader \(d.valid ? "valid" : "invalid")")
        }
    }
}
