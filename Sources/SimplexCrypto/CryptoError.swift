internal import COpenSSL
internal import CSodium

/// Why a cryptographic operation or a key/certificate decoder failed.
public enum CryptoError: Error, Equatable, Sendable {
    /// Bytes of the wrong length for this key, nonce, signature or ciphertext.
    case invalidLength(what: String, expected: Int, actual: Int)
    /// A DER/PKCS#8/SPKI encoding that is not the one SimpleX uses for this key type.
    case invalidKeyEncoding(String)
    /// A peer public key that yields no usable shared secret (e.g. a small-order X25519 point).
    case invalidPublicKey
    /// Authentication failed: wrong key, nonce or tampered ciphertext.
    case decryptionFailed
    /// A certificate that could not be parsed or made.
    case invalidCertificate(String)
    /// An error reported by OpenSSL, with its error-queue text.
    case openSSL(operation: String, reason: String)
    /// libsodium refused an operation.
    case sodium(operation: String)
}

/// Turns OpenSSL's thread-local error queue into a typed error, emptying the queue.
func openSSLError(_ operation: String) -> CryptoError {
    var reasons: [String] = []
    while case let code = ERR_get_error(), code != 0 {
        var buf = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buf, buf.count)
        reasons.append(String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return .openSSL(operation: operation, reason: reasons.isEmpty ? "unknown error" : reasons.joined(separator: "; "))
}

/// libsodium must be initialised once before use; `sodium_init` is idempotent and thread-safe,
/// and a global is initialised exactly once by Swift.
let sodiumReady: Bool = sodium_init() >= 0

@inline(__always)
func requireSodium() {
    precondition(sodiumReady, "libsodium failed to initialise")
}

/// Constant-time equality for secrets (libsodium `sodium_memcmp`).
public func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    if a.isEmpty { return true }
    return a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in sodium_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 } }
}

func checkLength(_ bytes: [UInt8], _ expected: Int, _ what: String) throws(CryptoError) {
    guard bytes.count == expected else { throw .invalidLength(what: what, expected: expected, actual: bytes.count) }
}
