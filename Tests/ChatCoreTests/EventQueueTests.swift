import ChatCore
import ChatModel
import SimplexEncoding
import XCTest

/// The event queue (chat-api.md §1.3): ordered, bounded, read with a wait that ends empty on timeout; and the engine
/// taking commands from several tasks while another reads events.
final class EventQueueTests: XCTestCase {
    private func item(_ n: Int) -> EnvelopeJSON { .result(.tagged(n)) }

    func testTimeoutIsNil() async {
        let q = EventQueue(capacity: 4)
        let start = ContinuousClock.now
        let none = await q.next(waitMicroseconds: 50_000)
        XCTAssertNil(none)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .milliseconds(45))
        let immediate = await q.next(waitMicroseconds: 0)
        XCTAssertNil(immediate)
    }

    func testOrderIsKept() async {
        let q = EventQueue(capacity: 100)
        for n in 0..<50 { await q.put(item(n)) }
        XCTAssertEqual(q.count, 50)
        for n in 0..<50 {
            let next = await q.next(waitMicroseconds: 1000)
            XCTAssertEqual(next, item(n))
        }
        let none = await q.next(waitMicroseconds: 1000)
        XCTAssertNil(none)
    }

    func testWaitingReaderGetsTheNextItem() async {
        let q = EventQueue(capacity: 4)
        async let got = q.next(waitMicroseconds: 5_000_000)
        try? await Task.sleep(nanoseconds: 20_000_000)
        await q.put(item(7))
        let value = await got
        XCTAssertEqual(value, item(7))
    }

    func testFullQueueHoldsWritersUntilRead() async {
        let q = EventQueue(capacity: 2)
        await q.put(item(0))
        await q.put(item(1))
        let third = item(2)
        let writer = Task { await q.put(third) }
        try? await Task.sleep(nanoseconds: 20_000_000)
        XCTAssertEqual(q.count, 2, "the third item waits for room")
        let first = await q.next(waitMicroseconds: 1000)
        XCTAssertEqual(first, item(0))
        await writer.value
        var rest: [EnvelopeJSON] = []
        while let next = await q.next(waitMicroseconds: 1000) { rest.append(next) }
        XCTAssertEqual(rest, [item(1), item(2)])
    }

    func testCancelledReaderGetsNil() async {
        let q = EventQueue(capacity: 2)
        let reader = Task { await q.next(waitMicroseconds: 10_000_000) }
        try? await Task.sleep(nanoseconds: 20_000_000)
        reader.cancel()
        let value = await reader.value
        XCTAssertNil(value)
        await q.put(item(1))
        let next = await q.next(waitMicroseconds: 1000)
        XCTAssertEqual(next, item(1), "the cancelled reader took nothing")
    }

    func testEngineDefaultQueueIsBoundedAt4096() throws {
        XCTAssertEqual(try EngineHarness().engine.events.capacity, 4096)
    }

    /// Several tasks send commands while one polls events: every command gets its own answer, every event arrives once
    /// and in order, and polling ends empty when the commands are done.
    func testConcurrentCommandsWhileReadingEvents() async throws {
        let h = try EngineHarness(eventQueueCapacity: 8)
        await h.startWithUser()
        let engine = h.engine
        let senders = 6
        let rounds = 20
        let reader = Task { () -> [String] in
            var seen: [String] = []
            var idle = 0
            while idle < 20 {
                if let bytes = await engine.nextEvent(waitMicroseconds: 50_000) {
                    seen.append(String(decoding: bytes, as: UTF8.self))
                    idle = 0
                } else {
                    idle += 1
                }
            }
            return seen
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for s in 0..<senders {
                group.addTask {
                    for r in 0..<rounds {
                        let line = [
                            "/u", "/_ttl 1", "/_get chats 1 pcc=on", "/get subs total 1", "/_app suspend 0", "/users",
                        ][(s + r) % 6]
                        let answer = await engine.execute(line).text
                        let expected = [
                            "activeUser", "chatItemTTL", "apiChats", "agentSubsTotal", "cmdOk", "usersList",
                        ][(s + r) % 6]
                        XCTAssertTrue(answer.hasPrefix(#"{"result":{"type":"\#(expected)""#), "\(line): \(answer)")
                    }
                }
            }
            try await group.waitForAll()
        }
        let events = await reader.value
        let suspends = (0..<senders).map { s in (0..<rounds).filter { ($0 + s) % 6 == 4 }.count }.reduce(0, +)
        XCTAssertEqual(events.count, suspends)
        XCTAssertTrue(events.allSatisfy { $0 == #"{"result":{"type":"chatSuspended"}}"# })
        let none = await engine.nextEvent(waitMicroseconds: 1000)
        XCTAssertNil(none)
    }
}

extension JSONValue {
    /// A test value `{"type":"n<n>"}`.
    static func tagged(_ n: Int) -> JSONValue { .object([JSONField("type", .string("n\(n)"))]) }
}
