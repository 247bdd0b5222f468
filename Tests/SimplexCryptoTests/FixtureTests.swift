import SimplexCrypto
import SimplexEncoding
import XCTest

/// Our primitives against values made by independent implementations (scripts/fixtures/generate.py).
final class FixtureTests: XCTestCase {
    private var fixtures: CryptoFixtures!

    override func setUpWithError() throws { fixtures = try CryptoFixtures.load() }

    func testEd25519AgainstCryptography() throws {
        XCTAssertGreaterThanOrEqual(fixtures.ed25519.count, 20)
        for c in fixtures.ed25519 {
            let key = try Ed25519.PrivateKey(seed: hex(c.seed))
            XCTAssertEqual(key.publicKey.spki, try hex(c.spki))
            XCTAssertEqual(key.pkcs8, try hex(c.pkcs8))
            XCTAssertEqual(try Ed25519.PrivateKey(pkcs8: hex(c.pkcs8)).seed, try hex(c.seed))
            // Ed25519 is deterministic: our signature is theirs, byte for byte, and theirs verifies here.
            let message = try hex(c.message)
            XCTAssertEqual(key.signature(for: message).rawRepresentation, try hex(c.signature))
            let theirs = try Ed25519.Signature(rawRepresentation: hex(c.signature))
            let pub = try Ed25519.PublicKey(spki: hex(c.spki))
            XCTAssertTrue(pub.isValidSignature(theirs, for: message))
            XCTAssertFalse(pub.isValidSignature(theirs, for: message + [0]))
        }
    }

    func testX25519AndCryptoBoxAgainstPyNaCl() throws {
        for c in fixtures.x25519 {
            let key = try X25519.PrivateKey(rawRepresentation: hex(c.private))
            XCTAssertEqual(key.pkcs8, try hex(c.pkcs8))
            XCTAssertEqual(key.publicKey.spki, try hex(c.publicSpki))
            XCTAssertEqual(try X25519.PrivateKey(pkcs8: hex(c.pkcs8)).rawRepresentation, try hex(c.private))
            let shared = try key.sharedSecret(with: X25519.PublicKey(rawRepresentation: hex(c.peerPublic)))
            XCTAssertEqual(shared.rawRepresentation, try hex(c.shared))
            XCTAssertEqual(shared.boxKey.derivedKey, try hex(c.beforenm), "HSalsa20(dh, 0) = crypto_box_beforenm")
            let nonce = try SecretBox.Nonce(rawRepresentation: hex(c.nonce))
            XCTAssertEqual(SecretBox.seal(try hex(c.message), key: shared.boxKey, nonce: nonce), try hex(c.box))
            XCTAssertEqual(try SecretBox.open(hex(c.box), key: shared.boxKey, nonce: nonce), try hex(c.message))
        }
    }

    func testSecretBoxAgainstPyNaCl() throws {
        for c in fixtures.secretbox {
            let key = try SecretBox.Key(rawRepresentation: hex(c.key))
            let nonce = try SecretBox.Nonce(rawRepresentation: hex(c.nonce))
            let message = try hex(c.message)
            XCTAssertEqual(key.derivedKey, try hex(c.hsalsa))
            XCTAssertEqual(SecretBox.seal(message, key: key, nonce: nonce), try hex(c.box))
            XCTAssertEqual(SecretBox.sealTailTag(message, key: key, nonce: nonce), try hex(c.boxTailTag))
            XCTAssertEqual(try SecretBox.sealPadded(message, to: 1024, key: key, nonce: nonce), try hex(c.boxPadded1024))
            XCTAssertEqual(try SecretBox.open(hex(c.box), key: key, nonce: nonce), message)
            XCTAssertEqual(try SecretBox.openTailTag(hex(c.boxTailTag), key: key, nonce: nonce), message)
            XCTAssertEqual(try SecretBox.openPadded(hex(c.boxPadded1024), key: key, nonce: nonce), message)
            var tampered = try hex(c.box)
            tampered[tampered.count - 1] ^= 1
            XCTAssertThrowsError(try SecretBox.open(tampered, key: key, nonce: nonce))
        }
    }

    func testHashesAgainstHashlib() throws {
        for c in fixtures.hashes {
            let m = try hex(c.message)
            XCTAssertEqual(Digest.sha256(m), try hex(c.sha256))
            XCTAssertEqual(Digest.sha512(m), try hex(c.sha512))
            XCTAssertEqual(Digest.sha3_256(m), try hex(c.sha3_256))
            let stream = Digest.SHA512Stream()
            stream.update(Array(m.prefix(m.count / 2)))
            stream.update(Array(m.dropFirst(m.count / 2)))
            XCTAssertEqual(stream.finalize(), try hex(c.sha512))
        }
    }

    func testHKDFAgainstCryptography() throws {
        for c in fixtures.hkdf {
            XCTAssertEqual(HKDF.sha512(ikm: try hex(c.ikm), info: try hex(c.info), length: c.length), try hex(c.okm))
        }
    }

    func testChainKeysAgainstCryptography() throws {
        for c in fixtures.chains {
            var (toHost, toController) = ChainKey.initialChains(from: try HybridSecret(rawRepresentation: hex(c.hybrid)))
            XCTAssertEqual(toHost.rawRepresentation, try hex(c.controllerToHost))
            XCTAssertEqual(toController.rawRepresentation, try hex(c.hostToController))
            for (chain, steps) in [(toHost, c.controllerToHostSteps), (toController, c.hostToControllerSteps)] {
                var ck = chain
                for step in steps {
                    let mk = ck.next()
                    XCTAssertEqual(mk.key.rawRepresentation, try hex(step.key))
                    XCTAssertEqual(mk.nonce.rawRepresentation, try hex(step.nonce))
                    XCTAssertEqual(ck.rawRepresentation, try hex(step.chainKey))
                }
            }
            _ = toHost.next()
            _ = toController.next()
        }
    }

    func testCertificatesMadeByCryptography() throws {
        for c in fixtures.certificates {
            let ca = try Certificate(der: hex(c.ca))
            let leaf = try Certificate(der: hex(c.leaf))
            let unrelated = try Certificate(der: hex(c.unrelatedCa))
            XCTAssertEqual(ca.fingerprint.rawRepresentation, try hex(c.caFingerprint))
            XCTAssertEqual(leaf.fingerprint.rawRepresentation, try hex(c.leafFingerprint))
            XCTAssertEqual(try ca.ed25519PublicKey().spki, try hex(c.caPublicSpki))
            XCTAssertEqual(try leaf.ed25519PublicKey().spki, try hex(c.leafPublicSpki))
            XCTAssertTrue(leaf.isSigned(by: ca))
            XCTAssertTrue(ca.isSigned(by: ca))
            XCTAssertFalse(leaf.isSigned(by: unrelated))
            XCTAssertEqual(ca.subjectCommonName, "ca")
            XCTAssertEqual(leaf.subjectCommonName, "localhost")
            XCTAssertTrue(leaf.isValid(at: c.now))
            XCTAssertFalse(leaf.isValid(at: c.now - 2 * 3600))
        }
    }
}
