import Foundation
import RemoteChat
import SimplexCrypto
import SimplexNet
import TestSupport
import XCTest
import XRCP

/// Things a test collects from callbacks and awaits without blocking the cooperative pool.
final class Collected<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []

    func append(_ item: T) { lock.withLock { items.append(item) } }

    var all: [T] { lock.withLock { items } }

    func first(timeout: Double = 15, where match: (T) -> Bool) async -> T? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let found = lock.withLock({ items.first(where: match) }) { return found }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return nil
    }
}

/// A host core in memory: echoes commands, has one event to give, keeps uploads and serves them back.
final class MemoryHandler: RemoteHostHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var event: [UInt8]?
    private var files: [String: [UInt8]] = [:]

    init(event: [UInt8]?) { self.event = event }

    func stored(_ name: String) -> [UInt8]? { lock.withLock { files[name] } }

    func execute(command: String, retryNumber: Int64) async -> [UInt8] {
        Array(#"{"result":{"type":"cmdOk","echo":"\#(command)"}}"#.utf8)
    }

    func nextEvent(waitMicroseconds: Int64) async -> [UInt8]? {
        if let event = lock.withLock({ () -> [UInt8]? in
            defer { event = nil }
            return event
        }) {
            return event
        }
        try? await Task.sleep(nanoseconds: UInt64(min(waitMicroseconds, 100_000)) * 1000)
        return nil
    }

    func beginStoring(fileName: String, fileSize: UInt32) async throws(RemoteProtocolError) -> any RemoteFileSink {
        MemorySink(name: fileName, handler: self)
    }

    func openFile(_ file: RemoteFile) async throws(RemoteFileError) -> any RemoteFileSource {
        guard let name = file.filePath, let bytes = stored(name) else {
            throw .chat(Array(#"{"error":{"type":"errorStore","storeError":{"type":"fileNotFound","fileId":7}}}"#.utf8))
        }
        return MemorySource(bytes: bytes)
    }

    fileprivate func keep(_ name: String, _ bytes: [UInt8]) { lock.withLock { files[name] = bytes } }
}

private final class MemorySink: RemoteFileSink, @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    let name: String
    let handler: MemoryHandler

    init(name: String, handler: MemoryHandler) {
        self.name = name
        self.handler = handler
    }

    func write(_ piece: [UInt8]) async throws(RemoteProtocolError) { lock.withLock { bytes += piece } }

    func commit() async throws(RemoteProtocolError) -> String {
        handler.keep(name, lock.withLock { bytes })
        return name
    }

    func discard() async {}
}

private final class MemorySource: RemoteFileSource, @unchecked Sendable {
    private let lock = NSLock()
    private let bytes: [UInt8]
    private var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var size: UInt32 { UInt32(bytes.count) }
    var digest: [UInt8] { Digest.sha512(bytes) }

    func read(max: Int) async throws(RemoteProtocolError) -> [UInt8]? {
        lock.withLock {
            guard offset < bytes.count else { return nil }
            let end = min(offset + max, bytes.count)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }
    }
}

final class ControllerConnectionTests: XCTestCase {
    private let now = Int64(Date().timeIntervalSince1970)
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("controller-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: folder) }

    private func makeController(
        settings: ControllerConnectionSettings = ControllerConnectionSettings(pollWait: 200_000),
        notices: Collected<ControllerConnection.Notice>, events: Collected<Result<[UInt8], ControllerConnectionError>>
    ) throws -> ControllerConnection {
        try ControllerConnection(
            authority: try CertificateAuthority.generate(now: now, hoursBefore: 1), identityKey: Ed25519.PrivateKey(),
            app: ControllerAppInfo(deviceName: "Desktop"), address: "127.0.0.1", now: now, settings: settings,
            notify: { notices.append($0) }, events: { events.append($0) })
    }

    private static func isCode(_ n: ControllerConnection.Notice) -> Bool { if case .sessionCode = n { true } else { false } }
    private static func isEstablished(_ n: ControllerConnection.Notice) -> Bool {
        if case .established = n { true } else { false }
    }
    private static func isEnded(_ n: ControllerConnection.Notice) -> Bool { if case .ended = n { true } else { false } }

    /// A second TCP connection to an invitation whose one connection was taken is refused (xrcp.md §20.32).
    private func assertRefused(_ endpoint: IPv4Endpoint, file: StaticString = #filePath, line: UInt = #line) async {
        for _ in 0..<100 {
            do throws(NetError) {
                let extra = try TCPConnection.connect(to: endpoint, timeout: 2)
                extra.shutdown()  // still in the backlog before the listener closed; try again
            } catch .connectionRefused {
                return
            } catch .system(_, ECONNRESET, _) {
                // Reset while the listener closed under it: the same race, try again.
            } catch {
                return XCTFail("\(error)", file: file, line: line)
            }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        XCTFail("a second connection was accepted", file: file, line: line)
    }

    // MARK: (a) our controller with our host over 127.0.0.1

    func testOurHostPairsSendsPollsAndMovesFiles() async throws {
        let notices = Collected<ControllerConnection.Notice>()
        let events = Collected<Result<[UInt8], ControllerConnectionError>>()
        let connection = try makeController(notices: notices, events: events)
        await connection.run()

        let event = Array(#"{"result":{"type":"contactConnected","n":1}}"#.utf8)
        let handler = MemoryHandler(event: event)
        let hostCA = try CertificateAuthority.generate(now: now, hoursBefore: 1)
        let setup = HostSessionSetup(
            invitation: try SignedInvitation(uri: connection.invitation.uri).verified(), authority: hostCA,
            app: HostAppInfo(appVersion: .current, deviceName: "linux-box"), now: now)
        let hostNotices = Collected<HostConnection.Notice>()
        let host = try HostConnection(setup: setup, handler: handler) { hostNotices.append($0) }
        await host.run()

        guard case .sessionCode(let code)? = await notices.first(where: Self.isCode) else { return XCTFail("no code") }
        let hostCode = await hostNotices.first { $0 == .sessionCode(code) }
        XCTAssertEqual(hostCode, .sessionCode(code))
        try await host.verify(code: code)
        guard
            case .established(let app, let hostFingerprint, let hostDH, let compression)? =
                await notices.first(where: Self.isEstablished)
        else { return XCTFail("not established: \(notices.all)") }
        XCTAssertEqual(app.deviceName, "linux-box")
        XCTAssertEqual(hostFingerprint, hostCA.certificate.fingerprint)
        XCTAssertEqual(hostDH, setup.dhKey.publicKey)
        XCTAssertTrue(compression)
        await assertRefused(connection.endpoint)

        let response = try await connection.send("/_get chats 1 pcc=on")
        XCTAssertEqual(String(decoding: response, as: UTF8.self), #"{"result":{"echo":"/_get chats 1 pcc=on","type":"cmdOk"}}"#)

        // The long-poll delivers the host's one event.
        let delivered = await events.first { (try? $0.get()) != nil }
        XCTAssertEqual(
            String(decoding: try XCTUnwrap(try delivered?.get()), as: UTF8.self), #"{"result":{"n":1,"type":"contactConnected"}}"#
        )

        let file = SecureRandom.bytes(200_000)
        let stored = try await connection.storeFile(file, name: "photo.jpg")
        XCTAssertEqual(stored, "photo.jpg")
        XCTAssertEqual(handler.stored("photo.jpg"), file)

        let source = folder.appendingPathComponent("upload.bin")
        let second = SecureRandom.bytes(70_001)
        try Data(second).write(to: source)
        let uploaded = try await connection.storeFile(at: source)
        XCTAssertEqual(uploaded, "upload.bin")
        XCTAssertEqual(handler.stored("upload.bin"), second)

        let target = folder.appendingPathComponent("download.jpg")
        let remote = RemoteFile(userId: 1, fileId: 7, sent: true, fileSource: .object(["filePath": .string("photo.jpg")]))
        try await connection.getFile(remote, to: target)
        XCTAssertEqual(Array(try Data(contentsOf: target)), file)

        // A file the host has no record of: the host's chat error, and nothing left on disk.
        let missing = folder.appendingPathComponent("missing.bin")
        do {
            try await connection.getFile(
                RemoteFile(userId: 1, fileId: 7, sent: true, fileSource: .object(["filePath": .string("nope")])), to: missing)
            XCTFail("got a missing file")
        } catch {
            guard case .chatError(let raw) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(String(decoding: raw, as: UTF8.self).contains("fileNotFound"))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing.path))

        await connection.stop()
        let ended = await notices.first(where: Self.isEnded)
        XCTAssertEqual(ended, .ended(nil))
        let hostEnded = await hostNotices.first { if case .ended = $0 { true } else { false } }
        XCTAssertNotNil(hostEnded)
        do {
            _ = try await connection.send("/v")
            XCTFail("sent after stop")
        } catch {
            XCTAssertEqual(error, .notEstablished)
        }
    }

    /// A host that never speaks TLS: the connect timeout ends the session, and the invitation takes no second host.
    func testOneConnectionPerInvitationAndTheConnectTimeout() async throws {
        let notices = Collected<ControllerConnection.Notice>()
        let connection = try makeController(
            settings: ControllerConnectionSettings(connectTimeout: 1), notices: notices, events: Collected())
        await connection.run()
        let silent = try TCPConnection.connect(to: connection.endpoint, timeout: 2)
        await assertRefused(connection.endpoint)
        let ended = await notices.first(where: Self.isEnded)
        XCTAssertEqual(ended, .ended(.timeout))
        XCTAssertEqual(thrown { try silent.read(timeout: 2) } as? NetError, .closed)
    }

    /// A host that connected but sends no HELLO within the HELLO timeout.
    func testTheHelloTimeout() async throws {
        let notices = Collected<ControllerConnection.Notice>()
        let connection = try makeController(
            settings: ControllerConnectionSettings(helloTimeout: 0.5), notices: notices, events: Collected())
        await connection.run()
        let setup = HostSessionSetup(
            invitation: try SignedInvitation(uri: connection.invitation.uri).verified(),
            authority: try CertificateAuthority.generate(now: now, hoursBefore: 1),
            app: HostAppInfo(appVersion: .current, deviceName: "linux-box"), now: now)
        let hostNotices = Collected<HostConnection.Notice>()
        let host = try HostConnection(setup: setup, handler: MemoryHandler(event: nil)) { hostNotices.append($0) }
        await host.run()
        let code = await notices.first(where: Self.isCode)
        XCTAssertNotNil(code)
        // The host's user never confirms the code.
        let ended = await notices.first(where: Self.isEnded)
        XCTAssertEqual(ended, .ended(.timeout))
        await host.stop()
    }

    // MARK: (b) our controller with the independent Python host

    func testThePythonHostStub() async throws {
        let notices = Collected<ControllerConnection.Notice>()
        let events = Collected<Result<[UInt8], ControllerConnectionError>>()
        let connection = try makeController(notices: notices, events: events)
        await connection.run()

        let files = folder.appendingPathComponent("host-files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        let log = folder.appendingPathComponent("stub.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Python.interpreter())
        process.arguments = [
            Python.script("Tests/Peers/xrcp_host_stub.py"), "--pairing", folder.appendingPathComponent("pairing.json").path,
            "--uri", connection.invitation.uri, "--files", files.path, "--max-wait-ms", "200",
        ]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        func stubLog() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

        let code = await notices.first(where: Self.isCode)
        XCTAssertNotNil(code, stubLog())
        guard case .established(let app, _, _, let compression)? = await notices.first(where: Self.isEstablished) else {
            return XCTFail("not established: \(notices.all)\n\(stubLog())")
        }
        XCTAssertEqual(app.deviceName, "Stub Phone")
        XCTAssertTrue(compression)

        let response = try await connection.send("/_stub event")
        XCTAssertEqual(String(decoding: response, as: UTF8.self), #"{"result":{"type":"cmdOk"}}"#)
        let delivered = await events.first { (try? $0.get()) != nil }
        XCTAssertTrue(String(decoding: try XCTUnwrap(try delivered?.get(), stubLog()), as: UTF8.self).contains("stubEvent"))

        let file = SecureRandom.bytes(200_000)
        let stored = try await connection.storeFile(file, name: "photo.jpg")
        XCTAssertEqual(stored, "photo.jpg")
        XCTAssertEqual(Array(try Data(contentsOf: files.appendingPathComponent(stored))), file)
        // The same name again: the host makes it unique.
        let again = try await connection.storeFile(Array(file.prefix(10)), name: "photo.jpg")
        XCTAssertEqual(again, "photo_1.jpg")

        let target = folder.appendingPathComponent("download.jpg")
        try await connection.getFile(
            RemoteFile(userId: 1, fileId: 1, sent: false, fileSource: .object(["filePath": .string(stored)])), to: target)
        XCTAssertEqual(Array(try Data(contentsOf: target)), file)

        await connection.stop()
        let ended = await notices.first(where: Self.isEnded)
        XCTAssertEqual(ended, .ended(nil))
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        XCTAssertFalse(process.isRunning, stubLog())
        XCTAssertTrue(stubLog().contains(#""event": "stopped""#) || stubLog().contains(#""event":"stopped""#), stubLog())
    }

    // MARK: (c) multicast announcements on loopback

    private func group() throws -> IPv4Endpoint { try IPv4Endpoint("224.0.0.251", UInt16.random(in: 40000...60000)) }

    private func invitation(dh: X25519.PrivateKey) throws -> SignedInvitation {
        let session = Ed25519.PrivateKey()
        let identity = Ed25519.PrivateKey()
        return Invitation(
            ca: try CertificateAuthority.generate(now: now, hoursBefore: 1).certificate.fingerprint, host: "127.0.0.1",
            port: 40000, app: ControllerAppInfo(deviceName: "Desktop").json, timestamp: now, sessionKey: session.publicKey,
            identityKey: identity.publicKey, dh: dh.publicKey
        ).signed(sessionKey: session, identityKey: identity)
    }

    func testAnnouncerSendsSealedPacketsUntilStopped() async throws {
        let group = try group()
        let receiver = try MulticastReceiver(group: group, interfaceAddress: "127.0.0.1")
        let dh = X25519.PrivateKey()
        let hostKey = X25519.PrivateKey()
        let signed = try invitation(dh: dh)
        let announcer = try Announcer(
            invitation: signed, controllerKey: dh, hostKey: hostKey.publicKey, group: group, interfaceAddress: "127.0.0.1",
            interval: 0.05)
        var nonces: Set<[UInt8]> = []
        for _ in 0..<3 {
            let (packet, source) = try XCTUnwrap(try receiver.receive(timeout: 5))
            XCTAssertEqual(packet.count, Announcement.packetSize)
            XCTAssertEqual(source.address, "127.0.0.1")
            let (opened, index) = try Announcement.open(
                packet, keys: [X25519.PrivateKey(), hostKey], sourceAddress: source.address)
            XCTAssertEqual(index, 1)
            XCTAssertEqual(opened.uri, signed.uri)
            nonces.insert(Array(packet[45..<69]))
        }
        XCTAssertEqual(nonces.count, 3, "a fresh nonce per packet")

        announcer.stop()
        await announcer.finished()
        while try receiver.receive(timeout: 0.2) != nil {}  // what was in flight
        XCTAssertNil(try receiver.receive(timeout: 0.5), "a packet after stop()")
    }

    func testAnnouncerSendsCountPackets() async throws {
        let group = try group()
        let receiver = try MulticastReceiver(group: group, interfaceAddress: "127.0.0.1")
        let dh = X25519.PrivateKey()
        let announcer = try Announcer(
            invitation: try invitation(dh: dh), controllerKey: dh, hostKey: X25519.PrivateKey().publicKey, group: group,
            interfaceAddress: "127.0.0.1", count: 3, interval: 0.01)
        await announcer.finished()
        var received = 0
        while try receiver.receive(timeout: 0.3) != nil { received += 1 }
        XCTAssertEqual(received, 3)
    }

    func testAConnectionAnnouncesItsInvitationUntilStopped() async throws {
        let group = try group()
        let receiver = try MulticastReceiver(group: group, interfaceAddress: "127.0.0.1")
        let notices = Collected<ControllerConnection.Notice>()
        let connection = try makeController(notices: notices, events: Collected())
        await connection.run()
        let hostKey = X25519.PrivateKey()
        try await connection.announce(to: hostKey.publicKey, group: group, interval: 0.05)
        let (packet, source) = try XCTUnwrap(try receiver.receive(timeout: 5))
        let (opened, _) = try Announcement.open(packet, keys: [hostKey], sourceAddress: source.address)
        XCTAssertEqual(opened.uri, connection.invitation.uri)

        await connection.stop()
        try await Task.sleep(nanoseconds: 100_000_000)
        while try receiver.receive(timeout: 0.2) != nil {}
        XCTAssertNil(try receiver.receive(timeout: 0.5), "a packet after the session ended")
    }

    /// An invitation too long for the 900-byte announcement is refused up front (xrcp.md §20.22).
    func testAnnouncerRefusesAnOversizedInvitation() throws {
        let dh = X25519.PrivateKey()
        let session = Ed25519.PrivateKey()
        let identity = Ed25519.PrivateKey()
        let long = Invitation(
            ca: try CertificateAuthority.generate(now: now, hoursBefore: 1).certificate.fingerprint, host: "127.0.0.1",
            port: 40000, app: ControllerAppInfo(deviceName: String(repeating: "x", count: 400)).json, timestamp: now,
            sessionKey: session.publicKey, identityKey: identity.publicKey, dh: dh.publicKey
        ).signed(sessionKey: session, identityKey: identity)
        XCTAssertEqual(
            thrown {
                try Announcer(
                    invitation: long, controllerKey: dh, hostKey: X25519.PrivateKey().publicKey, group: try group(),
                    interfaceAddress: "127.0.0.1")
            } as? AnnouncerError, .xrcp(.encrypt))
    }
}
