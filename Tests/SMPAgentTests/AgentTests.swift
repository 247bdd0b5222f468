import Foundation
import SMP
import SMPAgent
import SMPClient
import SMPServerProcess
import TestSupport
import XCTest

/// Two of our agents through our SMP server: the fast duplex handshake, messages both ways with receipts, restarts
/// of either agent and of the server, and a full queue waiting for `A_QCONT`.
final class AgentTests: XCTestCase {
    /// Alice invites, Bob joins; both see `CON`, each with the other's conn info.
    static func connect(_ alice: TestAgent, _ bob: TestAgent) async throws -> (AgentConnId, AgentConnId) {
        let (aConn, link) = try await alice.agent.createConnection()
        XCTAssertTrue(link.hasPrefix("simplex:/invitation#/?v=2-7&smp="), link)
        let bConn = try await bob.agent.joinConnection(link, connInfo: bytes("bob's info"))
        let (confirmationId, info) = try await alice.inbox.take("CONF") { e -> (String, [UInt8])? in
            if case .conf(aConn, let id, _, let info) = e { return (id, info) }
            return nil
        }
        XCTAssertEqual(info, bytes("bob's info"))
        try await alice.agent.allowConnection(aConn, confirmationId: confirmationId, connInfo: bytes("alice's info"))
        try await alice.inbox.take("CON at Alice") { e in e == .con(aConn) ? () : nil }
        let bobSaw = try await bob.inbox.take("INFO at Bob") { e -> [UInt8]? in
            if case .info(bConn, let info) = e { return info }
            return nil
        }
        XCTAssertEqual(bobSaw, bytes("alice's info"))
        try await bob.inbox.take("CON at Bob") { e in e == .con(bConn) ? () : nil }
        return (aConn, bConn)
    }

    /// Sends `count` messages from `sender` and waits until all arrived in order at `receiver`, were `SENT` and, with
    /// receipts, `RCVD` ok.
    static func exchange(
        _ count: Int, from sender: TestAgent, _ sConn: AgentConnId, to receiver: TestAgent, _ rConn: AgentConnId,
        tag: String, timeout: Double = 60
    ) async throws {
        var ids: [InternalMessageId] = []
        for i in 0..<count { ids.append(try await sender.agent.sendMessage(sConn, body: bytes("\(tag) \(i)"))) }
        for i in 0..<count {
            let (body, meta) = try await receiver.inbox.take("MSG \(tag) \(i)", timeout: timeout) {
                e -> ([UInt8], MessageMeta)? in
                if case .msg(rConn, let meta, let body) = e { return (body, meta) }
                return nil
            }
            XCTAssertEqual(String(decoding: body, as: UTF8.self), "\(tag) \(i)")
            XCTAssertEqual(meta.integrity, .ok)
        }
        for id in ids {
            try await sender.inbox.take("SENT \(id.value)", timeout: timeout) { e in e == .sent(sConn, id) ? () : nil }
        }
        guard receiver.receipts else { return }
        var received = Set<Int64>()
        while received.count < ids.count {
            let r = try await sender.inbox.take("RCVD", timeout: timeout) { e -> [MessageReceipt]? in
                if case .rcvd(sConn, _, let r) = e { return r }
                return nil
            }
            for receipt in r {
                XCTAssertEqual(receipt.status, .ok)
                received.insert(receipt.msgId.value)
            }
        }
        XCTAssertEqual(received, Set(ids.map(\.value)))
    }

    func testInvitationHandshakeThenMessagesBothWaysWithReceipts() async throws {
        let server = try TestSMPServer()
        let alice = try await TestAgent(server: server.server)
        let bob = try await TestAgent(server: server.server)
        let (aConn, bConn) = try await Self.connect(alice, bob)
        try await Self.exchange(3, from: alice, aConn, to: bob, bConn, tag: "a→b")
        try await Self.exchange(3, from: bob, bConn, to: alice, aConn, tag: "b→a")
        await alice.close()
        await bob.close()
    }
}

extension AgentTests {
    /// The bodies `receiver` got on `conn` until `count` distinct ones arrived: each new one in order, any repeat a
    /// message given again because it was not acknowledged before a restart.
    static func collect(_ count: Int, at receiver: TestAgent, _ conn: AgentConnId, tag: String, timeout: Double = 60)
        async throws -> [String]
    {
        var distinct: [String] = []
        while distinct.count < count {
            let body = try await receiver.inbox.take("MSG \(tag) \(distinct.count)", timeout: timeout) { e -> String? in
                if case .msg(conn, _, let body) = e { return String(decoding: body, as: UTF8.self) }
                return nil
            }
            if distinct.contains(body) {
                XCTAssertEqual(body, distinct.last, "only the unacknowledged last message may come again")
            } else {
                distinct.append(body)
            }
        }
        XCTAssertEqual(distinct, (0..<count).map { "\(tag) \($0)" })
        return distinct
    }

    func testAThousandMessagesEachWay() async throws {
        let server = try TestSMPServer()
        let alice = try await TestAgent(server: server.server)
        let bob = try await TestAgent(server: server.server)
        let (aConn, bConn) = try await Self.connect(alice, bob)
        let started = Date()
        async let ab: Void = Self.exchange(1000, from: alice, aConn, to: bob, bConn, tag: "a→b", timeout: 120)
        async let ba: Void = Self.exchange(1000, from: bob, bConn, to: alice, aConn, tag: "b→a", timeout: 120)
        _ = try await (ab, ba)
        print("1000 messages each way with receipts: \(Date().timeIntervalSince(started)) s")
        await alice.close()
        await bob.close()
    }

    /// The receiver stops mid-conversation and starts again over its store: nothing is lost, and only a message
    /// it had not acknowledged is given again. Then the sender does the same with sends still queued.
    func testRestartOfEitherAgentMidConversation() async throws {
        let server = try TestSMPServer()
        let alice = try await TestAgent(server: server.server)
        let bob = try await TestAgent(server: server.server)
        let (aConn, bConn) = try await Self.connect(alice, bob)
        for i in 0..<60 { _ = try await alice.agent.sendMessage(aConn, body: bytes("a \(i)")) }
        try await bob.inbox.waitFor("MSG a 10") { e in e.isMessage(bConn, "a 10") }
        try await bob.restart()
        _ = try await Self.collect(60, at: bob, bConn, tag: "a")

        for i in 0..<60 { _ = try await alice.agent.sendMessage(aConn, body: bytes("b \(i)")) }
        try await alice.restart()
        _ = try await Self.collect(60, at: bob, bConn, tag: "b")
        // Both directions work after the restarts.
        try await Self.exchange(5, from: bob, bConn, to: alice, aConn, tag: "c")
        await alice.close()
        await bob.close()
    }

    /// The server is killed mid-conversation and started again from its store on the same port: the agents
    /// reconnect (`DOWN`, `UP`), deliveries that failed are retried, nothing is lost.
    func testServerRestartMidConversation() async throws {
        let store = temporaryPath("smp-store")
        defer { try? FileManager.default.removeItem(atPath: store) }
        var server = try TestSMPServer(["--store", store])
        let alice = try await TestAgent(server: server.server)
        let bob = try await TestAgent(server: server.server)
        let (aConn, bConn) = try await Self.connect(alice, bob)
        for i in 0..<40 { _ = try await alice.agent.sendMessage(aConn, body: bytes("s \(i)")) }
        try await bob.inbox.waitFor("MSG s 5") { e in e.isMessage(bConn, "s 5") }
        let port = server.port
        server.killNow()
        server = try TestSMPServer(["--store", store], port: port)
        _ = try await Self.collect(40, at: bob, bConn, tag: "s")
        try await alice.inbox.take("DOWN") { e in if case .down = e { () } else { nil } }
        try await bob.inbox.take("UP") { e in if case .up(_, [bConn]) = e { () } else { nil } }
        try await Self.exchange(5, from: bob, bConn, to: alice, aConn, tag: "after")
        await alice.close()
        await bob.close()
        _ = server
    }

    /// The receiver is away while the sender fills its queue (`--quota 5`): the sender's delivery gets `QUOTA`
    /// (`MWARN`) and waits; when the receiver is back it reads the queue, meets the quota marker and sends
    /// `A_QCONT`, and the rest is delivered (`QCONT`).
    func testQuotaWaitsForQueueContinuation() async throws {
        let server = try TestSMPServer(["--quota", "5"])
        let alice = try await TestAgent(server: server.server)
        let bob = try await TestAgent(server: server.server)
        let (aConn, bConn) = try await Self.connect(alice, bob)
        await bob.stop()
        for i in 0..<12 { _ = try await alice.agent.sendMessage(aConn, body: bytes("q \(i)")) }
        try await alice.inbox.take("MWARN") { e in if case .mwarn(aConn, _, "QUOTA") = e { () } else { nil } }
        try await bob.startAgain()
        _ = try await Self.collect(12, at: bob, bConn, tag: "q")
        try await alice.inbox.take("QCONT") { e in e == .qcont(aConn) ? () : nil }
        await alice.close()
        await bob.close()
    }
}

extension AgentEvent {
    func isMessage(_ conn: AgentConnId, _ text: String) -> Bool {
        if case .msg(conn, _, let body) = self { return body == bytes(text) }
        return false
    }
}

extension AgentTests {
    /// A contact address (smp.md §4.6): Bob's request arrives as `REQ` with his conn info; Alice accepts it by
    /// joining Bob's invitation; Bob allows the confirmation, both get `CON`, and messages flow both ways.
    func testContactAddressRequestAcceptedThenMessages() async throws {
        let server = try TestSMPServer()
        let alice = try await TestAgent(server: server.server)
        let bob = try await TestAgent(server: server.server)
        let (address, link) = try await alice.agent.createAddress()
        XCTAssertTrue(link.hasPrefix("simplex:/contact#/?v=2-7&smp="), link)
        let bConn = try await bob.agent.joinConnection(link, connInfo: bytes("bob's request"))
        let (invitationId, request) = try await alice.inbox.take("REQ") { e -> ([UInt8], [UInt8])? in
            if case .req(address, let id, let info) = e { return (id, info) }
            return nil
        }
        XCTAssertEqual(request, bytes("bob's request"))
        let aConn = try await alice.agent.acceptContact(invitationId: invitationId, connInfo: bytes("alice's info"))
        let (confirmationId, info) = try await bob.inbox.take("CONF at Bob") { e -> (String, [UInt8])? in
            if case .conf(bConn, let id, _, let info) = e { return (id, info) }
            return nil
        }
        XCTAssertEqual(info, bytes("alice's info"))
        try await bob.agent.allowConnection(bConn, confirmationId: confirmationId, connInfo: bytes("bob's info"))
        try await bob.inbox.take("CON at Bob") { e in e == .con(bConn) ? () : nil }
        let aliceSaw = try await alice.inbox.take("INFO at Alice") { e -> [UInt8]? in
            if case .info(aConn, let info) = e { return info }
            return nil
        }
        XCTAssertEqual(aliceSaw, bytes("bob's info"))
        try await alice.inbox.take("CON at Alice") { e in e == .con(aConn) ? () : nil }
        try await Self.exchange(3, from: alice, aConn, to: bob, bConn, tag: "a→b")
        try await Self.exchange(3, from: bob, bConn, to: alice, aConn, tag: "b→a")
        // A second request to the same address is a new request.
        let carolAgent = try await TestAgent(server: server.server)
        _ = try await carolAgent.agent.joinConnection(link, connInfo: bytes("carol"))
        let carol = try await alice.inbox.take("REQ from Carol") { e -> [UInt8]? in
            if case .req(address, _, let info) = e { return info }
            return nil
        }
        XCTAssertEqual(carol, bytes("carol"))
        await carolAgent.close()
        await alice.close()
        await bob.close()
    }
}

extension AgentTests {
    /// Bytes that are no message of the connection, sent with the sender's own key: reported as `ERR`, ACKed so
    /// that the server delivers what follows, and the conversation goes on.
    func testAMessageThatDoesNotOpenIsReportedAndAcknowledged() async throws {
        let server = try TestSMPServer()
        let alice = try await TestAgent(server: server.server)
        let bob = try await TestAgent(server: server.server)
        let (aConn, bConn) = try await Self.connect(alice, bob)
        let queue = try await alice.store.read { (s) throws(AgentStoreError) in try s.connection(aConn).sndQueues[0] }
        let key = try XCTUnwrap(queue.senderAuthKey).privateKey()
        let client = SMPClient(configuration: TestAgent.fast)
        for garbage in [[UInt8](repeating: 0x41, count: 100), Array(bytes("\u{0}\u{4}0not a box").prefix(40))] {
            try await client.send(
                to: SenderQueue(server: queue.server, senderId: queue.senderId), senderKey: key, body: garbage)
            try await bob.inbox.take("ERR") { e in if case .err(bConn?, _) = e { () } else { nil } }
        }
        await client.close()
        try await Self.exchange(3, from: alice, aConn, to: bob, bConn, tag: "after")
        await alice.close()
        await bob.close()
    }
}

extension AgentTests {
    /// Many connections survive a restart of both agents: `start` subscribes every queue again, and a message on
    /// each connection arrives.
    func testEveryConnectionIsSubscribedAgainAtStart() async throws {
        let server = try TestSMPServer()
        let alice = try await TestAgent(server: server.server, receipts: false)
        let bob = try await TestAgent(server: server.server, receipts: false)
        var pairs: [(AgentConnId, AgentConnId)] = []
        for _ in 0..<20 { pairs.append(try await Self.connect(alice, bob)) }
        try await alice.restart()
        try await bob.restart()
        for (i, (a, _)) in pairs.enumerated() { _ = try await alice.agent.sendMessage(a, body: bytes("to \(i)")) }
        for (i, (_, b)) in pairs.enumerated() {
            try await bob.inbox.waitFor("MSG on connection \(i)") { e in e.isMessage(b, "to \(i)") }
        }
        await alice.close()
        await bob.close()
    }
}
