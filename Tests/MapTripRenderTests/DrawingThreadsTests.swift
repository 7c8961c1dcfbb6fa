import Foundation
@testable import MapTripRender
import Testing

/// Drawing threads yield to the encoder's: a thread lowers its own priority, and the work it hands to
/// libdispatch's workers runs at that priority too.
@Suite struct DrawingThreadsTests {
    /// Runs `body` on a thread of its own (its priority, once lowered, cannot be raised back).
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let box = Box<T>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.value = body()
            done.signal()
        }
        thread.start()
        done.wait()
        return box.value!
    }

    final class Box<T>: @unchecked Sendable { var value: T? }

    /// Sleeps on `condition` (broadcast at every change) until `done` holds, read under its lock, or
    /// `seconds` have passed: a second thread's arrival waited for without spinning.
    static func wait(on condition: NSCondition, seconds: Double, until done: () -> Bool) {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while !done() && condition.wait(until: deadline) {}
    }

    @Test func aThreadLowersItsPriorityAndNeverRaisesIt() {
        let (before, lowered, after) = Self.onOwnThread { () -> (Int32, Int32, Int32) in
            let before = DrawingThreads.currentNice
            DrawingThreads.yield(to: before + 7)
            let lowered = DrawingThreads.currentNice
            DrawingThreads.yield(to: before + 2)
            return (before, lowered, DrawingThreads.currentNice)
        }
        #expect(lowered == min(before + 7, 19))
        #expect(after == lowered, "yielding to a higher priority leaves it as it was")
        #expect(DrawingThreads.currentNice <= before, "another thread's priority is its own")
    }

    /// A crew's helpers take items beside the caller, at its (lowered) priority; libdispatch's
    /// shared workers are left at the process's.
    @Test func aCrewSharesTheItemsAtTheCallersPriority() {
        let (caller, seen, threads) = Self.onOwnThread { () -> (Int32, [Int32], Int) in
            DrawingThreads.yield(to: max(DrawingThreads.currentNice, 0) + 5)
            let caller = DrawingThreads.currentNice
            let lock = NSCondition()
            let results = Box<([Int32], Set<ObjectIdentifier>)>()
            results.value = (Array(repeating: -100, count: 16), [])
            DrawingThreads.withCrew(helpers: 2) {
                DrawingThreads.perform(iterations: 16) { i in
                    lock.withLock {
                        results.value!.0[i] = DrawingThreads.currentNice
                        results.value!.1.insert(ObjectIdentifier(Thread.current))
                        lock.broadcast()
                    }
                    // Each item waits (5 s at most) until a second thread has taken one.
                    Self.wait(on: lock, seconds: 5) { results.value!.1.count >= 2 }
                }
            }
            return (caller, results.value!.0, results.value!.1.count)
        }
        #expect(caller >= 5)
        #expect(threads >= 2, "the helpers took items")
        for (i, nice) in seen.enumerated() { #expect(nice == caller, "item \(i) ran at \(nice), its caller at \(caller)") }
        // The shared workers, asked from a thread at the process's priority, run at it.
        let shared = Self.onOwnThread { () -> (Int32, [Int32]) in
            let own = DrawingThreads.currentNice
            let lock = NSCondition()
            let seen = Box<[Int32]>()
            seen.value = []
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                let n = DrawingThreads.currentNice
                lock.withLock { seen.value!.append(n) }
            }
            return (own, seen.value!)
        }
        #expect(shared.1.allSatisfy { $0 == shared.0 }, "\(shared)")
    }

    /// A thread lowering itself with its crew (`yieldWithCrew`, as the drawing does once the encoder
    /// has its first frame): the items before it ran at the caller's first priority, every item after
    /// it, on the caller or a helper, at the lower one.
    @Test func aCrewFollowsItsCallerDown() {
        let (first, before, after, threads) = Self.onOwnThread { () -> (Int32, Set<Int32>, Set<Int32>, Int) in
            let first = max(DrawingThreads.currentNice, 0) + 2
            DrawingThreads.yield(to: first)
            let lock = NSCondition()
            let seen = Box<(Set<Int32>, Set<ObjectIdentifier>)>()
            func items() -> Set<Int32> {
                seen.value = ([], [])
                DrawingThreads.perform(iterations: 16) { _ in
                    lock.withLock {
                        seen.value!.0.insert(DrawingThreads.currentNice)
                        seen.value!.1.insert(ObjectIdentifier(Thread.current))
                        lock.broadcast()
                    }
                    // Each item waits (5 s at most) until a second thread has taken one.
                    Self.wait(on: lock, seconds: 5) { seen.value!.1.count >= 2 }
                }
                return seen.value!.0
            }
            return DrawingThreads.withCrew(helpers: 2) {
                let before = items()
                DrawingThreads.yieldWithCrew(to: first + 4)
                let after = items()
                return (first, before, after, seen.value!.1.count)
            }
        }
        #expect(threads >= 2, "the helpers took items")
        #expect(before == [first])
        #expect(after == [min(first + 4, 19)])
    }

    /// A `perform` from within an item (the crew busy) runs its items on the calling thread, all of
    /// them; one from a lowered thread without a crew too, not on the shared workers.
    @Test func aPerformWithinAnItemRunsWhole() {
        let (outer, inner, lowered) = Self.onOwnThread { () -> (Int, Int, Set<Int32>) in
            DrawingThreads.yield(to: max(DrawingThreads.currentNice, 0) + 3)
            let lock = NSCondition()
            let counts = Box<(Int, Int, Set<Int32>)>()
            counts.value = (0, 0, [])
            DrawingThreads.withCrew(helpers: 1) {
                DrawingThreads.perform(iterations: 6) { _ in
                    lock.withLock { counts.value!.0 += 1 }
                    DrawingThreads.perform(iterations: 5) { _ in
                        let n = DrawingThreads.currentNice
                        lock.withLock {
                            counts.value!.1 += 1
                            counts.value!.2.insert(n)
                        }
                    }
                }
            }
            return counts.value!
        }
        #expect(outer == 6)
        #expect(inner == 30)
        #expect(lowered.allSatisfy { $0 >= 3 }, "\(lowered)")
    }

    /// A crew told not to share (the encoder has frames enough waiting) runs every item on the calling
    /// thread; told again to share, its helpers take items.
    @Test func aCrewNotInAHurryRunsItemsOnTheCaller() {
        let (alone, shared) = Self.onOwnThread { () -> (Set<ObjectIdentifier>, Set<ObjectIdentifier>) in
            let lock = NSCondition()
            let hurry = Box<Bool>()
            hurry.value = false
            let threads = Box<Set<ObjectIdentifier>>()
            func run() -> Set<ObjectIdentifier> {
                threads.value = []
                DrawingThreads.perform(iterations: 8) { _ in
                    lock.withLock {
                        _ = threads.value!.insert(ObjectIdentifier(Thread.current))
                        lock.broadcast()
                    }
                    guard lock.withLock({ hurry.value! }) else { return }
                    // Each item waits (2 s at most) for a second thread to take one.
                    Self.wait(on: lock, seconds: 2) { threads.value!.count >= 2 }
                }
                return threads.value!
            }
            return DrawingThreads.withCrew(helpers: 1, shares: { lock.withLock { hurry.value! } }) {
                let alone = run()
                lock.withLock { hurry.value = true }
                return (alone, run())
            }
        }
        #expect(alone.count == 1, "every item on the caller")
        #expect(shared.count == 2, "a helper took items once told to share")
    }
}
