import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

@testable import XRCP

final class HandshakeTests: XCTestCase {
    private func hostHello(ca: CertificateFingerprint) -> (HostHello, SNTRUP761.KeyPair) {
        let kem = SNTRUP761.KeyPair()
        let app = HostAppInfo(
            appVersion: .current, deviceName: "linux-box", encoding: .kotlin, encryptFiles: false, compression: true)
        return (HostHello(ca: ca, app: app, kemPublicKey: kem.publicKey), kem)
    }

    func testFullHandshakeGivesBothSidesTheSameKeys() throws {
        let ca = try CertificateFingerprint(rawRepresentation: SecureRandom.bytes(32))
        let (hello, kem) = hostHello(ca: ca)
        let hostDH = X25519.PrivateKey()
        let controllerDH = X25519.PrivateKey()
        let nonce = SecretBox.Nonce.random()
        let block = try hello.sealedBlock(hostKey: hostDH, controllerKey: controllerDH.publicKey, nonce: nonce)
        XCTAssertEqual(block.count, 16384)
        // "HELLO " ‖ 0x2c ‖ SPKI ‖ nonce at the front; the message is 12379 bytes (prefix 30 5b).
        XCTAssertEqual(Array(block.prefix(2)), [0x30, 0x5b])
        XCTAssertEqual(Array(block[2..<8]), Array("HELLO ".utf8))
        XCTAssertEqual(Array(block[9..<53]), hostDH.publicKey.spki)
        XCTAssertEqual(Array(block[53..<77]), nonce.rawRepresentation)

        let (received, dhSecret) = try HostHello.open(block: block, controllerKey: controllerDH)
        XCTAssertEqual(received, hello)
        let (controllerBlock, controllerKeys) = try ControllerBlock.sealHello(to: received, dhSecret: dhSecret)
        XCTAssertEqual(controllerBlock.count, 16384)
        XCTAssertEqual(Array(controllerBlock.prefix(2)), [0x34, 0x27])  // 13351-byte message
        let hostKeys = try ControllerBlock.open(
            block: controllerBlock, kemSecretKey: kem.secretKey, dhSecret: try hostDH.sharedSecret(with: controllerDH.publicKey))
        XCTAssertEqual(hostKeys.controllerToHost.rawRepresentation, controllerKeys.controllerToHost.rawRepresentation)
        XCTAssertEqual(hostKeys.hostToController.rawRepresentation, controllerKeys.hostToController.rawRepresentation)
    }

    func testHelloFailures() throws {
        let (hello, kem) = hostHello(ca: try CertificateFingerprint(rawRepresentation: SecureRandom.bytes(32)))
        let hostDH = X25519.PrivateKey()
        let controllerDH = X25519.PrivateKey()
        let block = try hello.sealedBlock(hostKey: hostDH, controllerKey: controllerDH.publicKey)
        XCTAssertEqual(thrown { try HostHello.open(block: block, controllerKey: X25519.PrivateKey()) } as? XRCPError, .decrypt)
        XCTAssertEqual(
            thrown { try HostHello.open(block: Array(block.dropLast()), controllerKey: controllerDH) } as? XRCPError, .blockSize)
        var bad = block
        bad[0] = 0x7f  // length beyond the block
        XCTAssertEqual(thrown { try HostHello.open(block: bad, controllerKey: controllerDH) } as? XRCPError, .blockSize)
        bad = block
        bad[2] = UInt8(ascii: "J")
        XCTAssertEqual(
            thrown { try HostHello.open(block: bad, controllerKey: controllerDH) } as? XRCPError, .syntax("expected HELLO"))

        // An ERROR block reaches the host as ctrlError with its text.
        let dh = try hostDH.sharedSecret(with: controllerDH.publicKey)
        let errorBlock = try ControllerBlock.sealError("host is not allowed", dhSecret: dh)
        XCTAssertEqual(
            thrown { try ControllerBlock.open(block: errorBlock, kemSecretKey: kem.secretKey, dhSecret: dh) } as? XRCPError,
            .ctrlError("host is not allowed"))
        // A HELLO for another KEM key fails to decrypt.
        let (helloBlock, _) = try ControllerBlock.sealHello(to: hello, dhSecret: dh)
        XCTAssertEqual(
            thrown { try ControllerBlock.open(block: helloBlock, kemSecretKey: SNTRUP761.KeyPair().secretKey, dhSecret: dh) }
                as? XRCPError,
            .decrypt)
        var unknown = helloBlock
        unknown[2] = UInt8(ascii: "X")
        XCTAssertEqual(
            thrown { try ControllerBlock.open(block: unknown, kemSecretKey: kem.secretKey, dhSecret: dh) } as? XRCPError,
            .syntax("unknown block tag"))
        // Random blocks never trap.
        for _ in 0..<200 {
            var junk = SecureRandom.bytes(16384)
            junk[0] = 0x20
            _ = try? HostHello.open(block: junk, controllerKey: controllerDH)
            _ = try? ControllerBlock.open(block: junk, kemSecretKey: kem.secretKey, dhSecret: dh)
        }
    }

    func testTVMCASTAnnouncement() throws {
        let signed = try SignedInvitation(uri: SpecKeys.exampleURI)
        let nonce = try SecretBox.Nonce(rawRepresentation: Array(0x40...0x57))
        let packet = try Announcement.seal(
            signed, controllerKey: SpecKeys.controllerDH, hostKey: SpecKeys.hostDH.publicKey, nonce: nonce)
        XCTAssertEqual(packet.count, 985)
        XCTAssertEqual(Hex.encode(Digest.sha256(packet)), "ae08f0cb3b988fa8ccf99487511da2ff271e5913d06614fdc90871a0185725a0")

        let other = X25519.PrivateKey()
        let (found, index) = try Announcement.open(packet, keys: [other, SpecKeys.hostDH], sourceAddress: "192.168.1.10")
        XCTAssertEqual(index, 1)
        XCTAssertEqual(found.uri, SpecKeys.exampleURI)
        XCTAssertEqual(
            thrown { try Announcement.open(packet, keys: [other], sourceAddress: "192.168.1.10") } as? XRCPError, .ctrlNotFound)
        XCTAssertEqual(
            thrown { try Announcement.open(packet, keys: [SpecKeys.hostDH], sourceAddress: "10.0.0.1") } as? XRCPError,
            .invitation)
        XCTAssertThrowsError(
            try Announcement.open(Array(packet.prefix(30)), keys: [SpecKeys.hostDH], sourceAddress: "192.168.1.10"))
        // A URI too long for 900 bytes cannot be announced.
        var long = SpecKeys.exampleInvitation
        long.app = ControllerAppInfo(deviceName: String(repeating: "d", count: 300)).json
        let longSigned = long.signed(sessionKey: SpecKeys.session, identityKey: SpecKeys.identity)
        XCTAssertEqual(
            thrown { try Announcement.seal(longSigned, controllerKey: SpecKeys.controllerDH, hostKey: SpecKeys.hostDH.publicKey) }
                as? XRCPError, .encrypt)
    }
}
