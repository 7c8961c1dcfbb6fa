import ArgumentParser
import Foundation
import MapTripScene
import MapTripSupport
import MapTripRecord
import MapTripRender
import MapTripStyle
import MapTripTracks

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check scene files: every problem in every file, one per line, without rendering.",
        discussion: """
            Each problem is printed as file:line:column: json.path: what is wrong (how to fix it). \
            Warnings (legal but odd choices: a flight longer than its slot, a zoom deeper than the \
            map's data, a dwell under one frame, a tile map with no attribution, a country or \
            region beside lat and lon) are marked \
            "warning:" and do not fail. Exit status: 0 when no file has errors, 1 otherwise.
            """)

    @Argument(help: "Scene files (JSON).")
    var files: [String]

    @Flag(help: "Print the problems as a JSON array of {file, line, column, path, severity, message, hint}.")
    var json = false

    @Option(help: "The folder of maptrip's embedded data (default: found beside the program).")
    var assets: String?

    struct Problem: Encodable {
        var file: String
        var line: Int
        var column: Int
        var path: String
        var severity: String
        var message: String
        var hint: String?
    }

    func run() throws {
        let resolver = PlaceResolvers.gazetteer(assets: assets, environment: ProcessInfo.processInfo.environment)
        var problems: [Problem] = []
        var failed = 0
        for file in files {
            let report = SceneLoader.check(contentsOf: URL(fileURLWithPath: file), resolver: resolver,
                                             projections: ProjChecker(), images: SceneImageCheck(),
                                             styles: StyleFileCheck(fonts: StyleFonts.missing), tracks: TrackFileCheck(), voices: VoiceFileCheck())
            if !report.errors.isEmpty { failed += 1 }
            let all = report.errors.map { ($0, Diagnostic.Severity.error) } + report.warnings.map { ($0, .warning) }
            for (e, severity) in all.sorted(by: { ($0.0.line, $0.0.column) < ($1.0.line, $1.0.column) }) {
                let d = e.diagnostic(severity)
                problems.append(Problem(file: d.file ?? "", line: d.line ?? 0, column: d.column ?? 0, path: d.path ?? "",
                                        severity: d.severity.rawValue, message: d.message, hint: d.hint))
                if !json { print(d.listed) }
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(problems), as: UTF8.self))
        } else {
            let errors = problems.filter { $0.severity == "error" }.count
            let warnings = problems.count - errors
            let summary = "\(files.count) file\(files.count == 1 ? "" : "s"): "
                + "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
            printToStandardError(summary)
        }
        if failed > 0 { throw ExitCode.failure }
    }
}

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of scene files (for editors), the README's table of keys, or a theme.")

    @Flag(help: "Print the Markdown table of keys instead.")
    var markdown = false

    @Option(help: "Print a ready theme's \"style\" section in full, to copy and change.")
    var theme: ThemeName?

    func run() throws {
        if let theme, let style = Style.theme(theme.name) {
            print(style.json(), terminator: "")
            return
        }
        print(markdown ? SceneSchema.markdownTable() : SceneSchema.json(), terminator: "")
    }
}
