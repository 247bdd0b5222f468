import SMP
import SMPTestServer
import SimplexCrypto
import SimplexEncoding
import XCTest

/// The per-connection handshake and block framing (smp.md §2.4–§2.6) with bytes, the client's side made from the
/// SMP module's client pieces.
final class ServerConnectionTests: XCTestCase {
    static let credential = Result { try ServerCredential.generate(algorithm: .ed25519, length: .two, now: 1_800_000_000) }
    let sessionId = SessionId([UInt8](repeating: 0x5a, count: 32))

    func server(alpn: Bool = true, credential: ServerCredential? = nil) throws -> (ServerConnection, ServerHello) {
        let c = try credential ?? Self.credential.get()
        let s = try ServerConnection(sessionId: sessionId, negotiatedALPN: alpn, credential: c, dhKey: X25519.PrivateKey())
        return (s, try ServerHello(block: s.serverHelloBlock))
    }

    func clientHello(_ hello: ServerHello, version: UInt16 = 18, keyHash: KeyHash? = nil, key: X25519.PrivateKey)
        throws -> [UInt8]
    {
        try ClientHello(
            version: version, keyHash: keyHash ?? KeyHash(Self.credential.get().fingerprint), authKey: key.publicKey
        ).block()
    }

    func testHelloCarriesTheChainAndAKeySignedByTheLeafForEitherAlgorithm() throws {
        for algorithm in CertificateKeyAlgorithm.allCases {
            let credential = try ServerCredential.generate(algorithm: algorithm, length: .four, now: 1_800_000_000)
            let (_, hello) = try server(credential: credential)
            XCTAssertEqual(hello.versionRange, SMPVersion.supported)
            XCTAssertEqual(hello.sessionId, sessionId)
            let authKey = try XCTUnwrap(hello.authKey)
            XCTAssertEqual(authKey.certificates, credential.chain)
            let leaf = try SMPPublicKey(spki: credential.leafKey.publicKeySPKI)
            XCTAssertNoThrow(try authKey.signedKey.verifiedKey(leafKey: leaf))
        }
        // Without ALPN only version 6 is offered (smp.md §2.4).
        XCTAssertEqual(try server(alpn: false).1.versionRange, SMPVersion.legacyServerRange)
    }

    func testEstablishedWithBlockEncryptionThenBlocksBothWays() throws {
        var (s, hello) = try server()
        let key = X25519.PrivateKey()
        // Fed one byte at a time, the hello is still one event.
        var events: [ConnectionEvent] = []
        for b in try clientHello(hello, key: key) { events += s.receive([b]) }
        let p = TransportParameters(version: 18, sessionId: sessionId)
        XCTAssertEqual(events, [.established(p)])
        let serverKey = try XCTUnwrap(hello.authKey).signedKey.unverifiedKey
        var client = BlockEncryption.client(sessionId: sessionId, secret: try key.sharedSecret(with: serverKey))
        let ping = try Transmissions.encodeCommand(
            corrId: CorrId([1]), entityId: .empty, command: .ping, parameters: p, signedWith: nil)
        let pong = try Transmissions.encodeResponse(corrId: CorrId([1]), entityId: .empty, message: .pong, parameters: p)
        XCTAssertEqual(s.receive(try client.seal(TransmissionBatch.encode([ping, ping]))), [.transmissions([ping, ping])])
        let out = try s.seal([pong, pong])
        XCTAssertEqual(out.count, SMPLimits.blockSize)
        XCTAssertEqual(try TransmissionBatch.parse(client.open(out)), [pong, pong])
        // A batch that does not parse is answered, not closed; a block that does not decrypt closes.
        XCTAssertEqual(s.receive(try client.seal([0])), [.unparsableBatch])
        XCTAssertEqual(
            s.receive([UInt8](repeating: 7, count: SMPLimits.blockSize)), [.close(.block(.decryption))])
        XCTAssertEqual(s.receive(try client.seal(TransmissionBatch.encode([ping]))), [], "closed")
        // A stream that ends inside a block.
        var (t, helloT) = try server()
        XCTAssertEqual(t.receive(try clientHello(helloT, key: key) + [1, 2, 3]), [.established(p)])
        XCTAssertEqual(t.endOfStream(), .truncatedBlock(3))
    }

    func testClientHelloRefusals() throws {
        let key = X25519.PrivateKey()
        var (a, ha) = try server()
        XCTAssertEqual(
            a.receive(try clientHello(ha, keyHash: KeyHash([UInt8](repeating: 1, count: 32)), key: key)),
            [.close(.handshake(.identity))])
        var (b, hb) = try server()
        XCTAssertEqual(b.receive(try clientHello(hb, version: 19, key: key)), [.close(.version(19))])
        var (c, _) = try server()
        XCTAssertEqual(c.receive(try Padding.pad([0], to: SMPLimits.blockSize)), [.close(.handshake(.parse))])
        var (d, hd) = try server(alpn: false)
        XCTAssertEqual(d.receive(try clientHello(hd, version: 7, key: key)), [.close(.version(7))])
        XCTAssertEqual(ConnectionCloseReason.version(7).transportError, .version)
        XCTAssertEqual(ConnectionCloseReason.handshake(.identity).transportError, .handshake(.identity))
    }

    func testVersion6WithoutBlockEncryption() throws {
        var (s, hello) = try server(alpn: false)
        let p = TransportParameters(version: 6, sessionId: sessionId)
        let block = try ClientHello(version: 6, keyHash: KeyHash(Self.credential.get().fingerprint), authKey: nil).block()
        XCTAssertEqual(s.receive(block), [.established(p)])
        XCTAssertNil(hello.authKey, "no signed key below version 7")
        let ping = try Transmissions.encodeCommand(
            corrId: CorrId([1]), entityId: .empty, command: .ping, parameters: p, signedWith: nil)
        var plain = BlockFraming(encryption: nil)
        XCTAssertEqual(s.receive(try plain.seal(TransmissionBatch.encode([ping]))), [.transmissions([ping])])
    }
}
