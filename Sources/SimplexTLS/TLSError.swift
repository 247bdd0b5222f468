public import SimplexCrypto

/// Why a TLS connection failed (xrcp.md §4, smp.md §2.1–§2.3). Every failure of the peer or of the bytes it sent
/// is one of these values; none traps. The SMP client tells apart a wrong server identity (`identity`), a bad chain
/// (`certificateChain`), a server that chose no protocol (`noSharedApplicationProtocol`) and every other handshake
/// failure with OpenSSL's reason (`handshake`, `alertReceived`).
///
/// The XRCP layer maps these to `RCErrorType` tags (xrcp.md §16.5) at its boundary:
///
/// | case | tag |
/// |---|---|
/// | `identity` | `identity` (pinned CA mismatch, §4.2 step 3 / §4.3 step 2) |
/// | `alertReceived` with `TLSAlert.unknownCA` | `identity` (the peer refused our CA, §16.5 note; UNCONFIRMED §21.12) |
/// | `alertReceived` (any other alert) | `exception` |
/// | `certificateChain` | `exception` (the host's reference maps chain failures other than `UnknownCA` there) |
/// | `handshake`, `connection` | `exception` |
/// | `noSharedApplicationProtocol` | not produced: XRCP offers no ALPN |
/// | `configuration` | `tLSStartFailed` on the controller (its TLS server cannot start), `internal` on the host |
/// | `invalidState` | `internal` (a bug in the caller) |
public enum TLSError: Error, Equatable, Sendable {
    /// OpenSSL refused our own parameters or credential while the connection was being set up.
    case configuration(String)
    /// The CA the peer presented is not the pinned one (xrcp.md §4.2 step 3, §4.3 step 2), or an SMP server's
    /// identity certificate (the second of its chain) is not the one of its address (smp.md §2.2): the peer gets
    /// a fatal `unknown_ca` alert, as from the reference.
    case identity(expected: CertificateFingerprint, presented: CertificateFingerprint)
    /// The peer's certificates are not a valid SimpleX chain: `[leaf, CA]` for XRCP (xrcp.md §3, §4.3 step 3,
    /// §20.19), 2–4 certificates each issued by the next for an SMP server (smp.md §2.2).
    case certificateChain(ChainFailure)
    /// The client offered these ALPN protocols and the server knows none of them (smp.md §2.1). A server refuses
    /// such a client with the fatal `no_application_protocol` alert, as the reference does; a client reports it
    /// on that alert, or after the handshake when a server answered without choosing a protocol (it then closes
    /// after its Finished).
    case noSharedApplicationProtocol(offered: [ApplicationProtocol])
    /// The peer sent a fatal alert (RFC 8446 §6); `unknown_ca` is how a reference peer refuses our CA.
    case alertReceived(TLSAlert)
    /// The handshake failed in OpenSSL: malformed or unexpected messages, no common parameters, a bad
    /// CertificateVerify or Finished. Carries OpenSSL's error-queue text.
    case handshake(String)
    /// A record-layer failure after the handshake (bad record MAC, malformed record), with OpenSSL's text.
    case connection(String)
    /// The caller used the connection in a state that does not allow it (e.g. `send` before the handshake or
    /// after `close`).
    case invalidState(String)
}

/// One check of the peer's chain that failed (xrcp.md §4.2, §4.3 step 3; smp.md §2.2). Each sends the peer the
/// fatal alert OpenSSL associates with the corresponding X.509 error. The `leaf…` cases are XRCP's; the
/// positioned ones are the SMP path checks, which apply to every certificate below the trust anchor.
public enum ChainFailure: Equatable, Sendable {
    /// Not exactly two certificates `[leaf, CA]` (xrcp.md §20.19), or not 2–4 from an SMP server (smp.md §2.2);
    /// alert `unknown_ca`. Zero on a server: the client sent no certificate (xrcp.md §4.2 requires one); OpenSSL
    /// sends alert `certificate_required`.
    case certificateCount(Int)
    /// A certificate OpenSSL received but that we could not re-read as DER; alert `bad_certificate`.
    case unreadableCertificate
    /// The leaf is not an X.509 v3 certificate (its version field holds this value, 2 meaning v3), checked for
    /// both profiles; alert `bad_certificate`.
    case leafNotVersion3(version: Int)
    /// The leaf's issuer DN is not the CA's subject DN (compared by `X509_NAME_cmp`); alert `bad_certificate`.
    case issuerMismatch
    /// The CA's key did not sign the leaf; alert `decrypt_error`.
    case leafSignature
    /// The leaf's `notBefore` is after the given time (clock skew, xrcp.md §4.3, §20.20); alert `bad_certificate`.
    case leafNotYetValid
    /// The leaf's `notAfter` is before the given time; alert `certificate_expired`.
    case leafExpired
    /// The leaf's validity dates could not be read; alert `bad_certificate`.
    case leafValidityUnreadable
    /// SMP (smp.md §2.2): the certificate at `position` (0 = leaf) names an issuer that is not the subject of the
    /// next one; alert `unknown_ca`.
    case notIssuedByNext(position: Int)
    /// SMP: the next certificate's key did not sign the one at `position`; alert `decrypt_error`.
    case signature(position: Int)
    /// SMP: the certificate at `position` is not yet valid at the given time; alert `bad_certificate`.
    case notYetValid(position: Int)
    /// SMP: the certificate at `position` has expired; alert `certificate_expired`.
    case expired(position: Int)
    /// SMP: the validity dates of the certificate at `position` could not be read; alert `bad_certificate`.
    case validityUnreadable(position: Int)
    /// SMP: the intermediate certificate at `position` lacks basicConstraints `CA:TRUE`; alert `bad_certificate`.
    case notAnAuthority(position: Int)
    /// SMP: the intermediate certificate at `position` has a keyUsage without keyCertSign; alert `bad_certificate`.
    case notAllowedToSign(position: Int)
    /// SMP: the intermediate certificate at `position` has a pathLenConstraint smaller than the certificates
    /// below it need; alert `bad_certificate`.
    case authorityTooDeep(position: Int)
    /// The handshake finished without our chain check having accepted a chain, or the chain OpenSSL reports
    /// afterwards is not the one we checked. Not expected from OpenSSL; a guard.
    case notVerified
}

/// A TLS alert description (RFC 8446 §6), as received from the peer.
public struct TLSAlert: Hashable, Sendable, CustomStringConvertible {
    /// The AlertDescription byte.
    public let code: UInt8

    public init(code: UInt8) { self.code = code }

    public static let closeNotify = TLSAlert(code: 0)
    public static let handshakeFailure = TLSAlert(code: 40)
    public static let badCertificate = TLSAlert(code: 42)
    public static let certificateExpired = TLSAlert(code: 45)
    public static let certificateUnknown = TLSAlert(code: 46)
    public static let unknownCA = TLSAlert(code: 48)
    public static let decodeError = TLSAlert(code: 50)
    public static let decryptError = TLSAlert(code: 51)
    public static let protocolVersion = TLSAlert(code: 70)
    public static let internalError = TLSAlert(code: 80)
    public static let certificateRequired = TLSAlert(code: 116)
    public static let noApplicationProtocol = TLSAlert(code: 120)

    public var description: String { "\(code) (\(alertName(code)))" }
}
