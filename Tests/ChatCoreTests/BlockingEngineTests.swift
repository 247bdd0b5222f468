import ChatCore
import ChatModel
import ChatStore
import Foundation
import SimplexEncoding
import XCTest

/// The blocking side of the core, for threads of their own (the C ABI): the event queue's blocking reads and writes,
/// alone and beside tasks, and the blocking engine taking commands from several threads while another reads events.
final class BlockingEngineTests: XCTestCase {
    private func item(_ n: Int) -> EnvelopeJSON { .result(.tagged(n)) }

    func testBlockingReadTimesOutEmpty() {
        let q = EventQueue(capacity: 4)
        let start = ContinuousClock.now
        XCTAssertNil(q.nextBlocking(waitMicroseconds: 50_000))
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .milliseconds(45))
        XCTAssertNil(q.nextBlocking(waitMicroseconds: 0))
    }

    func testBlockingReadAndWriteKeepOrder() {
        let q = EventQueue(capacity: 100)
        for n in 0..<50 { q.putBlocking(item(n)) }
        XCTAssertEqual(q.count, 50)
        for n in 0..<50 { XCTAssertEqual(q.nextBlocking(waitMicroseconds: 1000), item(n)) }
        XCTAssertNil(q.nextBlocking(waitMicroseconds: 1000))
    }

    func testWaitingThreadGetsATasksItem() async {
        let q = EventQueue(capacity: 4)
        async let got = onThread { q.nextBlocking(waitMicroseconds: 5_000_000) }
        try? await Task.sleep(nanoseconds: 20_000_000)
        await q.put(item(7))
        let value = await got
        XCTAssertEqual(value, item(7))
    }

    func testFullQueueHoldsABlockedWriterUntilATaskReads() async {
        let q = EventQueue(capacity: 2)
        q.putBlocking(item(0))
        q.putBlocking(item(1))
        let third = item(2)
        async let writer: Void = onThread { q.putBlocking(third) }
        try? await Task.sleep(nanoseconds: 20_000_000)
        XCTAssertEqual(q.count, 2, "the third item waits for room")
        let first = await q.next(waitMicroseconds: 1000)
        XCTAssertEqual(first, item(0))
        await writer
        XCTAssertEqual(q.nextBlocking(waitMicroseconds: 1000), item(1))
        XCTAssertEqual(q.nextBlocking(waitMicroseconds: 1000), item(2))
    }

    /// Readers that time out while writers hand items over: every item is read exactly once, in order.
    func testTimeoutsRacingWritersLoseNothing() async {
        let q = EventQueue(capacity: 4)
        let count = 2000
        async let read: [EnvelopeJSON] = onThread {
            var seen: [EnvelopeJSON] = []
            while seen.count < count {
                if let next = q.nextBlocking(waitMicroseconds: 20) { seen.append(next) }
            }
            return seen
        }
        await onThread { for n in 0..<count { q.putBlocking(.result(.tagged(n))) } }
        let seen = await read
        XCTAssertEqual(seen, (0..<count).map(item))
        XCTAssertNil(q.nextBlocking(waitMicroseconds: 1000))
    }

    func testBlockingEngineAnswersLikeTheActor() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blocking-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ChatEngine.Configuration()
        configuration.clock = { EngineHarness.time }
        let blocking = try BlockingChatEngine(prefix: folder.path + "/blocking", configuration: configuration)
        let actor = try ChatEngine(prefix: folder.path + "/actor", configuration: configuration)
        for line in ["/u", "/create user alice", "/_start", "/users", "/_ttl 1 86400", "/_app suspend 0", "/no such command"] {
            let expected = await actor.execute(line)
            XCTAssertEqual(blocking.execute(line), expected, line)
        }
        let event = await actor.nextEvent(waitMicroseconds: 1000)
        XCTAssertEqual(blocking.nextEvent(waitMicroseconds: 1000), event)
        XCTAssertNotNil(event)
        XCTAssertNil(blocking.nextEvent(waitMicroseconds: 1000))
    }

    /// The chat item expiry runs behind the blocking engine as behind the actor (`chat_send_cmd` callers of
    /// libsimplex): lowering the TTL removes items older than it, and a periodic pass removes them as they age.
    func testBlockingEngineExpiresItemsByTTL() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blocking-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = TestClock()
        var configuration = ChatEngine.Configuration()
        configuration.clock = { clock.now }
        configuration.itemExpiry.initialDelay = .milliseconds(20)
        configuration.itemExpiry.interval = .milliseconds(50)
        let engine = try BlockingChatEngine(prefix: folder.path + "/simplex_v1", configuration: configuration)
        let db = try SQLiteDatabase(path: folder.path + "/simplex_v1_chat.db")
        func messages() throws -> Int64 {
            try db.query("SELECT count(*) FROM chat_items WHERE group_id = 1 AND msg_content_tag = 'text'")
                .first?.first?.integer ?? -1
        }
        func eventually(_ what: String, _ condition: () throws -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while try !condition() {
                guard ContinuousClock.now < deadline else { return XCTFail("never: \(what)") }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        for line in ["/create user alice", "/_start", #"/_group 1 {"displayName":"team","fullName":""}"#] {
            let answer = engine.execute(line).text
            XCTAssertTrue(answer.hasPrefix(#"{"result""#), "\(line): \(answer)")
        }
        clock.set(secondsAfterStart: -3 * 86400)
        XCTAssertTrue(engine.execute("/_send #1 text old").text.hasPrefix(#"{"result""#))
        clock.set(secondsAfterStart: -3600)
        XCTAssertTrue(engine.execute("/_send #1 text new").text.hasPrefix(#"{"result""#))
        clock.set(secondsAfterStart: 0)
        XCTAssertEqual(try messages(), 2)
        // Lowering the TTL asks for a pass at once: the old message goes, the new one stays.
        _ = engine.execute("/_ttl 1 86400")
        try await eventually("the old message expired") { try messages() == 1 }
        try await Task.sleep(for: .milliseconds(150))
        XCTAssertEqual(try messages(), 1)
        // A day later the periodic pass takes the other.
        clock.set(secondsAfterStart: 86400)
        try await eventually("the aged message expired") { try messages() == 0 }
    }

    /// Several threads send commands while one polls events, with a queue small enough to fill: every command gets its
    /// own answer, every event arrives once, and polling ends empty when the commands are done.
    func testConcurrentThreadsWhileReadingEvents() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blocking-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ChatEngine.Configuration()
        configuration.eventQueueCapacity = 8
        let engine = try BlockingChatEngine(prefix: folder.path + "/simplex_v1", configuration: configuration)
        _ = engine.execute("/create user alice")
        _ = engine.execute("/_start")
        let senders = 6
        let rounds = 40
        async let events: [String] = onThread {
            var seen: [String] = []
            var idle = 0
            while idle < 20 {
                if let bytes = engine.nextEvent(waitMicroseconds: 50_000) {
                    seen.append(String(decoding: bytes, as: UTF8.self))
                    idle = 0
                } else {
                    idle += 1
                }
            }
            return seen
        }
        let lines = ["/u", "/_ttl 1", "/_get chats 1 pcc=on", "/get subs total 1", "/_app suspend 0", "/users"]
        let expected = ["activeUser", "chatItemTTL", "apiChats", "agentSubsTotal", "cmdOk", "usersList"]
        await withTaskGroup(of: Void.self) { group in
            for s in 0..<senders {
                group.addTask {
                    await onThread {
                        for r in 0..<rounds {
                            let answer = engine.execute(lines[(s + r) % 6]).text
                            XCTAssertTrue(answer.hasPrefix(#"{"result":{"type":"\#(expected[(s + r) % 6])""#), answer)
                        }
                    }
                }
            }
        }
        let seen = await events
        let suspends = (0..<senders).map { s in (0..<rounds).filter { ($0 + s) % 6 == 4 }.count }.reduce(0, +)
        XCTAssertEqual(seen.count, suspends)
        XCTAssertTrue(seen.allSatisfy { $0 == #"{"result":{"type":"chatSuspended"}}"# })
    }
}

/// Runs `body` on a thread of its own, as a C caller would, and waits for it.
private func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in Thread { continuation.resume(returning: body()) }.start() }
}
