import Foundation

/// How a folder maptrip keeps things in between runs stays within bounds (the geometry cache, the
/// drawn tile cache): files unused for `maxAge` go, then the least recently used ones until the
/// folder holds at most `maxBytes`. "Used" is a file's modification time: written, or marked when
/// read back (at most once a day).
public struct CacheBounds: Sendable, Equatable {
    public var maxAge: TimeInterval
    public var maxBytes: Int

    public init(maxAge: TimeInterval, maxBytes: Int) {
        self.maxAge = maxAge
        self.maxBytes = maxBytes
    }

    /// A file the bounds may remove: where it is, when it was last used, its size.
    public struct Entry {
        public var path: String
        public var used: Date
        public var bytes: Int

        public init(path: String, used: Date, bytes: Int) {
            self.path = path
            self.used = used
            self.bytes = bytes
        }
    }

    /// Removes (with `remove`, which says whether it did) what must go of `entries` for the folder to
    /// be within bounds, `others` bytes held beside them that are not to be removed. Returns the
    /// paths removed.
    @discardableResult
    public func prune(_ entries: [Entry], others: Int = 0, now: Date = Date(),
                      remove: (String) -> Bool) -> [String] {
        var total = others + entries.reduce(0) { $0 + $1.bytes }
        var removed: [String] = []
        for e in entries.sorted(by: { $0.used < $1.used }) {
            guard now.timeIntervalSince(e.used) > maxAge || total > maxBytes else { break }
            if remove(e.path) {
                total -= e.bytes
                removed.append(e.path)
            }
        }
        return removed
    }

    /// Marks the file at `path`, last modified at `modified`, as used now, if it was last marked more
    /// than a day ago (a file read back: once a day is enough for pruning, and spares the disk a
    /// metadata write on every read).
    public static func markUsed(_ path: String, modified: Date, now: Date = Date()) {
        if now.timeIntervalSince(modified) > 86_400 { utimensat(AT_FDCWD, path, nil, 0) }
    }

    /// The size and modification time of the regular file at `path` (nil: none, or not a regular file).
    /// `stat` itself: Foundation's attributes also look the owner's name up, file by file.
    public static func status(_ path: String) -> (bytes: Int, modified: Date)? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        let modified = Date(timeIntervalSince1970: Platform.modifiedSeconds(st))
        return (Int(st.st_size), modified)
    }
}
