import Ratchet
import SMP
import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

@testable import AgentProtocol

/// The envelope stack of smp.md §4.3 against ratchet.json, byte for byte in both directions, and refusals of
/// truncated, oversized and garbage input.
final class EnvelopeTests: XCTestCase {
    private var v: CanonicalJSON = .null

    override func setUpWithError() throws { v = try fixture("ratchet") }

    private func x25519(_ path: String...) throws -> X25519.PrivateKey {
        var node = v
        for key in path { node = try XCTUnwrap(node[key], path.joined(separator: ".")) }
        return try X25519.PrivateKey(rawRepresentation: Hex.decode(XCTUnwrap(node.stringValue)))
    }

    private func confirmationBody() throws -> [UInt8] {
        try Base64.decode(v.string("B_confirmation", "ClientMsgEnvelope_b64"), alphabet: .standard)
    }

    func testJoinersConfirmationEnvelope() throws {
        let body = try confirmationBody()
        XCTAssertEqual(body.count, try v.int("B_confirmation", "ClientMsgEnvelope (SEND body)", "len"))
        XCTAssertEqual(Hex.encode(Digest.sha256(body)), try v.string("B_confirmation", "ClientMsgEnvelope (SEND body)", "sha256"))
        let recipient = try x25519("B_confirmation", "A_queue_e2e_x25519_priv")
        let sender = try x25519("B_confirmation", "B_sender_e2e_x25519_priv")

        let envelope = try ClientMsgEnvelope(body: body)
        XCTAssertEqual(envelope.version, 4)
        XCTAssertEqual(envelope.e2ePublicKey, sender.publicKey)
        XCTAssertEqual(envelope.nonce.rawRepresentation, try v.hex("B_confirmation", "cmNonce"))
        XCTAssertEqual(envelope.encryptedBody.count, AgentLimits.e2eEncConfirmationLength + 16)
        XCTAssertEqual(try envelope.body(), body)

        // The recipient's per-queue secret from the header's key equals the sender's.
        let secret = try recipient.sharedSecret(with: XCTUnwrap(envelope.e2ePublicKey))
        XCTAssertEqual(secret.rawRepresentation, try v.hex("B_confirmation", "e2eDhSecret"))
        XCTAssertEqual(try sender.sharedSecret(with: recipient.publicKey), secret)

        let message = try envelope.open(secret: secret)
        XCTAssertEqual(message.privateHeader, .empty)
        let agentEnvelope = try message.envelope()
        XCTAssertEqual(message.body.count, try v.int("B_confirmation", "AgentConfirmation_envelope", "len"))
        XCTAssertEqual(
            Hex.encode(Digest.sha256(message.body)), try v.string("B_confirmation", "AgentConfirmation_envelope", "sha256"))
        guard case .confirmation(let version, let params, let encConnInfo) = agentEnvelope else {
            return XCTFail("not a confirmation: \(agentEnvelope)")
        }
        XCTAssertEqual(version, 7)
        XCTAssertEqual(try params?.encoded(), try v.hex("B_confirmation", "E2ERatchetParams"))
        XCTAssertEqual(encConnInfo.count, try v.int("B_confirmation", "encConnInfo", "len"))
        XCTAssertEqual(Hex.encode(Digest.sha256(encConnInfo)), try v.string("B_confirmation", "encConnInfo", "sha256"))
        XCTAssertEqual(try agentEnvelope.encoded(), message.body)

        // And back: the same envelope sealed again with the same nonce is the same SEND body.
        let resealed = try ClientMsgEnvelope.seal(
            ClientMessage(privateHeader: .empty, envelope: agentEnvelope), version: 4, e2ePublicKey: sender.publicKey,
            secret: secret, nonce: envelope.nonce)
        XCTAssertEqual(try resealed.body(), body)
    }

    func testAgentMessagePlaintexts() throws {
        let replyQueue = try SMPQueueInfo(decoding: v.hex("B_confirmation", "reply_SMPQueueInfo"))
        XCTAssertEqual(replyQueue.clientVersion, 4)
        XCTAssertEqual(replyQueue.address.queueMode, .messaging)
        let hash1 = try v.hex("B_confirmation", "hash1=sha256(P)")

        let joiner = try v.hex("B_confirmation", "agent_message_plaintext_P")
        XCTAssertEqual(Digest.sha256(joiner), hash1)
        guard case .connInfoReply(let queues, let info) = try AgentMessage(decoding: joiner) else { return XCTFail("not D") }
        XCTAssertEqual(queues, [replyQueue])
        XCTAssertEqual(info.first, UInt8(ascii: "{"))
        XCTAssertEqual(try AgentMessage.connInfoReply(queues: queues, connInfo: info).encoded(), joiner)

        let initiator = try v.hex("A_confirmation_ratchet_msg", "P")
        guard case .connInfo(let aliceInfo) = try AgentMessage(decoding: initiator) else { return XCTFail("not I") }
        XCTAssertEqual(try AgentMessage.connInfo(aliceInfo).encoded(), initiator)

        let first = try v.hex("B_first_A_MSG (#2)", "P")
        guard case .message(let header, .msg(let chat)) = try AgentMessage(decoding: first) else { return XCTFail("not A_MSG") }
        XCTAssertEqual(header, APrivHeader(sndMsgId: 2, prevMsgHash: hash1))
        XCTAssertEqual(chat.first, UInt8(ascii: "{"))
        XCTAssertEqual(try AgentMessage.message(header, .msg(chat)).encoded(), first)

        let receipt = try v.hex("A_RCVD_plaintext_example", "P")
        let firstHash = Digest.sha256(first)
        let expected = AgentMessage.message(
            APrivHeader(sndMsgId: 3, prevMsgHash: firstHash), .rcvd([AMessageReceipt(agentMsgId: 2, msgHash: firstHash)]))
        XCTAssertEqual(try AgentMessage(decoding: receipt), expected)
        XCTAssertEqual(try expected.encoded(), receipt)
    }

    func testContactAddressRequest() throws {
        let bytes = try v.hex("contact_request_AgentInvitation", "AgentInvitation_hex")
        XCTAssertEqual(bytes.count, try v.int("contact_request_AgentInvitation", "AgentInvitation", "len"))
        let envelope = try AgentMsgEnvelope(decoding: bytes)
        guard case .invitation(let version, let request, let connInfo) = envelope else { return XCTFail("not I") }
        XCTAssertEqual(version, 7)
        let link = try XCTUnwrap(fixture("links").at("round_trip", "invitation").stringValue)
        XCTAssertEqual(request.connectionRequest, try ConnectionRequest(parsing: link))
        XCTAssertTrue(String(decoding: connInfo, as: UTF8.self).contains("x.contact"))
        XCTAssertEqual(try envelope.encoded(), bytes)

        // The one-shot box with the ephemeral key, as the requester sends it unsigned to the address queue.
        let address = try x25519("contact_request_AgentInvitation", "address_queue_e2e_x25519_priv")
        let ephemeral = try x25519("contact_request_AgentInvitation", "ephemeral_x25519_priv")
        let nonce = try SecretBox.Nonce(rawRepresentation: v.hex("contact_request_AgentInvitation", "nonce"))
        let sealed = try ClientMsgEnvelope.seal(
            ClientMessage(privateHeader: .empty, envelope: envelope), version: 4, e2ePublicKey: ephemeral.publicKey,
            secret: ephemeral.sharedSecret(with: address.publicKey), nonce: nonce
        ).body()
        let name = "ClientMsgEnvelope (unsigned SEND body)"
        XCTAssertEqual(sealed.count, try v.int("contact_request_AgentInvitation", name, "len"))
        XCTAssertEqual(Hex.encode(Digest.sha256(sealed)), try v.string("contact_request_AgentInvitation", name, "sha256"))
        // A contact address where the invitation belongs is refused.
        let contact = try XCTUnwrap(fixture("links").at("round_trip", "contact").stringValue)
        var w = ByteWriter()
        w.writeUInt16(7)
        w.writeByte(UInt8(ascii: "I"))
        try w.writeLargeBytes(Array(contact.utf8))
        XCTAssertThrowsError(try AgentMsgEnvelope(decoding: w.bytes))
    }

    func testQueueMessagesRoundTrip() throws {
        let uri = try SMPQueueURI(parsing: XCTUnwrap(fixture("links").at("round_trip", "queue1Str (single host)").stringValue))
        let server = uri.address.server
        let address = SndQueueAddress(server: server, senderId: uri.address.senderId)
        let key = AuthPublicKey.ed25519(Ed25519.PrivateKey().publicKey)
        let messages: [AMessage] = [
            .hello, .msg([]), .msg(Array("{}".utf8)),
            .rcvd([AMessageReceipt(agentMsgId: 9, msgHash: [UInt8](repeating: 1, count: 32), rcptInfo: [7, 8])]),
            .qcont(address), .qadd([QueueAddition(queue: uri, replaced: address), QueueAddition(queue: uri, replaced: nil)]),
            .qkey([QueueKey(queue: SMPQueueInfo(clientVersion: 4, address: uri.address), senderKey: key)]),
            .quse([QueueUse(queue: address, primary: true)]), .qtest([address, address]), .eready(lastDecryptedSndMsgId: -1),
        ]
        for message in messages {
            let bytes = try message.encoded()
            XCTAssertEqual(try AMessage(decoding: bytes), message, "\(message)")
            let wrapped = AgentMessage.message(APrivHeader(sndMsgId: 5, prevMsgHash: []), message)
            XCTAssertEqual(try AgentMessage(decoding: wrapped.encoded()), wrapped)
        }
        // `QC ‖ server ‖ len1(senderId)`, the server in its binary form (smp.md §1.7).
        var expected = Array("QC".utf8) + [1]
        expected += [UInt8(server.host.text.utf8.count)] + Array(server.host.text.utf8)
        expected += [4] + Array("5223".utf8) + [UInt8(server.keyHash.bytes.count)] + server.keyHash.bytes
        expected += [UInt8(address.senderId.bytes.count)] + address.senderId.bytes
        XCTAssertEqual(try AMessage.qcont(address).encoded(), expected)
    }

    func testRefusals() throws {
        let body = try confirmationBody()
        // Oversized: more than a server delivers, and more than a box holds.
        XCTAssertThrowsError(try ClientMsgEnvelope(body: body + [UInt8](repeating: 0, count: AgentLimits.maxReceivedBody))) {
            guard case .message = $0 as? AgentProtocolError else { return XCTFail("\($0)") }
        }
        let secret = try X25519.PrivateKey().sharedSecret(with: X25519.PrivateKey().publicKey)
        let nonce = SecretBox.Nonce.random()
        for (key, limit) in [(X25519.PrivateKey().publicKey, 15_902), (nil, 15_998)] as [(X25519.PublicKey?, Int)] {
            let fits = ClientMessage(privateHeader: .empty, body: [UInt8](repeating: 0x41, count: limit - 1))
            let sealed = try ClientMsgEnvelope.seal(fits, version: 4, e2ePublicKey: key, secret: secret, nonce: nonce)
            XCTAssertLessThanOrEqual(try sealed.body().count, AgentLimits.maxSendBody)
            let big = ClientMessage(privateHeader: .empty, body: [UInt8](repeating: 0x41, count: limit))
            XCTAssertThrowsError(try ClientMsgEnvelope.seal(big, version: 4, e2ePublicKey: key, secret: secret, nonce: nonce)) {
                XCTAssertEqual($0 as? AgentProtocolError, .tooLarge(length: limit + 1, limit: limit))
            }
        }
        // A box that does not open under the secret.
        XCTAssertThrowsError(try ClientMsgEnvelope(body: body).open(secret: secret)) {
            XCTAssertEqual($0 as? AgentProtocolError, .crypto(.decryptCB))
        }
        // Tags and lists that are not allowed.
        let bad: [[UInt8]] = [[], [UInt8(ascii: "X")], Array("D".utf8) + [0], Array("M".utf8)]
        for bytes in bad { XCTAssertThrowsError(try AgentMessage(decoding: bytes), "\(bytes)") }
        for bytes in [[], Array("QZ".utf8), Array("V".utf8) + [0], Array("Z".utf8), Array("E".utf8) + [1]] as [[UInt8]] {
            XCTAssertThrowsError(try AMessage(decoding: bytes), "\(bytes)")
        }
        XCTAssertThrowsError(try AgentMsgEnvelope(decoding: [0, 7, UInt8(ascii: "Z")]))
        XCTAssertThrowsError(try ClientMessage(decoding: Array("?x".utf8)))
        XCTAssertThrowsError(try ClientMessage(decoding: Array("K".utf8) + [3, 1, 2, 3]))

        // Every truncation and random corruption of each vector is a value or a typed error, never a trap.
        let samples = [
            try v.hex("B_confirmation", "agent_message_plaintext_P"), try v.hex("B_first_A_MSG (#2)", "P"),
            try v.hex("A_RCVD_plaintext_example", "P"), try v.hex("contact_request_AgentInvitation", "AgentInvitation_hex"),
            Array(body.prefix(400)),
        ]
        var g = SeededGenerator(seed: 4)
        for sample in samples {
            for n in 0..<sample.count { decodeAll(Array(sample.prefix(n))) }
            var bytes = sample
            for _ in 0..<500 {
                let i = Int.random(in: 0..<bytes.count, using: &g)
                let saved = bytes[i]
                bytes[i] = UInt8.random(in: 0...255, using: &g)
                decodeAll(bytes)
                bytes[i] = saved
            }
        }
        for n in 0..<200 { decodeAll(g.bytes(n)) }
    }

    private func decodeAll(_ bytes: [UInt8]) {
        _ = try? ClientMsgEnvelope(body: bytes)
        _ = try? ClientMessage(decoding: bytes)
        _ = try? AgentMsgEnvelope(decoding: bytes)
        _ = try? AgentMessage(decoding: bytes)
        _ = try? AMessage(decoding: bytes)
        _ = try? E2ERatchetParams(decoding: bytes)
    }
}
