import SimplexCrypto
import SimplexEncoding
import XCTest

/// SMP server certificates (smp.md §2.2) and their keys (smp.md §1.3).
final class ServerCredentialTests: XCTestCase {
    let now: Int64 = 1_780_000_000

    /// The SPKI and PKCS#8 forms of smp.md §1.3 / RFC 8410, and raw signature sizes.
    func testCertificateKeyEncodings() throws {
        let cases: [(CertificateKeyAlgorithm, spkiPrefix: String, spki: Int, pkcs8Prefix: String, pkcs8: Int, sig: Int)] = [
            (.ed25519, "302a300506032b6570032100", 44, "302e020100300506032b657004220420", 48, 64),
            (.ed448, "3043300506032b6571033a00", 69, "3047020100300506032b6571043b0439", 73, 114),
        ]
        for (algorithm, spkiPrefix, spki, pkcs8Prefix, pkcs8, sig) in cases {
            let key = CertificateKey(generating: algorithm)
            XCTAssertEqual(key.publicKeySPKI.count, spki)
            XCTAssertTrue(Hex.encode(key.publicKeySPKI).hasPrefix(spkiPrefix))
            XCTAssertEqual(key.pkcs8.count, pkcs8)
            XCTAssertTrue(Hex.encode(key.pkcs8).hasPrefix(pkcs8Prefix))
            let restored = try CertificateKey(pkcs8: key.pkcs8)
            XCTAssertEqual(restored.algorithm, algorithm)
            XCTAssertEqual(restored.publicKeySPKI, key.publicKeySPKI)
            XCTAssertEqual(key.signature(for: [1, 2, 3]).count, sig)
            XCTAssertEqual(algorithm.signatureLength, sig)
            XCTAssertEqual(Hex.encode(algorithm.algorithmIdentifier), "300506032b65" + (algorithm == .ed25519 ? "70" : "71"))
        }
        // Truncated, extended, or another algorithm (X25519's OID 0x6e).
        let good = CertificateKey(generating: .ed25519).pkcs8
        XCTAssertThrowsError(try CertificateKey(pkcs8: Array(good.dropLast())))
        XCTAssertThrowsError(try CertificateKey(pkcs8: good + [0]))
        XCTAssertThrowsError(try CertificateKey(pkcs8: []))
        var x25519 = good
        x25519[11] = 0x6e
        XCTAssertThrowsError(try CertificateKey(pkcs8: x25519))
    }

    /// The chains as `smp-server init` makes them, extended to three and four certificates.
    func testGeneratedChains() throws {
        for algorithm in CertificateKeyAlgorithm.allCases {
            for length in ServerChainLength.allCases {
                let credential = try ServerCredential.generate(algorithm: algorithm, length: length, now: now)
                let chain = credential.chain
                XCTAssertEqual(chain.count, length.rawValue)
                XCTAssertEqual(credential.identity, chain[1])
                XCTAssertEqual(credential.fingerprint.rawRepresentation, Digest.sha256(chain[1].derRepresentation))
                XCTAssertEqual(credential.leaf.subjectCommonName, "127.0.0.1")
                XCTAssertEqual(credential.identity.subjectCommonName, "SMP server CA")
                for (certificate, issuer) in zip(chain, chain.dropFirst()) {
                    XCTAssertTrue(certificate.isSigned(by: issuer))
                }
                XCTAssertTrue(try XCTUnwrap(chain.last).isSigned(by: try XCTUnwrap(chain.last)))
                for certificate in chain {
                    XCTAssertEqual(certificate.subjectKeyAlgorithm, algorithm)
                    XCTAssertTrue(certificate.isValid(at: now + 1))
                    XCTAssertFalse(certificate.isValid(at: now - 1))
                    XCTAssertEqual(try Certificate(der: certificate.derRepresentation), certificate)
                }
                // The leaf key signs what the client verifies with the leaf (the handshake's DH key, smp.md §2.4).
                let message = Array("signed key".utf8)
                let signature = credential.leafKey.signature(for: message)
                XCTAssertTrue(credential.leaf.isValidSignature(signature, for: message))
                XCTAssertFalse(credential.leaf.isValidSignature(signature, for: message + [0]))
                XCTAssertFalse(credential.identity.isValidSignature(signature, for: message))
                XCTAssertFalse(credential.leaf.isValidSignature(Array(signature.dropLast()), for: message))

                // Stored and restored (a server keeps its identity across restarts).
                let restored = try ServerCredential(
                    chain: try chain.map { try Certificate(der: $0.derRepresentation) },
                    leafKey: try CertificateKey(pkcs8: credential.leafKey.pkcs8))
                XCTAssertEqual(restored.fingerprint, credential.fingerprint)
            }
        }
        let a = try ServerCredential.generate(algorithm: .ed25519, length: .two, now: now)
        let b = try ServerCredential.generate(algorithm: .ed25519, length: .two, now: now)
        XCTAssertNotEqual(a.fingerprint, b.fingerprint)
        XCTAssertThrowsError(try ServerCredential(chain: a.chain, leafKey: b.leafKey))
        XCTAssertThrowsError(try ServerCredential(chain: [a.leaf], leafKey: a.leafKey))
        XCTAssertThrowsError(try ServerCredential(chain: a.chain + a.chain + [a.leaf], leafKey: a.leafKey))
    }
}
