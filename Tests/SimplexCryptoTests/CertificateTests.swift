import SimplexCrypto
import SimplexEncoding
import XCTest

final class CertificateTests: XCTestCase {
    func testChainAsSimpleXMakesIt() throws {
        let now: Int64 = 1_780_000_000
        let ca = try CertificateAuthority.generate(now: now, hoursBefore: 1)
        let credential = try ca.issueLeaf(now: now)
        XCTAssertEqual(credential.chain, [credential.leaf, ca.certificate])
        XCTAssertTrue(credential.leaf.isSigned(by: ca.certificate))
        XCTAssertEqual(try credential.leaf.ed25519PublicKey(), credential.leafKey.publicKey)
        XCTAssertEqual(try ca.certificate.ed25519PublicKey(), ca.key.publicKey)
        XCTAssertTrue(credential.leaf.isValid(at: now))
        XCTAssertTrue(credential.leaf.isValid(at: now - 3599))
        XCTAssertFalse(credential.leaf.isValid(at: now - 3601))
        XCTAssertEqual(ca.certificate.fingerprint.rawRepresentation, Digest.sha256(ca.certificate.derRepresentation))
        // notAfter is past 2050, so it must be a GeneralizedTime (tag 0x18) with a four-digit year.
        XCTAssertTrue(ca.certificate.derRepresentation.contains(0x18))
        // Re-parsing gives the same certificate.
        XCTAssertEqual(try Certificate(der: ca.certificate.derRepresentation), ca.certificate)
        // The stored form of the CA key round-trips.
        XCTAssertEqual(try Ed25519.PrivateKey(pkcs8: ca.key.pkcs8).publicKey, ca.key.publicKey)
    }

    func testAGeneratedKeyVerifiesItsOwnSignatures() throws {
        let key = Ed25519.PrivateKey()
        let message = SecureRandom.bytes(100)
        XCTAssertTrue(key.publicKey.isValidSignature(key.signature(for: message), for: message))
        XCTAssertFalse(key.publicKey.isValidSignature(key.signature(for: message), for: message + [1]))
        XCTAssertTrue(try Ed25519.PublicKey(spki: key.publicKey.spki).isValidSignature(key.signature(for: message), for: message))
        XCTAssertEqual(try X25519.PublicKey(spki: X25519.PrivateKey().publicKey.spki).rawRepresentation.count, 32)
    }

    func testMalformedDERIsATypedError() throws {
        let der = try CertificateAuthority.generate(now: 1_780_000_000, hoursBefore: 1).certificate.derRepresentation
        XCTAssertThrowsError(try Certificate(der: []))
        for n in stride(from: 1, to: der.count, by: 3) {
            XCTAssertThrowsError(try Certificate(der: Array(der.prefix(n))), "prefix \(n)")
        }
        XCTAssertThrowsError(try Certificate(der: der + [0])) { error in
            XCTAssertEqual(error as? CryptoError, .invalidCertificate("1 bytes after the certificate"))
        }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var bad = der
            bad[Int.random(in: 0..<bad.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            if let c = try? Certificate(der: bad) {
                _ = c.isSigned(by: c)
                _ = try? c.ed25519PublicKey()
            }
        }
        XCTAssertThrowsError(try Certificate(der: [UInt8](repeating: 0x30, count: 70000)))
    }
}
