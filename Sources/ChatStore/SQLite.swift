internal import CSQLite
internal import CSealedVFS

/// A failure reported by SQLite, with its primary result code and message.
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: Int32
    public let message: String

    /// The file is encrypted with another key, or is not a database (`SQLITE_NOTADB`).
    public var isNotADatabase: Bool { code & 0xff == SQLITE_NOTADB }
    /// A page of a sealed database failed authentication: damaged or tampered with, never read as data
    /// (`SQLITE_IOERR_DATA`).
    public var isPageAuthenticationFailure: Bool { code == SQLITE_IOERR | (32 << 8) }
    /// A UNIQUE, FOREIGN KEY or other constraint refused a write.
    public var isConstraint: Bool { code & 0xff == SQLITE_CONSTRAINT }

    public var description: String { "SQLite error \(code): \(message)" }

    /// What SQLite answers reading a file under the wrong key, or under none (`SQLITE_NOTADB`).
    static let notADatabase = SQLiteError(code: SQLITE_NOTADB, message: "file is not a database")
}

/// A value bound to or read from a statement.
public enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

/// One SQLite connection. Not thread-safe: a single owner (the store's actor or queue) uses it.
public final class SQLiteDatabase {
    /// Closed by `close` and replaced by `reopen` (Storage.swift); while closed, calls fail instead of touching it.
    var handle: OpaquePointer
    var isClosed = false
    /// Prepared statements of `run` and `query` by their SQL, reset, ready for the next use: preparing a statement
    /// costs more than running most of them. Raw handles, as a `Statement` would keep its database alive.
    private var cachedStatements: [String: OpaquePointer] = [:]
    /// Enough for every statement the store issues with its SQL fixed; beyond it, an arbitrary one makes room.
    private static let statementCacheLimit = 256
    public let path: String
    /// The key the file is sealed with, nil for plaintext: kept so that `reopen` opens the file as it is now, and
    /// replaced when `/_db encryption` changes it.
    var key: DatabaseKey?
    /// Whether the file is sealed by the encrypting VFS.
    public var isSealed: Bool { key != nil }

    /// SQLite's page cache of a sealed connection, in KiB.
    static let sealedCacheKiB = 32 * 1024

    /// Opens (creating if needed) a plaintext database file; WAL journal, foreign keys on, a busy timeout.
    public convenience init(path: String) throws(SQLiteError) { try self.init(path: path, key: nil) }

    /// Opens (creating if needed) a database file, sealed with `key` when one is given
    /// (docs/storage-encryption.md). A wrong key, a key for a plaintext file and no key for a sealed one all
    /// fail with `SQLITE_NOTADB` (`isNotADatabase`), the C ABI's `errorNotADatabase`.
    public convenience init(path: String, key: DatabaseKey?) throws(SQLiteError) {
        try self.init(path: path, key: key, namesAreURIs: false)
    }

    /// `namesAreURIs` lets `VACUUM INTO` name its target by URI, with its own VFS and key slot.
    init(path: String, key: DatabaseKey?, namesAreURIs: Bool) throws(SQLiteError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc: Int32
        if let key {
            let pageKey = try SealedStorage.pageKey(opening: path, with: key)
            rc = try SealedStorage.withSlot(pageKey) { slot throws(SQLiteError) in
                sqlite3_open_v2(
                    SealedStorage.uri(path, vfs: SealedStorage.vfsName, slot: slot), &db, flags | SQLITE_OPEN_URI, nil)
            }
        } else {
            rc = sqlite3_open_v2(path, &db, flags | (namesAreURIs ? SQLITE_OPEN_URI : 0), nil)
        }
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message)
        }
        handle = db
        self.path = path
        self.key = key
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
        if key != nil {
            // A new sealed file gets the page size and the reserved bytes the VFS keeps its nonces and tags in
            // (both ignored once the file has pages); temporary tables, indices and statement journals stay in
            // memory, where the VFS would refuse to make a plaintext file for them.
            try setReservedBytes(Int32(SIMPLEX_SEALED_RESERVE))
            try execute("PRAGMA page_size = \(SIMPLEX_SEALED_PAGE_SIZE); PRAGMA temp_store = MEMORY")
            // A page read again from SQLite's cache is plaintext already; one read through the VFS is opened again
            // (about 1.5–3 µs), where a plaintext store's miss costs only a copy from the OS's cache. So a sealed
            // connection keeps more pages than SQLite's default 2 MiB (memory is taken only as pages are read).
            try execute("PRAGMA cache_size = -\(Self.sealedCacheKiB)")
        }
        // Reading the schema is what fails on a file that is not a database.
        try execute("PRAGMA foreign_keys = ON")
        _ = try query("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
    }

    /// Asks for `count` reserved bytes per page: applied to an empty database now, to a copy by `VACUUM INTO`.
    func setReservedBytes(_ count: Int32) throws(SQLiteError) {
        var value = count
        let rc = sqlite3_file_control(handle, "main", SQLITE_FCNTL_RESERVE_BYTES, &value)
        guard rc == SQLITE_OK else { throw error(rc) }
    }

    deinit {
        finalizeCachedStatements()
        if !isClosed { sqlite3_close_v2(handle) }
    }

    /// Drops the prepared statements; before the connection closes, as they belong to it.
    func finalizeCachedStatements() {
        for statement in cachedStatements.values { sqlite3_finalize(statement) }
        cachedStatements = [:]
    }

    func error(_ rc: Int32) -> SQLiteError { SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle))) }

    /// Runs one or more statements without parameters.
    public func execute(_ sql: String) throws(SQLiteError) {
        try requireOpen()
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc) }
    }

    /// Runs one statement with parameters; returns the number of rows it changed.
    @discardableResult
    public func run(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) -> Int {
        try withCachedStatement(sql, values) { (statement) throws(SQLiteError) in
            while try statement.step() {}
            return Int(sqlite3_changes(handle))
        }
    }

    /// Runs a query and returns all its rows.
    public func query(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) -> [[SQLValue]] {
        try withCachedStatement(sql, values) { (statement) throws(SQLiteError) in
            var rows: [[SQLValue]] = []
            while try statement.step() { rows.append(statement.row) }
            return rows
        }
    }

    /// Runs `body` on the cached statement of `sql` (prepared on first use) with `values` bound, and puts it back
    /// reset. A statement in use is out of the cache, so a nested use of the same SQL prepares one of its own.
    private func withCachedStatement<T>(
        _ sql: String, _ values: [SQLValue], _ body: (Statement) throws(SQLiteError) -> T
    ) throws(SQLiteError) -> T {
        try requireOpen()
        let raw: OpaquePointer
        if let cached = cachedStatements.removeValue(forKey: sql) {
            raw = cached
        } else {
            var s: OpaquePointer?
            let rc = sqlite3_prepare_v2(handle, sql, -1, &s, nil)
            guard rc == SQLITE_OK, let s else { throw error(rc) }
            raw = s
        }
        let statement = Statement(raw, database: self, finalizes: false)
        defer {
            // Reset ends the statement's read of the database; cleared bindings free the bound copies.
            sqlite3_reset(raw)
            sqlite3_clear_bindings(raw)
            if cachedStatements[sql] != nil {
                sqlite3_finalize(raw)
            } else {
                if cachedStatements.count >= Self.statementCacheLimit, let evicted = cachedStatements.popFirst() {
                    sqlite3_finalize(evicted.value)
                }
                cachedStatements[sql] = raw
            }
        }
        try statement.bind(values)
        return try body(statement)
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open, so that an operation that is one transaction can also run inside a larger one.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try requireOpen()
        var s: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &s, nil)
        guard rc == SQLITE_OK, let s else { throw error(rc) }
        return Statement(s, database: self, finalizes: true)
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE`): committed when it returns, rolled back when it throws,
    /// so a command happens whole or not at all.
    @discardableResult
    public func transaction<T, E: Error>(_ body: () throws(E) -> T) throws(TransactionError<E>) -> T {
        do { try execute("BEGIN IMMEDIATE") } catch { throw .sqlite(error) }
        let result: T
        do {
            result = try body()
        } catch {
            try? execute("ROLLBACK")
            throw .body(error)
        }
        do { try execute("COMMIT") } catch {
            try? execute("ROLLBACK")
            throw .sqlite(error)
        }
        return result
    }
}

/// A transaction failed in SQLite itself, or its body threw.
public enum TransactionError<E: Error>: Error {
    case sqlite(SQLiteError)
    case body(E)
}

/// A prepared statement, finalized when released (unless its database keeps it for reuse).
public final class Statement {
    let handle: OpaquePointer
    let database: SQLiteDatabase
    private let finalizes: Bool

    init(_ handle: OpaquePointer, database: SQLiteDatabase, finalizes: Bool) {
        self.handle = handle
        self.database = database
        self.finalizes = finalizes
    }

    deinit { if finalizes { sqlite3_finalize(handle) } }

    public func bind(_ values: [SQLValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (i, v) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch v {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let n): rc = sqlite3_bind_int64(handle, index, n)
            case .text(let s): rc = simplex_sqlite_bind_text(handle, index, s, Int32(s.utf8.count))
            case .blob(let b): rc = b.withUnsafeBytes { simplex_sqlite_bind_blob(handle, index, $0.baseAddress, Int32(b.count)) }
            }
            guard rc == SQLITE_OK else { throw database.error(rc) }
        }
    }

    /// Advances; true while a row is available.
    public func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(rc)
        }
    }

    public var row: [SQLValue] {
        (0..<sqlite3_column_count(handle)).map { i in
            switch sqlite3_column_type(handle, i) {
            case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, i))
            case SQLITE_TEXT:
                // By its length: one pass over the bytes, and a NUL inside the text stays.
                let n = Int(sqlite3_column_bytes(handle, i))
                guard n > 0, let p = sqlite3_column_text(handle, i) else { return .text("") }
                return .text(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
            case SQLITE_BLOB:
                let n = Int(sqlite3_column_bytes(handle, i))
                guard n > 0, let p = sqlite3_column_blob(handle, i) else { return .blob([]) }
                return .blob(Array(UnsafeRawBufferPointer(start: p, count: n)))
            default: return .null
            }
        }
    }
}

extension SQLValue {
    public var integer: Int64? {
        if case .integer(let n) = self { return n }
        return nil
    }
    public var text: String? {
        if case .text(let s) = self { return s }
        return nil
    }
    public var blob: [UInt8]? {
        switch self {
        case .blob(let b): return b
        case .text(let s): return Array(s.utf8)
        default: return nil
        }
    }
}
