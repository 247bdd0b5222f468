public import SimplexCrypto
public import SimplexEncoding

/// A public key as SMP carries it (smp.md §1.3): SPKI DER, `len1` in binary, base64url in text. The algorithm is
/// read from the DER prefix; a field then checks it is the one it expects.
public enum SMPPublicKey: Hashable, Sendable {
    case ed25519(Ed25519.PublicKey)
    case ed448(Ed448.PublicKey)
    case x25519(X25519.PublicKey)
    case x448(X448.PublicKey)

    public var spki: [UInt8] {
        switch self {
        case .ed25519(let k): k.spki
        case .ed448(let k): k.spki
        case .x25519(let k): k.spki
        case .x448(let k): k.spki
        }
    }

    /// Parses exactly one SPKI object of one of the four algorithms.
    public init(spki der: [UInt8]) throws(BinaryDecodingError) {
        // Byte 8 of each prefix is the last byte of the algorithm's OID (RFC 8410).
        guard der.count > 12 else { throw .malformed("public key: \(der.count) bytes is no SPKI") }
        do {
            switch (der.count, der[8]) {
            case (44, 0x70): self = .ed25519(try Ed25519.PublicKey(spki: der))
            case (44, 0x6e): self = .x25519(try X25519.PublicKey(spki: der))
            case (69, 0x71): self = .ed448(try Ed448.PublicKey(spki: der))
            case (68, 0x6f): self = .x448(try X448.PublicKey(spki: der))
            default: throw BinaryDecodingError.malformed("public key: unknown algorithm or length")
            }
        } catch let e as BinaryDecodingError {
            throw e
        } catch {
            throw .malformed("public key: \(error)")
        }
    }
}

/// A key that authorizes commands (`APublicAuthKey`, smp.md §3.2): Ed25519 or Ed448 for signatures, X25519 for
/// the v7+ authenticator. Clients use Ed25519.
public enum AuthPublicKey: Hashable, Sendable {
    case ed25519(Ed25519.PublicKey)
    case ed448(Ed448.PublicKey)
    case x25519(X25519.PublicKey)

    public var spki: [UInt8] {
        switch self {
        case .ed25519(let k): k.spki
        case .ed448(let k): k.spki
        case .x25519(let k): k.spki
        }
    }

    /// Whether `signature` is this key's signature of `message`; an X25519 key verifies no signature.
    public func isValidSignature(_ signature: SMPSignature, for message: [UInt8]) -> Bool {
        switch (self, signature) {
        case (.ed25519(let k), .ed25519(let s)): k.isValidSignature(s, for: message)
        case (.ed448(let k), .ed448(let s)): k.isValidSignature(s, for: message)
        default: false
        }
    }
}

/// A signature (smp.md §1.1): its length, 64 or 114 bytes, decides the algorithm.
public enum SMPSignature: Hashable, Sendable {
    case ed25519(Ed25519.Signature)
    case ed448(Ed448.Signature)

    public var rawRepresentation: [UInt8] {
        switch self {
        case .ed25519(let s): s.rawRepresentation
        case .ed448(let s): s.rawRepresentation
        }
    }

    public init(rawRepresentation raw: [UInt8]) throws(BinaryDecodingError) {
        switch raw.count {
        case 64: self = .ed25519(try mapCrypto { () throws(CryptoError) in try Ed25519.Signature(rawRepresentation: raw) })
        case 114: self = .ed448(try mapCrypto { () throws(CryptoError) in try Ed448.Signature(rawRepresentation: raw) })
        default: throw .malformed("signature of \(raw.count) bytes")
        }
    }
}

/// Runs a key constructor, turning its crypto error into a decoding error.
func mapCrypto<T>(_ body: () throws(CryptoError) -> T) throws(BinaryDecodingError) -> T {
    do { return try body() } catch { throw .malformed("\(error)") }
}

extension ByteWriter {
    mutating func write(_ key: SMPPublicKey) throws(BinaryEncodingError) { try writeShortBytes(key.spki) }
    mutating func write(_ key: AuthPublicKey) throws(BinaryEncodingError) { try writeShortBytes(key.spki) }
    mutating func write(_ key: X25519.PublicKey) throws(BinaryEncodingError) { try writeShortBytes(key.spki) }
}

extension ByteReader {
    mutating func readPublicKey() throws(BinaryDecodingError) -> SMPPublicKey { try SMPPublicKey(spki: readShortBytes()) }

    /// A DH field: X25519 only.
    mutating func readX25519Key() throws(BinaryDecodingError) -> X25519.PublicKey {
        guard case .x25519(let k) = try readPublicKey() else { throw .malformed("expected an X25519 key") }
        return k
    }

    /// An authorization key field: Ed25519, Ed448 or X25519.
    mutating func readAuthKey() throws(BinaryDecodingError) -> AuthPublicKey {
        switch try readPublicKey() {
        case .ed25519(let k): return .ed25519(k)
        case .ed448(let k): return .ed448(k)
        case .x25519(let k): return .x25519(k)
        case .x448: throw .malformed("X448 cannot authorize commands")
        }
    }
}
