import Foundation
import SMP
import SimplexCrypto
import SimplexEncoding
import SimplexNet
import SimplexTLS

/// An SMP server on 127.0.0.1 that breaks the protocol on purpose (smp.md §2.4–§2.6), for the client's bad-input
/// tests: its TLS is right (the client's TLS checks are tested elsewhere), then its hello or its answers are wrong in
/// the way `misbehaviour` says. It changes at any time, so that a test can let the client reconnect to an honest
/// server. Honest, it answers `PING` with `PONG` and every other command with `OK`.
final class MisbehavingServer: @unchecked Sendable {
    enum Misbehaviour: Sendable, Equatable {
        case none
        /// The TLS handshake completes, then no server hello comes.
        case silentHello
        /// A server hello with another session id than TLS's (smp.md §2.3).
        case wrongSessionId
        /// A server hello whose certificate chain is another server's: the identity is not the address's.
        case foreignIdentity
        /// A server hello whose DH key is signed by another key than the TLS leaf's.
        case badKeySignature
        /// Each command is answered with 16,384 random bytes instead of a block.
        case garbageBlock
        /// Each command is answered with the first half of its block, then the connection closes.
        case truncatedBlockThenClose
        /// Each command is answered with the first half of its block, then nothing.
        case truncatedBlockThenStall
        /// Each command is answered first with a response for a correlation id never sent, then rightly.
        case unknownCorrId
        /// Each command is answered with its correlation id but another queue's id.
        case otherEntity
        /// Each command is answered with a block whose batch says its transmission is longer than the block.
        case oversizeBatch
        /// Each command is answered with a block of 255 transmissions where the batch holds one.
        case shortBatch
        /// Commands are never answered.
        case stall
        /// The connection closes (TCP, without TLS close_notify) when a command arrives.
        case closeOnCommand
    }

    let credential: ServerCredential
    let listener: TCPListener
    let server: SMPServer
    private let lock = NSLock()
    private var current: Misbehaviour
    private var sockets: [TCPConnection] = []
    private var stopped = false
    private var accepted = 0

    init(_ misbehaviour: Misbehaviour) throws {
        credential = try ServerCredential.generate(algorithm: .ed25519, length: .two, now: Int64(Date().timeIntervalSince1970))
        listener = try TCPListener(address: "127.0.0.1")
        server = try SMPServer(
            hosts: [try TransportHost(parsing: "127.0.0.1")], port: String(listener.endpoint.port),
            keyHash: KeyHash(credential.fingerprint))
        current = misbehaviour
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    var misbehaviour: Misbehaviour {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }

    /// TCP connections accepted so far.
    var connections: Int { lock.withLock { accepted } }

    /// Closes the listener's connections; the listener stops accepting.
    func stop() {
        let open: [TCPConnection] = lock.withLock {
            stopped = true
            defer { sockets = [] }
            return sockets
        }
        for s in open { s.shutdown() }
    }

    private func acceptLoop() {
        while true {
            guard let socket = try? listener.accept(timeout: 0.2) else {
                if lock.withLock({ stopped }) { return }
                continue
            }
            let keep: Bool = lock.withLock {
                guard !stopped else { return false }
                sockets.append(socket)
                accepted += 1
                return true
            }
            guard keep else {
                socket.shutdown()
                return
            }
            Thread { [self] in serve(socket) }.start()
        }
    }

    // MARK: One connection

    private struct Established {
        var parameters: TransportParameters
        var framing: BlockFraming
    }

    private func serve(_ socket: TCPConnection) {
        defer { socket.shutdown() }
        guard let tls = try? SMPTLSConnection(credential: credential) else { return }
        var pending: [UInt8] = []
        var session: SMPTLSSession?
        // The TLS handshake.
        while session == nil {
            guard let bytes = try? socket.read() else { return }
            guard let events = try? tls.receive(bytes) else { return }
            try? socket.write(tls.takeOutgoing())
            for event in events {
                switch event {
                case .handshakeCompleted(let s): session = s
                case .applicationData(let d): pending += d
                case .closed: return
                }
            }
        }
        guard let session else { return }
        guard let (hello, dhKey) = serverHello(session) else {
            // No hello: the connection stays open and silent until the client gives up.
            while (try? socket.read()) != nil {}
            return
        }
        guard (try? tls.send(hello.block())) != nil else { return }
        try? socket.write(tls.takeOutgoing())

        var link: Established?
        while true {
            while pending.count >= SMPLimits.blockSize {
                let block = Array(pending.prefix(SMPLimits.blockSize))
                pending.removeFirst(SMPLimits.blockSize)
                if let established = link {
                    var e = established
                    guard let out = answer(block, &e) else { return }
                    link = e
                    guard send(out, tls, socket) else { return }
                } else {
                    guard let client = try? ClientHello(block: block) else { return }
                    var encryption: BlockEncryption?
                    if client.encryptsBlocks(with: hello), let key = client.authKey,
                        let secret = try? dhKey.sharedSecret(with: key)
                    {
                        encryption = .server(sessionId: SessionId(session.sessionId), secret: secret)
                    }
                    link = Established(
                        parameters: TransportParameters(version: client.version, sessionId: SessionId(session.sessionId)),
                        framing: BlockFraming(encryption: encryption))
                }
            }
            guard let bytes = try? socket.read() else { return }
            guard let events = try? tls.receive(bytes) else { return }
            try? socket.write(tls.takeOutgoing())
            for case .applicationData(let d) in events { pending += d }
        }
    }

    /// The hello this server sends, by its misbehaviour; nil for none at all.
    private func serverHello(_ session: SMPTLSSession) -> (ServerHello, X25519.PrivateKey)? {
        let dhKey = X25519.PrivateKey()
        var sessionId = SessionId(session.sessionId)
        var chain = credential.chain
        var signedKey = SignedServerKey.sign(dhKey.publicKey, with: credential.leafKey)
        switch misbehaviour {
        case .silentHello: return nil
        case .wrongSessionId: sessionId = SessionId(SecureRandom.bytes(session.sessionId.count))
        case .foreignIdentity:
            guard let other = try? ServerCredential.generate(algorithm: .ed25519, length: .two, now: 0) else { return nil }
            chain = other.chain
        case .badKeySignature: signedKey = SignedServerKey.sign(dhKey.publicKey, with: CertificateKey(generating: .ed25519))
        default: break
        }
        let hello = ServerHello(
            versionRange: SMPVersion.supported, sessionId: sessionId,
            authKey: CertChainPublicKey(certificates: chain, signedKey: signedKey))
        return (hello, dhKey)
    }

    /// What goes back for one client block, by the misbehaviour: `.bytes` to write, then `.close` or `.stall`; nil
    /// ends the connection at once.
    private enum Output {
        case bytes([UInt8])
        case bytesThenClose([UInt8])
        case nothing
    }

    private func answer(_ block: [UInt8], _ link: inout Established) -> Output? {
        guard let transmissions = try? link.framing.openTransmissions(block) else { return nil }
        let p = link.parameters
        let commands = transmissions.map { Transmissions.decodeCommand($0, parameters: p) }
        func response(_ corrId: CorrId, _ entityId: EntityId, _ command: SMPCommand?) -> [UInt8] {
            let message: SMPBrokerMessage = command == .ping ? .pong : .ok
            return (try? Transmissions.encodeResponse(corrId: corrId, entityId: entityId, message: message, parameters: p))
                ?? []
        }
        let honest = commands.map { response($0.corrId, $0.entityId, try? $0.message.get().command) }
        func sealed(_ transmissions: [[UInt8]]) -> [UInt8] {
            ((try? link.framing.seal(transmissions: transmissions)) ?? []).flatMap { $0 }
        }
        switch misbehaviour {
        case .none, .silentHello, .wrongSessionId, .foreignIdentity, .badKeySignature:
            return .bytes(sealed(honest))
        case .garbageBlock:
            return .bytes(SecureRandom.bytes(SMPLimits.blockSize))
        case .truncatedBlockThenClose:
            return .bytesThenClose(Array(sealed(honest).prefix(SMPLimits.blockSize / 2)))
        case .truncatedBlockThenStall:
            return .bytes(Array(sealed(honest).prefix(SMPLimits.blockSize / 2)))
        case .unknownCorrId:
            let strays = commands.map { response(CorrId.random(), $0.entityId, nil) }
            return .bytes(sealed(strays) + sealed(honest))
        case .otherEntity:
            return .bytes(sealed(commands.map { response($0.corrId, EntityId(SecureRandom.bytes(24)), nil) }))
        case .oversizeBatch:
            // One transmission whose two-byte length (65,535) runs past the block.
            return (try? link.framing.seal([1, 0xff, 0xff] + [UInt8](repeating: 0, count: 64))).map { .bytes($0) }
        case .shortBatch:
            let t = honest.first ?? []
            let content = [255, UInt8(t.count >> 8), UInt8(t.count & 0xff)] + t
            return (try? link.framing.seal(content)).map { .bytes($0) }
        case .stall:
            return .nothing
        case .closeOnCommand:
            return nil
        }
    }

    /// False when the connection is to end.
    private func send(_ output: Output, _ tls: SMPTLSConnection, _ socket: TCPConnection) -> Bool {
        switch output {
        case .nothing: return true
        case .bytes(let b):
            guard (try? tls.send(b)) != nil else { return false }
            return (try? socket.write(tls.takeOutgoing())) != nil
        case .bytesThenClose(let b):
            if (try? tls.send(b)) != nil { try? socket.write(tls.takeOutgoing()) }
            return false
        }
    }
}
