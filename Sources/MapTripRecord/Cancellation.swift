import Dispatch
import Foundation
import MapTripOutput
import MapTripSupport

/// A flag the recorder polls between frames. Set by `SignalCancellation` on Ctrl-C / SIGTERM, or
/// by whoever drives a render (a batch runner, a test).
public final class Cancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var signal: Int32?

    public init() {}

    public var isCancelled: Bool { lock.withLock { signal != nil } }
    /// The signal that cancelled, if a signal did (for the exit code: 128 + signal).
    public var signalNumber: Int32? { lock.withLock { signal } }

    public func cancel(signal: Int32 = SIGINT) {
        lock.withLock { if self.signal == nil { self.signal = signal } }
    }
}

/// Why a render stopped early.
public struct CancelledError: Error, CustomStringConvertible, DiagnosticConvertible {
    public let signal: Int32

    public init(signal: Int32) { self.signal = signal }
    public var description: String {
        "interrupted by \(signal == SIGTERM ? "SIGTERM" : signal == SIGINT ? "Ctrl-C" : signal == SIGHUP ? "SIGHUP" : "signal \(signal)")"
    }
}

/// Routes SIGINT, SIGTERM and SIGHUP (a closed terminal) into a `Cancellation` while alive, so a
/// render can clean up (remove its temporary file) instead of dying mid-write. Restores the
/// default handlers when released.
///
/// A call that blocks (a write to a pipe no one reads, a stuck network peer) never sees the flag:
/// so no blocking call keeps a signal from ending the run, a process still running `grace` seconds
/// after the first signal, or at a second one, removes its temporary files and exits at once with
/// 128 + the signal, as shells expect.
public final class SignalCancellation {
    public let cancellation: Cancellation
    private var sources: [DispatchSourceSignal] = []
    private let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    private let armed = Armed()

    public init(_ cancellation: Cancellation = Cancellation(), grace: Double = 5) {
        self.cancellation = cancellation
        for sig in signals {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [cancellation, armed] in
                let first = !cancellation.isCancelled
                cancellation.cancel(signal: sig)
                if !first {
                    armed.endNow(signal: sig, after: nil)
                } else {
                    DispatchQueue.global().asyncAfter(deadline: .now() + grace) { armed.endNow(signal: sig, after: grace) }
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        // After a signal the process is ending: the exit at once stays armed for what follows (the
        // last message, to a pipe that may be full).
        if !cancellation.isCancelled { armed.disarm() }
        // libdispatch registers a signal source on its own thread, and on Linux installs its handler
        // for the signal then (one that hands the signal to the source and never goes away). A run that
        // fails at once (a missing scene) could restore the default before that registration: the
        // handler then took over, and Ctrl-C went to a source already gone, leaving a write to a full
        // pipe stuck for good. So the defaults go back once every source's cancellation, which
        // follows its registration, has completed.
        let cancelled = DispatchGroup()
        for s in sources {
            cancelled.enter()
            s.setCancelHandler { cancelled.leave() }
            s.cancel()
        }
        _ = cancelled.wait(timeout: .now() + 2)
        for sig in signals { signal(sig, SIG_DFL) }
    }

    /// Whether the run this guards is still going: an exit at once only while it is.
    private final class Armed: @unchecked Sendable {
        private let lock = NSLock()
        private var on = true

        func disarm() { lock.withLock { on = false } }

        func endNow(signal: Int32, after grace: Double?) {
            guard lock.withLock({ on }) else { return }
            TemporaryFiles.removeNamed()
            let why = grace.map { "still running \(String(format: "%g", $0)) s after the signal" } ?? "a second signal"
            let line = "maptrip: \(CancelledError(signal: signal)) (\(why): ended at once)\n"
            // Never blocking here: standard error may be the full pipe the run is stuck on.
            DescriptorWriter.writeIfReady(line, to: STDERR_FILENO)
            _exit(128 + signal)
        }
    }
}
