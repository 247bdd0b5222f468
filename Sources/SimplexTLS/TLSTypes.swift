public import SimplexCrypto
internal import SimplexEncoding

/// Which end of the TLS connection we are, with what we accept from the peer (xrcp.md §4.2, §4.3).
public enum TLSRole: Sendable, Equatable {
    /// The XRCP host, a TLS client: the server's chain must be `[leaf, CA]` with `SHA-256(DER(CA))` equal to the
    /// invitation's `ca` (xrcp.md §4.3, §5).
    case client(controllerCA: CertificateFingerprint)
    /// The XRCP controller, a TLS server that requires a client certificate (xrcp.md §4.2).
    case server(HostPin)

    var isClient: Bool {
        if case .client = self { return true }
        return false
    }
}

/// Which host CA a controller accepts (xrcp.md §4.2 step 3).
public enum HostPin: Sendable, Equatable {
    /// A new pairing: any CA; the session info reports the one presented, for the HELLO check (xrcp.md §7.4).
    case anyHost
    /// A known host: its CA must have this fingerprint (`host_fingerprint`, xrcp.md §2.1).
    case knownHost(CertificateFingerprint)
}

/// What feeding bytes to a connection produced; `Session` is the profile's session facts.
public enum TLSStreamEvent<Session: Equatable & Sendable>: Equatable, Sendable {
    /// The handshake finished and the peer's chain passed every check (xrcp.md §4.4, smp.md §2.2).
    case handshakeCompleted(Session)
    /// Decrypted application data, in order. XRCP blocks and then HTTP/2 frames, or SMP blocks, follow on this
    /// stream (xrcp.md §7.2, §9, §20.17; smp.md §2.5), so every byte is delivered, including bytes that came with
    /// the handshake.
    case applicationData([UInt8])
    /// The peer sent close_notify; nothing more will be delivered.
    case closed
}

/// What feeding bytes to an XRCP `TLSConnection` produced.
public typealias TLSEvent = TLSStreamEvent<TLSSessionInfo>

/// The facts of an established session that the XRCP layer needs (xrcp.md §4.4, §4.5).
public struct TLSSessionInfo: Equatable, Sendable {
    /// The verify_data of the client's Finished message (xrcp.md §4.5, §20.10): `SSL_get_finished` on the client,
    /// `SSL_get_peer_finished` on the server; 32 bytes with TLS 1.3 and `TLS_CHACHA20_POLY1305_SHA256`.
    public let tlsUnique: [UInt8]
    /// The peer's chain as it was checked: `[leaf, CA]` (xrcp.md §3.2).
    public let peerChain: [Certificate]
    /// `SHA-256(DER(CA))` of the peer's CA (xrcp.md §3.3): equal to the pin, or for `HostPin.anyHost` the one
    /// to compare with the HELLO's `ca` (xrcp.md §7.4).
    public let peerCAFingerprint: CertificateFingerprint
    /// The negotiated protocol as OpenSSL names it, "TLSv1.3".
    public let protocolVersion: String
    /// The negotiated cipher suite as OpenSSL names it, "TLS_CHACHA20_POLY1305_SHA256".
    public let cipherSuite: String
    /// The key exchange group as OpenSSL names it: "X25519" from our client, "X448" from a client that offers it
    /// first, like the Haskell one (xrcp.md §4.1).
    public let keyExchangeGroup: String

    /// The peer's leaf certificate (per session).
    public var peerLeaf: Certificate { peerChain[0] }
    /// The peer's CA certificate (per pairing).
    public var peerCA: Certificate { peerChain[1] }

    /// The session code both users compare (xrcp.md §4.5).
    public var sessionCode: String { SessionCode.render(tlsUnique) }
}
