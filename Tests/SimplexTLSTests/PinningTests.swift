import SimplexCrypto
import XCTest

@testable import SimplexTLS

/// The peer checks of xrcp.md §4.2 and §4.3 (pin, [leaf, CA], leaf→CA signature, dates), each refused with its own
/// error, and the alert the refused side receives.
final class PinningTests: XCTestCase {
    /// Runs a handshake where the client presents `clientChain` and the server `serverChain` (each leaf first,
    /// with `key` the leaf's key).
    private func handshake(
        client clientChain: [Certificate], clientKey: Ed25519.PrivateKey, pin: CertificateFingerprint,
        server serverChain: [Certificate], serverKey: Ed25519.PrivateKey, serverPin: HostPin = .anyHost,
        clientNow: Int64 = testNow, serverNow: Int64 = testNow
    ) throws -> (client: Endpoint, server: Endpoint) {
        let client = Endpoint(
            try TLSConnection(role: .client(controllerCA: pin), chain: clientChain, key: clientKey, now: clientNow))
        let server = Endpoint(
            try TLSConnection(role: .server(serverPin), chain: serverChain, key: serverKey, now: serverNow))
        try client.connection.start()
        pump(client, server)
        return (client, server)
    }

    private func handshake(
        host: Side, controller: Side, pin: CertificateFingerprint? = nil, serverPin: HostPin = .anyHost,
        clientNow: Int64 = testNow, serverNow: Int64 = testNow
    ) throws -> (client: Endpoint, server: Endpoint) {
        try handshake(
            client: host.credential.chain, clientKey: host.credential.leafKey, pin: pin ?? controller.fingerprint,
            server: controller.credential.chain, serverKey: controller.credential.leafKey, serverPin: serverPin,
            clientNow: clientNow, serverNow: serverNow)
    }

    // MARK: The host (client) checks the controller

    func testClientRefusesWrongControllerFingerprint() throws {
        let controller = try Side.controller()
        let other = try Side.controller()
        let (client, server) = try handshake(host: try .host(), controller: controller, pin: other.fingerprint)
        XCTAssertEqual(client.error, .identity(expected: other.fingerprint, presented: controller.fingerprint))
        XCTAssertNil(client.sessionInfo)
        // The controller gets unknown_ca, as from the reference host (xrcp.md §4.3 step 2).
        XCTAssertEqual(server.error, .alertReceived(.unknownCA))
        XCTAssertNil(server.sessionInfo)
        // A failed connection keeps failing with the same error.
        XCTAssertThrowsError(try client.connection.receive([0])) { error in
            XCTAssertEqual(error as? TLSError, client.error)
        }
        XCTAssertThrowsError(try client.connection.send([0]))
    }

    func testClientRefusesLeafOnlyChain() throws {
        let controller = try Side.controller()
        let host = try Side.host()
        let (client, server) = try handshake(
            client: host.credential.chain, clientKey: host.credential.leafKey, pin: controller.fingerprint,
            server: [controller.credential.leaf], serverKey: controller.credential.leafKey)
        XCTAssertEqual(client.error, .certificateChain(.certificateCount(1)))
        XCTAssertEqual(server.error, .alertReceived(.unknownCA))
    }

    func testClientRefusesThreeCertificateChain() throws {
        let controller = try Side.controller()
        let host = try Side.host()
        let (client, server) = try handshake(
            client: host.credential.chain, clientKey: host.credential.leafKey, pin: controller.fingerprint,
            server: controller.credential.chain + [controller.authority.certificate],
            serverKey: controller.credential.leafKey)
        XCTAssertEqual(client.error, .certificateChain(.certificateCount(3)))
        XCTAssertEqual(server.error, .alertReceived(.unknownCA))
    }

    func testClientRefusesLeafNotSignedByPresentedCA() throws {
        let controller = try Side.controller()
        let stranger = try Side.controller()
        let host = try Side.host()
        // The pinned CA, but a leaf another CA (with the same subject "ca") signed.
        let (client, server) = try handshake(
            client: host.credential.chain, clientKey: host.credential.leafKey, pin: controller.fingerprint,
            server: [stranger.credential.leaf, controller.authority.certificate],
            serverKey: stranger.credential.leafKey)
        XCTAssertEqual(client.error, .certificateChain(.leafSignature))
        XCTAssertEqual(server.error, .alertReceived(.decryptError))
    }

    /// xrcp.md §4.3, §20.20: a controller whose clock is more than an hour ahead of the host's.
    func testClientRefusesLeafNotYetValid() throws {
        let controller = try Side.controller(now: testNow + 2 * 3600)
        let (client, server) = try handshake(host: try .host(), controller: controller)
        XCTAssertEqual(client.error, .certificateChain(.leafNotYetValid))
        XCTAssertEqual(server.error, .alertReceived(.badCertificate))
        // Within the hour of slack it is accepted.
        let slightlyAhead = try Side.controller(now: testNow + 3000)
        let (accepted, _) = try handshake(host: try .host(), controller: slightlyAhead)
        XCTAssertNil(accepted.error)
        XCTAssertNotNil(accepted.sessionInfo)
    }

    func testClientRefusesExpiredLeaf() throws {
        let controller = try Side.controller()
        let key = Ed25519.PrivateKey()
        let expired = try Certificate.make(
            commonName: "localhost", publicKey: key.publicKey, issuer: controller.authority.certificate,
            signingKey: controller.authority.key, notBefore: testNow - 7200, notAfter: testNow - 3600)
        let host = try Side.host()
        let (client, server) = try handshake(
            client: host.credential.chain, clientKey: host.credential.leafKey, pin: controller.fingerprint,
            server: [expired, controller.authority.certificate], serverKey: key)
        XCTAssertEqual(client.error, .certificateChain(.leafExpired))
        XCTAssertEqual(server.error, .alertReceived(.certificateExpired))
    }

    func testClientRefusesLeafWhoseIssuerIsNotTheCA() throws {
        let controller = try Side.controller()
        // Signed by the CA's key, but naming another issuer.
        let otherName = try Certificate.make(
            commonName: "not-ca", publicKey: controller.authority.key.publicKey, issuer: nil,
            signingKey: controller.authority.key, notBefore: testNow - 3600, notAfter: testNow + 3600)
        let key = Ed25519.PrivateKey()
        let leaf = try Certificate.make(
            commonName: "localhost", publicKey: key.publicKey, issuer: otherName, signingKey: controller.authority.key,
            notBefore: testNow - 3600, notAfter: testNow + 3600)
        XCTAssertTrue(leaf.isSigned(by: controller.authority.certificate))
        let host = try Side.host()
        let (client, server) = try handshake(
            client: host.credential.chain, clientKey: host.credential.leafKey, pin: controller.fingerprint,
            server: [leaf, controller.authority.certificate], serverKey: key)
        XCTAssertEqual(client.error, .certificateChain(.issuerMismatch))
        XCTAssertEqual(server.error, .alertReceived(.badCertificate))
    }

    // MARK: The controller (server) checks the host

    func testServerRefusesAnotherHostsCA() throws {
        let known = try Side.host()
        let impostor = try Side.host()
        let (client, server) = try handshake(
            host: impostor, controller: try .controller(), serverPin: .knownHost(known.fingerprint))
        XCTAssertEqual(server.error, .identity(expected: known.fingerprint, presented: impostor.fingerprint))
        XCTAssertNil(server.sessionInfo)
        // TLS 1.3: the client finished first, then learns of the refusal from the alert (xrcp.md §16.5 identity).
        XCTAssertNotNil(client.sessionInfo)
        XCTAssertEqual(client.error, .alertReceived(.unknownCA))
    }

    /// xrcp.md §4.2: the client certificate is required.
    func testServerRefusesClientWithoutCertificate() throws {
        let controller = try Side.controller()
        let client = Endpoint(
            try TLSConnection(role: .client(controllerCA: controller.fingerprint), chain: [], key: nil, now: testNow))
        let server = Endpoint(try TLSConnection(role: .server(.anyHost), credential: controller.credential, now: testNow))
        try client.connection.start()
        pump(client, server)
        XCTAssertEqual(server.error, .certificateChain(.certificateCount(0)))
        XCTAssertEqual(client.error, .alertReceived(.certificateRequired))
    }

    func testServerRefusesLeafOnlyChain() throws {
        let controller = try Side.controller()
        let host = try Side.host()
        let (client, server) = try handshake(
            client: [host.credential.leaf], clientKey: host.credential.leafKey, pin: controller.fingerprint,
            server: controller.credential.chain, serverKey: controller.credential.leafKey)
        XCTAssertEqual(server.error, .certificateChain(.certificateCount(1)))
        XCTAssertEqual(client.error, .alertReceived(.unknownCA))
    }

    func testServerRefusesLeafNotSignedByPresentedCA() throws {
        let controller = try Side.controller()
        let host = try Side.host()
        let stranger = try Side.host()
        let (client, server) = try handshake(
            client: [stranger.credential.leaf, host.authority.certificate], clientKey: stranger.credential.leafKey,
            pin: controller.fingerprint, server: controller.credential.chain, serverKey: controller.credential.leafKey,
            serverPin: .knownHost(host.fingerprint))
        XCTAssertEqual(server.error, .certificateChain(.leafSignature))
        XCTAssertEqual(client.error, .alertReceived(.decryptError))
    }

    func testServerRefusesLeafNotYetValid() throws {
        let (client, server) = try handshake(
            host: try .host(now: testNow + 2 * 3600), controller: try .controller(), serverNow: testNow)
        XCTAssertEqual(server.error, .certificateChain(.leafNotYetValid))
        XCTAssertEqual(client.error, .alertReceived(.badCertificate))
    }

    // MARK: The policy alone

    func testPolicyOrderPinBeforeChainDetails() throws {
        let controller = try Side.controller()
        let other = try Side.controller()
        let policy = PeerChainPolicy(role: .client(controllerCA: other.fingerprint), now: testNow)
        // A pin mismatch is reported as identity even when the leaf would also fail.
        let chain = [other.credential.leaf, controller.authority.certificate]
        XCTAssertEqual(policy.check(chain), .failure(.identity(expected: other.fingerprint, presented: controller.fingerprint)))
        // The count comes first of all.
        XCTAssertEqual(policy.check([]), .failure(.certificateChain(.certificateCount(0))))
        XCTAssertEqual(policy.check(chain + chain), .failure(.certificateChain(.certificateCount(4))))
        // The same chain with the right pin fails on the signature instead.
        let pinned = PeerChainPolicy(role: .client(controllerCA: controller.fingerprint), now: testNow)
        XCTAssertEqual(pinned.check(chain), .failure(.certificateChain(.leafSignature)))
        let anyHost = PeerChainPolicy(role: .server(.anyHost), now: testNow)
        XCTAssertEqual(anyHost.check(controller.credential.chain), .success(controller.fingerprint))
    }
}
