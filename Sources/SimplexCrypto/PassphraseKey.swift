internal import CSodium

/// A 32-byte key stretched from a passphrase with Argon2id (libsodium `crypto_pwhash`, version 1.3), and
/// the subkeys derived from it (`crypto_kdf`, BLAKE2b), so one passphrase yields independent keys per use.
public struct PassphraseKey: Sendable, Equatable {
    /// Argon2id's work factors: passes over memory and the memory itself.
    public struct Cost: Sendable, Equatable {
        public let passes: UInt32
        public let memoryKiB: UInt32

        public init(passes: UInt32, memoryKiB: UInt32) {
            self.passes = passes
            self.memoryKiB = memoryKiB
        }

        /// libsodium's interactive level: 2 passes over 64 MiB.
        public static let interactive = Cost(passes: 2, memoryKiB: 64 * 1024)
        /// The least libsodium accepts; for tests only.
        public static let minimum = Cost(passes: 1, memoryKiB: 8)
    }

    public static let saltSize = 16
    public static let size = 32

    let raw: [UInt8]

    public static func == (a: Self, b: Self) -> Bool { constantTimeEqual(a.raw, b.raw) }

    /// Stretches `passphrase` under `salt` (16 bytes).
    public static func derive(passphrase: [UInt8], salt: [UInt8], cost: Cost) throws(CryptoError) -> PassphraseKey {
        requireSodium()
        try checkLength(salt, saltSize, "Argon2id salt")
        guard cost.passes >= 1, cost.memoryKiB >= 8 else { throw .sodium(operation: "crypto_pwhash (cost too low)") }
        var out = [UInt8](repeating: 0, count: size)
        let chars = passphrase.map { CChar(bitPattern: $0) }
        let rc = crypto_pwhash(
            &out, UInt64(size), chars, UInt64(chars.count), salt, UInt64(cost.passes), Int(cost.memoryKiB) * 1024,
            crypto_pwhash_ALG_ARGON2ID13)
        guard rc == 0 else { throw .sodium(operation: "crypto_pwhash") }
        return PassphraseKey(raw: out)
    }

    /// Subkey `id` of this key in `context` (exactly 8 ASCII bytes naming the use).
    public func subkey(_ id: UInt64, context: StaticString) -> [UInt8] {
        requireSodium()
        precondition(context.utf8CodeUnitCount == 8, "a crypto_kdf context is 8 bytes")
        var out = [UInt8](repeating: 0, count: Self.size)
        let ctx = context.withUTF8Buffer { $0.map { CChar(bitPattern: $0) } }
        let rc = crypto_kdf_derive_from_key(&out, Self.size, id, ctx, raw)
        precondition(rc == 0, "crypto_kdf_derive_from_key failed with valid sizes")
        return out
    }
}
