import RemoteChat
import SimplexCrypto
import SimplexEncoding
import TestPeers
import XCTest
import XRCP

final class HostSessionTests: XCTestCase {
    private func setup(_ controller: TestController, compression: Bool = true) throws -> HostSession {
        let app = HostAppInfo(appVersion: .current, deviceName: "linux-box", compression: compression)
        return try HostSession(
            HostSessionSetup(
                invitation: try controller.signed.verified(),
                authority: try CertificateAuthority.generate(now: controller.now, hoursBefore: 1),
                app: app, compression: compression, now: controller.now))
    }

    /// Moves bytes both ways until both sides are quiet; returns the host's events.
    @discardableResult
    private func pump(_ host: HostSession, _ controller: TestController) throws -> [HostSessionEvent] {
        var events: [HostSessionEvent] = []
        while true {
            let h = host.takeOutgoing()
            if !h.isEmpty { try controller.receive(h) }
            let c = controller.tls.takeOutgoing()
            if !c.isEmpty { events += try host.receive(c) }
            if h.isEmpty && c.isEmpty { return events }
        }
    }

    private func connect(compression: Bool = true) throws -> (HostSession, TestController) {
        let controller = try TestController(compression: compression)
        let host = try setup(controller, compression: compression)
        let events = try pump(host, controller)
        let code = try XCTUnwrap(controller.info?.sessionCode)
        XCTAssertEqual(events, [.sessionCode(code)])
        XCTAssertNil(controller.hostHello, "nothing is sent before the user confirms")
        try host.verify(code: code.replacingOccurrences(of: " ", with: ""))
        let established = try pump(host, controller)
        XCTAssertEqual(
            established.first, .established(controller: try controller.signed.invitation.appInfo(), compression: compression))
        XCTAssertEqual(controller.hostHello?.app.deviceName, "linux-box")
        return (host, controller)
    }

    func testCommandsResponsesAndFilesBothWays() throws {
        for compression in [true, false] {
            let (host, controller) = try connect(compression: compression)
            // send → command → chatResponse
            let s1 = try controller.request(.send(command: "/v", retryNumber: 0))
            XCTAssertEqual(try pump(host, controller), [.command(stream: s1, .send(command: "/v", retryNumber: 0))])
            try host.respond(stream: s1, .chatResponse(rawJSON: Array(#"{"result":{"type":"versionInfo"}}"#.utf8)))
            try pump(host, controller)
            XCTAssertEqual(controller.responses[s1]?.0, .chatResponse(rawJSON: Array(#"{"result":{"type":"versionInfo"}}"#.utf8)))

            // recv that timed out
            let s2 = try controller.request(.recv(wait: 1000))
            XCTAssertEqual(try pump(host, controller), [.command(stream: s2, .recv(wait: 1000))])
            try host.respond(stream: s2, .chatEvent(rawJSON: nil))
            try pump(host, controller)
            XCTAssertEqual(controller.responses[s2]?.0, .chatEvent(rawJSON: nil))

            // storeFile: the file arrives decrypted, checked against its digest
            let file = SecureRandom.bytes(300_000)
            let s3 = try controller.request(
                .storeFile(fileName: "photo.jpg", fileSize: UInt32(file.count), fileDigest: Digest.sha512(file)), file: file)
            let events = try pump(host, controller)
            XCTAssertEqual(events.first, .fileStarted(stream: s3, fileName: "photo.jpg", fileSize: UInt32(file.count)))
            XCTAssertEqual(events.last, .fileEnded(stream: s3))
            var received: [UInt8] = []
            for case .fileData(_, let bytes) in events { received += bytes }
            XCTAssertEqual(received, file)
            try host.respond(stream: s3, .fileStored(filePath: "photo.jpg"))
            try pump(host, controller)
            XCTAssertEqual(controller.responses[s3]?.0, .fileStored(filePath: "photo.jpg"))

            // getFile: the response carries the file, streamed in pieces
            let remote = RemoteFile(userId: 1, fileId: 7, sent: true, fileSource: .object(["filePath": .string("photo.jpg")]))
            let s4 = try controller.request(.getFile(remote))
            XCTAssertEqual(try pump(host, controller), [.command(stream: s4, .getFile(remote))])
            try host.respond(stream: s4, .file(fileSize: UInt32(file.count), fileDigest: Digest.sha512(file)))
            for offset in stride(from: 0, to: file.count, by: 16384) {
                try host.sendFile(stream: s4, Array(file[offset..<min(offset + 16384, file.count)]))
                try pump(host, controller)
            }
            try host.finishFile(stream: s4)
            try pump(host, controller)
            XCTAssertEqual(controller.responses[s4]?.1, file)
        }
    }

    func testWrongCodeEndsTheSessionAndSendsNothing() throws {
        let controller = try TestController()
        let host = try setup(controller)
        try pump(host, controller)
        XCTAssertThrowsError(try host.verify(code: "12345")) { XCTAssertEqual($0 as? HostSessionError, .sessionCode) }
        _ = try? pump(host, controller)
        XCTAssertNil(controller.hostHello)
        XCTAssertTrue(controller.pending.isEmpty)
    }

    func testReplayedAndForgedRequestsAreRefused() throws {
        let (host, controller) = try connect()
        let body = try controller.sealNext(.send(command: "/users", retryNumber: 0))
        let s1 = try controller.requestRaw(body)
        XCTAssertEqual(try pump(host, controller), [.command(stream: s1, .send(command: "/users", retryNumber: 0))])
        try host.respond(stream: s1, .chatResponse(rawJSON: Array(#"{"result":{"type":"usersList","users":[]}}"#.utf8)))
        // The same bytes again: a replay, refused without reaching the core.
        let s2 = try controller.requestRaw(body)
        XCTAssertEqual(try pump(host, controller), [.refused(stream: s2, .duplicateId)])
        XCTAssertEqual(controller.responses[s2]?.0, .protocolError(.invalidBody(#"{"type":"pREDuplicateId"}"#)))
        // A flipped byte breaks the signatures.
        var forged = try controller.sealNext(.send(command: "/_start", retryNumber: 0))
        forged[20] ^= 0x01
        let s3 = try controller.requestRaw(forged)
        XCTAssertEqual(try pump(host, controller), [.refused(stream: s3, .remoteControl(.ctrlAuth))])
        // A file whose digest does not match is refused after its bytes.
        let file = SecureRandom.bytes(1000)
        let s4 = try controller.request(.storeFile(fileName: "x", fileSize: 1000, fileDigest: Digest.sha512([1])), file: file)
        XCTAssertEqual(try pump(host, controller).last, .refused(stream: s4, .fileDigest))
    }
}
