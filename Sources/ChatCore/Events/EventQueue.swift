internal import Dispatch
import Synchronization

/// The core's outgoing events (chat-api.md §1.3): one ordered, bounded queue. Items leave in the order they were put;
/// readers wait with a deadline (`chat_recv_msg_wait`: nothing on timeout) and are served in the order they came;
/// when the queue is full, writers wait for room (the core's `tbqSize = 4096`, where producers block).
///
/// Tasks use `put` and `next`, which suspend; threads of their own (the C ABI's callers) use `putBlocking` and
/// `nextBlocking`, which block their thread. Both kinds wait in the same lines, so either may meet the other.
public final class EventQueue: Sendable {
    public let capacity: Int
    private let state: Mutex<State>

    private struct Reader {
        let id: UInt64
        var wake: ReaderWake
    }

    /// How a waiting reader is given its item (nil: its wait ended).
    private enum ReaderWake {
        case task(CheckedContinuation<EnvelopeJSON?, Never>, timer: Task<Void, Never>?)
        case thread(ThreadHandoff)

        func deliver(_ item: EnvelopeJSON?) {
            switch self {
            case .task(let continuation, let timer):
                timer?.cancel()
                continuation.resume(returning: item)
            case .thread(let handoff):
                handoff.item.withLock { $0 = item }
                handoff.ready.signal()
            }
        }
    }

    /// How a waiting writer is told its item is in.
    private enum WriterWake {
        case task(CheckedContinuation<Void, Never>)
        case thread(DispatchSemaphore)

        func admitted() {
            switch self {
            case .task(let continuation): continuation.resume()
            case .thread(let semaphore): semaphore.signal()
            }
        }
    }

    private struct Writer {
        let item: EnvelopeJSON
        let wake: WriterWake
    }

    /// One item handed to a blocked thread.
    private final class ThreadHandoff: Sendable {
        let item = Mutex<EnvelopeJSON?>(nil)
        let ready = DispatchSemaphore(value: 0)
    }

    private struct State {
        var items: [EnvelopeJSON] = []
        var head = 0
        var readers: [Reader] = []
        var writers: [Writer] = []
        var nextId: UInt64 = 0

        var count: Int { items.count - head }

        mutating func removeFirst() -> EnvelopeJSON? {
            guard head < items.count else { return nil }
            let item = items[head]
            head += 1
            if head > 1024 && head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
            return item
        }

        mutating func newId() -> UInt64 {
            defer { nextId += 1 }
            return nextId
        }

        mutating func removeReader(_ id: UInt64) -> Reader? {
            guard let i = readers.firstIndex(where: { $0.id == id }) else { return nil }
            return readers.remove(at: i)
        }
    }

    public init(capacity: Int = 4096) {
        precondition(capacity > 0, "an event queue holds at least one item")
        self.capacity = capacity
        state = Mutex(State())
    }

    /// Items waiting to be read.
    public var count: Int { state.withLock { $0.count } }

    private enum PutOutcome {
        case delivered(ReaderWake)
        case queued
        case full
    }

    /// Hands the item to the first waiting reader, or queues it if there is room and no writer waits before it.
    private func offer(_ item: EnvelopeJSON, _ s: inout State) -> PutOutcome {
        if !s.readers.isEmpty { return .delivered(s.readers.removeFirst().wake) }
        guard s.count < capacity, s.writers.isEmpty else { return .full }
        s.items.append(item)
        return .queued
    }

    /// Appends an item, waiting while the queue is full.
    public func put(_ item: EnvelopeJSON) async {
        switch state.withLock({ offer(item, &$0) }) {
        case .delivered(let reader): reader.deliver(item)
        case .queued: return
        case .full:
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let outcome: PutOutcome = state.withLock { s in
                    // Room or a reader may have appeared between the two locks; keep the order of earlier writers.
                    let outcome = offer(item, &s)
                    if case .full = outcome { s.writers.append(Writer(item: item, wake: .task(continuation))) }
                    return outcome
                }
                switch outcome {
                case .delivered(let reader):
                    reader.deliver(item)
                    continuation.resume()
                case .queued: continuation.resume()
                case .full: return
                }
            }
        }
    }

    /// Appends an item, blocking the calling thread while the queue is full. Not for a task of the cooperative pool:
    /// the reader that makes room may need its thread.
    public func putBlocking(_ item: EnvelopeJSON) {
        let (outcome, admission): (PutOutcome, DispatchSemaphore?) = state.withLock { s in
            let outcome = offer(item, &s)
            guard case .full = outcome else { return (outcome, nil) }
            let semaphore = DispatchSemaphore(value: 0)
            s.writers.append(Writer(item: item, wake: .thread(semaphore)))
            return (outcome, semaphore)
        }
        if case .delivered(let reader) = outcome { reader.deliver(item) }
        admission?.wait()
    }

    /// The next item, or nil when none arrived within `waitMicroseconds` (or the waiting task was cancelled).
    public func next(waitMicroseconds: Int64) async -> EnvelopeJSON? {
        if let item = takeAvailable() { return item }
        guard waitMicroseconds > 0 else { return nil }
        let id = state.withLock { $0.newId() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<EnvelopeJSON?, Never>) in
                enum Registration {
                    case item(EnvelopeJSON, WriterWake?)
                    case waiting
                }
                let registration: Registration = state.withLock { s in
                    if let item = s.removeFirst() { return .item(item, Self.admitWriter(&s)) }
                    s.readers.append(Reader(id: id, wake: .task(continuation, timer: nil)))
                    return .waiting
                }
                switch registration {
                case .item(let item, let writer):
                    writer?.admitted()
                    continuation.resume(returning: item)
                case .waiting:
                    let timer = Task { [weak self] in
                        try? await Task.sleep(nanoseconds: UInt64(waitMicroseconds) * 1000)
                        self?.expire(id)
                    }
                    let keep: Bool = state.withLock { s in
                        guard let i = s.readers.firstIndex(where: { $0.id == id }) else { return false }
                        s.readers[i].wake = .task(continuation, timer: timer)
                        return true
                    }
                    if !keep { timer.cancel() }
                    // A cancellation that came before the reader was registered found nothing to expire.
                    if Task.isCancelled { expire(id) }
                }
            }
        } onCancel: {
            expire(id)
        }
    }

    /// The next item, or nil when none arrived within `waitMicroseconds`, blocking the calling thread meanwhile.
    public func nextBlocking(waitMicroseconds: Int64) -> EnvelopeJSON? {
        if let item = takeAvailable() { return item }
        guard waitMicroseconds > 0 else { return nil }
        let handoff = ThreadHandoff()
        enum Registration {
            case item(EnvelopeJSON, WriterWake?)
            case waiting(UInt64)
        }
        let registration: Registration = state.withLock { s in
            if let item = s.removeFirst() { return .item(item, Self.admitWriter(&s)) }
            let id = s.newId()
            s.readers.append(Reader(id: id, wake: .thread(handoff)))
            return .waiting(id)
        }
        switch registration {
        case .item(let item, let writer):
            writer?.admitted()
            return item
        case .waiting(let id):
            let deadline = DispatchTime.now() + .microseconds(Int(clamping: waitMicroseconds))
            if handoff.ready.wait(timeout: deadline) == .timedOut {
                if state.withLock({ $0.removeReader(id) }) != nil { return nil }
                // A writer took this reader as the wait ended: its item is on the way.
                handoff.ready.wait()
            }
            return handoff.item.withLock { $0 }
        }
    }

    private func takeAvailable() -> EnvelopeJSON? {
        let (item, writer): (EnvelopeJSON?, WriterWake?) = state.withLock { s in
            guard let item = s.removeFirst() else { return (nil, nil) }
            return (item, Self.admitWriter(&s))
        }
        writer?.admitted()
        return item
    }

    /// Moves the first waiting writer's item into the queue; returns how to wake it, outside the lock.
    private static func admitWriter(_ s: inout State) -> WriterWake? {
        guard !s.writers.isEmpty else { return nil }
        let writer = s.writers.removeFirst()
        s.items.append(writer.item)
        return writer.wake
    }

    private func expire(_ id: UInt64) {
        state.withLock { $0.removeReader(id) }?.wake.deliver(nil)
    }
}
