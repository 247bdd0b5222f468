import ChatStore
import Foundation
import RemoteChat
import SimplexCrypto
import SimplexEncoding
import SimplexHost
import SimplexNet
import TestPeers
import TestSupport
import XCTest
import XRCP

/// Answers every command with `cmdOk`.
struct OkHandler: RemoteHostHandler {
    func execute(command: String, retryNumber: Int64) async -> [UInt8] { Array(#"{"result":{"type":"cmdOk"}}"#.utf8) }
    func nextEvent(waitMicroseconds: Int64) async -> [UInt8]? { nil }
    func beginStoring(fileName: String, fileSize: UInt32) async throws(RemoteProtocolError) -> any RemoteFileSink {
        throw .invalidBody("not stored")
    }
    func openFile(_ file: RemoteFile) async throws(RemoteFileError) -> any RemoteFileSource { throw .protocolError(.noFile) }
}

/// Events the service emitted, awaited by type.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [CanonicalJSON] = []
    private var explained: [String] = []
    func append(_ e: CanonicalJSON) { lock.withLock { items.append(e) } }
    func append(_ e: RemoteControlEvent) {
        lock.withLock {
            items.append(e.json)
            if let reason = e.reason { explained.append(reason) }
        }
    }
    /// The reasons the events carried, in order.
    var reasons: [String] { lock.withLock { explained } }
    func clear() {
        lock.withLock {
            items = []
            explained = []
        }
    }
    var all: [CanonicalJSON] { lock.withLock { items } }

    func wait(_ type: String, timeout: Double = 10) async -> CanonicalJSON? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let e = all.first(where: { $0["type"]?.stringValue == type }) { return e }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return nil
    }
}

/// A test controller listening on 127.0.0.1, pumped by a thread once the host connects.
final class LoopbackController: @unchecked Sendable {
    let listener: TCPListener
    let controller: TestController
    let queue = DispatchQueue(label: "controller")
    private var socket: TCPConnection?

    init(
        authority: CertificateAuthority? = nil, identity: Ed25519.PrivateKey = Ed25519.PrivateKey(),
        knownHost: CertificateFingerprint? = nil
    ) throws {
        listener = try TCPListener(address: "127.0.0.1")
        controller = try TestController(
            port: listener.endpoint.port, authority: authority, identity: identity, knownHost: knownHost)
        let listener = self.listener
        let controller = self.controller
        let queue = self.queue
        Thread { [weak self] in
            guard let socket = try? listener.accept(timeout: 10) else { return }
            self?.socket = socket
            while true {
                guard let bytes = try? socket.read(timeout: 0.02) else { return }
                queue.sync {
                    if !bytes.isEmpty { try? controller.receive(bytes) }
                    let out = controller.tls.takeOutgoing()
                    if !out.isEmpty { try? socket.write(out) }
                }
            }
        }.start()
    }

    func close() { socket?.shutdown() }
}

final class HostRemoteControlTests: XCTestCase {
    private var folder: URL!
    private var store: ChatStoreActor!
    private let events = EventLog()

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("rc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = try ChatStoreActor(prefix: folder.appendingPathComponent("simplex_v1").path, confirmation: .yesUp)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func service(
        timeouts: RemoteControlTimeouts = RemoteControlTimeouts(), multicast: MulticastSettings = MulticastSettings()
    ) -> HostRemoteControl {
        let log = events
        return HostRemoteControl(
            store: store, handler: OkHandler(), deviceName: "linux-box", timeouts: timeouts, multicast: multicast,
            now: { 1_780_000_000 },
            emit: { log.append($0) })
    }

    /// Connects, confirms the code and returns the `remoteCtrlConnected` response.
    private func pair(_ rc: HostRemoteControl, _ peer: LoopbackController, known: Bool) async throws -> CanonicalJSON {
        let connecting = try await rc.connect(uri: peer.controller.signed.uri)
        XCTAssertEqual(connecting["type"], .string("remoteCtrlConnecting"))
        XCTAssertEqual(connecting["appVersion"], .string("6.5.0.13"))
        XCTAssertEqual(connecting["ctrlAppInfo"]?["deviceName"], .string("Test Desktop"))
        XCTAssertEqual(connecting["remoteCtrl_"] != nil, known)
        let v1 = await events.wait("remoteCtrlSessionCode")
        let codeEvent = try XCTUnwrap(v1)
        let code = try XCTUnwrap(codeEvent["sessionCode"]?.stringValue)
        // The host has its code once its Finished is sent; the controller once that Finished has been read.
        var controllerCode: String?
        for _ in 0..<200 where controllerCode == nil {
            controllerCode = peer.queue.sync { peer.controller.info?.sessionCode }
            if controllerCode == nil { try await Task.sleep(nanoseconds: 5_000_000) }
        }
        XCTAssertEqual(code, controllerCode)
        XCTAssertEqual(codeEvent["remoteCtrl_"] != nil, known)
        return try await rc.verify(code: code)
    }

    func testFirstPairingSecondSessionListStopDelete() async throws {
        let rc = service()
        let first = try LoopbackController()
        let connected = try await pair(rc, first, known: false)
        XCTAssertEqual(connected["type"], .string("remoteCtrlConnected"))
        XCTAssertEqual(connected["remoteCtrl"]?["remoteCtrlId"], .integer(1))
        XCTAssertEqual(connected["remoteCtrl"]?["ctrlDeviceName"], .string("Test Desktop"))
        XCTAssertEqual(connected["remoteCtrl"]?["sessionState"]?["type"], .string("connected"))
        XCTAssertEqual(connected["compression"], .bool(true))
        let listed = try await rc.list()
        XCTAssertEqual(listed["remoteCtrls"]?.rendered.contains(#""sessionState":{"sessionCode":"#), true)
        await assertChatError(.remoteCtrl(.busy)) { try await rc.connect(uri: first.controller.signed.uri) }
        await assertChatError(.remoteCtrl(.busy)) { try await rc.delete(id: 1) }

        // The controller can use the session.
        let stream = try first.queue.sync { try first.controller.request(.send(command: "/v", retryNumber: 0)) }
        var response: RemoteResponse?
        for _ in 0..<500 where response == nil {
            try await Task.sleep(nanoseconds: 10_000_000)
            response = first.queue.sync { first.controller.responses[stream]?.0 }
        }
        XCTAssertEqual(response, .chatResponse(rawJSON: Array(#"{"result":{"type":"cmdOk"}}"#.utf8)))

        // A user's stop: cmdOk and no remoteCtrlStopped.
        let hostCA = try XCTUnwrap(first.queue.sync { first.controller.hostHello?.ca })
        let v2 = try await store.remoteControllers { (s) throws(PairingStoreError) in try s.find(id: 1) }
        let firstDH = try XCTUnwrap(v2)
            .dhKey.publicKey
        let v3 = await rc.stop()
        XCTAssertEqual(v3, .object(["type": .string("cmdOk")]))
        try await Task.sleep(nanoseconds: 200_000_000)
        let v4 = await events.wait("remoteCtrlStopped", timeout: 0.1)
        XCTAssertNil(v4)
        first.close()
        events.clear()

        // A second session of the known pairing: same CA and identity, the host pinned; the DH key rotates.
        let second = try LoopbackController(
            authority: first.controller.authority, identity: first.controller.identity, knownHost: hostCA)
        let again = try await pair(rc, second, known: true)
        XCTAssertEqual(again["remoteCtrl"]?["remoteCtrlId"], .integer(1))
        let v5 = try await store.remoteControllers { (s) throws(PairingStoreError) in try s.find(id: 1) }
        let record = try XCTUnwrap(v5)
        XCTAssertEqual(record.previousDHKey?.publicKey, firstDH)
        XCTAssertNotEqual(record.dhKey.publicKey, firstDH)

        // The controller goes away: remoteCtrlStopped with `disconnected`.
        second.close()
        let v6 = await events.wait("remoteCtrlStopped")
        let stopped = try XCTUnwrap(v6)
        XCTAssertEqual(stopped["rcStopReason"], .object(["type": .string("disconnected")]))
        XCTAssertEqual(stopped["rcsState"]?["type"], .string("connected"))

        let v7 = try await rc.delete(id: 1)
        XCTAssertEqual(v7, .object(["type": .string("cmdOk")]))
        let v8 = try await rc.list()
        XCTAssertEqual(v8, .object(["type": .string("remoteCtrlList"), "remoteCtrls": .array([])]))
        await assertChatError(.store(type: "remoteCtrlNotFound", fields: ["remoteCtrlId": .integer(1)])) {
            try await rc.delete(id: 1)
        }
    }

    func testWrongCodeStoresNothing() async throws {
        let rc = service()
        let peer = try LoopbackController()
        _ = try await rc.connect(uri: peer.controller.signed.uri)
        let v9 = await events.wait("remoteCtrlSessionCode")
        _ = try XCTUnwrap(v9)
        await assertChatError(.remoteCtrl(.protocolError(.sessionCode))) { try await rc.verify(code: "12345 67890") }
        let v10 = await events.wait("remoteCtrlStopped")
        let stopped = try XCTUnwrap(v10)
        XCTAssertEqual(stopped["rcStopReason"]?["type"], .string("setupFailed"))
        XCTAssertEqual(stopped["rcsState"]?["type"], .string("pendingConfirmation"))
        let v11 = try await rc.list()["remoteCtrls"]
        XCTAssertEqual(v11, .array([]))
        XCTAssertNil(peer.queue.sync { peer.controller.hostHello }, "no HELLO was sent")
    }

    func testRefusals() async throws {
        let rc = service()
        let peer = try LoopbackController()
        let tampered = peer.controller.signed.uri.replacingOccurrences(of: "Test%20Desktop", with: "Evil%20Desktop")
        await assertChatError(.remoteCtrl(.badInvitation)) { try await rc.connect(uri: tampered) }
        await assertChatError(.remoteCtrl(.badInvitation)) { try await rc.connect(uri: "xrcp:/nonsense") }
        await assertChatError(.remoteCtrl(.noKnownControllers)) { try await rc.find() }
        await assertChatError(.remoteCtrl(.inactive)) { try await rc.verify(code: "1") }
        await assertChatError(.remoteCtrl(.badState)) { try await rc.confirm(id: 1) }
        let v12 = await rc.setDeviceName("box 2")
        XCTAssertEqual(v12, .object(["type": .string("cmdOk")]))
        let v13 = await rc.deviceName
        XCTAssertEqual(v13, "box 2")
    }

    /// A controller whose app is older than the 6.5.0.12 current hosts require is refused, carrying its version.
    func testAnOldDesktopIsRefused() async throws {
        let rc = service()
        let peer = try LoopbackController()
        var invitation = peer.controller.signed.invitation
        let old = AppVersionRange(min: AppVersion([6, 3, 0]), max: AppVersion([6, 4, 5, 1]))
        invitation.app = ControllerAppInfo(appVersionRange: old, deviceName: "Old Desktop").json
        let uri = invitation.signed(sessionKey: peer.controller.sessionKey, identityKey: peer.controller.identity).uri
        await assertChatError(.remoteCtrl(.badVersion(AppVersion([6, 4, 5, 1])))) { try await rc.connect(uri: uri) }
        let why = await reason { try await rc.connect(uri: uri) }
        XCTAssertEqual(
            why,
            "the controller's app is too old: it accepts app versions 6.3.0–6.4.5.1, this host needs 6.5.0.12 or newer; "
                + "update SimpleX on the controller (desktop) to 6.5.0.12 or newer")
        let listed = try await rc.list()
        XCTAssertEqual(listed["remoteCtrls"], .array([]))
    }

    /// A controller newer than this host: the same wire answer, and the reason says this side is to update.
    func testANewerDesktopSaysToUpdateTheHost() async throws {
        let rc = service()
        let peer = try LoopbackController()
        var invitation = peer.controller.signed.invitation
        let newer = AppVersionRange(min: AppVersion([6, 6, 0, 1]), max: AppVersion([6, 6, 2]))
        invitation.app = ControllerAppInfo(appVersionRange: newer, deviceName: "New Desktop").json
        let uri = invitation.signed(sessionKey: peer.controller.sessionKey, identityKey: peer.controller.identity).uri
        await assertChatError(.remoteCtrl(.badVersion(AppVersion([6, 6, 2])))) { try await rc.connect(uri: uri) }
        let why = await reason { try await rc.connect(uri: uri) }
        XCTAssertEqual(
            why,
            "this host is too old for the controller: it needs app version 6.6.0.1 or newer and this host speaks "
                + "6.5.0.12–6.5.0.13; update simplex-host to a release for SimpleX 6.6.0.1")
    }

    /// A link signed by an app before 6.5.0.12 (legacy idsig, xrcp.md §5.4): `badInvitation` as the reference answers
    /// it, and the reason names the version to update the controller to rather than suggesting tampering.
    func testALegacySignedLinkSaysToUpdateTheDesktop() async throws {
        let rc = service()
        let peer = try LoopbackController()
        var invitation = peer.controller.signed.invitation
        let old = AppVersionRange(min: AppVersion([6, 4, 0]), max: AppVersion([6, 4, 5, 1]))
        invitation.app = ControllerAppInfo(appVersionRange: old, deviceName: "Old Desktop").json
        // An ssig whose base64 has no "+" or "/" reads the same in both alphabets, and its legacy idsig is a current
        // one (the reference then answers badVersion): the timestamp moves until the two differ.
        var ssig = peer.controller.sessionKey.signature(for: Array(invitation.unsignedURI.utf8)).rawRepresentation
        while Base64.encode(ssig) == Base64.encode(ssig, alphabet: .standard) {
            invitation.timestamp += 1
            ssig = peer.controller.sessionKey.signature(for: Array(invitation.unsignedURI.utf8)).rawRepresentation
        }
        let unsigned = invitation.unsignedURI
        let idsig = peer.controller.identity.signature(
            for: Array((unsigned + "&ssig=" + Base64.encode(ssig, alphabet: .standard)).utf8)
        ).rawRepresentation
        let uri = unsigned + "&ssig=" + Base64.encode(ssig) + "&idsig=" + Base64.encode(idsig)
        await assertChatError(.remoteCtrl(.badInvitation)) { try await rc.connect(uri: uri) }
        let why = await reason { try await rc.connect(uri: uri) }
        XCTAssertEqual(
            why,
            "the link is signed the way SimpleX apps before 6.5.0.12 sign it (it accepts up to 6.4.5.1): "
                + "update SimpleX on the controller (desktop) to 6.5.0.12 or newer")
        // A changed link still reads as changed.
        let changed = await reason {
            try await rc.connect(uri: uri.replacingOccurrences(of: "Old%20Desktop", with: "Odd%20Desktop"))
        }
        XCTAssertEqual(changed, "the session signature (ssig) does not verify with the link's skey: the link was changed")
    }

    /// A controller that closes the connection names the step: `inactive` on the wire, as before, and the reason.
    func testAClosedConnectionNamesTheStep() async throws {
        let rc = service()
        let peer = try LoopbackController()
        // Accepts TCP, then closes without a word of TLS.
        let silent = try TCPListener(address: "127.0.0.1")
        Thread {
            if let socket = try? silent.accept(timeout: 10) { socket.shutdown() }
        }.start()
        var invitation = peer.controller.signed.invitation
        invitation.port = silent.endpoint.port
        let uri = invitation.signed(sessionKey: peer.controller.sessionKey, identityKey: peer.controller.identity).uri
        _ = try await rc.connect(uri: uri)
        let first = await events.wait("remoteCtrlStopped")
        XCTAssertEqual(first?["rcStopReason"]?["type"], .string("connectionFailed"))
        XCTAssertEqual(first?["rcStopReason"]?["chatError"], ChatError.remoteCtrl(.inactive).json)
        XCTAssertEqual(events.reasons, ["the controller closed the connection during the TLS handshake"])

        // TLS up, the code shown, and the controller goes away before it is confirmed.
        events.clear()
        _ = try await rc.connect(uri: peer.controller.signed.uri)
        _ = await events.wait("remoteCtrlSessionCode")
        peer.close()
        let second = await events.wait("remoteCtrlStopped")
        XCTAssertEqual(second?["rcStopReason"]?["chatError"], ChatError.remoteCtrl(.inactive).json)
        XCTAssertEqual(
            events.reasons.last,
            "the controller closed the connection after the TLS handshake, while the session code waited for confirmation")
    }

    func testConnectionRefusedSaysSo() async throws {
        let rc = service()
        let peer = try LoopbackController()
        // Nothing listens on port 1 of loopback.
        var invitation = peer.controller.signed.invitation
        invitation.port = 1
        let uri = invitation.signed(sessionKey: peer.controller.sessionKey, identityKey: peer.controller.identity).uri
        _ = try await rc.connect(uri: uri)
        let v14 = await events.wait("remoteCtrlStopped")
        let stopped = try XCTUnwrap(v14)
        XCTAssertEqual(stopped["rcStopReason"]?["type"], .string("connectionFailed"))
        XCTAssertEqual(stopped["rcStopReason"]?["chatError"]?["agentError"]?["rcpErr"]?["type"], .string("exception"))
        XCTAssertTrue(stopped.rendered.contains("connection refused"), stopped.rendered)
    }

    /// `/find` hears a known controller's announcement on a loopback multicast group, then `/confirm` connects.
    func testFindAndConfirmAKnownController() async throws {
        var multicast = MulticastSettings()
        multicast.port = UInt16.random(in: 20000...60000)
        multicast.interfaceAddress = "127.0.0.1"
        let rc = service(multicast: multicast)
        let first = try LoopbackController()
        _ = try await pair(rc, first, known: false)
        let hostCA = try XCTUnwrap(first.queue.sync { first.controller.hostHello?.ca })
        _ = await rc.stop()
        first.close()
        let v15 = try await store.remoteControllers { (s) throws(PairingStoreError) in try s.find(id: 1) }
        let hostDH = try XCTUnwrap(v15).dhKey
            .publicKey

        let second = try LoopbackController(
            authority: first.controller.authority, identity: first.controller.identity, knownHost: hostCA)
        let v16 = try await rc.find()
        XCTAssertEqual(v16, .object(["type": .string("cmdOk")]))
        let sender = try MulticastSender(group: try IPv4Endpoint(multicast.group, multicast.port), interfaceAddress: "127.0.0.1")
        let packet = try Announcement.seal(second.controller.signed, controllerKey: second.controller.dh, hostKey: hostDH)
        var found: CanonicalJSON?
        for _ in 0..<50 where found == nil {
            try sender.send(packet)
            found = await events.wait("remoteCtrlFound", timeout: 0.1)
        }
        let event = try XCTUnwrap(found)
        XCTAssertEqual(event["remoteCtrl"]?["remoteCtrlId"], .integer(1))
        XCTAssertEqual(event["remoteCtrl"]?["sessionState"]?["type"], .string("searching"))
        XCTAssertEqual(event["compatible"], .bool(true))
        await assertChatError(.remoteCtrl(.badController)) { try await rc.confirm(id: 2) }
        let connecting = try await rc.confirm(id: 1)
        XCTAssertEqual(connecting["type"], .string("remoteCtrlConnecting"))
        var code: String?
        for _ in 0..<500 where code == nil {
            try await Task.sleep(nanoseconds: 10_000_000)
            code =
                events.all.filter { $0["type"]?.stringValue == "remoteCtrlSessionCode" }.dropFirst().first?["sessionCode"]?
                .stringValue
        }
        let connected = try await rc.verify(code: try XCTUnwrap(code))
        XCTAssertEqual(connected["remoteCtrl"]?["remoteCtrlId"], .integer(1))
        _ = await rc.stop()
    }

    func testDiscoveryTimesOut() async throws {
        var timeouts = RemoteControlTimeouts()
        timeouts.discovery = 0.3
        var multicast = MulticastSettings()
        multicast.port = UInt16.random(in: 20000...60000)
        multicast.interfaceAddress = "127.0.0.1"
        let rc = service(timeouts: timeouts, multicast: multicast)
        let peer = try LoopbackController()
        _ = try await pair(rc, peer, known: false)
        _ = await rc.stop()
        _ = try await rc.find()
        let v17 = await events.wait("remoteCtrlStopped", timeout: 5)
        let stopped = try XCTUnwrap(v17)
        XCTAssertEqual(stopped["rcStopReason"]?["type"], .string("discoveryFailed"))
        XCTAssertEqual(
            stopped["rcStopReason"]?["chatError"]?["agentError"]?["rcpErr"], .object(["type": .string("notDiscovered")]))
    }

    private func assertChatError(
        _ expected: ChatError, file: StaticString = #filePath, line: UInt = #line, _ body: () async throws -> CanonicalJSON
    ) async {
        do {
            let result = try await body()
            XCTFail("expected \(expected), got \(result.rendered)", file: file, line: line)
        } catch {
            XCTAssertEqual((error as? ChatError)?.withoutReason, expected, file: file, line: line)
        }
    }

    /// The reason a refusal carries besides its tag.
    private func reason(_ body: () async throws -> CanonicalJSON) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch { return (error as? ChatError)?.reason }
    }
}
