internal import Dispatch
import Synchronization

/// Runs async work from a C caller's thread and blocks that thread until it finishes. The work runs on Swift's
/// concurrency pool, so the caller must not be one of the pool's threads (simplex.h says so).
func blockingWait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let slot = Slot<T>()
    Task.detached { slot.put(await work()) }
    return slot.take()
}

/// One value handed from a task to a waiting thread.
private final class Slot<T: Sendable>: Sendable {
    private let value = Mutex<T?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    func put(_ v: T) {
        value.withLock { $0 = v }
        ready.signal()
    }

    func take() -> T {
        while true {
            ready.wait()
            if let v = value.withLock({ $0.take() }) { return v }
        }
    }
}
