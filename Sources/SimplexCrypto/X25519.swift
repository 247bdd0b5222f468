internal import COpenSSL

/// X25519 Diffie-Hellman through OpenSSL (xrcp.md §1.4, §7.3, §8.1).
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

    public struct PrivateKey: Sendable {
        let key: EVPKey
        public let publicKey: PublicKey

        public init() {
            key = EVPKey.generate(EVP_PKEY_X25519)
            publicKey = PublicKey(validated: key.rawPublicKey)
        }

        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, 32, "X25519 private key")
            key = try EVPKey.rawPrivate(EVP_PKEY_X25519, raw)
            publicKey = try PublicKey(rawRepresentation: key.rawPublicKey)
        }

        /// The PKCS#8 form SimpleX stores (48 bytes).
        public init(pkcs8 der: [UInt8]) throws(CryptoError) {
            try self.init(
                rawRepresentation: KeyDER.strip(der, prefix: KeyDER.pkcs8Prefix(KeyDER.x25519OID), what: "X25519 PKCS#8"))
        }

        public var rawRepresentation: [UInt8] { key.rawPrivateKey }
        public var pkcs8: [UInt8] { KeyDER.pkcs8Prefix(KeyDER.x25519OID) + rawRepresentation }

        /// The raw X25519 output; a peer key of small order (all-zero output) is refused.
        public func sharedSecret(with peer: PublicKey) throws(CryptoError) -> SharedSecret {
            let peerKey = try EVPKey.rawPublic(EVP_PKEY_X25519, peer.rawRepresentation)
            return SharedSecret(validated: try key.sharedSecret(with: peerKey, length: 32))
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
