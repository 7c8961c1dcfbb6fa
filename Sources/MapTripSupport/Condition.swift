import Foundation

extension NSCondition {
    /// Changes what the condition guards under its lock, then wakes every thread waiting on it.
    public func broadcast(after change: () throws -> Void) rethrows {
        lock()
        defer { unlock() }
        try change()
        broadcast()
    }
}
