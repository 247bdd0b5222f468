import Foundation
import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

/// X448 against RFC 7748's vectors (committed as data) and against `cryptography` at test time.
final class X448Tests: XCTestCase {
    private struct RFC7748: Decodable {
        struct Multiplication: Decodable { let scalar, u, output: String }
        struct Iterated: Decodable { let start, after1, after1000: String }
        struct DiffieHellman: Decodable { let alicePrivate, alicePublic, bobPrivate, bobPublic, shared: String }
        let scalarMultiplication: [Multiplication]
        let iterated: Iterated
        let diffieHellman: DiffieHellman
    }

    private func rfc7748() throws -> RFC7748 {
        let url = try XCTUnwrap(
            Bundle.module.url(forResource: "x448-rfc7748", withExtension: "json", subdirectory: "Fixtures"),
            "Fixtures/x448-rfc7748.json is missing")
        return try JSONDecoder().decode(RFC7748.self, from: Data(contentsOf: url))
    }

    private func multiply(_ scalar: [UInt8], _ u: [UInt8]) throws -> [UInt8] {
        try X448.PrivateKey(rawRepresentation: scalar).sharedSecret(with: X448.PublicKey(rawRepresentation: u))
            .rawRepresentation
    }

    func testScalarMultiplicationVectors() throws {
        let v = try rfc7748()
        XCTAssertEqual(v.scalarMultiplication.count, 2)
        for c in v.scalarMultiplication {
            XCTAssertEqual(try multiply(hex(c.scalar), hex(c.u)), try hex(c.output))
        }
    }

    func testIteratedScalarMultiplication() throws {
        let v = try rfc7748().iterated
        var k = try hex(v.start)
        var u = k
        for i in 1...1000 {
            (k, u) = (try multiply(k, u), k)
            if i == 1 { XCTAssertEqual(k, try hex(v.after1)) }
        }
        XCTAssertEqual(k, try hex(v.after1000))
    }

    func testDiffieHellmanVector() throws {
        let v = try rfc7748().diffieHellman
        let alice = try X448.PrivateKey(rawRepresentation: hex(v.alicePrivate))
        let bob = try X448.PrivateKey(rawRepresentation: hex(v.bobPrivate))
        XCTAssertEqual(alice.publicKey.rawRepresentation, try hex(v.alicePublic))
        XCTAssertEqual(bob.publicKey.rawRepresentation, try hex(v.bobPublic))
        XCTAssertEqual(alice.rawRepresentation, try hex(v.alicePrivate))
        XCTAssertEqual(try alice.sharedSecret(with: bob.publicKey).rawRepresentation, try hex(v.shared))
        XCTAssertEqual(try bob.sharedSecret(with: alice.publicKey).rawRepresentation, try hex(v.shared))
    }

    func testAgreesWithCryptography() throws {
        var request: [[String: String]] = []
        var ours: [(X448.PrivateKey, X448.PrivateKey)] = []
        for _ in 0..<20 {
            let key = X448.PrivateKey()
            let peer = X448.PrivateKey()
            ours.append((key, peer))
            request.append([
                "privateKey": Hex.encode(key.rawRepresentation), "peerPublic": Hex.encode(peer.publicKey.rawRepresentation),
            ])
        }
        let answer = try XCTUnwrap(try Interop.run(["x448": request])["x448"] as? [[String: String]])
        XCTAssertEqual(answer.count, ours.count)
        for ((key, peer), theirs) in zip(ours, answer) {
            XCTAssertEqual(theirs["publicKey"], Hex.encode(key.publicKey.rawRepresentation))
            XCTAssertEqual(theirs["spki"], Hex.encode(key.publicKey.spki))
            XCTAssertEqual(theirs["shared"], Hex.encode(try key.sharedSecret(with: peer.publicKey).rawRepresentation))
            XCTAssertEqual(try X448.PublicKey(spki: hex(XCTUnwrap(theirs["spki"]))), key.publicKey)
        }
    }

    func testRefusals() throws {
        XCTAssertThrowsError(try X448.PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 55)))
        XCTAssertThrowsError(try X448.PublicKey(rawRepresentation: [UInt8](repeating: 1, count: 57)))
        // A small-order point (u = 0) gives the all-zero output, which is refused.
        let zero = try X448.PublicKey(rawRepresentation: [UInt8](repeating: 0, count: 56))
        XCTAssertEqual(thrown { try X448.PrivateKey().sharedSecret(with: zero) } as? CryptoError, .invalidPublicKey)
        // An X25519 SPKI is not an X448 one.
        XCTAssertThrowsError(try X448.PublicKey(spki: X25519.PrivateKey().publicKey.spki))
    }
}
