import ArgumentParser
import Foundation
import MapTripGeometry
import MapTripOutput
import MapTripRecord
import MapTripRender

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Record a scene file as a video (H.264 MP4 by default).",
        discussion: """
            The output's extension chooses the format: .mp4, .webm, .mov, .gif, or name_%05d.png for a \
            PNG sequence; -o - writes to standard output (with --format); a FIFO or device is written \
            directly. Options per codec (an option that does not apply is an error):

            """ + VideoCodec.allCases.map { "  " + CodecProfile.profile(for: $0).help }.joined(separator: "\n"))

    @Argument(help: "The scene file (JSON).")
    var scene: String

    @Option(name: .shortAndLong, help: "Output: a file, name_%05d.png, - (stdout), a FIFO or device, or a URL (default: the scene's path with .mp4).")
    var output: String?

    @OptionGroup var encoding: EncodingFlags

    @Flag(help: "No base map: pins, labels and cards over transparency (.mov ProRes 4444, .webm VP9, .gif, PNG).")
    var transparent = false

    @Option(help: "A sound track: any audio file (overrides the scene's \"audio\").")
    var audio: String?

    @Flag(help: "Also write a poster image beside the output: the output's name with .jpg.")
    var poster = false

    @Option(name: .customLong("poster-file"),
            help: ArgumentHelp("Write the poster image to this file instead, .jpg or .png (implies --poster).",
                               valueName: "file"))
    var posterFile: String?

    @Option(name: .customLong("poster-at"),
            help: ArgumentHelp("The poster's time: seconds (12.5) or a clock (0:12.5) (default: the first place at rest).",
                               valueName: "time"))
    var posterAt: TimeArgument?

    @Option(help: "Stream live, paced by the clock: rtmp://, srt://, udp:// or a .m3u8 playlist (HLS).")
    var live: String?

    @Flag(help: "A quick draft to check timing: half the width and height (same view), the fastest preset, NAME.draft.mp4 unless -o.")
    var draft = false

    @Flag(help: "With --draft: render again each time the scene (or a file it names) is saved; Ctrl-C ends.")
    var watch = false

    @Option(help: "Only frames START:END of the trip (END excluded), as a part for `maptrip concat`.")
    var frames: String?

    @Option(help: ArgumentHelp("Only the trip from this time (as plan prints it: 0:04, 0:04.5, 12.5), as its own file with its sound.", valueName: "time"))
    var from: String?

    @Option(help: ArgumentHelp("Only the trip up to this time (excluded; with or without --from).", valueName: "time"))
    var to: String?

    @OptionGroup var common: CommonOptions

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @Flag(help: "Show the encoder's own log.")
    var verbose = false

    func validate() throws {
        if live != nil && output != nil {
            throw ValidationError("give either -o or --live, not both (--live streams to its URL)")
        }
        if posterAt != nil && !poster && posterFile == nil {
            throw ValidationError("--poster-at needs --poster or --poster-file")
        }
        if watch && !draft {
            throw ValidationError("--watch is for drafts: add --draft")
        }
        if let frames {
            do { _ = try FrameRange(parsing: frames) } catch { throw ValidationError("\(error)") }
        }
        if from != nil || to != nil {
            if frames != nil { throw ValidationError(TimeStretchError.withFrames.description) }
            do { _ = try TimeStretch(from: from, to: to) } catch { throw ValidationError("\(error)") }
        }
    }

    func run() throws {
        LibraryLogging.configure(verbose: verbose)
        let progress = ProgressLine(enabled: quiet ? false : nil)
        do {
            let sceneURL = URL(fileURLWithPath: scene)
            let formatValue = encoding.format
            let defaultExtension = (draft ? "draft." : "") + (formatValue?.extensions.first ?? "mp4")
            let target = live ?? output ?? RenderJob.defaultOutput(for: sceneURL, extension: defaultExtension).relativePath
            let request = OutputRequest(path: target, format: formatValue, codec: encoding.codec,
                                        options: encoding.options(), fps: encoding.fps, width: encoding.width)
            var posterRequest: PosterRequest?
            if poster || posterFile != nil {
                let path = posterFile
                    ?? ((target as NSString).deletingPathExtension.replacingOccurrences(of: "_%05d", with: "") + ".jpg")
                posterRequest = PosterRequest(path: path, time: posterAt?.seconds)
            }
            var job = RenderJob(scene: sceneURL, output: request, environment: try common.environment(),
                                audioFile: audio, transparent: transparent, poster: posterRequest, live: live != nil,
                                draft: draft)
            job.frames = try frames.map(FrameRange.init(parsing:))
            if from != nil || to != nil { job.stretch = try TimeStretch(from: from, to: to) }
            if watch { return try watchDraft(job, target: target) }
            let signals = SignalCancellation()
            let summary = try job.run(cancellation: signals.cancellation) {
                progress.update($0, label: sceneURL.lastPathComponent)
            }
            progress.finish()
            for w in summary.warnings { warn(w) }
            // With the video on standard output, the summary goes to stderr.
            if !quiet {
                let speed = summary.seconds > 0 ? summary.duration / summary.seconds : 0
                let line = String(format: "wrote %@: %.2f s, %d frames (%d drawn) in %.1f s, %.1fx real time",
                                  target == "-" ? "standard output" : target, summary.duration, summary.frames,
                                  summary.drawnFrames, summary.seconds, speed)
                if target == "-" {
                    printToStandardError(line)
                } else {
                    print(line)
                }
                if let posterRequest, target != "-" { print("wrote \(posterRequest.path)") }
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

    @Option(help: ArgumentHelp("Seconds for each tile download, retries apart (default 15).", valueName: "seconds"))
    var tileTimeout: Double?

    @Flag(help: "Build the embedded map's levels of detail from its shapefiles, without reading or writing them in $XDG_CACHE_HOME/maptrip/geometry.")
    var noGeometryCache = false

    @Flag(inversion: .prefixedNo,
          help: "Keep the map's tiles as drawn (the embedded map's, and a style's over local vector tiles) in $XDG_CACHE_HOME/maptrip/drawn-tiles (at most 1 GB), and read them back in later renders of the same map: re-renders and batches over one region draw less.")
    var drawnTileCache = true

    func validate() throws {
        if let t = tileTimeout, !(t > 0 && t <= 3600) {
            throw ValidationError("--tile-timeout must be more than 0 and at most 3600 seconds, not \(t)")
        }
    }

    func environment() throws -> RenderEnvironment {
        let env = ProcessInfo.processInfo.environment
        var environment = RenderEnvironment(
            assets: try AssetLocator.locate(explicit: assets, environment: env),
            contact: contact, cacheDirectory: cacheDir.map { URL(fileURLWithPath: $0) },
            strictTiles: strict, tileTimeout: tileTimeout, processEnvironment: env,
            geometryCache: noGeometryCache ? nil : CacheDirectories.default("geometry", environment: env).map { GeometryCache(directory: $0) },
            drawnTiles: drawnTileCache ? CacheDirectories.default("drawn-tiles", environment: env).map { DrawnTileCache(directory: $0) } : nil)
        environment.fastPaths = try FastPaths.from(environment: env)
        return environment
    }
}
