import Foundation
import SimplexCrypto
import SimplexEncoding
import SimplexTLS
import XCTest

/// The SMP TLS profile (smp.md §2.1–§2.3) against Python's `ssl` (CPython over OpenSSL, not our code) over TCP on
/// 127.0.0.1, with scripts/fixtures/smp_tls_peer.py restricted to the profile's suite, groups and signature
/// schemes. Python's `get_channel_binding("tls-unique")` is the client Finished on both sides for TLS 1.3 — the
/// reference's session id. A missing Python fails these tests.
final class PythonSMPPeerTests: XCTestCase {
    private static let script = "scripts/fixtures/smp_tls_peer.py"

    /// Runs our client's handshake over `socket`; the session, or the error it failed with.
    private func clientHandshake(_ client: SMPTLSConnection, _ socket: LoopbackSocket) throws -> Result<
        SMPTLSSession, TLSError
    > {
        try client.start()
        try socket.write(client.takeOutgoing())
        while true {
            let bytes = try socket.read()
            guard !bytes.isEmpty else { throw PythonPeer.Failure("Python closed during the handshake") }
            let events: [SMPTLSEvent]
            do {
                events = try client.receive(bytes)
            } catch {
                try socket.write(client.takeOutgoing())  // the alert or close_notify
                return .failure(error)
            }
            try socket.write(client.takeOutgoing())
            for case .handshakeCompleted(let session) in events { return .success(session) }
        }
    }

    /// Our client against a Python SMP server, for every chain length and key type: the suite, `smp/1`, the
    /// session id, the chain as presented, no SNI, and 40 KB echoed.
    func testOurClientAgainstPythonServer() throws {
        for algorithm in CertificateKeyAlgorithm.allCases {
            for length in ServerChainLength.allCases {
                let label = "\(algorithm) \(length.rawValue)"
                let credential = try ServerCredential.generate(algorithm: algorithm, length: length, now: testNow)
                let files = try PythonPeer.writePEM(credential)
                defer { try? FileManager.default.removeItem(atPath: files.folder) }
                let (process, lines) = try PythonPeer.start(["server", files.chain, files.key, "smp/1"], script: Self.script)
                defer { if process.isRunning { process.terminate() } }
                let port = try XCTUnwrap(try lines.next()["port"] as? Int, label)
                let socket = try LoopbackSocket.connect(port: UInt16(port))
                let client = try SMPTLSConnection(serverIdentity: credential.fingerprint, webPort: false, now: testNow)
                let session = try clientHandshake(client, socket).get()
                XCTAssertEqual(session.peerChain, credential.chain, label)
                XCTAssertEqual(session.applicationProtocol, .smp1, label)
                XCTAssertEqual(session.cipherSuite, "TLS_CHACHA20_POLY1305_SHA256", label)

                var generator = SplitMix64(seed: UInt64(length.rawValue))
                let payload = generator.bytes(40_000)
                try client.send(payload)
                try socket.write(client.takeOutgoing())
                var received: [UInt8] = []
                while received.count < payload.count {
                    let bytes = try socket.read()
                    if bytes.isEmpty { break }
                    for case .applicationData(let data) in try client.receive(bytes) { received += data }
                }
                XCTAssertEqual(received, payload, label)
                client.close()
                try socket.write(client.takeOutgoing())

                let report = try lines.next()
                XCTAssertNil(report["error"], label)
                XCTAssertEqual(report["version"] as? String, "TLSv1.3", label)
                XCTAssertEqual(report["cipher"] as? String, "TLS_CHACHA20_POLY1305_SHA256", label)
                XCTAssertEqual(report["alpn"] as? String, "smp/1", label)
                XCTAssertEqual(report["tlsUnique"] as? String, Hex.encode(session.sessionId), label)
                XCTAssertTrue(report["sni"] is NSNull, "our client sent SNI: \(report)")
                XCTAssertEqual(try lines.next()["echoed"] as? Int, payload.count, label)
                process.waitUntilExit()
            }
        }
    }

    /// A Python server that knows none of the protocols we offer answers without ALPN (CPython's choice, unlike
    /// the reference server's alert); our client refuses it after the handshake.
    func testOurClientRefusesPythonServerWithoutSharedProtocol() throws {
        let credential = try ServerCredential.generate(algorithm: .ed25519, length: .two, now: testNow)
        let files = try PythonPeer.writePEM(credential)
        defer { try? FileManager.default.removeItem(atPath: files.folder) }
        let (process, lines) = try PythonPeer.start(["server", files.chain, files.key, "h2"], script: Self.script)
        defer { if process.isRunning { process.terminate() } }
        let port = try XCTUnwrap(try lines.next()["port"] as? Int)
        let socket = try LoopbackSocket.connect(port: UInt16(port))
        let client = try SMPTLSConnection(serverIdentity: credential.fingerprint, webPort: false, now: testNow)
        XCTAssertEqual(try clientHandshake(client, socket), .failure(.noSharedApplicationProtocol(offered: [.smp1])))
        let report = try lines.next()
        XCTAssertTrue(report["alpn"] is NSNull, "\(report)")
        process.waitUntilExit()
    }

    /// Our client refuses a Python server whose identity is not the address's; Python sees the unknown_ca alert.
    func testOurClientRefusesPythonServerWithAnotherIdentity() throws {
        let credential = try ServerCredential.generate(algorithm: .ed448, length: .two, now: testNow)
        let other = try ServerCredential.generate(algorithm: .ed448, length: .two, now: testNow)
        let files = try PythonPeer.writePEM(credential)
        defer { try? FileManager.default.removeItem(atPath: files.folder) }
        let (process, lines) = try PythonPeer.start(["server", files.chain, files.key, "smp/1"], script: Self.script)
        defer { if process.isRunning { process.terminate() } }
        let port = try XCTUnwrap(try lines.next()["port"] as? Int)
        let socket = try LoopbackSocket.connect(port: UInt16(port))
        let client = try SMPTLSConnection(serverIdentity: other.fingerprint, webPort: false, now: testNow)
        XCTAssertEqual(
            try clientHandshake(client, socket),
            .failure(.identity(expected: other.fingerprint, presented: credential.fingerprint)))
        let report = try lines.next()
        XCTAssertTrue((report["error"] as? String ?? "").contains("UNKNOWN_CA"), "\(report)")
        process.waitUntilExit()
    }

    /// A Python client against our server, for every chain length and key type: Python checks our chain as
    /// smp.md §2.2 describes it and reports what `smp-server init`'s certificates carry.
    func testPythonClientAgainstOurServer() throws {
        for algorithm in CertificateKeyAlgorithm.allCases {
            for length in ServerChainLength.allCases {
                let label = "\(algorithm) \(length.rawValue)"
                let credential = try ServerCredential.generate(algorithm: algorithm, length: length, now: testNow)
                let (report, session) = try servePython(credential, offering: "smp/1")
                XCTAssertNil(report["error"], label)
                XCTAssertEqual(report["version"] as? String, "TLSv1.3", label)
                XCTAssertEqual(report["cipher"] as? String, "TLS_CHACHA20_POLY1305_SHA256", label)
                XCTAssertEqual(report["alpn"] as? String, "smp/1", label)
                XCTAssertEqual(report["tlsUnique"] as? String, Hex.encode(session.sessionId), label)
                XCTAssertEqual(session.applicationProtocol, .smp1, label)
                XCTAssertNil(session.serverName, label)

                XCTAssertEqual(report["chainLength"] as? Int, length.rawValue, label)
                XCTAssertEqual(report["chainDER"] as? [String], credential.chain.map { Hex.encode($0.derRepresentation) })
                XCTAssertEqual(report["identityMatches"] as? Bool, true, label)
                let links = length.rawValue - 1
                XCTAssertEqual(report["signedByNext"] as? [Bool], Array(repeating: true, count: links), label)
                XCTAssertEqual(report["issuedByNext"] as? [Bool], Array(repeating: true, count: links), label)
                XCTAssertEqual(report["authoritiesAreCA"] as? [Bool], Array(repeating: true, count: links), label)
                XCTAssertEqual(report["leafIsCA"] as? Bool, false, label)
                XCTAssertEqual(
                    report["leafKeyUsage"] as? [String: Bool],
                    ["digitalSignature": true, "nonRepudiation": true, "keyAgreement": true, "keyCertSign": false], label)
                XCTAssertEqual(report["leafExtendedKeyUsage"] as? [String], ["1.3.6.1.5.5.7.3.1"], label)  // serverAuth
                XCTAssertEqual(report["leafCommonName"] as? String, "127.0.0.1", label)
                XCTAssertEqual(report["leafVersion"] as? String, "v3", label)
                XCTAssertEqual(report["validityDays"] as? [Int], Array(repeating: 999_999, count: length.rawValue), label)
                let keyType = algorithm == .ed25519 ? "Ed25519PublicKey" : "Ed448PublicKey"
                XCTAssertEqual(
                    (report["keyAlgorithms"] as? [String])?.map { $0.hasSuffix(keyType) },
                    Array(repeating: true, count: length.rawValue),
                    label)
            }
        }
    }

    /// A Python client on a web port offers `http/1.1` (after `h2`, which we do not serve): our server selects it.
    func testPythonClientOfferingHTTPGetsHTTP11() throws {
        let credential = try ServerCredential.generate(algorithm: .ed25519, length: .two, now: testNow)
        let (report, session) = try servePython(credential, offering: "h2,http/1.1")
        XCTAssertEqual(report["alpn"] as? String, "http/1.1")
        XCTAssertEqual(session.applicationProtocol, .http11)
        XCTAssertEqual(report["tlsUnique"] as? String, Hex.encode(session.sessionId))
    }

    /// A client outside the profile (only AES-128-GCM, or only P-256) is refused by our server with OpenSSL's
    /// reason; Python receives the handshake_failure alert.
    func testOurServerRefusesClientsOutsideTheProfile() throws {
        let credential = try ServerCredential.generate(algorithm: .ed25519, length: .two, now: testNow)
        for (suites, groups, reason) in [
            ("TLS_AES_128_GCM_SHA256", "X25519:X448", "no shared cipher"),
            ("TLS_CHACHA20_POLY1305_SHA256", "P-256", "no suitable key share"),
        ] {
            let (listener, port) = try LoopbackSocket.listen()
            let (process, lines) = try PythonPeer.start(
                [
                    "client", String(port), Hex.encode(credential.fingerprint.rawRepresentation), "smp/1", "1", suites,
                    groups,
                ], script: Self.script)
            defer { if process.isRunning { process.terminate() } }
            let socket = try listener.accept()
            let server = try SMPTLSConnection(credential: credential)
            var failure: TLSError?
            while failure == nil {
                let bytes = try socket.read()
                if bytes.isEmpty { break }
                do { _ = try server.receive(bytes) } catch { failure = error }
                try socket.write(server.takeOutgoing())  // the alert, after a failure
            }
            guard case .handshake(let text) = failure else {
                return XCTFail("\(suites) \(groups): \(String(describing: failure))")
            }
            XCTAssertTrue(text.contains(reason), "\(suites) \(groups): \(text)")
            let report = try lines.next()
            XCTAssertTrue((report["error"] as? String ?? "").contains("HANDSHAKE_FAILURE"), "\(report)")
            process.waitUntilExit()
        }
    }

    /// A Python client offering only `h2`: our server refuses it as the reference does, with no_application_protocol.
    func testOurServerRefusesPythonClientWithoutSharedProtocol() throws {
        let credential = try ServerCredential.generate(algorithm: .ed448, length: .four, now: testNow)
        let (listener, port) = try LoopbackSocket.listen()
        let (process, lines) = try PythonPeer.start(
            ["client", String(port), Hex.encode(credential.fingerprint.rawRepresentation), "h2", "1"], script: Self.script)
        defer { if process.isRunning { process.terminate() } }
        let socket = try listener.accept()
        let server = try SMPTLSConnection(credential: credential)
        var failure: TLSError?
        while failure == nil {
            let bytes = try socket.read()
            if bytes.isEmpty { break }
            do { _ = try server.receive(bytes) } catch { failure = error }
            try socket.write(server.takeOutgoing())  // the alert
        }
        XCTAssertEqual(failure, .noSharedApplicationProtocol(offered: [try XCTUnwrap(ApplicationProtocol("h2"))]))
        let report = try lines.next()
        XCTAssertTrue((report["error"] as? String ?? "").contains("alert no application protocol"), "\(report)")
        process.waitUntilExit()
    }

    /// Serves one Python client offering `offering` with our server, echoing until its close_notify; Python's
    /// handshake report and our session.
    private func servePython(_ credential: ServerCredential, offering: String) throws -> ([String: Any], SMPTLSSession) {
        let (listener, port) = try LoopbackSocket.listen()
        let size = 30_001
        let (process, lines) = try PythonPeer.start(
            ["client", String(port), Hex.encode(credential.fingerprint.rawRepresentation), offering, String(size)],
            script: Self.script)
        defer { if process.isRunning { process.terminate() } }
        let socket = try listener.accept()
        let server = try SMPTLSConnection(credential: credential)
        var session: SMPTLSSession?
        var echoed = 0
        var closed = false
        while !closed {
            let bytes = try socket.read()
            if bytes.isEmpty { break }
            for event in try server.receive(bytes) {
                switch event {
                case .handshakeCompleted(let s): session = s
                case .applicationData(let data):
                    try server.send(data)
                    echoed += data.count
                case .closed: closed = true
                }
            }
            try socket.write(server.takeOutgoing())
        }
        XCTAssertTrue(closed)
        XCTAssertEqual(echoed, size)
        let report = try lines.next()
        XCTAssertEqual(try lines.next()["echoMatches"] as? Bool, true)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return (report, try XCTUnwrap(session))
    }
}
