import Foundation
import SMP
import SMPClient
import SimplexCrypto
import SimplexEncoding
import SimplexNet
import SimplexTLS
import TestSupport
import XCTest

/// The independent Python SMP server (Tests/Peers/smp_peer.py, written from smp.md alone) in its own process on
/// 127.0.0.1; END and DELD at once (`--end-interval 0`).
final class PythonSMPServer {
    let process = Process()
    let server: SMPServer
    let port: UInt16

    init(_ arguments: [String] = [], port: UInt16 = 0) throws {
        process.executableURL = URL(fileURLWithPath: try Python.interpreter())
        process.arguments =
            [Python.script("Tests/Peers/smp_peer.py"), "server", "--port", String(port), "--end-interval", "0", "--quiet"]
            + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        do {
            (self.server, self.port) = try Self.readAddress(output)
        } catch {
            // A failed initializer runs no deinit: the process is ended here.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw error
        }
    }

    /// The address line the server prints first.
    private static func readAddress(_ output: Pipe) throws -> (SMPServer, UInt16) {
        var line: [UInt8] = []
        while !line.contains(0x0a) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw PeerFailure("the Python SMP server exited before printing its address") }
            line += chunk
        }
        let json = try JSONSerialization.jsonObject(with: Data(line.prefix { $0 != 0x0a })) as? [String: Any]
        guard let address = json?["address"] as? String, let p = json?["port"] as? Int else {
            throw PeerFailure("no address in \(String(decoding: line, as: UTF8.self))")
        }
        // With --password the address carries it (smp.md §1.7); the password is given to NEW on its own.
        return (try SMPServerWithAuth(parsing: address).server, UInt16(p))
    }

    deinit { stop() }

    /// SIGKILL: the test process may pass a signal mask that blocks SIGTERM on to its children, and the server
    /// has nothing to save.
    func stop() {
        if process.isRunning {
            signal(SIGKILL)
            process.waitUntilExit()
        }
    }

    func signal(_ s: Int32) { kill(process.processIdentifier, s) }

    func killNow() {
        signal(SIGKILL)
        process.waitUntilExit()
    }
}

/// The events of a subscription as they arrive, for tests to wait on.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [SMPQueueEvent] = []
    private var ended = false

    init(_ stream: AsyncStream<SMPQueueEvent>) {
        Task {
            for await e in stream {
                lock.withLock { events.append(e) }
            }
            lock.withLock { ended = true }
        }
    }

    var all: [SMPQueueEvent] { lock.withLock { events } }
    var isEnded: Bool { lock.withLock { ended } }

    /// Waits until `count` events arrived (or `timeout` seconds passed) and returns them all.
    func wait(for count: Int, timeout: Double = 10) async -> [SMPQueueEvent] {
        let deadline = Date().addingTimeInterval(timeout)
        while all.count < count, Date() < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        return all
    }

    func waitForEnd(timeout: Double = 10) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !isEnded, Date() < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        return isEnded
    }

    /// The messages among the events.
    var messages: [SMPMessage] { all.compactMap { if case .message(let m) = $0 { m } else { nil } } }
}

extension SMPClientError {
    var code: SMPErrorType? {
        if case .server(let e) = self { return e }
        return nil
    }
}

/// The error an async call throws, or nil.
func failure(_ body: () async throws(SMPClientError) -> Void) async -> SMPClientError? {
    do throws(SMPClientError) {
        try await body()
        return nil
    } catch {
        return error
    }
}

/// Our client against the independent Python server (smp.md §2–§3.8), over TCP and TLS on 127.0.0.1.
final class PythonServerTests: XCTestCase {
    private let fast = SMPClientConfiguration(
        connectTimeout: 5, timing: SMPConnectionTiming(responseTimeout: 5), reconnectDelay: 0.1, maxReconnectDelay: 0.5)

    private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// NEW then KEY (the recipient secures): signed SEND accepted, unsigned refused with AUTH, GET, ACK, an empty
    /// GET, DEL, and SEND to the deleted queue refused.
    func testCreateSecureWithKEYSendGetAckDelete() async throws {
        let peer = try PythonSMPServer()
        let client = SMPClient(configuration: fast)
        let p = try await client.connect(to: peer.server)
        XCTAssertEqual(p.version, 18)
        let queue = try await client.createQueue(on: peer.server)
        XCTAssertEqual(queue.recipientId.bytes.count, 24)
        XCTAssertEqual(queue.queueMode, .messaging)
        let senderKey = Ed25519.PrivateKey()
        try await client.secure(queue, senderKey: senderKey.publicKey)
        try await client.send(to: queue.senderQueue, senderKey: senderKey, body: bytes("hello"))
        let unsigned = await failure { () async throws(SMPClientError) in
            try await client.send(to: queue.senderQueue, senderKey: nil, body: bytes("no"))
        }
        XCTAssertEqual(unsigned, .server(.auth))
        let message = try await client.get(queue)
        XCTAssertEqual(message?.body, bytes("hello"))
        guard case .success(.message(let ts, let flags, _))? = message?.content else {
            return XCTFail("\(String(describing: message))")
        }
        XCTAssertLessThan(abs(ts - Int64(Date().timeIntervalSince1970)), 60)
        XCTAssertFalse(flags.notification)
        try await client.ack(queue, msgId: try XCTUnwrap(message?.msgId))
        let empty = try await client.get(queue)
        XCTAssertNil(empty)
        try await client.delete(queue)
        let gone = await failure { () async throws(SMPClientError) in
            try await client.send(to: queue.senderQueue, senderKey: senderKey, body: bytes("late"))
        }
        XCTAssertEqual(gone, .server(.auth))
        await client.close()
    }

    /// NEW then SKEY from the sender's own connection (smp.md §3.8): messages sent on one connection are pushed to
    /// the subscriber on another; a second SKEY with another key is refused.
    func testCreateSecureWithSKEYAcrossConnections() async throws {
        let peer = try PythonSMPServer()
        let recipient = SMPClient(configuration: fast)
        let sender = SMPClient(configuration: fast)
        let queue = try await recipient.createQueue(on: peer.server)
        let log = EventLog(try await recipient.subscribe(queue))
        let senderKey = Ed25519.PrivateKey()
        try await sender.secure(queue.senderQueue, senderKey: senderKey)
        let again = await failure { () async throws(SMPClientError) in
            try await sender.secure(queue.senderQueue, senderKey: Ed25519.PrivateKey())
        }
        XCTAssertEqual(again, .server(.auth))
        try await sender.send(to: queue.senderQueue, senderKey: senderKey, body: bytes("one"), notification: true)
        _ = await log.wait(for: 1)
        XCTAssertEqual(log.messages.map(\.body), [bytes("one")])
        if case .success(.message(_, let flags, _)) = log.messages.first?.content { XCTAssertTrue(flags.notification) }
        try await recipient.ack(queue, msgId: try XCTUnwrap(log.messages.first?.msgId))
        try await sender.send(to: queue.senderQueue, senderKey: senderKey, body: bytes("two"))
        _ = await log.wait(for: 2)
        XCTAssertEqual(log.messages.map(\.body), [bytes("one"), bytes("two")])
        await recipient.close()
        await sender.close()
    }

    /// A duplex pair of queues over two connections: each side reads its own queue and sends to the other's.
    func testDuplexOverTwoConnections() async throws {
        let peer = try PythonSMPServer()
        let alice = SMPClient(configuration: fast)
        let bob = SMPClient(configuration: fast)
        let aliceQueue = try await alice.createQueue(on: peer.server)
        let bobQueue = try await bob.createQueue(on: peer.server)
        let aliceLog = EventLog(try await alice.subscribe(aliceQueue))
        let bobLog = EventLog(try await bob.subscribe(bobQueue))
        let toAlice = Ed25519.PrivateKey()
        let toBob = Ed25519.PrivateKey()
        try await bob.secure(aliceQueue.senderQueue, senderKey: toAlice)
        try await alice.secure(bobQueue.senderQueue, senderKey: toBob)
        try await alice.send(to: bobQueue.senderQueue, senderKey: toBob, body: bytes("hi bob"))
        try await bob.send(to: aliceQueue.senderQueue, senderKey: toAlice, body: bytes("hi alice"))
        _ = await aliceLog.wait(for: 1)
        _ = await bobLog.wait(for: 1)
        XCTAssertEqual(aliceLog.messages.map(\.body), [bytes("hi alice")])
        XCTAssertEqual(bobLog.messages.map(\.body), [bytes("hi bob")])
        await alice.close()
        await bob.close()
    }

    /// The subscription moves to a second connection (smp.md §3.8): the first hears END and its stream ends; the
    /// un-ACKed message is delivered again to the new subscriber; DEL from the new one ends nothing on the old.
    func testSubscriptionMovedToSecondConnection() async throws {
        let peer = try PythonSMPServer()
        let first = SMPClient(configuration: fast)
        let second = SMPClient(configuration: fast)
        let queue = try await first.createQueue(on: peer.server)
        let firstLog = EventLog(try await first.subscribe(queue))
        try await first.send(to: queue.senderQueue, senderKey: nil, body: bytes("m1"))
        _ = await firstLog.wait(for: 1)
        let secondLog = EventLog(try await second.subscribe(queue))
        let ended = await firstLog.waitForEnd()
        XCTAssertTrue(ended)
        XCTAssertEqual(firstLog.all.last, .end)
        let firstConnection = try await first.connection(to: queue.server)
        let isSubscribed = await firstConnection.isSubscribed(queue.recipientId)
        XCTAssertFalse(isSubscribed)
        _ = await secondLog.wait(for: 1)
        XCTAssertEqual(secondLog.messages.map(\.body), [bytes("m1")])

        // DELD goes to the subscriber when another connection deletes the queue.
        try await first.delete(queue)
        let deleted = await secondLog.waitForEnd()
        XCTAssertTrue(deleted)
        XCTAssertEqual(secondLog.all.last, .deleted)
        await first.close()
        await second.close()
    }

    /// GET and SUB do not mix on one connection (`CMD PROHIBITED`, smp.md §3.8); on another they do.
    func testGetVersusSubscribe() async throws {
        let peer = try PythonSMPServer()
        let client = SMPClient(configuration: fast)
        let other = SMPClient(configuration: fast)
        let queue = try await client.createQueue(on: peer.server)
        try await client.send(to: queue.senderQueue, senderKey: nil, body: bytes("x"))
        let got = try await client.get(queue)
        XCTAssertEqual(got?.body, bytes("x"))
        let mixed = await failure { () async throws(SMPClientError) in _ = try await client.subscribe(queue) }
        XCTAssertEqual(mixed, .server(.cmd(.prohibited)))
        let log = EventLog(try await other.subscribe(queue))
        _ = await log.wait(for: 1)
        XCTAssertEqual(log.messages.map(\.body), [bytes("x")])
        let getOnSubscribed = await failure { () async throws(SMPClientError) in _ = try await other.get(queue) }
        XCTAssertEqual(getOnSubscribed, .server(.cmd(.prohibited)))
        await client.close()
        await other.close()
    }

    /// A quota of 3 (smp.md §3.8): the fourth SEND stores the QUOTA marker and is refused, the fifth too; the
    /// subscriber reads three messages and the marker, ACKing each; then the queue accepts again.
    func testQuotaExhaustedThenRecoveredAfterAcks() async throws {
        let peer = try PythonSMPServer(["--quota", "3"])
        let client = SMPClient(configuration: fast)
        let queue = try await client.createQueue(on: peer.server)
        for i in 1...3 { try await client.send(to: queue.senderQueue, senderKey: nil, body: bytes("q\(i)")) }
        for _ in 0..<2 {
            let refused = await failure { () async throws(SMPClientError) in
                try await client.send(to: queue.senderQueue, senderKey: nil, body: bytes("over"))
            }
            XCTAssertEqual(refused, .server(.quota))
        }
        let log = EventLog(try await client.subscribe(queue))
        for n in 1...4 {
            _ = await log.wait(for: n)
            try await client.ack(queue, msgId: try XCTUnwrap(log.messages.last?.msgId))
        }
        XCTAssertEqual(log.messages.prefix(3).map(\.body), [bytes("q1"), bytes("q2"), bytes("q3")])
        XCTAssertEqual(log.messages.map(\.isQuota), [false, false, false, true])
        try await client.send(to: queue.senderQueue, senderKey: nil, body: bytes("after"))
        _ = await log.wait(for: 5)
        XCTAssertEqual(log.messages.last?.body, bytes("after"))
        await client.close()
    }

    /// The server stops answering (SIGSTOP): the request times out. Killed mid-request: the request fails with
    /// `connectionLost` and the subscriber hears of it. A new server with the same identity on the same port: the
    /// client reconnects by itself and subscribes again; the new server does not know the queue (`AUTH`, the stream
    /// ends), and new queues work.
    func testServerKilledMidRequestThenReconnect() async throws {
        let identity = FileManager.default.temporaryDirectory.appendingPathComponent("smp-identity-\(UUID().uuidString).pem")
        defer { try? FileManager.default.removeItem(at: identity) }
        let peer = try PythonSMPServer(["--identity", identity.path])
        let client = SMPClient(
            configuration: SMPClientConfiguration(
                connectTimeout: 5, timing: SMPConnectionTiming(responseTimeout: 1), reconnectDelay: 0.1,
                maxReconnectDelay: 0.4))
        let queue = try await client.createQueue(on: peer.server)
        let log = EventLog(try await client.subscribe(queue))

        peer.signal(SIGSTOP)
        let timedOut = await failure { () async throws(SMPClientError) in try await client.ping(peer.server) }
        XCTAssertEqual(timedOut, .timeout)
        let inFlight = Task { () -> SMPClientError? in
            await failure { () async throws(SMPClientError) in
                try await client.send(to: queue.senderQueue, senderKey: nil, body: Array("lost".utf8))
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        peer.killNow()
        let lost = await inFlight.value
        XCTAssertEqual(lost, .connectionLost)
        _ = await log.wait(for: 1)
        XCTAssertEqual(log.all.first, .disconnected(.connectionLost))

        let restarted = try PythonSMPServer(["--identity", identity.path], port: peer.port)
        XCTAssertEqual(restarted.server, peer.server)
        let ended = await log.waitForEnd(timeout: 15)
        XCTAssertTrue(ended, "\(log.all)")
        XCTAssertEqual(log.all.last, .resubscriptionFailed(.server(.auth)))
        let fresh = try await client.createQueue(on: restarted.server)
        try await client.send(to: fresh.senderQueue, senderKey: nil, body: bytes("again"))
        let again = try await client.get(fresh)
        XCTAssertEqual(again?.body, bytes("again"))
        await client.close()
    }

    /// A link dropped with queues subscribed on it: the client reconnects by itself and subscribes every queue again
    /// in one batch, which the server confirms; messages flow again.
    func testResubscribesEveryQueueAfterReconnect() async throws {
        let peer = try PythonSMPServer()
        let client = SMPClient(configuration: fast)
        let sender = SMPClient(configuration: fast)
        var queues: [RecipientQueue] = []
        var logs: [EventLog] = []
        for _ in 0..<5 {
            let q = try await client.createQueue(on: peer.server)
            queues.append(q)
            logs.append(EventLog(try await client.subscribe(q)))
        }
        let connection = try await client.connection(to: peer.server)
        await connection.reconnect()
        for log in logs {
            let events = await log.wait(for: 2)
            XCTAssertEqual(events.prefix(2), [.disconnected(.connectionLost), .resubscribed])
        }
        for (i, q) in queues.enumerated() {
            try await sender.send(to: q.senderQueue, senderKey: nil, body: bytes("after \(i)"))
        }
        for (i, log) in logs.enumerated() {
            _ = await log.wait(for: 3)
            XCTAssertEqual(log.messages.map(\.body), [bytes("after \(i)")])
        }
        await client.close()
        await sender.close()
    }

    /// Ed448 certificates and chains of 3 and 4 (smp.md §2.2): the handshake, NEW and GET.
    func testEd448AndLongerChains() async throws {
        for arguments in [["--ed448"], ["--chain", "4"], ["--ed448", "--chain", "3"], ["--ed448", "--chain", "4"]] {
            let peer = try PythonSMPServer(arguments)
            let client = SMPClient(configuration: fast)
            let queue = try await client.createQueue(on: peer.server)
            try await client.send(to: queue.senderQueue, senderKey: nil, body: bytes("\(arguments)"))
            let got = try await client.get(queue)
            XCTAssertEqual(got?.body, bytes("\(arguments)"), "\(arguments)")
            await client.close()
        }
    }

    /// An older server (versions 6–10): v10 without block encryption, the same commands.
    func testOlderServerVersions() async throws {
        let peer = try PythonSMPServer(["--versions", "6-10"])
        let client = SMPClient(configuration: fast)
        let p = try await client.connect(to: peer.server)
        XCTAssertEqual(p.version, 10)
        let queue = try await client.createQueue(on: peer.server)
        let senderKey = Ed25519.PrivateKey()
        try await client.secure(queue.senderQueue, senderKey: senderKey)
        try await client.send(to: queue.senderQueue, senderKey: senderKey, body: bytes("v10"))
        let got = try await client.get(queue)
        XCTAssertEqual(got?.body, bytes("v10"))
        await client.close()
    }

    /// A server that requires a password (smp.md §3.3, §3.8): NEW without it or with another one is refused with
    /// AUTH, with it the queue is made.
    func testServerPassword() async throws {
        let peer = try PythonSMPServer(["--password", "secret1"])
        let client = SMPClient(configuration: fast)
        for auth in [nil, try BasicAuth("other")] {
            let refused = await failure { () async throws(SMPClientError) in
                _ = try await client.createQueue(on: peer.server, basicAuth: auth)
            }
            XCTAssertEqual(refused, .server(.auth))
        }
        let queue = try await client.createQueue(on: peer.server, basicAuth: try BasicAuth("secret1"), mode: .contact)
        XCTAssertEqual(queue.queueMode, .contact)
        await client.close()
    }

    /// A wrong fingerprint in the address is refused with TLS's identity error; a closed port with the connect
    /// error (smp.md §2.1, §2.2).
    func testWrongFingerprintAndClosedPort() async throws {
        let peer = try PythonSMPServer()
        let wrong = try SMPServer(hosts: peer.server.hosts, port: peer.server.port, keyHash: KeyHash(SecureRandom.bytes(32)))
        let client = SMPClient(configuration: fast)
        let refused = await failure { () async throws(SMPClientError) in try await client.ping(wrong) }
        guard case .tls(.identity(let expected, let presented))? = refused else {
            return XCTFail("\(String(describing: refused))")
        }
        XCTAssertEqual(expected.rawRepresentation, wrong.keyHash.bytes)
        XCTAssertEqual(presented.rawRepresentation, peer.server.keyHash.bytes)

        let closedPort = peer.port
        peer.stop()
        let closed = try SMPServer(hosts: peer.server.hosts, port: String(closedPort), keyHash: peer.server.keyHash)
        let notConnected = await failure { () async throws(SMPClientError) in try await client.ping(closed) }
        XCTAssertEqual(notConnected, .connect(.connectionRefused))
        await client.close()
    }

    /// A host name is resolved (smp.md §1.7): `localhost` reaches the server; a name that does not resolve is the
    /// connect error; the web-port policy (smp.md §2.1) makes the client offer only `http/1.1`, which this
    /// SMP-only server does not select, so TLS fails with the ALPN reason.
    func testHostNamesAndWebPortPolicy() async throws {
        let peer = try PythonSMPServer()
        let named = try SMPServer(
            hosts: [try TransportHost(parsing: "localhost")], port: peer.server.port, keyHash: peer.server.keyHash)
        let client = SMPClient(configuration: fast)
        try await client.ping(named)
        let unknown = try SMPServer(
            hosts: [try TransportHost(parsing: "no-such-host.invalid")], port: "5223", keyHash: peer.server.keyHash)
        let unresolved = await failure { () async throws(SMPClientError) in try await client.ping(unknown) }
        guard case .connect(.unresolved)? = unresolved else { return XCTFail("\(String(describing: unresolved))") }
        await client.close()

        var web = fast
        web.webPort = .all
        let webClient = SMPClient(configuration: web)
        let refused = await failure { () async throws(SMPClientError) in try await webClient.ping(peer.server) }
        XCTAssertEqual(refused, .tls(.noSharedApplicationProtocol(offered: [.http11])))
        await webClient.close()
    }

    /// 1,000 messages sent on one connection and received on another, in order, none lost or doubled.
    func testThousandMessagesInOrder() async throws {
        let peer = try PythonSMPServer(["--quota", "2000"])
        let recipient = SMPClient(configuration: fast)
        let sender = SMPClient(configuration: fast)
        let queue = try await recipient.createQueue(on: peer.server)
        let senderKey = Ed25519.PrivateKey()
        try await sender.secure(queue.senderQueue, senderKey: senderKey)
        let stream = try await recipient.subscribe(queue)
        let count = 1000
        let sending = Task {
            for i in 0..<count { try await sender.send(to: queue.senderQueue, senderKey: senderKey, body: Array("\(i)".utf8)) }
        }
        var received: [String] = []
        for await event in stream {
            guard case .message(let m) = event else { return XCTFail("\(event)") }
            received.append(String(decoding: m.body ?? [], as: UTF8.self))
            try await recipient.ack(queue, msgId: m.msgId)
            if received.count == count { break }
        }
        try await sending.value
        XCTAssertEqual(received, (0..<count).map { "\($0)" })
        let reader = SMPClient(configuration: fast)
        let rest = try await reader.get(queue)
        XCTAssertNil(rest)
        await reader.close()
        await recipient.close()
        await sender.close()
    }
}
