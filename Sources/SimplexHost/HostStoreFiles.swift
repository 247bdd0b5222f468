public import ChatModel
public import ChatStore
internal import SimplexEncoding

/// The host's own connections to a chat store (its pairing tables), kept out of the way of the core's commands that
/// replace or re-key the store's files (chat-api.md §4.11: `/_db encryption`, `/_db import`, `/_db delete`).
///
/// A connection left open across such a command would go on reading and writing the old, unlinked file, and when it
/// closed, SQLite would checkpoint into that file and remove the WAL by its name — the new file's WAL. So the host's
/// connections close before the command and open again after it, under the key the files have then.
public struct HostStoreFiles: Sendable {
    public let store: ChatStoreActor
    /// Whether the pairing tables live in the core's own files (the embedded core), or in files of the host's own
    /// beside a loaded library's (`--core-lib`), which then follow the library's key changes.
    public let sharedWithCore: Bool

    public init(store: ChatStoreActor, sharedWithCore: Bool) {
        self.store = store
        self.sharedWithCore = sharedWithCore
    }

    /// Whether `command` replaces or re-keys the store's files.
    public static func changesFiles(_ command: ChatCommand) -> Bool {
        switch command.name {
        case .apiStorageEncryption, .apiImportArchive, .apiDeleteStorage: true
        default: false
        }
    }

    /// Runs `command` (by `execute`) with the host's connections closed, and reopens them after it under the key the
    /// files have then. A key change the core makes is made to the host's own files too when they are apart from the
    /// core's, as one change: they are copied under the new key before the core's change, and switched after it
    /// succeeded (or dropped after it failed); a crash between the two leaves the copies, which the next start adopts
    /// when the new key opens the core's files (`ChatDatabases.adoptStagedKeyChange`). Should the host's part fail,
    /// the answer is that failure, as `errorDatabase`, since the next start with the new key would not open them.
    public func around(_ command: ChatCommand, _ execute: () async -> [UInt8]) async -> [UInt8] {
        let before = await store.key
        await store.close()
        let new = Self.newKey(command)
        if let new, !sharedWithCore {
            do throws(ChatDatabases.KeyError) {
                try await store.stageKeyChange(current: before, new: new)
            } catch {
                try? await store.reopen()
                return Envelope.error(.reported(Self.databaseError(error)))
            }
        }
        let envelope = await execute()
        let succeeded = envelope.starts(with: Array(#"{"result""#.utf8))
        guard let new else {
            try? await store.reopen()
            return envelope
        }
        if sharedWithCore {
            // After a failed change each file may be under either key.
            try? await store.reopen(keys: succeeded ? [new] : [before, new])
            return envelope
        }
        guard succeeded else {
            await store.discardStagedKeyChange()
            try? await store.reopen()
            return envelope
        }
        do throws(ChatDatabases.KeyError) {
            try await store.commitStagedKeyChange(new: new)
        } catch {
            return Envelope.error(.reported(Self.databaseError(error)))
        }
        return envelope
    }

    /// The new key of a key change (`.some(nil)`: decrypting); nil for other commands, for a config that does not
    /// read (the core refuses it too) and for equal keys, which change nothing.
    private static func newKey(_ command: ChatCommand) -> DatabaseKey?? {
        guard case .apiStorageEncryption(let a) = command, let json = try? CanonicalJSON.parse(a.config.text),
            let current = json["currentKey"]?.stringValue, let new = json["newKey"]?.stringValue, current != new
        else { return nil }
        return .some(DatabaseKey(new))
    }

    /// `{"type":"errorDatabase","databaseError":…}` (chat-api.md §8.5).
    static func databaseError(_ error: ChatDatabases.KeyError) -> CanonicalJSON {
        func sqlite(_ e: SQLiteError) -> CanonicalJSON {
            e.isNotADatabase
                ? .object(["type": .string("errorNotADatabase")])
                : .object(["type": .string("error"), "dbError": .string(e.description)])
        }
        let databaseError: CanonicalJSON
        switch error {
        case .errorEncrypted: databaseError = .object(["type": .string("errorEncrypted")])
        case .errorPlaintext: databaseError = .object(["type": .string("errorPlaintext")])
        case .errorNoFile(let file): databaseError = .object(["type": .string("errorNoFile"), "dbFile": .string(file)])
        case .errorExport(let e): databaseError = .object(["type": .string("errorExport"), "sqliteError": sqlite(e)])
        case .errorOpen(let e): databaseError = .object(["type": .string("errorOpen"), "sqliteError": sqlite(e)])
        }
        return .object(["type": .string("errorDatabase"), "databaseError": databaseError])
    }
}
