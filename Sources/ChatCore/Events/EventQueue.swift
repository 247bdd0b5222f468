import Synchronization

/// The core's outgoing events (chat-api.md §1.3): one ordered, bounded queue. Items leave in the order they were put;
/// readers wait with a deadline (`chat_recv_msg_wait`: nothing on timeout) and are served in the order they came;
/// when the queue is full, writers wait for room (the core's `tbqSize = 4096`, where producers block).
public final class EventQueue: Sendable {
    public let capacity: Int
    private let state: Mutex<State>

    private struct Reader {
        let id: UInt64
        let continuation: CheckedContinuation<EnvelopeJSON?, Never>
        var timer: Task<Void, Never>?
    }

    private struct Writer {
        let item: EnvelopeJSON
        let continuation: CheckedContinuation<Void, Never>
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
    }

    public init(capacity: Int = 4096) {
        precondition(capacity > 0, "an event queue holds at least one item")
        self.capacity = capacity
        state = Mutex(State())
    }

    /// Items waiting to be read.
    public var count: Int { state.withLock { $0.count } }

    /// Appends an item, waiting while the queue is full.
    public func put(_ item: EnvelopeJSON) async {
        enum Outcome {
            case delivered(CheckedContinuation<EnvelopeJSON?, Never>, Task<Void, Never>?)
            case queued
            case full
        }
        let outcome: Outcome = state.withLock { s in
            if s.readers.isEmpty == false {
                let reader = s.readers.removeFirst()
                return .delivered(reader.continuation, reader.timer)
            }
            guard s.count < capacity, s.writers.isEmpty else { return .full }
            s.items.append(item)
            return .queued
        }
        switch outcome {
        case .delivered(let continuation, let timer):
            timer?.cancel()
            continuation.resume(returning: item)
        case .queued:
            return
        case .full:
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let admitted: Bool = state.withLock { s in
                    // Room may have appeared between the two locks; keep the order of earlier writers.
                    if s.count < capacity && s.writers.isEmpty {
                        s.items.append(item)
                        return true
                    }
                    s.writers.append(Writer(item: item, continuation: continuation))
                    return false
                }
                if admitted { continuation.resume() }
            }
        }
    }

    /// The next item, or nil when none arrived within `waitMicroseconds` (or the waiting task was cancelled).
    public func next(waitMicroseconds: Int64) async -> EnvelopeJSON? {
        if let item = takeAvailable() { return item }
        guard waitMicroseconds > 0 else { return nil }
        let id = state.withLock { s in
            defer { s.nextId += 1 }
            return s.nextId
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<EnvelopeJSON?, Never>) in
                enum Registration {
                    case item(EnvelopeJSON, CheckedContinuation<Void, Never>?)
                    case waiting
                }
                let registration: Registration = state.withLock { s in
                    if let item = s.removeFirst() { return .item(item, Self.admitWriter(&s)) }
                    s.readers.append(Reader(id: id, continuation: continuation, timer: nil))
                    return .waiting
                }
                switch registration {
                case .item(let item, let writer):
                    writer?.resume()
                    continuation.resume(returning: item)
                case .waiting:
                    let timer = Task { [weak self] in
                        try? await Task.sleep(nanoseconds: UInt64(waitMicroseconds) * 1000)
                        self?.expire(id)
                    }
                    let keep: Bool = state.withLock { s in
                        guard let i = s.readers.firstIndex(where: { $0.id == id }) else { return false }
                        s.readers[i].timer = timer
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

    private func takeAvailable() -> EnvelopeJSON? {
        let (item, writer): (EnvelopeJSON?, CheckedContinuation<Void, Never>?) = state.withLock { s in
            guard let item = s.removeFirst() else { return (nil, nil) }
            return (item, Self.admitWriter(&s))
        }
        writer?.resume()
        return item
    }

    /// Moves the first waiting writer's item into the queue; returns its continuation to resume outside the lock.
    @discardableResult
    private static func admitWriter(_ s: inout State) -> CheckedContinuation<Void, Never>? {
        guard !s.writers.isEmpty else { return nil }
        let writer = s.writers.removeFirst()
        s.items.append(writer.item)
        return writer.continuation
    }

    private func expire(_ id: UInt64) {
        let reader: Reader? = state.withLock { s in
            guard let i = s.readers.firstIndex(where: { $0.id == id }) else { return nil }
            return s.readers.remove(at: i)
        }
        reader?.timer?.cancel()
        reader?.continuation.resume(returning: nil)
    }
}
