public import ChatStore

/// Serial access to the agent store from concurrent code: every call runs on this actor, one at a time, and each is
/// one transaction (`transaction` makes one of several).
public actor AgentStoreActor {
    let store: AgentStore

    /// Over the agent file of a store's databases; the chat file stays with its own actor.
    public init(_ databases: sending ChatDatabases) { store = AgentStore(databases.agent) }

    /// Over an agent database opened by the caller (migrated with `Migration.agent`).
    public init(_ database: sending SQLiteDatabase) { store = AgentStore(database) }

    /// Opens (creating) an agent database file and migrates it.
    public init(path: String, key: DatabaseKey? = nil, confirmation: MigrationConfirmation = .yesUp)
        throws(AgentStoreError)
    {
        let db: SQLiteDatabase
        do { db = try SQLiteDatabase(path: path, key: key) } catch { throw .sqlite(error) }
        do { try Migrator.migrate(db, to: Migration.agent, confirmation: confirmation) } catch {
            throw .migration(error)
        }
        store = AgentStore(db)
    }

    /// Runs `body` with the store as one transaction: what it changed is rolled back when it throws.
    public func transaction<T: Sendable>(_ body: (AgentStore) throws(AgentStoreError) -> T) throws(AgentStoreError) -> T {
        try store.atomically { () throws(AgentStoreError) in try body(store) }
    }

    /// Runs one read or operation of the store (each is its own transaction).
    public func read<T: Sendable>(_ body: (AgentStore) throws(AgentStoreError) -> T) throws(AgentStoreError) -> T {
        try body(store)
    }

    /// Closes the file; until `reopen`, calls fail.
    public func close() { store.db.close() }

    public func reopen() throws(AgentStoreError) {
        do { try store.db.reopen() } catch { throw .sqlite(error) }
    }
}
