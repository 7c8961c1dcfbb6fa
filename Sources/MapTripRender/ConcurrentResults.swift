import Foundation

/// The results of work items done on several threads at once, by item: each written by one thread,
/// read after they are all done.
final class ConcurrentResults<Value>: @unchecked Sendable {
    private var results: [Result<Value, Error>?]
    private let lock = NSLock()
    init(count: Int) { results = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<Value, Error>) { lock.withLock { results[i] = r } }
    /// Item i's value, or its error.
    func get(_ i: Int) throws -> Value { try lock.withLock { results[i]! }.get() }
}
