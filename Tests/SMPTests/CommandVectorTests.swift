import Foundation
import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

@testable import SMP

/// Transmissions, signatures and MSG encryption of smp.md §3 (Vectors/commands.json).
final class CommandVectorTests: XCTestCase {
    private struct Keys {
        let v: CanonicalJSON
        let params: TransportParameters
        let recipient: Ed25519.PrivateKey
        let recipientDh: X25519.PrivateKey
        let sender: Ed25519.PrivateKey
    }

    private func keys() throws -> Keys {
        let v = try vectors("commands")
        let recipient = try Ed25519.PrivateKey(seed: v.hex("recipient_ed25519_seed"))
        XCTAssertEqual(recipient.publicKey.spki, try v.hex("recipient_ed25519_pub_spki"))
        let dh = try X25519.PrivateKey(rawRepresentation: v.hex("recipient_x25519_priv"))
        XCTAssertEqual(dh.publicKey.spki, try v.hex("recipient_x25519_pub_spki"))
        return Keys(
            v: v, params: TransportParameters(version: 18, sessionId: SessionId(try v.hex("session_id"))), recipient: recipient,
            recipientDh: dh, sender: try Ed25519.PrivateKey(seed: v.hex("sender_ed25519_seed")))
    }

    func testNewQueue() throws {
        let k = try keys()
        let vec = try k.v.field("NEW_v18")
        let new = SMPCommand.new(
            NewQueueRequest(
                recipientAuthKey: .ed25519(k.recipient.publicKey), recipientDhKey: k.recipientDh.publicKey,
                queueRequestData: .messaging(nil)))
        // "NEW " 2c<Ed25519 SPKI> 2c<X25519 SPKI> "0" (no password) "S" "1M0" (messaging, no link data) "0" (no notifier)
        XCTAssertEqual(try new.encoded(version: 18), try vec.hex("command"))
        let corrId = CorrId(try vec.hex("corrId"))
        let forAuth = try Transmissions.bytesForAuthorization(
            corrId: corrId, entityId: .empty, command: new, parameters: k.params)
        XCTAssertEqual(forAuth, try vec.hex("signed_bytes"))
        XCTAssertEqual(k.recipient.signature(for: forAuth).rawRepresentation, try vec.hex("signature"))
        let t = try Transmissions.encodeCommand(
            corrId: corrId, entityId: .empty, command: new, parameters: k.params, signedWith: k.recipient)
        XCTAssertEqual(t, try vec.hex("transmission_v16plus"))
        let sig = try SMPSignature(rawRepresentation: vec.hex("signature"))
        XCTAssertEqual(
            try Transmissions.encodeCommand(
                authorizedBytes: forAuth, authorizations: Authorizations(.signature(sig)),
                parameters: TransportParameters(version: 15, sessionId: k.params.sessionId)),
            try vec.hex("transmission_v15"))
        XCTAssertEqual(try TransmissionBatch.encode([t]), try vec.hex("block_content"))

        // The server's reading of it.
        let read = Transmissions.decodeCommand(t, parameters: k.params)
        XCTAssertEqual(read.corrId, corrId)
        XCTAssertEqual(read.entityId, .empty)
        let command = try read.message.get()
        XCTAssertEqual(command.command, new)
        XCTAssertEqual(command.authorizedBytes, forAuth)
        XCTAssertNil(command.authorizations?.serviceSignature)
        XCTAssertTrue(command.isAuthorized(by: .ed25519(k.recipient.publicKey)))
        XCTAssertFalse(command.isAuthorized(by: .ed25519(k.sender.publicKey)))
        // At v15 the same bytes have no slot (the vector keeps the v18 command, whose last byte v15 does not have);
        // read at v16+ they misparse, as smp.md §9.1 #10 warns.
        let v15 = Transmissions.decodeCommand(
            try vec.hex("transmission_v15"), parameters: TransportParameters(version: 15, sessionId: k.params.sessionId))
        XCTAssertEqual(v15.corrId, corrId)
        XCTAssertEqual(v15.message, .failure(.cmd(.syntax)))
        XCTAssertThrowsError(try Transmissions.decodeCommand(try vec.hex("transmission_v15"), parameters: k.params).message.get())
    }

    func testRecipientAndSenderCommands() throws {
        let k = try keys()
        let sub = try k.v.field("SUB")
        let rcvId = EntityId(try sub.hex("rcvId"))
        let subT = try Transmissions.encodeCommand(
            corrId: CorrId(sub.hex("corrId")), entityId: rcvId, command: .sub, parameters: k.params, signedWith: k.recipient)
        XCTAssertEqual(subT, try sub.hex("transmission_v16plus"))

        let skey = try k.v.field("SKEY")
        let sndId = EntityId(try skey.hex("sndId"))
        let skeyCommand = SMPCommand.skey(.ed25519(k.sender.publicKey))
        let skeyT = try Transmissions.encodeCommand(
            corrId: CorrId(skey.hex("corrId")), entityId: sndId, command: skeyCommand, parameters: k.params, signedWith: k.sender)
        XCTAssertEqual(skeyT, try skey.hex("transmission_v16plus"))
        let skeyRead = try Transmissions.decodeCommand(skeyT, parameters: k.params).message.get()
        XCTAssertEqual(skeyRead.command, skeyCommand)
        XCTAssertTrue(skeyRead.isAuthorized(by: .ed25519(k.sender.publicKey)))

        let send = try k.v.field("SEND")
        let sendCommand = SMPCommand.send(flags: MessageFlags(notification: true), body: try send.hex("body"))
        let corrId = CorrId(try send.hex("corrId"))
        let signed = try Transmissions.encodeCommand(
            corrId: corrId, entityId: sndId, command: sendCommand, parameters: k.params, signedWith: k.sender)
        XCTAssertEqual(signed, try send.hex("signed_v16plus"))
        // Unsigned: 00 and no service slot.
        let unsigned = try Transmissions.encodeCommand(
            corrId: corrId, entityId: sndId, command: sendCommand, parameters: k.params, signedWith: nil)
        XCTAssertEqual(unsigned, try send.hex("unsigned"))
        let read = Transmissions.decodeCommand(unsigned, parameters: k.params)
        XCTAssertEqual(try read.message.get().command, sendCommand)
        XCTAssertNil(try read.message.get().authorizations)
        XCTAssertFalse(try read.message.get().isAuthorized(by: .ed25519(k.sender.publicKey)))
    }

    func testMessageEncryption() throws {
        let k = try keys()
        let m = try k.v.field("MSG_server_to_recipient")
        let serverKey = try X25519.PrivateKey(rawRepresentation: m.hex("server_queue_x25519_priv"))
        XCTAssertEqual(serverKey.publicKey.rawRepresentation, try m.hex("server_queue_x25519_pub"))
        let secret = try k.recipientDh.sharedSecret(with: serverKey.publicKey)
        XCTAssertEqual(secret.rawRepresentation, try m.hex("rcvDhSecret"))
        let msgId = MsgId(try m.hex("msgId (=nonce)"))
        let ts = try XCTUnwrap(m["msgTs"]?.integerValue)
        let content = ReceivedMessageContent.message(
            timestamp: ts, flags: MessageFlags(notification: true), body: Array("hello body".utf8))
        XCTAssertEqual(content.encoded(), try m.hex("plaintext_before_pad"))
        let sealed = try ReceivedMessage.seal(
            content, msgId: msgId, secret: try serverKey.sharedSecret(with: k.recipientDh.publicKey))
        XCTAssertEqual(sealed.encryptedBody.count, 16122)
        XCTAssertEqual(Hex.encode(sealed.encryptedBody.prefix(48)), try m.string("encrypted_first_48_hex"))
        XCTAssertEqual(Hex.encode(Digest.sha256(sealed.encryptedBody)), try m.string("encrypted_sha256"))
        XCTAssertEqual(try sealed.open(secret: secret), content)
        XCTAssertEqual(
            thrown { try sealed.open(secret: serverKey.sharedSecret(with: serverKey.publicKey)) } as? MessageDecryptionError,
            .decryption)

        let rcvId = EntityId(try k.v.field("SUB").hex("rcvId"))
        let event = try Transmissions.encodeResponse(corrId: .empty, entityId: rcvId, message: .msg(sealed), parameters: k.params)
        XCTAssertEqual(Hex.encode(Digest.sha256(event)), try m.string("MSG_transmission_sha256"))
        let read = Transmissions.decodeResponse(event, parameters: k.params)
        XCTAssertEqual(read.corrId, .empty)
        XCTAssertEqual(read.entityId, rcvId)
        XCTAssertEqual(try read.message.get(), .msg(sealed))

        let quota = ReceivedMessageContent.quota(timestamp: ts)
        XCTAssertEqual(quota.encoded(), try m.hex("quota_marker_plaintext"))
        XCTAssertEqual(try ReceivedMessageContent(decoding: quota.encoded()), quota)
        // Future flag bytes up to the space are skipped.
        XCTAssertEqual(
            try ReceivedMessageContent(decoding: Array(try m.hex("plaintext_before_pad").prefix(9)) + Array("xyz body".utf8)),
            .message(timestamp: ts, flags: MessageFlags(notification: true), body: Array("body".utf8)))
    }
}
