import ChatModel
import ChatStore
import Foundation
import RemoteChat
import SimplexCrypto
import SimplexEncoding
import SimplexHost
import SimplexNet
import TestSupport
import XCTest
import XRCP

/// The independent Python host (Tests/Peers/xrcp_host_stub.py) in a process of its own, its JSON lines in a file.
final class PythonHost {
    let process = Process()
    let input = Pipe()
    let log: URL

    init(folder: URL, arguments: [String]) throws {
        log = folder.appendingPathComponent("stub-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: try Python.interpreter())
        process.arguments = [Python.script("Tests/Peers/xrcp_host_stub.py")] + arguments
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        try process.run()
    }

    deinit { if process.isRunning { process.terminate() } }

    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Whether the host printed `text` within `timeout` seconds.
    func printed(_ text: String, timeout: Double = 10) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if output.contains(text) { return true }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return output.contains(text)
    }

    /// Closes the session from the host's side.
    func stopSession() { input.fileHandleForWriting.write(Data(#"{"stop":true}"#.utf8 + [0x0a])) }

    func waitExit(timeout: Double = 10) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { try? await Task.sleep(nanoseconds: 20_000_000) }
        return !process.isRunning
    }
}

final class ControllerRemoteControlTests: XCTestCase {
    private var folder: URL!
    private var store: ChatStoreActor!
    private let events = EventLog()

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ctrl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = try ChatStoreActor(prefix: folder.appendingPathComponent("simplex_v1").path, confirmation: .yesUp)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func service(timeouts: ControllerTimeouts = ControllerTimeouts()) -> ControllerRemoteControl {
        let log = events
        var timeouts = timeouts
        timeouts.pollWait = 200_000
        return ControllerRemoteControl(
            store: store, deviceName: "Test Laptop", remoteHostsFolder: folder.appendingPathComponent("remote_hosts"),
            timeouts: timeouts, addresses: { [LocalAddress(interface: "lo", address: "127.0.0.1", prefixLength: 8)] },
            emit: { envelope in
                // Controller events by their type; hosts' by theirs, with remoteHostId kept beside.
                if var result = envelope["result"], case .object(var fields) = result {
                    if let id = envelope["remoteHostId"] { fields["remoteHostId"] = id }
                    result = .object(fields)
                    log.append(result)
                } else {
                    log.append(.object(["type": .string("error"), "envelope": envelope]))
                }
            })
    }

    private func run(_ rc: ControllerRemoteControl, _ line: String) async throws -> CanonicalJSON {
        try await rc.run(try ControllerCommand(parsing: line))
    }

    private func assertError(
        _ expected: ChatError, file: StaticString = #filePath, line: UInt = #line, _ body: () async throws -> CanonicalJSON
    ) async {
        do {
            let value = try await body()
            XCTFail("no error: \(value.rendered)", file: file, line: line)
        } catch {
            XCTAssertEqual(error as? ChatError, expected, file: file, line: line)
        }
    }

    private func stub(_ uri: String, pairing: String = "pairing.json", _ extra: [String] = []) throws -> PythonHost {
        let files = folder.appendingPathComponent("host-files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        return try PythonHost(
            folder: folder,
            arguments: [
                "--pairing", folder.appendingPathComponent(pairing).path, "--uri", uri, "--files", files.path,
                "--max-wait-ms", "200",
            ] + extra)
    }

    // MARK: With the independent Python host

    func testFirstAndKnownPairingCommandsEventsAndFiles() async throws {
        let rc = service()
        let started = try await run(rc, "/start remote host new")
        XCTAssertEqual(started["type"], .string("remoteHostStarted"))
        XCTAssertNil(started["remoteHost_"])
        let uri = try XCTUnwrap(started["invitation"]?.stringValue)
        XCTAssertTrue(uri.hasPrefix("xrcp:/") && !uri.hasPrefix("xrcp://"))
        XCTAssertEqual(started["ctrlPort"]?.stringValue, String(try SignedInvitation(uri: uri).invitation.port))
        XCTAssertEqual(started["localAddrs"], .array([.object(["address": .string("127.0.0.1"), "interface": .string("lo")])]))
        let appInfo = try SignedInvitation(uri: uri).invitation.appInfo()
        XCTAssertEqual(appInfo.deviceName, "Test Laptop")
        XCTAssertEqual(appInfo.appVersionRange, AppVersionRange.supported)
        await assertError(.remoteHost(.new, .busy)) { try await self.run(rc, "/start remote host new") }

        let host = try stub(uri)
        let code = await events.wait("remoteHostSessionCode")
        XCTAssertNotNil(code?["sessionCode"]?.stringValue, host.output)
        XCTAssertNil(code?["remoteHost_"])
        let shownByHost = await host.printed(try XCTUnwrap(code?["sessionCode"]?.stringValue))
        XCTAssertTrue(shownByHost, host.output)
        let new = await events.wait("newRemoteHost")
        XCTAssertEqual(new?["remoteHost"]?["remoteHostId"], .integer(1), host.output)
        XCTAssertEqual(new?["remoteHost"]?["hostDeviceName"], .string("Stub Phone"))
        XCTAssertEqual(new?["remoteHost"]?["sessionState"]?["type"], .string("confirmed"))
        XCTAssertEqual(new?["remoteHost"]?["storePath"]?.stringValue?.count, 16)
        let connected = await events.wait("remoteHostConnected")
        XCTAssertEqual(connected?["remoteHost"]?["sessionState"]?["type"], .string("connected"))
        XCTAssertEqual(connected?["compression"], .bool(true))
        let current = await rc.currentRemoteHost
        XCTAssertEqual(current, 1, "a connected host becomes the current one")

        // Commands go to the host; its events come back with its id; local-only commands stay here.
        let response = await rc.execute("/_stub event")
        XCTAssertEqual(response.rendered, #"{"remoteHostId":1,"result":{"type":"cmdOk"}}"#)
        let event = await events.wait("stubEvent")
        XCTAssertEqual(event?["remoteHostId"], .integer(1))
        let local = await rc.execute("/_stop")
        XCTAssertEqual(
            local.rendered,
            #"{"error":{"remoteHostError":{"type":"localCommand"},"rhKey":{"remoteHostId":1,"type":"id"},"type":"errorRemoteHost"},"remoteHostId":1}"#
        )

        // Files both ways, with progress.
        let bytes = SecureRandom.bytes(300_000)
        let source = folder.appendingPathComponent("photo one.jpg")
        try Data(bytes).write(to: source)
        let progressed = Collected<UInt64>()
        let stored = await rc.execute("/store remote file 1 encrypt=off \(source.path)") { done, _ in progressed.append(done) }
        XCTAssertEqual(
            stored.rendered,
            #"{"result":{"remoteFileSource":{"filePath":"photo one.jpg"},"remoteHostId":1,"type":"remoteFileStored"}}"#)
        XCTAssertEqual(progressed.all.last, 300_000)
        let onHost = folder.appendingPathComponent("host-files/photo one.jpg")
        XCTAssertEqual(Array(try Data(contentsOf: onHost)), bytes)
        let got = await rc.execute(
            #"/get remote file 1 {"userId":1,"fileId":2,"sent":true,"fileSource":{"filePath":"photo one.jpg"}}"#)
        XCTAssertEqual(got.rendered, #"{"result":{"type":"cmdOk"}}"#)
        let storePath = try XCTUnwrap(new?["remoteHost"]?["storePath"]?.stringValue)
        let cached = folder.appendingPathComponent("remote_hosts/\(storePath)/simplex_v1_files/photo one.jpg")
        XCTAssertEqual(Array(try Data(contentsOf: cached)), bytes)
        let missing = await rc.execute(
            #"/get remote file 1 {"userId":1,"fileId":3,"sent":true,"fileSource":{"filePath":"nope.jpg"}}"#)
        XCTAssertEqual(missing["error"]?["storeError"]?["type"], .string("fileNotFound"))

        // Encrypted upload: the host keeps the box, and the response carries its key and nonce.
        let encrypted = await rc.execute("/store remote file 1 encrypt=on \(source.path)")
        let args = try XCTUnwrap(encrypted["result"]?["remoteFileSource"]?["cryptoArgs"])
        let name = try XCTUnwrap(encrypted["result"]?["remoteFileSource"]?["filePath"]?.stringValue)
        XCTAssertEqual(name, "photo one_1.jpg")
        let box = Array(try Data(contentsOf: folder.appendingPathComponent("host-files/\(name)")))
        let key = try SecretBox.Key(rawRepresentation: Base64.decode(try XCTUnwrap(args["fileKey"]?.stringValue)))
        let nonce = try SecretBox.Nonce(rawRepresentation: Base64.decode(try XCTUnwrap(args["fileNonce"]?.stringValue)))
        XCTAssertEqual(try SecretBox.openTailTag(box, key: key, nonce: nonce), bytes)

        let listed = try await run(rc, "/list remote hosts")
        guard case .array(let hosts)? = listed["remoteHosts"] else { return XCTFail(listed.rendered) }
        XCTAssertEqual(hosts.first?["sessionState"]?["type"], .string("connected"))

        // A user's stop: no remoteHostStopped.
        events.clear()
        let stoppedByUser = try await run(rc, "/stop remote host 1")
        XCTAssertEqual(stoppedByUser, .object(["type": .string("cmdOk")]))
        let hostExited = await host.waitExit()
        XCTAssertTrue(hostExited, host.output)
        XCTAssertNil(events.all.first { $0["type"] == .string("remoteHostStopped") })
        let afterStop = await rc.currentRemoteHost
        XCTAssertNil(afterStop)
        await assertError(.remoteHost(.id(1), .missing)) { try await self.run(rc, "/stop remote host 1") }

        // The known host again: its CA is pinned, no newRemoteHost; then the host ends the session.
        let again = try await run(rc, "/start remote host 1 addr=127.0.0.1 iface=lo port=0")
        XCTAssertEqual(again["remoteHost_"]?["sessionState"]?["type"], .string("starting"))
        let second = try stub(try XCTUnwrap(again["invitation"]?.stringValue))
        let knownCode = await events.wait("remoteHostSessionCode")
        XCTAssertEqual(knownCode?["remoteHost_"]?["remoteHostId"], .integer(1), second.output)
        let reconnected = await events.wait("remoteHostConnected")
        XCTAssertNotNil(reconnected, second.output)
        XCTAssertNil(events.all.first { $0["type"] == .string("newRemoteHost") })
        second.stopSession()
        let stopped = await events.wait("remoteHostStopped")
        XCTAssertEqual(stopped?["remoteHostId_"], .integer(1))
        XCTAssertEqual(stopped?["rhStopReason"], .object(["type": .string("disconnected")]))
        XCTAssertEqual(stopped?["rhsState"]?["type"], .string("connected"))
        // The binding is kept with the pairing and reused when the next start names none.
        let bound = try await run(rc, "/list remote hosts")
        guard case .array(let boundHosts)? = bound["remoteHosts"] else { return XCTFail(bound.rendered) }
        XCTAssertEqual(
            boundHosts.first?["bindAddress_"], .object(["address": .string("127.0.0.1"), "interface": .string("lo")]))
        XCTAssertEqual(boundHosts.first?["bindPort_"], .integer(0))
        let reused = try await run(rc, "/start remote host 1")
        XCTAssertEqual(reused["remoteHost_"]?["bindAddress_"]?["address"], .string("127.0.0.1"))
        _ = try await run(rc, "/stop remote host 1")

        let deleted = try await run(rc, "/delete remote host 1")
        XCTAssertEqual(deleted, .object(["type": .string("cmdOk")]))
        let empty = try await run(rc, "/list remote hosts")
        XCTAssertEqual(empty["remoteHosts"], .array([]))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("remote_hosts/\(storePath)").path))
        await assertError(.store(type: "remoteHostNotFound", fields: ["remoteHostId": .integer(1)])) {
            try await self.run(rc, "/delete remote host 1")
        }
    }

    /// An iPhone's Swift encoding is converted to the tagged style (xrcp.md §13.3), for responses and events alike.
    func testSwiftEncodingHost() async throws {
        let rc = service()
        let started = try await run(rc, "/start remote host new")
        let host = try stub(
            try XCTUnwrap(started["invitation"]?.stringValue), ["--tamper", "swift-encoding", "--compression", "off"])
        let connected = await events.wait("remoteHostConnected")
        XCTAssertEqual(connected?["compression"], .bool(false), host.output)
        let response = await rc.execute("/_stub event")
        XCTAssertEqual(response.rendered, #"{"remoteHostId":1,"result":{"type":"cmdOk"}}"#)
        let event = await events.wait("stubEvent")
        XCTAssertEqual(event?["n"], .integer(1))
        await rc.stopAll()
    }

    /// A known host's pinned CA: a host presenting another CA is refused, and the session ends with `identity`.
    func testAnotherCAThanTheKnownOneIsRefused() async throws {
        let rc = service()
        let first = try await run(rc, "/start remote host new")
        let host = try stub(try XCTUnwrap(first["invitation"]?.stringValue))
        _ = await events.wait("remoteHostConnected")
        _ = try await run(rc, "/stop remote host 1")
        _ = await host.waitExit()
        events.clear()

        let again = try await run(rc, "/start remote host 1")
        let impostor = try stub(try XCTUnwrap(again["invitation"]?.stringValue), pairing: "other.json")
        let stopped = await events.wait("remoteHostStopped")
        XCTAssertEqual(stopped?["rhStopReason"]?["type"], .string("crashed"), impostor.output)
        XCTAssertEqual(stopped?["rhStopReason"]?["chatError"]?["agentError"]?["rcpErr"]?["type"], .string("identity"))
        XCTAssertNil(events.all.first { $0["type"] == .string("remoteHostConnected") })
        _ = await impostor.waitExit()
        let refused = await impostor.printed(#""stage": "connect""#)
        XCTAssertTrue(refused, impostor.output)
    }

    /// A host whose app version is outside our range hears why in an ERROR block; the session ends with `badVersion`.
    func testAnOldHostIsToldWhy() async throws {
        let rc = service()
        let started = try await run(rc, "/start remote host new")
        let host = try stub(try XCTUnwrap(started["invitation"]?.stringValue), ["--tamper", "old-app-version"])
        let stopped = await events.wait("remoteHostStopped")
        XCTAssertEqual(
            stopped?["rhStopReason"]?["chatError"], ChatError.remoteHost(.new, .badVersion(AppVersion([6, 4, 0, 0]))).json,
            host.output)
        _ = await host.waitExit()
        let toldWhy = await host.printed("ctrlError")
        XCTAssertTrue(toldWhy && host.output.contains("6.4.0.0"), host.output)
        let listed = try await run(rc, "/list remote hosts")
        XCTAssertEqual(listed["remoteHosts"], .array([]), "nothing stored")
    }

    func testTimeoutsAndStateErrors() async throws {
        var timeouts = ControllerTimeouts()
        timeouts.connect = 0.3
        let rc = service(timeouts: timeouts)
        _ = try await run(rc, "/start remote host new")
        let stopped = await events.wait("remoteHostStopped")
        XCTAssertNil(stopped?["remoteHostId_"])
        XCTAssertEqual(stopped?["rhsState"]?["type"], .string("connecting"))
        XCTAssertEqual(
            stopped?["rhStopReason"]?["chatError"],
            ChatError.remoteHost(.new, .timeout).json)

        await assertError(.remoteHost(.new, .missing)) { try await self.run(rc, "/stop remote host new") }
        await assertError(.remoteHost(.id(4), .inactive)) { try await self.run(rc, "/switch remote host 4") }
        await assertError(.store(type: "remoteHostNotFound", fields: ["remoteHostId": .integer(4)])) {
            try await self.run(rc, "/start remote host 4 multicast=on")
        }
        await assertError(.remoteHost(.id(4), .missing)) {
            try await self.run(rc, "/store remote file 4 /etc/hostname")
        }
        let switched = try await run(rc, "/switch remote host local")
        XCTAssertEqual(switched, .object(["type": .string("currentRemoteHost")]))
        let named = try await run(rc, "/set device name Other")
        XCTAssertEqual(named, .object(["type": .string("cmdOk")]))
        let local = await rc.execute("/_get chats 1")
        XCTAssertEqual(local["error"]?["errorType"]?["type"], .string("commandError"))

        let none = ControllerRemoteControl(
            store: store, deviceName: "x", remoteHostsFolder: folder, addresses: { [] }, emit: { _ in })
        await assertError(.rcp(.noLocalAddress)) { try await none.run(.startRemoteHost(.init())) }
    }

    // MARK: With our own host, in process

    func testOurHost() async throws {
        let rc = service()
        let started = try await run(rc, "/start remote host new")
        let setup = HostSessionSetup(
            invitation: try SignedInvitation(uri: try XCTUnwrap(started["invitation"]?.stringValue)).verified(),
            authority: try CertificateAuthority.generate(now: Int64(Date().timeIntervalSince1970), hoursBefore: 1),
            app: HostAppInfo(appVersion: .current, deviceName: "linux-box"), now: Int64(Date().timeIntervalSince1970))
        let host = try HostConnection(setup: setup, handler: OkHandler()) { _ in }
        await host.run()
        let codeEvent = await events.wait("remoteHostSessionCode")
        let code = try XCTUnwrap(codeEvent?["sessionCode"]?.stringValue)
        try await host.verify(code: code)
        let connected = await events.wait("remoteHostConnected")
        XCTAssertEqual(connected?["remoteHost"]?["hostDeviceName"], .string("linux-box"))
        let response = await rc.execute("/v")
        XCTAssertEqual(response.rendered, #"{"remoteHostId":1,"result":{"type":"cmdOk"}}"#)
        await host.stop()
        let stopped = await events.wait("remoteHostStopped")
        XCTAssertEqual(stopped?["rhStopReason"]?["type"], .string("disconnected"))
    }
}

/// Values a callback collected.
final class Collected<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.withLock { items.append(item) } }
    var all: [T] { lock.withLock { items } }
}
