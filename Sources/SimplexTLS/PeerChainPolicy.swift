internal import COpenSSL
internal import SimplexCrypto

/// What XRCP accepts as a peer's certificate chain (xrcp.md §4.2, §4.3 step 3, §20.19, §20.35).
///
/// OpenSSL's own chain verification rejects SimpleX's CAs, which have no extensions (§20.35), so these checks
/// replace it: exactly `[leaf, CA]`; `SHA-256(DER(CA))` equal to the pin; leaf v3; leaf issuer DN equal to the CA
/// subject DN; leaf signed by the CA key; leaf valid at `now`. The CA itself is the trust anchor, so its dates and
/// missing CA extensions are not checked. There is no hostname check.
///
/// The controller's reference checks only the count and the pin (§4.2); this policy applies every check on both
/// sides. §4.2 allows the signature check; the date check goes beyond it on the controller, which so refuses a
/// host whose clock is more than an hour ahead — the mirror of what the reference host does to a controller
/// (§4.3, §20.20).
struct PeerChainPolicy: Sendable {
    let role: TLSRole
    /// Seconds since the Unix epoch at which the leaf must be valid.
    let now: Int64

    /// Checks `chain`, leaf first; returns the CA's fingerprint.
    func check(_ chain: [Certificate]) -> Result<CertificateFingerprint, TLSError> {
        guard chain.count == 2 else { return .failure(.certificateChain(.certificateCount(chain.count))) }
        let leaf = chain[0]
        let authority = chain[1]
        let presented = authority.fingerprint
        switch role {
        case .client(let expected), .server(.knownHost(let expected)):
            guard presented == expected else { return .failure(.identity(expected: expected, presented: presented)) }
        case .server(.anyHost):
            break
        }
        let version = leaf.version
        guard version == 2 else { return .failure(.certificateChain(.leafNotVersion3(version: version))) }
        guard authority.isIssuer(of: leaf) else { return .failure(.certificateChain(.issuerMismatch)) }
        guard leaf.isSigned(by: authority) else { return .failure(.certificateChain(.leafSignature)) }
        if let failure = validityFailure(leaf) { return .failure(.certificateChain(failure)) }
        return .success(presented)
    }

    private func validityFailure(_ leaf: Certificate) -> ChainFailure? {
        switch leaf.validity(at: now) {
        case .valid: nil
        case .notYetValid: .leafNotYetValid
        case .expired: .leafExpired
        case nil: .leafValidityUnreadable
        }
    }
}

extension PeerChainPolicy: PeerChainCheck {
    func refusal(of chain: [Certificate]) -> TLSError? {
        if case .failure(let error) = check(chain) { return error }
        return nil
    }
}

/// A profile's check of the peer's certificate chain (leaf first), run during the handshake.
protocol PeerChainCheck {
    /// Why `chain` is refused; nil when it is accepted.
    func refusal(of chain: [Certificate]) -> TLSError?
}

/// The X.509 verification error whose alert OpenSSL sends for `error` (libssl's `ssl_x509err2alert`):
/// `unknown_ca` for a wrong count or identity, as the reference peers do (xrcp.md §4.2 step 1, 3; smp.md §2.2).
func x509Error(for error: TLSError) -> Int32 {
    switch error {
    case .identity: X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT  // unknown_ca
    case .certificateChain(.certificateCount(let n)):
        n < 2 ? X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT : X509_V_ERR_CERT_CHAIN_TOO_LONG  // unknown_ca
    case .certificateChain(.notIssuedByNext): X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT  // unknown_ca
    case .certificateChain(.leafSignature), .certificateChain(.signature):
        X509_V_ERR_CERT_SIGNATURE_FAILURE  // decrypt_error
    case .certificateChain(.leafNotYetValid), .certificateChain(.notYetValid):
        X509_V_ERR_CERT_NOT_YET_VALID  // bad_certificate
    case .certificateChain(.leafExpired), .certificateChain(.expired): X509_V_ERR_CERT_HAS_EXPIRED  // certificate_expired
    default: X509_V_ERR_CERT_REJECTED  // bad_certificate
    }
}

/// Runs a profile's `PeerChainCheck` from inside OpenSSL's handshake as the context's certificate verification
/// callback (`SSL_CTX_set_cert_verify_callback`), so a refused chain aborts the handshake with a fatal alert to the
/// peer, and remembers the outcome for the connection.
///
/// Only touched from within libssl calls that the owning connection makes, on its caller's thread.
final class PeerVerifier {
    enum Outcome {
        case accepted(chain: [Certificate])
        case rejected(TLSError)
    }

    let policy: any PeerChainCheck
    private(set) var outcome: Outcome?

    init(policy: any PeerChainCheck) { self.policy = policy }

    /// The callback body: 1 accepts, 0 refuses (and sets the X.509 error that selects the alert).
    func verify(_ store: OpaquePointer) -> Int32 {
        let result = Self.receivedChain(store).flatMap { chain in
            policy.refusal(of: chain).map { Result.failure($0) } ?? .success(chain)
        }
        switch result {
        case .success(let chain):
            outcome = .accepted(chain: chain)
            return 1
        case .failure(let error):
            outcome = .rejected(error)
            X509_STORE_CTX_set_error(store, x509Error(for: error))
            return 0
        }
    }

    /// The certificates the peer sent, in order. libssl hands the callback the whole received list as the
    /// store's untrusted stack, leaf first, on both sides: the server-side loss of the leaf from
    /// `SSL_get_peer_cert_chain` (xrcp.md §20.36) happens only after verification.
    static func receivedChain(_ store: OpaquePointer) -> Result<[Certificate], TLSError> {
        guard let stack = X509_STORE_CTX_get0_untrusted(store) else {
            return .failure(.certificateChain(.certificateCount(0)))
        }
        let chain = certificates(in: stack)
        guard let chain else { return .failure(.certificateChain(.unreadableCertificate)) }
        // The certificate being verified must be the first one sent.
        guard let leaf = X509_STORE_CTX_get0_cert(store), let first = chain.first,
            X509_cmp(leaf, first.openSSLCertificate) == 0
        else { return .failure(.certificateChain(.certificateCount(chain.count))) }
        return .success(chain)
    }
}

/// The certificates of an OpenSSL `STACK_OF(X509)`, re-read from their DER; nil if one cannot be.
/// (`sk_X509_num`/`sk_X509_value` are macros Swift cannot import; these are the functions behind them.)
func certificates(in stack: OpaquePointer) -> [Certificate]? {
    let count = OPENSSL_sk_num(stack)
    guard count >= 0 else { return nil }
    var result: [Certificate] = []
    for i in 0..<count {
        guard let raw = OPENSSL_sk_value(stack, i), let certificate = certificate(from: OpaquePointer(raw)) else {
            return nil
        }
        result.append(certificate)
    }
    return result
}

/// A `Certificate` from an OpenSSL `X509*` (through its DER, which is what fingerprints are over).
func certificate(from x509: OpaquePointer) -> Certificate? {
    defer { ERR_clear_error() }
    var out: UnsafeMutablePointer<UInt8>? = nil
    let n = i2d_X509(x509, &out)
    guard n > 0, let out else { return nil }
    defer { CRYPTO_free(out, #fileID, #line) }
    return try? Certificate(der: Array(UnsafeBufferPointer(start: out, count: Int(n))))
}
