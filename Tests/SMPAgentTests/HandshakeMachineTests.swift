import AgentProtocol
import Ratchet
import SMP
import SimplexCrypto
import SimplexEncoding
import XCTest

@testable import SMPAgent

/// The fast duplex handshake's steps without I/O (smp.md §4.5), and the envelope stack split at the store (§4.3,
/// §4.4): what is queued opens, byte sizes as on the wire.
final class HandshakeMachineTests: XCTestCase {
    func testJoinerSecuresMakesItsReplyQueueThenConfirms() throws {
        XCTAssertEqual(
            try HandshakeMachine.next(.joinStarted, .joined), [.secureSendQueue, .createReplyQueue, .enqueueConfirmation])
        XCTAssertEqual(try HandshakeMachine.next(.joinStarted, .confirmationDelivered), [.setStep(.confirmed, .confirmationSent)])
        let connected: [HandshakeAction] = [.setStep(.duplex, .connected), .emitInfo, .emitConnected]
        XCTAssertEqual(try HandshakeMachine.next(.confirmationSent, .confirmationOpened(reply: false)), connected)
        // The initiator's confirmation may be processed before our own delivery report.
        XCTAssertEqual(try HandshakeMachine.next(.joinStarted, .confirmationOpened(reply: false)), connected)
        XCTAssertEqual(try HandshakeMachine.next(.connected, .confirmationDelivered), [])
    }

    func testInitiatorEmitsConfThenConnectsWhenItsConfirmationIsAccepted() throws {
        XCTAssertEqual(
            try HandshakeMachine.next(.invitationCreated, .confirmationOpened(reply: true)),
            [.setStep(.confirmed, .confirmationReceived), .emitConfirmation])
        XCTAssertEqual(
            try HandshakeMachine.next(.confirmationReceived, .allowed),
            [.setStep(.confirmed, .confirmationAllowed), .enqueueConfirmation])
        XCTAssertEqual(
            try HandshakeMachine.next(.confirmationAllowed, .confirmationDelivered),
            [.setStep(.duplex, .connected), .emitConnected])
    }

    func testOutOfOrderInputsAreProhibited() {
        let refused: [(HandshakeStep, HandshakeInput)] = [
            (.invitationCreated, .allowed),  // allowed before any confirmation
            (.invitationCreated, .confirmationOpened(reply: false)),  // an "I" where the joiner's "D" is due
            (.confirmationSent, .confirmationOpened(reply: true)),  // a "D" at the joiner
            (.connected, .allowed), (.connected, .confirmationOpened(reply: false)),  // a second handshake
            (.none, .joined), (.confirmationReceived, .confirmationDelivered),
        ]
        for (step, input) in refused {
            XCTAssertThrowsError(try HandshakeMachine.next(step, input), "\(step) \(input)") { error in
                XCTAssertEqual(error as? HandshakeViolation, HandshakeViolation(step: step, input: input))
            }
        }
    }

    // MARK: Envelopes

    private struct Keys: RatchetKeySource {
        func nextRatchetKey() -> X448.PrivateKey { X448.PrivateKey() }
    }

    private func sent(_ prepared: PreparedSend, kind: AgentMessageKind, sndMsgId: UInt64) throws -> SentMessage {
        SentMessage(
            connId: AgentConnId(bytes("c")), internalId: InternalMessageId(Int64(sndMsgId)), sndMsgId: sndMsgId,
            queueId: SndQueueId(1), kind: kind, hash: MessageHash(of: prepared.agentMessage), notification: true,
            agentMessage: prepared.agentMessage, encryptKey: prepared.encryptKey, ratchetParams: prepared.ratchetParams,
            delivery: .pending, retries: 0, nextAttemptAt: 0, receipt: nil)
    }

    private func sndQueue(_ recipientKey: X25519.PublicKey, own: X25519.PrivateKey) throws -> SndQueue {
        let server = try SMPServer(parsing: "smp://AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=@127.0.0.1:5223")
        return SndQueue(
            id: SndQueueId(1), connId: AgentConnId(bytes("c")), server: server,
            senderId: EntityId(Array(repeating: 7, count: 24)),
            mode: .messaging, senderAuthKey: nil, e2eKey: StoredX25519Key(own), e2ePublicKey: own.publicKey,
            e2eDHSecret: try own.sharedSecret(with: recipientKey), status: .secured, smpClientVersion: 4)
    }

    /// The joiner's confirmation prepared at enqueue and sealed at delivery opens at the initiator into the same
    /// reply queue and conn info, at the wire's size (15,992); sealing again (a retry) gives the same ratchet message;
    /// the first message after it is 16,043 bytes and opens with `sndMsgId` 2 and the confirmation's hash.
    func testQueuedConfirmationAndMessageOpenAtThePeer() throws {
        let a = E2EPrivateKeys(key1: X448.PrivateKey(), key2: X448.PrivateKey())
        let b = E2EPrivateKeys(key1: X448.PrivateKey(), key2: X448.PrivateKey())
        let queueKey = X25519.PrivateKey()
        let senderKey = X25519.PrivateKey()
        let queue = try sndQueue(queueKey.publicKey, own: senderKey)
        let bob = try RatchetState(
            joining: a.params(), own: b, ratchetKey: X448.PrivateKey(), versions: RatchetVersions(current: 3))
        let reply = SMPQueueInfo(
            clientVersion: 4,
            address: SMPQueueAddress(
                server: queue.server, senderId: EntityId(Array(repeating: 9, count: 24)),
                dhPublicKey: X25519.PrivateKey().publicKey, queueMode: .messaging))
        let conf = try AgentEnvelopes.prepare(
            .connInfoReply(queues: [reply], connInfo: bytes("{\"x.info\"}")), ratchet: bob, ratchetParams: b.params())
        let confirmation = try sent(conf, kind: .confirmation, sndMsgId: 1)
        let body = try AgentEnvelopes.seal(confirmation, queue: queue, agentVersion: 7, nonce: .random())
        XCTAssertEqual(body.count, 15_992)
        let again = try AgentEnvelopes.seal(confirmation, queue: queue, agentVersion: 7, nonce: .random())

        let recipient = ReceiveQueueE2E(privateKey: queueKey, secret: nil, queueMode: .messaging, agreedClientVersion: 4)
        var keys = Keys()
        func open(_ body: [UInt8]) throws -> OpenedConfirmation {
            guard case .confirmation(let c) = try AgentOpening.open(body, queue: recipient) else {
                throw PeerFailureForTests("not a confirmation")
            }
            return try AgentOpening.openConnInfoReply(
                c, own: a, agreedAgentVersion: 7, agreedClientVersion: 4, keys: &keys)
        }
        let opened = try open(body)
        XCTAssertEqual(opened.replyQueues, [reply])
        XCTAssertEqual(opened.connInfo, bytes("{\"x.info\"}"))
        XCTAssertEqual(opened.hash, confirmation.hash.bytes)
        XCTAssertEqual(try open(again).hash, opened.hash)

        let next = try XCTUnwrap(conf.ratchet).state()
        let header = APrivHeader(sndMsgId: 2, prevMsgHash: confirmation.hash.bytes)
        let msg = try AgentEnvelopes.prepare(.message(header, .msg(bytes("hello"))), ratchet: next)
        let msgBody = try AgentEnvelopes.seal(
            try sent(msg, kind: .message, sndMsgId: 2), queue: queue, agentVersion: 7, nonce: .random())
        XCTAssertEqual(msgBody.count, 16_043)
        let secret = try queueKey.sharedSecret(with: senderKey.publicKey)
        let established = ReceiveQueueE2E(privateKey: queueKey, secret: secret, queueMode: .messaging, agreedClientVersion: 4)
        guard case .message(7, let enc) = try AgentOpening.open(msgBody, queue: established) else {
            return XCTFail("not a message")
        }
        let decrypted = try AgentOpening.openMessage(enc, ratchet: opened.ratchet, skipped: SkippedMessageKeys(), keys: &keys)
            .result.get()
        XCTAssertEqual(decrypted.header, header)
        XCTAssertEqual(decrypted.message, .msg(bytes("hello")))
        XCTAssertEqual(
            MsgIntegrity(lastExternalSndId: 1, lastReceivedHash: opened.hash, header: decrypted.header), .ok)
    }

    func testAMessageTooLongIsRefusedBeforeTheChainMoves() throws {
        let a = E2EPrivateKeys(key1: X448.PrivateKey(), key2: X448.PrivateKey())
        let bob = try RatchetState(
            joining: a.params(), own: E2EPrivateKeys(key1: X448.PrivateKey(), key2: X448.PrivateKey()),
            ratchetKey: X448.PrivateKey(), versions: RatchetVersions(current: 3))
        let header = APrivHeader(sndMsgId: 2, prevMsgHash: Array(repeating: 0, count: 32))
        XCTAssertThrowsError(
            try AgentEnvelopes.prepare(.message(header, .msg(Array(repeating: 0x41, count: 15_900))), ratchet: bob)
        ) { error in
            guard case .agent(.tooLarge) = error as? AgentError else { return XCTFail("\(error)") }
        }
    }
}

struct PeerFailureForTests: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
