import Foundation
#if os(Linux)
import Glibc
#else
#error("maptrip is built and tested on Linux (glibc) only: its calls to the system are here, in Platform")
#endif

/// The calls maptrip makes that are Linux's or glibc's own, in one place: where the program lives, a
/// file's times as `stat` gives them, a thread's priority and read-ahead advice. (glibc's allocator is
/// the `Heap` module's; the benchmark reads /proc for its figures.)
public enum Platform {
    /// This program's executable, symbolic links resolved.
    public static var executablePath: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    }

    /// A file's modification time: seconds since 1970, as FileManager gives it (a Double).
    public static func modifiedSeconds(_ s: stat) -> Double {
        Double(s.st_mtim.tv_sec) + Double(s.st_mtim.tv_nsec) / 1e9
    }

    /// A file's modification and status-change times, in nanoseconds since 1970.
    public static func modifiedAndChanged(_ s: stat) -> (modified: Int64, changed: Int64) {
        (Int64(s.st_mtim.tv_sec) * 1_000_000_000 + Int64(s.st_mtim.tv_nsec),
         Int64(s.st_ctim.tv_sec) * 1_000_000_000 + Int64(s.st_ctim.tv_nsec))
    }

    /// The calling thread's nice value (nil when it cannot be read). Linux's priorities are per thread:
    /// `who` 0 with PRIO_PROCESS is the calling thread alone.
    public static var threadNice: Int32? {
        errno = 0
        let n = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        return errno == 0 ? n : nil
    }

    /// Sets the calling thread's nice value (an unprivileged thread can only lower its priority).
    public static func setThreadNice(_ nice: Int32) {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
    }

    /// Tells the kernel these bytes of an open file will be read soon.
    public static func willRead(_ fd: Int32, offset: Int, count: Int) {
        _ = posix_fadvise(fd, off_t(offset), off_t(count), POSIX_FADV_WILLNEED)
    }

    /// Tells the kernel an open file's cached pages are not needed (the benchmark's cold reads).
    public static func dropCache(_ fd: Int32) {
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
    }
}
