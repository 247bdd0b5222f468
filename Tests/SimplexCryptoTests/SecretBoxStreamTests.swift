import SimplexCrypto
import SimplexEncoding
import XCTest

final class SecretBoxStreamTests: XCTestCase {
    func testStreamingEqualsOneShotForAnyChunking() throws {
        var rng = SystemRandomNumberGenerator()
        for size in [0, 1, 31, 32, 33, 63, 64, 65, 1000, 16384, 50_000] {
            let key = try SecretBox.Key(rawRepresentation: SecureRandom.bytes(32))
            let nonce = SecretBox.Nonce.random()
            let file = SecureRandom.bytes(size)
            let expected = SecretBox.sealTailTag(file, key: key, nonce: nonce)

            let sealer = SecretBoxStream(.seal, key: key, nonce: nonce)
            let opener = SecretBoxStream(.open, key: key, nonce: nonce)
            var ciphertext: [UInt8] = []
            var plaintext: [UInt8] = []
            var offset = 0
            while offset < size {
                let n = min(size - offset, Int.random(in: 1...200, using: &rng) * (Bool.random(using: &rng) ? 1 : 97))
                let piece = sealer.update(Array(file[offset..<offset + n]))
                ciphertext += piece
                plaintext += opener.update(piece)
                offset += n
            }
            let tag = sealer.finalizeTag()
            XCTAssertEqual(ciphertext + tag, expected, "size \(size)")
            XCTAssertEqual(plaintext, file)
            try opener.verify(tag: tag)
        }
    }

    func testWrongTagIsRefused() throws {
        let key = try SecretBox.Key(rawRepresentation: SecureRandom.bytes(32))
        let nonce = SecretBox.Nonce.random()
        let opener = SecretBoxStream(.open, key: key, nonce: nonce)
        _ = opener.update(SecureRandom.bytes(100))
        do {
            try opener.verify(tag: [UInt8](repeating: 0, count: 16))
            XCTFail("a wrong tag was accepted")
        } catch {
            XCTAssertEqual(error, .decryptionFailed)
        }
    }
}
