import ChatStore
import Foundation
import TestSupport
import XCTest

final class MigrationTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private var path: String { folder.appendingPathComponent("test.db").path }

    private let m1 = Migration(name: "m1", up: "CREATE TABLE a (x INTEGER)", down: "DROP TABLE a")
    private let m2 = Migration(name: "m2", up: "CREATE TABLE b (y INTEGER)", down: "DROP TABLE b")
    private let m3 = Migration(name: "m3", up: "CREATE TABLE c (z INTEGER)", down: nil)

    private func tables(_ db: SQLiteDatabase) throws -> [String] {
        try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('a','b','c') ORDER BY name").compactMap {
            $0[0].text
        }
    }

    func testUpMigrationsNeedConfirmation() throws {
        let db = try SQLiteDatabase(path: path)
        XCTAssertEqual(
            thrown { try Migrator.migrate(db, to: [m1, m2], confirmation: .error) } as? MigrationError,
            .upgrade([UpMigration(upName: "m1", withDown: true), UpMigration(upName: "m2", withDown: true)]))
        XCTAssertEqual(try tables(db), [])
        XCTAssertEqual(try Migrator.migrate(db, to: [m1, m2], confirmation: .yesUp), ["m1", "m2"])
        XCTAssertEqual(try tables(db), ["a", "b"])
        XCTAssertEqual(try Migrator.migrate(db, to: [m1, m2], confirmation: .error), [])
        XCTAssertEqual(
            try Migrator.appliedMigrations(db),
            [UpMigration(upName: "m1", withDown: true), UpMigration(upName: "m2", withDown: true)])
        XCTAssertEqual(try db.query("PRAGMA journal_mode").first?.first?.text, "wal")
    }

    func testDowngradeAndItsRefusals() throws {
        let db = try SQLiteDatabase(path: path)
        try Migrator.migrate(db, to: [m1, m2], confirmation: .yesUp)
        XCTAssertEqual(thrown { try Migrator.migrate(db, to: [m1], confirmation: .yesUp) } as? MigrationError, .downgrade(["m2"]))
        XCTAssertEqual(try Migrator.migrate(db, to: [m1], confirmation: .yesUpDown), ["m2"])
        XCTAssertEqual(try tables(db), ["a"])
        try Migrator.migrate(db, to: [m1, m3], confirmation: .yesUp)
        XCTAssertEqual(
            thrown { try Migrator.migrate(db, to: [m1], confirmation: .yesUpDown) } as? MigrationError, .noDown(["m3"]))
        XCTAssertEqual(
            thrown { try Migrator.migrate(db, to: [m1, m2], confirmation: .yesUp) } as? MigrationError,
            .different(appMigration: "m2", dbMigration: "m3"))
    }

    func testAFailingMigrationChangesNothing() throws {
        let db = try SQLiteDatabase(path: path)
        let bad = Migration(name: "m2", up: "CREATE TABLE b (y INTEGER); CREATE TABLE a (oops)", down: nil)
        XCTAssertThrowsError(try Migrator.migrate(db, to: [m1, bad], confirmation: .yesUp))
        // m1 was applied in its own transaction; m2 left no table b and no bookkeeping row.
        XCTAssertEqual(try tables(db), ["a"])
        XCTAssertEqual(try Migrator.appliedMigrations(db).map(\.upName), ["m1"])
    }

    func testStoreFilesAndNotADatabase() throws {
        let prefix = folder.appendingPathComponent("simplex_v1").path
        let store = try ChatDatabases(prefix: prefix, confirmation: .yesUp)
        XCTAssertEqual(store.chat.path, prefix + "_chat.db")
        XCTAssertEqual(store.agent.path, prefix + "_agent.db")
        XCTAssertEqual(try Migrator.appliedMigrations(store.chat).map(\.upName), Migration.chat.map(\.name))

        let fresh = folder.appendingPathComponent("fresh").path
        XCTAssertEqual(
            thrown { try ChatDatabases(prefix: fresh, confirmation: .error) } as? ChatDatabases.OpenError,
            .errorMigration(
                dbFile: fresh + "_chat.db",
                .upgrade(Migration.chat.map { UpMigration(upName: $0.name, withDown: $0.down != nil) })))

        let garbage = folder.appendingPathComponent("garbage").path
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: garbage + "_chat.db"))
        XCTAssertEqual(
            thrown { try ChatDatabases(prefix: garbage, confirmation: .yesUp) } as? ChatDatabases.OpenError,
            .errorNotADatabase(dbFile: garbage + "_chat.db"))
    }

    func testTransactionsRollBack() throws {
        let db = try SQLiteDatabase(path: path)
        try db.execute("CREATE TABLE t (v INTEGER NOT NULL)")
        struct Stop: Error {}
        XCTAssertThrowsError(
            try db.transaction { () throws(SQLiteError) in
                try db.run("INSERT INTO t VALUES (1)")
                try db.run("INSERT INTO t VALUES (NULL)")
            })
        XCTAssertEqual(try db.query("SELECT count(*) FROM t").first?.first, .integer(0))
        try db.transaction { () throws(SQLiteError) in try db.run("INSERT INTO t VALUES (?)", [.integer(7)]) }
        XCTAssertEqual(try db.query("SELECT v FROM t").first?.first, .integer(7))
        XCTAssertThrowsError(try db.query("SELECT * FROM missing"))
    }
}
