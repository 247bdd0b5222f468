public import SimplexCrypto
internal import SimplexEncoding
public import SimplexHTTP2
public import SimplexTLS
public import XRCP

/// Why a host session ended.
public enum HostSessionError: Error, Equatable, Sendable {
    case tls(TLSError)
    case xrcp(XRCPError)
    case http2(HTTP2Error)
    /// The code the user typed does not match (`pRESessionCode`); nothing was sent or stored.
    case sessionCode
    /// A call made in the wrong state (our bug, or a driver calling after the end).
    case invalidState(String)
}

/// What a host session needs to connect to one controller (xrcp.md §5.8, §7.3).
public struct HostSessionSetup: Sendable {
    public var invitation: VerifiedInvitation
    /// The host's CA for this controller: the stored one for a known controller, a new one otherwise.
    public var authority: CertificateAuthority
    /// This attempt's new DH key; stored as the pairing's current key once the session is up.
    public var dhKey: X25519.PrivateKey
    public var kem: SNTRUP761.KeyPair
    public var app: HostAppInfo
    /// Our own compression setting; used only if the controller advertises it too.
    public var compression: Bool
    /// Seconds since the epoch, for certificates and the peer's validity dates.
    public var now: Int64

    public init(
        invitation: VerifiedInvitation, authority: CertificateAuthority, dhKey: X25519.PrivateKey = X25519.PrivateKey(),
        kem: SNTRUP761.KeyPair = SNTRUP761.KeyPair(), app: HostAppInfo, compression: Bool = true, now: Int64
    ) {
        self.invitation = invitation
        self.authority = authority
        self.dhKey = dhKey
        self.kem = kem
        self.app = app
        self.compression = compression
        self.now = now
    }
}

/// What happened in a host session, for the driver to act on.
public enum HostSessionEvent: Equatable, Sendable {
    /// TLS is up: show this code; the session waits for `verify(code:)`.
    case sessionCode(String)
    /// The controller's HELLO was accepted: the pairing may be stored and commands will follow.
    case established(controller: ControllerAppInfo, compression: Bool)
    /// A complete command (not `storeFile`) on an HTTP/2 stream; answer with `respond`.
    case command(stream: Int32, RemoteCommand)
    /// `storeFile` began: the file's decrypted bytes follow in `fileData`, then `fileEnded`.
    case fileStarted(stream: Int32, fileName: String, fileSize: UInt32)
    case fileData(stream: Int32, bytes: [UInt8])
    /// The file arrived whole, its tag and digest checked; answer with `respond`.
    case fileEnded(stream: Int32)
    /// A request failed a check; the session already answered it with `protocolError`, it never reaches the core.
    case refused(stream: Int32, RemoteProtocolError)
    /// The controller ended the connection.
    case closed
}

/// The host role of one XRCP session, with no I/O (xrcp.md §4–§11): bytes from the controller in, events and
/// bytes for the controller out. TLS, the two HELLO blocks, then HTTP/2 (host = server) with encrypted bodies.
/// One owner drives it (an actor per connection).
public final class HostSession {
    private enum State {
        case tls
        case awaitingVerification(TLSSessionInfo)
        case helloSent(TLSSessionInfo, X25519.SharedSecret)
        case established(Established)
        case closed
    }

    private final class Established {
        var crypto: RemoteCrypto
        let http2: HTTP2Connection
        var streams: [Int32: RequestStream] = [:]
        /// Reported once the controller's HTTP/2 preface has been read whole, so that a controller whose stream is
        /// broken right after its HELLO (an oversized block, say) never counts as paired.
        var pendingAnnouncement: HostSessionEvent?
        var bytesIntoHTTP2 = 0
        init(crypto: RemoteCrypto, http2: HTTP2Connection) {
            self.crypto = crypto
            self.http2 = http2
        }
    }

    /// The HTTP/2 client connection preface (RFC 9113 §3.4) is 24 bytes.
    private static let prefaceLength = 24

    /// One request being received: its body, then for `storeFile` the attachment.
    private enum RequestStream {
        case body([UInt8])
        case file(AttachmentReceiver)
        case answered
    }

    private let setup: HostSessionSetup
    private let tls: TLSConnection
    private var state = State.tls
    /// TLS application data not yet consumed by the XRCP blocks (HTTP/2 bytes may follow in the same read).
    private var pending: [UInt8] = []
    /// Outgoing response files: the sealing stream per HTTP/2 stream.
    private var outgoingFiles: [Int32: SecretBoxStream] = [:]

    public init(_ setup: HostSessionSetup) throws(HostSessionError) {
        self.setup = setup
        do {
            let credential = try setup.authority.issueLeaf(now: setup.now)
            tls = try TLSConnection(
                role: .client(controllerCA: setup.invitation.invitation.ca), credential: credential, now: setup.now)
            try tls.start()
        } catch let e as TLSError {
            throw .tls(e)
        } catch {
            throw .xrcp(.internal("\(error)"))
        }
    }

    /// Bytes to write to the controller now.
    public func takeOutgoing() -> [UInt8] { tls.takeOutgoing() }

    public var sessionInfo: TLSSessionInfo? { tls.sessionInfo }

    /// Feeds bytes read from the controller.
    public func receive(_ bytes: [UInt8]) throws(HostSessionError) -> [HostSessionEvent] {
        let tlsEvents: [TLSEvent]
        do { tlsEvents = try tls.receive(bytes) } catch { throw fail(.tls(error)) }
        var out: [HostSessionEvent] = []
        for event in tlsEvents {
            switch event {
            case .handshakeCompleted(let info):
                guard case .tls = state else { throw fail(.invalidState("second handshake")) }
                state = .awaitingVerification(info)
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

    /// The user typed the code shown by the controller. A match sends the host HELLO (xrcp.md §7.3).
    public func verify(code: String) throws(HostSessionError) {
        guard case .awaitingVerification(let info) = state else { throw .invalidState("no session code to verify") }
        guard SessionCode.matches(code, info.sessionCode) else { throw fail(.sessionCode) }
        let invitation = setup.invitation.invitation
        let hello = HostHello(
            version: XRCPVersion.supported.max, ca: setup.authority.certificate.fingerprint, app: setup.app,
            kemPublicKey: setup.kem.publicKey)
        do {
            let secret = try setup.dhKey.sharedSecret(with: invitation.dh)
            try tls.send(try hello.sealedBlock(hostKey: setup.dhKey, controllerKey: invitation.dh))
            state = .helloSent(info, secret)
        } catch let e as TLSError {
            throw fail(.tls(e))
        } catch let e as XRCPError {
            throw fail(.xrcp(e))
        } catch {
            throw fail(.xrcp(.encrypt))
        }
    }

    /// Answers a command. For `file` responses the attachment follows with `sendFile` and `finishFile`.
    public func respond(stream: Int32, _ response: RemoteResponse) throws(HostSessionError) {
        guard case .established(let e) = state else { throw .invalidState("not established") }
        guard case .answered? = e.streams[stream] else { throw .invalidState("stream \(stream) has no request to answer") }
        do {
            let (body, fileKey) = try e.crypto.seal(json: response.encoded)
            try e.http2.submitResponse(stream: stream, headers: [HeaderField(":status", "200")])
            try e.http2.send(body, on: stream)
            if case .file(let size, _) = response {
                try e.http2.send(try Attachment.header(fileSize: UInt64(size)), on: stream)
                outgoingFiles[stream] = SecretBoxStream(.seal, key: fileKey.key, nonce: fileKey.nonce)
            } else {
                try e.http2.finish(stream: stream)
                e.streams[stream] = nil
            }
        } catch let error as HTTP2Error {
            throw fail(.http2(error))
        } catch {
            throw fail(.xrcp(.encrypt))
        }
        try flush(e)
    }

    /// The next piece of a `file` response's attachment.
    public func sendFile(stream: Int32, _ bytes: [UInt8]) throws(HostSessionError) {
        guard case .established(let e) = state, let sealer = outgoingFiles[stream] else {
            throw .invalidState("no file being sent on \(stream)")
        }
        do { try e.http2.send(sealer.update(bytes), on: stream) } catch { throw fail(.http2(error)) }
        try flush(e)
    }

    /// Attachment bytes handed to `sendFile` that HTTP/2 has not framed yet (flow control holds them back).
    public func pendingFileBytes(stream: Int32) -> Int {
        guard case .established(let e) = state else { return 0 }
        return e.http2.pendingBytes(on: stream)
    }

    /// Ends a `file` response's attachment with its tag.
    public func finishFile(stream: Int32) throws(HostSessionError) {
        guard case .established(let e) = state, let sealer = outgoingFiles.removeValue(forKey: stream) else {
            throw .invalidState("no file being sent on \(stream)")
        }
        do throws(HTTP2Error) {
            try e.http2.send(sealer.finalizeTag(), on: stream)
            try e.http2.finish(stream: stream)
        } catch { throw fail(.http2(error)) }
        e.streams[stream] = nil
        try flush(e)
    }

    /// Ends the session (GOAWAY and close_notify).
    public func close() {
        if case .established(let e) = state {
            e.http2.goAway()
            try? flush(e)
        }
        tls.close()
        state = .closed
    }

    private func fail(_ error: HostSessionError) -> HostSessionError {
        tls.close()
        state = .closed
        return error
    }

    /// Moves pending application data through the XRCP blocks and into HTTP/2.
    private func advance() throws(HostSessionError) -> [HostSessionEvent] {
        switch state {
        case .tls, .awaitingVerification, .closed:
            return []  // kept in `pending`: the controller sends nothing before our HELLO, but bytes must never be lost
        case .helloSent(let info, let secret):
            guard pending.count >= helloBlockSize else { return [] }
            let block = Array(pending[0..<helloBlockSize])
            pending.removeFirst(helloBlockSize)
            let keys: SessionKeys
            let controller: ControllerAppInfo
            do {
                keys = try ControllerBlock.open(block: block, kemSecretKey: setup.kem.secretKey, dhSecret: secret)
                controller = try setup.invitation.invitation.appInfo()
            } catch { throw fail(.xrcp(error)) }
            let compression = controller.compression && setup.compression
            let invitation = setup.invitation.invitation
            let crypto = RemoteCrypto.host(
                keys: keys, sessionCode: info.tlsUnique, compression: compression, sessionKey: invitation.sessionKey,
                identityKey: invitation.identityKey)
            let http2: HTTP2Connection
            do { http2 = try HTTP2Connection(role: .server) } catch { throw fail(.http2(error)) }
            let e = Established(crypto: crypto, http2: http2)
            e.pendingAnnouncement = .established(controller: controller, compression: compression)
            state = .established(e)
            return try feedHTTP2(e)
        case .established(let e):
            return try feedHTTP2(e)
        }
    }

    private func feedHTTP2(_ e: Established) throws(HostSessionError) -> [HostSessionEvent] {
        let bytes = pending
        pending = []
        var out: [HostSessionEvent] = []
        let events: [HTTP2Event]
        do { events = try e.http2.receive(bytes) } catch { throw fail(.http2(error)) }
        e.bytesIntoHTTP2 += bytes.count
        if let announcement = e.pendingAnnouncement, e.bytesIntoHTTP2 >= Self.prefaceLength {
            e.pendingAnnouncement = nil
            out.append(announcement)
        }
        for event in events {
            switch event {
            case .headers(let stream, _):
                e.streams[stream] = .body([])
            case .data(let stream, let data):
                out += try requestData(e, stream, data)
            case .endStream(let stream):
                switch e.streams[stream] {
                case .body?, .file?:
                    out += try refuse(e, stream, .invalidBody("request ended early"))
                default: break
                }
            case .streamClosed(let stream, _):
                if case .answered? = e.streams[stream] {} else { e.streams[stream] = nil }
            case .goAway:
                out.append(.closed)
            }
        }
        try flush(e)
        return out
    }

    private func requestData(_ e: Established, _ stream: Int32, _ data: [UInt8]) throws(HostSessionError) -> [HostSessionEvent] {
        switch e.streams[stream] {
        case .body(var buffer)?:
            buffer += data
            let needed: Int?
            do { needed = try e.crypto.bodyLength(prefix: buffer) } catch { return try refuse(e, stream, error) }
            guard let needed, buffer.count >= needed else {
                e.streams[stream] = .body(buffer)
                return []
            }
            let opened: (json: [UInt8], fileKey: MessageKey, consumed: Int)
            let command: RemoteCommand
            do {
                opened = try e.crypto.open(buffer)
                command = try RemoteCommand(json: opened.json)
            } catch { return try refuse(e, stream, error) }
            let rest = Array(buffer[opened.consumed...])
            if case .storeFile(let name, let size, let digest) = command {
                e.streams[stream] = .file(AttachmentReceiver(size: size, digest: digest, key: opened.fileKey))
                return [.fileStarted(stream: stream, fileName: name, fileSize: size)] + (try requestData(e, stream, rest))
            }
            guard rest.isEmpty else { return try refuse(e, stream, .invalidBody("unexpected bytes after the command")) }
            e.streams[stream] = .answered
            return [.command(stream: stream, command)]
        case .file(let receiver)?:
            switch receiver.feed(data) {
            case .data(let plain):
                return plain.isEmpty ? [] : [.fileData(stream: stream, bytes: plain)]
            case .done(let plain):
                e.streams[stream] = .answered
                return (plain.isEmpty ? [] : [.fileData(stream: stream, bytes: plain)]) + [.fileEnded(stream: stream)]
            case .failed(let error):
                return try refuse(e, stream, error)
            }
        case .answered?, nil:
            return []
        }
    }

    /// Answers a request that failed a check with `protocolError` (xrcp.md §11.3).
    private func refuse(_ e: Established, _ stream: Int32, _ error: RemoteProtocolError) throws(HostSessionError)
        -> [HostSessionEvent]
    {
        e.streams[stream] = .answered
        try respond(stream: stream, .protocolError(error))
        return [.refused(stream: stream, error)]
    }

    private func flush(_ e: Established) throws(HostSessionError) {
        do { try tls.send(framesOf: e.http2) } catch {
            switch error {
            case .http2(let e): throw fail(.http2(e))
            case .tls(let e): throw fail(.tls(e))
            }
        }
    }
}
