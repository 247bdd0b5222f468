import Foundation
import SMP
import SMPAgent
import SMPClient
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
