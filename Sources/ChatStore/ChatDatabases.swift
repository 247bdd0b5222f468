internal import CSQLite
internal import Glibc

/// The two database files of a chat store, named as the official core names them (chat-api.md §9.5):
/// `<prefix>_chat.db` and `<prefix>_agent.db`.
public final class ChatDatabases {
    public let chat: SQLiteDatabase
    public let agent: SQLiteDatabase
    /// The files' common prefix (`<prefix>_chat.db`, `<prefix>_agent.db`).
    public let prefix: String

    /// Why a store could not be opened: `DBMigrationResult` of chat-api.md §9.6 minus `ok`.
    public enum OpenError: Error, Equatable, Sendable {
        case errorNotADatabase(dbFile: String)
        case errorMigration(dbFile: String, MigrationError)
        case errorSQL(dbFile: String, String)
    }

    /// Why a store's key could not be tested or changed: `DatabaseError` of chat-api.md §8.5.
    public enum KeyError: Error, Equatable, Sendable {
        /// The files are encrypted and no current key was given.
        case errorEncrypted
        /// The files are plaintext and a current key was given.
        case errorPlaintext
        case errorNoFile(dbFile: String)
        /// The copy under the new key failed.
        case errorExport(SQLiteError)
        /// The files did not open with the current key (`isNotADatabase` for a wrong key).
        case errorOpen(SQLiteError)
    }

    public static func files(prefix: String) -> (chat: String, agent: String) { (prefix + "_chat.db", prefix + "_agent.db") }

    /// Opens (creating) both plaintext files and migrates them as `confirmation` allows.
    public convenience init(prefix: String, confirmation: MigrationConfirmation) throws(OpenError) {
        try self.init(prefix: prefix, key: nil, confirmation: confirmation)
    }

    /// Opens (creating) both files, sealed with `key` when given (the C ABI's `chat_migrate_init` key; an empty
    /// key there is nil here), and migrates them as `confirmation` allows. A wrong key is `errorNotADatabase`.
    public init(prefix: String, key: DatabaseKey?, confirmation: MigrationConfirmation) throws(OpenError) {
        let files = Self.files(prefix: prefix)
        try Self.checkPlace(files.chat)
        try Self.checkPlace(files.agent)
        // A key change or import that a crash interrupted is finished, or undone, before either file opens.
        do { try StoreSwitch.recover(prefix: prefix, files: [files.chat, files.agent]) } catch {
            throw .errorSQL(dbFile: files.chat, error.message)
        }
        self.prefix = prefix
        chat = try Self.open(files.chat, key: key, migrations: Migration.chat, confirmation: confirmation)
        agent = try Self.open(files.agent, key: key, migrations: Migration.agent, confirmation: confirmation)
    }

    /// Refuses a database file that could not be a store's, before either file is made, in the official migration
    /// result's shape: an existing file that is neither a database nor empty is `errorNotADatabase` (as opening it
    /// would be), and a missing one in a folder this process cannot write is `errorSQL`, so that a mistaken prefix
    /// (`/etc/passwd`) makes nothing beside whatever it names.
    private static func checkPlace(_ file: String) throws(OpenError) {
        var info = stat()
        if stat(file, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFREG else { throw .errorSQL(dbFile: file, "\(file) is not a regular file") }
            if SQLiteDatabase.storageState(ofFile: file) == .unrecognized { throw .errorNotADatabase(dbFile: file) }
            return
        }
        let slash = file.lastIndex(of: "/")
        let folder = slash.map { $0 == file.startIndex ? "/" : String(file[..<$0]) } ?? "."
        // A folder that does not exist yet is left to the open, which names the failure if it cannot be made.
        if stat(folder, &info) == 0, access(folder, W_OK | X_OK) != 0 {
            throw .errorSQL(dbFile: file, "unable to open database file: the folder \(folder) is not writable")
        }
    }

    private static func open(_ file: String, key: DatabaseKey?, migrations: [Migration], confirmation: MigrationConfirmation)
        throws(OpenError) -> SQLiteDatabase
    {
        let db: SQLiteDatabase
        do { db = try SQLiteDatabase(path: file, key: key) } catch {
            throw error.isNotADatabase ? .errorNotADatabase(dbFile: file) : .errorSQL(dbFile: file, error.message)
        }
        try migrate(db, migrations: migrations, confirmation: confirmation)
        return db
    }

    static func migrate(_ db: SQLiteDatabase, migrations: [Migration], confirmation: MigrationConfirmation) throws(OpenError) {
        let file = db.path
        do {
            try Migrator.migrate(db, to: migrations, confirmation: confirmation)
        } catch {
            if case .sql(let e) = error {
                throw e.isNotADatabase ? .errorNotADatabase(dbFile: file) : .errorSQL(dbFile: file, e.message)
            }
            throw .errorMigration(dbFile: file, error)
        }
    }

    /// `/db test key`: whether `key` opens both files (nothing is created or migrated). The core only opens each
    /// file under the key (`sqlCipherTestKey`): a key on a plaintext file, or none on an encrypted one, reads it as
    /// not a database, `errorOpen` with `errorNotADatabase`, not `errorPlaintext` or `errorEncrypted`.
    public static func testKey(prefix: String, key: DatabaseKey?) throws(KeyError) {
        let files = Self.files(prefix: prefix)
        for file in [files.chat, files.agent] {
            switch SQLiteDatabase.storageState(ofFile: file) {
            case .missing: throw .errorNoFile(dbFile: file)
            case .plaintext where key != nil, .encrypted where key == nil: throw .errorOpen(.notADatabase)
            case .encrypted, .plaintext, .unrecognized: break
            }
            do { _ = try SQLiteDatabase(path: file, key: key) } catch { throw .errorOpen(error) }
        }
    }

    /// Whether a pair of files can replace a store that opens with `key` (an archive's databases, before an import
    /// puts them in place): each is a database of ours (its header), opens with that key, passes
    /// `PRAGMA integrity_check`, and has the chat or agent schema of this version or an older one, which the next
    /// start migrates up. `names` are the files' names as the error shows them.
    public static func checkReplacement(chat: String, agent: String, key: DatabaseKey?, names: (chat: String, agent: String))
        throws(KeyError)
    {
        try checkReplacement(chat, key: key, migrations: Migration.chat, name: names.chat)
        try checkReplacement(agent, key: key, migrations: Migration.agent, name: names.agent)
    }

    private static func checkReplacement(_ file: String, key: DatabaseKey?, migrations: [Migration], name: String)
        throws(KeyError)
    {
        switch SQLiteDatabase.storageState(ofFile: file) {
        case .missing, .unrecognized:
            throw .errorOpen(SQLiteError(code: SQLITE_NOTADB, message: "\(name) is not a database"))
        case .encrypted where key == nil: throw .errorEncrypted
        case .plaintext where key != nil: throw .errorPlaintext
        case .encrypted, .plaintext: break
        }
        let db: SQLiteDatabase
        do { db = try SQLiteDatabase(path: file, key: key) } catch { throw .errorOpen(error) }
        let integrity: [[SQLValue]]
        do { integrity = try db.query("PRAGMA integrity_check") } catch { throw .errorOpen(error) }
        guard integrity.count == 1, integrity[0].first?.text == "ok" else {
            let findings = integrity.prefix(3).compactMap { $0.first?.text }.joined(separator: "; ")
            throw .errorOpen(SQLiteError(code: SQLITE_CORRUPT, message: "\(name) fails integrity_check: \(findings)"))
        }
        let applied: [UpMigration]
        do { applied = try Migrator.appliedMigrations(db) } catch {
            throw .errorOpen(SQLiteError(code: SQLITE_ERROR, message: "\(name) has no migrations: not a chat store"))
        }
        let known = migrations.map(\.name)
        let names = applied.map(\.upName)
        guard !names.isEmpty, names.count <= known.count, Array(known.prefix(names.count)) == names else {
            let reason =
                names.isEmpty
                ? "has no migrations: not a chat store"
                : names.count > known.count && Array(names.prefix(known.count)) == known
                    ? "is from a newer version (\(names.count - known.count) migrations this one does not know)"
                    : "has migrations this version does not know"
            throw .errorOpen(SQLiteError(code: SQLITE_ERROR, message: "\(name) \(reason)"))
        }
    }

    /// `/_db encryption`: encrypts (`current` nil), re-keys, or decrypts (`new` nil) both files; the store must be
    /// closed. Both files are checked with `current`, copied under `new` beside the old ones and made durable, and
    /// then switched together through the store's journal (`StoreSwitch`), so a crash at any moment leaves a store
    /// that opens wholly with the old key or wholly with the new one. Files left half-changed by a version without
    /// the journal (the chat file under the new key, the agent file under the old) are finished by the same call:
    /// a file already in the target state is left as it is while the other is not.
    public static func changeKey(prefix: String, current: DatabaseKey?, new: DatabaseKey?) throws(KeyError) {
        let files = Self.files(prefix: prefix)
        try recoverSwitch(prefix: prefix)
        let pending = [files.chat, files.agent].filter { !isInTargetState($0, new) }
        let toChange = pending.isEmpty ? [files.chat, files.agent] : pending
        for file in toChange {
            try checkCurrent(file, key: current)
            do { _ = try SQLiteDatabase(path: file, key: current) } catch { throw .errorOpen(error) }
        }
        do {
            for file in toChange { _ = try SQLiteDatabase.stageKeyChange(path: file, from: current, to: new) }
        } catch {
            for leftover in StoreSwitch.leftovers(of: toChange) { try? FileBytes.remove(leftover) }
            throw .errorExport(error)
        }
        do {
            try StoreSwitch(kind: .rekey, files: toChange.map(StoreSwitch.name(of:))).commit(prefix: prefix)
        } catch {
            throw .errorExport(SQLiteError(code: SQLITE_IOERR, message: error.message))
        }
    }

    /// Finishes or rolls back a switch of the files that a crash interrupted (`StoreSwitch.recover`).
    static func recoverSwitch(prefix: String) throws(KeyError) {
        let files = Self.files(prefix: prefix)
        do { try StoreSwitch.recover(prefix: prefix, files: [files.chat, files.agent]) } catch {
            throw .errorOpen(SQLiteError(code: SQLITE_IOERR, message: error.message))
        }
    }

    /// `/_db encryption` on this store: closes both connections, changes the key of both files
    /// (`changeKey(prefix:current:new:)`), and opens them again under the key each file has now — the new one after
    /// success; after a failure, the one it had (an interrupted change can leave the chat file under the new key).
    /// Should a file not open again, the store stays closed and its calls fail with "database is closed".
    public func changeKey(current: DatabaseKey?, new: DatabaseKey?) throws(KeyError) {
        close()
        var failure: KeyError?
        do { try Self.changeKey(prefix: prefix, current: current, new: new) } catch { failure = error }
        for db in [chat, agent] {
            let keys = failure == nil ? [new] : [db.key, new]
            if let error = db.reopen(tryingKeys: keys), failure == nil { failure = .errorOpen(error) }
        }
        if let failure { throw failure }
    }

    /// The key both files are open with; nil for plaintext.
    public var key: DatabaseKey? { chat.key }

    static func checkCurrent(_ file: String, key: DatabaseKey?) throws(KeyError) {
        switch SQLiteDatabase.storageState(ofFile: file) {
        case .missing: throw .errorNoFile(dbFile: file)
        case .encrypted where key == nil: throw .errorEncrypted
        case .plaintext where key != nil: throw .errorPlaintext
        case .encrypted, .plaintext, .unrecognized: return
        }
    }

    /// Whether `file` is under `new` (plaintext for nil). Only the header is read: opening the file would make a
    /// staging file's WAL.
    static func isInTargetState(_ file: String, _ new: DatabaseKey?) -> Bool {
        switch (SQLiteDatabase.storageState(ofFile: file), new) {
        case (.plaintext, nil): return true
        case (.encrypted, let key?): return (try? SealedStorage.pageKey(opening: file, with: key)) != nil
        default: return false
        }
    }
}
