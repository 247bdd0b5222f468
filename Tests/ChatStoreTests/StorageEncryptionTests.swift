import ChatStore
import Foundation
import SimplexCrypto
import TestSupport
import XCTest

final class StorageEncryptionTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sealed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private var prefix: String { folder.appendingPathComponent("simplex_v1").path }
    private var path: String { folder.appendingPathComponent("notes.db").path }

    /// Keys with the least Argon2id work libsodium allows, so the tests stay fast; the format is the same.
    private func key(_ passphrase: String) throws -> DatabaseKey {
        try XCTUnwrap(DatabaseKey(passphrase, cost: .minimum))
    }

    private static let marker = "MARKER-7f3c9a1e-note-to-self"

    /// Rows large and many enough to fill pages in the WAL and, after a checkpoint, in the main file.
    private func writeNotes(_ db: SQLiteDatabase, count: Int = 300) throws {
        try db.execute("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try db.transaction { () throws(SQLiteError) in
            for i in 0..<count {
                try db.run(
                    "INSERT INTO notes (body) VALUES (?)", [.text("\(i) \(Self.marker) " + String(repeating: "x", count: 200))])
            }
        }
    }

    private func noteCount(_ db: SQLiteDatabase) throws -> Int64? {
        try db.query("SELECT count(*) FROM notes WHERE body LIKE ?", [.text("%\(Self.marker)%")]).first?.first?.integer
    }

    /// Every file in the folder that holds the marker, by name.
    private func filesHoldingMarker() throws -> [String] {
        let marker = Data(Self.marker.utf8)
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().filter { name in
            try Data(contentsOf: folder.appendingPathComponent(name)).range(of: marker) != nil
        }
    }

    private func fileNames() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() }

    func testMarkerIsInNoFileWhileTheStoreIsOpenOrAfter() throws {
        do {
            let chat = try ChatDatabases(prefix: prefix, key: try key("correct horse"), confirmation: .yesUp).chat
            _ = try chat.query("PRAGMA wal_autocheckpoint = 0")
            try writeNotes(chat)
            XCTAssertEqual(try noteCount(chat), 300)
            XCTAssertTrue(try fileNames().contains("simplex_v1_chat.db-wal"), "rows still in the WAL")
            XCTAssertTrue(try fileNames().contains("simplex_v1_chat.db-shm"))
            XCTAssertEqual(try filesHoldingMarker(), [])

            _ = try chat.query("PRAGMA wal_checkpoint(PASSIVE)")
            try chat.execute("VACUUM")
            XCTAssertEqual(try filesHoldingMarker(), [])
        }
        XCTAssertEqual(try fileNames(), ["simplex_v1_agent.db", "simplex_v1_chat.db"])
        XCTAssertEqual(try filesHoldingMarker(), [])
        XCTAssertEqual(SQLiteDatabase.storageState(ofFile: ChatDatabases.files(prefix: prefix).chat), .encrypted)
    }

    func testTheScanFindsTheMarkerInAPlaintextStore() throws {
        let store = try ChatDatabases(prefix: prefix, confirmation: .yesUp)
        try writeNotes(store.chat)
        XCTAssertEqual(try filesHoldingMarker(), ["simplex_v1_chat.db-wal"])
        XCTAssertEqual(SQLiteDatabase.storageState(ofFile: ChatDatabases.files(prefix: prefix).chat), .plaintext)
    }

    func testWrongOrMissingKeyIsNotADatabase() throws {
        do {
            let db = try SQLiteDatabase(path: path, key: try key("right"))
            try writeNotes(db, count: 3)
        }
        for wrong in [try key("wrong"), nil] {
            XCTAssertEqual((thrown { try SQLiteDatabase(path: path, key: wrong) } as? SQLiteError)?.isNotADatabase, true)
        }
        XCTAssertEqual(try noteCount(try SQLiteDatabase(path: path, key: try key("right"))), 3)

        _ = try ChatDatabases(prefix: prefix, key: try key("right"), confirmation: .yesUp)
        XCTAssertEqual(
            thrown { try ChatDatabases(prefix: prefix, key: try key("wrong"), confirmation: .yesUp) } as? ChatDatabases.OpenError,
            .errorNotADatabase(dbFile: ChatDatabases.files(prefix: prefix).chat))
        XCTAssertEqual(
            thrown { try ChatDatabases(prefix: prefix, confirmation: .yesUp) } as? ChatDatabases.OpenError,
            .errorNotADatabase(dbFile: ChatDatabases.files(prefix: prefix).chat))
    }

    func testAKeyForAPlaintextFileIsNotADatabase() throws {
        try writeNotes(try SQLiteDatabase(path: path), count: 1)
        XCTAssertEqual((thrown { try SQLiteDatabase(path: path, key: try key("any")) } as? SQLiteError)?.isNotADatabase, true)
        XCTAssertEqual(try noteCount(try SQLiteDatabase(path: path)), 1)
    }

    func testEmptyPassphraseMeansNoKey() {
        XCTAssertNil(DatabaseKey(""))
        XCTAssertEqual(DatabaseKey("secret").map { "\($0)" }, "DatabaseKey(redacted)")
    }

    private func assertNotADatabase(_ error: (any Error)?, line: UInt = #line) {
        guard case .errorOpen(let e)? = error as? ChatDatabases.KeyError else {
            return XCTFail("\(String(describing: error))", line: line)
        }
        XCTAssertTrue(e.isNotADatabase, "\(e)", line: line)
    }

    func testAddChangeAndRemoveTheKey() throws {
        let files = ChatDatabases.files(prefix: prefix)
        try writeNotes(try ChatDatabases(prefix: prefix, confirmation: .yesUp).chat, count: 50)
        // Testing a key on plaintext files reads them as not a database, as the core's `sqlCipherTestKey` does.
        assertNotADatabase(thrown { try ChatDatabases.testKey(prefix: prefix, key: try key("a")) })
        XCTAssertNoThrow(try ChatDatabases.testKey(prefix: prefix, key: nil))

        // Add a key to a plaintext store.
        XCTAssertEqual(
            thrown { try ChatDatabases.changeKey(prefix: prefix, current: try key("a"), new: try key("b")) }
                as? ChatDatabases.KeyError, .errorPlaintext)
        try ChatDatabases.changeKey(prefix: prefix, current: nil, new: try key("a"))
        XCTAssertEqual(SQLiteDatabase.storageState(ofFile: files.chat), .encrypted)
        XCTAssertEqual(SQLiteDatabase.storageState(ofFile: files.agent), .encrypted)
        XCTAssertEqual(try filesHoldingMarker(), [])
        XCTAssertEqual(try noteCount(try ChatDatabases(prefix: prefix, key: try key("a"), confirmation: .yesUp).chat), 50)
        XCTAssertNoThrow(try ChatDatabases.testKey(prefix: prefix, key: try key("a")))
        assertNotADatabase(thrown { try ChatDatabases.testKey(prefix: prefix, key: nil) })

        // Change it: the old key is refused, the new one opens the data.
        XCTAssertEqual(
            thrown { try ChatDatabases.changeKey(prefix: prefix, current: nil, new: try key("b")) } as? ChatDatabases.KeyError,
            .errorEncrypted)
        let wrongCurrent = thrown { try ChatDatabases.changeKey(prefix: prefix, current: try key("z"), new: try key("b")) }
        guard case .errorOpen(let e)? = wrongCurrent as? ChatDatabases.KeyError else {
            return XCTFail("\(String(describing: wrongCurrent))")
        }
        XCTAssertTrue(e.isNotADatabase)
        try ChatDatabases.changeKey(prefix: prefix, current: try key("a"), new: try key("b"))
        XCTAssertEqual(
            thrown { try ChatDatabases(prefix: prefix, key: try key("a"), confirmation: .yesUp) } as? ChatDatabases.OpenError,
            .errorNotADatabase(dbFile: files.chat))
        guard
            case .errorOpen(let old)? = thrown({ try ChatDatabases.testKey(prefix: prefix, key: try key("a")) })
                as? ChatDatabases.KeyError
        else { return XCTFail("the old key passed the test") }
        XCTAssertTrue(old.isNotADatabase)
        XCTAssertEqual(try noteCount(try ChatDatabases(prefix: prefix, key: try key("b"), confirmation: .yesUp).chat), 50)
        XCTAssertEqual(try filesHoldingMarker(), [])

        // Remove it: plaintext again, with every row.
        try ChatDatabases.changeKey(prefix: prefix, current: try key("b"), new: nil)
        XCTAssertEqual(SQLiteDatabase.storageState(ofFile: files.chat), .plaintext)
        XCTAssertEqual(try noteCount(try ChatDatabases(prefix: prefix, confirmation: .yesUp).chat), 50)
        XCTAssertEqual(
            thrown { try ChatDatabases(prefix: prefix, key: try key("b"), confirmation: .yesUp) } as? ChatDatabases.OpenError,
            .errorNotADatabase(dbFile: files.chat))
        XCTAssertEqual(try fileNames(), ["simplex_v1_agent.db", "simplex_v1_chat.db"])
    }

    func testAnInterruptedKeyChangeIsFinishedByTheSameCall() throws {
        let files = ChatDatabases.files(prefix: prefix)
        try writeNotes(try ChatDatabases(prefix: prefix, key: try key("a"), confirmation: .yesUp).chat, count: 5)
        // As if the process died after the chat file: it has the new key, the agent file the old one.
        try SQLiteDatabase.changeKey(path: files.chat, from: try key("a"), to: try key("b"))
        try ChatDatabases.changeKey(prefix: prefix, current: try key("a"), new: try key("b"))
        XCTAssertEqual(try noteCount(try ChatDatabases(prefix: prefix, key: try key("b"), confirmation: .yesUp).chat), 5)
        guard
            case .errorOpen? = thrown({ try ChatDatabases.changeKey(prefix: prefix, current: try key("a"), new: try key("b")) })
                as? ChatDatabases.KeyError
        else { return XCTFail("a finished change ran again with the old key") }
    }

    func testAKeyChangeOnAnOpenStoreReopensItUnderTheNewKey() throws {
        let store = try ChatDatabases(prefix: prefix, key: try key("a"), confirmation: .yesUp)
        try writeNotes(store.chat, count: 5)
        try store.changeKey(current: try key("a"), new: try key("b"))
        XCTAssertEqual(try noteCount(store.chat), 5)
        XCTAssertTrue(store.chat.isSealed && store.agent.isSealed)
        store.close()
        try store.reopen()
        XCTAssertEqual(try noteCount(store.chat), 5)
        XCTAssertNoThrow(try ChatDatabases.testKey(prefix: prefix, key: try key("b")))

        try store.changeKey(current: try key("b"), new: nil)
        XCTAssertFalse(store.chat.isSealed)
        XCTAssertEqual(try noteCount(store.chat), 5)
        XCTAssertEqual(SQLiteDatabase.storageState(ofFile: ChatDatabases.files(prefix: prefix).agent), .plaintext)
    }

    /// The agent file's staging name taken by a folder: the change fails before anything is switched, both files
    /// stay under the old key (the chat file's copy is removed) and reopen under it, and the same call again works.
    func testAFailedChangeOnAnOpenStoreLeavesBothFilesUnderTheOldKey() throws {
        let files = ChatDatabases.files(prefix: prefix)
        let store = try ChatDatabases(prefix: prefix, key: try key("a"), confirmation: .yesUp)
        try writeNotes(store.chat, count: 5)
        try FileManager.default.createDirectory(atPath: files.agent + "-rekey", withIntermediateDirectories: false)
        guard
            case .errorExport? = thrown({ try store.changeKey(current: try key("a"), new: try key("b")) })
                as? ChatDatabases.KeyError
        else { return XCTFail("the change did not fail on the agent file") }
        XCTAssertEqual(try noteCount(store.chat), 5)
        XCTAssertEqual(try store.agent.query("SELECT count(*) FROM sqlite_master").count, 1)
        XCTAssertNoThrow(try SQLiteDatabase(path: files.chat, key: try key("a")))
        XCTAssertNoThrow(try SQLiteDatabase(path: files.agent, key: try key("a")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: files.chat + "-rekey"))

        try FileManager.default.removeItem(atPath: files.agent + "-rekey")
        try store.changeKey(current: try key("a"), new: try key("b"))
        XCTAssertNoThrow(try ChatDatabases.testKey(prefix: prefix, key: try key("b")))
        XCTAssertEqual(try noteCount(store.chat), 5)
    }

    func testAKeyChangeNeedsTheFiles() {
        XCTAssertEqual(
            thrown { try ChatDatabases.changeKey(prefix: prefix, current: nil, new: try key("a")) } as? ChatDatabases.KeyError,
            .errorNoFile(dbFile: ChatDatabases.files(prefix: prefix).chat))
    }

    /// Flips one bit, or zeroes half a page as a torn write would, in the last page of a checkpointed file.
    func testADamagedPageIsAnErrorNotData() throws {
        for damage in [Damage.bitFlip, .tornWrite] {
            try? FileManager.default.removeItem(atPath: path)
            do {
                let db = try SQLiteDatabase(path: path, key: try key("k"))
                try writeNotes(db)
            }
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            XCTAssertEqual(bytes.count % 4096, 0)
            let lastPage = bytes.count - 4096
            switch damage {
            case .bitFlip: bytes[lastPage + 1000] ^= 0x04
            case .tornWrite: bytes.replaceSubrange(lastPage + 2048..<bytes.count, with: Data(count: 2048))
            }
            try bytes.write(to: URL(fileURLWithPath: path))
            let db = try SQLiteDatabase(path: path, key: try key("k"))
            let error = thrown { try db.query("SELECT sum(length(body)) FROM notes") } as? SQLiteError
            XCTAssertEqual(error?.isPageAuthenticationFailure, true, "\(damage): \(String(describing: error))")
        }
    }

    private enum Damage { case bitFlip, tornWrite }

    /// A copy of the folder taken while the store runs is what a crash leaves: the WAL is recovered through the
    /// VFS, and a WAL cut in the middle of a frame loses only that frame's transaction.
    func testTheWALOfACrashIsRecoveredAndATornTailIsDropped() throws {
        let crash = folder.appendingPathComponent("crash")
        let db = try SQLiteDatabase(path: path, key: try key("k"))
        _ = try db.query("PRAGMA wal_autocheckpoint = 0")
        try writeNotes(db, count: 100)
        try writeNotes(db, count: 1)
        let walSize = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)

        for (cut, expected) in [(0, Int64(101)), (300, Int64(100))] {
            try? FileManager.default.removeItem(at: crash)
            try FileManager.default.createDirectory(at: crash, withIntermediateDirectories: true)
            let copy = crash.appendingPathComponent("notes.db").path
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            let wal = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
            try wal.prefix(walSize - cut).write(to: URL(fileURLWithPath: copy + "-wal"))
            XCTAssertEqual(try noteCount(try SQLiteDatabase(path: copy, key: try key("k"))), expected, "cut \(cut)")
        }
    }

    /// Once the log is accepted, a WAL page is fetched on its own and must authenticate: damage is an error.
    func testADamagedWALPageIsAnErrorOnceTheLogIsAccepted() throws {
        let writer = try SQLiteDatabase(path: path, key: try key("k"))
        _ = try writer.query("PRAGMA wal_autocheckpoint = 0")
        try writeNotes(writer, count: 100)
        let wal = FileHandle(forUpdatingAtPath: path + "-wal")
        let walFile = try XCTUnwrap(wal)
        // Frame 2's page: after the sealed WAL header (72) and frames 0 and 1 (4160 each), its header (64).
        let offset = UInt64(72 + 2 * 4160 + 64 + 500)
        try walFile.seek(toOffset: offset)
        let byte = try XCTUnwrap(try walFile.read(upToCount: 1))
        try walFile.seek(toOffset: offset)
        try walFile.write(contentsOf: Data([byte[0] ^ 0x01]))
        try walFile.close()
        // A second connection reads the pages through the WAL index, without recovery.
        let error =
            thrown {
                try SQLiteDatabase(path: path, key: try key("k")).query("SELECT sum(length(body)) FROM notes")
            } as? SQLiteError
        XCTAssertEqual(error?.isPageAuthenticationFailure, true, "\(String(describing: error))")
    }

    /// In rollback-journal mode the journal holds the original pages: sealed too, and a crash mid-transaction (the
    /// database already half written, as a small cache spills) is rolled back from it on the next open.
    func testTheRollbackJournalIsSealedAndRollsBackACrash() throws {
        let db = try SQLiteDatabase(path: path, key: try key("k"))
        XCTAssertEqual(try db.query("PRAGMA journal_mode = DELETE").first?.first?.text, "delete")
        try writeNotes(db, count: 2000)
        _ = try db.query("PRAGMA cache_size = 10")
        let committed = try Data(contentsOf: URL(fileURLWithPath: path))
        try db.execute("BEGIN IMMEDIATE; UPDATE notes SET body = 'gone'")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "-journal"))
        XCTAssertEqual(try filesHoldingMarker(), [])
        let crash = folder.appendingPathComponent("crash")
        try FileManager.default.createDirectory(at: crash, withIntermediateDirectories: true)
        let copy = crash.appendingPathComponent("notes.db").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + "-journal", toPath: copy + "-journal")
        try db.execute("ROLLBACK")
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: copy)), committed, "the cache spilled into the file")

        let recovered = try SQLiteDatabase(path: copy, key: try key("k"))
        XCTAssertEqual(try noteCount(recovered), 2000)
        XCTAssertEqual(try recovered.query("PRAGMA integrity_check").first?.first?.text, "ok")
    }

    /// A key change that died before its rename leaves the old file and a stale copy: the old file opens as before
    /// and the next change replaces the copy.
    func testAKeyChangeCutShortLeavesTheOldFile() throws {
        try writeNotes(try SQLiteDatabase(path: path, key: try key("a")), count: 7)
        try Data(repeating: 0xee, count: 10000).write(to: URL(fileURLWithPath: path + "-rekey"))
        XCTAssertEqual(try noteCount(try SQLiteDatabase(path: path, key: try key("a"))), 7)
        try SQLiteDatabase.changeKey(path: path, from: try key("a"), to: try key("b"))
        XCTAssertEqual(try noteCount(try SQLiteDatabase(path: path, key: try key("b"))), 7)
        XCTAssertEqual(try fileNames(), ["notes.db"])
    }

    /// Names SQLite's URIs would misread (`?`, `#`, `%`, spaces) stay file names.
    func testAnyPathWorks() throws {
        let odd = folder.appendingPathComponent("a b?c#d%25e")
        try FileManager.default.createDirectory(at: odd, withIntermediateDirectories: true)
        let file = odd.appendingPathComponent("x?y#z.db").path
        try writeNotes(try SQLiteDatabase(path: file, key: try key("k")), count: 4)
        try SQLiteDatabase.changeKey(path: file, from: try key("k"), to: try key("l"))
        try SQLiteDatabase.changeKey(path: file, from: try key("l"), to: nil)
        XCTAssertEqual(try noteCount(try SQLiteDatabase(path: file)), 4)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: odd.path), ["x?y#z.db"])
    }

    func testCheckpointsTransactionsAndSchemaWorkSealed() throws {
        let db = try SQLiteDatabase(path: path, key: try key("k"))
        XCTAssertTrue(db.isSealed)
        XCTAssertEqual(try db.query("PRAGMA journal_mode").first?.first?.text, "wal")
        try writeNotes(db, count: 200)
        XCTAssertEqual(try db.query("PRAGMA wal_checkpoint(TRUNCATE)").first, [.integer(0), .integer(0), .integer(0)])
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int, 0)
        XCTAssertThrowsError(
            try db.transaction { () throws(SQLiteError) in
                try db.run("DELETE FROM notes")
                try db.run("INSERT INTO no_such_table VALUES (1)")
            })
        XCTAssertEqual(try noteCount(db), 200)
        try db.execute("CREATE INDEX notes_body ON notes (body); DELETE FROM notes WHERE id % 2 = 0; VACUUM")
        XCTAssertEqual(try noteCount(db), 100)
        XCTAssertEqual(try db.query("PRAGMA integrity_check").first?.first?.text, "ok")
        // Sorting more than fits in the cache would spill to a temporary file: it stays in memory.
        _ = try db.query("PRAGMA cache_size = 5")
        XCTAssertEqual(try db.query("SELECT body FROM notes ORDER BY body DESC").count, 100)
    }

    /// Tests/Peers/unseal_db.py reads the format from its description alone (PyNaCl, Python's sqlite3).
    func testAnIndependentReaderOpensTheSealedFile() throws {
        do {
            let db = try SQLiteDatabase(path: path, key: try key("independent"))
            try writeNotes(db, count: 120)
            try db.execute("VACUUM")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Python.interpreter())
        process.arguments = [
            Python.script("Tests/Peers/unseal_db.py"), path, "independent", folder.appendingPathComponent("unsealed.db").path,
            "SELECT count(*) FROM notes WHERE body LIKE '%\(Self.marker)%'",
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(printed, "120\n")
    }

    func testTheKeyHeaderRecordsTheArgon2Cost() throws {
        _ = try SQLiteDatabase(path: path, key: try key("k"))
        let header = try XCTUnwrap(FileManager.default.contents(atPath: path)).prefix(32)
        XCTAssertEqual(Array(header.prefix(16)), Array("SimpleX-SealedDB".utf8))
        XCTAssertEqual(Array(header.suffix(16)), [0, 0, 0, 1, 0, 0, 0x10, 0, 0, 0, 0, 1, 0, 0, 0, 8])
    }

    func testAnUnknownFileIsUnrecognizedAndNotADatabase() throws {
        try Data(repeating: 0x5a, count: 8192).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(SQLiteDatabase.storageState(ofFile: path), .unrecognized)
        XCTAssertEqual((thrown { try SQLiteDatabase(path: path, key: try key("k")) } as? SQLiteError)?.isNotADatabase, true)
        XCTAssertEqual(SQLiteDatabase.storageState(ofFile: folder.appendingPathComponent("none").path), .missing)
    }
}
