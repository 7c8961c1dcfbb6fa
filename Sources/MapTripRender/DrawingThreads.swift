import Foundation
import MapTripSupport

/// How the drawing shares the machine with the encoder. The encoder is the floor of a render: the
/// drawing only has to keep it fed, a few frames ahead. Run at the same priority, drawing threads take
/// cores from x264's threads whenever both are runnable, and a frame thread held up that way holds up
/// the others waiting on its rows. So the drawing thread hands its parallel work to a crew of helper
/// threads it starts itself (`withCrew`, `perform`) and, once the encoder has its first frame, lowers
/// its own priority and theirs (`yieldWithCrew`; before that frame the encoder has nothing to do, and
/// the frame is drawn beside the labels' preparation and the encoder's opening at the process's
/// priority): x264 gets a core whenever it can use one, the drawing the rest, and when
/// the frames waiting run out the encoder's threads wait and the drawing has the machine. Nothing is
/// starved: a low priority is a small share, not none. libdispatch's shared workers are not used for
/// it: a thread may lower its own priority but not raise it back, and they serve the whole process.
///
/// Measured (the world tour, whole renders alternated, 30 rounds, `ultrafast`): wall time 0.962-0.990
/// of the same build at one priority in four sets, CPU 0.98-0.99; `veryfast` 0.995 (12 rounds);
/// batches' clips per hour the same.
public enum DrawingThreads {
    /// The nice value drawing threads run at: the lowest share (19: about 1.5% of a core against a
    /// thread at 0 when both want it). Linux's priorities are per thread.
    public static let nice: Int32 = 19

    /// The calling thread's nice value (0 when it cannot be read).
    public static var currentNice: Int32 { Platform.threadNice ?? 0 }

    /// Lowers the calling thread's priority to `nice` (only ever lowers it: a thread already lower
    /// stays so; an unprivileged thread cannot raise it back). `who` 0 is the calling thread alone.
    public static func yield(to nice: Int32) {
        guard currentNice < nice else { return }
        Platform.setThreadNice(nice)
    }

    /// Lowers the calling thread's priority to `nice` (see `yield(to:)`), and its crew's helpers' (see
    /// `withCrew`), each as it next takes an item.
    public static func yieldWithCrew(to nice: Int32) {
        yield(to: nice)
        crew?.yield(to: nice)
    }

    /// The calling thread's crew: a thread-specific value (a thread's dictionary costs a bridged
    /// string key's hash at every `perform`, several a frame).
    private static let crewKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The crew of the calling thread (set by `withCrew` for its duration, and on each helper).
    fileprivate static var crew: DrawingCrew? {
        get { pthread_getspecific(crewKey).map { Unmanaged<DrawingCrew>.fromOpaque($0).takeUnretainedValue() } }
        set { pthread_setspecific(crewKey, newValue.map { Unmanaged.passUnretained($0).toOpaque() }) }
    }

    /// Runs `body` with a crew of `helpers` threads (started now, from the calling thread: at its
    /// priority) taking the items of every `perform` the calling thread makes, stopped after.
    ///
    /// `shares`, asked at each `perform`: whether to hand its items to the helpers now (nil: always).
    /// Waking a helper costs both threads some microseconds of the CPU the encoder would use; where
    /// the encoder has frames enough waiting, the drawing is not in a hurry and does its items alone.
    public static func withCrew<T>(helpers: Int = max(1, ProcessInfo.processInfo.activeProcessorCount - 1),
                                   shares: (@Sendable () -> Bool)? = nil,
                                   _ body: () throws -> T) rethrows -> T {
        let crew = DrawingCrew(helpers: helpers, shares: shares)
        let outer = Self.crew
        Self.crew = crew
        defer {
            Self.crew = outer
            crew.stop()
        }
        return try withExtendedLifetime(crew) { try body() }
    }

    /// Items 0..<iterations of `body`, on several threads at once, returning when all are done: on the
    /// crew of the calling thread (see `withCrew`; a crew's helpers belong to it too) where it has one,
    /// else on libdispatch's `concurrentPerform`.
    public static func perform(iterations: Int, _ body: @Sendable (Int) -> Void) {
        if let crew = Self.crew {
            crew.perform(iterations: iterations, body)
        } else {
            DispatchQueue.concurrentPerform(iterations: iterations, execute: body)
        }
    }
}

/// Helper threads sharing one thread's work items (`DrawingThreads.withCrew`): the caller takes items
/// too, and returns when every item is done. A `perform` made while one is under way (from an item,
/// on the caller or a helper: each helper has the crew as its own) runs its items on the calling thread,
/// not on the shared workers, which would run them at the process's priority.
final class DrawingCrew: @unchecked Sendable {
    private let condition = NSCondition()
    private var body: ((Int) -> Void)?
    private var iterations = 0, next = 0, unfinished = 0
    private var stopped = false
    private let finished = DispatchGroup()
    /// Whether a `perform` hands its items to the helpers (nil: always; see `DrawingThreads.withCrew`).
    private let shares: (@Sendable () -> Bool)?
    /// The nice value the helpers are to run at (see `yield(to:)`), nil until one is asked.
    private var nice: Int32?

    init(helpers: Int, shares: (@Sendable () -> Bool)? = nil) {
        self.shares = shares
        for k in 0..<helpers {
            finished.enter()
            let thread = Thread { [self] in
                DrawingThreads.crew = self
                work()
                finished.leave()
            }
            thread.name = "maptrip-draw-\(k + 1)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    private func work() {
        var lowered: Int32?
        condition.lock()
        while true {
            while !stopped && (body == nil || next >= iterations) { condition.wait() }
            if stopped { break }
            if let nice, nice != lowered {
                DrawingThreads.yield(to: nice)
                lowered = nice
            }
            runNext(body!)
        }
        condition.unlock()
    }

    /// Has the helpers lower their priority to `nice`, each before the next item it takes (a thread
    /// can only lower its own).
    func yield(to nice: Int32) {
        condition.lock()
        self.nice = nice
        condition.unlock()
    }

    /// Runs the next item of the perform under way (called with the lock held and an item left; the
    /// lock is let go while the item runs), and wakes the waiting caller when it was the last.
    private func runNext(_ item: (Int) -> Void) {
        let i = next
        next += 1
        condition.unlock()
        item(i)
        condition.lock()
        unfinished -= 1
        if unfinished == 0 { condition.broadcast() }
    }

    func perform(iterations count: Int, _ body: (Int) -> Void) {
        guard count > 0 else { return }
        if count == 1 || shares?() == false {
            for i in 0..<count { body(i) }
            return
        }
        condition.lock()
        guard self.body == nil else {
            condition.unlock()
            for i in 0..<count { body(i) }
            return
        }
        withoutActuallyEscaping(body) { item in
            self.body = item
            iterations = count
            next = 0
            unfinished = count
            condition.broadcast()
            while next < iterations { runNext(item) }
            while unfinished > 0 { condition.wait() }
            self.body = nil
        }
        condition.unlock()
    }

    func stop() {
        condition.broadcast { stopped = true }
        finished.wait()
    }
}
