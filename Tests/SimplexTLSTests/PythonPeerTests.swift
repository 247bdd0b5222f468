import Foundation
import SimplexCrypto
import SimplexEncoding
import SimplexTLS
import XCTest

/// Our connection against Python's `ssl` module (CPython over OpenSSL, not our code) over TCP on 127.0.0.1, with
/// scripts/fixtures/tls_peer.py. A missing Python fails these tests.
final class PythonPeerTests: XCTestCase {
    /// Our client (XRCP host) against a Python server (controller) that requires a client certificate.
    func testOurClientAgainstPythonServer() throws {
        let host = try Side.host()
        let controller = try Side.controller()
        let files = try PythonPeer.writePEM(controller.credential)
        defer { try? FileManager.default.removeItem(atPath: files.folder) }
        let (process, lines) = try PythonPeer.start([
            "server", files.chain, files.key, Hex.encode(host.fingerprint.rawRepresentation),
        ])
        defer { if process.isRunning { process.terminate() } }
        let port = try XCTUnwrap(try lines.next()["port"] as? Int)
        let socket = try LoopbackSocket.connect(port: UInt16(port))

        let client = try TLSConnection(
            role: .client(controllerCA: controller.fingerprint), credential: host.credential, now: testNow)
        try client.start()
        try socket.write(client.takeOutgoing())
        var info: TLSSessionInfo?
        var received: [UInt8] = []
        while info == nil {
            let bytes = try socket.read()
            XCTAssertFalse(bytes.isEmpty, "Python closed during the handshake")
            if bytes.isEmpty { return }
            for event in try client.receive(bytes) {
                if case .handshakeCompleted(let i) = event { info = i }
                if case .applicationData(let data) = event { received += data }
            }
            try socket.write(client.takeOutgoing())
        }
        let session = try XCTUnwrap(info)

        // 100 KB in odd pieces, echoed back.
        var generator = SplitMix64(seed: 21)
        let payload = generator.bytes(100_000)
        var pieces = RandomPieces(seed: 22, range: 1...7000)
        var offset = 0
        while offset < payload.count {
            let n = min(pieces.next(), payload.count - offset)
            try client.send(Array(payload[offset..<offset + n]))
            try socket.write(client.takeOutgoing())
            offset += n
        }
        while received.count < payload.count {
            let bytes = try socket.read()
            if bytes.isEmpty { break }
            for case .applicationData(let data) in try client.receive(bytes) { received += data }
            try socket.write(client.takeOutgoing())
        }
        XCTAssertEqual(received, payload)
        client.close()
        try socket.write(client.takeOutgoing())
        var closed = false
        while !closed {
            let bytes = try socket.read()
            if bytes.isEmpty { break }
            closed = try client.receive(bytes).contains(.closed)
        }
        XCTAssertTrue(closed, "Python answered close_notify")

        let report = try lines.next()
        XCTAssertNil(report["error"])
        XCTAssertEqual(report["version"] as? String, "TLSv1.3")
        XCTAssertEqual(report["cipher"] as? String, "TLS_CHACHA20_POLY1305_SHA256")
        // CPython's tls-unique on a server is SSL_get_peer_finished: the client Finished, as ours (xrcp.md §4.5).
        XCTAssertEqual(report["tlsUnique"] as? String, Hex.encode(session.tlsUnique))
        // Python saw our [leaf, CA] and its own checks pass.
        XCTAssertEqual(report["peerChainLength"] as? Int, 2)
        XCTAssertEqual(report["peerChainDER"] as? [String], host.credential.chain.map { Hex.encode($0.derRepresentation) })
        XCTAssertEqual(report["pinMatches"] as? Bool, true)
        XCTAssertEqual(report["leafSignedByCA"] as? Bool, true)
        XCTAssertEqual(report["leafIssuerIsCASubject"] as? Bool, true)
        XCTAssertEqual(report["leafVersion"] as? String, "v3")
        let done = try lines.next()
        XCTAssertEqual(done["echoed"] as? Int, payload.count)
        XCTAssertEqual(session.peerChain, controller.credential.chain)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }

    /// A Python client (XRCP host) against our server (controller) pinning the Python side's CA.
    func testPythonClientAgainstOurServer() throws {
        let host = try Side.host()
        let controller = try Side.controller()
        let files = try PythonPeer.writePEM(host.credential)
        defer { try? FileManager.default.removeItem(atPath: files.folder) }
        let (listener, port) = try LoopbackSocket.listen()
        let size = 70_001
        let (process, lines) = try PythonPeer.start([
            "client", files.chain, files.key, Hex.encode(controller.fingerprint.rawRepresentation), String(port),
            String(size),
        ])
        defer { if process.isRunning { process.terminate() } }
        let socket = try listener.accept()
        let server = try TLSConnection(
            role: .server(.knownHost(host.fingerprint)), credential: controller.credential, now: testNow)
        var info: TLSSessionInfo?
        var echoed = 0
        var closed = false
        while !closed {
            let bytes = try socket.read()
            if bytes.isEmpty { break }
            for event in try server.receive(bytes) {
                switch event {
                case .handshakeCompleted(let i): info = i
                case .applicationData(let data):
                    try server.send(data)  // echo
                    echoed += data.count
                case .closed: closed = true
                }
            }
            try socket.write(server.takeOutgoing())
        }
        XCTAssertTrue(closed)
        XCTAssertEqual(echoed, size)
        let session = try XCTUnwrap(info)
        XCTAssertEqual(session.peerChain, host.credential.chain)
        XCTAssertEqual(session.peerCAFingerprint, host.fingerprint)

        let report = try lines.next()
        XCTAssertNil(report["error"])
        XCTAssertEqual(report["version"] as? String, "TLSv1.3")
        XCTAssertEqual(report["cipher"] as? String, "TLS_CHACHA20_POLY1305_SHA256")
        // CPython's tls-unique on a client is SSL_get_finished: again the client Finished.
        XCTAssertEqual(report["tlsUnique"] as? String, Hex.encode(session.tlsUnique))
        XCTAssertEqual(report["peerChainLength"] as? Int, 2)
        XCTAssertEqual(report["pinMatches"] as? Bool, true)
        XCTAssertEqual(report["leafSignedByCA"] as? Bool, true)
        XCTAssertEqual(try lines.next()["echoMatches"] as? Bool, true)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }

    /// Our client refuses a Python server whose CA is not the invitation's; Python sees the unknown_ca alert.
    func testOurClientRefusesPythonServerWithAnotherCA() throws {
        let host = try Side.host()
        let controller = try Side.controller()
        let invited = try Side.controller()
        let files = try PythonPeer.writePEM(controller.credential)
        defer { try? FileManager.default.removeItem(atPath: files.folder) }
        let (process, lines) = try PythonPeer.start([
            "server", files.chain, files.key, Hex.encode(host.fingerprint.rawRepresentation),
        ])
        defer { if process.isRunning { process.terminate() } }
        let port = try XCTUnwrap(try lines.next()["port"] as? Int)
        let socket = try LoopbackSocket.connect(port: UInt16(port))
        let client = try TLSConnection(
            role: .client(controllerCA: invited.fingerprint), credential: host.credential, now: testNow)
        try client.start()
        try socket.write(client.takeOutgoing())
        var failure: TLSError?
        while failure == nil {
            let bytes = try socket.read()
            if bytes.isEmpty { break }
            do {
                _ = try client.receive(bytes)
            } catch {
                failure = error
            }
            try socket.write(client.takeOutgoing())  // the alert, after a failure
        }
        XCTAssertEqual(failure, .identity(expected: invited.fingerprint, presented: controller.fingerprint))
        let report = try lines.next()
        XCTAssertTrue((report["error"] as? String ?? "").contains("UNKNOWN_CA"), "\(report)")
        process.waitUntilExit()
    }
}
