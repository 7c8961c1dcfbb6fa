import FFmpeg
import Foundation
import MapTripScene
import MapTripOutput
import MapTripRecord
import MapTripSupport

/// One thing that happened in a batch, for a log line or a tool (`--json`: one object per line).
public struct BatchEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case start, done, skipped, failed }
    public var event: Kind
    /// 1-based position in the batch, and the batch's size.
    public var index: Int
    public var total: Int
    public var scene: String
    public var output: String
    public var poster: String?
    public var title: String?
    public var duration: Double?
    public var frames: Int?
    public var size: Int?
    /// Seconds the render took.
    public var seconds: Double?
    public var error: String?
}

/// What a batch did with each scene, in the batch's order.
public struct BatchReport: Sendable {
    public var events: [BatchEvent]
    public var rendered: [BatchEvent] { events.filter { $0.event == .done } }
    public var skipped: [BatchEvent] { events.filter { $0.event == .skipped } }
    public var failed: [BatchEvent] { events.filter { $0.event == .failed } }
    public var succeeded: Bool { failed.isEmpty }
}

/// Renders a batch of scenes into a folder, `jobs` at a time, each one a `RenderJob` (clip and
/// poster, written to temporary files and renamed when complete). A scene that fails is reported
/// and the others go on. Each clip records the SHA-256 of what made it in its `comment` tag
/// (`maptrip <version> maptrip-source=<hex>`), and a clip whose record matches is skipped unless
/// `force`. Writes `manifest.json` and `index.html` into the folder at the end.
public final class BatchRunner: @unchecked Sendable {
    public let plan: BatchPlan
    public let folder: URL
    public let options: BatchOptions
    public let environment: RenderEnvironment
    public var jobs: Int
    public var force: Bool
    /// A shard's share of a larger batch (`plan` is then the share's): writes `manifest.K.json`
    /// instead of `manifest.json` and `index.html`, and leaves other shards' temporary files alone.
    public var shard: BatchShard.Share?

    public init(plan: BatchPlan, folder: URL, options: BatchOptions, environment: RenderEnvironment,
                jobs: Int = 1, force: Bool = false) {
        self.plan = plan
        self.folder = folder
        self.options = options
        // The embedded map is read once for the whole batch (not once per scene).
        self.environment = environment.sharingBaseMapData()
        self.jobs = max(1, jobs)
        self.force = force
    }

    /// The tag every clip's `comment` carries: `maptrip-source=<hex>`.
    public static let sourceTag = "maptrip-source="

    /// Runs the batch. `onEvent` is called for each start and end, one call at a time. Throws only
    /// for the folder itself (it cannot be made) or a `CancelledError` once cancelled (after the
    /// scenes under way have stopped and their temporary files are gone).
    public func run(cancellation: Cancellation = Cancellation(),
                    onEvent: @escaping @Sendable (BatchEvent) -> Void = { _ in })
        throws -> BatchReport {
        try OutputPlan.createFolder(folder, label: "batch output folder")
        if let shard {
            // Other shards may be writing into this folder from other machines (pids mean nothing there).
            let own = Set(plan.items.flatMap { [$0.output.path, $0.poster.path] }
                          + [folder.appendingPathComponent(shard.shard.manifestName).standardizedFileURL.path])
            TemporaryFiles.removeStale(in: folder) { own.contains($0.standardizedFileURL.path) }
        } else {
            TemporaryFiles.removeStale(in: folder)
        }
        let items = plan.items
        let state = WorkState(count: items.count, onEvent: onEvent)
        let group = DispatchGroup()
        for _ in 0..<min(jobs, max(1, items.count)) {
            group.enter()
            let thread = Thread { [self] in
                while let i = state.take(unless: cancellation) {
                    let result = self.render(items[i], index: i + 1, total: items.count, cancellation: cancellation,
                                             emit: state.emit)
                    state.store(result, at: i)
                }
                group.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        group.wait()
        let results = state.results
        let events = results.enumerated().map { i, event in
            event ?? BatchEvent(event: .failed, index: i + 1, total: items.count, scene: items[i].name,
                                output: relative(items[i].output), error: "not rendered: the batch was interrupted")
        }
        let report = BatchReport(events: events)
        if let shard {
            try BatchManifest.writeShard(report, share: shard, folder: folder)
        } else {
            try BatchManifest.write(report, folder: folder, items: items)
        }
        if let signal = cancellation.signalNumber { throw CancelledError(signal: signal) }
        return report
    }

    /// A path inside the output folder, relative to it.
    func relative(_ url: URL) -> String {
        let base = folder.standardizedFileURL.path
        let path = url.standardizedFileURL.path
        return path.hasPrefix(base + "/") ? String(path.dropFirst(base.count + 1)) : path
    }

    func render(_ item: BatchItem, index: Int, total: Int, cancellation: Cancellation,
                emit: (BatchEvent) -> Void) -> BatchEvent {
        var event = BatchEvent(event: .start, index: index, total: total, scene: item.name,
                               output: relative(item.output), poster: relative(item.poster))
        var request = OutputRequest(path: item.output.path, format: options.format, codec: options.codec,
                                    options: options.encoding, fps: options.fps, width: options.width)
        request.workingDirectory = folder
        var job = RenderJob(scene: item.scene, output: request, environment: environment,
                            poster: PosterRequest(path: item.poster.path, time: nil))
        do {
            let prepared = try job.prepare()
            event.title = prepared.scene.title
            let hash = try sourceHash(item, scene: prepared.scene)
            if !force, let existing = Self.existingClip(item, hash: hash) {
                event.event = .skipped
                event.duration = existing.duration
                event.frames = existing.videoStreams.first?.frameCount
                event.size = existing.fileSize
                emit(event)
                return event
            }
            emit(event)
            job.metadata["comment"] = "maptrip \(maptripVersion) \(Self.sourceTag)\(hash)"
            let summary = try job.run(cancellation: cancellation)
            event.event = .done
            event.duration = summary.duration
            event.frames = summary.frames
            event.seconds = summary.seconds
            event.size = (try? FileManager.default.attributesOfItem(atPath: item.output.path)[.size] as? Int) ?? nil
        } catch {
            event.event = .failed
            event.error = Self.message(error)
        }
        emit(event)
        return event
    }

    /// One line for an error, as the CLI would print it: its diagnostics, separated by semicolons.
    static func message(_ error: Error) -> String {
        Diagnostic.from(error).map(\.description).joined(separator: "; ")
    }

    /// The clip's info when it exists, records `hash` and has its poster; nil otherwise.
    static func existingClip(_ item: BatchItem, hash: String) -> MediaInfo? {
        guard FileManager.default.fileExists(atPath: item.poster.path),
              let info = try? MediaInfo(path: item.output.path) else { return nil }
        let comment = info.metadata.first { $0.key.lowercased() == "comment" }?.value ?? ""
        return comment.contains(sourceTag + hash) ? info : nil
    }

    /// SHA-256 of what makes the clip: maptrip's version, the options that change its bytes, the
    /// scene file's bytes and those of the files it names (a tile folder: every file's path and
    /// bytes). Remote tiles are not hashed (their URL template is, in the scene).
    func sourceHash(_ item: BatchItem, scene: Scene) throws -> String {
        let h = try SHA256()
        h.update("maptrip-batch 1\nversion \(maptripVersion)\noptions \(options.fingerprint)\n")
        let sceneBytes = try Data(contentsOf: item.scene)
        h.update("scene \(sceneBytes.count)\n")
        h.update(sceneBytes)
        let files = RenderJob.files(named: scene, sceneDirectory: item.scene.deletingLastPathComponent())
        for file in files { try Self.hash(file, into: h) }
        return h.finalHex()
    }

    static func hash(_ url: URL, into h: SHA256) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            h.update("missing \(url.path)\n")
            return
        }
        if !isDirectory.boolValue {
            let data = try Data(contentsOf: url, options: .mappedIfSafe)
            h.update("file \(url.lastPathComponent) \(data.count)\n")
            h.update(data)
            return
        }
        let paths = (FileManager.default.enumerator(atPath: url.path)?.compactMap { $0 as? String } ?? []).sorted()
        for path in paths {
            let file = url.appendingPathComponent(path)
            var dir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &dir), !dir.boolValue else { continue }
            let data = try Data(contentsOf: file, options: .mappedIfSafe)
            h.update("file \(path) \(data.count)\n")
            h.update(data)
        }
    }
}

/// The scenes left to take and the results so far, shared by a batch's worker threads.
final class WorkState: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private let count: Int
    private var stored: [BatchEvent?]
    private let onEvent: (BatchEvent) -> Void

    init(count: Int, onEvent: @escaping (BatchEvent) -> Void) {
        self.count = count
        self.onEvent = onEvent
        stored = Array(repeating: nil, count: count)
    }

    /// The next scene's index, nil when all are taken or the batch is cancelled.
    func take(unless cancellation: Cancellation) -> Int? {
        lock.withLock {
            guard next < count, !cancellation.isCancelled else { return nil }
            defer { next += 1 }
            return next
        }
    }

    func store(_ event: BatchEvent, at i: Int) { lock.withLock { stored[i] = event } }

    /// Reports an event, one at a time.
    func emit(_ event: BatchEvent) { lock.withLock { onEvent(event) } }

    var results: [BatchEvent?] { lock.withLock { stored } }
}
