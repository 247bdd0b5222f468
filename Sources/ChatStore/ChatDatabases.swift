/// The two database files of a chat store, named as the official core names them (chat-api.md §9.5):
/// `<prefix>_chat.db` and `<prefix>_agent.db`.
public final class ChatDatabases {
    public let chat: SQLiteDatabase
    public let agent: SQLiteDatabase

    /// Why a store could not be opened: `DBMigrationResult` of chat-api.md §9.6 minus `ok`.
    public enum OpenError: Error, Equatable, Sendable {
        case errorNotADatabase(dbFile: String)
        case errorMigration(dbFile: String, MigrationError)
        case errorSQL(dbFile: String, String)
    }

    public static func files(prefix: String) -> (chat: String, agent: String) { (prefix + "_chat.db", prefix + "_agent.db") }

    /// Opens (creating) both files and migrates them as `confirmation` allows.
    public init(prefix: String, confirmation: MigrationConfirmation) throws(OpenError) {
        let files = Self.files(prefix: prefix)
        chat = try Self.open(files.chat, migrations: Migration.chat, confirmation: confirmation)
        agent = try Self.open(files.agent, migrations: Migration.agent, confirmation: confirmation)
    }

    private static func open(_ file: String, migrations: [Migration], confirmation: MigrationConfirmation) throws(OpenError)
        -> SQLiteDatabase
    {
        let db: SQLiteDatabase
        do { db = try SQLiteDatabase(path: file) } catch {
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
}
