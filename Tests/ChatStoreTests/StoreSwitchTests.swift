import Foundation
import TestSupport
import XCTest

@testable import ChatStore

/// The store's switch journal (docs/storage-encryption.md, "Switching files"): its bytes, its plan from every state a
/// crash can leave, and stores cut short at every step of a key change and of an import, which open wholly under one
/// generation with every row.
final class StoreSwitchTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("switch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private var prefix: String { folder.appendingPathComponent("simplex_v1").path }

    private func key(_ passphrase: String) throws -> DatabaseKey {
        try XCTUnwrap(DatabaseKey(passphrase, cost: .minimum))
    }

    private func fileNames() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() }

    private func writeNotes(_ store: ChatDatabases, tag: String, count: Int = 40) throws {
        for db in [store.chat, store.agent] {
            try db.execute("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            try db.transaction { () throws(SQLiteError) in
                for i in 0..<count { try db.run("INSERT INTO notes (body) VALUES (?)", [.text("\(tag) \(i)")]) }
            }
        }
    }

    /// The tag of the notes in both files, checking that each holds all `count` of them and no others.
    /// Another store in `incoming/` with notes tagged "archived", and the store at `prefix` with notes tagged
    /// "current"; both closed.
    private func archivedAndCurrent() throws -> (other: ChatDatabases, store: ChatDatabases) {
        let incoming = folder.appendingPathComponent("incoming")
        try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
        let other = try ChatDatabases(prefix: incoming.appendingPathComponent("x").path, confirmation: .yesUp)
        try writeNotes(other, tag: "archived")
        other.close()
        let store = try ChatDatabases(prefix: prefix, confirmation: .yesUp)
        try writeNotes(store, tag: "current")
        store.close()
        return (other, store)
    }

    private func notesTag(_ store: ChatDatabases, count: Int = 40) throws -> String? {
        var tags: Set<String> = []
        for db in [store.chat, store.agent] {
            let rows = try db.query("SELECT body FROM notes")
            guard rows.count == count else { return nil }
            for row in rows { tags.insert(String(row.first?.text?.split(separator: " ").first ?? "")) }
        }
        return tags.count == 1 ? tags.first : nil
    }

    func testTheJournalRoundTripsAndRefusesNamesOutsideItsFolder() {
        let journal = StoreSwitch(kind: .import, files: ["simplex_v1_chat.db", "simplex_v1_agent.db"])
        XCTAssertEqual(
            String(decoding: journal.encoded, as: UTF8.self),
            #"{"files":["simplex_v1_chat.db","simplex_v1_agent.db"],"switch":"import","version":1}"#)
        XCTAssertEqual(StoreSwitch(decoding: journal.encoded), journal)
        for bad in [
            #"{"files":["../x_chat.db"],"switch":"rekey","version":1}"#, #"{"files":[".."],"switch":"rekey","version":1}"#,
            #"{"files":[],"switch":"rekey","version":1}"#, #"{"files":["a"],"switch":"move","version":1}"#,
            #"{"files":["a"],"switch":"rekey","version":2}"#, #"{"files":["a"],"switch":"rekey""#, "",
        ] {
            XCTAssertNil(StoreSwitch(decoding: Array(bad.utf8)), bad)
        }
    }

    /// The plan from each state: a file whose staging copy is gone was switched; an import keeps the old file.
    func testTheStepsStartFromWhateverACrashLeft() {
        let rekey = StoreSwitch(kind: .rekey, files: ["c.db", "a.db"])
        XCTAssertEqual(
            rekey.steps(folder: "/s") { ["/s/c.db", "/s/c.db-rekey", "/s/c.db-wal", "/s/a.db", "/s/a.db-rekey"].contains($0) },
            [
                .remove("/s/c.db-wal"), .rename(from: "/s/c.db-rekey", to: "/s/c.db"),
                .rename(from: "/s/a.db-rekey", to: "/s/a.db"),
            ])
        XCTAssertEqual(
            rekey.steps(folder: "/s") { ["/s/c.db", "/s/a.db", "/s/a.db-rekey"].contains($0) },
            [.rename(from: "/s/a.db-rekey", to: "/s/a.db")])
        XCTAssertEqual(rekey.steps(folder: "/s") { ["/s/c.db", "/s/a.db"].contains($0) }, [])

        let imported = StoreSwitch(kind: .import, files: ["c.db", "a.db"])
        XCTAssertEqual(
            imported.steps(folder: "/s") { ["/s/c.db", "/s/c.db-import", "/s/c.db-shm", "/s/a.db-import"].contains($0) },
            [
                .rename(from: "/s/c.db", to: "/s/c.db.bak"), .remove("/s/c.db-shm"),
                .rename(from: "/s/c.db-import", to: "/s/c.db"),
                .rename(from: "/s/a.db-import", to: "/s/a.db"),
            ])
    }

    /// Carries out the first `count` steps of the journal written at `prefix`, as a process killed after them would
    /// have.
    private func runSteps(_ count: Int) throws {
        let journal = try XCTUnwrap(
            StoreSwitch(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: StoreSwitch.journalPath(prefix: prefix))))))
        for step in journal.steps(folder: folder.path, exists: StoreSwitch.exists).prefix(count) {
            switch step {
            case .remove(let path): try FileManager.default.removeItem(atPath: path)
            case .rename(let from, let to): XCTAssertEqual(rename(from, to), 0)
            }
        }
    }

    /// A key change killed after its copies (no journal: the old key), or after the journal and any number of its
    /// renames (the new key): the next open has the whole store under one key, and nothing of the switch is left.
    func testAKeyChangeCutShortAtEveryStepOpensUnderOneKey() throws {
        let files = ChatDatabases.files(prefix: prefix)
        for cut in -1...4 {
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let store = try ChatDatabases(prefix: prefix, key: try key("old"), confirmation: .yesUp)
            try writeNotes(store, tag: "kept")
            store.close()
            for file in [files.chat, files.agent] {
                _ = try SQLiteDatabase.stageKeyChange(path: file, from: try key("old"), to: try key("new"))
            }
            if cut >= 0 {
                let journal = StoreSwitch(kind: .rekey, files: ["simplex_v1_chat.db", "simplex_v1_agent.db"])
                try Data(journal.encoded).write(to: URL(fileURLWithPath: StoreSwitch.journalPath(prefix: prefix)))
                try runSteps(cut)
            }
            let (good, bad) = cut >= 0 ? ("new", "old") : ("old", "new")
            XCTAssertEqual(
                thrown { try ChatDatabases(prefix: prefix, key: try key(bad), confirmation: .yesUp) } as? ChatDatabases.OpenError,
                .errorNotADatabase(dbFile: files.chat), "cut \(cut)")
            let reopened = try ChatDatabases(prefix: prefix, key: try key(good), confirmation: .yesUp)
            XCTAssertEqual(try notesTag(reopened), "kept", "cut \(cut)")
            XCTAssertEqual(
                try fileNames().filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") },
                [
                    "simplex_v1_agent.db", "simplex_v1_chat.db",
                ])
        }
    }

    /// An import killed before its journal (the old store, the staged files removed) or after it and any number of
    /// its renames (the new store, the old one as `.bak`).
    func testAnImportCutShortAtEveryStepOpensOneWholeStore() throws {
        let files = ChatDatabases.files(prefix: prefix)
        for cut in -1...4 {
            try? FileManager.default.removeItem(at: folder)
            let (other, _) = try archivedAndCurrent()
            for (source, target) in zip(other.paths, [files.chat, files.agent]) {
                try FileManager.default.moveItem(atPath: source, toPath: StoreSwitch.stagingPath(of: target, kind: .import))
            }
            if cut >= 0 {
                let journal = StoreSwitch(kind: .import, files: ["simplex_v1_chat.db", "simplex_v1_agent.db"])
                try Data(journal.encoded).write(to: URL(fileURLWithPath: StoreSwitch.journalPath(prefix: prefix)))
                try runSteps(cut)
            }
            let reopened = try ChatDatabases(prefix: prefix, confirmation: .yesUp)
            XCTAssertEqual(try notesTag(reopened), cut >= 0 ? "archived" : "current", "cut \(cut)")
            reopened.close()
            let left = try fileNames().filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") && $0 != "incoming" }
            if cut >= 0 {
                XCTAssertEqual(
                    left, ["simplex_v1_agent.db", "simplex_v1_agent.db.bak", "simplex_v1_chat.db", "simplex_v1_chat.db.bak"])
                for backup in [files.chat, files.agent].map(StoreSwitch.backupPath(of:)) {
                    let db = try SQLiteDatabase(path: backup, key: nil)
                    XCTAssertEqual(
                        try db.query("SELECT count(*) FROM notes WHERE body LIKE 'current %'").first?.first?.integer, 40)
                }
            } else {
                XCTAssertEqual(left, ["simplex_v1_agent.db", "simplex_v1_chat.db"])
            }
        }
    }

    /// The public import path: both files replaced through the journal, the old ones named in the result.
    func testReplaceFilesKeepsTheOldStoreAsBackups() throws {
        let files = ChatDatabases.files(prefix: prefix)
        let (other, store) = try archivedAndCurrent()
        XCTAssertEqual(
            try store.replaceFiles(chat: other.paths[0], agent: other.paths[1]), [files.chat + ".bak", files.agent + ".bak"])
        try store.reopen()
        XCTAssertEqual(try notesTag(store), "archived")
        XCTAssertFalse(FileManager.default.fileExists(atPath: StoreSwitch.journalPath(prefix: prefix)))
    }

    /// A journal this version cannot read stops the open: which generation is current is then unknown.
    func testAnUnreadableJournalStopsTheOpen() throws {
        _ = try ChatDatabases(prefix: prefix, confirmation: .yesUp)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: StoreSwitch.journalPath(prefix: prefix)))
        guard case .errorSQL? = thrown({ try ChatDatabases(prefix: prefix, confirmation: .yesUp) }) as? ChatDatabases.OpenError
        else { return XCTFail("an unreadable journal was ignored") }
    }

    /// Files that follow another store's key change: staged, then cut short before the commit. The next start adopts
    /// the copies when the key it has (the other store's new one) opens them and not the current files, and drops
    /// them otherwise.
    func testAStagedKeyChangeIsAdoptedOnlyUnderTheNewKey() throws {
        let files = ChatDatabases.files(prefix: prefix)
        for adopted in [true, false] {
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let store = try ChatDatabases(prefix: prefix, key: try key("old"), confirmation: .yesUp)
            try writeNotes(store, tag: "host")
            store.close()
            try ChatDatabases.stageKeyChange(prefix: prefix, current: try key("old"), new: try key("new"))
            let startKey = try key(adopted ? "new" : "old")
            XCTAssertEqual(try ChatDatabases.adoptStagedKeyChange(prefix: prefix, key: startKey), adopted)
            let reopened = try ChatDatabases(prefix: prefix, key: startKey, confirmation: .yesUp)
            XCTAssertEqual(try notesTag(reopened), "host")
            XCTAssertFalse(FileManager.default.fileExists(atPath: files.chat + "-rekey"))
            XCTAssertFalse(FileManager.default.fileExists(atPath: files.agent + "-rekey"))
        }
    }
}
