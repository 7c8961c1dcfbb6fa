import Foundation

/// maptrip's temporary files: `.NAME.maptrip-<pid>-<random>@<host>.tmp` (a file, or a folder for
/// image sequences) beside the target `NAME`, renamed onto it only when complete. A process killed
/// outright (SIGKILL, a power cut) leaves its temporary file behind; the next run that writes into the
/// same folder, or a batch over it, removes it once its process is gone. The host in the name keeps
/// a run from taking another machine's live temporary file for a dead one (batch tasks on a cluster
/// share output folders); a name without one (older versions) counts as this host's.
public enum TemporaryFiles {
    /// A new temporary name beside `url`. Stale temporary files in its folder, left by dead processes
    /// of this host, are removed first.
    public static func name(beside url: URL) -> URL {
        removeStale(beside: url)
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let name = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).maptrip-\(getpid())-\(random)@\(host).tmp")
        named.insert(name.path)
        return name
    }

    /// Every temporary name this process was given: what `removeNamed` removes when the process must
    /// end at once (a signal a blocked call kept it from handling in its own time).
    private static let named = NamedPaths()

    /// Removes this process's temporary files and folders that are still there (those renamed onto
    /// their targets are not). For an exit that cannot wait for the code that made them.
    public static func removeNamed() {
        for path in named.all() { try? FileManager.default.removeItem(atPath: path) }
    }

    private final class NamedPaths: @unchecked Sendable {
        private let lock = NSLock()
        private var paths: Set<String> = []
        func insert(_ path: String) { _ = lock.withLock { paths.insert(path) } }
        func all() -> [String] { lock.withLock { Array(paths) } }
    }

    /// This machine's name as temporary files carry it (letters, digits, '.', '-' and '_').
    public static let host: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        let name = gethostname(&buffer, buffer.count) == 0 ? String(cString: buffer) : ""
        let kept = name.unicodeScalars.filter { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }
        return kept.isEmpty ? "localhost" : String(String.UnicodeScalarView(kept))
    }()

    /// Writes `data` to `url` atomically: to a temporary file beside it, flushed to the disk, then renamed
    /// onto it. On failure the temporary file is removed and `url` is as it was.
    public static func write(_ data: Data, to url: URL) throws {
        let temp = name(beside: url)
        let fd = open(temp.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw OutputError.notWritable(url.path, reason: String(cString: strerror(errno))) }
        var failure: Int32 = 0
        data.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let n = Foundation.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n < 0 { if errno == EINTR { continue }; failure = errno; return }
                done += n
            }
        }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == 0 { failure = errno }
        if failure == 0, Foundation.rename(temp.path, url.path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temp.path)
            throw OutputError.notWritable(url.path, reason: String(cString: strerror(failure)))
        }
    }

    /// Moves a finished temporary file onto its target: flushed to the disk first (`sync`), then renamed.
    /// `output`: what the target is, for the advice a failure gives.
    public static func commit(_ temporary: URL, onto target: URL, output: OutputKind = .video) throws {
        try sync(temporary)
        try rename(temporary, onto: target, output: output)
    }

    /// `commit`, with `meanwhile` run on the calling thread while another flushes the file to the disk
    /// (freeing what wrote it, say): the rename still waits for the flush.
    public static func commit(_ temporary: URL, onto target: URL, output: OutputKind = .video,
                              meanwhile: () -> Void) throws {
        let flush = Flush(temporary)
        meanwhile()
        try flush.wait()
        try rename(temporary, onto: target, output: output)
    }

    /// A file's `sync` on a thread of libdispatch's, waited for with `wait`.
    private final class Flush: @unchecked Sendable {
        private let done = DispatchGroup()
        /// Written by the flushing thread before it leaves `done`, read after waiting for it.
        private var failure: Error?

        init(_ url: URL) {
            DispatchQueue.global().async(group: done) { [self] in
                do { try sync(url) } catch { failure = error }
            }
        }

        func wait() throws {
            done.wait()
            if let failure { throw failure }
        }
    }

    /// Renames `from` onto `to` in one step, a failure said of `to` with what to do.
    public static func rename(_ from: URL, onto to: URL, output: OutputKind = .video) throws {
        if Foundation.rename(from.path, to.path) != 0 {
            let code = errno
            throw OutputError.notWritable(to.path, reason: storageFailure(errno: code, writing: from, output: output)
                                          ?? String(cString: strerror(code)))
        }
    }

    /// What an output is, in the advice a failed write gives: a render's video (its `-o`), or the tile
    /// set `maptrip tiles` writes (its output argument).
    public enum OutputKind: Sendable {
        case video, tiles

        /// The output, as the subject of "was written".
        var written: String { self == .video ? "the video was written" : "the tiles were written" }
        /// How to write it elsewhere.
        var elsewhere: String { self == .video ? "write the video elsewhere with -o" : "write the tiles to another path" }
        /// Where a file too large for its file system can go.
        var larger: String { self == .video ? "write elsewhere with -o" : "write elsewhere on another file system" }
        /// What was running when its folder went.
        var run: String { self == .video ? "render" : "run" }
    }

    /// What a failed write of `temporary` means and what to do, for the errors a disk gives (nil for
    /// others).
    public static func storageFailure(errno code: Int32, writing temporary: URL?, output: OutputKind = .video) -> String? {
        let text = String(cString: strerror(code))
        switch code {
        case ENOSPC, EDQUOT: return "\(text) (free some space, or \(output.elsewhere))"
        case EFBIG: return "\(text) (the file system cannot hold a file this large: \(output.larger))"
        case EIO: return "\(text) (the disk failed while \(output.written))"
        case EROFS: return "\(text) (\(output.elsewhere))"
        case EACCES, EPERM:
            let folder = temporary?.deletingLastPathComponent().path ?? "its folder"
            return "\(text) (this user may not write in \(folder): \(output.elsewhere))"
        case ENOENT:
            if let folder = temporary?.deletingLastPathComponent(), !FileManager.default.fileExists(atPath: folder.path) {
                return "its folder \(folder.path) was removed during the \(output.run)"
            }
            return text
        default: return nil
        }
    }

    /// Flushes a finished temporary file to the disk before it is renamed onto its target, so that a
    /// power cut cannot leave the target renamed but empty.
    public static func sync(_ url: URL) throws {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }  // gone (its folder removed): the rename that follows says so
        defer { close(fd) }
        if fsync(fd) != 0, errno != EINVAL {
            throw OutputError.notWritable(target(of: url).path, reason: String(cString: strerror(errno)))
        }
    }

    /// Removes the temporary files in the folder of `url` (of any target) whose process is no longer
    /// alive. Returns them.
    @discardableResult
    public static func removeStale(beside url: URL) -> [URL] {
        let folder = url.deletingLastPathComponent()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { owner($0) != nil }.compactMap { name in
            removeIfStale(folder.appendingPathComponent(name))
        }
    }

    /// Removes temporary files under `folder` (at any depth) left by processes that are no longer
    /// alive, only those whose target (`NAME` beside it) `owned` accepts. Returns what was removed.
    @discardableResult
    public static func removeStale(in folder: URL, owned: (URL) -> Bool = { _ in true }) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        var removed: [URL] = []
        for case let url as URL in walker where owner(url.lastPathComponent) != nil {
            walker.skipDescendants()
            if owned(target(of: url)), let gone = removeIfStale(url) { removed.append(gone) }
        }
        return removed
    }

    /// The pid in a temporary file's name, nil for other names.
    public static func owner(_ name: String) -> pid_t? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp"), let r = name.range(of: ".maptrip-", options: .backwards)
        else { return nil }
        let rest = name[r.upperBound...]
        guard let dash = rest.firstIndex(of: "-") else { return nil }
        return pid_t(rest[..<dash])
    }

    /// The host in a temporary file's name (nil for a name without one).
    static func ownerHost(_ name: String) -> String? {
        guard let at = name.range(of: "@", options: .backwards), name.hasSuffix(".tmp") else { return nil }
        return String(name[at.upperBound..<name.index(name.endIndex, offsetBy: -4)])
    }

    /// The output a temporary file was to become.
    static func target(of url: URL) -> URL {
        let name = url.lastPathComponent.dropFirst()
        let end = name.range(of: ".maptrip-", options: .backwards)?.lowerBound ?? name.endIndex
        return url.deletingLastPathComponent().appendingPathComponent(String(name[..<end]))
    }

    /// Removes `url` when the process named in it is gone (never this process's own, nor one of
    /// another host's, whose processes this one cannot see).
    private static func removeIfStale(_ url: URL) -> URL? {
        let name = url.lastPathComponent
        guard let pid = owner(name), (ownerHost(name) ?? host) == host,
              pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { return nil }
        return (try? FileManager.default.removeItem(at: url)) != nil ? url : nil
    }
}
