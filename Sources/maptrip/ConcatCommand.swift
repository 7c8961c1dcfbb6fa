import ArgumentParser
import Foundation
import MapTripOutput
import MapTripRecord

struct ConcatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "concat",
        abstract: "Join parts rendered with render --frames into one video, without re-encoding.",
        discussion: """
            The parts must be given in order, each starting at the frame where the one before it ends \
            (render --frames 0:40, 40:84), rendered with the same options. The result is exactly the \
            whole trip: its frames, timestamps and duration.
            """)

    @Argument(help: "The parts, in order (MP4 or MOV files written by render --frames).")
    var parts: [String]

    @Option(name: .shortAndLong, help: "The joined video (.mp4 or .mov).")
    var output: String

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        if parts.isEmpty { throw ValidationError(ConcatError.noParts.description) }
    }

    func run() throws {
        LibraryLogging.configure(verbose: false)
        do {
            let summary = try Concat.join(parts: parts.map { URL(fileURLWithPath: $0) },
                                          to: URL(fileURLWithPath: output))
            if !quiet {
                print(String(format: "wrote %@: %.2f s, %d frames from %d parts", output, summary.duration,
                             summary.frames, parts.count))
            }
        } catch {
            throw fail(error)
        }
    }
}
