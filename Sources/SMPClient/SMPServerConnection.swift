import Foundation
public import SMP
public import SimplexCrypto
public import SimplexEncoding
internal import SimplexNet
internal import SimplexTLS

/// How a client connects and how patient it is (smp.md §2.1, §2.7).
public struct SMPClientConfiguration: Sendable {
    /// TCP, TLS and the SMP handshake together.
    public var connectTimeout: Double
    public var timing: SMPConnectionTiming
    /// The port policy (smp.md §2.1): which servers are reached on 443 with `http/1.1`.
    public var webPort: WebPortServers
    /// The versions offered (smp.md §0.3).
    public var versions: VersionRange
    /// The first reconnect delay after a lost connection with subscriptions, doubled up to `maxReconnectDelay`.
    public var reconnectDelay: Double
    public var maxReconnectDelay: Double

    public init(
        connectTimeout: Double = 15, timing: SMPConnectionTiming = SMPConnectionTiming(), webPort: WebPortServers = .preset,
        versions: VersionRange = SMPVersion.supported, reconnectDelay: Double = 1, maxReconnectDelay: Double = 60
    ) {
        self.connectTimeout = connectTimeout
        self.timing = timing
        self.webPort = webPort
        self.versions = versions
        self.reconnectDelay = reconnectDelay
        self.maxReconnectDelay = maxReconnectDelay
    }
}

/// A queue this client subscribed to: what resubscribing and opening its messages need.
struct Subscriber {
    var recipientKey: Ed25519.PrivateKey
    var secret: X25519.SharedSecret
    var continuation: AsyncStream<SMPQueueEvent>.Continuation
}

/// One server's connection, shared by all the queues on it (smp.md §2): connects on first use, carries out the
/// actions of its `SMPConnectionMachine` over SimplexNet TCP and `SMPTLSConnection`, and after a loss reconnects
/// with back-off and subscribes every queue again.
public actor SMPServerConnection {
    public nonisolated let server: SMPServer
    private let configuration: SMPClientConfiguration
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant

    /// The live link, one per TCP connection; `generation` tells a late report from an old link apart.
    private final class Link {
        let tcp: TCPConnection
        let tls: SMPTLSConnection
        let generation: Int
        var machine: SMPConnectionMachine?
        var handshake: CheckedContinuation<Result<Void, SMPClientError>, Never>?
        init(tcp: TCPConnection, tls: SMPTLSConnection, generation: Int) {
            self.tcp = tcp
            self.tls = tls
            self.generation = generation
        }
    }

    private enum Waiter {
        /// A caller; a `MSG` answering its request goes to the queue's subscriber when `routesMessageTo` names one
        /// (an `ACK` on a subscribed queue).
        case call(CheckedContinuation<Result<SMPBrokerMessage, SMPClientError>, Never>, routesMessageTo: EntityId?)
        /// A `SUB` sent again after a reconnect.
        case resubscription(EntityId)

        func resume(_ result: Result<SMPBrokerMessage, SMPClientError>) {
            if case .call(let c, _) = self { c.resume(returning: result) }
        }
    }

    private var link: Link?
    private var connecting: Task<Result<Void, SMPClientError>, Never>?
    private var generation = 0
    private var waiters: [CorrId: Waiter] = [:]
    private var subscribers: [EntityId: Subscriber] = [:]
    private var reconnecting: Task<Void, Never>?
    private var isClosed = false
    /// The negotiated parameters of the current link.
    public private(set) var parameters: TransportParameters?

    public init(server: SMPServer, configuration: SMPClientConfiguration = SMPClientConfiguration()) {
        self.server = server
        self.configuration = configuration
        started = clock.now
    }

    private var now: Double {
        let d = started.duration(to: clock.now)
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    // MARK: Requests

    /// Sends one command and waits for its response; `ERR` is thrown as `.server`.
    public func request(
        _ command: SMPCommand, entityId: EntityId, key: Ed25519.PrivateKey?, routesMessageTo: EntityId? = nil
    ) async throws(SMPClientError) -> SMPBrokerMessage {
        try await connect()
        let request = SMPRequest(entityId: entityId, command: command, key: key)
        return try await withCheckedContinuation { (c: CheckedContinuation<Result<SMPBrokerMessage, SMPClientError>, Never>) in
            waiters[request.corrId] = .call(c, routesMessageTo: routesMessageTo)
            perform(request)
        }.get()
    }

    /// Subscribes to a queue (`SUB`, smp.md §3.8): its events go to the stream, and it is subscribed again after
    /// every reconnect until `END`, `DELD`, a permanent error or `unsubscribe`.
    public func subscribe(
        recipientId: EntityId, recipientKey: Ed25519.PrivateKey, secret: X25519.SharedSecret
    ) async throws(SMPClientError) -> AsyncStream<SMPQueueEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: SMPQueueEvent.self)
        subscribers[recipientId]?.continuation.finish()
        subscribers[recipientId] = Subscriber(recipientKey: recipientKey, secret: secret, continuation: continuation)
        do throws(SMPClientError) {
            let response = try await request(.sub, entityId: recipientId, key: recipientKey)
            switch response {
            case .ok, .sok: return stream
            default: throw SMPClientError.unexpectedResponse(response.tag)
            }
        } catch {
            subscribers.removeValue(forKey: recipientId)?.continuation.finish()
            throw error
        }
    }

    /// Forgets a queue's subscription locally (after `DEL`, say): no more events, no resubscription.
    public func unsubscribe(recipientId: EntityId) {
        subscribers.removeValue(forKey: recipientId)?.continuation.finish()
    }

    /// Whether a queue is in this connection's table.
    public func isSubscribed(_ recipientId: EntityId) -> Bool { subscribers[recipientId] != nil }

    /// Drops the current link (after a network change, say): requests in flight fail with `connectionLost`, and
    /// with subscriptions the client reconnects and subscribes them again.
    public func reconnect() {
        if let link { drop(link, .connectionLost) }
    }

    /// Ends the connection and every stream; later requests fail with `.closed`.
    public func close() {
        isClosed = true
        reconnecting?.cancel()
        reconnecting = nil
        if let link { drop(link, .closed) }
        for s in subscribers.values { s.continuation.finish() }
        subscribers = [:]
    }

    private func perform(_ request: SMPRequest) {
        guard let link, var machine = link.machine else {
            waiters.removeValue(forKey: request.corrId)?.resume(.failure(.connectionLost))
            return
        }
        let actions = machine.send([request], now: now)
        link.machine = machine
        carryOut(actions, link)
    }

    // MARK: Connecting

    /// Connects if there is no live link; concurrent callers share one attempt.
    private func connect() async throws(SMPClientError) {
        if isClosed { throw .closed }
        if link?.machine != nil { return }
        if let connecting {
            try await connecting.value.get()
            return
        }
        let task = Task { await self.establish() }
        connecting = task
        let result = await task.value
        connecting = nil
        try result.get()
    }

    private func establish() async -> Result<Void, SMPClientError> {
        let endpoint = server.endpoint(webPort: configuration.webPort)
        let host: String
        switch server.host {
        case .ipv4, .domain: host = server.host.text
        case .ipv6, .onion: return .failure(.hostNotServed(server.host.text))
        }
        let port = endpoint.port
        let timeout = configuration.connectTimeout
        let connected: Result<TCPConnection, NetError> = await Self.offThread {
            do throws(NetError) {
                let address = try IPv4Endpoint.resolve(host, port: port)[0]
                return .success(try TCPConnection.connect(to: address, timeout: timeout))
            } catch {
                return .failure(error)
            }
        }
        let tcp: TCPConnection
        switch connected {
        case .success(let t): tcp = t
        case .failure(let e): return .failure(.connect(e))
        }
        if isClosed {
            tcp.shutdown()
            return .failure(.closed)
        }
        try? tcp.enableKeepAlive()
        let tls: SMPTLSConnection
        do {
            let identity = try CertificateFingerprint(rawRepresentation: server.keyHash.bytes)
            tls = try SMPTLSConnection(serverIdentity: identity, webPort: endpoint.alpn == "http/1.1", now: Int64(time(nil)))
            try tls.start()
        } catch let e as TLSError {
            tcp.shutdown()
            return .failure(.tls(e))
        } catch {
            tcp.shutdown()
            return .failure(.transport(.handshake(.identity)))
        }
        generation += 1
        let link = Link(tcp: tcp, tls: tls, generation: generation)
        self.link = link
        startReading(link)
        startTicking(link)
        let sent = tls.takeOutgoing()
        return await withCheckedContinuation { (c: CheckedContinuation<Result<Void, SMPClientError>, Never>) in
            link.handshake = c
            write(sent, link)
            Task {
                try? await Task.sleep(for: .seconds(timeout))
                self.handshakeTimedOut(link)
            }
        }
    }

    private func handshakeTimedOut(_ link: Link) {
        guard link.handshake != nil else { return }
        drop(link, .timeout)
    }

    /// Runs blocking work on a thread of its own, off the cooperative pool.
    private static func offThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (c: CheckedContinuation<T, Never>) in
            Thread { c.resume(returning: body()) }.start()
        }
    }

    private func startReading(_ link: Link) {
        let (stream, continuation) = AsyncStream.makeStream(of: Result<[UInt8], NetError>.self)
        let tcp = link.tcp
        Thread {
            while true {
                do throws(NetError) {
                    continuation.yield(.success(try tcp.read()))
                } catch {
                    continuation.yield(.failure(error))
                    continuation.finish()
                    return
                }
            }
        }.start()
        Task {
            for await chunk in stream {
                switch chunk {
                case .success(let bytes): self.received(bytes, link)
                case .failure: self.drop(link, .connectionLost)
                }
            }
        }
    }

    private func startTicking(_ link: Link) {
        let interval = max(0.05, min(1, configuration.timing.responseTimeout / 4))
        Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(interval))
                guard self.tick(link) else { return }
            }
        }
    }

    /// False once the link is gone.
    private func tick(_ link: Link) -> Bool {
        guard self.link === link, var machine = link.machine else { return self.link === link }
        let actions = machine.tick(now: now)
        link.machine = machine
        carryOut(actions, link)
        return self.link === link
    }

    // MARK: Bytes

    private func received(_ bytes: [UInt8], _ link: Link) {
        guard self.link === link else { return }
        let events: [SMPTLSEvent]
        do { events = try link.tls.receive(bytes) } catch {
            write(link.tls.takeOutgoing(), link)
            drop(link, .tls(error))
            return
        }
        write(link.tls.takeOutgoing(), link)
        for event in events {
            guard self.link === link else { return }
            switch event {
            case .handshakeCompleted(let session):
                let facts = SMPTransportFacts(
                    sessionId: SessionId(session.sessionId), negotiatedProtocol: session.applicationProtocol != nil,
                    serverLeaf: session.serverLeaf)
                link.machine = SMPConnectionMachine(
                    keyHash: server.keyHash, facts: facts, versions: configuration.versions, timing: configuration.timing,
                    now: now)
            case .applicationData(let data):
                guard var machine = link.machine else { continue }
                let actions = machine.receive(data, now: now)
                link.machine = machine
                carryOut(actions, link)
            case .closed:
                drop(link, .connectionLost)
            }
        }
    }

    private func write(_ bytes: [UInt8], _ link: Link) {
        guard !bytes.isEmpty else { return }
        do { try link.tcp.write(bytes) } catch { drop(link, .connectionLost) }
    }

    private func carryOut(_ actions: [SMPConnectionMachine.Action], _ link: Link) {
        for action in actions {
            switch action {
            case .write(let blocks):
                do { try link.tls.send(blocks) } catch {
                    drop(link, .tls(error))
                    return
                }
                write(link.tls.takeOutgoing(), link)
            case .connected(let p, _):
                parameters = p
                link.handshake?.resume(returning: .success(()))
                link.handshake = nil
            case .response(let corrId, let result):
                switch waiters.removeValue(forKey: corrId) {
                case nil: continue
                case .resubscription(let id): resubscribed(id, result)
                case .call(let c, let route):
                    if case .success(.msg(let m)) = result, let id = route, let s = subscribers[id] {
                        s.continuation.yield(.message(SMPMessage(m, secret: s.secret)))
                        c.resume(returning: .success(.ok))
                    } else {
                        c.resume(returning: result)
                    }
                }
            case .event(let id, let event):
                guard let s = subscribers[id] else { continue }
                switch event {
                case .message(let m): s.continuation.yield(.message(SMPMessage(m, secret: s.secret)))
                case .end, .deleted:
                    s.continuation.yield(event == .end ? .end : .deleted)
                    s.continuation.finish()
                    subscribers[id] = nil
                }
            case .failed(let error):
                drop(link, error)
                return
            }
        }
    }

    /// Ends a link: its requests fail, its subscribers hear of it, and a reconnect starts if any remain.
    private func drop(_ link: Link, _ error: SMPClientError) {
        guard self.link === link else { return }
        self.link = nil
        parameters = nil
        link.machine = nil
        // One link at a time: every request in flight was on this one, and fails with what ended it.
        let waiting = waiters
        waiters = [:]
        for w in waiting.values { w.resume(.failure(error)) }
        link.tls.close()
        try? link.tcp.write(link.tls.takeOutgoing())
        link.tcp.shutdown()
        link.handshake?.resume(returning: .failure(error))
        link.handshake = nil
        guard !isClosed else { return }
        for s in subscribers.values { s.continuation.yield(.disconnected(error)) }
        if !subscribers.isEmpty { scheduleReconnect() }
    }

    private func scheduleReconnect() {
        guard reconnecting == nil else { return }
        let first = configuration.reconnectDelay
        let limit = configuration.maxReconnectDelay
        reconnecting = Task {
            var delay = first
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(delay))
                if await self.attemptReconnect() { return }
                delay = min(delay * 2, limit)
            }
        }
    }

    /// One reconnect attempt; true when it is over (connected and resubscribed, or nothing left to do).
    private func attemptReconnect() async -> Bool {
        if isClosed || subscribers.isEmpty {
            reconnecting = nil
            return true
        }
        do { try await connect() } catch { return false }
        reconnecting = nil
        resubscribeAll()
        return true
    }

    /// `SUB` for every queue in the table, in one batch (smp.md §2.7); each outcome goes to the queue's stream.
    private func resubscribeAll() {
        guard let link, var machine = link.machine else { return }
        var requests: [SMPRequest] = []
        for (id, s) in subscribers {
            let r = SMPRequest(entityId: id, command: .sub, key: s.recipientKey)
            requests.append(r)
            waiters[r.corrId] = .resubscription(id)
        }
        let actions = machine.send(requests, now: now)
        link.machine = machine
        carryOut(actions, link)
    }

    private func resubscribed(_ id: EntityId, _ result: Result<SMPBrokerMessage, SMPClientError>) {
        guard let s = subscribers[id] else { return }
        switch result {
        case .success(.ok), .success(.sok): s.continuation.yield(.resubscribed)
        case .success(let other): s.continuation.yield(.resubscriptionFailed(.unexpectedResponse(other.tag)))
        case .failure(let e):
            s.continuation.yield(.resubscriptionFailed(e))
            if case .server = e {
                s.continuation.finish()
                subscribers[id] = nil
            }
        }
    }
}
