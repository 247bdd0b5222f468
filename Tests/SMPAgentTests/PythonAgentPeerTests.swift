import Foundation
import SMP
import SMPAgent
import SMPServerProcess
import TestSupport
import XCTest

/// `Tests/Peers/agent_peer.py`, an agent written from the specification alone, as a process driven over its JSON
/// line protocol (documented at the top of the script).
final class PythonAgent: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let lock = NSLock()
    private var lines: [[String: Any]] = []
    private var reader: Thread?

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: try Python.interpreter())
        process.arguments = [Python.script("Tests/Peers/agent_peer.py")] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = output.fileHandleForReading
        let thread = Thread { [weak self] in
            var buffer: [UInt8] = []
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                buffer += chunk
                while let end = buffer.firstIndex(of: 0x0a) {
                    let line = Data(buffer[..<end])
                    buffer.removeSubrange(...end)
                    guard let self, let event = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else {
                        continue
                    }
                    self.lock.lock()
                    self.lines.append(event)
                    self.lock.unlock()
                }
            }
        }
        reader = thread
        thread.start()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    func send(_ command: [String: Any]) throws {
        var data = try JSONSerialization.data(withJSONObject: command)
        data.append(0x0a)
        input.fileHandleForWriting.write(data)
    }

    func events(_ name: String) -> [[String: Any]] {
        lock.lock()
        defer { lock.unlock() }
        return lines.filter { $0["event"] as? String == name }
    }

    /// The first `count` events called `name`, waiting up to `timeout` seconds.
    @discardableResult
    func wait(_ name: String, count: Int = 1, timeout: Double = 20) async throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(timeout)
        while events(name).count < count {
            if Date() > deadline || !process.isRunning {
                throw PeerFailure("\(events(name).count) of \(count) \(name) from agent_peer.py; errors: \(events("error"))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return Array(events(name).prefix(count))
    }

    func quit() {
        try? send(["quit": true])
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// Our agent against the independent Python agent through our SMP server, in both roles of the fast duplex
/// handshake (smp.md §4.5), then messages both ways with delivery receipts (§4.7, §4.9).
final class PythonAgentPeerTests: XCTestCase {
    static let count = 20

    /// Chat JSON as the peer parses it (smp.md §6.2): the conn info and the text messages.
    static func xInfo(_ name: String) -> [UInt8] {
        bytes(#"{"v":"1-16","event":"x.info","params":{"profile":{"displayName":"\#(name)","fullName":""}}}"#)
    }

    static func xMsgNew(_ text: String, _ n: Int) -> [UInt8] {
        bytes(#"{"v":"1-16","msgId":"bXNn\#(n)","event":"x.msg.new","params":{"content":{"text":"\#(text)","type":"text"}}}"#)
    }

    /// Our side of the Python agent's confirmation: its profile in `CONF`, our allow, then `CON`.
    func allowPython(_ swift: TestAgent, _ conn: AgentConnId) async throws {
        let (confirmationId, info) = try await swift.inbox.take("CONF") { e -> (String, [UInt8])? in
            if case .conf(conn, let id, _, let info) = e { return (id, info) }
            return nil
        }
        XCTAssertTrue(String(decoding: info, as: UTF8.self).contains(#""displayName":"python""#))
        try await swift.agent.allowConnection(conn, confirmationId: confirmationId, connInfo: Self.xInfo("swift"))
        try await swift.inbox.take("CON") { e in e == .con(conn) ? () : nil }
    }

    /// The Python agent's `connected`, with our profile.
    func pythonConnected(_ python: PythonAgent) async throws {
        let connected = try await python.wait("connected")
        XCTAssertEqual((connected[0]["profile"] as? [String: Any])?["displayName"] as? String, "swift")
    }

    /// `count` messages each way with receipts both ways, on a connection that is up at both ends; then both end.
    func conversationThenClose(_ swift: TestAgent, _ conn: AgentConnId, _ python: PythonAgent) async throws {
        var ids: [InternalMessageId] = []
        for i in 0..<Self.count { ids.append(try await swift.agent.sendMessage(conn, body: Self.xMsgNew("swift \(i)", i))) }
        let received = try await python.wait("message", count: Self.count)
        XCTAssertEqual(received.map { $0["text"] as? String }, (0..<Self.count).map { "swift \($0)" })
        XCTAssertEqual(Set(received.map { $0["integrity"] as? String }), ["ok"])
        var receipted = Set<Int64>()
        while receipted.count < Self.count {
            let r = try await swift.inbox.take("RCVD from the Python agent") { e -> [MessageReceipt]? in
                if case .rcvd(conn, _, let r) = e { return r }
                return nil
            }
            for receipt in r {
                XCTAssertEqual(receipt.status, .ok)
                receipted.insert(receipt.msgId.value)
            }
        }
        XCTAssertEqual(receipted, Set(ids.map(\.value)))

        for i in 0..<Self.count { try python.send(["send": "python \(i)"]) }
        for i in 0..<Self.count {
            let (body, meta) = try await swift.inbox.take("MSG python \(i)") { e -> (String, MessageMeta)? in
                if case .msg(conn, let meta, let body) = e { return (String(decoding: body, as: UTF8.self), meta) }
                return nil
            }
            XCTAssertTrue(body.contains(#""text":"python \#(i)""#), body)
            XCTAssertEqual(meta.integrity, .ok)
        }
        let receipts = try await python.wait("receipt", count: Self.count)
        XCTAssertEqual(Set(receipts.map { $0["status"] as? String }), ["ok"])
        python.quit()
        await swift.close()
    }

    func testSwiftCreatesPythonJoins() async throws {
        let server = try TestSMPServer()
        let swift = try await TestAgent(server: server.server)
        let (conn, link) = try await swift.agent.createConnection()
        let python = try PythonAgent(["join", link, "--name", "python", "--auto-receipts"])
        try await allowPython(swift, conn)
        try await pythonConnected(python)
        try await conversationThenClose(swift, conn, python)
    }

    func testPythonCreatesSwiftJoins() async throws {
        let server = try TestSMPServer()
        let swift = try await TestAgent(server: server.server)
        let python = try PythonAgent(["create", server.address, "--name", "python", "--auto-receipts"])
        let invitation = try await python.wait("invitation")
        let link = try XCTUnwrap(invitation[0]["link"] as? String)
        let conn = try await swift.agent.joinConnection(link, connInfo: Self.xInfo("swift"))
        let info = try await swift.inbox.take("INFO") { e -> [UInt8]? in
            if case .info(conn, let info) = e { return info }
            return nil
        }
        XCTAssertTrue(String(decoding: info, as: UTF8.self).contains(#""displayName":"python""#))
        try await swift.inbox.take("CON") { e in e == .con(conn) ? () : nil }
        let confirmation = try await python.wait("confirmation")
        XCTAssertEqual((confirmation[0]["profile"] as? [String: Any])?["displayName"] as? String, "swift")
        try await python.wait("connected")
        try await conversationThenClose(swift, conn, python)
    }
}

extension PythonAgentPeerTests {
    /// Our address, the Python agent's request (role R of smp.md §4.6): `REQ` with its x.contact, our accept joins
    /// its invitation.
    func testPythonRequestsToOurAddress() async throws {
        let server = try TestSMPServer()
        let swift = try await TestAgent(server: server.server)
        let (address, link) = try await swift.agent.createAddress()
        let python = try PythonAgent(["join", link, "--name", "python", "--auto-receipts"])
        let (invitationId, info) = try await swift.inbox.take("REQ") { e -> ([UInt8], [UInt8])? in
            if case .req(address, let id, let info) = e { return (id, info) }
            return nil
        }
        let request = String(decoding: info, as: UTF8.self)
        XCTAssertTrue(request.contains(#""event":"x.contact""#) && request.contains(#""displayName":"python""#), request)
        let conn = try await swift.agent.acceptContact(invitationId: invitationId, connInfo: Self.xInfo("swift"))
        try await swift.inbox.take("CON") { e in e == .con(conn) ? () : nil }
        try await pythonConnected(python)
        try await conversationThenClose(swift, conn, python)
    }

    /// The Python agent's address (role O), our request: it accepts by joining our invitation, we allow.
    func testWeRequestToPythonAddress() async throws {
        let server = try TestSMPServer()
        let swift = try await TestAgent(server: server.server)
        let python = try PythonAgent(["address", server.address, "--name", "python", "--auto-receipts"])
        let address = try await python.wait("address")
        let link = try XCTUnwrap(address[0]["link"] as? String)
        let xContact = bytes(
            #"{"v":"1-16","event":"x.contact","params":{"contactReqId":"cmVx","profile":{"displayName":"swift","fullName":""}}}"#)
        let conn = try await swift.agent.joinConnection(link, connInfo: xContact)
        try await allowPython(swift, conn)
        try await python.wait("connected")
        try await conversationThenClose(swift, conn, python)
    }
}
