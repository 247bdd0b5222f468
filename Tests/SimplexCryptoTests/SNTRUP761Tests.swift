import SimplexCrypto
import SimplexEncoding
import XCTest

/// sntrup761 against pqcrypto's `sntrup_761` in both directions.
final class SNTRUP761Tests: XCTestCase {
    func testSizes() {
        let pair = SNTRUP761.KeyPair()
        XCTAssertEqual(pair.publicKey.rawRepresentation.count, 1158)
        XCTAssertEqual(pair.secretKey.rawRepresentation.count, 1763)
        let (ct, ss) = pair.publicKey.encapsulate()
        XCTAssertEqual(ct.rawRepresentation.count, 1039)
        XCTAssertEqual(ss.rawRepresentation.count, 32)
        XCTAssertEqual(pair.secretKey.decapsulate(ct), ss)
    }

    /// Their keys and ciphertexts (committed fixtures): decapsulating here gives their shared secret,
    /// and a tampered ciphertext gives the same implicit-rejection secret as theirs.
    func testTheirCiphertextsDecapsulateHere() throws {
        let cases = try CryptoFixtures.load().sntrup761
        XCTAssertGreaterThanOrEqual(cases.count, 50)
        for c in cases {
            let sk = try SNTRUP761.SecretKey(rawRepresentation: hex(c.secretKey))
            let shared = sk.decapsulate(try SNTRUP761.Ciphertext(rawRepresentation: hex(c.ciphertext)))
            XCTAssertEqual(shared.rawRepresentation, try hex(c.sharedSecret))
            let rejected = sk.decapsulate(try SNTRUP761.Ciphertext(rawRepresentation: hex(c.tamperedCiphertext)))
            XCTAssertEqual(rejected.rawRepresentation, try hex(c.tamperedSharedSecret))
        }
    }

    /// Live, both ways: they encapsulate to our fresh keys and we decapsulate; we encapsulate to their
    /// (committed) keys and they decapsulate.
    func testInteroperatesBothWaysWithPqcrypto() throws {
        let ours = (0..<50).map { _ in SNTRUP761.KeyPair() }
        let theirs = try CryptoFixtures.load().sntrup761
        let ourCiphertexts = try theirs.map { try SNTRUP761.PublicKey(rawRepresentation: hex($0.publicKey)).encapsulate() }
        let answer = try Interop.run([
            "sntrupEncapsulate": ours.map { Hex.encode($0.publicKey.rawRepresentation) },
            "sntrupDecapsulate": zip(theirs, ourCiphertexts).map {
                ["secretKey": $0.secretKey, "ciphertext": Hex.encode($1.ciphertext.rawRepresentation)]
            },
        ])
        let encapsulated = try XCTUnwrap(answer["sntrupEncapsulate"] as? [[String: String]])
        XCTAssertEqual(encapsulated.count, ours.count)
        for (pair, e) in zip(ours, encapsulated) {
            let ct = try SNTRUP761.Ciphertext(rawRepresentation: hex(try XCTUnwrap(e["ciphertext"])))
            XCTAssertEqual(Hex.encode(pair.secretKey.decapsulate(ct).rawRepresentation), e["sharedSecret"])
        }
        XCTAssertEqual(
            answer["sntrupDecapsulate"] as? [String], ourCiphertexts.map { Hex.encode($0.sharedSecret.rawRepresentation) })
    }

    func testHybridSecretFromAKEMSecret() throws {
        // TV-HYBRID: dh = TV-DH secret, kem = 60 61 … 7f.
        let dh = try X25519.PrivateKey(rawRepresentation: [UInt8](repeating: 3, count: 32))
            .sharedSecret(with: X25519.PrivateKey(rawRepresentation: [UInt8](repeating: 4, count: 32)).publicKey)
        let kem = try SNTRUP761.SharedSecret(rawRepresentation: Array(0x60...0x7f))
        XCTAssertEqual(
            Hex.encode(HybridSecret(dh: dh, kem: kem).rawRepresentation),
            "98c8eeb05d50059b16b5ec6f7db8423f2993860d200ee8917e66a842d6598271")
    }

    func testMalformedInputNeverTraps() throws {
        XCTAssertThrowsError(try SNTRUP761.PublicKey(rawRepresentation: [UInt8](repeating: 0, count: 1157)))
        XCTAssertThrowsError(try SNTRUP761.SecretKey(rawRepresentation: []))
        XCTAssertThrowsError(try SNTRUP761.Ciphertext(rawRepresentation: [UInt8](repeating: 0, count: 1040)))
        XCTAssertThrowsError(try SNTRUP761.SharedSecret(rawRepresentation: [1]))
        let pair = SNTRUP761.KeyPair()
        for _ in 0..<20 {
            // Garbage of the right length is still a ciphertext (implicit rejection) and still a public key.
            let junk = try SNTRUP761.Ciphertext(rawRepresentation: SecureRandom.bytes(1039))
            XCTAssertEqual(pair.secretKey.decapsulate(junk), pair.secretKey.decapsulate(junk))
            _ = try SNTRUP761.PublicKey(rawRepresentation: SecureRandom.bytes(1158)).encapsulate()
        }
    }
}
