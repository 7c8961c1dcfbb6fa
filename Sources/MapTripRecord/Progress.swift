import Foundation

/// Where a render is: enough for a progress line or a batch runner's log.
public struct RenderProgress: Sendable {
    public var frame: Int
    public var frameCount: Int
    public var elapsed: Double

    public init(frame: Int, frameCount: Int, elapsed: Double) {
        self.frame = frame
        self.frameCount = frameCount
        self.elapsed = elapsed
    }

    public var fraction: Double { frameCount == 0 ? 1 : Double(frame) / Double(frameCount) }
    public var framesPerSecond: Double { elapsed > 0 ? Double(frame) / elapsed : 0 }
    public var remaining: Double? {
        let fps = framesPerSecond
        return fps > 0 ? Double(frameCount - frame) / fps : nil
    }
}

/// Writes to standard output, standard error or any descriptor without ever trapping: write(2), all
/// of the bytes or until it fails. A closed pipe (EPIPE: SIGPIPE is ignored) or a full disk is the
/// reader's loss, never a crash (FileHandle.write traps on EPIPE) nor a change in what the run did.
public enum DescriptorWriter {
    /// Returns whether every byte was written.
    @discardableResult
    public static func write(_ text: String, to descriptor: Int32) -> Bool {
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + done, $0.count - done) }
            if n > 0 {
                done += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// Writes a short line only if the descriptor takes it within `milliseconds` (never blocking
    /// beyond: a pipe no one reads stays full), for the last words of a process that is ending. A
    /// line up to PIPE_BUF bytes goes in whole once poll says there is room. Returns whether it was.
    @discardableResult
    public static func writeIfReady(_ text: String, to descriptor: Int32, milliseconds: Int32 = 1000) -> Bool {
        let bytes = Array(text.utf8.prefix(512))
        var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        guard poll(&ready, 1, milliseconds) == 1, ready.revents & Int16(POLLOUT) != 0 else { return false }
        return bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress!, $0.count) } == bytes.count
    }
}

/// A one-line progress display on a terminal: count, percent, speed and time left, redrawn in
/// place a few times a second. Silent when the stream is not a terminal.
public final class ProgressLine {
    private let handle: FileHandle
    private let enabled: Bool
    private let unit: String
    private let rate: String
    private var lastDraw = -1.0
    private var width = 0

    /// `unit` names what is counted ("frame", "tile"), `rate` its speed ("fps", "tiles/s").
    public init(handle: FileHandle = .standardError, enabled: Bool? = nil, unit: String = "frame", rate: String = "fps") {
        self.handle = handle
        self.enabled = enabled ?? (isatty(handle.fileDescriptor) == 1)
        self.unit = unit
        self.rate = rate
    }

    public func update(_ p: RenderProgress, label: String) {
        guard enabled else { return }
        let done = p.frame == p.frameCount
        guard done || p.elapsed - lastDraw >= 0.2 else { return }
        lastDraw = p.elapsed
        var line = String(format: "%@  %@ %d/%d  %5.1f%%  %.1f %@", label, unit, p.frame, p.frameCount,
                          p.fraction * 100, p.framesPerSecond, rate)
        if let r = p.remaining, !done { line += "  ETA " + Self.clock(r) }
        let pad = max(0, width - line.count)
        width = line.count
        DescriptorWriter.write("\r" + line + String(repeating: " ", count: pad), to: handle.fileDescriptor)
    }

    /// Ends the line (after the last update).
    public func finish() {
        guard enabled, width > 0 else { return }
        DescriptorWriter.write("\n", to: handle.fileDescriptor)
        width = 0
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
            : String(format: "%d:%02d", s / 60, s % 60)
    }
}

/// The status line of a batch on a terminal: scenes done, running and failed, frames written, and the
/// time left (from the scenes finished so far), redrawn in place under the lines of finished scenes.
/// Thread-safe: the batch's jobs report from their own threads.
public final class BatchStatusLine: @unchecked Sendable {
    private let handle: FileHandle
    public let enabled: Bool
    private let lock = NSLock()
    private let start = Date()
    private var total = 0, done = 0, running = 0, failed = 0, skipped = 0, frames = 0
    private var width = 0

    public init(handle: FileHandle = .standardOutput, enabled: Bool? = nil) {
        self.handle = handle
        self.enabled = enabled ?? (isatty(handle.fileDescriptor) == 1)
    }

    /// A scene started (`started`), or ended: rendered with `frames`, skipped, or failed.
    public enum Change { case started, rendered(frames: Int), skipped, failed }

    /// Records a change, prints `line` (a finished scene's, if any) above the status and redraws it.
    public func report(_ change: Change, total: Int, line: String?) {
        lock.lock()
        defer { lock.unlock() }
        self.total = total
        switch change {
        case .started: running += 1
        case .rendered(let n): running -= 1; done += 1; frames += n
        case .skipped: running = max(0, running - 1); skipped += 1
        case .failed: running = max(0, running - 1); failed += 1
        }
        var out = ""
        if enabled && width > 0 { out += "\r" + String(repeating: " ", count: width) + "\r" }
        if let line { out += line + "\n" }
        if enabled {
            let status = text()
            width = status.count
            out += status
        }
        if !out.isEmpty { DescriptorWriter.write(out, to: handle.fileDescriptor) }
    }

    /// Clears the status line (before the summary).
    public func finish() {
        lock.lock()
        defer { lock.unlock() }
        guard enabled, width > 0 else { return }
        DescriptorWriter.write("\r" + String(repeating: " ", count: width) + "\r", to: handle.fileDescriptor)
        width = 0
    }

    func text() -> String {
        let finished = done + skipped + failed
        var s = "batch: \(finished)/\(total) done (\(done) rendered, \(skipped) skipped, \(failed) failed), "
            + "\(running) running, \(frames) frames"
        let elapsed = Date().timeIntervalSince(start)
        if done > 0, finished < total {
            let left = elapsed / Double(finished) * Double(total - finished)
            s += "  ETA " + ProgressLine.clock(left)
        }
        return s
    }
}
