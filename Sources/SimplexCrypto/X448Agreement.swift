internal import COpenSSL

/// X448 Diffie-Hellman (RFC 7748) through OpenSSL, for the double ratchet's X3DH and DH steps (smp.md §5.2–§5.3).
extension X448 {
    /// An X448 private key: 56 raw bytes; OpenSSL clamps them as RFC 7748 §5 requires, so any 56 bytes are a key.
    public struct PrivateKey: Sendable {
        let key: EVPKey
        public let publicKey: PublicKey

        /// A fresh key from OpenSSL's generator.
        public init() {
            key = EVPKey.generate(EVP_PKEY_X448)
            publicKey = PublicKey(validated: key.rawKey(public: true, count: 56))
        }

        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, 56, "X448 private key")
            key = try EVPKey.rawPrivate(EVP_PKEY_X448, raw)
            publicKey = try PublicKey(rawRepresentation: key.rawKey(public: true, count: 56))
        }

        public var rawRepresentation: [UInt8] { key.rawKey(public: false, count: 56) }

        /// The raw 56-byte X448 output, little-endian as RFC 7748 and OpenSSL give it (smp.md §1.3); a peer key that
        /// yields the all-zero output is refused.
        public func sharedSecret(with peer: PublicKey) throws(CryptoError) -> SharedSecret {
            let peerKey = try EVPKey.rawPublic(EVP_PKEY_X448, peer.rawRepresentation)
            return SharedSecret(validated: try key.sharedSecret(with: peerKey, length: 56))
        }
    }

    /// A raw 56-byte X448 output (`DhSecretX448` in SimpleX).
    public struct SharedSecret: Sendable, Equatable {
        public let rawRepresentation: [UInt8]

        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, 56, "X448 shared secret")
            rawRepresentation = raw
        }

        init(validated raw: [UInt8]) { rawRepresentation = raw }

        public static func == (a: Self, b: Self) -> Bool { constantTimeEqual(a.rawRepresentation, b.rawRepresentation) }
    }
}

extension X448.PublicKey {
    /// A key OpenSSL has just made, so its length is right by construction.
    init(validated raw: [UInt8]) {
        do {
            self = try X448.PublicKey(rawRepresentation: raw)
        } catch {
            preconditionFailure("OpenSSL returned an X448 public key of \(raw.count) bytes")
        }
    }
}

extension EVPKey {
    /// The raw public or private key of a 448-bit key (`rawPublicKey`/`rawPrivateKey` serve the 32-byte curves).
    func rawKey(public: Bool, count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var n = count
        let rc =
            `public` ? EVP_PKEY_get_raw_public_key(pointer, &out, &n) : EVP_PKEY_get_raw_private_key(pointer, &out, &n)
        precondition(rc == 1 && n == count, "raw key unavailable")
        return out
    }
}
