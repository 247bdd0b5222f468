import RemoteChat
import SimplexCrypto
import SimplexEncoding
import XCTest
import XRCP

/// Our controller against our host, in memory: both roles of the same module meet.
final class ControllerSessionTests: XCTestCase {
    private let now: Int64 = 1_780_000_000

    private func pair(
        knownHost: CertificateFingerprint? = nil, hostCA: CertificateAuthority? = nil, hostVersion: AppVersion = .current
    ) throws -> (ControllerSession, HostSession, CertificateAuthority) {
        let controller = try ControllerSession(
            ControllerSessionSetup(
                authority: try CertificateAuthority.generate(now: now, hoursBefore: 25), identityKey: Ed25519.PrivateKey(),
                knownHost: knownHost, app: ControllerAppInfo(deviceName: "Desktop"), host: "127.0.0.1", port: 1, now: now))
        let ca = try hostCA ?? CertificateAuthority.generate(now: now, hoursBefore: 1)
        let host = try HostSession(
            HostSessionSetup(
                invitation: try SignedInvitation(uri: controller.invitation.uri).verified(), authority: ca,
                app: HostAppInfo(appVersion: hostVersion, deviceName: "linux-box"), now: now))
        return (controller, host, ca)
    }

    /// Moves bytes until quiet; returns both sides' events.
    @discardableResult
    private func pump(_ c: ControllerSession, _ h: HostSession) throws -> (
        controller: [ControllerSessionEvent], host: [HostSessionEvent]
    ) {
        var ce: [ControllerSessionEvent] = []
        var he: [HostSessionEvent] = []
        while true {
            let a = h.takeOutgoing()
            if !a.isEmpty { ce += try c.receive(a) }
            let b = c.takeOutgoing()
            if !b.isEmpty { he += try h.receive(b) }
            if a.isEmpty && b.isEmpty { return (ce, he) }
        }
    }

    func testPairingCommandsAndFiles() throws {
        let (controller, host, hostCA) = try pair()
        var (ce, he) = try pump(controller, host)
        guard case .sessionCode(let code)? = ce.first else { return XCTFail("no code on the controller") }
        XCTAssertEqual(he, [.sessionCode(code)])
        try host.verify(code: code)
        (ce, he) = try pump(controller, host)
        guard case .established(let hostApp, let fingerprint, _, let compression)? = ce.first else { return XCTFail("\(ce)") }
        XCTAssertEqual(hostApp.deviceName, "linux-box")
        XCTAssertEqual(fingerprint, hostCA.certificate.fingerprint)
        XCTAssertTrue(compression)
        XCTAssertEqual(he.first, .established(controller: ControllerAppInfo(deviceName: "Desktop"), compression: true))

        let s1 = try controller.request(.send(command: "/_get chats 1 pcc=on", retryNumber: 0))
        (_, he) = try pump(controller, host)
        XCTAssertEqual(he, [.command(stream: s1, .send(command: "/_get chats 1 pcc=on", retryNumber: 0))])
        try host.respond(stream: s1, .chatResponse(rawJSON: Array(#"{"result":{"type":"apiChats","chats":[]}}"#.utf8)))
        (ce, _) = try pump(controller, host)
        XCTAssertEqual(
            ce, [.response(stream: s1, .chatResponse(rawJSON: Array(#"{"result":{"chats":[],"type":"apiChats"}}"#.utf8)))])

        let file = SecureRandom.bytes(100_000)
        let s2 = try controller.request(
            .storeFile(fileName: "a.bin", fileSize: UInt32(file.count), fileDigest: Digest.sha512(file)))
        for offset in stride(from: 0, to: file.count, by: 30_000) {
            try controller.sendFile(stream: s2, Array(file[offset..<min(offset + 30_000, file.count)]))
        }
        try controller.finishFile(stream: s2)
        (_, he) = try pump(controller, host)
        XCTAssertEqual(he.last, .fileEnded(stream: s2))
        try host.respond(stream: s2, .fileStored(filePath: "a.bin"))

        let remote = RemoteFile(userId: 1, fileId: 1, sent: true, fileSource: .object(["filePath": .string("a.bin")]))
        let s3 = try controller.request(.getFile(remote))
        let stored = try pump(controller, host).controller
        XCTAssertEqual(stored, [.response(stream: s2, .fileStored(filePath: "a.bin"))])
        try host.respond(stream: s3, .file(fileSize: UInt32(file.count), fileDigest: Digest.sha512(file)))
        try host.sendFile(stream: s3, file)
        try host.finishFile(stream: s3)
        (ce, _) = try pump(controller, host)
        XCTAssertEqual(ce.first, .fileStarted(stream: s3, fileSize: UInt32(file.count)))
        XCTAssertEqual(ce.last, .fileEnded(stream: s3))
        var received: [UInt8] = []
        for case .fileData(_, let bytes) in ce { received += bytes }
        XCTAssertEqual(received, file)
    }

    func testAKnownHostWithAnotherCAIsRefused() throws {
        let known = try CertificateFingerprint(rawRepresentation: SecureRandom.bytes(32))
        let (controller, host, _) = try pair(knownHost: known)
        XCTAssertThrowsError(try pump(controller, host))
    }

    func testAnOldHostIsRefusedWithItsVersion() throws {
        let (controller, host, _) = try pair(hostVersion: AppVersion([6, 4, 0]))
        let (ce, _) = try pump(controller, host)
        guard case .sessionCode(let code)? = ce.first else { return XCTFail() }
        try host.verify(code: code)
        XCTAssertThrowsError(try pump(controller, host)) { error in
            XCTAssertEqual(error as? ControllerSessionError, .badVersion(AppVersion([6, 4, 0])))
        }
    }
}
