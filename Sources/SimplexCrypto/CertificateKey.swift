internal import COpenSSL

/// The EdDSA algorithm of an SMP server's certificate keys: Ed25519 (`smp-server init` today) or Ed448 (older
/// servers), smp.md §2.2.
public enum CertificateKeyAlgorithm: Sendable, Hashable, CaseIterable {
    case ed25519
    case ed448

    var evpType: Int32 {
        switch self {
        case .ed25519: EVP_PKEY_ED25519
        case .ed448: EVP_PKEY_ED448
        }
    }

    /// The raw key size (RFC 8032): 32 or 57 bytes, for both the private and the public key.
    var keyLength: Int {
        switch self {
        case .ed25519: 32
        case .ed448: 57
        }
    }

    /// The raw signature size (RFC 8032): 64 or 114 bytes (smp.md §1.3).
    public var signatureLength: Int {
        switch self {
        case .ed25519: 64
        case .ed448: 114
        }
    }

    /// The last byte of the OID 1.3.101.x (RFC 8410).
    var oidLast: UInt8 {
        switch self {
        case .ed25519: 0x70
        case .ed448: 0x71
        }
    }

    /// The DER AlgorithmIdentifier, without parameters (RFC 8410 §3; smp.md §2.4: a NULL parameter is refused).
    public var algorithmIdentifier: [UInt8] { [0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, oidLast] }

    /// SubjectPublicKeyInfo prefix (smp.md §1.3); the raw key follows.
    var spkiPrefix: [UInt8] {
        let keyBits = UInt8(keyLength + 1)
        return [0x30, 0x09 + keyBits, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, oidLast, 0x03, keyBits, 0x00]
    }

    /// PKCS#8 prefix (RFC 8410, no public key); the raw private key follows (48 or 73 bytes in all).
    var pkcs8Prefix: [UInt8] {
        let key = UInt8(keyLength)
        return [0x30, 0x0e + key, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, oidLast, 0x04, key + 2, 0x04, key]
    }

    init?(evpType: Int32) {
        switch evpType {
        case EVP_PKEY_ED25519: self = .ed25519
        case EVP_PKEY_ED448: self = .ed448
        default: return nil
        }
    }
}

/// The private key of a certificate in an SMP server's chain (smp.md §2.2): it signs certificates, the TLS
/// CertificateVerify and, for the online (leaf) key, the server's handshake DH key (smp.md §2.4). Ed25519 or Ed448.
public struct CertificateKey: Sendable {
    public let algorithm: CertificateKeyAlgorithm
    let key: EVPKey

    /// A new random key.
    public init(generating algorithm: CertificateKeyAlgorithm) {
        self.algorithm = algorithm
        key = EVPKey.generate(algorithm.evpType)
    }

    /// An Ed25519 key as used elsewhere (XRCP), for signing certificates with it.
    public init(_ ed25519: Ed25519.PrivateKey) {
        algorithm = .ed25519
        key = ed25519.makeEVPKey()
    }

    /// From the RFC 8410 PKCS#8 form without the public key (48 bytes for Ed25519, 73 for Ed448), as stored.
    public init(pkcs8 der: [UInt8]) throws(CryptoError) {
        guard let algorithm = CertificateKeyAlgorithm.allCases.first(where: { der.starts(with: $0.pkcs8Prefix) }) else {
            throw .invalidKeyEncoding("certificate key PKCS#8: not an Ed25519 or Ed448 key in the expected structure")
        }
        let raw = Array(der.dropFirst(algorithm.pkcs8Prefix.count))
        try checkLength(raw, algorithm.keyLength, "certificate key PKCS#8")
        self.algorithm = algorithm
        key = try EVPKey.rawPrivate(algorithm.evpType, raw)
    }

    public var pkcs8: [UInt8] { algorithm.pkcs8Prefix + key.rawPrivateKey(length: algorithm.keyLength) }

    /// The public key as DER SubjectPublicKeyInfo (44 or 69 bytes, smp.md §1.3).
    public var publicKeySPKI: [UInt8] { algorithm.spkiPrefix + key.rawPublicKey(length: algorithm.keyLength) }

    /// The OpenSSL `EVP_PKEY*`, for the TLS module; valid while this key lives.
    package var openSSLKey: OpaquePointer { key.pointer }

    /// A pure EdDSA signature (RFC 8032) of `message`: 64 or 114 bytes.
    public func signature(for message: [UInt8]) -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(ctx) }
        let length = algorithm.signatureLength
        var signature = [UInt8](repeating: 0, count: length)
        var n = length
        guard EVP_DigestSignInit(ctx, nil, nil, nil, key.pointer) == 1,
            EVP_DigestSign(ctx, &signature, &n, message, message.count) == 1, n == length
        else { preconditionFailure("EdDSA signing failed: \(openSSLError("EVP_DigestSign"))") }
        return signature
    }
}
