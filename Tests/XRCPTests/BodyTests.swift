import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

@testable import XRCP

final class BodyTests: XCTestCase {
    /// The session keys of TV-HYBRID / TV-CHAIN, with the HELLO's first step taken.
    private func specKeys() throws -> SessionKeys {
        let dh = try SpecKeys.controllerDH.sharedSecret(with: SpecKeys.hostDH.publicKey)
        var keys = SessionKeys(dh: dh, kem: try SNTRUP761.SharedSecret(rawRepresentation: Array(0x60...0x7f)))
        _ = keys.controllerToHost.next()
        return keys
    }

    private func pair(compression: Bool = false, code: [UInt8] = Array(0xa0...0xbf)) throws -> (RemoteCrypto, RemoteCrypto) {
        let keys = try specKeys()
        return (
            RemoteCrypto.controller(
                keys: keys, sessionCode: code, compression: compression, sessionKey: SpecKeys.session,
                identityKey: SpecKeys.identity),
            RemoteCrypto.host(
                keys: keys, sessionCode: code, compression: compression, sessionKey: SpecKeys.session.publicKey,
                identityKey: SpecKeys.identity.publicKey)
        )
    }

    func testTVBODY() throws {
        var (controller, host) = try pair()
        let (body, _) = try controller.seal(json: Array(#"{"type":"recv","wait":10000000}"#.utf8))
        XCTAssertEqual(body.count, 218)
        XCTAssertEqual(
            Hex.encode(body),
            "0000000100000050"
                + "698138d9ae4ec57b8161cde94a4a8351172b35e1ac11f5f77ba082922112f20f967435787c2c4637148183851397e4a355b40491ce22634ad5bbbce51d10a00bdcc4033fdf1dac72f7f9d54c327a6bb6"
                + "40a48932a0427b89127b81102a633012a74529deb20346259c8e97af9d2d3331fc1e3fad8086f0f08e11578d38691ce41a9c7731d2b2f6b45d15aba6922d66080a"
                + "4056de8fea16f92d0045be56eb8b8710dde25653e6504c849c8248235eb65f5b85100ff2a11f609bb11c226977bda18463e53f1b2130d63032ce1e5b31f9036f09"
        )
        XCTAssertEqual(try host.bodyLength(prefix: body), 218)
        let opened = try host.open(body + [0x01, 0x02])
        XCTAssertEqual(opened.json, Array(#"{"type":"recv","wait":10000000}"#.utf8))
        XCTAssertEqual(opened.consumed, 218)
    }

    func testResponsesAreUnsignedAndUseTheOtherChain() throws {
        for compression in [false, true] {
            var (controller, host) = try pair(compression: compression)
            let json = Array((#"{"type":"chatResponse","chatResponse":"# + String(repeating: "x", count: 5000) + "}").utf8)
            let (response, hostFileKey) = try host.seal(json: json)
            XCTAssertEqual(try controller.bodyLength(prefix: response), response.count)
            let opened = try controller.open(response)
            XCTAssertEqual(opened.json, json)
            XCTAssertEqual(opened.fileKey, hostFileKey)
            if compression { XCTAssertLessThan(response.count, 1000) }
        }
    }

    func testCounterWindow() throws {
        var (controller, host) = try pair()
        var bodies: [[UInt8]] = []
        for i in 0..<5 { bodies.append(try controller.seal(json: Array("{\"n\":\(i)}".utf8)).body) }
        // Out of order: 3 first, then 1 and 2 from the skipped keys, then 3 again is a duplicate.
        XCTAssertEqual(try host.open(bodies[2]).json, Array("{\"n\":2}".utf8))
        XCTAssertEqual(try host.open(bodies[0]).json, Array("{\"n\":0}".utf8))
        XCTAssertEqual(thrown { try host.open(bodies[2]) } as? RemoteProtocolError, .duplicateId)
        XCTAssertEqual(try host.open(bodies[1]).json, Array("{\"n\":1}".utf8))
        XCTAssertEqual(thrown { try host.open(bodies[0]) } as? RemoteProtocolError, .earlierId(2))
        XCTAssertEqual(try host.open(bodies[4]).json, Array("{\"n\":4}".utf8))
        XCTAssertEqual(try host.open(bodies[3]).json, Array("{\"n\":3}".utf8))
        // More than 256 ahead.
        for _ in 0..<300 { _ = try controller.seal(json: Array("{}".utf8)) }
        let far = try controller.seal(json: Array("{}".utf8)).body
        XCTAssertEqual(thrown { try host.open(far) } as? RemoteProtocolError, .manySkippedIds(301))
    }

    func testAuthenticationFailures() throws {
        var (controller, host) = try pair()
        var body = try controller.seal(json: Array("{}".utf8)).body
        // A command signed by another identity key never reaches decryption.
        let keys = try specKeys()
        var impostor = RemoteCrypto.controller(
            keys: keys, sessionCode: Array(0xa0...0xbf), compression: false, sessionKey: SpecKeys.session,
            identityKey: Ed25519.PrivateKey())
        XCTAssertEqual(
            thrown { try host.open(impostor.seal(json: Array("{}".utf8)).body) } as? RemoteProtocolError,
            .remoteControl(.ctrlAuth))
        // A flipped ciphertext bit breaks the signature first.
        body[10] ^= 1
        XCTAssertEqual(thrown { try host.open(body) } as? RemoteProtocolError, .remoteControl(.ctrlAuth))
        // Another session code inside the box.
        var (other, hostOfOther) = try pair(code: Array(repeating: 7, count: 32))
        _ = hostOfOther
        let foreign = try other.seal(json: Array("{}".utf8)).body
        var (_, host2) = try pair()
        XCTAssertEqual(thrown { try host2.open(foreign) } as? RemoteProtocolError, .sessionCode)
        // Truncated and oversized bodies.
        XCTAssertEqual(thrown { try host2.open([0, 0, 0, 1]) } as? RemoteProtocolError, .invalidBody("truncated body"))
        XCTAssertEqual(thrown { try host2.open([0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff]) } as? RemoteProtocolError, .invalidSize)
        for _ in 0..<300 { _ = try? host2.open(SecureRandom.bytes(Int.random(in: 0..<300))) }
    }

    func testAttachmentHeader() throws {
        XCTAssertEqual(try Attachment.header(fileSize: 5), [0x01, 0, 0, 0, 21])
        XCTAssertNoThrow(try Attachment.checkHeader([0x01, 0, 0, 0, 21], fileSize: 5))
        XCTAssertEqual(thrown { try Attachment.checkHeader([0x00, 0, 0, 0, 21], fileSize: 5) } as? RemoteProtocolError, .noFile)
        XCTAssertEqual(
            thrown { try Attachment.checkHeader([0x01, 0, 0, 0, 20], fileSize: 5) } as? RemoteProtocolError, .fileSize)
        XCTAssertEqual(thrown { try Attachment.header(fileSize: 0xffff_fff0) } as? RemoteProtocolError, .fileSize)
    }

    func testErrorJSONTags() {
        XCTAssertEqual(XRCPError.tlsStartFailed.json.rendered, #"{"type":"tLSStartFailed"}"#)
        XCTAssertEqual(
            RemoteProtocolError.remoteControl(.ctrlAuth).json.rendered,
            #"{"rcError":{"type":"ctrlAuth"},"type":"pRERemoteControl"}"#)
        XCTAssertEqual(RemoteProtocolError.earlierId(3).json.rendered, #"{"data":3,"type":"pREEarlierId"}"#)
        XCTAssertEqual(XRCPError.syntax("x").json.rendered, #"{"syntaxErr":"x","type":"syntax"}"#)
    }
}
