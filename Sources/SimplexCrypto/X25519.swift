internal import CSodium

/// X25519 Diffie-Hellman through libsodium (xrcp.md §1.4, §7.3, §8.1).
public enum X25519 {
    public struct PublicKey: Hashable, Sendable {
        public let rawRepresentation: [UInt8]

        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, 32, "X25519 public key")
            rawRepresentation = raw
        }

        /// The SubjectPublicKeyInfo DER form (44 bytes).
        public init(spki der: [UInt8]) throws(CryptoError) {
            try self.init(rawRepresentation: KeyDER.strip(der, prefix: KeyDER.spkiPrefix(KeyDER.x25519OID), what: "X25519 SPKI"))
        }

        public var spki: [UInt8] { KeyDER.spkiPrefix(KeyDER.x25519OID) + rawRepresentation }

        init(validated raw: [UInt8]) { rawRepresentation = raw }
    }

    /// A private key as its 32 raw bytes; agreements run in libsodium (`crypto_scalarmult`), which clamps the
    /// scalar as RFC 7748 and OpenSSL do.
    public struct PrivateKey: Sendable {
        let secret: SecretBytes
        public let publicKey: PublicKey

        public init() {
            secret = SecretBytes(count: 32) { randombytes_buf($0, 32) }
            publicKey = Self.publicKey(of: secret)
        }

        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, 32, "X25519 private key")
            secret = SecretBytes(copying: raw)
            publicKey = Self.publicKey(of: secret)
        }

        /// The PKCS#8 form SimpleX stores (48 bytes).
        public init(pkcs8 der: [UInt8]) throws(CryptoError) {
            try self.init(
                rawRepresentation: KeyDER.strip(der, prefix: KeyDER.pkcs8Prefix(KeyDER.x25519OID), what: "X25519 PKCS#8"))
        }

        private static func publicKey(of secret: SecretBytes) -> PublicKey {
            var out = [UInt8](repeating: 0, count: 32)
            // Fails only for a scalar that clamps to zero, which clamping rules out.
            precondition(crypto_scalarmult_base(&out, secret.pointer) == 0, "crypto_scalarmult_base failed")
            return PublicKey(validated: out)
        }

        public var rawRepresentation: [UInt8] { secret[0..<32] }
        public var pkcs8: [UInt8] { KeyDER.pkcs8Prefix(KeyDER.x25519OID) + rawRepresentation }

        /// The raw X25519 output; a peer key of small order (all-zero output) is refused.
        public func sharedSecret(with peer: PublicKey) throws(CryptoError) -> SharedSecret {
            var out = [UInt8](repeating: 0, count: 32)
            // libsodium answers -1 for the all-zero output.
            guard crypto_scalarmult(&out, secret.pointer, peer.rawRepresentation) == 0 else { throw .invalidPublicKey }
            return SharedSecret(validated: out)
        }
    }

    /// A raw 32-byte X25519 output (`DhSecretX25519` in SimpleX).
    public struct SharedSecret: Sendable, Equatable {
        public let rawRepresentation: [UInt8]

        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, 32, "X25519 shared secret")
            rawRepresentation = raw
        }

        init(validated raw: [UInt8]) { rawRepresentation = raw }

        public static func == (a: Self, b: Self) -> Bool { constantTimeEqual(a.rawRepresentation, b.rawRepresentation) }

        /// This secret as a box key: the HSalsa20 pre-step is applied by `SecretBox`, so it equals
        /// libsodium's `crypto_box_beforenm` (xrcp.md §1.6).
        public var boxKey: SecretBox.Key { SecretBox.Key(validated: rawRepresentation) }
    }
}
