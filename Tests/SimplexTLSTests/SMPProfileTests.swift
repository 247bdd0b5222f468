import SimplexEncoding
import XCTest

@testable import SimplexCrypto
@testable import SimplexTLS

/// An SMP connection with what happened to it while `pump` moved bytes.
final class SMPEndpoint {
    let connection: SMPTLSConnection
    var events: [SMPTLSEvent] = []
    var error: TLSError?

    init(_ connection: SMPTLSConnection) { self.connection = connection }

    var session: SMPTLSSession? {
        for case .handshakeCompleted(let session) in events { return session }
        return nil
    }

    var receivedData: [UInt8] {
        var all: [UInt8] = []
        for case .applicationData(let bytes) in events { all += bytes }
        return all
    }

    func feed(_ bytes: [UInt8]) {
        guard error == nil else { return }
        do {
            events += try connection.receive(bytes)
        } catch {
            self.error = error
        }
    }
}

/// Moves bytes between two SMP connections until neither has anything to send; a failed side still sends (its
/// alert) and receives nothing more.
func pump(_ a: SMPEndpoint, _ b: SMPEndpoint) {
    while true {
        let fromA = a.connection.takeOutgoing()
        if !fromA.isEmpty { b.feed(fromA) }
        let fromB = b.connection.takeOutgoing()
        if !fromB.isEmpty { a.feed(fromB) }
        if fromA.isEmpty && fromB.isEmpty { return }
    }
}

/// The SMP transport's TLS profile (smp.md §2.1–§2.3), our client against our server in memory.
final class SMPProfileTests: XCTestCase {
    private func handshake(
        credential: ServerCredential, identity: CertificateFingerprint? = nil,
        offering: [ApplicationProtocol] = [.smp1], selecting: [ApplicationProtocol] = [.smp1, .http11],
        clientNow: Int64 = testNow, groups: String = "X25519:X448"
    ) throws -> (client: SMPEndpoint, server: SMPEndpoint) {
        let client = SMPEndpoint(
            try SMPTLSConnection(
                role: .client(serverIdentity: identity ?? credential.fingerprint, protocols: offering), now: clientNow,
                groups: groups))
        let server = SMPEndpoint(try SMPTLSConnection(role: .server(credential, protocols: selecting), now: 0))
        try client.connection.start()
        pump(client, server)
        return (client, server)
    }

    /// Every chain length with both key types: the same session id on both sides, `smp/1`, the one suite, the
    /// server's whole chain on the client, nothing on the server (no client certificate), no SNI.
    func testHandshakeForEveryChainLengthAndAlgorithm() throws {
        for algorithm in CertificateKeyAlgorithm.allCases {
            for length in ServerChainLength.allCases {
                let label = "\(algorithm) \(length.rawValue)"
                let credential = try ServerCredential.generate(algorithm: algorithm, length: length, now: testNow)
                let (client, server) = try handshake(credential: credential)
                XCTAssertNil(client.error, label)
                XCTAssertNil(server.error, label)
                let c = try XCTUnwrap(client.session, label)
                let s = try XCTUnwrap(server.session, label)
                XCTAssertEqual(client.events, [.handshakeCompleted(c)], label)
                XCTAssertEqual(server.events, [.handshakeCompleted(s)], label)
                XCTAssertEqual(c.sessionId.count, 32, label)
                XCTAssertEqual(c.sessionId, s.sessionId, label)
                for session in [c, s] {
                    XCTAssertEqual(session.applicationProtocol, .smp1, label)
                    XCTAssertEqual(session.protocolVersion, "TLSv1.3", label)
                    XCTAssertEqual(session.cipherSuite, "TLS_CHACHA20_POLY1305_SHA256", label)
                    XCTAssertEqual(session.keyExchangeGroup, "X25519", label)
                }
                XCTAssertEqual(c.peerChain, credential.chain, label)
                XCTAssertEqual(c.serverIdentity?.fingerprint, credential.fingerprint, label)
                XCTAssertEqual(c.serverLeaf, credential.leaf, label)
                XCTAssertEqual(s.peerChain, [], label)
                XCTAssertNil(s.serverName, label)
                XCTAssertEqual(client.connection.session, c, label)
                XCTAssertTrue(client.connection.isEstablished, label)

                // An SMP block each way (smp.md §2.5).
                let block = [UInt8](repeating: 0x23, count: 16384)
                try client.connection.send(block)
                try server.connection.send(block + [1])
                pump(client, server)
                XCTAssertEqual(server.receivedData, block, label)
                XCTAssertEqual(client.receivedData, block + [1], label)
                client.connection.close()
                pump(client, server)
                XCTAssertEqual(server.events.last, .closed, label)
                XCTAssertEqual(client.events.last, .closed, label)
            }
        }
    }

    func testSessionIdsDifferBetweenSessions() throws {
        let credential = try ServerCredential.generate(algorithm: .ed25519, length: .two, now: testNow)
        let first = try XCTUnwrap(try handshake(credential: credential).client.session)
        let second = try XCTUnwrap(try handshake(credential: credential).client.session)
        XCTAssertNotEqual(first.sessionId, second.sessionId)
    }

    /// The Haskell client offers X448 first (MQ `Transport.hs`, `supportedGroups = [X448, X25519]`).
    func testClientOfferingX448FirstGetsX448() throws {
        let credential = try ServerCredential.generate(algorithm: .ed448, length: .two, now: testNow)
        let (client, server) = try handshake(credential: credential, groups: "X448:X25519")
        XCTAssertEqual(client.session?.keyExchangeGroup, "X448")
        XCTAssertEqual(server.session?.keyExchangeGroup, "X448")
    }

    // MARK: Server identity (smp.md §2.2)

    func testWrongFingerprintIsRefused() throws {
        let credential = try ServerCredential.generate(algorithm: .ed25519, length: .two, now: testNow)
        let other = try ServerCredential.generate(algorithm: .ed25519, length: .two, now: testNow)
        let (client, server) = try handshake(credential: credential, identity: other.fingerprint)
        XCTAssertEqual(client.error, .identity(expected: other.fingerprint, presented: credential.fingerprint))
        XCTAssertNil(client.session)
        // The server gets unknown_ca, as a reference client sends for an unknown identity.
        XCTAssertEqual(server.error, .alertReceived(.unknownCA))
        XCTAssertNil(server.session)
        XCTAssertThrowsError(try client.connection.send([0]))
    }

    /// The identity is the second certificate, not the trust anchor: pinning the last of a longer chain fails.
    func testIdentityIsTheSecondCertificate() throws {
        for length in [ServerChainLength.three, .four] {
            let credential = try ServerCredential.generate(algorithm: .ed25519, length: length, now: testNow)
            XCTAssertEqual(
                credential.fingerprint, CertificateFingerprint(validated: Digest.sha256(credential.chain[1].derRepresentation)))
            let anchor = try XCTUnwrap(credential.chain.last).fingerprint
            let (client, _) = try handshake(credential: credential, identity: anchor)
            XCTAssertEqual(client.error, .identity(expected: anchor, presented: credential.fingerprint))
        }
    }

    // MARK: Chain checks (smp.md §2.2)

    func testChainLengthsOutsideTwoToFourAreRefused() throws {
        let four = try ServerCredential.generate(algorithm: .ed25519, length: .four, now: testNow)
        let policy = ServerChainPolicy(serverIdentity: four.fingerprint, now: testNow)
        XCTAssertEqual(policy.refusal(of: []), .certificateChain(.certificateCount(0)))
        XCTAssertEqual(policy.refusal(of: [four.leaf]), .certificateChain(.certificateCount(1)))
        XCTAssertEqual(policy.refusal(of: four.chain + [four.chain[3]]), .certificateChain(.certificateCount(5)))
        XCTAssertNil(policy.refusal(of: four.chain))
        XCTAssertThrowsError(try ServerCredential(chain: [four.leaf], leafKey: four.leafKey))
    }

    /// A leaf of one server with another server's identity (same DN, another key): the signature check fails.
    func testLeafNotSignedByIdentityIsRefused() throws {
        let a = try ServerCredential.generate(algorithm: .ed448, length: .two, now: testNow)
        let b = try ServerCredential.generate(algorithm: .ed448, length: .two, now: testNow)
        let mixed = try ServerCredential(chain: [a.leaf, b.identity], leafKey: a.leafKey)
        let (client, server) = try handshake(credential: mixed)
        XCTAssertEqual(client.error, .certificateChain(.signature(position: 0)))
        XCTAssertEqual(server.error, .alertReceived(.decryptError))
    }

    /// The identity of a three-chain under a CA that did not issue it.
    func testIdentityNotIssuedByTheNextIsRefused() throws {
        let three = try ServerCredential.generate(algorithm: .ed25519, length: .three, now: testNow)
        let four = try ServerCredential.generate(algorithm: .ed25519, length: .four, now: testNow)
        let wrongRoot = try ServerCredential(chain: [three.leaf, three.identity, four.chain[2]], leafKey: three.leafKey)
        let (client, server) = try handshake(credential: wrongRoot)
        XCTAssertEqual(client.error, .certificateChain(.notIssuedByNext(position: 1)))
        XCTAssertEqual(server.error, .alertReceived(.unknownCA))
    }

    func testCertificatesOutsideTheirValidityAreRefused() throws {
        let credential = try ServerCredential.generate(algorithm: .ed25519, length: .three, now: testNow)
        let (early, earlyServer) = try handshake(credential: credential, clientNow: testNow - 60)
        XCTAssertEqual(early.error, .certificateChain(.notYetValid(position: 0)))
        XCTAssertEqual(earlyServer.error, .alertReceived(.badCertificate))
        let (late, lateServer) = try handshake(
            credential: credential, clientNow: testNow + Certificate.validityHours * 3600 + 60)
        XCTAssertEqual(late.error, .certificateChain(.expired(position: 0)))
        XCTAssertEqual(lateServer.error, .alertReceived(.certificateExpired))
    }

    /// An intermediate without `CA:TRUE` (crypton's `NotAnAuthority`), or with a keyUsage lacking keyCertSign.
    func testIntermediateMustBeAnAuthority() throws {
        for (extensions, failure) in [
            ([("basicConstraints", "CA:FALSE")], ChainFailure.notAnAuthority(position: 1)),
            ([("basicConstraints", "critical,CA:TRUE"), ("keyUsage", "digitalSignature")], .notAllowedToSign(position: 1)),
        ] as [([(name: String, value: String)], ChainFailure)] {
            let credential = try threeChain(identityExtensions: extensions)
            let (client, _) = try handshake(credential: credential)
            XCTAssertEqual(client.error, TLSError.certificateChain(failure))
        }
        // The same chain with CA:TRUE is accepted.
        let good = try threeChain(identityExtensions: [("basicConstraints", "critical,CA:TRUE")])
        let (client, _) = try handshake(credential: good)
        XCTAssertNil(client.error)
    }

    /// [leaf, identity (with `identityExtensions`), root]: Ed25519, valid from `testNow`.
    private func threeChain(identityExtensions: [(name: String, value: String)]) throws -> ServerCredential {
        let rootKey = CertificateKey(generating: .ed25519)
        let identityKey = CertificateKey(generating: .ed25519)
        let leafKey = CertificateKey(generating: .ed25519)
        let later = testNow + 86400
        let root = try Certificate.issue(
            subject: [("CN", "root")], subjectKey: rootKey, issuer: nil, issuerKey: rootKey,
            notBefore: testNow, notAfter: later, extensions: [("basicConstraints", "critical,CA:TRUE")])
        let identity = try Certificate.issue(
            subject: [("CN", "identity")], subjectKey: identityKey, issuer: root, issuerKey: rootKey,
            notBefore: testNow, notAfter: later, extensions: identityExtensions)
        let leaf = try Certificate.issue(
            subject: [("CN", "leaf")], subjectKey: leafKey, issuer: identity, issuerKey: identityKey,
            notBefore: testNow, notAfter: later, extensions: [])
        return try ServerCredential(chain: [leaf, identity, root], leafKey: leafKey)
    }

    // MARK: ALPN (smp.md §2.1)

    /// A preset server's web port: the client offers `http/1.1` alone, which the server selects for SMP.
    func testWebPortOffersHTTP11() throws {
        XCTAssertEqual(ApplicationProtocol.smpClientOffer(webPort: true), [.http11])
        XCTAssertEqual(ApplicationProtocol.smpClientOffer(webPort: false), [.smp1])
        let credential = try ServerCredential.generate(algorithm: .ed25519, length: .two, now: testNow)
        let client = SMPEndpoint(
            try SMPTLSConnection(serverIdentity: credential.fingerprint, webPort: true, now: testNow))
        let server = SMPEndpoint(try SMPTLSConnection(credential: credential))
        try client.connection.start()
        pump(client, server)
        XCTAssertEqual(client.session?.applicationProtocol, .http11)
        XCTAssertEqual(server.session?.applicationProtocol, .http11)
    }

    /// The server's preference decides, as the reference's `find (`elem` clientList) serverList`.
    func testServerPicksByItsOwnPreference() throws {
        let credential = try ServerCredential.generate(algorithm: .ed25519, length: .two, now: testNow)
        let h2 = try XCTUnwrap(ApplicationProtocol("h2"))
        let (client, server) = try handshake(credential: credential, offering: [h2, .http11, .smp1])
        XCTAssertEqual(client.session?.applicationProtocol, .smp1)
        XCTAssertEqual(server.session?.applicationProtocol, .smp1)
    }

    /// A client whose protocols the server does not know: the server refuses it with no_application_protocol, as
    /// the reference server does, and both sides name the offer.
    func testNoSharedProtocolIsRefusedOnBothSides() throws {
        let credential = try ServerCredential.generate(algorithm: .ed25519, length: .two, now: testNow)
        let h2 = try XCTUnwrap(ApplicationProtocol("h2"))
        let (client, server) = try handshake(credential: credential, offering: [h2, .http11], selecting: [.smp1])
        XCTAssertEqual(client.error, .noSharedApplicationProtocol(offered: [h2, .http11]))
        XCTAssertEqual(server.error, .noSharedApplicationProtocol(offered: [h2, .http11]))
        XCTAssertNil(client.session)
        XCTAssertNil(server.session)
    }

    /// A client that offers no ALPN (an old client) is served without it.
    func testClientWithoutALPNIsServedWithout() throws {
        let credential = try ServerCredential.generate(algorithm: .ed25519, length: .two, now: testNow)
        let (client, server) = try handshake(credential: credential, offering: [])
        XCTAssertNil(client.error)
        XCTAssertNotNil(client.session)
        XCTAssertNil(client.session?.applicationProtocol)
        XCTAssertNil(server.session?.applicationProtocol)
    }

    func testProtocolSelectorParsesDefensively() throws {
        let selector = ProtocolSelector([.smp1, .http11])
        func select(_ bytes: [UInt8]) -> Range<Int>? { bytes.withUnsafeBufferPointer { selector.select(from: $0) } }
        let wire = ApplicationProtocol.wireList([.http11, .smp1])
        XCTAssertEqual(select(wire), 10..<15)  // "smp/1" after 0x08 "http/1.1" 0x05
        XCTAssertNil(select([]))
        XCTAssertNil(select([0x05, 0x73, 0x6d]))  // truncated
        XCTAssertNil(select([0x00]))  // empty name
        XCTAssertNil(select(ApplicationProtocol.wireList([try XCTUnwrap(ApplicationProtocol("h2"))])))
        XCTAssertNil(ApplicationProtocol(""))
        XCTAssertNil(ApplicationProtocol(String(repeating: "a", count: 256)))
    }
}
