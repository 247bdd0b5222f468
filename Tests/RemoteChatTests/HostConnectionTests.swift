import Foundation
import RemoteChat
import SimplexCrypto
import SimplexNet
import TestPeers
import XCTest
import XRCP

/// A handler that answers every command with a fixed envelope and has no events.
struct CannedHandler: RemoteHostHandler {
    func execute(command: String, retryNumber: Int64) async -> [UInt8] {
        Array(#"{"result":{"type":"cmdOk","echo":"\#(command)"}}"#.utf8)
    }
    func nextEvent(waitMicroseconds: Int64) async -> [UInt8]? { nil }
    func beginStoring(fileName: String, fileSize: UInt32) async throws(RemoteProtocolError) -> any RemoteFileSink {
        throw .invalidBody("not stored here")
    }
    func openFile(_ file: RemoteFile) async throws(RemoteFileError) -> any RemoteFileSource { throw .protocolError(.noFile) }
}

/// Notices collected from a connection, awaited by the test.
final class Notices: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [HostConnection.Notice] = []

    func append(_ n: HostConnection.Notice) { lock.withLock { items.append(n) } }

    func wait(timeout: Double = 10, until match: (HostConnection.Notice) -> Bool) -> HostConnection.Notice? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let found = lock.withLock({ items.first(where: match) }) { return found }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return nil
    }
}

final class HostConnectionTests: XCTestCase {
    /// The host connects out over TCP on 127.0.0.1 (it never listens) and serves a command.
    func testSessionOverLoopbackTCP() async throws {
        let listener = try TCPListener(address: "127.0.0.1")
        let controller = try TestController(port: listener.endpoint.port)
        let queue = DispatchQueue(label: "controller")
        let notices = Notices()
        let app = HostAppInfo(appVersion: .current, deviceName: "linux-box")
        let setup = HostSessionSetup(
            invitation: try controller.signed.verified(),
            authority: try CertificateAuthority.generate(now: controller.now, hoursBefore: 1),
            app: app, now: controller.now)
        let connection = try HostConnection(setup: setup, handler: CannedHandler()) { notices.append($0) }
        let socket = try XCTUnwrap(try listener.accept(timeout: 5))
        let pump = Thread {
            while true {
                guard let bytes = try? socket.read(timeout: 0.02) else { return }
                queue.sync {
                    if !bytes.isEmpty { try? controller.receive(bytes) }
                    let out = controller.tls.takeOutgoing()
                    if !out.isEmpty { try? socket.write(out) }
                }
            }
        }
        pump.start()
        await connection.run()

        guard case .sessionCode(let code)? = notices.wait(until: { if case .sessionCode = $0 { true } else { false } }) else {
            return XCTFail("no session code")
        }
        // The host has its code once its side of TLS is done; the controller's pump may still hold the last bytes.
        var controllerCode: String?
        for _ in 0..<500 where controllerCode == nil {
            controllerCode = queue.sync { controller.info?.sessionCode }
            if controllerCode == nil { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        XCTAssertEqual(controllerCode, code)
        try await connection.verify(code: code)
        XCTAssertNotNil(notices.wait(until: { if case .established = $0 { true } else { false } }))

        let stream = try queue.sync { try controller.request(.send(command: "/v", retryNumber: 0)) }
        var response: RemoteResponse?
        for _ in 0..<500 where response == nil {
            try await Task.sleep(nanoseconds: 10_000_000)
            response = queue.sync { controller.responses[stream]?.0 }
        }
        XCTAssertEqual(response, .chatResponse(rawJSON: Array(#"{"result":{"echo":"/v","type":"cmdOk"}}"#.utf8)))
        await connection.stop()
        XCTAssertNotNil(notices.wait(until: { $0 == .ended(nil) }))
        socket.shutdown()
    }
}
