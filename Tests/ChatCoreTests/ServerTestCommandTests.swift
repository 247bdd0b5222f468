import ChatCore
import Foundation
import SimplexEncoding
import SimplexNet
import XCTest

/// `/_server test` through both engines, against a port nothing listens on (the network's part is checked end to end
/// against real servers in Tests/EndToEnd/server_test.py): the connect step with the agent's connect error.
final class ServerTestCommandTests: XCTestCase {
    /// A port the kernel just gave a listener that is gone again.
    private func closedPort() throws -> UInt16 {
        try TCPListener(address: "127.0.0.1").endpoint.port
    }

    /// The failure's JSON, keys sorted as the harness reads envelopes.
    private func refused(_ address: String) throws -> String {
        let text =
            #"{"testStep":"connect","testError":{"type":"BROKER","brokerAddress":"\#(address)","brokerErr":{"type":"NETWORK","networkError":{"type":"connectError","connectError":"connection refused"}}}}"#
        return try CanonicalJSON.parse(Array(text.utf8)).rendered
    }

    func testEngine() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let address = "smp://AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=@127.0.0.1:\(try closedPort())"
        let r = await h.result("/_server test 1 \(address)", "serverTestResult")
        XCTAssertEqual(r["testServer"]?.stringValue, address)
        XCTAssertEqual(r["testFailure"]?.rendered, try refused(address))
        let human = await h.result("/smp test \(address)", "serverTestResult")
        XCTAssertEqual(human["testFailure"]?.rendered, try refused(address))
        let e = await h.chatError("/_server test 1 smp://not-an-address", "commandError")
        XCTAssertTrue(e["message"]?.stringValue?.hasPrefix("invalid server address") == true, "\(e)")
        let x = await h.chatError("/_server test 1 xftp://a2V5@127.0.0.1:1", "commandError")
        XCTAssertEqual(x["message"]?.stringValue, "xftp server tests are not served by the embedded core yet")
    }

    func testBlockingEngine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("server-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = try BlockingChatEngine(prefix: folder.path + "/simplex_v1")
        _ = engine.execute("/create user alice")
        _ = engine.execute("/_start")
        let address = "smp://AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=@127.0.0.1:\(try closedPort())"
        let text = engine.execute("/_server test 1 \(address)").text
        let envelope = try CanonicalJSON.parse(Array(text.utf8))
        XCTAssertEqual(envelope["result"]?["type"]?.stringValue, "serverTestResult", text)
        XCTAssertEqual(envelope["result"]?["testFailure"]?.rendered, try refused(address), text)
    }
}
