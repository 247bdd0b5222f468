import Foundation

/// Takes the core's events in order and sends each to the local side, or — while a controller is connected — to
/// the controller's long poll (xrcp.md §14.3; the remote-control events themselves always stay local).
public actor EventRouter {
    private let backend: any ChatBackend
    private let isRemoteConnected: @Sendable () async -> Bool
    private let endRemoteSession: @Sendable () async -> Void
    private let local: @Sendable ([UInt8]) async -> Void
    private var remoteQueue: [[UInt8]] = []
    /// Long polls waiting for an event, oldest first.
    private var waiters: [(id: UUID, continuation: CheckedContinuation<[UInt8]?, Never>)] = []
    private var remoteQueueBytes = 0
    /// Events the controller has not fetched yet; past this the controller is too slow and the session ends.
    public let remoteBound: Int
    /// The same bound in bytes, so a few huge events cannot take the host's memory either.
    public let remoteBoundBytes: Int
    private var running = false

    /// `isRemoteConnected` tells whether a controller is connected; `endRemoteSession` ends it when it falls behind.
    /// `local` may wait (a bounded queue on the local side): the router pulls nothing meanwhile, so the core's own
    /// bounded queue holds its producers.
    public init(
        backend: any ChatBackend, remoteBound: Int = 4096, remoteBoundBytes: Int = 16 << 20,
        isRemoteConnected: @escaping @Sendable () async -> Bool, endRemoteSession: @escaping @Sendable () async -> Void,
        local: @escaping @Sendable ([UInt8]) async -> Void
    ) {
        self.backend = backend
        self.isRemoteConnected = isRemoteConnected
        self.endRemoteSession = endRemoteSession
        self.remoteBound = remoteBound
        self.remoteBoundBytes = remoteBoundBytes
        self.local = local
    }

    /// Pulls events until the task is cancelled.
    public func run() async {
        guard !running else { return }
        running = true
        while !Task.isCancelled {
            guard let event = await backend.nextEvent(waitMicroseconds: 200_000) else { continue }
            if await isRemoteConnected() {
                await deliverRemote(event)
            } else {
                await flushRemoteToLocal()
                await local(event)
            }
        }
    }

    private func deliverRemote(_ event: [UInt8]) async {
        if !waiters.isEmpty {
            waiters.removeFirst().continuation.resume(returning: event)
            return
        }
        remoteQueue.append(event)
        remoteQueueBytes += event.count
        if remoteQueue.count > remoteBound || remoteQueueBytes > remoteBoundBytes {
            // Nothing is dropped: the session ends and the queued events go to the local side.
            let end = endRemoteSession
            Task { await end() }
            await flushRemoteToLocal()
        }
    }

    /// The queue is taken before the first hand-over: a long poll that comes meanwhile finds it empty, and no event
    /// goes both ways.
    private func flushRemoteToLocal() async {
        let pending = remoteQueue
        remoteQueue = []
        remoteQueueBytes = 0
        for e in pending { await local(e) }
    }

    /// The controller's long poll: the next event, or nil after `waitMicroseconds`.
    public func nextRemoteEvent(waitMicroseconds: Int64) async -> [UInt8]? {
        if !remoteQueue.isEmpty {
            let event = remoteQueue.removeFirst()
            remoteQueueBytes -= event.count
            return event
        }
        let id = UUID()
        return await withCheckedContinuation { (c: CheckedContinuation<[UInt8]?, Never>) in
            waiters.append((id, c))
            Task {
                try? await Task.sleep(nanoseconds: UInt64(max(0, waitMicroseconds)) * 1000)
                self.timeOut(id)
            }
        }
    }

    private func timeOut(_ id: UUID) {
        guard let i = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: i).continuation.resume(returning: nil)
    }
}
