import SimplexCrypto
import SimplexEncoding
import XCTest

@testable import Ratchet

/// The first ratchet steps of smp.md §8.2 byte for byte: B (joiner) encrypts its confirmation, A (initiator) decrypts
/// the generator's own bytes and answers, B steps and sends its first A_MSG.
final class RatchetVectorTests: XCTestCase {
    private var v: RatchetVectors!

    override func setUpWithError() throws { v = try RatchetVectors.load() }

    private func keys() throws -> (a: E2EPrivateKeys, b: E2EPrivateKeys) {
        (
            E2EPrivateKeys(key1: try v.privateKey("a1"), key2: try v.privateKey("a2")),
            E2EPrivateKeys(key1: try v.privateKey("b1"), key2: try v.privateKey("b2"))
        )
    }

    private func joiner() throws -> RatchetState {
        let (a, b) = try keys()
        return try RatchetState(
            joining: a.params(), own: b, ratchetKey: v.privateKey("bR (B first DHRs)"), versions: RatchetVersions(current: 3))
    }

    func testKeysAndX3DH() throws {
        for (priv, pub) in [("a1", "a1"), ("a2", "a2"), ("b1", "b1"), ("b2", "b2"), ("bR (B first DHRs)", "bR")] {
            XCTAssertEqual(try v.privateKey(priv).publicKey.rawRepresentation, try v.bytes("keys_x448_pub", pub))
        }
        let (a, b) = try keys()
        XCTAssertEqual(
            try a.key1.sharedSecret(with: b.key2.publicKey).rawRepresentation, try v.bytes("x3dh", "dh1=X448(a1,b2)"))
        XCTAssertEqual(
            try a.key2.sharedSecret(with: b.key1.publicKey).rawRepresentation, try v.bytes("x3dh", "dh2=X448(a2,b1)"))
        XCTAssertEqual(
            try a.key2.sharedSecret(with: b.key2.publicKey).rawRepresentation, try v.bytes("x3dh", "dh3=X448(a2,b2)"))
        let joiner = try RatchetInitParams.joiner(own: b, peer: a.params())
        let initiator = try RatchetInitParams.initiator(own: a, peer: b.params())
        XCTAssertEqual(joiner, initiator)
        XCTAssertEqual(joiner.sendingHeaderKey.rawRepresentation, try v.bytes("x3dh", "HK"))
        XCTAssertEqual(joiner.receivingNextHeaderKey.rawRepresentation, try v.bytes("x3dh", "NHK"))
        XCTAssertEqual(joiner.rootKey.rawRepresentation, try v.bytes("x3dh", "SK"))
        XCTAssertEqual(joiner.associatedData.rawRepresentation, try v.bytes("x3dh", "AD=raw(b1)||raw(a1)"))
    }

    func testE2ERatchetParamsOfTheConfirmation() throws {
        let (_, b) = try keys()
        let params = b.params()
        XCTAssertEqual(try params.encoded(), try v.bytes("B_confirmation", "E2ERatchetParams"))
        XCTAssertEqual(try E2ERatchetParams(decoding: v.bytes("B_confirmation", "E2ERatchetParams")), params)
        // Version 2 has no KEM field; a proposal parses at version 3.
        let v2 = E2ERatchetParams(version: 2, key1: params.key1, key2: params.key2)
        XCTAssertEqual(try v2.encoded().count, 2 + 69 + 69)
        XCTAssertEqual(try E2ERatchetParams(decoding: v2.encoded()), v2)
        let proposal = E2ERatchetParams(
            version: 3, key1: params.key1, key2: params.key2, kem: .proposed(publicKey: [UInt8](repeating: 7, count: 1158)))
        XCTAssertEqual(try E2ERatchetParams(decoding: proposal.encoded()), proposal)
    }

    func testJoinerFirstHeaderAndConfirmation() throws {
        var b = try joiner()
        XCTAssertEqual(b.rootKey.rawRepresentation, try v.bytes("B_init_send", "RK"))
        XCTAssertEqual(b.sending?.chainKey.rawRepresentation, try v.bytes("B_init_send", "CKs"))
        XCTAssertEqual(b.nextSendingHeaderKey.rawRepresentation, try v.bytes("B_init_send", "NHKs"))

        let chain = RatchetKDF.chain(try XCTUnwrap(b.sending?.chainKey))
        XCTAssertEqual(chain.chainKey.rawRepresentation, try v.bytes("B_msg1_chainKdf", "CK_next"))
        XCTAssertEqual(chain.messageKey.key, try v.bytes("B_msg1_chainKdf", "MK"))
        XCTAssertEqual(chain.messageKey.iv, try v.bytes("B_msg1_chainKdf", "msgIV=out[64:80]"))
        XCTAssertEqual(chain.headerIV, try v.bytes("B_msg1_chainKdf", "hdrIV=out[80:96]"))

        let header = RatchetHeader(
            maxVersion: 3, ratchetKey: try v.privateKey("bR (B first DHRs)").publicKey, kem: nil, previousCount: 0, number: 0)
        XCTAssertEqual(try header.encoded(version: 3), try v.bytes("B_msg1_header", "plain"))
        XCTAssertEqual(try Padding.pad(header.encoded(version: 3), to: 88), try v.bytes("B_msg1_header", "padded88"))

        let p = try v.bytes("B_confirmation", "agent_message_plaintext_P")
        let key = try b.encryptHeader()
        XCTAssertEqual(key.encryptedHeader, try v.bytes("B_msg1_header", "emHeader(124)"))
        let encrypted = try EncMessageHeader(decoding: key.encryptedHeader)
        XCTAssertEqual(encrypted.authTag, try v.bytes("B_msg1_header", "ehAuthTag"))
        XCTAssertEqual(encrypted.body, try v.bytes("B_msg1_header", "ehBody"))
        let message = try key.encrypt(p, as: .connectionInfo)
        try assertBlob(message, "B_confirmation", "encConnInfo")
        XCTAssertEqual(try EncRatchetMessage(decoding: message).authTag, try v.bytes("B_confirmation", "body_auth_tag"))
        XCTAssertEqual(b.sentCount, 1)
        XCTAssertEqual(b.sending?.chainKey.rawRepresentation, try v.bytes("B_msg1_chainKdf", "CK_next"))
    }

    /// A reads B's confirmation from the generator's SEND body (per-queue box, agent envelope, ratchet), steps its
    /// ratchet with aR2 and answers with its own confirmation; B steps with bR2 and sends its first message.
    func testBothSidesThroughTheFirstMessage() throws {
        let (a, b) = try keys()
        let envelope = try XCTUnwrap(Data(base64Encoded: v.string("B_confirmation", "ClientMsgEnvelope_b64")))
        try assertBlob(Array(envelope), "B_confirmation", "ClientMsgEnvelope (SEND body)")
        // ClientMsgEnvelope: u16 version ‖ "1" ‖ len1(SPKI X25519) ‖ nonce(24) ‖ box (smp.md §4.3).
        var reader = ByteReader(Array(envelope))
        XCTAssertEqual(try reader.readUInt16(), 4)
        XCTAssertEqual(try reader.readByte(), UInt8(ascii: "1"))
        let senderKey = try X25519.PublicKey(spki: reader.readShortBytes())
        let nonce = try SecretBox.Nonce(rawRepresentation: reader.readBytes(24))
        let queueKey = try X25519.PrivateKey(rawRepresentation: v.bytes("B_confirmation", "A_queue_e2e_x25519_priv"))
        let secret = try queueKey.sharedSecret(with: senderKey)
        XCTAssertEqual(secret.rawRepresentation, try v.bytes("B_confirmation", "e2eDhSecret"))
        let clientMessage = try SecretBox.openPadded(reader.readRest(), key: secret.boxKey, nonce: nonce)
        // "_" ‖ u16(7) ‖ "C" ‖ "1" ‖ E2ERatchetParams ‖ Tail(encConnInfo).
        var agent = ByteReader(clientMessage)
        XCTAssertEqual(try agent.readBytes(1), Array("_".utf8))
        XCTAssertEqual(try agent.readUInt16(), 7)
        XCTAssertEqual(try agent.readBytes(2), Array("C1".utf8))
        let peerParams = try E2ERatchetParams(from: &agent)
        XCTAssertEqual(peerParams, b.params())
        let encConnInfo = agent.readRest()
        try assertBlob(encConnInfo, "B_confirmation", "encConnInfo")

        var alice = try RatchetState(initiating: a, peer: peerParams, versions: RatchetVersions(current: 3))
        XCTAssertFalse(alice.canEncrypt)
        var aliceKeys = QueuedKeys([try v.privateKey("aR2 (A DHRs after first step)")])
        var aliceSkipped = SkippedMessageKeys()
        XCTAssertEqual(
            try alice.open(encConnInfo, skipped: &aliceSkipped, keys: &aliceKeys),
            try v.bytes("B_confirmation", "agent_message_plaintext_P"))
        XCTAssertTrue(aliceSkipped.isEmpty)
        XCTAssertEqual(alice.rootKey.rawRepresentation, try v.bytes("A_after_receiving", "RK"))
        XCTAssertEqual(
            alice.receiving?.chainKey,
            RatchetKDF.chain(try RatchetChainKey(rawRepresentation: v.bytes("A_after_receiving", "CKr"))).chainKey)
        XCTAssertEqual(alice.receiving?.headerKey.rawRepresentation, try v.bytes("A_after_receiving", "HKr (=old NHKr = HK)"))
        XCTAssertEqual(alice.sending?.chainKey.rawRepresentation, try v.bytes("A_after_receiving", "CKs"))
        XCTAssertEqual(alice.sending?.headerKey.rawRepresentation, try v.bytes("A_after_receiving", "HKs (=old NHKs = NHK)"))
        XCTAssertEqual(alice.nextSendingHeaderKey.rawRepresentation, try v.bytes("A_after_receiving", "NHKs"))
        XCTAssertEqual(alice.nextReceivingHeaderKey.rawRepresentation, try v.bytes("A_after_receiving", "NHKr"))

        let aliceKey = try alice.encryptHeader()
        XCTAssertEqual(aliceKey.encryptedHeader, try v.bytes("A_confirmation_ratchet_msg", "emHeader"))
        let aliceConfirmation = try aliceKey.encrypt(v.bytes("A_confirmation_ratchet_msg", "P"), as: .connectionInfo)
        try assertBlob(aliceConfirmation, "A_confirmation_ratchet_msg", "encConnInfo")

        var bob = try joiner()
        _ = try bob.encrypt(v.bytes("B_confirmation", "agent_message_plaintext_P"), as: .connectionInfo)
        var bobKeys = QueuedKeys([try v.privateKey("bR2 (B DHRs after second step)")])
        var bobSkipped = SkippedMessageKeys()
        XCTAssertEqual(
            try bob.open(aliceConfirmation, skipped: &bobSkipped, keys: &bobKeys), try v.bytes("A_confirmation_ratchet_msg", "P"))
        XCTAssertEqual(bob.previousSentCount, 1)
        let first = try bob.encrypt(v.bytes("B_first_A_MSG (#2)", "P"), as: .agentMessage)
        try assertBlob(first, "B_first_A_MSG (#2)", "ratchet_msg")
        XCTAssertEqual(try EncRatchetMessage(decoding: first).header, try v.bytes("B_first_A_MSG (#2)", "emHeader"))
        XCTAssertEqual(try alice.open(first, skipped: &aliceSkipped, keys: &aliceKeys), try v.bytes("B_first_A_MSG (#2)", "P"))
        // B's message opens a new chain (B stepped on A's confirmation), so A stepped again, with PN = 1.
        XCTAssertEqual(aliceKeys.handedOut, 2)
        XCTAssertEqual(alice.previousSentCount, 1)
    }

    private func assertBlob(_ bytes: [UInt8], _ path: String..., file: StaticString = #filePath, line: UInt = #line) throws {
        var node: Any = v.root
        for key in path { node = try XCTUnwrap((node as? [String: Any])?[key], file: file, line: line) }
        let blob = try XCTUnwrap(node as? [String: Any], file: file, line: line)
        XCTAssertEqual(bytes.count, blob["len"] as? Int, "length of \(path.joined(separator: "."))", file: file, line: line)
        XCTAssertEqual(
            Hex.encode(Digest.sha256(bytes)), blob["sha256"] as? String, "SHA-256 of \(path.joined(separator: "."))", file: file,
            line: line)
        XCTAssertEqual(Hex.encode(Array(bytes.prefix(64))), blob["first_64_hex"] as? String, file: file, line: line)
    }
}
