/// One schema change, applied in its own transaction (chat-api.md §9.6).
public struct Migration: Sendable, Equatable {
    public let name: String
    public let up: String
    public let down: String?

    public init(name: String, up: String, down: String?) {
        self.name = name
        self.up = up
        self.down = down
    }
}

/// How the C ABI's `confirm` argument lets migrations run (chat-api.md §9.6).
public enum MigrationConfirmation: String, Sendable {
    /// Apply pending up-migrations.
    case yesUp
    /// Also apply down-migrations when the database is newer than the app.
    case yesUpDown
    /// Ask on the terminal (CLI only); treated here as `error`, since we never block on a prompt.
    case console
    /// Change nothing; report what would be applied.
    case error
}

/// `{"upName": …, "withDown": …}`.
public struct UpMigration: Equatable, Sendable {
    public let upName: String
    public let withDown: Bool

    public init(upName: String, withDown: Bool) {
        self.upName = upName
        self.withDown = withDown
    }
}

/// Why the schema was not brought to the app's version (`MigrationError` of chat-api.md §9.6).
public enum MigrationError: Error, Equatable, Sendable {
    /// Up-migrations are pending and were not confirmed.
    case upgrade([UpMigration])
    /// The database is newer; these down-migrations were not confirmed.
    case downgrade([String])
    /// The database is newer and these of its migrations cannot be undone.
    case noDown([String])
    /// The database and the app disagree about a migration at the same position.
    case different(appMigration: String, dbMigration: String)
    /// SQLite failed while reading or applying migrations.
    case sql(SQLiteError)
}

/// Brings a database to a list of migrations, keeping the bookkeeping in table `migrations` (name, ts, down).
public enum Migrator {
    /// Applies what `confirmation` allows and returns the names applied (ups) or undone (downs).
    @discardableResult
    public static func migrate(_ db: SQLiteDatabase, to migrations: [Migration], confirmation: MigrationConfirmation)
        throws(MigrationError) -> [String]
    {
        let applied: [(name: String, down: String?)]
        do {
            try db.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT NOT NULL PRIMARY KEY, ts TEXT NOT NULL, down TEXT)")
            applied = try db.query("SELECT name, down FROM migrations ORDER BY name").map { ($0[0].text ?? "", $0[1].text) }
        } catch { throw .sql(error) }

        for (app, stored) in zip(migrations, applied) where app.name != stored.name {
            throw .different(appMigration: app.name, dbMigration: stored.name)
        }
        if applied.count <= migrations.count {
            let pending = Array(migrations[applied.count...])
            if pending.isEmpty { return [] }
            guard confirmation == .yesUp || confirmation == .yesUpDown else {
                throw .upgrade(pending.map { UpMigration(upName: $0.name, withDown: $0.down != nil) })
            }
            for m in pending {
                do {
                    try db.transaction { () throws(SQLiteError) in
                        try db.execute(m.up)
                        try db.run(
                            "INSERT INTO migrations (name, ts, down) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?)",
                            [.text(m.name), m.down.map(SQLValue.text) ?? .null])
                    }
                } catch {
                    switch error {
                    case .sqlite(let e), .body(let e): throw .sql(e)
                    }
                }
            }
            return pending.map(\.name)
        }
        let newer = Array(applied[migrations.count...].reversed())
        let irreversible = newer.filter { $0.down == nil }.map(\.name)
        guard irreversible.isEmpty else { throw .noDown(irreversible) }
        guard confirmation == .yesUpDown else { throw .downgrade(newer.map(\.name)) }
        for m in newer {
            do {
                try db.transaction { () throws(SQLiteError) in
                    try db.execute(m.down ?? "")
                    try db.run("DELETE FROM migrations WHERE name = ?", [.text(m.name)])
                }
            } catch {
                switch error {
                case .sqlite(let e), .body(let e): throw .sql(e)
                }
            }
        }
        return newer.map(\.name)
    }

    /// The migrations recorded in a database, oldest first (for `/version`).
    public static func appliedMigrations(_ db: SQLiteDatabase) throws(SQLiteError) -> [UpMigration] {
        try db.query("SELECT name, down FROM migrations ORDER BY name").map {
            UpMigration(upName: $0[0].text ?? "", withDown: $0[1] != .null)
        }
    }
}
