import ArgumentParser
import FFmpeg
import Foundation
import MapTripSupport
import MapTripScene
import MapTripRecord

@main
struct MapTrip: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "maptrip",
        abstract: "Turn a scripted journey into a map video.",
        discussion: """
            A scene file (JSON) lists places and how long each holds the screen. `maptrip render` \
            records the trip: the camera starts on the first place, flies to the next one at every \
            dwell, and stops after the last.
            """,
        version: maptripVersion,
        subcommands: [RenderCommand.self, PreviewCommand.self, PlanCommand.self, TilesCommand.self, InfoCommand.self,
                      PlacesCommand.self, ValidateCommand.self, SchemaCommand.self, BatchCommand.self, ConcatCommand.self,
                      TrackCommand.self])

    static func main() {
        // Tile downloads run libcurl on several threads with CURLOPT_NOSIGNAL, so a server closing
        // a connection must not kill the process with SIGPIPE (curl's documented requirement).
        signal(SIGPIPE, SIG_IGN)
        // Ctrl-C, SIGTERM and SIGHUP must reach maptrip, whatever mask its parent left blocked (a test
        // runner's threads, a daemon): a blocked SIGINT would leave a stuck write with no way out.
        var ending = sigset_t()
        sigemptyset(&ending)
        for s in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&ending, s) }
        pthread_sigmask(SIG_UNBLOCK, &ending, nil)
        // libav* log to standard error: every command says what went wrong in its own words (render
        // and info raise the level for --verbose).
        FFmpegLog.level = FFmpegLog.quiet
        let arguments = Array(CommandLine.arguments.dropFirst())
        let command: ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            exitForArguments(error, arguments)
        }
        do {
            var running = command
            try running.run()
        } catch {
            exitForArguments(error, arguments)
        }
        Foundation.exit(0)
    }

    /// Help, `--version` and the commands' own exit codes as the parser gives them; every argument
    /// error (found while parsing, or by a command's checks) in the one form all of maptrip's errors
    /// take (`maptrip: error: ...`, exit 1), with where to read more.
    private static func exitForArguments(_ error: Error, _ arguments: [String]) -> Never {
        let code = exitCode(for: error)
        if code == .success || error is ExitCode { exit(withError: error) }
        let message = oneLine(self.message(for: error))
        let sub = configuration.subcommands.first { $0._commandName == arguments.first }
        let help = ["maptrip", sub?._commandName].compactMap { $0 }.joined(separator: " ") + " --help"
        printDiagnostics([.error(Wording.excerpt(message, limit: 400), hint: "see '\(help)'")])
        Foundation.exit(ExitCode.failure.rawValue)
    }

    /// The parser's message on one line: its first line, and the values it lists one a line (an
    /// option of more than five values) after it, separated by commas.
    static func oneLine(_ message: String) -> String {
        let lines = message.split(separator: "\n").map(String.init)
        guard let first = lines.first else { return message }
        let values = lines.dropFirst().prefix { $0.hasPrefix("  - ") }.map { $0.dropFirst(4) }
        return values.isEmpty ? first : first + " " + values.joined(separator: ", ")
    }
}

/// Prints one clear line for each of a failure's diagnostics (a scene file's every problem, with its
/// position and hint; the library's message) and gives the exit code: 1, or 128 + the signal for
/// Ctrl-C and SIGTERM, as shells expect.
func fail(_ error: Error) -> ExitCode {
    if let cancelled = error as? CancelledError {
        let line = "maptrip: \(cancelled)"
        // The run is over: a standard error no one reads (a full pipe) may drop this line, not keep
        // the process alive.
        fflush(nil)
        DescriptorWriter.writeIfReady(line + "\n", to: STDERR_FILENO)
        return ExitCode(128 + cancelled.signal)
    }
    printDiagnostics(Diagnostic.from(error))
    return ExitCode.failure
}

func warn(_ message: String) {
    printDiagnostics([.warning(message)])
}

/// Prints diagnostics on standard error, one line each: `maptrip: error: trip.json:4:27: places[1].lat:
/// what is wrong (hint)`, `maptrip: warning: ...`. A line past `limit` characters is cut to an excerpt
/// (nil: whole, as batch's lines, which each hold every problem of a scene).
func printDiagnostics(_ diagnostics: [Diagnostic], limit: Int? = 4000) {
    guard !diagnostics.isEmpty else { return }
    let cut = { (text: String) in limit.map { Wording.excerpt(text, limit: $0) } ?? text }
    let lines = diagnostics.map { d in
        switch d.severity {
        case .error:
            "maptrip: error: \(d)".split(separator: "\n").map { cut(String($0)) }.joined(separator: "\n")
        case .warning:
            "maptrip: warning: " + cut(d.description)
        }
    }
    printToStandardError(lines.joined(separator: "\n"))
}

/// Writes `line` and a newline to standard error, after what has been printed to standard output so
/// far: with both sent to one file or pipe (`2>&1`), the lines keep the order they were written in.
func printToStandardError(_ line: String) {
    fflush(nil)  // every C stream: standard output among them
    writeLine(line, to: STDERR_FILENO)
}

/// Writes `line` and a newline to a file descriptor, never trapping (see `DescriptorWriter`).
@discardableResult
func writeLine(_ line: String, to descriptor: Int32) -> Bool {
    DescriptorWriter.write(line + "\n", to: descriptor)
}
