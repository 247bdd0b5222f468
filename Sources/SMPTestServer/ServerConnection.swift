public import SMP
public import SimplexCrypto
public import SimplexEncoding

/// Why the server closes a connection (smp.md §2.4–§2.6): the handshake's transport errors and the block errors
/// that the reference closes on.
public enum ConnectionCloseReason: Error, Equatable, Sendable {
    /// `HANDSHAKE PARSE|IDENTITY|BAD_SERVICE`.
    case handshake(HandshakeError)
    /// The client chose a version outside the server's range (`TEVersion`).
    case version(UInt16)
    /// A block that does not decrypt, unpad or have the block size.
    case block(BlockError)
    /// The stream ended in the middle of a block, with this many bytes of it.
    case truncatedBlock(Int)

    /// The reference's transport error for it.
    public var transportError: TransportError {
        switch self {
        case .handshake(let e): .handshake(e)
        case .version: .version
        case .block(let e): e.transportError
        case .truncatedBlock: .block
        }
    }
}

/// What a connection's bytes produced.
public enum ConnectionEvent: Equatable, Sendable {
    /// The client hello was accepted: commands follow at these parameters.
    case established(TransportParameters)
    /// The transmissions of one block.
    case transmissions([[UInt8]])
    /// A block whose batch did not parse (answered with `ERR BLOCK`, the connection stays).
    case unparsableBatch
    /// The connection must be closed.
    case close(ConnectionCloseReason)
}

/// One client connection of the server above TLS (smp.md §2.4–§2.6), without I/O: it makes the server hello,
/// checks the client hello, and then cuts the stream into 16,384-byte blocks, opening (and sealing) them with the
/// negotiated framing.
///
///     TLS established ── serverHelloBlock ──▶ awaitingClientHello
///     awaitingClientHello ── client hello ok ──▶ established(parameters, framing)   (.established)
///                         └─ identity, version, parse, service ──▶ closed           (.close)
///     established ── block ──▶ .transmissions | .unparsableBatch
///                 └─ bad block ──▶ closed                                            (.close)
public struct ServerConnection: Sendable {
    enum State: Sendable {
        case awaitingClientHello(serverHello: ServerHello, dhKey: X25519.PrivateKey)
        case established(TransportParameters, BlockFraming)
        case closed
    }

    private var state: State
    private var buffer: [UInt8] = []
    private let keyHash: KeyHash
    private let versions: VersionRange
    /// The first block to send, right after the TLS handshake.
    public let serverHelloBlock: [UInt8]

    /// A connection whose TLS session has `sessionId`; without ALPN only version 6 is offered (smp.md §2.4).
    /// `dhKey` is the connection's fresh X25519 key, signed with the credential's leaf key.
    public init(
        sessionId: SessionId, negotiatedALPN: Bool, credential: ServerCredential, dhKey: X25519.PrivateKey,
        versions: VersionRange = SMPVersion.supported
    ) throws(HandshakeError) {
        let range = negotiatedALPN ? versions : SMPVersion.legacyServerRange
        let signed = SignedServerKey.sign(dhKey.publicKey, with: credential.leafKey)
        let hello = ServerHello(
            versionRange: range, sessionId: sessionId,
            authKey: CertChainPublicKey(certificates: credential.chain, signedKey: signed))
        serverHelloBlock = try hello.block()
        keyHash = KeyHash(credential.fingerprint)
        self.versions = range
        state = .awaitingClientHello(serverHello: hello, dhKey: dhKey)
    }

    /// Whether blocks are encrypted (smp.md §2.6), once established.
    public var encryptsBlocks: Bool {
        if case .established(_, let framing) = state { return framing.encryption != nil }
        return false
    }

    public var parameters: TransportParameters? {
        if case .established(let p, _) = state { return p }
        return nil
    }

    /// Bytes of the TLS plaintext stream; every whole block is handled, the rest waits.
    public mutating func receive(_ bytes: [UInt8]) -> [ConnectionEvent] {
        if case .closed = state { return [] }
        buffer += bytes
        var events: [ConnectionEvent] = []
        var start = 0
        while buffer.count - start >= SMPLimits.blockSize {
            let block = Array(buffer[start..<start + SMPLimits.blockSize])
            start += SMPLimits.blockSize
            let e = handle(block)
            events.append(e)
            if case .close = e {
                state = .closed
                buffer = []
                return events
            }
        }
        buffer.removeFirst(start)
        return events
    }

    /// The stream ended: an error when it ended inside a block.
    public mutating func endOfStream() -> ConnectionCloseReason? {
        defer {
            state = .closed
            buffer = []
        }
        if case .closed = state { return nil }
        return buffer.isEmpty ? nil : .truncatedBlock(buffer.count)
    }

    /// The blocks carrying `transmissions`, batched in order.
    public mutating func seal(_ transmissions: [[UInt8]]) throws(BlockError) -> [UInt8] {
        guard case .established(let p, var framing) = state else { return [] }
        var out: [UInt8] = []
        for batch in try TransmissionBatch.group(transmissions) {
            out += try framing.seal(TransmissionBatch.encode(batch))
        }
        state = .established(p, framing)
        return out
    }

    private mutating func handle(_ block: [UInt8]) -> ConnectionEvent {
        switch state {
        case .closed:
            return .close(.block(.decryption))
        case .awaitingClientHello(let serverHello, let dhKey):
            let hello: ClientHello
            do { hello = try ClientHello(block: block) } catch { return .close(.handshake(error)) }
            // The identity before the version, as the reference checks them.
            guard hello.keyHash == keyHash else { return .close(.handshake(.identity)) }
            guard versions.contains(hello.version) else { return .close(.version(hello.version)) }
            guard hello.clientService == nil else { return .close(.handshake(.badService)) }
            let p = TransportParameters(version: hello.version, sessionId: serverHello.sessionId)
            var encryption: BlockEncryption?
            if hello.encryptsBlocks(with: serverHello), let clientKey = hello.authKey {
                guard let secret = try? dhKey.sharedSecret(with: clientKey) else { return .close(.handshake(.parse)) }
                encryption = .server(sessionId: serverHello.sessionId, secret: secret)
            }
            state = .established(p, BlockFraming(encryption: encryption))
            return .established(p)
        case .established(let p, var framing):
            let content: [UInt8]
            do { content = try framing.open(block) } catch {
                return .close(.block(error))
            }
            state = .established(p, framing)
            do { return .transmissions(try TransmissionBatch.parse(content)) } catch { return .unparsableBatch }
        }
    }
}
