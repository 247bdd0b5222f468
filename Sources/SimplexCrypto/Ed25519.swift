internal import COpenSSL

/// Ed25519 (RFC 8032, pure) through OpenSSL: session, identity and certificate keys (xrcp.md §1.4).
public enum Ed25519 {
    public struct PublicKey: Hashable, Sendable {
        /// The 32-byte key.
        public let rawRepresentation: [UInt8]
        let key: EVPKey

        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, 32, "Ed25519 public key")
            rawRepresentation = raw
            key = try EVPKey.rawPublic(EVP_PKEY_ED25519, raw)
        }

        /// The X.509 SubjectPublicKeyInfo DER form SimpleX puts on the wire (44 bytes).
        public init(spki der: [UInt8]) throws(CryptoError) {
            try self.init(
                rawRepresentation: KeyDER.strip(der, prefix: KeyDER.spkiPrefix(KeyDER.ed25519OID), what: "Ed25519 SPKI"))
        }

        /// From a key OpenSSL made or checked: an Ed25519 private key's `EVP_PKEY` verifies as well.
        init(validated raw: [UInt8], key: EVPKey) {
            rawRepresentation = raw
            self.key = key
        }

        public var spki: [UInt8] { KeyDER.spkiPrefix(KeyDER.ed25519OID) + rawRepresentation }

        public func isValidSignature(_ signature: Signature, for message: [UInt8]) -> Bool {
            guard let ctx = EVP_MD_CTX_new() else { return false }
            defer { EVP_MD_CTX_free(ctx) }
            guard EVP_DigestVerifyInit(ctx, nil, nil, nil, key.pointer) == 1 else {
                ERR_clear_error()
                return false
            }
            let rc = EVP_DigestVerify(ctx, signature.rawRepresentation, 64, message, message.count)
            ERR_clear_error()
            return rc == 1
        }

        public static func == (a: Self, b: Self) -> Bool { a.rawRepresentation == b.rawRepresentation }
        public func hash(into h: inout Hasher) { h.combine(rawRepresentation) }
    }

    public struct PrivateKey: Sendable {
        let key: EVPKey
        public let publicKey: PublicKey

        /// A new random key.
        public init() {
            key = EVPKey.generate(EVP_PKEY_ED25519)
            publicKey = PublicKey(validated: key.rawPublicKey, key: key)
        }

        /// From the 32-byte seed (RFC 8032's private key).
        public init(seed: [UInt8]) throws(CryptoError) {
            try checkLength(seed, 32, "Ed25519 seed")
            key = try EVPKey.rawPrivate(EVP_PKEY_ED25519, seed)
            publicKey = try PublicKey(rawRepresentation: key.rawPublicKey)
        }

        /// From the PKCS#8 form SimpleX stores (48 bytes, RFC 8410 without the public key).
        public init(pkcs8 der: [UInt8]) throws(CryptoError) {
            try self.init(seed: KeyDER.strip(der, prefix: KeyDER.pkcs8Prefix(KeyDER.ed25519OID), what: "Ed25519 PKCS#8"))
        }

        public var seed: [UInt8] { key.rawPrivateKey }

        /// The OpenSSL `EVP_PKEY*`, for the TLS module; valid while this key lives.
        package var openSSLKey: OpaquePointer { key.pointer }
        public var pkcs8: [UInt8] { KeyDER.pkcs8Prefix(KeyDER.ed25519OID) + seed }

        public func signature(for message: [UInt8]) -> Signature {
            guard let ctx = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
            defer { EVP_MD_CTX_free(ctx) }
            var sig = [UInt8](repeating: 0, count: 64)
            var n = 64
            guard EVP_DigestSignInit(ctx, nil, nil, nil, key.pointer) == 1,
                EVP_DigestSign(ctx, &sig, &n, message, message.count) == 1, n == 64
            else { preconditionFailure("Ed25519 signing failed: \(openSSLError("EVP_DigestSign"))") }
            return Signature(validated: sig)
        }
    }

    /// A 64-byte Ed25519 signature.
    public struct Signature: Hashable, Sendable {
        public let rawRepresentation: [UInt8]

        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, 64, "Ed25519 signature")
            rawRepresentation = raw
        }

        init(validated raw: [UInt8]) { rawRepresentation = raw }
    }
}
