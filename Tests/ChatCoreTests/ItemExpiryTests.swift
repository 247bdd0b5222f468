import ChatCore
import ChatStore
import Foundation
import SimplexEncoding
import XCTest

/// Chat item expiry by TTL (`/_ttl`, chat-api.md §4.10): items older than the TTL disappear in the background, newer
/// ones stay, and commands keep answering meanwhile. Group messages are written straight into the store, many at once;
/// a group's event items, made with the group, expire as any item does.
final class ItemExpiryTests: XCTestCase {
    static let day: Int64 = 86400

    /// Expiry that starts at once and comes back quickly, in small batches.
    static func quick(batchSize: Int = 500) -> ItemExpiryConfiguration {
        var c = ItemExpiryConfiguration()
        c.initialDelay = .milliseconds(20)
        c.interval = .milliseconds(50)
        c.batchSize = batchSize
        return c
    }

    private func database(_ h: EngineHarness) throws -> SQLiteDatabase {
        try SQLiteDatabase(path: h.folder.appendingPathComponent("simplex_v1_chat.db").path)
    }

    private func newGroup(_ h: EngineHarness, _ name: String) async {
        await h.result(#"/_group 1 {"displayName":"\#(name)","fullName":""}"#, "groupCreated")
        // The group's 11 event items came as events.
        for _ in 0..<11 { _ = await h.engine.nextEvent(waitMicroseconds: 200_000) }
    }

    /// Writes `count` items into a group, sent at `ts` (seconds from the harness's start) and stored at `created`
    /// (default: when sent), in one transaction; `file` gives the first one a file at that path.
    private func insertItems(
        _ db: SQLiteDatabase, groupId: Int64, count: Int, text: String, ts: Int64, created: Int64? = nil, file: String? = nil
    ) throws {
        let sent = EngineHarness.time.adding(seconds: ts)
        let createdAt = SQLValue.text(EngineHarness.time.adding(seconds: created ?? ts).iso8601)
        let mc = #"{"type":"text","text":"\#(text)"}"#
        try db.transaction { () throws(SQLiteError) in
            let insert = try db.prepare(
                """
                INSERT INTO chat_items (user_id, group_id, item_sent, item_ts, msg_content, msg_content_tag, item_text,
                  item_status, created_at, updated_at)
                VALUES (1, ?, 1, ?, ?, 'text', ?, 'snd_new', ?, ?)
                """)
            let nanoseconds = sent.seconds * 1_000_000_000 + Int64(sent.nanoseconds)
            for _ in 0..<count {
                try insert.bind([.integer(groupId), .integer(nanoseconds), .text(mc), .text(text), createdAt, createdAt])
                while try insert.step() {}
            }
            if let file {
                _ = try db.run(
                    """
                    INSERT INTO files (user_id, group_id, chat_item_id, file_name, file_path, file_size, ci_file_status,
                      protocol, created_at, updated_at)
                    VALUES (1, ?, ?, ?, ?, 1, 'sndStored', 'LOCAL', ?, ?)
                    """, [.integer(groupId), .integer(db.lastInsertRowID), .text(file), .text(file), createdAt, createdAt])
            }
        }
    }

    /// The group's messages (its event items have no message content).
    private func count(_ db: SQLiteDatabase, groupId: Int64) throws -> Int64 {
        try db.query("SELECT count(*) FROM chat_items WHERE group_id = ? AND msg_content_tag != ''", [.integer(groupId)])
            .first?.first?.integer ?? -1
    }

    private func countAll(_ db: SQLiteDatabase, groupId: Int64) throws -> Int64 {
        try db.query("SELECT count(*) FROM chat_items WHERE group_id = ?", [.integer(groupId)]).first?.first?.integer ?? -1
    }

    private func texts(_ h: EngineHarness, _ chat: String) async -> [String] {
        let r = await h.result("/_get chat \(chat) count=100", "apiChat")
        return (r["chat"]?["chatItems"]?.arrayValue ?? []).filter { $0["content"]?["type"]?.stringValue == "sndMsgContent" }
            .compactMap { $0["meta"]?["itemText"]?.stringValue }
    }

    /// Waits (up to 10 s) until `condition` holds.
    private func eventually(
        _ what: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try !condition() {
            guard ContinuousClock.now < deadline else { return XCTFail("never: \(what)", file: file, line: line) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    private func noEvent(_ h: EngineHarness, file: StaticString = #filePath, line: UInt = #line) async {
        let event = await h.engine.nextEvent(waitMicroseconds: 0).map { String(decoding: $0, as: UTF8.self) }
        XCTAssertNil(event, file: file, line: line)
    }

    // MARK: What goes and what stays

    func testLoweringTheTTLExpiresOlderItemsAndKeepsNewerOnesWithoutEvents() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await newGroup(h, "team")
        let db = try database(h)
        try insertItems(db, groupId: 1, count: 3, text: "old", ts: -3 * Self.day)
        try insertItems(db, groupId: 1, count: 2, text: "new", ts: -3600)
        // Sent long ago but stored in the last 12 hours: the core keeps such group items for now.
        try insertItems(db, groupId: 1, count: 1, text: "late", ts: -3 * Self.day, created: -3600)
        // Notes are never expired.
        h.clock.set(secondsAfterStart: -3 * Self.day)
        await h.result("/_create *1 text note", "newChatItems")
        h.clock.set(secondsAfterStart: 0)

        await h.expect("/_ttl 1 86400", #"{"result":{"type":"cmdOk","user_":"# + UserCommandTests.alice + "}}")
        try await eventually("old items gone") { try count(db, groupId: 1) == 3 }
        let kept = await texts(h, "#1")
        XCTAssertEqual(kept, ["late", "new", "new"])
        // The event items were made now: they stay.
        XCTAssertEqual(try countAll(db, groupId: 1), 3 + 11)
        let notes = await texts(h, "*1")
        XCTAssertEqual(notes, ["note"])
        await h.result("/_ttl 1", "chatItemTTL")
        // The core reports nothing when items expire.
        await noEvent(h)
    }

    func testPeriodicPassesExpireItemsAsTheyAge() async throws {
        let h = try EngineHarness(itemExpiry: Self.quick())
        await h.startWithUser()
        await newGroup(h, "team")
        let db = try database(h)
        try insertItems(db, groupId: 1, count: 4, text: "a", ts: -3600)
        await h.result("/_ttl 1 86400", "cmdOk")
        try await Task.sleep(for: .milliseconds(150))
        XCTAssertEqual(try count(db, groupId: 1), 4)
        // A day later the items are past the TTL; the next periodic pass takes them.
        h.clock.set(secondsAfterStart: Self.day)
        try await eventually("aged items gone") { try count(db, groupId: 1) == 0 }
        // The group's event items, made at the start, are as old by then.
        try await eventually("event items gone") { try countAll(db, groupId: 1) == 0 }
        await noEvent(h)
    }

    func testAChatsOwnTTLOverridesTheUsersAndDefaultGoesBackToIt() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await newGroup(h, "one")
        await newGroup(h, "two")
        let db = try database(h)
        for groupId: Int64 in [1, 2] {
            try insertItems(db, groupId: groupId, count: 2, text: "old", ts: -3 * Self.day)
            try insertItems(db, groupId: groupId, count: 1, text: "new", ts: -3600)
        }
        // Only the chat whose TTL was set loses its old items.
        await h.result("/_ttl 1 #1 86400", "cmdOk")
        try await eventually("#1 expired") { try count(db, groupId: 1) == 1 }
        XCTAssertEqual(try count(db, groupId: 2), 3)
        // 0 of a chat's own is never, whatever the user's TTL.
        await h.result("/_ttl 1 #2 0", "cmdOk")
        await h.result("/_ttl 1 604800", "cmdOk")
        await h.result("/_ttl 1 86400", "cmdOk")
        try await Task.sleep(for: .milliseconds(100))
        XCTAssertEqual(try count(db, groupId: 2), 3)
        // `default` goes back to the user's TTL, which is shorter than never: the chat expires at once.
        await h.result("/_ttl 1 #2 default", "cmdOk")
        try await eventually("#2 expired") { try count(db, groupId: 2) == 1 }
        let second = await texts(h, "#2")
        XCTAssertEqual(second, ["new"])
        // A longer TTL expires nothing more.
        try insertItems(db, groupId: 1, count: 1, text: "two days", ts: -2 * Self.day)
        await h.result("/_ttl 1 #1 259200", "cmdOk")
        try await Task.sleep(for: .milliseconds(100))
        XCTAssertEqual(try count(db, groupId: 1), 2)
    }

    func testExpiredItemsFilesAreRemovedFromTheFilesFolder() async throws {
        let h = try EngineHarness()
        let files = h.folder.appendingPathComponent("files")
        let temp = h.folder.appendingPathComponent("temp").path
        await h.startWithUser()
        await h.result(
            #"/set file paths {"appFilesFolder":"\#(files.path)","appTempFolder":"\#(temp)","appAssetsFolder":"\#(temp)"}"#,
            "cmdOk")
        await newGroup(h, "team")
        for name in ["old.txt", "new.txt"] {
            try Data(name.utf8).write(to: files.appendingPathComponent(name))
        }
        let db = try database(h)
        try insertItems(db, groupId: 1, count: 1, text: "old", ts: -3 * Self.day, file: "old.txt")
        try insertItems(db, groupId: 1, count: 1, text: "new", ts: -3600, file: "new.txt")
        await h.result("/_ttl 1 86400", "cmdOk")
        try await eventually("old file gone") {
            !FileManager.default.fileExists(atPath: files.appendingPathComponent("old.txt").path)
        }
        XCTAssertEqual(try count(db, groupId: 1), 1)
        XCTAssertEqual(try db.query("SELECT file_path FROM files").map { $0.first?.text }, ["new.txt"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: files.appendingPathComponent("new.txt").path))
    }

    // MARK: Commands go on meanwhile

    func testCommandsAnswerWhileALargeExpiryRuns() async throws {
        let h = try EngineHarness(itemExpiry: Self.quick(batchSize: 100))
        await h.startWithUser()
        await newGroup(h, "team")
        let db = try database(h)
        try insertItems(db, groupId: 1, count: 50_000, text: "old", ts: -3 * Self.day)
        try insertItems(db, groupId: 1, count: 1, text: "new", ts: -60)
        let started = ContinuousClock.now
        await h.result("/_ttl 1 86400", "cmdOk")
        try await eventually("expiry under way") { try count(db, groupId: 1) < 50_001 }
        // A command sent now is answered while most items are still there: it did not wait for the expiry.
        let asked = ContinuousClock.now
        let page = await h.result("/_get chat #1 count=1", "apiChat")
        let answered = ContinuousClock.now
        let left = try count(db, groupId: 1)
        XCTAssertGreaterThan(left, 1, "the expiry ended before the command was answered")
        XCTAssertEqual(page["chat"]?["chatItems"]?.arrayValue?.count, 1)
        try await eventually("all expired") { try count(db, groupId: 1) == 1 }
        let ended = ContinuousClock.now
        XCTAssertLessThan(answered - asked, ended - started)
        print("expiry of 50,000 items: \(ended - started); a command meanwhile: \(answered - asked), \(left) items left")
        let last = await texts(h, "#1")
        XCTAssertEqual(last, ["new"])
    }

    func testStopAndSuspendStopTheExpiryAndStartAndActivateResumeIt() async throws {
        for (pause, resume) in [("/_stop", "/_start"), ("/_app suspend 0", "/_app activate")] {
            let h = try EngineHarness(itemExpiry: Self.quick(batchSize: 100))
            await h.startWithUser()
            await newGroup(h, "team")
            let db = try database(h)
            try insertItems(db, groupId: 1, count: 20_000, text: "old", ts: -3 * Self.day)
            await h.result("/_ttl 1 86400", "cmdOk")
            try await eventually("expiry under way") { try count(db, groupId: 1) < 20_000 }
            _ = await h.text(pause)
            let left = try count(db, groupId: 1)
            try await Task.sleep(for: .milliseconds(300))
            XCTAssertEqual(try count(db, groupId: 1), left, pause)
            XCTAssertGreaterThan(left, 0, pause)
            _ = await h.text(resume)
            try await eventually("expiry resumed after \(resume)") { try count(db, groupId: 1) == 0 }
        }
    }
}
