internal import ChatModel
internal import ChatStore

/// The core's state and store, used by one command at a time (the engine's actor is its only owner). Handlers, one
/// file per API section under `Handlers/`, are its methods; `Dispatch.swift` routes each command to one.
final class ChatController {
    let databases: ChatDatabases
    let store: ChatRepository
    let configuration: ChatEngine.Configuration
    /// When the (absent) agent's statistics began: the engine's start.
    let statsStartedAt: UTCTime

    /// The active user (`currentUser`), loaded from the store at start.
    var currentUser: User?
    /// Whether `/_start` ran (the core's agent threads).
    var running = false
    /// Set when the database was replaced (import): then start and TTL changes are refused.
    var storeChanged = false
    /// `/_app activate` and `/_app suspend`.
    var activated = true
    /// `/set file paths` and the single-folder forms.
    var filesFolder: String?
    var tempFolder: String?
    var assetsFolder: String?
    var remoteHostsFolder: String?
    /// `/_files_encrypt`.
    var encryptLocalFiles = false
    /// `/_network`: the agent's configuration, kept in memory as the agent keeps it.
    var networkConfig = NetworkConfig()
    /// The chat item expiry's switches and the requests commands leave for the engine.
    var expiry = ItemExpirySwitches()

    private var pendingEvents: [ChatEvent] = []

    init(databases: ChatDatabases, configuration: ChatEngine.Configuration) {
        self.databases = databases
        self.configuration = configuration
        store = ChatRepository(db: databases.chat)
        statsStartedAt = configuration.clock()
        currentUser = try? store.activeUser()
    }

    var now: UTCTime { configuration.clock() }

    /// Runs a command: its outcome and the events it raised.
    func run(_ command: ChatCommand) -> (Result<ChatResponse, ChatError>, [ChatEvent]) {
        pendingEvents = []
        let outcome: Result<ChatResponse, ChatError>
        do {
            outcome = .success(try dispatch(command))
        } catch {
            outcome = .failure(error)
        }
        defer { pendingEvents = [] }
        return (outcome, pendingEvents)
    }

    /// One command's turn, the same behind both engines: the command, then what it asked of the chat item expiry.
    /// The engine holds the controller throughout, and sends the events after.
    func turn(_ command: ChatCommand, expiry: ExpiryDriver, access: @escaping ExpiryDriver.Access) -> (
        Result<ChatResponse, ChatError>, [ChatEvent]
    ) {
        let result = run(command)
        expiry.afterCommand(self, access: access)
        return result
    }

    /// Queues an event to go out after the command.
    func emit(_ event: ChatEvent) { pendingEvents.append(event) }

    // MARK: Preconditions (chat-api.md §1.6)

    /// An active user exists (the core's `withUser'`).
    func requireUser() throws(ChatError) -> User {
        guard let user = currentUser else { throw .error(.noActiveUser) }
        return user
    }

    /// An active user exists and the chat is started (`withUser`).
    func requireStartedUser() throws(ChatError) -> User {
        let user = try requireUser()
        guard running else { throw .error(.chatNotStarted) }
        return user
    }

    /// `userId` is the active user (`withUserId'`).
    func requireUser(_ userId: Int64) throws(ChatError) -> User {
        try sameUser(userId, try requireUser())
    }

    /// `userId` is the active user and the chat is started (`withUserId`).
    func requireStartedUser(_ userId: Int64) throws(ChatError) -> User {
        try sameUser(userId, try requireStartedUser())
    }

    private func sameUser(_ userId: Int64, _ user: User) throws(ChatError) -> User {
        guard userId == user.userId else {
            throw .error(.differentActiveUser(commandUserId: userId, activeUserId: user.userId))
        }
        return user
    }

    /// The database was not replaced under the running core (`checkStoreNotChanged`).
    func requireStoreNotChanged() throws(ChatError) {
        if storeChanged { throw .error(.chatStoreChanged) }
    }

    /// A command the core does not serve (yet): the network refusal when it needs a peer, else "not served yet".
    func unserved(_ command: ChatCommand) throws(ChatError) -> ChatResponse {
        let name = command.name
        throw NetworkRefusal.commands.contains(name) ? NetworkRefusal.error(name) : NetworkRefusal.notServed(name)
    }
}
