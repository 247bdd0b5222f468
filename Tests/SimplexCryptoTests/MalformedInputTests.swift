import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

/// Every key, signature and box decoder refuses bad bytes with a typed error and never traps.
final class MalformedInputTests: XCTestCase {
    private let edSPKI = Ed25519.PrivateKey().publicKey.spki
    private let xSPKI = X25519.PrivateKey().publicKey.spki

    func testSPKIAndPKCS8() {
        XCTAssertEqual(
            thrown { try Ed25519.PublicKey(spki: Array(edSPKI.dropLast())) } as? CryptoError,
            .invalidLength(what: "Ed25519 SPKI", expected: 44, actual: 43))
        XCTAssertEqual(
            thrown { try Ed25519.PublicKey(spki: xSPKI) } as? CryptoError,
            .invalidKeyEncoding("Ed25519 SPKI: unexpected algorithm or structure"))
        XCTAssertEqual(
            thrown { try X25519.PublicKey(spki: edSPKI) } as? CryptoError,
            .invalidKeyEncoding("X25519 SPKI: unexpected algorithm or structure"))
        XCTAssertThrowsError(try Ed25519.PublicKey(spki: edSPKI + [0]))
        XCTAssertThrowsError(try Ed25519.PrivateKey(pkcs8: X25519.PrivateKey().pkcs8))
        XCTAssertThrowsError(try X25519.PrivateKey(pkcs8: Ed25519.PrivateKey().pkcs8))
        XCTAssertThrowsError(try Ed25519.PrivateKey(seed: [1, 2, 3]))
        for n in 0..<44 { XCTAssertThrowsError(try Ed25519.PublicKey(spki: Array(edSPKI.prefix(n)))) }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var bad = edSPKI
            bad[Int.random(in: 0..<12, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
            XCTAssertThrowsError(try Ed25519.PublicKey(spki: bad))
        }
    }

    func testSignaturesAndSecrets() {
        XCTAssertThrowsError(try Ed25519.Signature(rawRepresentation: [UInt8](repeating: 0, count: 63)))
        XCTAssertThrowsError(try SecretBox.Key(rawRepresentation: []))
        XCTAssertThrowsError(try SecretBox.Nonce(rawRepresentation: [UInt8](repeating: 0, count: 23)))
        XCTAssertThrowsError(try ChainKey(rawRepresentation: [UInt8](repeating: 0, count: 33)))
        XCTAssertThrowsError(try CertificateFingerprint(rawRepresentation: [1]))
        // A signature of garbage verifies false rather than failing.
        let key = Ed25519.PrivateKey().publicKey
        XCTAssertFalse(
            key.isValidSignature(try! Ed25519.Signature(rawRepresentation: [UInt8](repeating: 0xff, count: 64)), for: []))
    }

    func testSmallOrderX25519PeerIsRefused() throws {
        // The all-zero point gives an all-zero secret, which must not become a key.
        let zero = try X25519.PublicKey(rawRepresentation: [UInt8](repeating: 0, count: 32))
        XCTAssertEqual(thrown { try X25519.PrivateKey().sharedSecret(with: zero) } as? CryptoError, .invalidPublicKey)
    }

    func testBoxesRefuseShortAndTamperedInput() throws {
        let key = try SecretBox.Key(rawRepresentation: SecureRandom.bytes(32))
        let nonce = SecretBox.Nonce.random()
        for n in 0..<16 {
            XCTAssertEqual(
                thrown { try SecretBox.open([UInt8](repeating: 0, count: n), key: key, nonce: nonce) } as? CryptoError,
                .decryptionFailed)
            XCTAssertEqual(
                thrown { try SecretBox.openTailTag([UInt8](repeating: 0, count: n), key: key, nonce: nonce) } as? CryptoError,
                .decryptionFailed)
        }
        let sealed = try SecretBox.sealPadded(Array("hi".utf8), to: 64, key: key, nonce: nonce)
        XCTAssertEqual(try SecretBox.openPadded(sealed, key: key, nonce: nonce), Array("hi".utf8))
        var tampered = sealed
        tampered[20] ^= 4
        XCTAssertEqual(
            thrown { try SecretBox.openPadded(tampered, key: key, nonce: nonce) } as? SecretBox.OpenPaddedError, .decryption)
        // A box whose plaintext is not a padded block.
        let unpadded = SecretBox.seal([0xff, 0xff, 1], key: key, nonce: nonce)
        XCTAssertEqual(
            thrown { try SecretBox.openPadded(unpadded, key: key, nonce: nonce) } as? SecretBox.OpenPaddedError,
            .padding(.invalidLength(declared: 65535, available: 1)))
    }
}
