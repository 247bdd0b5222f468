import Foundation
import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

@testable import SMP

/// The handshake blocks, batches and block encryption of smp.md §2.4–§2.6 (Vectors/transport.json).
final class TransportTests: XCTestCase {
    func testBlockEncryptionVector() throws {
        let v = try vectors("transport")
        let sessionId = SessionId(try v.hex("session_id"))
        let server = try X25519.PrivateKey(rawRepresentation: v.hex("server_x25519_priv"))
        let client = try X25519.PrivateKey(rawRepresentation: v.hex("client_x25519_priv"))
        XCTAssertEqual(server.publicKey.rawRepresentation, try v.hex("server_x25519_pub"))
        XCTAssertEqual(client.publicKey.rawRepresentation, try v.hex("client_x25519_pub"))
        let dh = try client.sharedSecret(with: server.publicKey)
        XCTAssertEqual(dh.rawRepresentation, try v.hex("dh"))

        var clientSide = BlockEncryption.client(sessionId: sessionId, secret: dh)
        var serverSide = BlockEncryption.server(sessionId: sessionId, secret: try server.sharedSecret(with: client.publicKey))
        XCTAssertEqual(clientSide.receiveChain.rawRepresentation, try v.hex("ck1_server_send_client_recv"))
        XCTAssertEqual(clientSide.sendChain.rawRepresentation, try v.hex("ck2_client_send_server_recv"))
        XCTAssertEqual(serverSide.sendChain.rawRepresentation, try v.hex("ck1_server_send_client_recv"))

        guard case .array(let steps) = try v.field("client_send_chain_steps") else { return XCTFail("steps") }
        var chain = clientSide.sendChain
        for step in steps {
            XCTAssertEqual(chain.rawRepresentation, try step.hex("chain_key_in"))
            let k = chain.next()
            XCTAssertEqual(chain.rawRepresentation, try step.hex("next_chain_key"))
            XCTAssertEqual(k.key.rawRepresentation, try step.hex("box_key"))
            XCTAssertEqual(k.nonce.rawRepresentation, try step.hex("nonce"))
        }

        // The first client block: a PING in a one-transmission batch.
        let first = try v.field("first_client_block")
        let ping = try Transmissions.encodeCommand(
            corrId: CorrId(first.hex("corrId")), entityId: .empty, command: .ping,
            parameters: TransportParameters(version: 18, sessionId: sessionId), signedWith: nil)
        // 00 (no authorization, so no service slot) | 18 corrId | 00 entity | "PING"
        XCTAssertEqual(ping, try first.hex("transmission"))
        let content = try TransmissionBatch.encode([ping])
        XCTAssertEqual(content, try first.hex("batch_content"))
        let block = try clientSide.seal(content)
        XCTAssertEqual(block.count, 16384)
        XCTAssertEqual(Hex.encode(Digest.sha256(block)), try first.string("block_sha256"))
        XCTAssertEqual(Base64.encode(block, alphabet: .standard), try first.string("block_b64"))
        XCTAssertEqual(try serverSide.open(block), content)

        // The chains advance per block: the same content seals differently next time, and in order only.
        let second = try clientSide.seal(content)
        XCTAssertNotEqual(second, block)
        var replay = serverSide
        XCTAssertEqual(try serverSide.open(second), content)
        XCTAssertEqual(thrown { try replay.open(block) } as? BlockError, .decryption)
        XCTAssertEqual(thrown { try replay.open(Array(block.dropLast())) } as? BlockError, .blockSize(16383))

        // Server to client on the other chain.
        let pong = try Transmissions.encodeResponse(
            corrId: CorrId(first.hex("corrId")), entityId: .empty, message: .pong,
            parameters: TransportParameters(version: 18, sessionId: sessionId))
        var framing = BlockFraming(encryption: serverSide)
        var clientFraming = BlockFraming(encryption: clientSide)
        let blocks = try framing.seal(transmissions: [pong, pong, pong])
        XCTAssertEqual(blocks.count, 1)
        XCTAssertEqual(try clientFraming.openTransmissions(blocks[0]), [pong, pong, pong])
    }

    func testClientHelloVector() throws {
        let v = try vectors("transport")
        let hello = try v.field("client_hello_v18")
        let client = try X25519.PrivateKey(rawRepresentation: v.hex("client_x25519_priv"))
        let ch = ClientHello(version: 18, keyHash: KeyHash(try hello.hex("keyHash")), authKey: client.publicKey)
        let bytes = try ch.encoded()
        // 00 12 | 20 <32 fp> | 2c <44 SPKI> | 46 ("F", not a proxy) | 30 ("0", no service)
        XCTAssertEqual(bytes, try hello.hex("bytes_before_padding"))
        XCTAssertEqual(bytes.count, 82)
        let block = try ch.block()
        XCTAssertEqual(block.count, 16384)
        XCTAssertEqual(try ClientHello(block: block), ch)
        // Trailing bytes are ignored (forward extension).
        XCTAssertEqual(try ClientHello(decoding: bytes + [1, 2, 3]), ch)
        // Older versions drop the fields they lack.
        XCTAssertEqual(
            try ClientHello(version: 13, keyHash: ch.keyHash, authKey: client.publicKey).encoded(), [0, 13] + bytes[2..<80])
        XCTAssertEqual(
            try ClientHello(version: 6, keyHash: ch.keyHash, authKey: client.publicKey).encoded(), [0, 6] + bytes[2..<35])
    }

    private func serverIdentity() throws -> (CertificateAuthority, TLSCredential) {
        let now: Int64 = 1_767_225_600
        let ca = try CertificateAuthority.generate(now: now, hoursBefore: 1)
        return (ca, try ca.issueLeaf(now: now))
    }

    func testServerHelloRoundTripAndSignedKey() throws {
        let (_, leaf) = try serverIdentity()
        let dhKey = X25519.PrivateKey()
        let signed = SignedServerKey.sign(dhKey.publicKey, with: leaf.leafKey)
        // 30 78 | 30 2c | 30 2a …SPKI | 30 05 06 03 2b 65 70 | 03 41 00 <64-byte signature>
        XCTAssertEqual(signed.derRepresentation.count, 0x7a)
        XCTAssertEqual(Array(signed.derRepresentation.prefix(4)), [0x30, 0x78, 0x30, 0x2c])
        XCTAssertEqual(Array(signed.derRepresentation[4..<48]), dhKey.publicKey.spki)
        XCTAssertEqual(Array(signed.derRepresentation[48..<58]), [0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x41, 0x00])
        XCTAssertEqual(try signed.verifiedKey(leafKey: .ed25519(leaf.leafKey.publicKey)), dhKey.publicKey)
        XCTAssertEqual(
            thrown { try signed.verifiedKey(leafKey: .ed25519(Ed25519.PrivateKey().publicKey)) } as? HandshakeError, .badAuth)
        // An EdDSA identifier with a NULL parameter is refused, as crypton-x509 refuses it.
        var withNull = signed.derRepresentation
        withNull.replaceSubrange(48..<55, with: [0x30, 0x07, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x05, 0x00])
        withNull[1] += 2
        XCTAssertThrowsError(try SignedServerKey(der: withNull))

        let sessionId = SessionId(SecureRandom.bytes(32))
        let hello = ServerHello(
            versionRange: SMPVersion.supported, sessionId: sessionId,
            authKey: CertChainPublicKey(certificates: leaf.chain, signedKey: signed))
        let block = try hello.block()
        XCTAssertEqual(block.count, 16384)
        let back = try ServerHello(block: block)
        XCTAssertEqual(back, hello)
        XCTAssertEqual(back.authKey?.certificates.count, 2)
        // 00 06 00 12 | 20 <session id> | 02 (chain of two) …
        XCTAssertEqual(Array(try hello.encoded().prefix(5)), [0, 6, 0, 18, 32])
        XCTAssertEqual(ClientHello.negotiate(server: back.versionRange), 18)
        XCTAssertEqual(ClientHello.negotiate(server: SMPVersion.legacyServerRange), 6)
        XCTAssertNil(ClientHello.negotiate(server: try VersionRange(min: 19, max: 20)))

        // Without ALPN a server offers 6 only, and no key.
        let legacy = ServerHello(versionRange: SMPVersion.legacyServerRange, sessionId: sessionId, authKey: hello.authKey)
        XCTAssertEqual(try legacy.encoded().count, 4 + 33)
        XCTAssertEqual(try ServerHello(block: legacy.block()).authKey, nil)

        let ch = ClientHello(version: 18, keyHash: KeyHash(leaf.authority.fingerprint), authKey: X25519.PrivateKey().publicKey)
        XCTAssertTrue(ch.encryptsBlocks(with: hello))
        XCTAssertTrue(ch.keyHash.identifies(leaf.authority.fingerprint))
        XCTAssertFalse(ClientHello(version: 10, keyHash: ch.keyHash, authKey: ch.authKey).encryptsBlocks(with: hello))
        XCTAssertFalse(
            ClientHello(version: 18, keyHash: ch.keyHash, authKey: ch.authKey, proxyServer: true).encryptsBlocks(with: hello))

        // A service's hello and the server's third block.
        let service = ClientHello(
            version: 18, keyHash: ch.keyHash, authKey: ch.authKey,
            clientService: ClientHelloService(
                role: .messaging, certKey: CertChainPublicKey(certificates: leaf.chain, signedKey: signed)))
        XCTAssertEqual(try ClientHello(block: service.block()), service)
        for r in [ServerHandshakeResponse.serviceId(EntityId([1, 2, 3])), .error(.handshake(.badService)), .error(.version)] {
            XCTAssertEqual(try ServerHandshakeResponse(decoding: r.encoded()), r)
        }
        XCTAssertEqual(try ServerHandshakeResponse.error(.handshake(.identity)).encoded(), Array("EHANDSHAKE IDENTITY".utf8))

        // Every truncation of the hellos is a typed error or a shorter hello, never a trap.
        for bytes in [try hello.encoded(), try service.encoded()] {
            for n in 0..<bytes.count {
                _ = try? ServerHello(decoding: Array(bytes.prefix(n)))
                _ = try? ClientHello(decoding: Array(bytes.prefix(n)))
            }
        }
        XCTAssertEqual(thrown { try ServerHello(decoding: [0, 7, 0, 6]) } as? HandshakeError, .parse)
        XCTAssertEqual(thrown { try ServerHello(block: [0, 1, 2]) } as? HandshakeError, .parse)
    }

    func testBatches() throws {
        let t = [UInt8](repeating: 7, count: 100)
        XCTAssertEqual(try TransmissionBatch.parse(TransmissionBatch.encode([t, t])), [t, t])
        XCTAssertEqual(try TransmissionBatch.encode([[1, 2]]), [1, 0, 2, 1, 2])
        XCTAssertEqual(thrown { try TransmissionBatch.parse([0]) } as? BlockError, .batchCount(0))
        XCTAssertEqual(
            thrown { try TransmissionBatch.parse([1, 0, 2, 1, 2, 9]) } as? BlockError, .syntax(.trailingBytes(count: 1)))
        XCTAssertEqual(thrown { try TransmissionBatch.encode([]) } as? BlockError, .batchCount(0))
        // 16,365 bytes of len2 encodings per batch, at most 255 transmissions.
        let big = [UInt8](repeating: 1, count: SMPLimits.batchCapacity - 2)
        XCTAssertEqual(try TransmissionBatch.group([big, [1], big]).map(\.count), [1, 1, 1])
        XCTAssertEqual(try TransmissionBatch.group(Array(repeating: [1, 2], count: 600)).map(\.count), [255, 255, 90])
        XCTAssertEqual(thrown { try TransmissionBatch.group([big + [1]]) } as? BlockError, .largeMessage)
        var plain = BlockFraming(encryption: nil)
        for batch in try plain.seal(transmissions: [big, [1], big]) {
            XCTAssertEqual(batch.count, 16384)
            XCTAssertFalse(try plain.openTransmissions(batch).isEmpty)
        }
        var encrypted = BlockFraming(
            encryption: .client(
                sessionId: SessionId(SecureRandom.bytes(32)),
                secret: try X25519.PrivateKey().sharedSecret(with: X25519.PrivateKey().publicKey)))
        for block in try encrypted.seal(transmissions: [big, [1], big]) { XCTAssertEqual(block.count, 16384) }
        XCTAssertEqual(thrown { try encrypted.seal([UInt8](repeating: 0, count: 16367)) } as? BlockError, .largeMessage)
        XCTAssertEqual(BlockError.decryption.transportError, .largeMsg)
        XCTAssertEqual(BlockError.batchCount(0).transportError, .block)
        // Every truncation of a batch is a typed error.
        let content = try TransmissionBatch.encode([t, [1, 2, 3], t])
        for n in 0..<content.count { XCTAssertThrowsError(try TransmissionBatch.parse(Array(content.prefix(n)))) }
    }
}
