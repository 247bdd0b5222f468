internal import COpenSSL
internal import CSodium

/// Ed25519 (RFC 8032, pure): session, identity, certificate and queue keys (xrcp.md §1.4, smp.md §3.3). Keys are
/// their raw bytes; signing and verifying run in libsodium (`crypto_sign_detached`, `crypto_sign_verify_detached`),
/// measured faster than OpenSSL's EVP calls by simplex-bench. An OpenSSL `EVP_PKEY` is made only where OpenSSL needs
/// one (certificates, the TLS handshake's signature), so a key costs its bytes, not an OpenSSL object.
public enum Ed25519 {
    public struct PublicKey: Hashable, Sendable {
        /// The 32-byte key.
        public let rawRepresentation: [UInt8]

        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, 32, "Ed25519 public key")
            rawRepresentation = raw
        }

        /// The X.509 SubjectPublicKeyInfo DER form SimpleX puts on the wire (44 bytes).
        public init(spki der: [UInt8]) throws(CryptoError) {
            try self.init(
                rawRepresentation: KeyDER.strip(der, prefix: KeyDER.spkiPrefix(KeyDER.ed25519OID), what: "Ed25519 SPKI"))
        }

        init(validated raw: [UInt8]) { rawRepresentation = raw }

        public var spki: [UInt8] { KeyDER.spkiPrefix(KeyDER.ed25519OID) + rawRepresentation }

        /// The key as OpenSSL holds it, for certificates.
        func makeEVPKey() throws(CryptoError) -> EVPKey { try EVPKey.rawPublic(EVP_PKEY_ED25519, rawRepresentation) }

        public func isValidSignature(_ signature: Signature, for message: [UInt8]) -> Bool {
            requireSodium()
            return crypto_sign_verify_detached(signature.rawRepresentation, message, UInt64(message.count), rawRepresentation)
                == 0
        }

        /// The same check through OpenSSL's EVP interface (what the keys used before libsodium); simplex-bench
        /// measures both in one run.
        public func isValidSignatureThroughOpenSSL(_ signature: Signature, for message: [UInt8]) -> Bool {
            guard let key = try? makeEVPKey(), let ctx = EVP_MD_CTX_new() else { return false }
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
        /// libsodium's 64-byte secret key: the seed, then the public key.
        let secret: SecretBytes
        public let publicKey: PublicKey

        /// A new random key.
        public init() {
            var publicKey = [UInt8](repeating: 0, count: 32)
            secret = SecretBytes(count: Int(crypto_sign_SECRETKEYBYTES)) { crypto_sign_keypair(&publicKey, $0) }
            self.publicKey = PublicKey(validated: publicKey)
        }

        /// From the 32-byte seed (RFC 8032's private key).
        public init(seed: [UInt8]) throws(CryptoError) {
            try checkLength(seed, 32, "Ed25519 seed")
            var publicKey = [UInt8](repeating: 0, count: 32)
            secret = SecretBytes(count: Int(crypto_sign_SECRETKEYBYTES)) { crypto_sign_seed_keypair(&publicKey, $0, seed) }
            self.publicKey = PublicKey(validated: publicKey)
        }

        /// From the PKCS#8 form SimpleX stores (48 bytes, RFC 8410 without the public key).
        public init(pkcs8 der: [UInt8]) throws(CryptoError) {
            try self.init(seed: KeyDER.strip(der, prefix: KeyDER.pkcs8Prefix(KeyDER.ed25519OID), what: "Ed25519 PKCS#8"))
        }

        public var seed: [UInt8] { secret[0..<32] }

        public var pkcs8: [UInt8] { KeyDER.pkcs8Prefix(KeyDER.ed25519OID) + seed }

        /// The key as OpenSSL holds it, made anew: for certificates and, through `openSSLKey`, the TLS module.
        func makeEVPKey() -> EVPKey {
            let seed = self.seed
            guard let key = try? EVPKey.rawPrivate(EVP_PKEY_ED25519, seed) else {
                preconditionFailure("OpenSSL refused a 32-byte Ed25519 seed: \(openSSLError("EVP_PKEY_new_raw_private_key"))")
            }
            return key
        }

        /// An OpenSSL `EVP_PKEY` of this key, for the TLS module; the caller keeps it alive while OpenSSL uses it.
        package var openSSLKey: EVPKey { makeEVPKey() }

        public func signature(for message: [UInt8]) -> Signature {
            var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
            let rc = crypto_sign_detached(&signature, nil, message, UInt64(message.count), secret.pointer)
            precondition(rc == 0, "crypto_sign_detached failed")
            return Signature(validated: signature)
        }

        /// The same signature through OpenSSL's EVP interface (Ed25519 is deterministic: the same bytes); simplex-bench
        /// measures both in one run.
        public func signatureThroughOpenSSL(for message: [UInt8]) -> Signature {
            let key = makeEVPKey()
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

/// libsodium's Ed25519 called directly on buffers made once, with none of `Ed25519`'s allocations: the reference
/// simplex-bench measures `Ed25519` against in the same run (its key is random, its message fixed).
public final class Ed25519Reference: @unchecked Sendable {
    // Used from one thread at a time (a benchmark loop).
    private let secret = UnsafeMutablePointer<UInt8>.allocate(capacity: Int(crypto_sign_SECRETKEYBYTES))
    private let publicKey = UnsafeMutablePointer<UInt8>.allocate(capacity: Int(crypto_sign_PUBLICKEYBYTES))
    private let signature = UnsafeMutablePointer<UInt8>.allocate(capacity: Int(crypto_sign_BYTES))
    private let message: UnsafeMutablePointer<UInt8>
    private let length: Int

    public init(message bytes: [UInt8]) {
        requireSodium()
        length = bytes.count
        message = .allocate(capacity: max(1, bytes.count))
        for (i, b) in bytes.enumerated() { message[i] = b }
        crypto_sign_keypair(publicKey, secret)
        crypto_sign_detached(signature, nil, message, UInt64(length), secret)
    }

    deinit {
        sodium_memzero(secret, Int(crypto_sign_SECRETKEYBYTES))
        for p in [secret, publicKey, signature, message] { p.deallocate() }
    }

    /// Signs the message; returns the signature's first byte (to keep the work observable).
    public func sign() -> UInt8 {
        crypto_sign_detached(signature, nil, message, UInt64(length), secret)
        return signature[0]
    }

    /// Verifies the message's signature.
    public func verify() -> Bool { crypto_sign_verify_detached(signature, message, UInt64(length), publicKey) == 0 }
}
