public import ChatModel
public import ChatStore
internal import SimplexCrypto
public import SimplexEncoding

/// The embedded chat core: answers the text command API of chat-api.md with the JSON of SimpleX's own core, on its own
/// SQLite store, and queues its events for `nextEvent` (the C ABI's `chat_send_cmd` and `chat_recv_msg_wait`, §9).
///
/// Commands run one at a time in arrival order, each whole — its writes are one transaction — so several threads may
/// send commands while another waits for events. Commands the core cannot serve yet answer with a clear error instead
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

        public init() {}
    }

    private let controller: ChatController
    /// The outgoing events.
    public nonisolated let events: EventQueue

    /// An engine on already opened and migrated databases.
    public init(databases: sending ChatDatabases, configuration: Configuration = Configuration()) {
        events = EventQueue(capacity: configuration.eventQueueCapacity)
        controller = ChatController(databases: databases, configuration: configuration)
    }

    /// Opens (creating) `<prefix>_chat.db` and `<prefix>_agent.db` and migrates them as `confirmation` allows
    /// (`chat_migrate_init`, §9.2).
    public init(
        prefix: String, confirmation: MigrationConfirmation = .yesUp, configuration: Configuration = Configuration()
    ) throws(ChatDatabases.OpenError) {
        let databases = try ChatDatabases(prefix: prefix, confirmation: confirmation)
        self.init(databases: databases, configuration: configuration)
    }

    /// Runs one command line (`chat_send_cmd`): `{"result": …}` or `{"error": …}`. A line no grammar accepts is a
    /// `commandError` (§1.1 step 2).
    public func execute(_ line: String) async -> EnvelopeJSON {
        let command: ChatCommand
        do {
            command = try ChatCommand(parsing: line)
        } catch {
            return .error(.error(.commandError(error.message)))
        }
        return EnvelopeJSON(await execute(command))
    }

    /// Runs one typed command.
    public func execute(_ command: ChatCommand) async -> Result<ChatResponse, ChatError> {
        let (outcome, emitted) = controller.run(command)
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
