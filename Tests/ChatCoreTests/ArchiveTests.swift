import ChatCore
import ChatStore
import Foundation
import SimplexArchive
import SimplexEncoding
import XCTest

/// Database and storage, chat-api.md §4.11: archive export and import in the apps' layout, deleting the store, and
/// the refusals while the chat runs.
final class ArchiveTests: XCTestCase {
    private let fm = FileManager.default

    private func path(_ h: EngineHarness, _ name: String) -> String { h.folder.appendingPathComponent(name).path }

    /// `/set file paths` with the three folders inside the harness's folder.
    private func setFilePaths(_ engine: ChatEngine, _ h: EngineHarness) async {
        let line =
            #"/set file paths {"appFilesFolder":"\#(path(h, "files"))","appTempFolder":"\#(path(h, "temp"))","#
            + #""appAssetsFolder":"\#(path(h, "assets"))"}"#
        let text = await engine.execute(line).text
        XCTAssertEqual(text, #"{"result":{"type":"cmdOk"}}"#)
    }

    private func config(_ archive: String, _ more: String = "") -> String { #"{"archivePath":"\#(archive)"\#(more)}"# }

    /// What the store holds, as the commands that work before `/_start` show it.
    private func snapshot(_ engine: ChatEngine) async -> [String] {
        var out: [String] = []
        for line in ["/users", "/_get chats 1 pcc=on", "/_get tags 1", "/_get chats 2 pcc=on", "/_get tags 2"] {
            out.append(await engine.execute(line).text)
        }
        return out
    }

    private func entries(_ archive: String) throws -> [String: (method: UInt16, data: [UInt8])] {
        let reader = try ZipReader(source: FileZipSource(path: archive))
        var out: [String: (UInt16, [UInt8])] = [:]
        for entry in reader.entries {
            let sink = MemoryZipSink()
            try reader.extract(entry, to: sink)
            out[entry.name] = (entry.method, sink.bytes)
        }
        return out
    }

    private let photo = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }

    /// Export, delete storage, import; after a restart every user, group, tag, note and file is back.
    func testRoundTrip() async throws {
        let h = try EngineHarness()
        await setFilePaths(h.engine, h)
        await h.startWithUser("alice")
        let team = await h.result(#"/_group 1 {"displayName":"team","fullName":"The team"}"#, "groupCreated")
        let teamId = team["groupInfo"]?["groupId"]?.integerValue ?? 0
        await h.result(#"/_create tag {"emoji":"🏠","text":"Family"}"#, "chatTags")
        await h.result("/_tags #\(teamId) 1", "tagsUpdated")
        await h.result(#"/_settings #\#(teamId) {"enableNtfs":"mentions","favorite":true}"#, "cmdOk")
        await h.result(#"/_create user {"profile":{"displayName":"bob","fullName":"Bob"},"pastTimestamp":false}"#, "activeUser")
        await h.result("/g bobs", "groupCreated")
        await h.result("/_user 1", "activeUser")
        try Data(photo).write(to: URL(fileURLWithPath: path(h, "files/photo.jpg")))
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path(h, "files/note.txt")))
        await h.result("/_create *1 text a note to keep", "newChatItems")
        await h.result(
            #"/_create *1 json [{"msgContent":{"type":"file","text":""},"fileSource":{"filePath":"note.txt"}}]"#,
            "newChatItems")
        let notesBefore = await h.engine.execute("/_get chat *1 count=10").text
        XCTAssertTrue(notesBefore.contains("a note to keep") && notesBefore.contains("note.txt"))
        try fm.createDirectory(atPath: path(h, "files/nested"), withIntermediateDirectories: true)
        try Data("not in the layout".utf8).write(to: URL(fileURLWithPath: path(h, "files/nested/x")))
        try fm.createDirectory(atPath: path(h, "assets/wallpapers"), withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path(h, "assets/wallpapers/sky.png")))
        let before = await snapshot(h.engine)

        let archive = path(h, "export.zip")
        await h.chatError("/_db export \(config(archive))", "chatNotStopped")
        await h.result("/_stop", "chatStopped")
        await h.expect("/_db export \(config(archive))", #"{"result":{"type":"archiveExported","archiveErrors":[]}}"#)
        let exported = try entries(archive)
        XCTAssertEqual(
            Set(exported.keys),
            [
                "simplex_v1_chat.db", "simplex_v1_agent.db", "simplex_v1_files/photo.jpg", "simplex_v1_files/note.txt",
                "simplex_v1_assets/wallpapers/sky.png",
            ])
        XCTAssertEqual(exported["simplex_v1_files/photo.jpg"]?.data, photo)
        XCTAssertEqual(exported["simplex_v1_chat.db"]?.method, 8)

        await h.expect("/_db delete", #"{"result":{"type":"cmdOk"}}"#)
        for gone in ["simplex_v1_chat.db", "simplex_v1_agent.db", "files", "assets", "temp"] {
            XCTAssertFalse(fm.fileExists(atPath: path(h, gone)), gone)
        }
        await h.chatError("/_start", "chatStoreChanged")
        await h.expect("/_db import \(config(archive))", #"{"result":{"type":"archiveImported","archiveErrors":[]}}"#)
        await h.chatError("/_start", "chatStoreChanged")

        // A restart: a new engine on the imported files.
        let restarted = try ChatEngine(prefix: path(h, "simplex_v1"))
        await setFilePaths(restarted, h)
        let after = await snapshot(restarted)
        XCTAssertEqual(after, before)
        XCTAssertTrue(before[2].contains("Family"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path(h, "files/photo.jpg"))), Data(photo))
        XCTAssertEqual(try String(contentsOfFile: path(h, "files/note.txt"), encoding: .utf8), "hello")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path(h, "assets/wallpapers/sky.png"))), Data([1, 2, 3]))
        XCTAssertFalse(fm.fileExists(atPath: path(h, "files/nested")))
        let started = await restarted.execute("/_start").text
        XCTAssertEqual(started, #"{"result":{"type":"chatStarted"}}"#)
        let notesAfter = await restarted.execute("/_get chat *1 count=10").text
        XCTAssertEqual(notesAfter, notesBefore)
    }

    /// `chat_close_store` and `chat_reopen_store` (§9.2): the store is unusable in between, then as it was.
    func testCloseAndReopenStore() async throws {
        let h = try EngineHarness()
        await h.createUser("alice")
        await h.engine.closeStore()
        let closed = await h.storeError("/users", "dBException")
        XCTAssertEqual(closed["message"]?.stringValue, "SQLite error 21: database is closed")
        try await h.engine.reopenStore()
        await h.result("/users", "usersList")
        await h.result("/_start", "chatStarted")
    }

    func testRefusedWhileRunningAndBadConfigs() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let archive = path(h, "a.zip")
        await h.chatError("/_db export \(config(archive))", "chatNotStopped")
        await h.chatError("/_db import \(config(archive))", "chatNotStopped")
        await h.chatError("/_db delete", "chatNotStopped")
        await h.result("/_stop", "chatStopped")
        await h.chatError(#"/_db export {"disableCompression":true}"#, "commandError")
        await h.chatError("/_db import \(config(path(h, "missing.zip")))", "exception")
        try Data("not a zip".utf8).write(to: URL(fileURLWithPath: archive))
        await h.chatError("/_db import \(config(archive))", "exception")
        // An archive without the databases leaves the store as it was.
        let sink = try FileZipSink(creating: archive)
        let writer = ZipWriter(sink: sink)
        try writer.beginEntry(name: "simplex_v1_files/a.txt", method: .stored, modified: .earliest, expectedSize: 1)
        try writer.write([65])
        try writer.endEntry()
        try writer.finish()
        try sink.close()
        let refusal = await h.chatError("/_db import \(config(archive))", "exception")
        XCTAssertEqual(refusal["message"]?.stringValue, "\(archive): the archive has no simplex_v1_chat.db")
        await h.result("/users", "usersList")
        await h.result("/_start", "chatStarted")
    }

    /// An export goes to a partial file beside the destination and is renamed onto it when whole: an existing archive
    /// is replaced only then, and what a killed export left beside the same destination is cleared by the next one.
    func testExportReplacesTheDestinationWhenWhole() async throws {
        let h = try EngineHarness()
        await setFilePaths(h.engine, h)
        await h.createUser("alice")
        let folder = path(h, "backups")
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let archive = folder + "/simplex.zip"
        try Data("an older backup".utf8).write(to: URL(fileURLWithPath: archive))
        let stale = folder + "/.simplex.zip.export-" + UUID().uuidString
        try Data("left by a killed export".utf8).write(to: URL(fileURLWithPath: stale))
        try Data("keep".utf8).write(to: URL(fileURLWithPath: folder + "/.other.zip.export-1"))
        await h.result("/_db export \(config(archive))", "archiveExported")
        XCTAssertNotNil(try entries(archive)["simplex_v1_chat.db"])
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: folder).sorted(), [".other.zip.export-1", "simplex.zip"])
    }

    /// An archive whose databases would leave a store the host does not open is refused before anything is
    /// replaced (random bytes as the chat database used to answer `archiveImported`, and the next start exited with
    /// a hint about keys): each database is checked for its header, the store's key, `integrity_check` and schema,
    /// with the official core's `errorDatabase` errors. A good import keeps the previous databases as `.bak`.
    func testImportChecksEveryDatabaseBeforeReplacingAnything() async throws {
        let h = try EngineHarness()
        await setFilePaths(h.engine, h)
        await h.startWithUser("alice")
        await h.result("/_create *1 text the note that must survive", "newChatItems")
        await h.result("/_stop", "chatStopped")
        let good = path(h, "good.zip")
        await h.result("/_db export \(config(good))", "archiveExported")
        let exported = try entries(good)
        let chat = try XCTUnwrap(exported["simplex_v1_chat.db"]?.data)
        let agent = try XCTUnwrap(exported["simplex_v1_agent.db"]?.data)

        let notADatabase = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        var damaged = chat
        for i in stride(from: 4096 + 100, to: min(damaged.count, 4096 * 4), by: 7) { damaged[i] ^= 0x5A }
        let other = path(h, "other.db")
        do {
            let plainSQLite = try SQLiteDatabase(path: other)
            try plainSQLite.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
        }
        let notAStore = Array(try Data(contentsOf: URL(fileURLWithPath: other)))
        let sealedPath = path(h, "sealed.db")
        try Data(chat).write(to: URL(fileURLWithPath: sealedPath))
        try SQLiteDatabase.changeKey(path: sealedPath, from: nil, to: EngineHarness.databaseKey("another key"))
        let sealed = Array(try Data(contentsOf: URL(fileURLWithPath: sealedPath)))

        let cases: [(String, [UInt8], [UInt8], String, String?)] = [
            ("random bytes", notADatabase, agent, "errorOpen", "errorNotADatabase"),
            ("damaged pages", damaged, agent, "errorOpen", "error"),
            ("a database that is no chat store", notAStore, agent, "errorOpen", "error"),
            ("the agent's schema as the chat database", agent, agent, "errorOpen", "error"),
            ("a database under a key the store does not have", sealed, agent, "errorEncrypted", nil),
            ("random bytes as the agent database", chat, notADatabase, "errorOpen", "errorNotADatabase"),
        ]
        let before = await snapshot(h.engine)
        for (what, chatBytes, agentBytes, databaseError, sqliteError) in cases {
            let archive = path(h, "bad.zip")
            try write(archive, [("simplex_v1_chat.db", chatBytes), ("simplex_v1_agent.db", agentBytes)])
            let envelope = await h.send("/_db import \(config(archive))")
            let error = envelope["error"]
            XCTAssertEqual(error?["type"]?.stringValue, "errorDatabase", "\(what): \(envelope.rendered)")
            XCTAssertEqual(error?["databaseError"]?["type"]?.stringValue, databaseError, what)
            XCTAssertEqual(error?["databaseError"]?["sqliteError"]?["type"]?.stringValue, sqliteError, what)
            let after = await snapshot(h.engine)
            XCTAssertEqual(after, before, "\(what): the store is as it was")
            XCTAssertFalse(fm.fileExists(atPath: path(h, "simplex_v1_chat.db.bak")), what)
        }
        let started = await h.text("/_start")
        XCTAssertEqual(started, #"{"result":{"type":"chatStarted"}}"#)
        let notes = await h.text("/_get chat *1 count=10")
        XCTAssertTrue(notes.contains("the note that must survive"))
        await h.result("/_stop", "chatStopped")

        await h.expect("/_db import \(config(good))", #"{"result":{"type":"archiveImported","archiveErrors":[]}}"#)
        for name in ["simplex_v1_chat.db.bak", "simplex_v1_agent.db.bak"] {
            XCTAssertTrue(fm.fileExists(atPath: path(h, name)), "the previous database is kept as \(name)")
        }
    }

    /// An archive of the given entries, deflated.
    private func write(_ archive: String, _ contents: [(String, [UInt8])]) throws {
        let sink = try FileZipSink(creating: archive)
        let writer = ZipWriter(sink: sink)
        for (name, bytes) in contents {
            try writer.beginEntry(name: name, method: .deflated, modified: .earliest, expectedSize: UInt64(bytes.count))
            try writer.write(bytes)
            try writer.endEntry()
        }
        try writer.finish()
        try sink.close()
    }

    /// Entries that would land outside the store's folders are refused one by one; the rest is imported.
    func testUnsafeEntriesAndUnaddableFiles() async throws {
        let h = try EngineHarness()
        await setFilePaths(h.engine, h)
        await h.createUser("alice")
        // A name our writer refuses is a file error of the export, the other files go in.
        try Data("x".utf8).write(to: URL(fileURLWithPath: path(h, #"files/back\slash.txt"#)))
        try Data("y".utf8).write(to: URL(fileURLWithPath: path(h, "files/fine.txt")))
        let archive = path(h, "a.zip")
        let r = await h.result("/_db export \(config(archive, #","disableCompression":true"#))", "archiveExported")
        XCTAssertEqual(r["archiveErrors"]?.arrayValue?.count, 1)
        XCTAssertEqual(r["archiveErrors"]?.arrayValue?.first?["type"]?.stringValue, "fileError")
        XCTAssertEqual(r["archiveErrors"]?.arrayValue?.first?["file"]?.stringValue, #"back\slash.txt"#)
        let exported = try entries(archive)
        XCTAssertEqual(exported["simplex_v1_files/fine.txt"]?.method, 0)
        XCTAssertEqual(exported["simplex_v1_chat.db"]?.method, 0)

        // The same databases with hostile names beside them.
        let hostile = path(h, "hostile.zip")
        let sink = try FileZipSink(creating: hostile)
        let writer = ZipWriter(sink: sink)
        for name in ["simplex_v1_chat.db", "simplex_v1_agent.db", "simplex_v1_files/fine.txt"] {
            try writer.beginEntry(name: name, method: .deflated, modified: .earliest, expectedSize: nil)
            try writer.write(exported[name]?.data ?? [])
            try writer.endEntry()
        }
        try writer.finish()
        try sink.close()
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: hostile)))
        // Rename the files entry, in its local and central headers, to climb out: same length, so offsets hold.
        let from = Array("simplex_v1_files/fine.txt".utf8)
        let to = Array("simplex_v1_files/../../xx".utf8)
        XCTAssertEqual(from.count, to.count)
        var i = 0
        while i + from.count <= bytes.count {
            if Array(bytes[i..<i + from.count]) == from { bytes.replaceSubrange(i..<i + from.count, with: to) }
            i += 1
        }
        try Data(bytes).write(to: URL(fileURLWithPath: hostile))
        let imported = await h.result("/_db import \(config(hostile))", "archiveImported")
        XCTAssertEqual(imported["archiveErrors"]?.arrayValue?.first?["file"]?.stringValue, "simplex_v1_files/../../xx")
        XCTAssertFalse(fm.fileExists(atPath: h.folder.deletingLastPathComponent().appendingPathComponent("xx").path))
        XCTAssertFalse(fm.fileExists(atPath: path(h, "xx")))
    }
}
