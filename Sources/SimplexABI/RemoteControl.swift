internal import ChatCore
internal import ChatStore
internal import Dispatch
internal import Foundation
internal import SimplexEncoding
internal import SimplexHost
import Synchronization

/// The engine of a `chat_ctrl` (nil while the store is closed) and the key its files are under, shared by the C calls
/// and the remote-control sessions.
final class EngineSlot: Sendable {
    let state: Mutex<(engine: BlockingChatEngine?, key: DatabaseKey?)>

    init(engine: BlockingChatEngine, key: DatabaseKey?) { state = Mutex((engine, key)) }

    var current: BlockingChatEngine? { state.withLock { $0.engine } }
}

/// The library's own engine as the core of the remote-control sessions (`ChatBackend`). Its commands block their
/// thread, so a session's commands run on threads of the library's own, never on Swift's task pool; its events are
/// read from the engine's queue by the event router.
struct EngineBackend: ChatBackend {
    let slot: EngineSlot

    /// One set of threads for every controller of the process: a few, so one slow command does not hold up the rest.
    static let threads = CallerThreads(count: 4, name: "libsimplex remote commands")

    func execute(_ line: String) async -> [UInt8] {
        await Self.threads.run { [slot] in slot.current?.execute(line).bytes ?? ChatControl.storeClosed.bytes }
    }

    func nextEvent(waitMicroseconds: Int64) async -> [UInt8]? {
        guard let engine = slot.current else {
            // The store is closed: no events until it opens again.
            try? await Task.sleep(nanoseconds: UInt64(max(0, min(waitMicroseconds, 1_000_000))) * 1000)
            return nil
        }
        return await engine.events.next(waitMicroseconds: waitMicroseconds)?.bytes
    }

    func recordedFilePath(userId: Int64, fileId: Int64, sent: Bool, fileSource: CanonicalJSON) async -> Result<
        String, ChatErrorEnvelope
    > {
        await Self.threads.run { [slot] in
            guard let engine = slot.current else { return .failure(ChatErrorEnvelope(bytes: ChatControl.storeClosed.bytes)) }
            return engine.recordedFilePath(userId: userId, fileId: fileId, sent: sent, fileSource: fileSource).mapError {
                ChatErrorEnvelope(bytes: EnvelopeJSON.error($0).bytes)
            }
        }
    }
}

/// Remote control in the library, both roles, as the official core serves them through its C ABI: the host role's
/// eight commands and the controller role's, wired as `simplex-host` wires them (`HostWiring`) over the library's own
/// engine. Everything the caller hears — the core's events while no controller is connected, the remote-control
/// events of both roles, a connected host's events with their `remoteHostId` — goes to one queue, which
/// `chat_recv_msg_wait` reads.
final class LibraryRemoteControl: Sendable {
    let store: ChatStoreActor
    let wiring: HostWiring
    let controller: ControllerRemoteControl
    /// What `chat_recv_msg_wait` reads.
    let outgoing: EventQueue
    private let remoteEvents: AsyncStream<[UInt8]>.Continuation
    private let drain: Task<Void, Never>

    /// `store` is the pairing tables' own connection to the engine's files.
    init(slot: EngineSlot, store: ChatStoreActor, prefix: String, capacity: Int) {
        self.store = store
        let outgoing = EventQueue(capacity: capacity)
        self.outgoing = outgoing
        // The remote-control events come from actors that cannot wait for room: they queue here, in order, and go on
        // to the caller's queue as it makes room.
        let (events, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        remoteEvents = continuation
        drain = Task.detached {
            for await event in events { await outgoing.put(EnvelopeJSON(bytes: event)) }
        }
        let deviceName = ProcessInfo.processInfo.hostName
        controller = ControllerRemoteControl(
            store: store, deviceName: deviceName, remoteHostsFolder: URL(fileURLWithPath: prefix + "_remote_hosts"),
            emit: { continuation.yield(Self.envelope($0)) })
        wiring = HostWiring(
            backend: EngineBackend(slot: slot), store: store,
            storeFiles: HostStoreFiles(store: store, sharedWithCore: true),
            filesFolder: { slot.current?.folders.files.map { URL(fileURLWithPath: $0) } },
            controller: controller, settings: HostWiring.Settings(deviceName: deviceName),
            output: HostWiring.Output(
                coreEvent: { await outgoing.put(EnvelopeJSON(bytes: $0)) },
                remoteEvent: { continuation.yield(Envelope.result($0.json)) }))
    }

    /// Runs a line that the router says is not the core's alone (or any line while a controller is connected).
    func answer(_ line: String, engine: BlockingChatEngine, route: CommandRouter.Route) async -> [UInt8] {
        if case .controller = route, let folder = engine.folders.remoteHosts {
            // The core keeps the folder (`/set file paths`, `/remote_hosts_folder`); the controller files under it.
            _ = try? await controller.run(.setRemoteHostsFolder(folder))
        }
        return await wiring.router.answer(line).envelope
    }

    /// Ends every session of both roles without events, as the official core's chat stop (`/_stop`) ends them.
    func stopSessions() async {
        _ = await wiring.remoteControl.stop()
        await controller.stopAll()
    }

    /// `chat_send_remote_cmd`: the line on the connected host `remoteHostId`.
    func send(_ line: String, to remoteHostId: Int64) async -> [UInt8] {
        Self.envelope(await controller.send(line, to: remoteHostId))
    }

    /// An envelope for the caller, with `remoteHostId` first as the official core writes it (`{"remoteHostId":1,
    /// "result":…}`); the rest in the order of the services' JSON.
    static func envelope(_ json: CanonicalJSON) -> [UInt8] {
        guard case .object(var fields) = json, let id = fields.removeValue(forKey: "remoteHostId"), !fields.isEmpty else {
            return Array(json.rendered.utf8)
        }
        return Array(#"{"remoteHostId":"#.utf8) + Array(id.rendered.utf8) + [0x2c]
            + Array(CanonicalJSON.object(fields).rendered.utf8.dropFirst())
    }
}

/// Waits on the caller's thread — a C caller's, never a thread of Swift's pool — for work done by Swift's tasks.
enum Blocking {
    static func wait<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let slot = Slot<T>()
        Task.detached {
            let value = await body()
            slot.value.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        guard let value = slot.value.withLock({ $0 }) else { preconditionFailure("the task signalled without a result") }
        return value
    }

    private final class Slot<T: Sendable>: Sendable {
        let value = Mutex<T?>(nil)
    }
}
