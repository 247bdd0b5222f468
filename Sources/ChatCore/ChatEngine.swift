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
    /// The chat item expiry's timers and passes.
    private nonisolated let expiry: ExpiryDriver

    /// An engine on already opened and migrated databases.
    public init(databases: sending ChatDatabases, configuration: Configuration = Configuration()) {
        events = EventQueue(capacity: configuration.eventQueueCapacity)
        expiry = ExpiryDriver(configuration: configuration.itemExpiry, events: events)
        controller = ChatController(databases: databases, configuration: configuration)
    }

    deinit {
        expiry.cancelAll()
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
        let (outcome, emitted) = controller.turn(command, expiry: expiry, access: expiryAccess)
        // The command's state is committed before its events go out; a full queue holds the caller here, as the
        // core's bounded queue holds its producers.
        for event in emitted {
            await events.put(.result(event.json))
        }
        return outcome
    }

    /// The expiry's hold of the controller: a turn of the actor, between two commands.
    private nonisolated var expiryAccess: ExpiryDriver.Access {
        { [weak self] body in await self?.withController(body) }
    }

    private func withController(_ body: @Sendable (ChatController) -> ExpiryDriver.Step) -> ExpiryDriver.Step {
        body(controller)
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
