internal import COpenSSL

/// X448 public keys (RFC 7748), as SMP and the ratchet carry them (smp.md §1.3): 56 raw bytes, 68 in SPKI DER.
public enum X448 {
    public struct PublicKey: Hashable, Sendable {
        public let rawRepresentation: [UInt8]

        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, 56, "X448 public key")
            rawRepresentation = raw
        }

        /// The SubjectPublicKeyInfo DER form (68 bytes).
        public init(spki der: [UInt8]) throws(CryptoError) {
            try self.init(
                rawRepresentation: Curve448DER.strip(der, prefix: Curve448DER.x448SPKIPrefix, raw: 56, what: "X448 SPKI"))
        }

        public var spki: [UInt8] { Curve448DER.x448SPKIPrefix + rawRepresentation }
    }
}

/// Ed448 (RFC 8032, pure, empty context) public keys and signatures, for servers' Ed448 certificates and keys
/// (smp.md §1.3, §2.2): 57 raw bytes, 69 in SPKI DER; signatures of 114 bytes.
public enum Ed448 {
    public struct PublicKey: Hashable, Sendable {
        public let rawRepresentation: [UInt8]
        let key: EVPKey

        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, 57, "Ed448 public key")
            rawRepresentation = raw
            key = try EVPKey.rawPublic(EVP_PKEY_ED448, raw)
        }

        /// The SubjectPublicKeyInfo DER form (69 bytes).
        public init(spki der: [UInt8]) throws(CryptoError) {
            try self.init(
                rawRepresentation: Curve448DER.strip(der, prefix: Curve448DER.ed448SPKIPrefix, raw: 57, what: "Ed448 SPKI"))
        }

        public var spki: [UInt8] { Curve448DER.ed448SPKIPrefix + rawRepresentation }

        public func isValidSignature(_ signature: Signature, for message: [UInt8]) -> Bool {
            guard let ctx = EVP_MD_CTX_new() else { return false }
            defer { EVP_MD_CTX_free(ctx) }
            guard EVP_DigestVerifyInit(ctx, nil, nil, nil, key.pointer) == 1 else {
                ERR_clear_error()
                return false
            }
            let rc = EVP_DigestVerify(ctx, signature.rawRepresentation, 114, message, message.count)
            ERR_clear_error()
            return rc == 1
        }

        public static func == (a: Self, b: Self) -> Bool { a.rawRepresentation == b.rawRepresentation }
        public func hash(into h: inout Hasher) { h.combine(rawRepresentation) }
    }

    /// A 114-byte Ed448 signature.
    public struct Signature: Hashable, Sendable {
        public let rawRepresentation: [UInt8]

        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, 114, "Ed448 signature")
            rawRepresentation = raw
        }
    }
}

/// The fixed SPKI prefixes of the 448-bit keys (smp.md §1.3).
enum Curve448DER {
    static let x448SPKIPrefix: [UInt8] = [0x30, 0x42, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6f, 0x03, 0x39, 0x00]
    static let ed448SPKIPrefix: [UInt8] = [0x30, 0x43, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x71, 0x03, 0x3a, 0x00]

    static func strip(_ der: [UInt8], prefix: [UInt8], raw: Int, what: String) throws(CryptoError) -> [UInt8] {
        guard der.count == prefix.count + raw else {
            throw .invalidLength(what: what, expected: prefix.count + raw, actual: der.count)
        }
        guard der.starts(with: prefix) else { throw .invalidKeyEncoding("\(what): unexpected algorithm or structure") }
        return Array(der[prefix.count...])
    }
}
