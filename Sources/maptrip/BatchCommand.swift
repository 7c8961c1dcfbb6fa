import ArgumentParser
import Foundation
import MapTripBatch
import MapTripSupport
import MapTripOutput
import MapTripRecord

struct BatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Render many scenes into a folder: clips, posters, manifest.json and index.html.",
        discussion: """
            Scenes: a folder (every *.json under it, sub-folders kept), scene files, or a manifest \
            {"scenes": ["a.json", ...], "defaults": {"preset": ..., "crf": ..., "format": ...}}. \
            Each S.json becomes OUT/S.mp4 and OUT/S.jpg. A re-run skips clips that are up to date \
            (their metadata records a SHA-256 of the scene, its files, the options and maptrip's version) \
            and removes temporary files of a killed run. Exit 0 when every scene succeeded, 1 otherwise.
            """)

    @Argument(help: "A folder of scenes, scene files, or a batch manifest (JSON with \"scenes\").")
    var scenes: [String] = []

    @Option(name: .shortAndLong, help: "The folder the clips go into (created).")
    var output: String?

    @OptionGroup var encoding: EncodingFlags

    @Option(help: "Scenes rendered side by side (default: two per core, measured as the most clips per hour).")
    var jobs: Int?

    @Option(help: "Encoder threads per scene (default: 1 when several scenes run side by side, else the encoder's choice).")
    var threads: Int?

    @Option(help: ArgumentHelp("Render only shard K of N (K from 0), a share balanced by cost; auto: from a Slurm "
                               + "job array or a Kubernetes Indexed Job (with --shards). Writes OUT/manifest.K.json.",
                               valueName: "K/N|auto"))
    var shard: String?

    @Option(help: "The number of shards for --shard auto in a Kubernetes Indexed Job (its completions).")
    var shards: Int?

    @Option(help: ArgumentHelp("Join the shards' manifest.K.json in this folder into manifest.json and index.html.",
                               valueName: "folder"))
    var merge: String?

    @Flag(help: "Render every scene, even clips that are up to date.")
    var force = false

    @Flag(help: "Print one JSON object per event (start, done, skipped, failed) and a summary object.")
    var json = false

    @OptionGroup var common: CommonOptions

    @Option(name: .customLong("allow-paths"), parsing: .singleValue,
            help: ArgumentHelp("A folder whose files scenes may name, beyond each scene's own folder (repeatable). "
                               + "Without it, a scene naming a photo, sound or tiles outside its folder fails.",
                               valueName: "folder"))
    var allowPaths: [String] = []

    @Flag(name: .shortAndLong, help: "Print nothing but errors and the summary of failures.")
    var quiet = false

    @Flag(help: "Show the encoder's own log.")
    var verbose = false

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if let threads, !(1...64).contains(threads) { throw ValidationError("--threads must be 1 to 64") }
        for folder in allowPaths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--allow-paths \(folder): no such folder")
            }
        }
        if merge != nil {
            if output != nil || !scenes.isEmpty || shard != nil {
                throw ValidationError("--merge takes only the folder: maptrip batch --merge clips/")
            }
            return
        }
        if output == nil { throw ValidationError("give the output folder with -o OUT") }
        if shards != nil, shard == nil { throw ValidationError("--shards goes with --shard auto") }
    }

    func run() throws {
        LibraryLogging.configure(verbose: verbose)
        do {
            if let merge {
                let entries = try BatchManifest.merge(folder: URL(fileURLWithPath: merge).standardizedFileURL)
                let name = merge.hasSuffix("/") ? String(merge.dropLast()) : merge
                let failed = entries.filter { $0.status == "failed" }
                if !quiet {
                    Self.say("\(entries.count) scenes, \(failed.count) failed (\(name)/manifest.json, \(name)/index.html)")
                }
                printDiagnostics(failed.map { Diagnostic(message: $0.error ?? "failed", file: $0.scene) }, limit: nil)
                if !failed.isEmpty { throw ExitCode.failure }
                return
            }
            let output = self.output ?? ""
            let folder = URL(fileURLWithPath: output).standardizedFileURL
            let jobs = self.jobs ?? BatchOptions.defaultJobs(cores: ProcessInfo.processInfo.activeProcessorCount)
            let threads = self.threads ?? (jobs > 1 ? BatchOptions.threadsPerJob : nil)
            let asked = BatchOptions(format: encoding.format, codec: encoding.codec,
                                     encoding: encoding.options(threads: threads),
                                     width: encoding.width, fps: encoding.fps)
            var plan = try BatchPlan.discover(scenes, outputFolder: folder)
            let options = plan.defaults.overridden(by: asked)
            try options.checkClipFormat()
            if options.fileExtension != plan.defaults.fileExtension {
                plan = try BatchPlan.discover(scenes, outputFolder: folder, fileExtension: options.fileExtension)
            }
            var environment = try common.environment()
            // Scenes a batch renders may name files only in their own folders and those allowed.
            environment.paths = PathPolicy(allowed: allowPaths.map { URL(fileURLWithPath: $0) })
            var share: BatchShard.Share?
            if let shard {
                // The environment is read here, at the edge, and handed down as values.
                let part = try BatchShard.parse(shard, shards: shards, environment: ProcessInfo.processInfo.environment)
                share = part.share(of: plan) {
                    BatchShard.cost(of: $0.scene, fps: options.fps, width: options.width, resolver: environment.places)
                }
                plan = share!.plan
            }
            let runner = BatchRunner(plan: plan, folder: folder, options: options, environment: environment,
                                     jobs: jobs, force: force)
            runner.shard = share
            let signals = SignalCancellation()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let outputName = output.hasSuffix("/") ? String(output.dropLast()) : output
            let (json, quiet) = (self.json, self.quiet)
            // On a terminal, one status line (done / running / failed, frames, ETA) under the finished scenes.
            let status = BatchStatusLine(enabled: json || quiet ? false : nil)
            let report = try runner.run(cancellation: signals.cancellation) { event in
                // Straight to the file descriptor: one line per event, even into a pipe.
                if json {
                    if let data = try? encoder.encode(event) { Self.say(String(decoding: data, as: UTF8.self)) }
                    return
                }
                let change: BatchStatusLine.Change = switch event.event {
                case .start: .started
                case .done: .rendered(frames: event.frames ?? 0)
                case .skipped: .skipped
                case .failed: .failed
                }
                status.report(change, total: event.total, line: quiet ? nil : Self.line(event, folder: outputName))
            }
            status.finish()
            if json {
                let summary: [String: Int] = ["rendered": report.rendered.count, "skipped": report.skipped.count,
                                              "failed": report.failed.count]
                let object: [String: Any] = ["event": "summary", "rendered": summary["rendered"]!,
                                             "skipped": summary["skipped"]!, "failed": summary["failed"]!]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                Self.say(String(decoding: data, as: UTF8.self))
            } else {
                if !quiet {
                    Self.say("\(report.rendered.count) rendered, \(report.skipped.count) skipped, \(report.failed.count) failed"
                          + (share.map { " (shard \($0.shard), \(outputName)/\($0.shard.manifestName))" }
                             ?? " (\(outputName)/manifest.json, \(outputName)/index.html)"))
                }
                printDiagnostics(report.failed.map { Diagnostic(message: $0.error ?? "failed", file: $0.scene) }, limit: nil)
            }
            if !report.succeeded { throw ExitCode.failure }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw fail(error)
        }
    }

    static func say(_ line: String) {
        fflush(nil)  // what print wrote before it
        writeLine(line, to: STDOUT_FILENO)
    }

    /// `[3/10] trips/a.json -> clips/trips/a.mp4 12.0 s, 360 frames in 4.1 s` for a finished scene.
    static func line(_ e: BatchEvent, folder: String) -> String? {
        let head = "[\(e.index)/\(e.total)] \(e.scene)"
        switch e.event {
        case .start: return nil
        case .done:
            return head + " -> \(folder)/\(e.output) " + String(format: "%.1f s, %d frames in %.1f s",
                                                                 e.duration ?? 0, e.frames ?? 0, e.seconds ?? 0)
        case .skipped:
            return head + " -> \(folder)/\(e.output) up to date, skipped"
        case .failed:
            return head + " failed: \(e.error ?? "unknown error")"
        }
    }
}
