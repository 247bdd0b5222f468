import SimplexCrypto
import SimplexEncoding
import XCTest

@testable import SimplexTLS

/// Our client (XRCP host) against our server (XRCP controller), in memory (xrcp.md §4).
final class TLSConnectionTests: XCTestCase {
    func testHandshakeAgreesOnTLSUniqueAndParameters() throws {
        let pair = try Pair()
        XCTAssertNil(pair.client.error)
        XCTAssertNil(pair.server.error)
        let client = try XCTUnwrap(pair.client.sessionInfo)
        let server = try XCTUnwrap(pair.server.sessionInfo)
        XCTAssertEqual(pair.client.events, [.handshakeCompleted(client)])
        XCTAssertEqual(pair.server.events, [.handshakeCompleted(server)])

        // tls-unique: the client Finished, sent by one and received by the other (xrcp.md §4.5, §20.10).
        XCTAssertEqual(client.tlsUnique.count, 32)
        XCTAssertEqual(client.tlsUnique, server.tlsUnique)
        XCTAssertEqual(client.sessionCode, server.sessionCode)
        XCTAssertEqual(client.sessionCode, SessionCode.render(client.tlsUnique))

        for info in [client, server] {
            XCTAssertEqual(info.protocolVersion, "TLSv1.3")
            XCTAssertEqual(info.cipherSuite, "TLS_CHACHA20_POLY1305_SHA256")
            XCTAssertEqual(info.keyExchangeGroup, "X25519")
        }
        // Each side sees the other's [leaf, CA] (xrcp.md §3.2) and its CA fingerprint (§3.3).
        XCTAssertEqual(client.peerChain, pair.controller.credential.chain)
        XCTAssertEqual(client.peerCAFingerprint, pair.controller.fingerprint)
        XCTAssertEqual(server.peerChain, pair.host.credential.chain)
        XCTAssertEqual(server.peerCAFingerprint, pair.host.fingerprint)
        XCTAssertEqual(server.peerLeaf, pair.host.credential.leaf)
        XCTAssertEqual(server.peerCA, pair.host.authority.certificate)
        XCTAssertEqual(pair.client.connection.sessionInfo, client)
        XCTAssertTrue(pair.client.connection.isEstablished)
        XCTAssertTrue(pair.server.connection.isEstablished)
    }

    func testSessionsDifferInTLSUnique() throws {
        let first = try XCTUnwrap(try Pair().client.sessionInfo)
        let second = try XCTUnwrap(try Pair().client.sessionInfo)
        XCTAssertNotEqual(first.tlsUnique, second.tlsUnique)
    }

    func testKnownHostIsAccepted() throws {
        let host = try Side.host()
        var whole = Whole()
        let pair = try Pair(host: host, controller: try .controller(), serverPin: .knownHost(host.fingerprint), split: &whole)
        XCTAssertEqual(pair.server.sessionInfo?.peerCAFingerprint, host.fingerprint)
        XCTAssertNotNil(pair.client.sessionInfo)
    }

    /// xrcp.md §20.36: after the handshake the server's `SSL_get_peer_cert_chain` lacks the client leaf; the
    /// client's holds the server's whole chain. The session info has [leaf, CA] on both sides regardless.
    func testChainAccessorsDifferBySide() throws {
        let pair = try Pair()
        XCTAssertEqual(pair.client.connection.peerCertChainStackCount, 2)
        XCTAssertEqual(pair.server.connection.peerCertChainStackCount, 1)
        XCTAssertEqual(pair.client.connection.peerChainFromAccessors(), pair.controller.credential.chain)
        XCTAssertEqual(pair.server.connection.peerChainFromAccessors(), pair.host.credential.chain)
    }

    /// The Haskell client offers X448 first and sends only its key share (xrcp.md §4.1): our server takes it
    /// without a HelloRetryRequest.
    func testClientOfferingX448FirstGetsX448() throws {
        let host = try Side.host()
        let controller = try Side.controller()
        let client = Endpoint(
            try TLSConnection(
                role: .client(controllerCA: controller.fingerprint), chain: host.credential.chain,
                key: host.credential.leafKey, now: testNow, groups: "X448:X25519"))
        let server = Endpoint(try TLSConnection(role: .server(.anyHost), credential: controller.credential, now: testNow))
        try client.connection.start()
        // One round trip: the server's first answer completes the client's handshake (no HelloRetryRequest).
        _ = try server.connection.receive(client.connection.takeOutgoing())
        client.events = try client.connection.receive(server.connection.takeOutgoing())
        XCTAssertNotNil(client.sessionInfo)
        pump(client, server)
        XCTAssertEqual(client.sessionInfo?.keyExchangeGroup, "X448")
        XCTAssertEqual(server.sessionInfo?.keyExchangeGroup, "X448")
        XCTAssertEqual(client.sessionInfo?.tlsUnique, server.sessionInfo?.tlsUnique)
    }

    /// A server that supports only X448 answers our X25519 key share with a HelloRetryRequest; the handshake
    /// still completes over the memory buffers.
    func testHelloRetryRequestCompletes() throws {
        let host = try Side.host()
        let controller = try Side.controller()
        let client = Endpoint(
            try TLSConnection(
                role: .client(controllerCA: controller.fingerprint), credential: host.credential, now: testNow))
        let server = Endpoint(
            try TLSConnection(
                role: .server(.anyHost), chain: controller.credential.chain, key: controller.credential.leafKey,
                now: testNow, groups: "X448"))
        try client.connection.start()
        // The server's first answer is a HelloRetryRequest: the client sends a second ClientHello, not Finished.
        _ = try server.connection.receive(client.connection.takeOutgoing())
        XCTAssertEqual(try client.connection.receive(server.connection.takeOutgoing()), [])
        pump(client, server)
        XCTAssertNil(client.error)
        XCTAssertNil(server.error)
        XCTAssertEqual(client.sessionInfo?.keyExchangeGroup, "X448")
        XCTAssertEqual(client.sessionInfo?.tlsUnique, server.sessionInfo?.tlsUnique)
    }

    func testHandshakeFedOneByteAtATime() throws {
        var bytes = Fixed(size: 1)
        let pair = try Pair(host: try .host(), controller: try .controller(), split: &bytes)
        XCTAssertNil(pair.client.error)
        XCTAssertNil(pair.server.error)
        XCTAssertEqual(pair.client.sessionInfo?.tlsUnique, pair.server.sessionInfo?.tlsUnique)
    }

    func testApplicationDataBothWaysInOddPieces() throws {
        var generator = SplitMix64(seed: 7)
        let toServer = generator.bytes(100_000)
        let toClient = generator.bytes(100_000)
        let splits: [any PieceSizes] = [
            Fixed(size: 1), RandomPieces(seed: 1, range: 1...17), RandomPieces(seed: 2, range: 1...5000), Whole(),
        ]
        for var split in splits {
            let pair = try Pair()
            // Written in odd-sized pieces too, so records have many sizes.
            var sendPieces = RandomPieces(seed: 3, range: 1...40_000)
            try sendInPieces(toServer, pair.client.connection, &sendPieces)
            try sendInPieces(toClient, pair.server.connection, &sendPieces)
            pump(pair.client, pair.server, split: &split)
            XCTAssertNil(pair.client.error)
            XCTAssertNil(pair.server.error)
            XCTAssertEqual(pair.server.receivedData, toServer, "\(split)")
            XCTAssertEqual(pair.client.receivedData, toClient, "\(split)")
        }
    }

    private func sendInPieces(_ data: [UInt8], _ connection: TLSConnection, _ pieces: inout RandomPieces) throws {
        var offset = 0
        while offset < data.count {
            let n = min(pieces.next(), data.count - offset)
            try connection.send(Array(data[offset..<offset + n]))
            offset += n
        }
    }

    /// xrcp.md §20.17: bytes that arrive in the same read as the final handshake flight are delivered.
    func testDataGluedToTheFinalFlightIsDelivered() throws {
        let host = try Side.host()
        let controller = try Side.controller()
        let client = try TLSConnection(
            role: .client(controllerCA: controller.fingerprint), credential: host.credential, now: testNow)
        let server = try TLSConnection(role: .server(.anyHost), credential: controller.credential, now: testNow)
        try client.start()
        XCTAssertEqual(try server.receive(client.takeOutgoing()), [])
        let clientEvents = try client.receive(server.takeOutgoing())
        let clientInfo = try XCTUnwrap(clientEvents.first.flatMap { if case .handshakeCompleted(let i) = $0 { i } else { nil } })
        XCTAssertEqual(clientEvents.count, 1)

        // Certificate, CertificateVerify, Finished, a 16384-byte block and more, then close_notify: one write.
        let block = [UInt8](repeating: 0x23, count: 16384)
        let more: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        try client.send(block)
        try client.send(more)
        client.close()
        let flight = client.takeOutgoing()
        let events = try server.receive(flight)
        XCTAssertEqual(events.count, 3)
        guard events.count == 3, case .handshakeCompleted(let serverInfo) = events[0] else {
            return XCTFail("\(events)")
        }
        XCTAssertEqual(serverInfo.tlsUnique, clientInfo.tlsUnique)
        XCTAssertEqual(events[1], .applicationData(block + more))
        XCTAssertEqual(events[2], .closed)
        // The server answers close_notify with its own.
        XCTAssertEqual(try client.receive(server.takeOutgoing()), [.closed])
    }

    func testSameFlightFedInPiecesStillDeliversEverything() throws {
        let host = try Side.host()
        let controller = try Side.controller()
        let client = try TLSConnection(
            role: .client(controllerCA: controller.fingerprint), credential: host.credential, now: testNow)
        let server = Endpoint(try TLSConnection(role: .server(.anyHost), credential: controller.credential, now: testNow))
        try client.start()
        _ = try server.connection.receive(client.takeOutgoing())
        _ = try client.receive(server.connection.takeOutgoing())
        let data = SplitMix64(seed: 9).bytesCopy(50_000)
        try client.send(data)
        var pieces = RandomPieces(seed: 11, range: 1...300)
        server.feed(client.takeOutgoing(), split: &pieces)
        XCTAssertNil(server.error)
        XCTAssertNotNil(server.sessionInfo)
        XCTAssertEqual(server.receivedData, data)
    }

    func testCloseNotifyBothWays() throws {
        let pair = try Pair()
        try pair.server.connection.send([1, 2, 3])
        pair.server.connection.close()
        XCTAssertFalse(pair.server.connection.isEstablished)
        XCTAssertThrowsError(try pair.server.connection.send([4])) { error in
            XCTAssertEqual(error as? TLSError, .invalidState("send after close"))
        }
        pump(pair.client, pair.server)
        XCTAssertEqual(pair.client.events.dropFirst(), [.applicationData([1, 2, 3]), .closed])
        // The client answered; the server still reads until then.
        XCTAssertEqual(pair.server.events.dropFirst(), [.closed])
        XCTAssertEqual(try pair.client.connection.receive([0x17, 3, 3, 0, 1, 0]), [])
        XCTAssertThrowsError(try pair.client.connection.send([5]))
        // Closing twice queues nothing more.
        pair.server.connection.close()
        XCTAssertEqual(pair.server.connection.takeOutgoing(), [])
    }

    func testSendBeforeHandshakeIsInvalidState() throws {
        let controller = try Side.controller()
        let server = try TLSConnection(role: .server(.anyHost), credential: controller.credential, now: testNow)
        XCTAssertThrowsError(try server.send([1])) { error in
            XCTAssertEqual(error as? TLSError, .invalidState("send before the handshake completed"))
        }
        // A server's start waits for the ClientHello.
        try server.start()
        XCTAssertEqual(server.takeOutgoing(), [])
        server.close()
        XCTAssertEqual(try server.receive([1, 2, 3]), [])
    }

    func testServerSendsNoSessionTickets() throws {
        let host = try Side.host()
        let controller = try Side.controller()
        let client = try TLSConnection(
            role: .client(controllerCA: controller.fingerprint), credential: host.credential, now: testNow)
        let server = try TLSConnection(role: .server(.anyHost), credential: controller.credential, now: testNow)
        try client.start()
        _ = try server.receive(client.takeOutgoing())
        _ = try client.receive(server.takeOutgoing())
        XCTAssertEqual(try server.receive(client.takeOutgoing()).count, 1)
        // With tickets, OpenSSL would queue NewSessionTicket messages here (xrcp.md §4.1).
        XCTAssertEqual(server.takeOutgoing(), [])
    }
}

extension SplitMix64 {
    func bytesCopy(_ count: Int) -> [UInt8] {
        var copy = self
        return copy.bytes(count)
    }
}
