import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

@testable import SMP

/// The SPKI key forms of smp.md §1.3, checked against keys and a signature made by `cryptography` (Vectors/ed448.json).
final class KeyTests: XCTestCase {
    func testEd448AndX448() throws {
        let v = try vectors("ed448")
        let spki = try v.hex("ed448_spki")
        XCTAssertEqual(Array(spki.prefix(12)), [0x30, 0x43, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x71, 0x03, 0x3a, 0x00])
        guard case .ed448(let key) = try SMPPublicKey(spki: spki) else { return XCTFail("not Ed448") }
        XCTAssertEqual(key.spki, spki)
        let message = try v.hex("message")
        let signature = try SMPSignature(rawRepresentation: v.hex("signature"))
        XCTAssertTrue(AuthPublicKey.ed448(key).isValidSignature(signature, for: message))
        XCTAssertFalse(AuthPublicKey.ed448(key).isValidSignature(signature, for: message + [0]))
        guard case .ed448(let s) = signature else { return XCTFail("not an Ed448 signature") }
        var tampered = s.rawRepresentation
        tampered[0] ^= 1
        XCTAssertFalse(key.isValidSignature(try Ed448.Signature(rawRepresentation: tampered), for: message))

        let x = try v.hex("x448_spki")
        guard case .x448(let xk) = try SMPPublicKey(spki: x) else { return XCTFail("not X448") }
        XCTAssertEqual(xk.spki, x)
        // The §8.1 X448 test key.
        let testKey = try Base64.decode(try vectors("links").field("inputs").string("x448_key_spki_b64url"))
        guard case .x448 = try SMPPublicKey(spki: testKey) else { return XCTFail("not X448") }

        // A field checks the algorithm it expects, and SPKI must be exact.
        var r = ByteReader([UInt8(x.count)] + x)
        XCTAssertThrowsError(try r.readAuthKey())
        XCTAssertThrowsError(try SMPPublicKey(spki: spki + [0]))
        XCTAssertThrowsError(try SMPPublicKey(spki: Array(spki.dropLast())))
        XCTAssertThrowsError(try SMPSignature(rawRepresentation: [UInt8](repeating: 0, count: 65)))
        for n in 0..<spki.count { XCTAssertThrowsError(try SMPPublicKey(spki: Array(spki.prefix(n)))) }
    }

    /// A handshake key signed by an Ed448 leaf, as older servers sign it (smp.md §2.4).
    func testEd448SignedServerKey() throws {
        let v = try vectors("ed448")
        let der = try v.hex("signed_key_der")
        let signed = try SignedServerKey(der: der)
        XCTAssertEqual(signed.algorithm, .ed448)
        XCTAssertEqual(signed.derRepresentation, der)
        let leaf = try SMPPublicKey(spki: v.hex("ed448_spki"))
        XCTAssertEqual(try signed.verifiedKey(leafKey: leaf).spki, try v.hex("signed_key_x25519_spki"))
        XCTAssertEqual(
            thrown { try signed.verifiedKey(leafKey: .ed25519(Ed25519.PrivateKey().publicKey)) } as? HandshakeError, .badAuth)
        var tampered = der
        tampered[tampered.count - 1] ^= 1
        XCTAssertEqual(thrown { try SignedServerKey(der: tampered).verifiedKey(leafKey: leaf) } as? HandshakeError, .badAuth)
        for n in 0..<der.count { XCTAssertThrowsError(try SignedServerKey(der: Array(der.prefix(n)))) }
        XCTAssertThrowsError(try SignedServerKey(der: der + [0]))
    }
}
