internal import COpenSSL
internal import SimplexCrypto

/// What one profile (XRCP, SMP client, SMP server) asks of the OpenSSL connection.
struct EngineConfiguration {
    var isClient: Bool
    /// What we present, leaf first (the rest as extra chain certificates); empty: no certificate.
    var chain: [Certificate]
    /// The leaf's key (`EVP_PKEY*`), which the context takes its own reference to; nil with an empty chain.
    var key: OpaquePointer?
    var groups = "X25519:X448"
    /// Checks the peer's chain during the handshake; nil: no peer certificate is asked for (an SMP server) and
    /// none is checked.
    var peerCheck: (any PeerChainCheck)?
    /// A server that refuses a client without a certificate (XRCP controller).
    var requirePeerCertificate = false
    /// ALPN protocols a client offers, in order of preference; empty: no ALPN extension.
    var offeredProtocols: [ApplicationProtocol] = []
    /// ALPN protocols a server selects from, in its order of preference (the first it knows among the client's);
    /// empty: the server ignores ALPN.
    var selectableProtocols: [ApplicationProtocol] = []
}

/// The facts of an established session, common to the profiles.
struct EstablishedSession {
    /// The client Finished verify_data (xrcp.md §4.5, smp.md §2.3).
    let tlsUnique: [UInt8]
    /// The peer's chain as checked, leaf first; empty when none was asked for.
    let peerChain: [Certificate]
    let protocolVersion: String
    let cipherSuite: String
    let keyExchangeGroup: String
    /// The ALPN protocol negotiated, if any.
    let applicationProtocol: ApplicationProtocol?
    /// The server name the client sent (SNI), as the server saw it; nil on a client.
    let serverName: String?
}

/// What feeding bytes to an engine produced.
enum EngineEvent {
    case handshakeCompleted(EstablishedSession)
    case applicationData([UInt8])
    case closed
}

/// One TLS 1.3 connection over memory BIOs: the driver writes what the socket delivered to `receive(_:)` and
/// writes `takeOutgoing()` to the socket after every call, including after a thrown error (it may hold the fatal
/// alert for the peer). The public connection types put their profile's configuration and session facts on it.
///
/// Not `Sendable`: it owns mutable OpenSSL state and belongs to one actor (one per connection).
final class TLSEngine {
    private enum State {
        case handshaking
        case established(closeSent: Bool)
        /// The peer's close_notify arrived.
        case closed
        case failed(TLSError)
    }

    let isClient: Bool
    private let context: OpaquePointer  // SSL_CTX, ours
    private let ssl: OpaquePointer  // SSL, ours; owns both BIOs
    private let incoming: OpaquePointer  // BIO_s_mem the peer's bytes go into
    private let outgoing: OpaquePointer  // BIO_s_mem our records come out of
    // The callbacks' arguments: they live as long as `context`.
    private let verifier: PeerVerifier?
    private let selector: ProtocolSelector?
    private let offeredProtocols: [ApplicationProtocol]
    private let requirePeerCertificate: Bool
    private var state: State = .handshaking

    init(_ configuration: EngineConfiguration) throws(TLSError) {
        precondition(configuration.chain.isEmpty == (configuration.key == nil), "a certificate needs its key")
        isClient = configuration.isClient
        offeredProtocols = configuration.offeredProtocols
        requirePeerCertificate = configuration.requirePeerCertificate
        verifier = configuration.peerCheck.map { PeerVerifier(policy: $0) }
        selector =
            configuration.selectableProtocols.isEmpty ? nil : ProtocolSelector(configuration.selectableProtocols)
        ERR_clear_error()
        guard let context = SSL_CTX_new(isClient ? TLS_client_method() : TLS_server_method()) else {
            throw .configuration(OpenSSLErrorQueue.drain().text(or: "SSL_CTX_new failed"))
        }
        self.context = context
        do throws(TLSError) {
            try Self.configure(context, configuration)
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        // The callbacks' arguments are unretained: `verifier` and `selector` live exactly as long as this object,
        // which frees the context (and its connection) in deinit.
        if let verifier {
            SSL_CTX_set_cert_verify_callback(
                context,
                { store, argument in
                    guard let store, let argument else { return 0 }
                    return Unmanaged<PeerVerifier>.fromOpaque(argument).takeUnretainedValue().verify(store)
                },
                Unmanaged.passUnretained(verifier).toOpaque())
        }
        if let selector {
            SSL_CTX_set_alpn_select_cb(
                context,
                { _, out, outLength, offered, offeredLength, argument in
                    guard let out, let outLength, let offered, let argument else { return SSL_TLSEXT_ERR_NOACK }
                    let selector = Unmanaged<ProtocolSelector>.fromOpaque(argument).takeUnretainedValue()
                    let list = UnsafeBufferPointer(start: offered, count: Int(offeredLength))
                    // A client whose protocols we do not know is refused with no_application_protocol, as the
                    // reference server does (hs-tls ≥ 1.9 when `onALPNClientSuggest` picks nothing).
                    guard let range = selector.select(from: list) else { return SSL_TLSEXT_ERR_ALERT_FATAL }
                    out.pointee = offered + range.lowerBound
                    outLength.pointee = UInt8(range.count)
                    return SSL_TLSEXT_ERR_OK
                },
                Unmanaged.passUnretained(selector).toOpaque())
        }

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
        if isClient { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        ERR_clear_error()
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// The context settings shared by the profiles (xrcp.md §4.1 and Appendix A, smp.md §2.2): TLS 1.3 only,
    /// `TLS_CHACHA20_POLY1305_SHA256` only, the given groups, signature schemes ed25519 and ed448, exactly the
    /// chain given, no session cache and no tickets. OpenSSL's `SSL_CTX_set_min_proto_version`,
    /// `SSL_CTX_set1_groups_list`, `SSL_CTX_set1_sigalgs_list`, `SSL_CTX_set1_client_sigalgs_list`,
    /// `SSL_CTX_add1_chain_cert`, `SSL_CTX_set_mode` and `SSL_CTX_set_session_cache_mode` are macros Swift cannot
    /// import, so this calls `SSL_CTX_ctrl` with their constants.
    private static func configure(_ context: OpaquePointer, _ configuration: EngineConfiguration) throws(TLSError) {
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
        try control(SSL_CTRL_SET_GROUPS_LIST, configuration.groups, "groups")
        try control(SSL_CTRL_SET_SIGALGS_LIST, "ed25519:ed448", "signature algorithms")
        try control(SSL_CTRL_SET_CLIENT_SIGALGS_LIST, "ed25519:ed448", "client signature algorithms")
        // Present exactly the chain given: no chain building from the (empty) store.
        let mode = SSL_CTX_ctrl(context, SSL_CTRL_MODE, Int(SSL_MODE_NO_AUTO_CHAIN), nil)
        try check(mode & Int(SSL_MODE_NO_AUTO_CHAIN) != 0, "no automatic chain")
        SSL_CTX_ctrl(context, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
        if !configuration.isClient { try check(SSL_CTX_set_num_tickets(context, 0) == 1, "no session tickets") }

        if let leaf = configuration.chain.first, let key = configuration.key {
            try check(SSL_CTX_use_certificate(context, leaf.openSSLCertificate) == 1, "certificate")
            try check(SSL_CTX_use_PrivateKey(context, key) == 1, "private key")
            for extra in configuration.chain.dropFirst() {
                // SSL_CTX_add1_chain_cert: the context takes its own reference.
                let certificate = UnsafeMutableRawPointer(extra.openSSLCertificate)
                try check(SSL_CTX_ctrl(context, SSL_CTRL_CHAIN_CERT, 1, certificate) == 1, "chain certificate")
            }
            try check(SSL_CTX_check_private_key(context) == 1, "key matches certificate")
        }

        if !configuration.offeredProtocols.isEmpty {
            let wire = ApplicationProtocol.wireList(configuration.offeredProtocols)
            // SSL_CTX_set_alpn_protos returns 0 on success.
            try check(SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0, "ALPN protocols")
        }

        // Ask for (server) and check (client) the peer's certificate; the chain check itself is the verify
        // callback, which replaces OpenSSL's, so no per-certificate verify callback is needed (xrcp.md §20.35).
        if configuration.peerCheck != nil {
            let verify =
                configuration.requirePeerCertificate
                ? SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT : SSL_VERIFY_PEER
            SSL_CTX_set_verify(context, verify, nil)
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
        ERR_clear_error()
    }

    // MARK: Events

    /// Starts the handshake: on a client this queues the ClientHello for `takeOutgoing()`; on a server it does
    /// nothing until the ClientHello arrives.
    func start() throws(TLSError) {
        guard case .handshaking = state else { return }
        _ = try advanceHandshake()
    }

    /// Feeds bytes read from the socket. Returns what they completed, in order: the handshake, application data
    /// (everything decryptable now; bytes of an incomplete record wait for the next call) and the peer's
    /// close_notify. Throws when the peer or its bytes fail; the connection is then dead and every later call
    /// throws the same error.
    func receive(_ bytes: [UInt8]) throws(TLSError) -> [EngineEvent] {
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
        var events: [EngineEvent] = []
        if case .handshaking = state {
            guard let session = try advanceHandshake() else { return events }
            events.append(.handshakeCompleted(session))
        }
        return events + (try readApplicationData())
    }

    /// Encrypts `plaintext` into records for `takeOutgoing()`. Only after the handshake, before `close()`.
    func send(_ plaintext: [UInt8]) throws(TLSError) {
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
    func close() {
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
    func takeOutgoing() -> [UInt8] {
        let pending = BIO_ctrl_pending(outgoing)
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let n = bytes.withUnsafeMutableBytes { BIO_read(outgoing, $0.baseAddress, Int32(clamping: $0.count)) }
        ERR_clear_error()
        return n > 0 ? Array(bytes.prefix(Int(n))) : []
    }

    /// Whether the handshake has completed and no close_notify has been received or sent.
    var isEstablished: Bool {
        if case .established(closeSent: false) = state { return true }
        return false
    }

    // MARK: Internals

    /// Runs the handshake as far as the buffered bytes allow; the session once it completes.
    private func advanceHandshake() throws(TLSError) -> EstablishedSession? {
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
        let session: EstablishedSession
        do throws(TLSError) {
            session = try establishedSession()
        } catch {
            // The handshake is complete on our side: tell the peer we are leaving (our Finished is queued too).
            SSL_shutdown(ssl)
            ERR_clear_error()
            throw fail(error)
        }
        state = .established(closeSent: false)
        return session
    }

    /// Decrypts every complete record buffered; stops at an incomplete one (never reading past what arrived).
    private func readApplicationData() throws(TLSError) -> [EngineEvent] {
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

    /// The session facts, read right after the handshake (xrcp.md §4.5, Appendix A; smp.md §2.1–§2.3).
    private func establishedSession() throws(TLSError) -> EstablishedSession {
        var chain: [Certificate] = []
        if let verifier {
            switch verifier.outcome {
            case .accepted(let checked):
                // The chain OpenSSL keeps must be the one we checked (xrcp.md §20.36: the server's stack lacks
                // the leaf).
                guard peerChainFromAccessors() == checked else { throw .certificateChain(.notVerified) }
                chain = checked
            case .rejected, nil:
                // Only a server that does not require a certificate completes without one (no callback ran).
                guard !isClient, !requirePeerCertificate, SSL_get0_peer_certificate(ssl) == nil else {
                    throw .certificateChain(.notVerified)
                }
            }
        }
        var finished = [UInt8](repeating: 0, count: 64)
        let length =
            isClient
            ? SSL_get_finished(ssl, &finished, finished.count) : SSL_get_peer_finished(ssl, &finished, finished.count)
        // HMAC-SHA256 output with the only suite we offer (xrcp.md §4.5, smp.md §2.3).
        guard length == 32 else { throw .handshake("tls-unique is \(length) bytes, expected 32") }
        var selected: UnsafePointer<UInt8>?
        var selectedLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &selected, &selectedLength)
        let negotiated = selected.map {
            ApplicationProtocol(wire: Array(UnsafeBufferPointer(start: $0, count: Int(selectedLength))))
        }
        if isClient, !offeredProtocols.isEmpty {
            // OpenSSL itself refuses a server that selects a protocol we did not offer.
            guard negotiated != nil else { throw .noSharedApplicationProtocol(offered: offeredProtocols) }
        }
        let version = SSL_get_version(ssl).map { String(cString: $0) } ?? "unknown"
        let cipher = SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) }
        // SSL_get_negotiated_group is a macro over SSL_ctrl; it gives the group's NID.
        let group = OBJ_nid2sn(Int32(truncatingIfNeeded: SSL_ctrl(ssl, SSL_CTRL_GET_NEGOTIATED_GROUP, 0, nil)))
        let serverName = isClient ? nil : SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) }
        ERR_clear_error()
        return EstablishedSession(
            tlsUnique: Array(finished.prefix(32)), peerChain: chain, protocolVersion: version,
            cipherSuite: cipher ?? "unknown", keyExchangeGroup: group.map { String(cString: $0) } ?? "unknown",
            applicationProtocol: negotiated, serverName: serverName)
    }

    /// The peer's chain as libssl's accessors give it after the handshake, leaf first: on a client
    /// `SSL_get_peer_cert_chain` holds the whole chain; on a server it lacks the leaf, which
    /// `SSL_get0_peer_certificate` gives (xrcp.md §20.36). Nil if unreadable.
    func peerChainFromAccessors() -> [Certificate]? {
        guard let stack = SSL_get_peer_cert_chain(ssl), let listed = certificates(in: stack) else { return nil }
        if isClient { return listed }
        guard let leaf = SSL_get0_peer_certificate(ssl).flatMap(certificate(from:)) else { return nil }
        return [leaf] + listed
    }

    /// The number of certificates in `SSL_get_peer_cert_chain`, for tests of xrcp.md §20.36.
    var peerCertChainStackCount: Int {
        guard let stack = SSL_get_peer_cert_chain(ssl) else { return 0 }
        return Int(OPENSSL_sk_num(stack))
    }

    /// Turns a failed libssl call into a typed error, preferring what our chain check decided, then an alert the
    /// peer sent, then a missing client certificate, then OpenSSL's text. Call right after the failing call:
    /// `SSL_get_error` reads the error queue.
    private func failure(after rc: Int32, handshake: Bool) -> TLSError {
        let code = SSL_get_error(ssl, rc)
        let queue = OpenSSLErrorQueue.drain()
        if case .rejected(let error) = verifier?.outcome { return error }
        if let refused = selector?.refusedOffer { return .noSharedApplicationProtocol(offered: refused) }
        if let alert = queue.receivedAlert {
            // A server that knows none of our protocols (smp.md §2.1).
            if alert == .noApplicationProtocol, isClient, !offeredProtocols.isEmpty {
                return .noSharedApplicationProtocol(offered: offeredProtocols)
            }
            return .alertReceived(alert)
        }
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

/// The server's ALPN choice (RFC 7301 §3.2), called by OpenSSL with the client's list: the first of our protocols
/// that the client offers, as the reference server picks (smp.md §2.1). A client that sends no ALPN extension is
/// never asked about (the session has no protocol); one that offers none of ours is refused.
final class ProtocolSelector {
    let protocols: [ApplicationProtocol]
    /// What a refused client offered, for the connection's error.
    private(set) var refusedOffer: [ApplicationProtocol]?

    init(_ protocols: [ApplicationProtocol]) { self.protocols = protocols }

    /// The range in `offered` (the client's wire list: one length byte before each name) of our choice; nil, with
    /// the offer remembered, when there is none.
    func select(from offered: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let range = choose(from: offered)
        if range == nil { refusedOffer = Self.names(in: offered) }
        return range
    }

    private func choose(from offered: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var entries: [(name: ArraySlice<UInt8>, range: Range<Int>)] = []
        var i = 0
        while i < offered.count {
            let length = Int(offered[i])
            // OpenSSL has checked the extension's syntax already; a list that does not parse selects nothing.
            guard length > 0, i + 1 + length <= offered.count else { return nil }
            let range = (i + 1)..<(i + 1 + length)
            entries.append((Array(offered[range])[...], range))
            i += 1 + length
        }
        for ours in protocols {
            if let match = entries.first(where: { $0.name.elementsEqual(ours.wire) }) { return match.range }
        }
        return nil
    }

    /// The names of a wire list, as far as it parses.
    private static func names(in offered: UnsafeBufferPointer<UInt8>) -> [ApplicationProtocol] {
        var names: [ApplicationProtocol] = []
        var i = 0
        while i < offered.count {
            let length = Int(offered[i])
            guard length > 0, i + 1 + length <= offered.count else { break }
            names.append(ApplicationProtocol(wire: Array(offered[(i + 1)..<(i + 1 + length)])))
            i += 1 + length
        }
        return names
    }
}
