internal import CSQLite

// Closing, reopening and copying the store's files: what `chat_close_store` and `chat_reopen_store` (chat-api.md
// §9.2) and the database commands of §4.11 (export, import, delete) need while the databases are open in a core.

extension SQLiteDatabase {
    /// Closes the connection now. Statements still alive keep SQLite's side of it until they are released; every new
    /// call fails with SQLITE_MISUSE "database is closed" until `reopen`. Closing twice does nothing.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        finalizeCachedStatements()
        sqlite3_close_v2(handle)
    }

    /// Opens the same file again, with the same settings as a new connection; objects holding this database see the
    /// file as it is now (replaced by an import, say).
    public func reopen() throws(SQLiteError) {
        guard isClosed else { return }
        let fresh = try SQLiteDatabase(path: path, key: key)
        handle = fresh.handle
        isClosed = false
        // The handle now belongs to this object; the fresh one must not close it.
        fresh.isClosed = true
    }

    /// Reopens under the first of `keys` that opens the file, keeping it as the file's key; when none does, the
    /// connection stays closed with its key as it was, and the last failure is returned.
    func reopen(tryingKeys keys: [DatabaseKey?]) -> SQLiteError? {
        let before = key
        var failure: SQLiteError?
        for candidate in keys {
            key = candidate
            do {
                try reopen()
                return nil
            } catch {
                failure = error
                if !error.isNotADatabase { break }
            }
        }
        key = before
        return failure
    }

    func requireOpen() throws(SQLiteError) {
        if isClosed { throw SQLiteError(code: SQLITE_MISUSE, message: "database is closed") }
    }

    /// A consistent, compact copy of the database in a new file (`VACUUM INTO`): what committed transactions hold,
    /// WAL included, without stopping the connection. A sealed database's copy is sealed with the same passphrase
    /// (under a salt of its own), as the apps export their encrypted files: the same key opens it.
    public func copy(to file: String) throws(SQLiteError) {
        guard let key else {
            try run("VACUUM INTO ?", [.text(file)])
            return
        }
        try vacuum(into: file, sealedWith: key)
    }

    /// The files SQLite keeps beside a database in WAL mode.
    public static func companionFiles(of file: String) -> [String] { [file + "-wal", file + "-shm"] }
}

extension ChatDatabases {
    /// Both files' paths, chat first.
    public var paths: [String] { [chat.path, agent.path] }

    public var isClosed: Bool { chat.isClosed || agent.isClosed }

    /// Closes both connections (`chat_close_store`). Their objects stay valid: calls fail until `reopen`.
    public func close() {
        chat.close()
        agent.close()
    }

    /// Reopens both files and migrates them as `confirmation` allows (`chat_reopen_store`; files replaced meanwhile
    /// may be older than this build). Each file opens under the key it was open with, or with `keys` given (files
    /// re-keyed by another connection), under the first of them that opens it.
    public func reopen(confirmation: MigrationConfirmation = .yesUp, keys: [DatabaseKey?]? = nil) throws(OpenError) {
        for (db, migrations) in [(chat, Migration.chat), (agent, Migration.agent)] {
            if let error = db.reopen(tryingKeys: keys ?? [db.key]) {
                throw error.isNotADatabase ? .errorNotADatabase(dbFile: db.path) : .errorSQL(dbFile: db.path, error.message)
            }
            try Self.migrate(db, migrations: migrations, confirmation: confirmation)
        }
    }
}
