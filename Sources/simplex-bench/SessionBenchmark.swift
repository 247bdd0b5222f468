import Foundation
import RemoteChat
import SimplexCrypto
import SimplexNet
import SimplexTLS
import XRCP

/// Session set-up split into TLS, KEM and HELLO, beside the same operations alone; and the round trip of a `send`
/// through a session on loopback beside a plain TLS echo on loopback plus the request's crypto. All in one run.
enum SessionBenchmark {
    struct Canned: RemoteHostHandler {
        func execute(command: String, retryNumber: Int64) async -> [UInt8] {
            Array(#"{"result":{"type":"versionInfo","versionInfo":{"version":"6.5.0.13"}}}"#.utf8)
        }
        func nextEvent(waitMicroseconds: Int64) async -> [UInt8]? { nil }
        func beginStoring(fileName: String, fileSize: UInt32) async throws(RemoteProtocolError) -> any RemoteFileSink {
            throw .invalidBody("none")
        }
        func openFile(_ file: RemoteFile) async throws(RemoteFileError) -> any RemoteFileSource { throw .protocolError(.noFile) }
    }

    static let now: Int64 = 1_780_000_000

    static func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

    static func ms(_ s: Double) -> String { String(format: "%8.3f ms", s * 1000) }

    /// In memory: time to the session code (TLS), then from /verify to established (HELLO blocks, KEM, key schedule).
    /// Returns HELLO to established over its KEM operations (the goal is at most 1.2).
    @discardableResult
    static func setup(rounds: Int) throws -> Double {
        var tlsTimes: [Double] = []
        var helloTimes: [Double] = []
        var kemTimes: [Double] = []
        var tlsAlone: [Double] = []
        for _ in 0..<rounds {
            let controllerCA = try CertificateAuthority.generate(now: now, hoursBefore: 25)
            let hostCA = try CertificateAuthority.generate(now: now, hoursBefore: 1)
            let controller = try ControllerSession(
                ControllerSessionSetup(
                    authority: controllerCA, identityKey: Ed25519.PrivateKey(), app: ControllerAppInfo(deviceName: "bench"),
                    host: "127.0.0.1", port: 1, now: now))
            let kemStart = clock()
            let kem = SNTRUP761.KeyPair()
            let kemKeypair = clock() - kemStart
            let host = try HostSession(
                HostSessionSetup(
                    invitation: try controller.invitation.verified(), authority: hostCA, kem: kem,
                    app: HostAppInfo(appVersion: .current, deviceName: "bench"), now: now))
            var t = clock()
            var code: String?
            while code == nil {
                let a = host.takeOutgoing()
                for e in try controller.receive(a) { if case .sessionCode(let c) = e { code = c } }
                _ = try host.receive(controller.takeOutgoing())
            }
            tlsTimes.append(clock() - t)
            t = clock()
            try host.verify(code: code ?? "")
            var established = false
            while !established {
                for e in try controller.receive(host.takeOutgoing()) { if case .established = e { established = true } }
                _ = try host.receive(controller.takeOutgoing())
            }
            // The HELLO phase includes the host's KEM key pair, made before the session here.
            helloTimes.append(clock() - t + kemKeypair)
            let encStart = clock()
            let (ct, _) = kem.publicKey.encapsulate()
            _ = kem.secretKey.decapsulate(ct)
            kemTimes.append(kemKeypair + clock() - encStart)

            // A bare TLS handshake with the same credentials, in memory.
            let server = try TLSConnection(role: .server(.anyHost), credential: try controllerCA.issueLeaf(now: now), now: now)
            let client = try TLSConnection(
                role: .client(controllerCA: controllerCA.certificate.fingerprint), credential: try hostCA.issueLeaf(now: now),
                now: now)
            t = clock()
            try client.start()
            while !(client.isEstablished && server.isEstablished) {
                _ = try server.receive(client.takeOutgoing())
                _ = try client.receive(server.takeOutgoing())
            }
            tlsAlone.append(clock() - t)
        }
        print("session set-up, median of \(rounds) (in memory):")
        print(
            "  TLS to session code      \(ms(median(tlsTimes)))   TLS handshake alone  \(ms(median(tlsAlone)))   ratio \(String(format: "%.2f", median(tlsTimes) / median(tlsAlone)))x"
        )
        print(
            "  HELLO to established     \(ms(median(helloTimes)))   KEM ops alone        \(ms(median(kemTimes)))   ratio \(String(format: "%.2f", median(helloTimes) / median(kemTimes)))x"
        )
        return median(helloTimes) / median(kemTimes)
    }

    /// Over loopback TCP: a session's `send /v` round trip, and a TLS echo of the same size plus the request's crypto.
    /// Returns the session's round trip over TLS echo plus the request's crypto (the goal is at most 1.15).
    @discardableResult
    static func roundTrip(requests: Int) async throws -> Double {
        let listener = try TCPListener(address: "127.0.0.1")
        let controllerCA = try CertificateAuthority.generate(now: now, hoursBefore: 25)
        let controller = try ControllerSession(
            ControllerSessionSetup(
                authority: controllerCA, identityKey: Ed25519.PrivateKey(), app: ControllerAppInfo(deviceName: "bench"),
                host: "127.0.0.1", port: listener.endpoint.port, now: now))
        let codes = CodeBox()
        let connection = try HostConnection(
            setup: HostSessionSetup(
                invitation: try controller.invitation.verified(),
                authority: try CertificateAuthority.generate(now: now, hoursBefore: 1),
                app: HostAppInfo(appVersion: .current, deviceName: "bench"), now: now),
            handler: Canned()
        ) { if case .sessionCode(let c) = $0 { codes.set(c) } }
        guard let socket = try listener.accept(timeout: 5) else { throw NetError.timedOut }
        await connection.run()
        func pumpUntil(_ done: ([ControllerSessionEvent]) -> Bool) throws -> [ControllerSessionEvent] {
            var all: [ControllerSessionEvent] = []
            while true {
                let out = controller.takeOutgoing()
                if !out.isEmpty { try socket.write(out) }
                let bytes = try socket.read(timeout: 5)
                all += try controller.receive(bytes)
                if done(all) { return all }
            }
        }
        _ = try pumpUntil { $0.contains { if case .sessionCode = $0 { true } else { false } } }
        while codes.value == nil { try await Task.sleep(nanoseconds: 1_000_000) }
        try await connection.verify(code: codes.value ?? "")
        _ = try pumpUntil { $0.contains { if case .established = $0 { true } else { false } } }
        var rtts: [Double] = []
        for _ in 0..<requests {
            let t = clock()
            let stream = try controller.request(.send(command: "/v", retryNumber: 0))
            _ = try pumpUntil { $0.contains { if case .response(let s, _) = $0 { s == stream } else { false } } }
            rtts.append(clock() - t)
        }
        await connection.stop()

        // Baseline: TLS echo of a request-sized record over loopback, plus seal/open of one request and one response.
        let echoListener = try TCPListener(address: "127.0.0.1")
        let ca = try CertificateAuthority.generate(now: now, hoursBefore: 1)
        let server = try TLSConnection(role: .server(.anyHost), credential: try ca.issueLeaf(now: now), now: now)
        let client = try TLSConnection(
            role: .client(controllerCA: ca.certificate.fingerprint), credential: try ca.issueLeaf(now: now), now: now)
        let clientSocket = try TCPConnection.connect(to: echoListener.endpoint, timeout: 2)
        guard let serverSocket = try echoListener.accept(timeout: 2) else { throw NetError.timedOut }
        let owned = OwnedByThread(server)
        let echo = Thread {
            let server = owned.value
            while let bytes = try? serverSocket.read() {
                guard let events = try? server.receive(bytes) else { return }
                for case .applicationData(let d) in events { try? server.send(d) }
                try? serverSocket.write(server.takeOutgoing())
            }
        }
        echo.start()
        try client.start()
        while !client.isEstablished {
            try clientSocket.write(client.takeOutgoing())
            _ = try client.receive(try clientSocket.read(timeout: 5))
        }
        try clientSocket.write(client.takeOutgoing())
        let payload = [UInt8](repeating: 0x41, count: 300)
        var echoes: [Double] = []
        for _ in 0..<requests {
            let t = clock()
            try client.send(payload)
            try clientSocket.write(client.takeOutgoing())
            var got = 0
            while got < payload.count {
                for case .applicationData(let d) in try client.receive(try clientSocket.read(timeout: 5)) { got += d.count }
            }
            echoes.append(clock() - t)
        }
        clientSocket.shutdown()
        let crypto = try requestCrypto(rounds: requests)
        let base = median(echoes) + crypto
        print("round trip of `send /v`, median of \(requests) (loopback TCP):")
        print(
            "  through the session      \(ms(median(rtts)))   TLS echo + request crypto \(ms(base))   ratio \(String(format: "%.2f", median(rtts) / base))x"
        )
        print("    (TLS echo alone \(ms(median(echoes))), request and response crypto \(ms(crypto)))")
        return median(rtts) / base
    }

    /// Seal and open of one request (signed) and one response, as the two sides do per `send`.
    static func requestCrypto(rounds: Int) throws -> Double {
        let dh = try X25519.PrivateKey().sharedSecret(with: X25519.PrivateKey().publicKey)
        let kem = try SNTRUP761.SharedSecret(rawRepresentation: SecureRandom.bytes(32))
        let keys = SessionKeys(dh: dh, kem: kem)
        let code = SecureRandom.bytes(32)
        let sk = Ed25519.PrivateKey()
        let ik = Ed25519.PrivateKey()
        var c = RemoteCrypto.controller(keys: keys, sessionCode: code, compression: true, sessionKey: sk, identityKey: ik)
        var h = RemoteCrypto.host(
            keys: keys, sessionCode: code, compression: true, sessionKey: sk.publicKey, identityKey: ik.publicKey)
        let request = Array(RemoteCommand.send(command: "/v", retryNumber: 0).json.rendered.utf8)
        let response = RemoteResponse.chatResponse(
            rawJSON: Array(#"{"result":{"type":"versionInfo","versionInfo":{"version":"6.5.0.13"}}}"#.utf8)
        ).encoded
        var times: [Double] = []
        for _ in 0..<rounds {
            let t = clock()
            _ = try h.open(try c.seal(json: request).body)
            _ = try c.open(try h.seal(json: response).body)
            times.append(clock() - t)
        }
        return median(times)
    }

    static func clock() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// A value handed to one thread that alone uses it from then on.
    final class OwnedByThread<T>: @unchecked Sendable {
        let value: T
        init(_ value: T) { self.value = value }
    }

    final class CodeBox: @unchecked Sendable {
        private let lock = NSLock()
        private var code: String?
        var value: String? { lock.withLock { code } }
        func set(_ c: String) { lock.withLock { code = c } }
    }
}
