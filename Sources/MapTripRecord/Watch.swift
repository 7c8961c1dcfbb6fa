import Foundation
import MapTripSupport

/// Runs a job again each time one of its files is saved (`--watch`): the scene, and the files it
/// names (a local tile folder or MBTiles file, a sound track). Polls modification stamps, which is
/// simple and works on every file system and with every editor (in place writes and atomic
/// renames alike).
///
/// A run that fails is reported and the watch goes on (the next save tries again); Ctrl-C (the
/// cancellation) ends it with `CancelledError`, whether it comes while waiting or during a run.
public final class FileWatch {
    /// Seconds between polls.
    public var interval: Double
    /// In a folder holding more files than this (a large tile pyramid), the rest are watched by name
    /// only: files added, removed or renamed, not rewritten in place.
    public var maxFilesPerFolder = 20_000

    public init(interval: Double = 0.3) {
        self.interval = interval
    }

    /// What happened, for whoever shows it.
    public enum Event {
        /// Run number `run` (from 1) is starting; `changed` lists the files that changed since the last
        /// (empty for the first run).
        case starting(run: Int, changed: [URL])
        /// It failed with this error; the watch goes on.
        case failed(run: Int, Error)
        /// It succeeded.
        case finished(run: Int)
    }

    /// Calls `job` now, then again after each change to `files` or to the files the last successful
    /// run returned (the scene's inputs), until `stop` says so (asked after every run and at every
    /// poll) or `cancellation` fires (then throws `CancelledError`). A change is acted on once the
    /// files have been still for one poll, so a save in several writes runs the job once.
    public func run(watching files: [URL], cancellation: Cancellation, stop: () -> Bool = { false },
                    events: (Event) -> Void = { _ in }, job: () throws -> [URL]) throws {
        var watched = Self.unique(files)
        var stamps = stamp(watched)
        var changed: [URL] = []
        var count = 0
        while true {
            if let sig = cancellation.signalNumber { throw CancelledError(signal: sig) }
            count += 1
            events(.starting(run: count, changed: changed))
            do {
                let more = try job()
                let now = Self.unique(files + more)
                if now != watched {
                    // Files named for the first time are taken as they are now.
                    let old = Dictionary(uniqueKeysWithValues: zip(watched.map(\.path), stamps))
                    let fresh = stamp(now)
                    stamps = now.indices.map { old[now[$0].path] ?? fresh[$0] }
                    watched = now
                }
                events(.finished(run: count))
            } catch let error as CancelledError {
                throw error
            } catch {
                if let sig = cancellation.signalNumber { throw CancelledError(signal: sig) }
                events(.failed(run: count, error))
            }
            if stop() { return }
            // Wait for a change, then for the files to settle.
            var current = stamps
            while current == stamps {
                try sleep(cancellation)
                if stop() { return }
                current = stamp(watched)
            }
            while true {
                try sleep(cancellation)
                let again = stamp(watched)
                if again == current { break }
                current = again
            }
            changed = watched.indices.filter { stamps[$0] != current[$0] }.map { watched[$0] }
            stamps = current
        }
    }

    /// One stamp per file: what changes when it is saved (inode, size, modification and change
    /// times; for a folder, those of everything in it); nil when it does not exist.
    public func stamp(_ files: [URL]) -> [FileStamp?] {
        files.map { url in
            guard var s = FileStamp(path: url.path) else { return nil }
            if s.isDirectory { s.contents = folderStamp(url) }
            return s
        }
    }

    private func folderStamp(_ folder: URL) -> Int {
        var hasher = Hasher()
        var count = 0
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return 0 }
        for case let name as String in walker {
            count += 1
            hasher.combine(name)
            // Past the limit, names only: additions, removals and renames still show.
            if count <= maxFilesPerFolder, let s = FileStamp(path: folder.path + "/" + name) { hasher.combine(s) }
        }
        return hasher.finalize()
    }

    private func sleep(_ cancellation: Cancellation) throws {
        // In slices, so Ctrl-C is acted on at once.
        let end = Date().addingTimeInterval(interval)
        while Date() < end {
            if let sig = cancellation.signalNumber { throw CancelledError(signal: sig) }
            usleep(UInt32(max(1_000, min(50_000, end.timeIntervalSinceNow * 1e6))))
        }
        if let sig = cancellation.signalNumber { throw CancelledError(signal: sig) }
    }

    static func unique(_ urls: [URL]) -> [URL] {
        var seen = Set<String>()
        return urls.map { URL(fileURLWithPath: $0.standardizedFileURL.path) }.filter { seen.insert($0.path).inserted }
    }
}

/// What `stat` says of a file that changes when it is written.
public struct FileStamp: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var modified: Int64
    public var changed: Int64
    public var isDirectory: Bool
    /// For a folder: a digest of the stamps of everything in it.
    public var contents = 0

    public init?(path: String) {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        device = UInt64(s.st_dev)
        inode = UInt64(s.st_ino)
        size = Int64(s.st_size)
        (modified, changed) = Platform.modifiedAndChanged(s)
        isDirectory = s.st_mode & S_IFMT == S_IFDIR
    }
}

extension FileWatch {
    /// Previews again at each save: the scene and the files it names are watched.
    public func run(_ job: PreviewJob, cancellation: Cancellation, stop: () -> Bool = { false },
                    events: (Event) -> Void = { _ in }, finished: (PreviewSummary) -> Void) throws {
        try run(watching: [job.scene], cancellation: cancellation, stop: stop, events: events) {
            let summary = try job.run(cancellation: cancellation)
            finished(summary)
            return summary.inputs
        }
    }

    /// Renders again at each save (`render --draft --watch`): the scene, the files it names and
    /// `--audio`'s are watched.
    public func run(_ job: RenderJob, cancellation: Cancellation, stop: () -> Bool = { false },
                    events: (Event) -> Void = { _ in }, progress: ((RenderProgress) -> Void)? = nil,
                    finished: (RecordSummary) -> Void) throws {
        try run(watching: [job.scene], cancellation: cancellation, stop: stop, events: events) {
            let summary = try job.run(cancellation: cancellation, progress: progress)
            finished(summary)
            return job.inputs()
        }
    }
}

extension RenderJob {
    /// The files this render reads: the scene, the files it names, the `--audio` file.
    public func inputs() -> [URL] {
        var files = [scene]
        if let loaded = try? RenderJob.loadScene(scene, transparent: transparent, environment: environment) { files += loaded.files }
        if let audioFile { files.append(URL(fileURLWithPath: audioFile)) }
        return files
    }
}
