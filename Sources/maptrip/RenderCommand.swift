import ArgumentParser
import Foundation
import MapTripCore
import MapTripRecord

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Record a scene file as a video (H.264 MP4 by default).")

    @Argument(help: "The scene file (JSON).")
    var scene: String

    @Option(name: .shortAndLong, help: "Output file (default: the scene's path with .mp4).")
    var output: String?

    @Option(help: "x264 preset: ultrafast ... veryslow (slower: smaller files).")
    var preset: String = "veryfast"

    @Option(help: "Quality: x264 constant rate factor, 0 (lossless) to 51 (worst).")
    var crf: Int = 20

    @OptionGroup var common: CommonOptions

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @Flag(help: "Show the encoder's own log.")
    var verbose = false

    func validate() throws {
        guard (0...51).contains(crf) else { throw ValidationError("--crf must be between 0 and 51") }
        guard VideoOutput.Settings.x264Presets.contains(preset) else {
            throw ValidationError("unknown --preset '\(preset)'; use one of \(VideoOutput.Settings.x264Presets.joined(separator: ", "))")
        }
    }

    func run() throws {
        LibraryLogging.configure(verbose: verbose)
        let progress = ProgressLine(enabled: quiet ? false : nil)
        do {
            let sceneURL = URL(fileURLWithPath: scene)
            let outputURL = output.map { URL(fileURLWithPath: $0) }
                ?? sceneURL.deletingPathExtension().appendingPathExtension("mp4")
            let job = RenderJob(scene: sceneURL, output: outputURL,
                                encoding: VideoOutput.Settings(preset: preset, crf: Double(crf)),
                                environment: try common.environment())
            let signals = SignalCancellation()
            let summary = try job.run(cancellation: signals.cancellation) {
                progress.update($0, label: sceneURL.lastPathComponent)
            }
            progress.finish()
            for w in summary.warnings { warn(w) }
            if !quiet {
                let speed = summary.seconds > 0 ? summary.duration / summary.seconds : 0
                print(String(format: "wrote %@: %.2f s, %d frames (%d drawn) in %.1f s, %.1fx real time",
                             outputURL.relativePath, summary.duration, summary.frames, summary.drawnFrames,
                             summary.seconds, speed))
            }
        } catch {
            progress.finish()  // end a half-drawn progress line, so the message starts on its own line
            throw fail(error)
        }
    }
}

/// Options every command that draws maps shares.
struct CommonOptions: ParsableArguments {
    @Option(help: "The folder of maptrip's embedded data (default: found beside the program).")
    var assets: String?

    @Option(help: "A contact (e-mail or URL) for the User-Agent sent to tile servers.")
    var contact: String?

    @Option(help: "Where downloaded tiles are cached (default: $XDG_CACHE_HOME/maptrip/tiles).")
    var cacheDir: String?

    @Flag(help: "Fail on any missing or broken map tile instead of drawing a placeholder.")
    var strict = false

    func environment() throws -> RenderEnvironment {
        let env = ProcessInfo.processInfo.environment
        return RenderEnvironment(
            assets: try AssetLocator.locate(explicit: assets, environment: env),
            contact: contact, cacheDirectory: cacheDir.map { URL(fileURLWithPath: $0) },
            strictTiles: strict, processEnvironment: env)
    }
}
