internal import COpenSSL
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
    private enum State {
        case handshaking
        case established(closeSent: Bool)
        /// The peer's close_notify arrived.
        case closed
        case failed(TLSError)
    }

    public let role: TLSRole
    private let context: OpaquePointer  // SSL_CTX, ours
    private let ssl: OpaquePointer  // SSL, ours; owns both BIOs
    private let incoming: OpaquePointer  // BIO_s_mem the peer's bytes go into
    private let outgoing: OpaquePointer  // BIO_s_mem our records come out of
    private let verifier: PeerVerifier  // the verify callback's argument: lives as long as `context`
    private var state: State = .handshaking
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
        precondition(chain.isEmpty == (key == nil), "a certificate needs its key")
        let verifier = PeerVerifier(policy: PeerChainPolicy(role: role, now: now))
        ERR_clear_error()
        guard let context = SSL_CTX_new(role.isClient ? TLS_client_method() : TLS_server_method()) else {
            throw .configuration(OpenSSLErrorQueue.drain().text(or: "SSL_CTX_new failed"))
        }
        self.context = context
        do throws(TLSError) {
            try Self.configure(context, role: role, chain: chain, key: key, groups: groups)
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        // The callback's argument is unretained: `verifier` lives exactly as long as this object, which frees
        // the context (and its connection) in deinit.
        SSL_CTX_set_cert_verify_callback(
            context,
            { store, argument in
                guard let store, let argument else { return 0 }
                return Unmanaged<PeerVerifier>.fromOpaque(argument).takeUnretainedValue().verify(store)
            },
            Unmanaged.passUnretained(verifier).toOpaque())

        guard let ssl = SSL_new(context) else {
            let reason = OpenSSLErrorQueue.drain().text(or: "SSL_new failed")
            SSL_CTX_free(context)
            throw .configuration(reason)
        }
        let incomingBIO = BIO_new(BIO_s_mem())
        let outgoingBIO = BIO_new(BIO_s_mem())
        guard let incoming = incomingBIO, let outgoing = outgoingBIO else {
            let reason = OpenSSLErrorQueue.drain().text(or: "BIO_new failed")
            BIO_free(incomingBIO)  // not yet owned by `ssl`; BIO_free accepts NULL
            BIO_free(outgoingBIO)
            SSL_free(ssl)
            SSL_CTX_free(context)
            throw .configuration(reason)
        }
        // An empty memory BIO reads as "retry later", not end of file (BIO_set_mem_eof_return is a macro).
        BIO_ctrl(incoming, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
        BIO_ctrl(outgoing, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
        SSL_set_bio(ssl, incoming, outgoing)
        if role.isClient { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
        self.role = role
        self.verifier = verifier
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        ERR_clear_error()
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// The context settings of xrcp.md §4.1 and Appendix A. OpenSSL's `SSL_CTX_set_min_proto_version`,
    /// `SSL_CTX_set1_groups_list`, `SSL_CTX_set1_sigalgs_list`, `SSL_CTX_set1_client_sigalgs_list`,
    /// `SSL_CTX_add1_chain_cert`, `SSL_CTX_set_mode` and `SSL_CTX_set_session_cache_mode` are macros Swift cannot
    /// import, so this calls `SSL_CTX_ctrl` with their constants.
    private static func configure(
        _ context: OpaquePointer, role: TLSRole, chain: [Certificate], key: Ed25519.PrivateKey?, groups: String
    ) throws(TLSError) {
        func check(_ ok: Bool, _ what: String) throws(TLSError) {
            guard ok else { throw .configuration("\(what): \(OpenSSLErrorQueue.drain().text(or: "failed"))") }
        }
        func control(_ command: Int32, _ value: Int, _ what: String) throws(TLSError) {
            try check(SSL_CTX_ctrl(context, command, value, nil) > 0, what)
        }
        func control(_ command: Int32, _ list: String, _ what: String) throws(TLSError) {
            let rc = list.withCString { SSL_CTX_ctrl(context, command, 0, UnsafeMutableRawPointer(mutating: $0)) }
            try check(rc > 0, what)
        }
        try control(SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_3_VERSION), "minimum version TLS 1.3")
        try control(SSL_CTRL_SET_MAX_PROTO_VERSION, Int(TLS1_3_VERSION), "maximum version TLS 1.3")
        try check(SSL_CTX_set_ciphersuites(context, "TLS_CHACHA20_POLY1305_SHA256") == 1, "ciphersuites")
        try control(SSL_CTRL_SET_GROUPS_LIST, groups, "groups")
        try control(SSL_CTRL_SET_SIGALGS_LIST, "ed25519:ed448", "signature algorithms")
        try control(SSL_CTRL_SET_CLIENT_SIGALGS_LIST, "ed25519:ed448", "client signature algorithms")
        // Present exactly the chain given: no chain building from the (empty) store.
        let mode = SSL_CTX_ctrl(context, SSL_CTRL_MODE, Int(SSL_MODE_NO_AUTO_CHAIN), nil)
        try check(mode & Int(SSL_MODE_NO_AUTO_CHAIN) != 0, "no automatic chain")
        SSL_CTX_ctrl(context, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
        if !role.isClient { try check(SSL_CTX_set_num_tickets(context, 0) == 1, "no session tickets") }

        if let leaf = chain.first, let key {
            try check(SSL_CTX_use_certificate(context, leaf.openSSLCertificate) == 1, "certificate")
            try check(SSL_CTX_use_PrivateKey(context, key.openSSLKey) == 1, "private key")
            for extra in chain.dropFirst() {
                // SSL_CTX_add1_chain_cert: the context takes its own reference.
                let certificate = UnsafeMutableRawPointer(extra.openSSLCertificate)
                try check(SSL_CTX_ctrl(context, SSL_CTRL_CHAIN_CERT, 1, certificate) == 1, "chain certificate")
            }
            try check(SSL_CTX_check_private_key(context) == 1, "key matches certificate")
        }

        // Ask for (server) and check (client) the peer's certificate; the chain check itself is the verify
        // callback, which replaces OpenSSL's, so no per-certificate verify callback is needed (xrcp.md §20.35).
        let verify = role.isClient ? SSL_VERIFY_PEER : SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT
        SSL_CTX_set_verify(context, verify, nil)
        ERR_clear_error()
    }

    // MARK: Events

    /// Starts the handshake: on a client this queues the ClientHello for `takeOutgoing()`; on a server it does
    /// nothing until the ClientHello arrives.
    public func start() throws(TLSError) {
        guard case .handshaking = state else { return }
        _ = try advanceHandshake()
    }

    /// Feeds bytes read from the socket. Returns what they completed, in order: the handshake, application data
    /// (everything decryptable now; bytes of an incomplete record wait for the next call) and the peer's
    /// close_notify. Throws when the peer or its bytes fail; the connection is then dead and every later call
    /// throws the same error.
    public func receive(_ bytes: [UInt8]) throws(TLSError) -> [TLSEvent] {
        switch state {
        case .failed(let error): throw error
        case .closed: return []
        case .handshaking, .established: break
        }
        if !bytes.isEmpty {
            var written = 0
            let ok = bytes.withUnsafeBytes { BIO_write_ex(incoming, $0.baseAddress, $0.count, &written) }
            // A memory BIO takes everything unless memory runs out.
            guard ok == 1, written == bytes.count else { throw fail(.connection("memory BIO write failed")) }
        }
        var events: [TLSEvent] = []
        if case .handshaking = state {
            guard let info = try advanceHandshake() else { return events }
            events.append(.handshakeCompleted(info))
        }
        return events + (try readApplicationData())
    }

    /// Encrypts `plaintext` into records for `takeOutgoing()`. Only after the handshake, before `close()`.
    public func send(_ plaintext: [UInt8]) throws(TLSError) {
        switch state {
        case .failed(let error): throw error
        case .handshaking: throw .invalidState("send before the handshake completed")
        case .closed, .established(closeSent: true): throw .invalidState("send after close")
        case .established(closeSent: false): break
        }
        var offset = 0
        while offset < plaintext.count {
            ERR_clear_error()
            var written = 0
            let rc = plaintext.withUnsafeBytes { buffer in
                SSL_write_ex(ssl, buffer.baseAddress.map { $0 + offset }, buffer.count - offset, &written)
            }
            guard rc == 1 else { throw fail(failure(after: rc, handshake: false)) }
            offset += written
        }
    }

    /// Queues close_notify (RFC 8446 §6.1); data from the peer is still delivered until its close_notify.
    /// Before the handshake completes it just stops the connection.
    public func close() {
        switch state {
        case .handshaking: state = .closed
        case .established(closeSent: false):
            ERR_clear_error()
            SSL_shutdown(ssl)
            ERR_clear_error()
            state = .established(closeSent: true)
        case .established(closeSent: true), .closed, .failed: break
        }
    }

    /// The bytes to write to the socket now, emptied from the connection.
    public func takeOutgoing() -> [UInt8] {
        let pending = BIO_ctrl_pending(outgoing)
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let n = bytes.withUnsafeMutableBytes { BIO_read(outgoing, $0.baseAddress, Int32(clamping: $0.count)) }
        ERR_clear_error()
        return n > 0 ? Array(bytes.prefix(Int(n))) : []
    }

    /// Whether the handshake has completed and no close_notify has been received or sent.
    public var isEstablished: Bool {
        if case .established(closeSent: false) = state { return true }
        return false
    }

    // MARK: Internals

    /// Runs the handshake as far as the buffered bytes allow; the session info once it completes.
    private func advanceHandshake() throws(TLSError) -> TLSSessionInfo? {
        ERR_clear_error()
        let rc = SSL_do_handshake(ssl)
        guard rc == 1 else {
            switch SSL_get_error(ssl, rc) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                ERR_clear_error()
                return nil
            default:
                throw fail(failure(after: rc, handshake: true))
            }
        }
        ERR_clear_error()
        let info: TLSSessionInfo
        do throws(TLSError) {
            info = try establishedSessionInfo()
        } catch {
            throw fail(error)
        }
        sessionInfo = info
        state = .established(closeSent: false)
        return info
    }

    /// Decrypts every complete record buffered; stops at an incomplete one (never reading past what arrived).
    private func readApplicationData() throws(TLSError) -> [TLSEvent] {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            ERR_clear_error()
            var n = 0
            let rc = buffer.withUnsafeMutableBytes { SSL_read_ex(ssl, $0.baseAddress, $0.count, &n) }
            if rc == 1 {
                data += buffer.prefix(n)
                continue
            }
            switch SSL_get_error(ssl, rc) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                ERR_clear_error()
                return data.isEmpty ? [] : [.applicationData(data)]
            case SSL_ERROR_ZERO_RETURN:
                // close_notify: answer with ours unless we already sent it.
                ERR_clear_error()
                if case .established(closeSent: false) = state { SSL_shutdown(ssl) }
                ERR_clear_error()
                state = .closed
                return (data.isEmpty ? [] : [.applicationData(data)]) + [.closed]
            default:
                throw fail(failure(after: rc, handshake: false))
            }
        }
    }

    /// The session facts, read right after the handshake (xrcp.md §4.5, Appendix A).
    private func establishedSessionInfo() throws(TLSError) -> TLSSessionInfo {
        guard case .accepted(let chain, let authority) = verifier.outcome else {
            throw .certificateChain(.notVerified)
        }
        // The chain OpenSSL keeps must be the one we checked (xrcp.md §20.36: the server's stack lacks the leaf).
        guard peerChainFromAccessors() == chain else { throw .certificateChain(.notVerified) }
        var finished = [UInt8](repeating: 0, count: 64)
        let length =
            role.isClient
            ? SSL_get_finished(ssl, &finished, finished.count) : SSL_get_peer_finished(ssl, &finished, finished.count)
        // HMAC-SHA256 output with the only suite we offer (xrcp.md §4.5).
        guard length == 32 else { throw .handshake("tls-unique is \(length) bytes, expected 32") }
        let version = SSL_get_version(ssl).map { String(cString: $0) } ?? "unknown"
        let cipher = SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) }
        // SSL_get_negotiated_group is a macro over SSL_ctrl; it gives the group's NID.
        let group = OBJ_nid2sn(Int32(truncatingIfNeeded: SSL_ctrl(ssl, SSL_CTRL_GET_NEGOTIATED_GROUP, 0, nil)))
        ERR_clear_error()
        return TLSSessionInfo(
            tlsUnique: Array(finished.prefix(32)), peerChain: chain, peerCAFingerprint: authority,
            protocolVersion: version, cipherSuite: cipher ?? "unknown",
            keyExchangeGroup: group.map { String(cString: $0) } ?? "unknown")
    }

    /// The peer's chain as libssl's accessors give it after the handshake, leaf first: on a client
    /// `SSL_get_peer_cert_chain` holds the whole chain; on a server it lacks the leaf, which
    /// `SSL_get0_peer_certificate` gives (xrcp.md §20.36). Nil if unreadable.
    func peerChainFromAccessors() -> [Certificate]? {
        guard let stack = SSL_get_peer_cert_chain(ssl), let listed = certificates(in: stack) else { return nil }
        if role.isClient { return listed }
        guard let leaf = SSL_get0_peer_certificate(ssl).flatMap(certificate(from:)) else { return nil }
        return [leaf] + listed
    }

    /// The number of certificates in `SSL_get_peer_cert_chain`, for tests of xrcp.md §20.36.
    var peerCertChainStackCount: Int {
        guard let stack = SSL_get_peer_cert_chain(ssl) else { return 0 }
        return Int(OPENSSL_sk_num(stack))
    }

    /// Turns a failed libssl call into a typed error, preferring what our chain check decided, then an alert the
    /// peer sent, then a missing client certificate, then OpenSSL's text. Call right after the failing call: `SSL_get_error` reads the error queue.
    private func failure(after rc: Int32, handshake: Bool) -> TLSError {
        let code = SSL_get_error(ssl, rc)
        let queue = OpenSSLErrorQueue.drain()
        if case .rejected(let error) = verifier.outcome { return error }
        if let alert = queue.receivedAlert { return .alertReceived(alert) }
        // An empty client Certificate never reaches the chain check; OpenSSL refuses it (alert certificate_required).
        if queue.sslReasons.contains(SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE) {
            return .certificateChain(.certificateCount(0))
        }
        let fallback: String
        switch code {
        case SSL_ERROR_ZERO_RETURN: fallback = "the peer closed the connection during the handshake"
        case SSL_ERROR_SYSCALL: fallback = "unexpected end of input"
        default: fallback = "OpenSSL error \(code)"
        }
        let text = queue.text(or: fallback)
        return handshake ? .handshake(text) : .connection(text)
    }

    /// Records a fatal error; OpenSSL has already queued its alert, if any, in `outgoing`.
    private func fail(_ error: TLSError) -> TLSError {
        state = .failed(error)
        return error
    }
}
