public import SimplexCrypto
import SimplexEncoding
public import SimplexHTTP2
public import SimplexTLS
import TestSupport
import XCTest
public import XRCP

/// A controller made from the protocol pieces, in memory, to drive a `HostSession` in tests. Tests that share it
/// with a thread do so through one serial queue.
public final class TestController: @unchecked Sendable {
    public let now: Int64 = 1_780_000_000
    public let authority: CertificateAuthority
    public let identity: Ed25519.PrivateKey
    public let sessionKey = Ed25519.PrivateKey()
    public let dh = X25519.PrivateKey()
    public let signed: SignedInvitation
    public let tls: TLSConnection
    public var info: TLSSessionInfo?
    public var pending: [UInt8] = []
    public var crypto: RemoteCrypto?
    public var http2: HTTP2Connection?
    public var hostHello: HostHello?
    public var bodies: [Int32: [UInt8]] = [:]
    public var responses: [Int32: (RemoteResponse, [UInt8])] = [:]
    public var fileKeys: [Int32: MessageKey] = [:]
    public var compression: Bool

    public init(
        compression: Bool = true, deviceName: String = "Test Desktop", port: UInt16 = 40000,
        authority: CertificateAuthority? = nil,
        identity: Ed25519.PrivateKey = Ed25519.PrivateKey(), knownHost: CertificateFingerprint? = nil
    ) throws {
        self.compression = compression
        self.identity = identity
        self.authority = try authority ?? CertificateAuthority.generate(now: now, hoursBefore: 25)
        let invitation = Invitation(
            ca: self.authority.certificate.fingerprint, host: "127.0.0.1", port: port,
            app: ControllerAppInfo(deviceName: deviceName, compression: compression).json, timestamp: now,
            sessionKey: sessionKey.publicKey, identityKey: identity.publicKey, dh: dh.publicKey)
        signed = invitation.signed(sessionKey: sessionKey, identityKey: identity)
        tls = try TLSConnection(
            role: .server(knownHost.map { .knownHost($0) } ?? .anyHost), credential: try self.authority.issueLeaf(now: now),
            now: now)
    }

    public func receive(_ bytes: [UInt8]) throws {
        for event in try tls.receive(bytes) {
            switch event {
            case .handshakeCompleted(let i): info = i
            case .applicationData(let d): pending += d
            case .closed: break
            }
        }
        if crypto == nil, pending.count >= helloBlockSize, let info {
            let block = Array(pending[0..<helloBlockSize])
            pending.removeFirst(helloBlockSize)
            let (hello, secret) = try HostHello.open(block: block, controllerKey: dh)
            XCTAssertEqual(hello.ca, info.peerCAFingerprint, "HELLO ca must be the TLS CA")
            hostHello = hello
            let (reply, keys) = try ControllerBlock.sealHello(to: hello, dhSecret: secret)
            try tls.send(reply)
            crypto = RemoteCrypto.controller(
                keys: keys, sessionCode: info.tlsUnique, compression: compression && hello.app.compression,
                sessionKey: sessionKey,
                identityKey: identity)
            http2 = try HTTP2Connection(role: .client)
            try flush()
        }
        if let http2, !pending.isEmpty {
            let data = pending
            pending = []
            for event in try http2.receive(data) {
                switch event {
                case .data(let s, let d): bodies[s, default: []] += d
                case .endStream(let s): try finishResponse(s)
                default: break
                }
            }
            try flush()
        }
    }

    private func finishResponse(_ stream: Int32) throws {
        guard var crypto, let body = bodies.removeValue(forKey: stream) else { return }
        let (json, fileKey, consumed) = try crypto.open(body)
        self.crypto = crypto
        let response = try RemoteResponse(json: json)
        var attachment: [UInt8] = []
        if case .file(let size, _) = response {
            let rest = Array(body[consumed...])
            try Attachment.checkHeader(Array(rest.prefix(5)), fileSize: UInt64(size))
            attachment = try SecretBox.openTailTag(Array(rest.dropFirst(5)), key: fileKey.key, nonce: fileKey.nonce)
        }
        responses[stream] = (response, attachment)
    }

    /// Sends a command (and a file after it); returns its stream.
    @discardableResult
    public func request(_ command: RemoteCommand, file: [UInt8]? = nil) throws -> Int32 {
        guard var c = crypto, let http2 else { throw PeerFailure("not connected") }
        let (body, fileKey) = try c.seal(json: Array(command.json.rendered.utf8))
        crypto = c
        let stream = try http2.submitRequest([
            HeaderField(":method", "POST"), HeaderField(":path", "/"), HeaderField(":scheme", "https"),
            HeaderField(":authority", "0.0.0.0"),
        ])
        try http2.send(body, on: stream)
        if let file {
            try http2.send(try Attachment.header(fileSize: UInt64(file.count)), on: stream)
            try http2.send(SecretBox.sealTailTag(file, key: fileKey.key, nonce: fileKey.nonce), on: stream)
        }
        try http2.finish(stream: stream)
        try flush()
        return stream
    }

    /// Sends raw body bytes on a new stream (for replay and tampering tests).
    public func requestRaw(_ body: [UInt8]) throws -> Int32 {
        guard let http2 else { throw PeerFailure("not connected") }
        let stream = try http2.submitRequest([
            HeaderField(":method", "POST"), HeaderField(":path", "/"), HeaderField(":scheme", "https"),
            HeaderField(":authority", "0.0.0.0"),
        ])
        try http2.send(body, on: stream)
        try http2.finish(stream: stream)
        try flush()
        return stream
    }

    public func sealNext(_ command: RemoteCommand) throws -> [UInt8] {
        guard var c = crypto else { throw PeerFailure("not connected") }
        let body = try c.seal(json: Array(command.json.rendered.utf8)).body
        crypto = c
        return body
    }

    public func flush() throws {
        if let http2 {
            let out = try http2.takeOutgoing()
            if !out.isEmpty { try tls.send(out) }
        }
    }
}
