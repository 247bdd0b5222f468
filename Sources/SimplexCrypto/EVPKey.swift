internal import COpenSSL

/// Owns one OpenSSL `EVP_PKEY`. OpenSSL keys are immutable after creation and may be used from
/// several threads at once (each operation makes its own context), hence `@unchecked Sendable`.
package final class EVPKey: @unchecked Sendable {
    package let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    static func rawPrivate(_ type: Int32, _ bytes: [UInt8]) throws(CryptoError) -> EVPKey {
        guard let p = EVP_PKEY_new_raw_private_key(type, nil, bytes, bytes.count) else {
            throw openSSLError("EVP_PKEY_new_raw_private_key")
        }
        return EVPKey(p)
    }

    static func rawPublic(_ type: Int32, _ bytes: [UInt8]) throws(CryptoError) -> EVPKey {
        guard let p = EVP_PKEY_new_raw_public_key(type, nil, bytes, bytes.count) else {
            throw openSSLError("EVP_PKEY_new_raw_public_key")
        }
        return EVPKey(p)
    }

    static func generate(_ type: Int32) -> EVPKey {
        guard let ctx = EVP_PKEY_CTX_new_id(type, nil) else { preconditionFailure("EVP_PKEY_CTX_new_id failed") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_keygen(ctx, &key) == 1, let k = key else {
            preconditionFailure("key generation failed: \(openSSLError("EVP_PKEY_keygen"))")
        }
        return EVPKey(k)
    }

    var rawPublicKey: [UInt8] { rawPublicKey(length: 32) }

    var rawPrivateKey: [UInt8] { rawPrivateKey(length: 32) }

    /// The raw public key of a key type whose raw form is `length` bytes (57 for Ed448).
    func rawPublicKey(length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        var n = length
        precondition(EVP_PKEY_get_raw_public_key(pointer, &out, &n) == 1 && n == length, "raw public key unavailable")
        return out
    }

    /// The raw output of a Diffie-Hellman agreement (X25519, X448) with `peer`, `length` bytes; a failure or an
    /// all-zero output (a peer key of small order) is an invalid peer key.
    func sharedSecret(with peer: EVPKey, length: Int) throws(CryptoError) -> [UInt8] {
        guard let ctx = EVP_PKEY_CTX_new(pointer, nil) else { preconditionFailure("EVP_PKEY_CTX_new failed") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: length)
        var n = length
        guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer(ctx, peer.pointer) == 1,
            EVP_PKEY_derive(ctx, &out, &n) == 1, n == length, out.contains(where: { $0 != 0 })
        else {
            ERR_clear_error()
            throw .invalidPublicKey
        }
        return out
    }

    func rawPrivateKey(length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        var n = length
        precondition(EVP_PKEY_get_raw_private_key(pointer, &out, &n) == 1 && n == length, "raw private key unavailable")
        return out
    }
}

/// The fixed DER forms SimpleX uses for Ed25519 and X25519 keys (xrcp.md §1.4).
enum KeyDER {
    /// SubjectPublicKeyInfo prefix; the 32-byte key follows (44 bytes in all).
    static func spkiPrefix(_ oidLast: UInt8) -> [UInt8] {
        [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, oidLast, 0x03, 0x21, 0x00]
    }

    /// PKCS#8 (RFC 8410, no public key) prefix; the 32-byte private key follows (48 bytes in all).
    static func pkcs8Prefix(_ oidLast: UInt8) -> [UInt8] {
        [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, oidLast, 0x04, 0x22, 0x04, 0x20]
    }

    static let ed25519OID: UInt8 = 0x70
    static let x25519OID: UInt8 = 0x6e

    static func strip(_ der: [UInt8], prefix: [UInt8], what: String) throws(CryptoError) -> [UInt8] {
        guard der.count == prefix.count + 32 else {
            throw .invalidLength(what: what, expected: prefix.count + 32, actual: der.count)
        }
        guard der.starts(with: prefix) else { throw .invalidKeyEncoding("\(what): unexpected algorithm or structure") }
        return Array(der[prefix.count...])
    }
}
