import ChatStore
import Foundation
import TestSupport
import XCTest

/// Closing and reopening the store in place, and consistent copies (chat-api.md §9.2 `chat_close_store`,
/// `chat_reopen_store`; §4.11).
final class StorageTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("storage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func file(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func testClosedDatabaseRefusesThenReopens() throws {
        let db = try SQLiteDatabase(path: file("a.db"))
        try db.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)")
        db.close()
        db.close()
        let refusal = thrown { try db.query("SELECT x FROM t") } as? SQLiteError
        XCTAssertEqual(refusal?.code, 21)  // SQLITE_MISUSE
        XCTAssertEqual(refusal?.message, "database is closed")
        XCTAssertNotNil(thrown { try db.execute("SELECT 1") })
        try db.reopen()
        XCTAssertEqual(try db.query("SELECT x FROM t"), [[.integer(1)]])
    }

    /// A file replaced while its connection was closed is what the reopened connection sees.
    func testReopenSeesReplacedFile() throws {
        let db = try SQLiteDatabase(path: file("a.db"))
        try db.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)")
        let other = try SQLiteDatabase(path: file("b.db"))
        try other.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (2)")
        try other.copy(to: file("copy.db"))
        db.close()
        for extra in SQLiteDatabase.companionFiles(of: file("a.db")) { try? FileManager.default.removeItem(atPath: extra) }
        try FileManager.default.removeItem(atPath: file("a.db"))
        try FileManager.default.moveItem(atPath: file("copy.db"), toPath: file("a.db"))
        try db.reopen()
        XCTAssertEqual(try db.query("SELECT x FROM t"), [[.integer(2)]])
    }

    /// The copy holds what was committed, including what still sits in the WAL, and nothing uncommitted.
    func testCopyIsConsistent() throws {
        let db = try SQLiteDatabase(path: file("a.db"))
        try db.execute("CREATE TABLE t (x INTEGER)")
        try db.execute("INSERT INTO t VALUES (1), (2)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: file("a.db-wal")))
        try db.copy(to: file("copy.db"))
        let copy = try SQLiteDatabase(path: file("copy.db"))
        XCTAssertEqual(try copy.query("SELECT x FROM t ORDER BY x"), [[.integer(1)], [.integer(2)]])
        XCTAssertNotNil(thrown { try db.copy(to: file("copy.db")) }, "an existing file is never overwritten")
    }

    func testChatDatabasesCloseAndReopen() throws {
        let prefix = file("simplex")
        let databases = try ChatDatabases(prefix: prefix, confirmation: .yesUp)
        XCTAssertEqual(databases.paths, [prefix + "_chat.db", prefix + "_agent.db"])
        databases.close()
        XCTAssertTrue(databases.isClosed)
        XCTAssertNotNil(thrown { try Migrator.appliedMigrations(databases.chat) })
        try databases.reopen()
        XCTAssertFalse(databases.isClosed)
        XCTAssertFalse(try Migrator.appliedMigrations(databases.chat).isEmpty)
        // Files deleted while closed come back empty and migrated.
        databases.close()
        for path in databases.paths + databases.paths.flatMap(SQLiteDatabase.companionFiles) {
            try? FileManager.default.removeItem(atPath: path)
        }
        try databases.reopen()
        XCTAssertFalse(try Migrator.appliedMigrations(databases.agent).isEmpty)
    }
}
