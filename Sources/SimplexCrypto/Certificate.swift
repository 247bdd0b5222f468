internal import COpenSSL

/// Owns one OpenSSL `X509`; only read after it is made, hence `@unchecked Sendable`.
final class X509Handle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }
}

/// The SHA-256 of a certificate's DER (`KeyHash`, xrcp.md §3.3, smp.md §2.2): what invitations and HELLOs pin,
/// and an SMP server's identity in its address.
public struct CertificateFingerprint: Hashable, Sendable, CustomStringConvertible {
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
        try checkLength(raw, 32, "certificate fingerprint")
        rawRepresentation = raw
    }

    init(validated raw: [UInt8]) { rawRepresentation = raw }

    public var description: String { rawRepresentation.map { String($0, radix: 16) }.joined() }
}

/// An X.509 v3 certificate as SimpleX makes them (xrcp.md §3.1): Ed25519, serial 1, one UTF8String CN,
/// no extensions. Keeps its original DER bytes, which is what fingerprints and TLS carry.
public struct Certificate: Sendable, Hashable {
    public let derRepresentation: [UInt8]
    let handle: X509Handle

    /// Parses DER; the whole input must be one certificate.
    public init(der: [UInt8]) throws(CryptoError) {
        guard !der.isEmpty, der.count <= 65536 else { throw .invalidCertificate("size \(der.count) out of range") }
        var consumed = 0
        let x = der.withUnsafeBufferPointer { buf -> OpaquePointer? in
            var p: UnsafePointer<UInt8>? = buf.baseAddress
            let cert = d2i_X509(nil, &p, buf.count)
            if let p, let base = buf.baseAddress { consumed = p - base }
            return cert
        }
        guard let x else {
            ERR_clear_error()
            throw .invalidCertificate("not a DER X.509 certificate")
        }
        let handle = X509Handle(x)
        guard consumed == der.count else { throw .invalidCertificate("\(der.count - consumed) bytes after the certificate") }
        self.handle = handle
        derRepresentation = der
    }

    private init(handle: X509Handle) throws(CryptoError) {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let n = i2d_X509(handle.pointer, &out)
        guard n > 0, let out else { throw openSSLError("i2d_X509") }
        defer { CRYPTO_free(out, #fileID, #line) }
        derRepresentation = Array(UnsafeBufferPointer(start: out, count: Int(n)))
        self.handle = handle
    }

    public static func == (a: Self, b: Self) -> Bool { a.derRepresentation == b.derRepresentation }
    public func hash(into h: inout Hasher) { h.combine(derRepresentation) }

    /// The OpenSSL `X509*`, for the TLS module; valid while this certificate lives.
    package var openSSLCertificate: OpaquePointer { handle.pointer }

    public var fingerprint: CertificateFingerprint { CertificateFingerprint(validated: Digest.sha256(derRepresentation)) }

    /// The certificate's subject key, which must be Ed25519.
    public func ed25519PublicKey() throws(CryptoError) -> Ed25519.PublicKey {
        guard let key = X509_get0_pubkey(handle.pointer) else { throw .invalidCertificate("no public key") }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let n = i2d_PUBKEY(key, &out)
        guard n > 0, let out else {
            ERR_clear_error()
            throw .invalidCertificate("unreadable public key")
        }
        defer { CRYPTO_free(out, #fileID, #line) }
        do {
            return try Ed25519.PublicKey(spki: Array(UnsafeBufferPointer(start: out, count: Int(n))))
        } catch {
            throw .invalidCertificate("public key is not Ed25519")
        }
    }

    /// Whether `issuer`'s key signed this certificate (the pinning check OpenSSL's chain verification cannot do
    /// for SimpleX's extension-less CAs).
    public func isSigned(by issuer: Certificate) -> Bool {
        guard let key = X509_get0_pubkey(issuer.handle.pointer) else { return false }
        let ok = X509_verify(handle.pointer, key) == 1
        ERR_clear_error()
        return ok
    }

    /// Whether `time` (seconds since the epoch) lies within the validity period.
    public func isValid(at time: Int64) -> Bool {
        var t = Int(time)
        guard let nb = X509_get0_notBefore(handle.pointer), let na = X509_get0_notAfter(handle.pointer) else { return false }
        return X509_cmp_time(nb, &t) == -1 && X509_cmp_time(na, &t) == 1
    }

    /// The subject's common name, if it has exactly one.
    public var subjectCommonName: String? {
        guard let name = X509_get_subject_name(handle.pointer) else { return nil }
        let i = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard i >= 0, let entry = X509_NAME_get_entry(name, i), let data = X509_NAME_ENTRY_get_data(entry),
            let bytes = ASN1_STRING_get0_data(data)
        else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(ASN1_STRING_length(data))), as: UTF8.self)
    }

    /// The algorithm of the subject's key, if it is Ed25519 or Ed448 (smp.md §2.2).
    public var subjectKeyAlgorithm: CertificateKeyAlgorithm? {
        guard let key = X509_get0_pubkey(handle.pointer) else {
            ERR_clear_error()
            return nil
        }
        return CertificateKeyAlgorithm(evpType: EVP_PKEY_get_base_id(key))
    }

    /// Whether `signature` is a valid pure EdDSA signature of `message` by the subject's key: how an SMP client
    /// checks the server's signed handshake key with the TLS leaf (smp.md §2.4).
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let algorithm = subjectKeyAlgorithm, signature.count == algorithm.signatureLength,
            let key = X509_get0_pubkey(handle.pointer), let ctx = EVP_MD_CTX_new()
        else {
            ERR_clear_error()
            return false
        }
        defer { EVP_MD_CTX_free(ctx) }
        let ok =
            EVP_DigestVerifyInit(ctx, nil, nil, nil, key) == 1
            && EVP_DigestVerify(ctx, signature, signature.count, message, message.count) == 1
        ERR_clear_error()
        return ok
    }

    /// Whether the time (seconds since the epoch) is before `notBefore` or after `notAfter`; nil when the dates
    /// cannot be read.
    package func validity(at time: Int64) -> CertificateValidity? {
        defer { ERR_clear_error() }
        var t = time_t(time)
        guard let notBefore = X509_get0_notBefore(handle.pointer), let notAfter = X509_get0_notAfter(handle.pointer)
        else { return nil }
        // X509_cmp_time: -1 when the certificate time is at or before `t`, 1 when after, 0 on error.
        switch X509_cmp_time(notBefore, &t) {
        case -1: break
        case 1: return .notYetValid
        default: return nil
        }
        switch X509_cmp_time(notAfter, &t) {
        case 1: return .valid
        case -1: return .expired
        default: return nil
        }
    }

    /// The basicConstraints and keyUsage facts a path check needs (RFC 5280 §4.2.1.3, §4.2.1.9).
    package var authorityConstraints: AuthorityConstraints {
        defer { ERR_clear_error() }
        let x = handle.pointer
        // X509_get_extension_flags computes the cached extension facts (EXFLAG_*), keyUsage among them.
        let flags = X509_get_extension_flags(x)
        let mayCertSign = flags & UInt32(EXFLAG_KUSAGE) == 0 || X509_get_key_usage(x) & UInt32(KU_KEY_CERT_SIGN) != 0
        var critical: Int32 = 0
        guard let raw = X509_get_ext_d2i(x, NID_basic_constraints, &critical, nil) else {
            return AuthorityConstraints(isCA: false, mayCertSign: mayCertSign, pathLength: nil)
        }
        let constraints = raw.assumingMemoryBound(to: BASIC_CONSTRAINTS.self)
        defer { BASIC_CONSTRAINTS_free(constraints) }
        let pathLength = constraints.pointee.pathlen.map { Int(ASN1_INTEGER_get($0)) }
        return AuthorityConstraints(
            isCA: constraints.pointee.ca != 0, mayCertSign: mayCertSign, pathLength: pathLength.flatMap { $0 >= 0 ? $0 : nil })
    }

    /// The subject DN equals `other`'s issuer DN (X509_NAME_cmp).
    package func isIssuer(of other: Certificate) -> Bool {
        guard let subject = X509_get_subject_name(handle.pointer), let issuer = X509_get_issuer_name(other.handle.pointer)
        else { return false }
        return X509_NAME_cmp(subject, issuer) == 0
    }

    /// The X.509 version field (2 for v3).
    package var version: Int { Int(X509_get_version(handle.pointer)) }

    /// Makes and signs an X.509 v3 certificate for `subjectKey`'s public key with a random 159-bit serial (as
    /// `openssl req -x509` does): self-signed when `issuer` is nil. The subject's attributes and the extensions
    /// are written as in an OpenSSL configuration file (`("CN", "SMP server CA")`,
    /// `("basicConstraints", "critical,CA:TRUE")`).
    package static func issue(
        subject: [(name: String, value: String)], subjectKey: CertificateKey, issuer: Certificate?,
        issuerKey: CertificateKey, notBefore: Int64, notAfter: Int64, extensions: [(name: String, value: String)]
    ) throws(CryptoError) -> Certificate {
        ERR_clear_error()
        guard let x = X509_new() else { throw openSSLError("X509_new") }
        let handle = X509Handle(x)
        guard let name = X509_NAME_new() else { throw openSSLError("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        guard let serial = BN_new() else { throw openSSLError("BN_new") }
        defer { BN_free(serial) }
        var ok =
            X509_set_version(x, 2) == 1  // v3
            && BN_rand(serial, 159, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1
            && BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x)) != nil
        for entry in subject where ok {
            ok = X509_NAME_add_entry_by_txt(name, entry.name, MBSTRING_UTF8, entry.value, -1, -1, 0) == 1
        }
        ok =
            ok && X509_set_subject_name(x, name) == 1
            && X509_set_issuer_name(x, issuer.map { X509_get_subject_name($0.handle.pointer) } ?? name) == 1
            && ASN1_TIME_set(X509_getm_notBefore(x), time_t(notBefore)) != nil
            && ASN1_TIME_set(X509_getm_notAfter(x), time_t(notAfter)) != nil
            && X509_set_pubkey(x, subjectKey.key.pointer) == 1
        guard ok else { throw openSSLError("make certificate") }
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.handle.pointer ?? x, x, nil, nil, 0)
        for ext in extensions {
            guard let made = X509V3_EXT_nconf(nil, &context, ext.name, ext.value) else {
                throw openSSLError("extension \(ext.name) = \(ext.value)")
            }
            defer { X509_EXTENSION_free(made) }
            guard X509_add_ext(x, made, -1) == 1 else { throw openSSLError("add extension \(ext.value)") }
        }
        guard X509_sign(x, issuerKey.key.pointer, nil) > 0 else { throw openSSLError("sign certificate") }
        return try Certificate(handle: handle)
    }

    /// 999 999 days, the validity SimpleX gives every certificate.
    public static let validityHours: Int64 = 23_999_976

    /// Makes and signs a certificate: self-signed when `issuer` is nil.
    public static func make(
        commonName: String, publicKey: Ed25519.PublicKey, issuer: Certificate?, signingKey: Ed25519.PrivateKey,
        notBefore: Int64, notAfter: Int64
    ) throws(CryptoError) -> Certificate {
        let subjectKey = try publicKey.makeEVPKey()
        let issuerKey = signingKey.makeEVPKey()
        guard let x = X509_new() else { throw openSSLError("X509_new") }
        let handle = X509Handle(x)
        guard let name = X509_NAME_new() else { throw openSSLError("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        let ok =
            X509_set_version(x, 2) == 1  // v3
            && ASN1_INTEGER_set(X509_get_serialNumber(x), 1) == 1
            && X509_NAME_add_entry_by_NID(name, NID_commonName, MBSTRING_UTF8, commonName, -1, -1, 0) == 1
            && X509_set_subject_name(x, name) == 1
            && X509_set_issuer_name(x, issuer.map { X509_get_subject_name($0.handle.pointer) } ?? name) == 1
            && ASN1_TIME_set(X509_getm_notBefore(x), Int(notBefore)) != nil
            && ASN1_TIME_set(X509_getm_notAfter(x), Int(notAfter)) != nil
            && X509_set_pubkey(x, subjectKey.pointer) == 1
            && X509_sign(x, issuerKey.pointer, nil) > 0
        guard ok else { throw openSSLError("make certificate") }
        return try Certificate(handle: handle)
    }
}

/// A CA key with its self-signed certificate: one per pairing (xrcp.md §2, §3.1).
public struct CertificateAuthority: Sendable {
    public let key: Ed25519.PrivateKey
    public let certificate: Certificate

    public init(key: Ed25519.PrivateKey, certificate: Certificate) {
        self.key = key
        self.certificate = certificate
    }

    /// A new CA, valid from `hoursBefore` hours before `now` (25 for a controller's, 1 for a host's).
    public static func generate(now: Int64, hoursBefore: Int64) throws(CryptoError) -> CertificateAuthority {
        let key = Ed25519.PrivateKey()
        let cert = try Certificate.make(
            commonName: "ca", publicKey: key.publicKey, issuer: nil, signingKey: key,
            notBefore: now - hoursBefore * 3600, notAfter: now + Certificate.validityHours * 3600)
        return CertificateAuthority(key: key, certificate: cert)
    }

    /// A fresh leaf for one session, valid from an hour before `now`, signed by this CA.
    public func issueLeaf(now: Int64, key: Ed25519.PrivateKey = Ed25519.PrivateKey()) throws(CryptoError) -> TLSCredential {
        let cert = try Certificate.make(
            commonName: "localhost", publicKey: key.publicKey, issuer: certificate, signingKey: self.key,
            notBefore: now - 3600, notAfter: now + Certificate.validityHours * 3600)
        return TLSCredential(leaf: cert, leafKey: key, authority: certificate)
    }
}

/// What one side presents in TLS: the chain `[leaf, CA]` and the leaf's key (xrcp.md §3.2).
public struct TLSCredential: Sendable {
    public let leaf: Certificate
    public let leafKey: Ed25519.PrivateKey
    public let authority: Certificate

    public var chain: [Certificate] { [leaf, authority] }
}

/// Where a time falls in a certificate's validity period.
package enum CertificateValidity: Sendable {
    case valid
    case notYetValid
    case expired
}

/// What a certificate allows as an issuer of others (RFC 5280 §4.2.1.3, §4.2.1.9).
package struct AuthorityConstraints: Sendable, Equatable {
    /// basicConstraints with cA TRUE.
    package let isCA: Bool
    /// No keyUsage extension, or one with keyCertSign.
    package let mayCertSign: Bool
    /// basicConstraints pathLenConstraint, if any.
    package let pathLength: Int?
}
