public import ChatModel
public import ChatStore
import Dispatch
public import SimplexEncoding
import Synchronization

/// The embedded chat core for callers on threads of their own — libsimplex's C ABI, whose calls block their thread
/// (chat-api.md §9.1). A command runs on the caller's thread, under the engine's lock: one at a time, each whole, its
/// events queued before the next command starts. Handing each call to Swift's task pool and back would cost more than
/// most commands (`simplex-bench abi`).
///
/// Not for tasks of the cooperative pool: a command waits for room in a full event queue, and the reader making room
/// may need the pool's threads. Tasks use `ChatEngine`.
public final class BlockingChatEngine: Sendable {
    private let controller: Mutex<ChatController>
    /// The outgoing events.
    public let events: EventQueue
    /// The chat item expiry's timers and passes, as behind `ChatEngine`.
    private let expiry: ExpiryDriver

    /// Opens (creating) `<prefix>_chat.db` and `<prefix>_agent.db`, sealed with `key` when given, and migrates them
    /// as `confirmation` allows (`chat_migrate_init_key`, §9.2). A wrong key is `errorNotADatabase`.
    public init(
        prefix: String, key: DatabaseKey? = nil, confirmation: MigrationConfirmation = .yesUp,
        configuration: ChatEngine.Configuration = ChatEngine.Configuration()
    ) throws(ChatDatabases.OpenError) {
        let databases = try ChatDatabases(prefix: prefix, key: key, confirmation: confirmation)
        events = EventQueue(capacity: configuration.eventQueueCapacity)
        expiry = ExpiryDriver(configuration: configuration.itemExpiry, events: events)
        controller = Mutex(ChatController(databases: databases, configuration: configuration))
    }

    deinit {
        expiry.cancelAll()
    }

    /// Runs one command line (`chat_send_cmd`): `{"result": …}` or `{"error": …}`.
    public func execute(_ line: String) -> EnvelopeJSON {
        switch ChatEngine.parse(line) {
        case .success(let command): return execute(command)
        case .failure(let error): return .error(error)
        }
    }

    /// Runs one parsed command: for a caller that has parsed the line already, to route it.
    public func execute(_ command: ChatCommand) -> EnvelopeJSON {
        let test = controller.withLock { controller in
            Result { () throws(ChatError) in try controller.serverTestRequest(command) }
        }
        switch test {
        case .failure(let error): return .error(error)
        case .success(let test?): return EnvelopeJSON(.success(Self.waiting { await test.run() }))
        case .success(nil): break
        }
        let access = expiryAccess
        return controller.withLock { controller in
            let (outcome, emitted) = controller.turn(command, expiry: expiry, access: access)
            // The command's state is committed before its events go out; a full queue holds the caller (and the
            // commands behind it) here, as the core's bounded queue holds its producers.
            for event in emitted { events.putBlocking(.result(event.json)) }
            return EnvelopeJSON(outcome)
        }
    }

    /// The expiry's hold of the controller: the engine's lock, between two commands. It is waited for on a dispatch
    /// thread, never one of the task pool's: the command holding the lock may be waiting for a reader on the pool.
    private var expiryAccess: ExpiryDriver.Access {
        { [weak self] body in
            guard let engine = self else { return nil }
            return await withCheckedContinuation { (done: CheckedContinuation<ExpiryDriver.Step?, Never>) in
                DispatchQueue.global(qos: .utility).async {
                    done.resume(returning: engine.controller.withLock { body($0) })
                }
            }
        }
    }

    /// Waits on the caller's thread (never a task of the pool, see above) for network work done by Swift's tasks,
    /// outside the engine's lock so that other threads' commands run meanwhile.
    private static func waiting<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let result = Slot<T>()
        Task.detached {
            let value = await body()
            result.value.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        guard let value = result.value.withLock({ $0 }) else { preconditionFailure("the task signalled without a result") }
        return value
    }

    private final class Slot<T: Sendable>: Sendable {
        let value = Mutex<T?>(nil)
    }

    /// For a remote controller's `getFile` (xrcp.md §11.3): as `ChatEngine.recordedFilePath`.
    public func recordedFilePath(userId: Int64, fileId: Int64, sent: Bool, fileSource: CanonicalJSON) -> Result<
        String, ChatError
    > {
        controller.withLock { controller in
            Result { () throws(ChatError) in
                try controller.recordedFilePath(userId: userId, fileId: fileId, sent: sent, fileSource: fileSource)
            }
        }
    }

    /// The folders `/set file paths` (or its one-folder forms) gave: files, and remote hosts' files; nil when not set.
    public var folders: (files: String?, remoteHosts: String?) {
        controller.withLock { ($0.filesFolder, $0.remoteHostsFolder) }
    }

    /// The key the store is open with now (`/_db encryption` changes it); nil for plaintext files.
    public var databaseKey: DatabaseKey? { controller.withLock { $0.databases.key } }

    /// The next event envelope, or nil when none came within `waitMicroseconds` (`chat_recv_msg_wait`).
    public func nextEvent(waitMicroseconds: Int64) -> [UInt8]? {
        events.nextBlocking(waitMicroseconds: waitMicroseconds)?.bytes
    }
}
