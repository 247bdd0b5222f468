public import ChatModel
public import ChatStore
public import SimplexCrypto
public import SimplexEncoding

/// The embedded chat core: answers the text command API of chat-api.md with the JSON of SimpleX's own core, on its own
/// SQLite store, and queues its events for `nextEvent` (the C ABI's `chat_send_cmd` and `chat_recv_msg_wait`, §9).
///
/// Commands run one at a time in arrival order, each whole — its writes are one transaction — so several threads may
/// send commands while another waits for events. Background work (the chat item expiry) runs between commands, one
/// short transaction at a time. Commands the core cannot serve yet answer with a clear error instead
/// of pretending: those that need a network peer with `NetworkRefusal`'s refusal, the rest with "not served yet".
public actor ChatEngine {
    /// What an engine is built with.
    public struct Configuration: Sendable {
        /// `versionInfo` of `/version`.
        public var coreVersion = CoreVersionInfo(version: "6.5.0.13", simplexmqVersion: "", simplexmqCommit: "")
        /// The event queue's bound (the core's `tbqSize`).
        public var eventQueueCapacity = 4096
        /// The clock (for tests).
        public var clock: @Sendable () -> UTCTime = { UTCTime.now() }
        /// Random bytes (password salts, generated profiles).
        public var randomBytes: @Sendable (Int) -> [UInt8] = { SecureRandom.bytes($0) }
        /// The chat item expiry's timing and batch size (tests shorten the times).
        public var itemExpiry = ItemExpiryConfiguration()
        /// Argon2id's cost for the files `/_db encryption` seals (tests lower it; files keep the cost they were made
        /// with).
        public var databaseKeyCost = PassphraseKey.Cost.interactive

        public init() {}
    }

    let controller: ChatController
    /// The outgoing events.
    public nonisolated let events: EventQueue
    /// Each user's periodic expiry: waiting for its next pass, or running it.
    private var expiryTasks: [Int64: Task<Void, Never>] = [:]
    /// Users whose periodic pass came due while it could not run (chat stopped or suspended, switch off): it runs as
    /// soon as a command makes it possible, as the core's expiry threads wait for their flag.
    private var expiryWaiting: Set<Int64> = []

    /// An engine on already opened and migrated databases.
    public init(databases: sending ChatDatabases, configuration: Configuration = Configuration()) {
        events = EventQueue(capacity: configuration.eventQueueCapacity)
        controller = ChatController(databases: databases, configuration: configuration)
    }

    deinit {
        for task in expiryTasks.values { task.cancel() }
    }

    /// Opens (creating) `<prefix>_chat.db` and `<prefix>_agent.db`, sealed with `key` when given, and migrates them
    /// as `confirmation` allows (`chat_migrate_init`, §9.2). A wrong key is `errorNotADatabase`.
    public init(
        prefix: String, key: DatabaseKey? = nil, confirmation: MigrationConfirmation = .yesUp,
        configuration: Configuration = Configuration()
    ) throws(ChatDatabases.OpenError) {
        let databases = try ChatDatabases(prefix: prefix, key: key, confirmation: confirmation)
        self.init(databases: databases, configuration: configuration)
    }

    /// Runs one command line (`chat_send_cmd`): `{"result": …}` or `{"error": …}`. A line no grammar accepts is a
    /// `commandError` (§1.1 step 2).
    public func execute(_ line: String) async -> EnvelopeJSON {
        switch Self.parse(line) {
        case .success(let command): return EnvelopeJSON(await execute(command))
        case .failure(let error): return .error(error)
        }
    }

    /// The command a line names, or the `commandError` of a line no grammar accepts.
    static func parse(_ line: String) -> Result<ChatCommand, ChatError> {
        do {
            return .success(try ChatCommand(parsing: line))
        } catch {
            return .failure(.error(.commandError(error.message)))
        }
    }

    /// Runs one typed command.
    public func execute(_ command: ChatCommand) async -> Result<ChatResponse, ChatError> {
        // A server test waits for a server for seconds: it runs off the engine's turn, so other commands are served
        // meanwhile, as the core runs it outside its chat lock.
        do throws(ChatError) {
            if let test = try controller.serverTestRequest(command) { return .success(await test.run()) }
        } catch {
            return .failure(error)
        }
        let (outcome, emitted) = controller.run(command)
        applyExpiryRequests()
        // The command's state is committed before its events go out; a full queue holds the caller here, as the
        // core's bounded queue holds its producers.
        for event in emitted {
            await events.put(.result(event.json))
        }
        return outcome
    }

    /// For a remote controller's `getFile` (xrcp.md §11.3): the recorded path (relative to the files folder) of the
    /// active user's file record `(userId, fileId, sent)` whose source is `fileSource`, or the error to answer with.
    public func recordedFilePath(userId: Int64, fileId: Int64, sent: Bool, fileSource: CanonicalJSON) -> Result<
        String, ChatError
    > {
        do {
            return .success(
                try controller.recordedFilePath(userId: userId, fileId: fileId, sent: sent, fileSource: fileSource))
        } catch {
            return .failure(error)
        }
    }

    /// The next event envelope, or nil when none came within `waitMicroseconds` (`chat_recv_msg_wait`'s empty string).
    public nonisolated func nextEvent(waitMicroseconds: Int64) async -> [UInt8]? {
        await events.next(waitMicroseconds: waitMicroseconds)?.bytes
    }
}

// MARK: Chat item expiry

extension ChatEngine {
    /// Carries out what the last command asked of the expiry: periodic expiries to start, passes to run now, and passes
    /// that were waiting for the chat to start or wake up.
    private func applyExpiryRequests() {
        let (start, immediate) = controller.expiry.takeRequests()
        for userId in start {
            expiryTasks[userId] = expiryTask(.user(userId: userId), periodic: true, after: expiryConfiguration.initialDelay)
        }
        for scope in immediate {
            _ = expiryTask(scope, periodic: false, after: .zero)
        }
        for userId in expiryWaiting where controller.expiryAllowed(userId: userId, periodic: true) {
            expiryWaiting.remove(userId)
            expiryTasks[userId] = expiryTask(.user(userId: userId), periodic: true, after: .zero)
        }
    }

    private var expiryConfiguration: ItemExpiryConfiguration { controller.configuration.itemExpiry }

    /// A pass after `delay`, off the engine: each of its batches is a call of its own, so the commands that came
    /// meanwhile are served between two batches. The task holds the engine only during a call.
    private nonisolated func expiryTask(_ scope: ExpiryScope, periodic: Bool, after delay: Duration) -> Task<Void, Never> {
        Task.detached(priority: .utility) { [weak self] in
            if delay > .zero {
                do { try await Task.sleep(for: delay) } catch { return }
            }
            guard var pass = await self?.beginExpiryPass(scope, periodic: periodic) else { return }
            while !Task.isCancelled, let next = await self?.expiryBatch(pass) { pass = next }
            if periodic, !Task.isCancelled { await self?.scheduleNextExpiry(scope.userId) }
        }
    }

    /// The pass's chats, or nil when it cannot run now (a periodic pass then waits for its switch).
    private func beginExpiryPass(_ scope: ExpiryScope, periodic: Bool) async -> ExpiryPass? {
        guard controller.expiryAllowed(userId: scope.userId, periodic: periodic) else {
            if periodic { expiryWaiting.insert(scope.userId) }
            return nil
        }
        do {
            return try controller.beginExpiryPass(scope, periodic: periodic)
        } catch {
            await events.put(.error(error))
            return ExpiryPass(scope: scope, periodic: periodic, groupIds: [], current: nil)
        }
    }

    /// One step of a pass; nil when it is finished or may not go on. A failure is reported and skips the chat, as the
    /// core reports and skips it.
    private func expiryBatch(_ pass: ExpiryPass) async -> ExpiryPass? {
        guard !pass.isFinished, controller.expiryAllowed(userId: pass.scope.userId, periodic: pass.periodic) else {
            return nil
        }
        var pass = pass
        do {
            try controller.expiryStep(&pass, batchSize: max(1, expiryConfiguration.batchSize))
        } catch {
            pass.current = nil
            await events.put(.error(error))
        }
        return pass
    }

    private func scheduleNextExpiry(_ userId: Int64) {
        expiryTasks[userId] = expiryTask(.user(userId: userId), periodic: true, after: expiryConfiguration.interval)
    }
}
