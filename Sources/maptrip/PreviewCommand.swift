import ArgumentParser
import Foundation
import MapTripScene
import MapTripSupport
import MapTripTime
import MapTripRecord

/// `maptrip preview`: one frame (or a contact sheet of every place at rest) as a PNG, in a small
/// fraction of a render; `--watch` draws it again at every save.
struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Draw one frame of a scene, or a contact sheet of its places, as a PNG.",
        discussion: """
            The frame is pixel for pixel the one `render` encodes at that time (before YUV). Only \
            that frame is drawn, and only the map data and tiles it shows are loaded. Without --at, \
            --place or --sheet: the first place at rest (the default poster).
            """)

    @Argument(help: "The scene file (JSON).")
    var scene: String

    @Option(help: ArgumentHelp("The frame at this time: seconds (12.5, 12.5s) or a clock as `plan` prints it (0:12.5).",
                               valueName: "time"))
    var at: TimeArgument?

    @Option(help: ArgumentHelp("Place N (numbered from 1, as in `plan`) at rest: the last frame of its slot.",
                               valueName: "n"))
    var place: Int?

    @Flag(help: "A contact sheet: every place at rest, captioned with its number, name and time, in a grid.")
    var sheet = false

    @Option(name: .shortAndLong, help: "The image, .png (or .jpg) (default: NAME.preview.png beside the scene; NAME.sheet.png with --sheet).")
    var output: String?

    @Option(help: "Width in pixels, same view, as `render --width` (default: the scene's; with --sheet, each cell's: 480).")
    var width: Int?

    @Flag(help: "Draw again each time the scene (or a file it names) is saved; Ctrl-C ends.")
    var watch = false

    @OptionGroup var common: CommonOptions

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    /// Conflicting choices, as one error line.
    struct UsageError: Error, CustomStringConvertible, DiagnosticConvertible {
        var description: String
    }

    func run() throws {
        LibraryLogging.configure(verbose: false)
        do {
            if [at != nil, place != nil, sheet].filter({ $0 }).count > 1 {
                throw UsageError(description: "give one of --at TIME, --place N and --sheet")
            }
            let sceneURL = URL(fileURLWithPath: scene)
            let subject: PreviewJob.Subject = sheet ? .sheet : at.map { .time($0.seconds) } ?? .place(place ?? 1)
            let job = PreviewJob(scene: sceneURL, subject: subject, output: output.map { URL(fileURLWithPath: $0) },
                                 width: width, environment: try common.environment())
            let signals = SignalCancellation()
            if watch {
                if !quiet { print("watching \(scene) and the files it names; Ctrl-C to stop") }
                try FileWatch().run(job, cancellation: signals.cancellation, events: { event in
                    if case .failed(_, let error) = event { _ = fail(error) }
                }, finished: report)
            } else {
                report(try job.run(cancellation: signals.cancellation))
            }
        } catch {
            throw fail(error)
        }
    }

    func report(_ summary: PreviewSummary) {
        for w in summary.warnings { warn(w) }
        guard !quiet else { return }
        let name = output ?? PreviewJob.defaultOutput(for: URL(fileURLWithPath: scene), subject: sheet ? .sheet : .place(1))
            .relativePath
        let took = String(format: "in %.2f s", summary.seconds)
        if let layout = summary.sheet {
            print("wrote \(name): \(layout.count) place\(layout.count == 1 ? "" : "s"), \(layout.columns)x\(layout.rows) "
                  + "cells of \(layout.cellWidth)x\(layout.cellHeight), \(summary.width)x\(summary.height) \(took)")
        } else if let shot = summary.shots.first, let frame = shot.frame {
            print("wrote \(name): frame \(frame) of \(summary.frameCount) at \(Plan.clock(shot.time ?? 0)) "
                  + "(place \(shot.place ?? 1)), \(summary.width)x\(summary.height) \(took)")
        }
    }
}

extension RenderCommand {
    /// `render --draft --watch`: renders the draft, then again at every save of the scene or a file it
    /// names, printing errors instead of stopping; Ctrl-C ends it (exit 130).
    func watchDraft(_ job: RenderJob, target: String) throws {
        var progress = ProgressLine(enabled: quiet ? false : nil)
        let signals = SignalCancellation()
        if !quiet { print("watching \(scene) and the files it names; Ctrl-C to stop") }
        do {
            try FileWatch().run(job, cancellation: signals.cancellation, events: { event in
                switch event {
                case .starting: progress = ProgressLine(enabled: quiet ? false : nil)  // a fresh line per run
                case .failed(_, let error):
                    progress.finish()
                    _ = fail(error)
                case .finished: break
                }
            }, progress: { progress.update($0, label: job.scene.lastPathComponent) }) { summary in
                progress.finish()
                for w in summary.warnings { warn(w) }
                if !quiet {
                    print(String(format: "wrote %@: %.2f s, %d frames in %.1f s", target, summary.duration,
                                 summary.frames, summary.seconds))
                }
            }
        } catch {
            progress.finish()
            throw error
        }
    }
}
