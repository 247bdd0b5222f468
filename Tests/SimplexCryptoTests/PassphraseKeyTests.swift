import SimplexCrypto
import SimplexEncoding
import XCTest

/// Argon2id and its subkeys against PyNaCl (`nacl.pwhash.argon2id.kdf`, then `nacl.hash.blake2b` with the
/// subkey id as salt and the context as personalisation, which is what `crypto_kdf_derive_from_key` is).
final class PassphraseKeyTests: XCTestCase {
    private let passphrase = Array("correct horse battery staple".utf8)
    private let salt = Array(UInt8(0)..<16)

    func testSubkeysOfArgon2idMatchPyNaCl() throws {
        let least = try PassphraseKey.derive(passphrase: passphrase, salt: salt, cost: .minimum)
        XCTAssertEqual(
            Hex.encode(least.subkey(1, context: "SXsealdb")), "8d909d611485eb95d0ed065ba30cfdbd144056fbc22d20c2e144808bb5f0bbb9")
        XCTAssertEqual(
            Hex.encode(least.subkey(2, context: "SXsealdb")), "93f5bc8e019e731792e3c073848d4ebd837d3f61a9f06a263d57e42ba1e1cd5b")
        let interactive = try PassphraseKey.derive(passphrase: passphrase, salt: salt, cost: .interactive)
        XCTAssertEqual(
            Hex.encode(interactive.subkey(1, context: "SXsealdb")),
            "26b3b8e21c27ddfa983dd8f793ba92615cb975e1b8e613aff27e2594cc356abe")
    }

    func testAnotherPassphraseOrSaltGivesAnotherKey() throws {
        let key = try PassphraseKey.derive(passphrase: passphrase, salt: salt, cost: .minimum)
        XCTAssertNotEqual(try PassphraseKey.derive(passphrase: passphrase + [0x21], salt: salt, cost: .minimum), key)
        XCTAssertNotEqual(try PassphraseKey.derive(passphrase: passphrase, salt: salt.reversed(), cost: .minimum), key)
        XCTAssertEqual(try PassphraseKey.derive(passphrase: passphrase, salt: salt, cost: .minimum), key)
    }

    func testBadSaltOrCostIsAnError() {
        XCTAssertThrowsError(try PassphraseKey.derive(passphrase: passphrase, salt: [1, 2, 3], cost: .minimum))
        XCTAssertThrowsError(
            try PassphraseKey.derive(passphrase: passphrase, salt: salt, cost: PassphraseKey.Cost(passes: 0, memoryKiB: 8)))
    }
}
