internal import ChatCore
internal import ChatStore

/// What a `chat_ctrl` points at: the embedded core on one store, which `chat_close_store` and `chat_reopen_store`
/// close and open again, and remote control in both roles over it. Shared by every thread that calls in; a core
/// command runs on its caller's thread.
final class ChatControl: Sendable {
    let prefix: String
    private let slot: EngineSlot
    private let remote: LibraryRemoteControl

    private init(prefix: String, slot: EngineSlot, remote: LibraryRemoteControl) {
        self.prefix = prefix
        self.slot = slot
        self.remote = remote
    }

    /// Opens the store as `chat_migrate_init_key` does (chat-api.md §9.5, §9.6): sealed with `key` unless it is empty
    /// (docs/storage-encryption.md). A wrong key, a key for plaintext files and no key for sealed ones are all
    /// `errorNotADatabase`, as SQLCipher has them. `keepKey` is not needed: the key is kept for `chat_reopen_store`.
    /// The pairing tables of remote control get a connection of their own to the same files.
    static func open(prefix: String, key: String, confirmation: MigrationConfirmation) -> Result<ChatControl, MigrationResult> {
        let databaseKey = DatabaseKey(key)
        do throws(ChatDatabases.OpenError) {
            let engine = try BlockingChatEngine(prefix: prefix, key: databaseKey, confirmation: confirmation)
            let store = try ChatStoreActor(prefix: prefix, key: databaseKey, confirmation: .yesUp)
            let slot = EngineSlot(engine: engine, key: databaseKey)
            let remote = LibraryRemoteControl(
                slot: slot, store: store, prefix: prefix, capacity: ChatEngine.Configuration().eventQueueCapacity)
            return .success(ChatControl(prefix: prefix, slot: slot, remote: remote))
        } catch {
            return .failure(MigrationResult(error))
        }
    }

    /// The engine, nil while the store is closed.
    var current: BlockingChatEngine? { slot.current }

    /// Drops the engine; its databases close when its last command finishes. The key they are under now (which
    /// `/_db encryption` may have changed) is kept for `reopen`. Remote sessions end first, without events, and the pairing
    /// tables' connection closes too.
    func close() -> String {
        let remote = remote
        Blocking.wait { await remote.stopSessions() }
        slot.state.withLock { state in
            if let engine = state.engine { state.key = engine.databaseKey }
            state.engine = nil
        }
        Blocking.wait { await remote.store.close() }
        return ""
    }

    /// Opens the store again: "" or why not.
    func reopen() -> String {
        let opened: (String, DatabaseKey?)? = slot.state.withLock { state in
            guard state.engine == nil else { return nil }
            do throws(ChatDatabases.OpenError) {
                state.engine = try BlockingChatEngine(prefix: prefix, key: state.key, confirmation: .yesUp)
                return ("", state.key)
            } catch {
                return (MigrationResult(error).json.rendered, nil)
            }
        }
        guard let (answer, key) = opened, answer.isEmpty else { return opened?.0 ?? "" }
        let store = remote.store
        let failure = Blocking.wait { () -> String? in
            do throws(ChatDatabases.OpenError) {
                try await store.reopen(keys: [key])
                return nil
            } catch {
                return MigrationResult(error).json.rendered
            }
        }
        return failure ?? ""
    }

    // MARK: Commands and events

    /// A command line (`chat_send_cmd`). The core's commands run on the caller's thread; the remote-control commands
    /// of both roles, the commands that replace the store's files, and every line while a controller is connected
    /// (which the router refuses) go to the remote-control services.
    func execute(_ command: CInput?) -> EnvelopeJSON {
        guard let command else { return Self.failure(.commandError, "command is NULL") }
        guard let line = command.strictText else { return Self.failure(.commandError, "command is not valid UTF-8") }
        guard let engine = current else { return Self.storeClosed }
        let route = remote.wiring.router.route(line)
        let remote = remote
        if case .core(let parsed) = route, !remote.wiring.remoteControl.isConnectedNow {
            let answer = parsed.map { engine.execute($0) } ?? engine.execute(line)
            if parsed?.name == .apiStopChat, answer.bytes.starts(with: Array(#"{"result""#.utf8)) {
                Blocking.wait { await remote.stopSessions() }
            }
            return answer
        }
        return EnvelopeJSON(bytes: Blocking.wait { await remote.answer(line, engine: engine, route: route) })
    }

    /// A command for a connected remote host (`chat_send_remote_cmd`), answered with its `remoteHostId`.
    func executeRemote(hostId: Int32, _ command: CInput?) -> [UInt8] {
        guard let command else { return Self.failure(.commandError, "command is NULL").bytes }
        guard let line = command.strictText else { return Self.failure(.commandError, "command is not valid UTF-8").bytes }
        let remote = remote
        return Blocking.wait { await remote.send(line, to: Int64(hostId)) }
    }

    /// The next event, nil after `waitMicroseconds`: the core's (while no controller is connected), remote control's,
    /// and connected hosts'.
    func nextEvent(waitMicroseconds: Int64) -> [UInt8]? {
        remote.outgoing.nextBlocking(waitMicroseconds: waitMicroseconds)?.bytes
    }

    // MARK: Errors of the C boundary

    enum FailureKind: String {
        case commandError
        case exception
    }

    /// `{"error":{"type":"error","errorType":{"type":kind,"message":…}}}`.
    static func failure(_ kind: FailureKind, _ message: String) -> EnvelopeJSON {
        let errorType = JSONValue.object([JSONField("type", .string(kind.rawValue)), JSONField("message", .string(message))])
        let error = JSONValue.object([JSONField("type", .string("error")), JSONField("errorType", errorType)])
        return EnvelopeJSON(bytes: Array(JSONValue.object([JSONField("error", error)]).rendered.utf8))
    }

    static let nullController = failure(.exception, "chat controller is NULL")
    static let storeClosed = failure(.exception, "the chat store is closed (chat_close_store); reopen it first")

    // MARK: The opaque pointer

    /// A retained pointer for the caller; never released, as the official core never frees its controllers.
    var opaque: UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> ChatControl? {
        pointer.map { Unmanaged<ChatControl>.fromOpaque($0).takeUnretainedValue() }
    }
}
