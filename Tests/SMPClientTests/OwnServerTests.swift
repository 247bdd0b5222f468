import Foundation
import SMP
import SMPClient
import SMPServerProcess
import SimplexCrypto
import TestSupport
import XCTest

/// Our client against our server: a restart from the server's store, and volume both ways.
final class OwnServerTests: XCTestCase {
    private let fast = SMPClientConfiguration(
        connectTimeout: 5, timing: SMPConnectionTiming(responseTimeout: 5), reconnectDelay: 0.1, maxReconnectDelay: 0.5)

    private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// A store file in memory when the machine has /dev/shm (each synced write costs less there).
    private func storePath() -> URL {
        let shm = URL(fileURLWithPath: "/dev/shm")
        let folder = FileManager.default.fileExists(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
        return folder.appendingPathComponent("smp-store-\(UUID().uuidString)")
    }

    /// The server SIGKILLed and started again from its `--store` on the same port (smp.md §3.8): the address is
    /// kept; the subscribed client reconnects and subscribes again by itself; the message delivered but not ACKed
    /// before the kill is delivered again with its msgId; a message sent after the restart arrives.
    func testRestartFromStoreResubscribesAndRedelivers() async throws {
        let store = storePath()
        defer { try? FileManager.default.removeItem(at: store) }
        let first = try TestSMPServer(["--store", store.path])
        XCTAssertEqual(first.queues, 0)
        let recipient = SMPClient(configuration: fast)
        let sender = SMPClient(configuration: fast)
        let queue = try await recipient.createQueue(on: first.server)
        let senderKey = Ed25519.PrivateKey()
        try await sender.secure(queue.senderQueue, senderKey: senderKey)
        let log = EventLog(try await recipient.subscribe(queue))
        try await sender.send(to: queue.senderQueue, senderKey: senderKey, body: bytes("before the kill"))
        _ = await log.wait(for: 1)
        XCTAssertEqual(log.messages.map(\.body), [bytes("before the kill")])
        let delivered = try XCTUnwrap(log.messages.first?.msgId)

        first.killNow()
        let restarted = try TestSMPServer(["--store", store.path], port: first.port)
        XCTAssertEqual(restarted.server, first.server)
        XCTAssertEqual(restarted.queues, 1)
        let events = await log.wait(for: 4, timeout: 15)
        XCTAssertEqual(events.count, 4, "\(events)")
        XCTAssertEqual(Array(events.dropFirst().prefix(2)), [.disconnected(.connectionLost), .resubscribed])
        XCTAssertEqual(log.messages.map(\.body), [bytes("before the kill"), bytes("before the kill")])
        XCTAssertEqual(log.messages.last?.msgId, delivered)
        try await recipient.ack(queue, msgId: delivered)

        try await sender.send(to: queue.senderQueue, senderKey: senderKey, body: bytes("after the restart"))
        _ = await log.wait(for: 5)
        XCTAssertEqual(log.messages.last?.body, bytes("after the restart"))
        XCTAssertNotEqual(log.messages.last?.msgId, delivered)
        try await recipient.ack(queue, msgId: try XCTUnwrap(log.messages.last?.msgId))
        XCTAssertFalse(log.isEnded)
        await recipient.close()
        await sender.close()
    }

    /// 10,000 messages each way between two clients, each reading its own queue and sending to the other's at
    /// the same time: every message arrives once and in order, and both queues are empty afterwards.
    func testTenThousandMessagesEachWay() async throws {
        let count = 10_000
        let peer = try TestSMPServer(["--quota", String(count * 2)])
        let alice = SMPClient(configuration: fast)
        let bob = SMPClient(configuration: fast)
        let aliceQueue = try await alice.createQueue(on: peer.server)
        let bobQueue = try await bob.createQueue(on: peer.server)
        let toAlice = Ed25519.PrivateKey()
        let toBob = Ed25519.PrivateKey()
        try await bob.secure(aliceQueue.senderQueue, senderKey: toAlice)
        try await alice.secure(bobQueue.senderQueue, senderKey: toBob)
        let aliceStream = try await alice.subscribe(aliceQueue)
        let bobStream = try await bob.subscribe(bobQueue)

        /// Reads `count` messages, ACKing each, and returns their bodies (or the first other event).
        @Sendable func receive(_ client: SMPClient, _ queue: RecipientQueue, _ stream: AsyncStream<SMPQueueEvent>)
            async throws -> [String]
        {
            var received: [String] = []
            received.reserveCapacity(count)
            for await event in stream {
                guard case .message(let m) = event else { throw PeerFailure("unexpected \(event)") }
                received.append(String(decoding: m.body ?? [], as: UTF8.self))
                try await client.ack(queue, msgId: m.msgId)
                if received.count == count { break }
            }
            return received
        }
        @Sendable func send(_ client: SMPClient, _ queue: SenderQueue, _ key: Ed25519.PrivateKey, _ tag: String)
            async throws
        {
            for i in 0..<count { try await client.send(to: queue, senderKey: key, body: Array("\(tag) \(i)".utf8)) }
        }

        let started = Date()
        async let aliceReceived = receive(alice, aliceQueue, aliceStream)
        async let bobReceived = receive(bob, bobQueue, bobStream)
        async let aliceSent: Void = send(alice, bobQueue.senderQueue, toBob, "to bob")
        async let bobSent: Void = send(bob, aliceQueue.senderQueue, toAlice, "to alice")
        try await aliceSent
        try await bobSent
        let toAliceBodies = try await aliceReceived
        let toBobBodies = try await bobReceived
        print("10,000 messages each way in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        XCTAssertEqual(toAliceBodies, (0..<count).map { "to alice \($0)" })
        XCTAssertEqual(toBobBodies, (0..<count).map { "to bob \($0)" })

        let reader = SMPClient(configuration: fast)
        for queue in [aliceQueue, bobQueue] {
            let rest = try await reader.get(queue)
            XCTAssertNil(rest)
        }
        await reader.close()
        await alice.close()
        await bob.close()
    }
}
