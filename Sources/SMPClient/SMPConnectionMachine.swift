public import SMP
public import SimplexCrypto
public import SimplexEncoding

/// What the TLS handshake established that the SMP handshake checks (smp.md §2.2–§2.4).
public struct SMPTransportFacts: Sendable {
    /// `tls-unique`: the client's Finished (smp.md §2.3).
    public var sessionId: SessionId
    /// Whether ALPN chose a protocol; without one a server offers only version 6 (smp.md §2.4).
    public var negotiatedProtocol: Bool
    /// The server's TLS leaf, whose key signs the handshake's DH key.
    public var serverLeaf: Certificate?

    public init(sessionId: SessionId, negotiatedProtocol: Bool, serverLeaf: Certificate?) {
        self.sessionId = sessionId
        self.negotiatedProtocol = negotiatedProtocol
        self.serverLeaf = serverLeaf
    }
}

/// Timing of one connection (smp.md §2.7), in seconds.
public struct SMPConnectionTiming: Sendable, Equatable {
    /// How long a command waits for its response.
    public var responseTimeout: Double
    /// With subscriptions, a `PING` after this long without anything received.
    public var pingInterval: Double
    /// Consecutive timeouts (of commands or pings) after which the connection is dropped.
    public var maxConsecutiveTimeouts: Int

    public init(responseTimeout: Double = 15, pingInterval: Double = 600, maxConsecutiveTimeouts: Int = 3) {
        self.responseTimeout = responseTimeout
        self.pingInterval = pingInterval
        self.maxConsecutiveTimeouts = maxConsecutiveTimeouts
    }
}

/// A command to send on a connection: its correlation id, the queue it addresses and the key that signs it.
public struct SMPRequest: Sendable {
    public var corrId: CorrId
    public var entityId: EntityId
    public var command: SMPCommand
    public var key: Ed25519.PrivateKey?

    public init(corrId: CorrId = .random(), entityId: EntityId, command: SMPCommand, key: Ed25519.PrivateKey?) {
        self.corrId = corrId
        self.entityId = entityId
        self.command = command
        self.key = key
    }
}

/// The SMP protocol of one client connection after TLS (smp.md §2.4–§2.7, §3.1–§3.4), with no I/O: bytes from the
/// TLS stream and the clock in, actions out. Its driver (one actor per connection) writes `.write` to TLS and
/// hands responses and events to their callers and subscribers.
///
///     TLS established ── receive(server hello block) ──▶ checks: session id, version range, identity, signed DH key
///                        ◀── .write(client hello) .connected(parameters), then the requests queued meanwhile
///     established ─────── send(requests) ──▶ .write(blocks: batches of transmissions, each signed by its key)
///                         receive(blocks) ──▶ .response(corrId, …) for requests · .event(recipientId, MSG|END|DELD)
///                                             for the queues subscribed on this connection
///                         tick(now) ──▶ .response(corrId, .timeout) · PING when idle with subscriptions
///     any failure ───────▶ .failed(error) once; pending requests answered with the same error
///
/// Subscriptions (smp.md §3.8): a queue enters the table when its `SUB` is sent and leaves it on `END`, `DELD` or
/// a failed `SUB`; events for queues not in the table are dropped.
public struct SMPConnectionMachine {
    /// What the driver must do.
    public enum Action: Sendable {
        /// Write these bytes (whole blocks) to TLS.
        case write([UInt8])
        /// The handshake completed at these parameters (version, session id).
        case connected(TransportParameters, blockEncryption: Bool)
        /// The outcome of a request: its response (not `ERR`, which is a failure) or why it failed.
        case response(CorrId, Result<SMPBrokerMessage, SMPClientError>)
        /// An event for a queue subscribed on this connection.
        case event(EntityId, SMPServerEvent)
        /// The connection is unusable; close it. Reported once.
        case failed(SMPClientError)
    }

    /// An event pushed by the server (empty correlation id, smp.md §3.4).
    public enum SMPServerEvent: Sendable, Equatable {
        case message(ReceivedMessage)
        case end
        case deleted
    }

    private enum State {
        case awaitingServerHello
        case established(TransportParameters, BlockFraming)
        case failed
    }

    private struct Pending {
        var entityId: EntityId
        var tag: String
        var deadline: Double
        var isPing: Bool
    }

    private let keyHash: KeyHash
    private let facts: SMPTransportFacts
    private let versions: VersionRange
    private let dhKey: X25519.PrivateKey
    public let timing: SMPConnectionTiming
    private var state = State.awaitingServerHello
    private var buffer: [UInt8] = []
    private var queued: [SMPRequest] = []
    private var pending: [CorrId: Pending] = [:]
    /// The queues subscribed on this connection (recipient ids), `SUB`s in flight included.
    public private(set) var subscriptions: Set<EntityId> = []
    private var lastReceived: Double
    private var consecutiveTimeouts = 0

    /// A connection to the server `keyHash` names, over a TLS session with `facts`, offering `versions`; `dhKey` is
    /// this connection's fresh X25519 key for block encryption (smp.md §2.4, §2.6); `now` starts the clock.
    public init(
        keyHash: KeyHash, facts: SMPTransportFacts, versions: VersionRange = SMPVersion.supported,
        dhKey: X25519.PrivateKey = X25519.PrivateKey(), timing: SMPConnectionTiming = SMPConnectionTiming(), now: Double
    ) {
        self.keyHash = keyHash
        self.facts = facts
        self.versions = versions
        self.dhKey = dhKey
        self.timing = timing
        lastReceived = now
    }

    /// The parameters once the handshake completed.
    public var parameters: TransportParameters? {
        if case .established(let p, _) = state { return p }
        return nil
    }

    /// Requests waiting for their response.
    public var pendingCount: Int { pending.count }

    // MARK: Events

    /// Bytes of the TLS stream.
    public mutating func receive(_ bytes: [UInt8], now: Double) -> [Action] {
        if case .failed = state { return [] }
        buffer += bytes
        var out: [Action] = []
        var offset = 0
        while buffer.count - offset >= SMPLimits.blockSize {
            let block = Array(buffer[offset..<offset + SMPLimits.blockSize])
            offset += SMPLimits.blockSize
            lastReceived = now
            consecutiveTimeouts = 0
            out += receiveBlock(block, now: now)
            if case .failed = state { return out }
        }
        buffer.removeFirst(offset)
        return out
    }

    /// Sends requests: at once in as few blocks as fit once the handshake is done, else after it.
    public mutating func send(_ requests: [SMPRequest], now: Double) -> [Action] {
        send(requests, now: now, keepAlive: false)
    }

    private mutating func send(_ requests: [SMPRequest], now: Double, keepAlive: Bool) -> [Action] {
        switch state {
        case .failed:
            return requests.map { .response($0.corrId, .failure(.connectionLost)) }
        case .awaitingServerHello:
            queued += requests
            return []
        case .established(let p, var framing):
            var transmissions: [[UInt8]] = []
            var out: [Action] = []
            for r in requests {
                do {
                    transmissions.append(
                        try Transmissions.encodeCommand(
                            corrId: r.corrId, entityId: r.entityId, command: r.command, parameters: p, signedWith: r.key))
                } catch {
                    out.append(.response(r.corrId, .failure(.invalidCommand("\(error)"))))
                    continue
                }
                if case .sub = r.command { subscriptions.insert(r.entityId) }
                pending[r.corrId] = Pending(
                    entityId: r.entityId, tag: r.command.tag, deadline: now + timing.responseTimeout, isPing: keepAlive)
            }
            guard !transmissions.isEmpty else { return out }
            do {
                let blocks = try framing.seal(transmissions: transmissions)
                state = .established(p, framing)
                out.append(.write(blocks.flatMap { $0 }))
            } catch {
                // Only a transmission larger than a block fails here; the others were not sent either.
                for r in requests where pending.removeValue(forKey: r.corrId) != nil {
                    if case .sub = r.command { subscriptions.remove(r.entityId) }
                    out.append(.response(r.corrId, .failure(.invalidCommand("\(error)"))))
                }
            }
            return out
        }
    }

    /// The clock: times out requests, sends `PING` on an idle connection with subscriptions (smp.md §2.7).
    public mutating func tick(now: Double) -> [Action] {
        guard case .established = state else {
            if case .awaitingServerHello = state, now - lastReceived > timing.responseTimeout {
                return fail(.timeout)
            }
            return []
        }
        var out: [Action] = []
        for (corrId, p) in pending where p.deadline <= now {
            pending[corrId] = nil
            consecutiveTimeouts += 1
            if !p.isPing { out.append(.response(corrId, .failure(.timeout))) }
        }
        if consecutiveTimeouts >= timing.maxConsecutiveTimeouts { return out + fail(.timeout) }
        if !subscriptions.isEmpty, now - lastReceived >= timing.pingInterval, !pending.values.contains(where: \.isPing) {
            out += send([SMPRequest(entityId: .empty, command: .ping, key: nil)], now: now, keepAlive: true)
        }
        return out
    }

    /// The TLS stream ended or failed: pending requests fail with `error`.
    public mutating func connectionClosed(_ error: SMPClientError = .connectionLost) -> [Action] {
        fail(error)
    }

    // MARK: Blocks

    private mutating func receiveBlock(_ block: [UInt8], now: Double) -> [Action] {
        switch state {
        case .failed: return []
        case .awaitingServerHello: return serverHello(block, now: now)
        case .established(let p, var framing):
            let transmissions: [[UInt8]]
            do {
                transmissions = try framing.openTransmissions(block)
            } catch {
                return fail(.transport(error.transportError))
            }
            state = .established(p, framing)
            var out: [Action] = []
            for t in transmissions { out += transmission(Transmissions.decodeResponse(t, parameters: p)) }
            return out
        }
    }

    /// The server hello (smp.md §2.4): checked, then answered with the client hello, and the queued requests sent.
    private mutating func serverHello(_ block: [UInt8], now: Double) -> [Action] {
        let hello: ServerHello
        do { hello = try ServerHello(block: block) } catch { return fail(.transport(.handshake(error))) }
        guard hello.sessionId == facts.sessionId else { return fail(.transport(.session)) }
        let offered = facts.negotiatedProtocol ? versions : SMPVersion.legacyServerRange
        guard let version = ClientHello.negotiate(server: hello.versionRange, client: offered) else {
            return fail(.transport(.version))
        }
        var serverKey: X25519.PublicKey?
        if version >= SMPVersion.authCommands {
            guard let auth = hello.authKey else { return fail(.transport(.noAuth)) }
            guard (2...4).contains(auth.certificates.count), keyHash.identifies(auth.certificates[1].fingerprint) else {
                return fail(.transport(.handshake(.identity)))
            }
            let signed = auth.signedKey
            guard let leaf = facts.serverLeaf, leaf.isValidSignature(signed.signature, for: signed.signedBytes) else {
                return fail(.transport(.handshake(.badAuth)))
            }
            serverKey = signed.unverifiedKey
        }
        let clientHello = ClientHello(
            version: version, keyHash: keyHash, authKey: version >= SMPVersion.authCommands ? dhKey.publicKey : nil)
        let helloBlock: [UInt8]
        do { helloBlock = try clientHello.block() } catch { return fail(.transport(.handshake(error))) }
        var encryption: BlockEncryption?
        if clientHello.encryptsBlocks(with: hello), let serverKey {
            guard let secret = try? dhKey.sharedSecret(with: serverKey) else { return fail(.transport(.handshake(.badAuth))) }
            encryption = .client(sessionId: facts.sessionId, secret: secret)
        }
        let p = TransportParameters(version: version, sessionId: facts.sessionId)
        state = .established(p, BlockFraming(encryption: encryption))
        var out: [Action] = [.write(helloBlock), .connected(p, blockEncryption: encryption != nil)]
        let waiting = queued
        queued = []
        if !waiting.isEmpty { out += send(waiting, now: now) }
        return out
    }

    private mutating func transmission(_ t: SMPTransmission<SMPBrokerMessage>) -> [Action] {
        if t.corrId.isEmpty {
            // An event: MSG, END or DELD for a queue of this connection.
            guard subscriptions.contains(t.entityId), case .success(let message) = t.message else { return [] }
            switch message {
            case .msg(let m): return [.event(t.entityId, .message(m))]
            case .end:
                subscriptions.remove(t.entityId)
                return [.event(t.entityId, .end)]
            case .deld:
                subscriptions.remove(t.entityId)
                return [.event(t.entityId, .deleted)]
            default: return []
            }
        }
        guard let request = pending.removeValue(forKey: t.corrId) else { return [] }  // late, after a timeout
        let result: Result<SMPBrokerMessage, SMPClientError>
        switch t.message {
        case .success(.err(let e)): result = .failure(.server(e))
        case .success(let m):
            // ERR and IDS may name any entity; every other response names the request's.
            if case .ids = m {
                result = .success(m)
            } else if t.entityId != request.entityId {
                result = .failure(.unexpectedResponse("\(m.tag) for another entity"))
            } else {
                result = .success(m)
            }
        case .failure(let e): result = .failure(.unexpectedResponse("unparsable response: \(e)"))
        }
        if request.tag == "SUB" {
            switch result {
            case .success(.ok), .success(.sok): break
            default: subscriptions.remove(request.entityId)
            }
        }
        if request.isPing { return [] }
        return [.response(t.corrId, result)]
    }

    private mutating func fail(_ error: SMPClientError) -> [Action] {
        if case .failed = state { return [] }
        state = .failed
        var out: [Action] = []
        // The requests in flight fail with what ended the connection.
        for corrId in pending.filter({ !$0.value.isPing }).keys { out.append(.response(corrId, .failure(error))) }
        for r in queued { out.append(.response(r.corrId, .failure(error))) }
        pending = [:]
        queued = []
        subscriptions = []
        buffer = []
        return out + [.failed(error)]
    }
}
