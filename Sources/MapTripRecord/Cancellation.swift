import Dispatch
import Foundation

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
public struct CancelledError: Error, CustomStringConvertible {
    public let signal: Int32

    public init(signal: Int32) { self.signal = signal }
    public var description: String {
        "interrupted by \(signal == SIGTERM ? "SIGTERM" : signal == SIGINT ? "Ctrl-C" : signal == SIGHUP ? "SIGHUP" : "signal \(signal)")"
    }
}

/// Routes SIGINT, SIGTERM and SIGHUP (a closed terminal) into a `Cancellation` while alive, so a
/// render can clean up (remove its temporary file) instead of dying mid-write. Restores the
/// default handlers when released.
public final class SignalCancellation {
    public let cancellation: Cancellation
    private var sources: [DispatchSourceSignal] = []
    private let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    public init(_ cancellation: Cancellation = Cancellation()) {
        self.cancellation = cancellation
        for sig in signals {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [cancellation] in cancellation.cancel(signal: sig) }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        for s in sources { s.cancel() }
        for sig in signals { signal(sig, SIG_DFL) }
    }
}
