internal import ChatCore
internal import ChatStore

/// `DBMigrationResult` (chat-api.md §9.6): what `chat_migrate_init` answers.
enum MigrationResult: Error {
    case ok
    case invalidConfirmation
    case errorNotADatabase(dbFile: String)
    case errorMigration(dbFile: String, MigrationError)
    case errorSQL(dbFile: String, String)

    init(_ error: ChatDatabases.OpenError) {
        switch error {
        case .errorNotADatabase(let file): self = .errorNotADatabase(dbFile: file)
        case .errorMigration(let file, let e): self = .errorMigration(dbFile: file, e)
        case .errorSQL(let file, let message): self = .errorSQL(dbFile: file, message)
        }
    }

    var json: JSONValue {
        switch self {
        case .ok: return Self.tagged("ok")
        case .invalidConfirmation: return Self.tagged("invalidConfirmation")
        case .errorNotADatabase(let file): return Self.tagged("errorNotADatabase", ("dbFile", .string(file)))
        case .errorSQL(let file, let message):
            return Self.tagged("errorSQL", ("dbFile", .string(file)), ("migrationSQLError", .string(message)))
        case .errorMigration(let file, let error):
            let migrationError: JSONValue
            switch error {
            case .upgrade(let ups):
                let list = ups.map {
                    JSONValue.object([JSONField("upName", .string($0.upName)), JSONField("withDown", .bool($0.withDown))])
                }
                migrationError = Self.tagged("upgrade", ("upMigrations", .array(list)))
            case .downgrade(let names):
                migrationError = Self.tagged("downgrade", ("downMigrations", .array(names.map(JSONValue.string))))
            case .noDown(let names):
                migrationError = Self.tagged(
                    "migrationError", ("mtrError", Self.tagged("noDown", ("dbMigrations", .array(names.map(JSONValue.string))))))
            case .different(let app, let db):
                migrationError = Self.tagged(
                    "migrationError",
                    ("mtrError", Self.tagged("different", ("appMigration", .string(app)), ("dbMigration", .string(db)))))
            case .sql(let e):
                // The store reports SQLite failures as errorSQL itself; kept total for a future caller.
                return MigrationResult.errorSQL(dbFile: file, e.description).json
            }
            return Self.tagged("errorMigration", ("dbFile", .string(file)), ("migrationError", migrationError))
        }
    }

    /// `{"type": tag, …fields}`, the aeson sum encoding of the core.
    private static func tagged(_ tag: String, _ fields: (String, JSONValue)...) -> JSONValue {
        .object([JSONField("type", .string(tag))] + fields.map { JSONField($0.0, $0.1) })
    }
}
