public import SimplexCrypto
internal import SimplexEncoding
public import SimplexHTTP2
public import SimplexTLS
public import XRCP

/// Why a controller session ended.
public enum ControllerSessionError: Error, Equatable, Sendable {
    case tls(TLSError)
    case xrcp(XRCPError)
    case http2(HTTP2Error)
    case protocolError(RemoteProtocolError)
    /// The host's app version is outside our accepted range (`badVersion`, carrying the host's version).
    case badVersion(AppVersion)
    case invalidState(String)
}

/// What a controller session needs (xrcp.md §5.1, §7.4): the pairing's CA and identity, and where it listens.
public struct ControllerSessionSetup: Sendable {
    /// The controller's CA for this host pairing (a new one for a new host).
    public var authority: CertificateAuthority
    /// The controller's long-term identity key for this pairing.
    public var identityKey: Ed25519.PrivateKey
    /// The host's CA fingerprint when the host is known; a new host may present any CA.
    public var knownHost: CertificateFingerprint?
    public var sessionKey: Ed25519.PrivateKey
    public var dhKey: X25519.PrivateKey
    public var app: ControllerAppInfo
    /// The address and port the invitation names (the TLS listener's).
    public var host: String
    public var port: UInt16
    public var now: Int64

    public init(
        authority: CertificateAuthority, identityKey: Ed25519.PrivateKey, knownHost: CertificateFingerprint? = nil,
        sessionKey: Ed25519.PrivateKey = Ed25519.PrivateKey(), dhKey: X25519.PrivateKey = X25519.PrivateKey(),
        app: ControllerAppInfo,
        host: String, port: UInt16, now: Int64
    ) {
        self.authority = authority
        self.identityKey = identityKey
        self.knownHost = knownHost
        self.sessionKey = sessionKey
        self.dhKey = dhKey
        self.app = app
        self.host = host
        self.port = port
        self.now = now
    }
}

/// What happened in a controller session.
public enum ControllerSessionEvent: Equatable, Sendable {
    /// TLS is up: show the code; the host's user confirms it on the host.
    case sessionCode(String)
    /// The host's HELLO was accepted: store the pairing with these values; commands may be sent now.
    case established(host: HostAppInfo, hostCA: CertificateFingerprint, hostDHKey: X25519.PublicKey, compression: Bool)
    /// A complete response (not a file).
    case response(stream: Int32, RemoteResponse)
    /// A `file` response: its decrypted bytes follow, then `fileEnded` once tag and digest are checked.
    case fileStarted(stream: Int32, fileSize: UInt32)
    case fileData(stream: Int32, bytes: [UInt8])
    case fileEnded(stream: Int32)
    /// A response that failed a check.
    case failed(stream: Int32, RemoteProtocolError)
    case closed
}

/// The controller role of one XRCP session, with no I/O (xrcp.md §4.2, §7.4–7.5, §9): TLS server, host HELLO,
/// controller HELLO, then HTTP/2 as client with signed, encrypted commands. One owner drives it.
public final class ControllerSession {
    private enum State {
        case tls
        case awaitingHello(TLSSessionInfo)
        case established(RemoteCrypto, HTTP2Connection)
        case closed
    }

    private enum ResponseStream {
        case body([UInt8])
        case file(AttachmentReceiver)
        case done
    }

    public let invitation: SignedInvitation
    private let setup: ControllerSessionSetup
    private let tls: TLSConnection
    private var state = State.tls
    private var pending: [UInt8] = []
    private var responses: [Int32: ResponseStream] = [:]
    private var uploads: [Int32: SecretBoxStream] = [:]

    public init(_ setup: ControllerSessionSetup) throws(ControllerSessionError) {
        self.setup = setup
        invitation = Invitation(
            ca: setup.authority.certificate.fingerprint, host: setup.host, port: setup.port, app: setup.app.json,
            timestamp: setup.now, sessionKey: setup.sessionKey.publicKey, identityKey: setup.identityKey.publicKey,
            dh: setup.dhKey.publicKey
        ).signed(sessionKey: setup.sessionKey, identityKey: setup.identityKey)
        do {
            let pin: HostPin = setup.knownHost.map { .knownHost($0) } ?? .anyHost
            tls = try TLSConnection(role: .server(pin), credential: try setup.authority.issueLeaf(now: setup.now), now: setup.now)
        } catch let e as TLSError {
            throw .tls(e)
        } catch {
            throw .xrcp(.tlsStartFailed)
        }
    }

    public func takeOutgoing() -> [UInt8] { tls.takeOutgoing() }

    public func receive(_ bytes: [UInt8]) throws(ControllerSessionError) -> [ControllerSessionEvent] {
        let events: [TLSEvent]
        do { events = try tls.receive(bytes) } catch { throw fail(.tls(error)) }
        var out: [ControllerSessionEvent] = []
        for event in events {
            switch event {
            case .handshakeCompleted(let info):
                state = .awaitingHello(info)
                out.append(.sessionCode(info.sessionCode))
            case .applicationData(let data):
                pending += data
                out += try advance()
            case .closed:
                state = .closed
                out.append(.closed)
            }
        }
        return out
    }

    /// Sends a command; for `storeFile` the file follows with `sendFile` and `finishFile`. Returns its stream.
    public func request(_ command: RemoteCommand) throws(ControllerSessionError) -> Int32 {
        guard case .established(var crypto, let http2) = state else { throw .invalidState("not established") }
        do {
            let (body, fileKey) = try crypto.seal(json: Array(command.json.rendered.utf8))
            state = .established(crypto, http2)
            let stream = try http2.submitRequest([
                HeaderField(":method", "POST"), HeaderField(":path", "/"), HeaderField(":scheme", "https"),
                HeaderField(":authority", "0.0.0.0"),
            ])
            try http2.send(body, on: stream)
            if case .storeFile(_, let size, _) = command {
                try http2.send(try Attachment.header(fileSize: UInt64(size)), on: stream)
                uploads[stream] = SecretBoxStream(.seal, key: fileKey.key, nonce: fileKey.nonce)
            } else {
                try http2.finish(stream: stream)
            }
            responses[stream] = .body([])
            try flush(http2)
            return stream
        } catch let e as HTTP2Error {
            throw fail(.http2(e))
        } catch let e as RemoteProtocolError {
            throw fail(.protocolError(e))
        } catch let e as ControllerSessionError {
            throw e
        } catch {
            throw fail(.xrcp(.encrypt))
        }
    }

    public func sendFile(stream: Int32, _ bytes: [UInt8]) throws(ControllerSessionError) {
        guard case .established(_, let http2) = state, let sealer = uploads[stream] else {
            throw .invalidState("no upload on \(stream)")
        }
        do { try http2.send(sealer.update(bytes), on: stream) } catch { throw fail(.http2(error)) }
        try flush(http2)
    }

    /// Upload bytes handed to `sendFile` that HTTP/2 has not framed yet (flow control holds them back).
    public func pendingFileBytes(stream: Int32) -> Int {
        guard case .established(_, let http2) = state else { return 0 }
        return http2.pendingBytes(on: stream)
    }

    public func finishFile(stream: Int32) throws(ControllerSessionError) {
        guard case .established(_, let http2) = state, let sealer = uploads.removeValue(forKey: stream) else {
            throw .invalidState("no upload on \(stream)")
        }
        do throws(HTTP2Error) {
            try http2.send(sealer.finalizeTag(), on: stream)
            try http2.finish(stream: stream)
        } catch { throw fail(.http2(error)) }
        try flush(http2)
    }

    public func close() {
        if case .established(_, let http2) = state {
            http2.goAway()
            try? flush(http2)
        }
        tls.close()
        state = .closed
    }

    /// Tells the host why in an ERROR block (xrcp.md §7.6; the reference only closes, leaving the host to guess), then
    /// fails.
    private func refuse(_ error: ControllerSessionError, _ message: String, _ secret: X25519.SharedSecret)
        -> ControllerSessionError
    {
        if let block = try? ControllerBlock.sealError(message, dhSecret: secret) { try? tls.send(block) }
        return fail(error)
    }

    private func fail(_ error: ControllerSessionError) -> ControllerSessionError {
        tls.close()
        state = .closed
        return error
    }

    private func advance() throws(ControllerSessionError) -> [ControllerSessionEvent] {
        switch state {
        case .tls, .closed:
            return []
        case .awaitingHello(let info):
            guard pending.count >= helloBlockSize else { return [] }
            let block = Array(pending[0..<helloBlockSize])
            pending.removeFirst(helloBlockSize)
            let hello: HostHello
            let secret: X25519.SharedSecret
            do { (hello, secret) = try HostHello.open(block: block, controllerKey: setup.dhKey) } catch {
                throw fail(.xrcp(error))
            }
            guard hello.ca == info.peerCAFingerprint else { throw fail(.xrcp(.identity)) }
            guard XRCPVersion.supported.contains(hello.version) else {
                throw refuse(.xrcp(.version), "XRCP version \(hello.version) is not supported", secret)
            }
            guard setup.app.appVersionRange.contains(hello.app.appVersion) else {
                let range = setup.app.appVersionRange
                throw refuse(
                    .badVersion(hello.app.appVersion),
                    "app version \(hello.app.appVersion) is outside this controller's \(range.min)–\(range.max)", secret)
            }
            let keys: SessionKeys
            do {
                let (reply, k) = try ControllerBlock.sealHello(to: hello, dhSecret: secret)
                try tls.send(reply)
                keys = k
            } catch let e as XRCPError {
                throw fail(.xrcp(e))
            } catch let e as TLSError {
                throw fail(.tls(e))
            } catch {
                throw fail(.xrcp(.encrypt))
            }
            let compression = hello.app.compression && setup.app.compression
            let crypto = RemoteCrypto.controller(
                keys: keys, sessionCode: info.tlsUnique, compression: compression, sessionKey: setup.sessionKey,
                identityKey: setup.identityKey)
            let http2: HTTP2Connection
            do { http2 = try HTTP2Connection(role: .client) } catch { throw fail(.http2(error)) }
            state = .established(crypto, http2)
            try flush(http2)
            let hostDH = try? X25519.PublicKey(spki: Array(block[9..<53]))
            guard let hostDH else { throw fail(.xrcp(.syntax("HELLO key"))) }
            return [.established(host: hello.app, hostCA: hello.ca, hostDHKey: hostDH, compression: compression)]
                + (try feedHTTP2())
        case .established:
            return try feedHTTP2()
        }
    }

    private func feedHTTP2() throws(ControllerSessionError) -> [ControllerSessionEvent] {
        guard case .established(_, let http2) = state else { return [] }
        let bytes = pending
        pending = []
        let events: [HTTP2Event]
        do { events = try http2.receive(bytes) } catch { throw fail(.http2(error)) }
        var out: [ControllerSessionEvent] = []
        for event in events {
            switch event {
            case .data(let stream, let data): out += responseData(stream, data)
            case .endStream(let stream):
                switch responses.removeValue(forKey: stream) {
                case .done?, nil: break
                default: out.append(.failed(stream: stream, .invalidBody("response ended early")))
                }
            case .goAway: out.append(.closed)
            case .headers, .streamClosed: break
            }
        }
        try flush(http2)
        return out
    }

    private func responseData(_ stream: Int32, _ data: [UInt8]) -> [ControllerSessionEvent] {
        guard case .established(var crypto, let http2) = state else { return [] }
        switch responses[stream] {
        case .body(var buffer)?:
            buffer += data
            do {
                guard let needed = try crypto.bodyLength(prefix: buffer), buffer.count >= needed else {
                    responses[stream] = .body(buffer)
                    return []
                }
                let (json, fileKey, consumed) = try crypto.open(buffer)
                state = .established(crypto, http2)
                let response = try RemoteResponse(json: json)
                let rest = Array(buffer[consumed...])
                if case .file(let size, let digest) = response {
                    responses[stream] = .file(AttachmentReceiver(size: size, digest: digest, key: fileKey))
                    return [.fileStarted(stream: stream, fileSize: size)] + responseData(stream, rest)
                }
                responses[stream] = .done
                return [.response(stream: stream, response)]
            } catch {
                state = .established(crypto, http2)
                responses[stream] = .done
                return [.failed(stream: stream, error)]
            }
        case .file(let receiver)?:
            switch receiver.feed(data) {
            case .data(let plain):
                return plain.isEmpty ? [] : [.fileData(stream: stream, bytes: plain)]
            case .done(let plain):
                responses[stream] = .done
                return (plain.isEmpty ? [] : [.fileData(stream: stream, bytes: plain)]) + [.fileEnded(stream: stream)]
            case .failed(let error):
                responses[stream] = .done
                return [.failed(stream: stream, error)]
            }
        case .done?, nil:
            return []
        }
    }

    private func flush(_ http2: HTTP2Connection) throws(ControllerSessionError) {
        do { try tls.send(framesOf: http2) } catch {
            switch error {
            case .http2(let e): throw fail(.http2(e))
            case .tls(let e): throw fail(.tls(e))
            }
        }
    }
}
