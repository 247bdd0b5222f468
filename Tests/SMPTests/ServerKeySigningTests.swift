import SimplexCrypto
import XCTest

@testable import SMP

/// The server's handshake key signed by a leaf of either algorithm (smp.md §2.4), checked by the client's verifier.
final class ServerKeySigningTests: XCTestCase {
    func testKeySignedByEitherLeafVerifiesWithThatLeafOnly() throws {
        for algorithm in CertificateKeyAlgorithm.allCases {
            let leaf = CertificateKey(generating: algorithm)
            let dh = X25519.PrivateKey().publicKey
            let signed = SignedServerKey.sign(dh, with: leaf)
            // The AlgorithmIdentifier has no parameters: the reference's x509 parser refuses a NULL one.
            XCTAssertTrue(signed.derRepresentation.contains(subsequence: leaf.algorithm.algorithmIdentifier))
            let leafKey = try SMPPublicKey(spki: leaf.publicKeySPKI)
            XCTAssertEqual(try signed.verifiedKey(leafKey: leafKey), dh)
            let other = try SMPPublicKey(spki: CertificateKey(generating: algorithm).publicKeySPKI)
            XCTAssertThrowsError(try signed.verifiedKey(leafKey: other))
            XCTAssertEqual(try SignedServerKey(der: signed.derRepresentation), signed)
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(subsequence s: [UInt8]) -> Bool {
        guard s.count <= count else { return false }
        return (0...(count - s.count)).contains { Array(self[$0..<$0 + s.count]) == s }
    }
}
