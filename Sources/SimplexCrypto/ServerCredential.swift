internal import COpenSSL

/// How many certificates an SMP server presents in TLS (smp.md §2.2): `[online leaf, identity CA]` as current servers
/// do, `[leaf, identity, operator CA]`, or `[leaf, identity, network, CA]`. One or more than four is refused.
public enum ServerChainLength: Int, Sendable, Hashable, CaseIterable {
    case two = 2
    case three = 3
    case four = 4
}

/// An SMP server's TLS credential (smp.md §2.2): its chain, leaf first, and the online (leaf) key, which also signs
/// the server's handshake DH key (smp.md §2.4). The server's identity is the second certificate.
public struct ServerCredential: Sendable {
    /// 2–4 certificates, leaf first; each signed by the next; the last is the trust anchor.
    public let chain: [Certificate]
    public let leafKey: CertificateKey

    /// A credential from stored parts; the chain must have 2–4 certificates and `leafKey` must be the leaf's.
    public init(chain: [Certificate], leafKey: CertificateKey) throws(CryptoError) {
        guard ServerChainLength(rawValue: chain.count) != nil else {
            throw .invalidCertificate("an SMP server chain has 2 to 4 certificates, not \(chain.count)")
        }
        let matches = X509_check_private_key(chain[0].openSSLCertificate, leafKey.openSSLKey) == 1
        ERR_clear_error()
        guard matches else { throw .invalidCertificate("the key is not the leaf certificate's") }
        self.chain = chain
        self.leafKey = leafKey
    }

    public var leaf: Certificate { chain[0] }

    /// The identity certificate: the second of the chain (for two certificates, also the trust anchor).
    public var identity: Certificate { chain[1] }

    /// The server identity in its address (`keyHash`): SHA-256 of the identity certificate's DER (smp.md §2.2).
    public var fingerprint: CertificateFingerprint { identity.fingerprint }

    /// Subject of the identity certificate of `smp-server init` (MQ `Server/CLI.hs`, `createServerX509_`).
    static let identitySubject: [(name: String, value: String)] = [
        ("CN", "SMP server CA"), ("O", "SimpleX"),
    ]

    /// A new chain as `smp-server init` makes it (MQ `Server/CLI.hs`, `createServerX509_`), extended upwards for
    /// three and four certificates: every certificate valid from `now` for 999 999 days with a random serial; the
    /// authorities (identity and above) with subjectKeyIdentifier, authorityKeyIdentifier and a critical
    /// `CA:TRUE`; the online leaf with `CA:FALSE`, keyUsage digitalSignature, nonRepudiation, keyAgreement and
    /// extendedKeyUsage serverAuth, its CN `commonName` (the server's host, `127.0.0.1` by default). Every key
    /// is of `algorithm`.
    public static func generate(
        algorithm: CertificateKeyAlgorithm, length: ServerChainLength, commonName: String = "127.0.0.1", now: Int64
    ) throws(CryptoError) -> ServerCredential {
        let notAfter = now + Certificate.validityHours * 3600
        let authorityExtensions: [(name: String, value: String)] = [
            ("subjectKeyIdentifier", "hash"), ("authorityKeyIdentifier", "keyid:always"),
            ("basicConstraints", "critical,CA:TRUE"),
        ]
        // Root first: the last certificate of the chain.
        let subjects: [[(name: String, value: String)]]
        switch length {
        case .two: subjects = [identitySubject]
        case .three: subjects = [[("CN", "SMP operator CA"), ("O", "SimpleX")], identitySubject]
        case .four:
            subjects = [
                [("CN", "SMP root CA"), ("O", "SimpleX")],
                [("CN", "SMP network CA"), ("O", "SimpleX")], identitySubject,
            ]
        }
        var issuer: (certificate: Certificate, key: CertificateKey)?
        var authorities: [Certificate] = []
        for subject in subjects {
            let key = CertificateKey(generating: algorithm)
            let certificate = try Certificate.issue(
                subject: subject, subjectKey: key, issuer: issuer?.certificate, issuerKey: issuer?.key ?? key,
                notBefore: now, notAfter: notAfter, extensions: authorityExtensions)
            authorities.insert(certificate, at: 0)
            issuer = (certificate, key)
        }
        guard let identity = issuer else { preconditionFailure("a chain has an identity certificate") }
        let leafKey = CertificateKey(generating: algorithm)
        let leaf = try Certificate.issue(
            subject: [("CN", commonName)], subjectKey: leafKey, issuer: identity.certificate,
            issuerKey: identity.key, notBefore: now, notAfter: notAfter,
            extensions: [
                ("subjectKeyIdentifier", "hash"), ("authorityKeyIdentifier", "keyid:always"),
                ("basicConstraints", "CA:FALSE"), ("keyUsage", "digitalSignature,nonRepudiation,keyAgreement"),
                ("extendedKeyUsage", "serverAuth"),
            ])
        return try ServerCredential(chain: [leaf] + authorities, leafKey: leafKey)
    }
}
