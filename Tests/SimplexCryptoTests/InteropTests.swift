import SimplexCrypto
import SimplexEncoding
import XCTest

/// What we make, opened by independent implementations at test time (scripts/fixtures/interop.py).
final class InteropTests: XCTestCase {
    func testOurSignaturesAndBoxesOpenThere() throws {
        var verify: [[String: String]] = []
        var secretboxes: [[String: String]] = []
        var boxes: [[String: String]] = []
        var messages: [[UInt8]] = []
        for n in 0..<20 {
            let message = SecureRandom.bytes(n * 31)
            messages.append(message)
            let signer = Ed25519.PrivateKey()
            let sig = signer.signature(for: message)
            verify.append([
                "spki": Hex.encode(signer.publicKey.spki), "message": Hex.encode(message),
                "signature": Hex.encode(sig.rawRepresentation),
            ])

            let key = try SecretBox.Key(rawRepresentation: SecureRandom.bytes(32))
            let nonce = SecretBox.Nonce.random()
            secretboxes.append([
                "key": Hex.encode(key.rawRepresentation), "nonce": Hex.encode(nonce.rawRepresentation),
                "box": Hex.encode(SecretBox.seal(message, key: key, nonce: nonce)),
            ])

            // A DH box: sealed under X25519(ours, theirs), opened there with crypto_box_open(their secret, our public).
            let ours = X25519.PrivateKey()
            let theirs = X25519.PrivateKey()
            let shared = try ours.sharedSecret(with: theirs.publicKey)
            boxes.append([
                "publicKey": Hex.encode(ours.publicKey.rawRepresentation), "privateKey": Hex.encode(theirs.rawRepresentation),
                "nonce": Hex.encode(nonce.rawRepresentation),
                "box": Hex.encode(SecretBox.seal(message, key: shared.boxKey, nonce: nonce)),
            ])
        }
        // One forged signature must be refused there too.
        verify.append(["spki": verify[0]["spki"]!, "message": Hex.encode([1]), "signature": verify[0]["signature"]!])

        let answer = try Interop.run(["ed25519Verify": verify, "secretboxOpen": secretboxes, "boxOpen": boxes])
        XCTAssertEqual(answer["ed25519Verify"] as? [Bool], Array(repeating: true, count: 20) + [false])
        XCTAssertEqual(answer["secretboxOpen"] as? [String], messages.map { Hex.encode($0) })
        XCTAssertEqual(answer["boxOpen"] as? [String], messages.map { Hex.encode($0) })
    }

    func testOurCertificatesParseInCryptography() throws {
        let now: Int64 = 1_780_000_000
        let controllerCA = try CertificateAuthority.generate(now: now, hoursBefore: 25)
        let hostCA = try CertificateAuthority.generate(now: now, hoursBefore: 1)
        let credential = try controllerCA.issueLeaf(now: now)
        let request: [[String: String]] = [
            [
                "ca": Hex.encode(controllerCA.certificate.derRepresentation),
                "leaf": Hex.encode(credential.leaf.derRepresentation),
            ],
            ["ca": Hex.encode(hostCA.certificate.derRepresentation), "leaf": Hex.encode(credential.leaf.derRepresentation)],
        ]
        let answer = try XCTUnwrap(try Interop.run(["certificates": request])["certificates"] as? [[[String: Any]]])
        XCTAssertEqual(answer.count, 2)
        let (ca, leaf) = (answer[0][0], answer[0][1])
        for facts in [ca, leaf] {
            XCTAssertEqual(facts["version"] as? String, "v3")
            XCTAssertEqual(facts["serial"] as? Int, 1)
            XCTAssertEqual(facts["signatureAlgorithm"] as? String, "1.3.101.112")
            XCTAssertEqual(facts["signatureParametersAbsent"] as? Bool, true)
            XCTAssertEqual(facts["commonNameIsUTF8String"] as? Bool, true)
            XCTAssertEqual(facts["extensions"] as? Int, 0)
            XCTAssertEqual(facts["isEd25519"] as? Bool, true)
            XCTAssertEqual(facts["issuer"] as? String, "CN=ca")
            XCTAssertEqual(facts["signedByCA"] as? Bool, true)
            XCTAssertEqual((facts["notAfter"] as? Int).map(Int64.init), now + Certificate.validityHours * 3600)
        }
        XCTAssertEqual(ca["subject"] as? String, "CN=ca")
        XCTAssertEqual(leaf["subject"] as? String, "CN=localhost")
        XCTAssertEqual((ca["notBefore"] as? Int).map(Int64.init), now - 25 * 3600)
        XCTAssertEqual((leaf["notBefore"] as? Int).map(Int64.init), now - 3600)
        XCTAssertEqual(ca["fingerprint"] as? String, Hex.encode(controllerCA.certificate.fingerprint.rawRepresentation))
        XCTAssertEqual(leaf["fingerprint"] as? String, Hex.encode(credential.leaf.fingerprint.rawRepresentation))
        XCTAssertEqual(leaf["publicKeySpki"] as? String, Hex.encode(credential.leafKey.publicKey.spki))
        // Our leaf is not signed by another pairing's CA, there as here.
        XCTAssertEqual(answer[1][1]["signedByCA"] as? Bool, false)
        XCTAssertFalse(credential.leaf.isSigned(by: hostCA.certificate))
    }
}
