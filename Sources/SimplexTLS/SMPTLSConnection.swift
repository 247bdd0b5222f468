public import SimplexCrypto

/// Which end of an SMP transport connection we are (smp.md §2.1, §2.2).
public enum SMPTLSRole: Sendable {
    /// A client of the server whose address carries `serverIdentity` (its `keyHash`), offering `protocols`
    /// (`ApplicationProtocol.smpClientOffer(webPort:)` gives the reference's choice). No client certificate, no SNI.
    case client(serverIdentity: CertificateFingerprint, protocols: [ApplicationProtocol])
    /// A server presenting `credential`, selecting the first of `protocols` that the client offers; a client that
    /// offers ALPN but none of these is refused. No client certificate is asked for.
    case server(ServerCredential, protocols: [ApplicationProtocol])
}

/// One TLS 1.3 connection of the SMP transport (smp.md §2.1–§2.3), as a state machine over bytes: it never touches
/// a socket. The driver writes what the socket delivered to `receive(_:)` and after every call writes
/// `takeOutgoing()` to the socket — including after a thrown error, when it may hold the fatal alert for the peer.
///
///     client                                     server
///     start() → ClientHello (ALPN, no SNI) ────▶ receive → ServerHello, ALPN choice, chain (2–4), Finished
///     receive → handshakeCompleted ◀─────────── (the client's chain check runs on the server's chain)
///     Finished ─────────────────────────────────▶ receive → handshakeCompleted
///     send / receive applicationData ◀─────────▶ send / receive applicationData (SMP blocks, smp.md §2.4)
///     close() → close_notify ──────────────────▶ receive → closed (and close_notify back)
///
/// Parameters (smp.md §2.2): TLS 1.3 only, `TLS_CHACHA20_POLY1305_SHA256` only, groups X25519 and X448, signature
/// schemes ed25519 and ed448, no resumption (the server sends no tickets). The client checks the server's chain
/// with `ServerChainPolicy` during the handshake, so a refused server gets a fatal alert (`unknown_ca` for a wrong
/// identity, as from the reference). ALPN as the reference (smp.md §2.1): a server refuses a client that offers
/// none of its protocols with `no_application_protocol` and serves one that offers no ALPN at all without a
/// protocol (it then offers only SMP version 6, smp.md §2.4); a client refuses a server that does not choose one of
/// its protocols. Both report `TLSError.noSharedApplicationProtocol`.
///
/// Not `Sendable`: it owns mutable OpenSSL state and belongs to one actor (one per connection).
public final class SMPTLSConnection {
    public let role: SMPTLSRole
    private let engine: TLSEngine
    /// Set once the handshake has completed.
    public private(set) var session: SMPTLSSession?

    /// A connection in `role`; a client checks the server's certificates' validity at `now` (seconds since the
    /// Unix epoch).
    public convenience init(role: SMPTLSRole, now: Int64) throws(TLSError) {
        try self.init(role: role, now: now, groups: "X25519:X448")
    }

    /// As the public initializer, offering `groups`: tests offer X448 first, as the Haskell client does.
    init(role: SMPTLSRole, now: Int64, groups: String) throws(TLSError) {
        self.role = role
        let configuration: EngineConfiguration
        switch role {
        case .client(let identity, let protocols):
            configuration = EngineConfiguration(
                isClient: true, chain: [], key: nil, groups: groups,
                peerCheck: ServerChainPolicy(serverIdentity: identity, now: now), offeredProtocols: protocols)
        case .server(let credential, let protocols):
            configuration = EngineConfiguration(
                isClient: false, chain: credential.chain, key: credential.leafKey.openSSLKey, groups: groups,
                peerCheck: nil, selectableProtocols: protocols)
        }
        engine = try TLSEngine(configuration)
    }

    /// A client connection to the server whose address carries `serverIdentity`, offering ALPN as the port
    /// policy says (smp.md §2.1): `http/1.1` on a preset server's web port, `smp/1` otherwise.
    public convenience init(serverIdentity: CertificateFingerprint, webPort: Bool, now: Int64) throws(TLSError) {
        try self.init(
            role: .client(serverIdentity: serverIdentity, protocols: ApplicationProtocol.smpClientOffer(webPort: webPort)),
            now: now)
    }

    /// A server connection presenting `credential` and selecting `smp/1` or `http/1.1`, as the reference server
    /// accepts SMP on either (smp.md §2.1, §2.4).
    public convenience init(credential: ServerCredential) throws(TLSError) {
        try self.init(role: .server(credential, protocols: [.smp1, .http11]), now: 0)
    }

    // MARK: Events

    /// Starts the handshake: on a client this queues the ClientHello for `takeOutgoing()`; on a server it does
    /// nothing until the ClientHello arrives.
    public func start() throws(TLSError) { try engine.start() }

    /// Feeds bytes read from the socket. Returns what they completed, in order: the handshake, application data
    /// (everything decryptable now; bytes of an incomplete record wait for the next call) and the peer's
    /// close_notify. Throws when the peer or its bytes fail; the connection is then dead and every later call
    /// throws the same error.
    public func receive(_ bytes: [UInt8]) throws(TLSError) -> [SMPTLSEvent] {
        try engine.receive(bytes).map { event in
            switch event {
            case .handshakeCompleted(let established):
                let session = SMPTLSSession(established)
                self.session = session
                return .handshakeCompleted(session)
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
}

/// What feeding bytes to an `SMPTLSConnection` produced.
public typealias SMPTLSEvent = TLSStreamEvent<SMPTLSSession>

/// The facts of an established SMP transport session (smp.md §2.1–§2.4).
public struct SMPTLSSession: Equatable, Sendable {
    /// The session id (smp.md §2.3): `tls-unique` as the reference computes it for TLS 1.3 — the verify_data of
    /// the client's Finished, `SSL_get_finished` on the client and `SSL_get_peer_finished` on the server
    /// (MQ `Transport.hs`, `withTlsUnique`: `getFinished` / `getPeerFinished`). 32 bytes. The server sends it in
    /// its handshake block, the client compares it, and every signed transmission covers it.
    public let sessionId: [UInt8]
    /// The negotiated ALPN protocol; nil when the client offered no ALPN (a server then offers only SMP version
    /// 6, smp.md §2.4). Never nil on a client that offered protocols.
    public let applicationProtocol: ApplicationProtocol?
    /// On a client, the server's chain as checked, leaf first (2–4 certificates), for the handshake checks of
    /// smp.md §2.4; empty on a server (ordinary clients send no certificate).
    public let peerChain: [Certificate]
    /// The negotiated protocol as OpenSSL names it, "TLSv1.3".
    public let protocolVersion: String
    /// The negotiated cipher suite as OpenSSL names it, "TLS_CHACHA20_POLY1305_SHA256".
    public let cipherSuite: String
    /// The key exchange group as OpenSSL names it, "X25519" or "X448".
    public let keyExchangeGroup: String
    /// On a server, the host name the client sent (SNI); SMP clients send none (smp.md §2.1). Nil on a client.
    public let serverName: String?

    init(_ session: EstablishedSession) {
        sessionId = session.tlsUnique
        applicationProtocol = session.applicationProtocol
        peerChain = session.peerChain
        protocolVersion = session.protocolVersion
        cipherSuite = session.cipherSuite
        keyExchangeGroup = session.keyExchangeGroup
        serverName = session.serverName
    }

    /// On a client, the server's online certificate, whose key signs the handshake's DH key (smp.md §2.4).
    public var serverLeaf: Certificate? { peerChain.first }

    /// On a client, the server's identity certificate (the second), whose fingerprint is the address's `keyHash`.
    public var serverIdentity: Certificate? { peerChain.count >= 2 ? peerChain[1] : nil }
}
