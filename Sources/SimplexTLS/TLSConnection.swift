public import SimplexCrypto

/// One TLS 1.3 connection of XRCP (xrcp.md §4), as a state machine over bytes: it never touches a socket.
///
/// The driver writes what the socket delivered to `receive(_:)` and gets events back; after every call it writes
/// `takeOutgoing()` to the socket — including after a thrown error, when it may hold the fatal alert for the peer.
///
///     client (XRCP host)                         server (XRCP controller)
///     start() → ClientHello ───────────────────▶ receive → ServerHello, CertificateRequest, [leaf, CA], Finished
///     receive → handshakeCompleted ◀─────────── (the client's chain check runs on the server's chain)
///     [leaf, CA], CertificateVerify, Finished ──▶ receive → handshakeCompleted (the server checks the client's chain)
///     send / receive applicationData ◀─────────▶ send / receive applicationData
///     close() → close_notify ──────────────────▶ receive → closed (and close_notify back)
///
/// Parameters (xrcp.md §4.1, Appendix A): TLS 1.3 only, `TLS_CHACHA20_POLY1305_SHA256` only, groups X25519 and
/// X448, signature schemes ed25519 and ed448, no ALPN, no SNI, no session resumption (the server sends no
/// tickets). Both sides present `[leaf, CA]` with the leaf's Ed25519 key (xrcp.md §3.2); the server requires a
/// client certificate (xrcp.md §4.2). The peer's chain is checked by `PeerChainPolicy` during the handshake, so a
/// refused peer gets a fatal alert (`unknown_ca` for a pin mismatch, as from the reference).
///
/// In TLS 1.3 the client finishes before the server has seen its certificate: a client the server refuses reports
/// `handshakeCompleted` and then fails with `TLSError.alertReceived` on the next `receive`.
///
/// Not `Sendable`: it owns mutable OpenSSL state and belongs to one actor (one per connection).
public final class TLSConnection {
    public let role: TLSRole
    private let engine: TLSEngine
    /// Set once the handshake has completed.
    public private(set) var sessionInfo: TLSSessionInfo?

    /// A connection presenting `credential` (`[leaf, CA]`, xrcp.md §3.2), checking the peer as `role` says with
    /// the leaf's validity at `now` (seconds since the Unix epoch; the handshake takes at most 60 s, xrcp.md §4.2).
    public convenience init(role: TLSRole, credential: TLSCredential, now: Int64) throws(TLSError) {
        try self.init(role: role, chain: credential.chain, key: credential.leafKey, now: now)
    }

    /// Presents `chain` (leaf first, the rest as extra chain certificates) with `key`, offering `groups`; tests
    /// use it to present chains SimpleX would not (an empty chain and no key: no certificate at all) and to offer
    /// X448 first, as the Haskell client does (xrcp.md §4.1).
    init(
        role: TLSRole, chain: [Certificate], key: Ed25519.PrivateKey?, now: Int64, groups: String = "X25519:X448"
    ) throws(TLSError) {
        self.role = role
        // No ALPN (xrcp.md Appendix A); the server requires a client certificate (xrcp.md §4.2).
        // The context takes its own reference to the key.
        let evpKey = key?.openSSLKey
        defer { withExtendedLifetime(evpKey) {} }
        engine = try TLSEngine(
            EngineConfiguration(
                isClient: role.isClient, chain: chain, key: evpKey?.pointer, groups: groups,
                peerCheck: PeerChainPolicy(role: role, now: now), requirePeerCertificate: !role.isClient))
    }

    // MARK: Events

    /// Starts the handshake: on a client this queues the ClientHello for `takeOutgoing()`; on a server it does
    /// nothing until the ClientHello arrives.
    public func start() throws(TLSError) { try engine.start() }

    /// Feeds bytes read from the socket. Returns what they completed, in order: the handshake, application data
    /// (everything decryptable now; bytes of an incomplete record wait for the next call) and the peer's
    /// close_notify. Throws when the peer or its bytes fail; the connection is then dead and every later call
    /// throws the same error.
    public func receive(_ bytes: [UInt8]) throws(TLSError) -> [TLSEvent] {
        try engine.receive(bytes).map { event in
            switch event {
            case .handshakeCompleted(let session):
                let info = TLSSessionInfo(session)
                sessionInfo = info
                return .handshakeCompleted(info)
            case .applicationData(let data): return .applicationData(data)
            case .closed: return .closed
            }
        }
    }

    /// Encrypts `plaintext` into records for `takeOutgoing()`. Only after the handshake, before `close()`.
    public func send(_ plaintext: [UInt8]) throws(TLSError) { try engine.send(plaintext) }

    /// Queues close_notify (RFC 8446 §6.1); data from the peer is still delivered until its close_notify.
    /// Before the handshake completes it just stops the connection.
    public func close() { engine.close() }

    /// The bytes to write to the socket now, emptied from the connection.
    public func takeOutgoing() -> [UInt8] { engine.takeOutgoing() }

    /// Whether the handshake has completed and no close_notify has been received or sent.
    public var isEstablished: Bool { engine.isEstablished }

    /// The peer's chain as libssl's accessors give it after the handshake, leaf first (xrcp.md §20.36).
    func peerChainFromAccessors() -> [Certificate]? { engine.peerChainFromAccessors() }

    /// The number of certificates in `SSL_get_peer_cert_chain`, for tests of xrcp.md §20.36.
    var peerCertChainStackCount: Int { engine.peerCertChainStackCount }
}

extension TLSSessionInfo {
    /// From a session whose peer chain `PeerChainPolicy` accepted: `[leaf, CA]`.
    init(_ session: EstablishedSession) {
        self.init(
            tlsUnique: session.tlsUnique, peerChain: session.peerChain,
            peerCAFingerprint: session.peerChain[1].fingerprint, protocolVersion: session.protocolVersion,
            cipherSuite: session.cipherSuite, keyExchangeGroup: session.keyExchangeGroup)
    }
}
