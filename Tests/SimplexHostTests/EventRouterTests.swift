import Foundation
import SimplexEncoding
import SimplexHost
import XCTest

/// A backend whose events the test pushes.
actor ScriptedBackend: ChatBackend {
    private var queue: [[UInt8]] = []
    func push(_ e: String) { queue.append(Array(e.utf8)) }
    func execute(_ line: String) async -> [UInt8] { Array(#"{"result":{"type":"cmdOk"}}"#.utf8) }
    func nextEvent(waitMicroseconds: Int64) async -> [UInt8]? {
        if !queue.isEmpty { return queue.removeFirst() }
        try? await Task.sleep(nanoseconds: 5_000_000)
        return nil
    }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var on = false
    private var stops = 0
    var value: Bool {
        get { lock.withLock { on } }
        set { lock.withLock { on = newValue } }
    }
    var stopCount: Int { lock.withLock { stops } }
    func stopped() {
        lock.withLock {
            stops += 1
            on = false
        }
    }
}

final class EventRouterTests: XCTestCase {
    func testEventsGoLocalOrToTheControllerInOrder() async throws {
        let backend = ScriptedBackend()
        let remote = Flag()
        let local = EventLog()
        let router = EventRouter(
            backend: backend, remoteBound: 3, isRemoteConnected: { remote.value }, endRemoteSession: { remote.stopped() },
            local: { local.append(.string(String(decoding: $0, as: UTF8.self))) })
        let task = Task.detached { await router.run() }
        defer { task.cancel() }

        await backend.push("a")
        let seenA = await local.wait(timeout: 2) { $0 == .string("a") }
        XCTAssertTrue(seenA)

        remote.value = true
        await backend.push("b")
        await backend.push("c")
        let first = await router.nextRemoteEvent(waitMicroseconds: 2_000_000)
        let second = await router.nextRemoteEvent(waitMicroseconds: 2_000_000)
        XCTAssertEqual(first.map { String(decoding: $0, as: UTF8.self) }, "b")
        XCTAssertEqual(second.map { String(decoding: $0, as: UTF8.self) }, "c")
        let empty = await router.nextRemoteEvent(waitMicroseconds: 50_000)
        XCTAssertNil(empty, "a long poll with nothing to deliver times out")

        // The controller falls behind past the bound: the session ends and nothing is lost locally.
        for e in ["d", "e", "f", "g"] { await backend.push(e) }
        let allLocal = await local.wait(timeout: 3) { $0 == .string("g") }
        XCTAssertTrue(allLocal)
        XCTAssertEqual(remote.stopCount, 1)
        XCTAssertEqual(local.all.compactMap(\.stringValue), ["a", "d", "e", "f", "g"])
    }

    func testAFewHugeEventsEndTheSessionToo() async throws {
        let backend = ScriptedBackend()
        let remote = Flag()
        remote.value = true
        let local = EventLog()
        let router = EventRouter(
            backend: backend, remoteBound: 100, remoteBoundBytes: 1000, isRemoteConnected: { remote.value },
            endRemoteSession: { remote.stopped() }, local: { local.append(.string(String(decoding: $0, as: UTF8.self))) })
        let task = Task.detached { await router.run() }
        defer { task.cancel() }
        let big = String(repeating: "x", count: 600)
        await backend.push(big)
        await backend.push(big)
        let flushed = await local.wait(timeout: 3) { $0.stringValue?.count == 600 }
        XCTAssertTrue(flushed, "two events past the byte bound go to the local side")
        XCTAssertEqual(remote.stopCount, 1)
    }
}

extension EventLog {
    /// Waits until an event matches.
    func wait(timeout: Double, _ match: (SimplexEncoding.CanonicalJSON) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if all.contains(where: match) { return true }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return false
    }
}
