internal import ChatCore
internal import ChatStore
internal import Glibc
import Synchronization

/// What a `chat_ctrl` points at: the embedded core on one store, which `chat_close_store` and `chat_reopen_store`
/// close and open again. Shared by every thread that calls in; each call runs on its caller's thread.
final class ChatControl: Sendable {
    let prefix: String
    /// The engine (nil while the store is closed) and the key its files are under, for reopening them.
    private let state: Mutex<(engine: BlockingChatEngine?, key: DatabaseKey?)>

    private init(prefix: String, key: DatabaseKey?, engine: BlockingChatEngine) {
        self.prefix = prefix
        state = Mutex((engine, key))
    }

    /// Opens the store as `chat_migrate_init_key` does (chat-api.md §9.5, §9.6): sealed with `key` unless it is empty
    /// (docs/storage-encryption.md). A wrong key, a key for plaintext files and no key for sealed ones are all
    /// `errorNotADatabase`, as SQLCipher has them. `keepKey` is not needed: the key is kept for `chat_reopen_store`.
    static func open(prefix: String, key: String, confirmation: MigrationConfirmation) -> Result<ChatControl, MigrationResult> {
        let databaseKey = DatabaseKey(key)
        do throws(ChatDatabases.OpenError) {
            let engine = try BlockingChatEngine(prefix: prefix, key: databaseKey, confirmation: confirmation)
            return .success(ChatControl(prefix: prefix, key: databaseKey, engine: engine))
        } catch {
            return .failure(MigrationResult(error))
        }
    }

    /// The engine, nil while the store is closed.
    var current: BlockingChatEngine? { state.withLock { $0.engine } }

    /// Drops the engine; its databases close when its last command finishes. The key they are under now (which
    /// `/_db encryption` may have changed) is kept for `reopen`.
    func close() -> String {
        state.withLock { state in
            if let engine = state.engine { state.key = engine.databaseKey }
            state.engine = nil
        }
        return ""
    }

    /// Opens the store again: "" or why not.
    func reopen() -> String {
        state.withLock { state in
            guard state.engine == nil else { return "" }
            do throws(ChatDatabases.OpenError) {
                state.engine = try BlockingChatEngine(prefix: prefix, key: state.key, confirmation: .yesUp)
                return ""
            } catch {
                return MigrationResult(error).json.rendered
            }
        }
    }

    // MARK: Commands and events

    func execute(_ command: CInput?) -> EnvelopeJSON {
        guard let command else { return Self.failure(.commandError, "command is NULL") }
        guard let line = command.strictText else { return Self.failure(.commandError, "command is not valid UTF-8") }
        guard let engine = current else { return Self.storeClosed }
        return engine.execute(line)
    }

    /// A command for a remote host (`chat_send_remote_cmd`). The controller role's sessions plug in here: until they
    /// do, no host is connected, and the core answers as it does for a host without a session.
    func executeRemote(hostId: Int32, _ command: CInput?) -> [UInt8] {
        let id = JSONValue.integer(Int64(hostId))
        let rhKey = JSONValue.object([JSONField("type", .string("id")), JSONField("remoteHostId", id)])
        let error = JSONValue.object([
            JSONField("type", .string("errorRemoteHost")), JSONField("rhKey", rhKey),
            JSONField("remoteHostError", .object([JSONField("type", .string("missing"))])),
        ])
        return Array(JSONValue.object([JSONField("remoteHostId", id), JSONField("error", error)]).rendered.utf8)
    }

    /// The next event, nil after `waitMicroseconds`. While the store is closed no events come.
    func nextEvent(waitMicroseconds: Int64) -> [UInt8]? {
        guard let engine = current else {
            if waitMicroseconds > 0 { usleep(UInt32(min(waitMicroseconds, 1_000_000))) }
            return nil
        }
        return engine.nextEvent(waitMicroseconds: waitMicroseconds)
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
