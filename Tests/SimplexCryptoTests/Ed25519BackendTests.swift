import SimplexCrypto
import XCTest

/// Signing and verifying run in libsodium; OpenSSL holds the same keys for TLS. Both must give the same signatures
/// (Ed25519 is deterministic) and the same verdicts, for the RFC 8032 vectors (FixtureTests) and for random keys.
final class Ed25519BackendTests: XCTestCase {
    func testLibsodiumAndOpenSSLAgree() throws {
        for n in 0..<200 {
            let key = n.isMultiple(of: 2) ? Ed25519.PrivateKey() : try Ed25519.PrivateKey(seed: SecureRandom.bytes(32))
            let message = SecureRandom.bytes(n)
            let signature = key.signature(for: message)
            XCTAssertEqual(signature, key.signatureThroughOpenSSL(for: message), "length \(n)")
            XCTAssertTrue(key.publicKey.isValidSignature(signature, for: message))
            XCTAssertTrue(key.publicKey.isValidSignatureThroughOpenSSL(signature, for: message))
            // One flipped bit of the signature or of the message: both refuse.
            var bad = signature.rawRepresentation
            bad[n % 64] ^= 0x01
            let flipped = try Ed25519.Signature(rawRepresentation: bad)
            XCTAssertFalse(key.publicKey.isValidSignature(flipped, for: message))
            XCTAssertFalse(key.publicKey.isValidSignatureThroughOpenSSL(flipped, for: message))
            let other = message + [0]
            XCTAssertFalse(key.publicKey.isValidSignature(signature, for: other))
            XCTAssertFalse(key.publicKey.isValidSignatureThroughOpenSSL(signature, for: other))
        }
    }

    /// An S at or above the group order (a malleated signature) is refused by both.
    func testNonCanonicalSIsRefused() throws {
        let key = Ed25519.PrivateKey()
        let message = Array("xrcp".utf8)
        var raw = key.signature(for: message).rawRepresentation
        // S + L, L = 2^252 + 27742317777372353535851937790883648493 (little-endian), still 32 bytes here.
        let order: [UInt8] = [
            0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
        ]
        var carry = 0
        for i in 0..<32 {
            let sum = Int(raw[32 + i]) + Int(order[i]) + carry
            raw[32 + i] = UInt8(sum & 0xff)
            carry = sum >> 8
        }
        guard carry == 0, raw[63] & 0xe0 == 0 else { throw XCTSkip("S + L does not fit in 253 bits for this key") }
        let malleated = try Ed25519.Signature(rawRepresentation: raw)
        XCTAssertFalse(key.publicKey.isValidSignature(malleated, for: message))
        XCTAssertFalse(key.publicKey.isValidSignatureThroughOpenSSL(malleated, for: message))
    }
}
