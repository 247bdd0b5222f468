internal import AgentProtocol
internal import Ratchet
public import SMP
public import SMPClient
internal import SimplexCrypto
internal import SimplexEncoding

#if canImport(Glibc)
    import Glibc
#endif

/// Where the agent makes its queues and how patient its deliveries are.
public struct AgentConfiguration: Sendable {
    /// The server of our own queues (invitations, reply queues).
    public var server: SMPServer
    public var client: SMPClientConfiguration
    /// The first wait after a network failure of a delivery, doubled up to `maxRetryInterval` (seconds).
    public var retryInterval: Double
    public var maxRetryInterval: Double
    /// How long a delivery held up by `QUOTA` waits for the peer's `A_QCONT` before it tries again (seconds). The
    /// retry matters when both directions are full at once: each side's `A_QCONT` then waits behind its own held-up
    /// message, while the queue it waits for was drained already.
    public var quotaRetryInterval: Double

    public init(
        server: SMPServer, client: SMPClientConfiguration = SMPClientConfiguration(), retryInterval: Double = 1,
        maxRetryInterval: Double = 60, quotaRetryInterval: Double = 300
    ) {
        self.server = server
        self.client = client
        self.retryInterval = retryInterval
        self.maxRetryInterval = maxRetryInterval
        self.quotaRetryInterval = quotaRetryInterval
    }
}

/// The SMP agent (simplexmq's `Agent`, smp.md §4): duplex connections over SMP queues, made with the fast duplex
/// handshake (`HandshakeMachine`), their messages end-to-end encrypted with the double ratchet. Everything it knows
/// is in its store, written before it acts on it: a send is stored before `sendMessage` returns and delivered by one
/// worker per send queue, in order, with retries; a received message is ACKed to its server only after the layer
/// above acknowledged it (`ackMessage`) or, for what only the agent reads, after it was stored.
public actor Agent {
    /// The events, in the order they happened.
    public nonisolated let events: AsyncStream<AgentEvent>
    private let emitter: AsyncStream<AgentEvent>.Continuation
    private let store: AgentStoreActor
    private let client: SMPClient
    private let configuration: AgentConfiguration

    private var workers: [SndQueueId: Task<Void, Never>] = [:]
    private var idle: [SndQueueId: CheckedContinuation<Void, Never>] = [:]
    private var woken: Set<SndQueueId> = []
    private var listeners: [RcvQueueId: Task<Void, Never>] = [:]
    /// Held-up messages `MWARN` was emitted for, once each.
    private var warned: Set<[UInt8]> = []
    private var isClosed = false

    public init(store: AgentStoreActor, configuration: AgentConfiguration) {
        self.store = store
        self.configuration = configuration
        client = SMPClient(configuration: configuration.client)
        (events, emitter) = AsyncStream.makeStream(of: AgentEvent.self)
    }

    // MARK: Start and stop

    /// Subscribes every receive queue of the connections not deleted (`subscribeAll`) and starts the delivery of
    /// every pending send. A server that cannot be reached is reported as `DOWN` of its connections, not thrown: its
    /// queues are subscribed again when it comes back.
    public func start() async throws(AgentError) {
        let subscriptions = try await read { (s) throws(AgentStoreError) in try s.subscriptions() }
        let ids = subscriptions.flatMap { $0.queues.map(\.queueId) }
        let queues = try await read { (s) throws(AgentStoreError) in
            try ids.map { (id) throws(AgentStoreError) in try s.rcvQueue(id) }
        }
        // Concurrently, so that the SUBs of one server go out together instead of one round trip each.
        await withTaskGroup(of: Void.self) { group in
            for rq in queues {
                group.addTask {
                    do throws(AgentError) { try await self.listen(rq) } catch {
                        await self.emit(.down(rq.server, [rq.connId]))
                    }
                }
            }
        }
        let pending = try await read { (s) throws(AgentStoreError) in try s.sndQueuesWithPendingSends() }
        for q in pending { wake(q) }
    }

    /// Stops the workers and listeners and closes the server connections; the store stays open.
    public func close() async {
        isClosed = true
        for t in workers.values { t.cancel() }
        for t in listeners.values { t.cancel() }
        for c in idle.values { c.resume() }
        idle = [:]
        await client.close()
        emitter.finish()
    }

    // MARK: Commands

    /// A one-time invitation (`createConnection`, smp.md §4.5 "A — create"): our queue, our X3DH keys, the link.
    public func createConnection() async throws(AgentError) -> (AgentConnId, String) {
        try checkOpen()
        let (queue, e2eKey) = try await newQueue(mode: .messaging)
        let a1 = X448.PrivateKey()
        let a2 = X448.PrivateKey()
        let new = NewConnection.invitation(
            rcvQueue: queue, x3dhKeys: StoredX3DHKeys(key1: StoredX448Key(a1), key2: StoredX448Key(a2)),
            agentVersion: AgentVersion.current)
        let (conn, uri) = try await storeAndListen(new, queue, e2eKey, mode: .messaging)
        let link = ConnectionRequest.invitation(
            ConnectionRequestData(agentVersions: AgentVersion.supported, queue: uri),
            E2ERatchetParamsURI(versions: E2EVersion.supported, key1: a1.publicKey, key2: a2.publicKey))
        return (conn.id, link.text)
    }

    /// A contact address (smp.md §4.6 "O — create"): a queue in contact mode that anyone may send requests to;
    /// each arrives as `REQ`.
    public func createAddress() async throws(AgentError) -> (AgentConnId, String) {
        try checkOpen()
        let (queue, e2eKey) = try await newQueue(mode: .contact)
        let new = NewConnection.contactAddress(rcvQueue: queue, agentVersion: AgentVersion.current)
        let (conn, uri) = try await storeAndListen(new, queue, e2eKey, mode: .contact)
        return (conn.id, ConnectionRequest.contact(ConnectionRequestData(agentVersions: AgentVersion.supported, queue: uri)).text)
    }

    /// Accepts a contact request (`acceptContact`, smp.md §4.6 "O — receive"): joins the requester's invitation with
    /// `connInfo`; the new connection's `CON` follows as for any join.
    public func acceptContact(invitationId: [UInt8], connInfo: [UInt8]) async throws(AgentError) -> AgentConnId {
        try checkOpen()
        let request = try await read { (s) throws(AgentStoreError) in try s.addressRequest(invitationId) }
        guard !request.accepted else { throw .prohibited("request already accepted") }
        let conn = try await joinConnection(request.invitationLink, connInfo: connInfo)
        try await read { (s) throws(AgentStoreError) in
            try s.acceptAddressRequest(invitationId, ownConnInfo: connInfo, joinedConnection: conn)
        }
        return conn
    }

    /// Rejects a contact request: it is forgotten, the requester hears nothing.
    public func rejectContact(invitationId: [UInt8]) async throws(AgentError) {
        try checkOpen()
        try await read { (s) throws(AgentStoreError) in try s.deleteAddressRequest(invitationId) }
    }

    /// Joins a link (`joinConnection`). A one-time invitation (smp.md §4.5 "B — join"): secures the initiator's
    /// queue with our key, makes the reply queue and queues our confirmation with `connInfo`; `CON` follows when the
    /// initiator's confirmation arrives. A contact address (§4.6 "R"): a new invitation of our own goes to the
    /// address with `connInfo`; its owner joins it, and this connection goes on as one we created (`CONF`, then
    /// `allowConnection`).
    public func joinConnection(_ link: String, connInfo: [UInt8]) async throws(AgentError) -> AgentConnId {
        try checkOpen()
        let request: ConnectionRequest
        let versions: JoinVersions
        do {
            request = try ConnectionRequest(parsing: link)
            versions = try request.agreeVersions()
        } catch { throw .agent(error) }
        guard case .invitation(let data, let e2e) = request, let e2eVersion = versions.e2e else {
            return try await requestContact(request, versions, connInfo: connInfo)
        }
        let address = data.queues[0].address
        guard address.queueMode == .messaging else {
            throw .notServed("a queue its sender cannot secure (the legacy handshake with HELLO)")
        }
        let senderKey = Ed25519.PrivateKey()
        let e2eKey = X25519.PrivateKey()
        let own = E2EPrivateKeys(key1: X448.PrivateKey(), key2: X448.PrivateKey())
        let secret: X25519.SharedSecret
        let ratchet: RatchetState
        do {
            secret = try e2eKey.sharedSecret(with: address.dhPublicKey)
            ratchet = try RatchetState(
                joining: e2e.params(version: e2eVersion), own: own, ratchetKey: X448.PrivateKey(),
                versions: RatchetVersions(current: e2eVersion))
        } catch { throw .agent(.prohibited("join: \(error)")) }
        let sndQueue = NewSndQueue(
            server: address.server, senderId: address.senderId, mode: .messaging,
            senderAuthKey: StoredEd25519Key(senderKey), e2eKey: StoredX25519Key(e2eKey), e2ePublicKey: e2eKey.publicKey,
            e2eDHSecret: secret, smpClientVersion: versions.smpClient)
        let new = NewConnection(
            mode: .invitation, status: .joined, step: .joinStarted, agentVersion: versions.agent,
            x3dhKeys: StoredX3DHKeys(key1: StoredX448Key(own.key1), key2: StoredX448Key(own.key2)),
            ratchet: StoredRatchet(ratchet), sndQueue: sndQueue)
        let now = Self.now()
        let conn = try await read { (s) throws(AgentStoreError) in try s.createConnection(new, now: now) }
        do throws(AgentError) {
            for action in try machine(conn.step, .joined) {
                switch action {
                case .secureSendQueue:
                    try await secure(conn.sndQueues[0])
                case .createReplyQueue:
                    let (queue, _) = try await newQueue(mode: .messaging)
                    let rq = try await read { (s) throws(AgentStoreError) in try s.addRcvQueue(conn.id, queue) }
                    try await listen(rq)
                case .enqueueConfirmation:
                    let rq = try await read { (s) throws(AgentStoreError) in try s.connection(conn.id).rcvQueues[0] }
                    let reply = SMPQueueInfo(
                        clientVersion: versions.smpClient,
                        address: SMPQueueAddress(
                            server: rq.server, senderId: rq.senderId, dhPublicKey: try publicKey(rq.e2eDHKey),
                            queueMode: .messaging))
                    try await enqueue(
                        conn.id,
                        .confirmation(.connInfoReply(queues: [reply], connInfo: connInfo), own.params(version: e2eVersion)),
                        kind: .confirmation, notification: true)
                default:
                    throw .prohibited("join: unexpected \(action)")
                }
            }
        } catch {
            // Nothing of a join that failed half-way is of use: the link may be tried again.
            await stopListening(conn.id)
            try? await read { (s) throws(AgentStoreError) in try s.deleteConnection(conn.id) }
            throw error
        }
        return conn.id
    }

    /// Allows a connection whose joiner's confirmation arrived (`allowConnection`, smp.md §4.5 "A — allow"): our
    /// confirmation with `connInfo` is queued to the joiner's reply queue, which the delivery secures first; `CON`
    /// follows when the server accepts it.
    public func allowConnection(_ connId: AgentConnId, confirmationId: String, connInfo: [UInt8]) async throws(AgentError) {
        try checkOpen()
        let conn = try await read { (s) throws(AgentStoreError) in try s.connection(connId) }
        guard let id = Int64(confirmationId),
            let confirmation = try? await read({ (s) throws(AgentStoreError) in
                try s.receivedMessage(connId, InternalMessageId(id))
            }), confirmation.kind == .confirmation
        else { throw .prohibited("allow: no confirmation \(confirmationId) on \(connId)") }
        var step: (ConnectionStatus, HandshakeStep)?
        for action in try machine(conn.step, .allowed) {
            switch action {
            case .setStep(let status, let s): step = (status, s)
            case .enqueueConfirmation:
                try await enqueue(
                    connId, .confirmation(.connInfo(connInfo), nil), kind: .confirmation, notification: true, step: step)
            default: throw .prohibited("allow: unexpected \(action)")
            }
        }
    }

    /// Queues a chat message (`sendMessage`, smp.md §4.7): stored with its ratchet step before this returns, then
    /// delivered in order; `SENT` follows when the server accepted it. Its id is what `SENT`, `MERR` and receipts
    /// name.
    public func sendMessage(_ connId: AgentConnId, body: [UInt8], notification: Bool = true) async throws(AgentError)
        -> InternalMessageId
    {
        try checkOpen()
        return try await enqueue(connId, .message(.msg(body)), kind: .message, notification: notification).internalId
    }

    /// The layer above stored a received message (`ackMessage`): the server gets its `ACK`, and with `receipt` the
    /// peer a delivery receipt for it (smp.md §4.9).
    public func ackMessage(_ connId: AgentConnId, _ msgId: InternalMessageId, receipt: Bool = false) async throws(AgentError) {
        try checkOpen()
        let message = try await read { (s) throws(AgentStoreError) in try s.acknowledge(connId, msgId) }
        guard message.ack != .serverAcked else { return }
        let rq = try await read { (s) throws(AgentStoreError) in try s.rcvQueue(message.queueId) }
        try await ackOnServer(rq, message.serverMsgId, stored: (connId, msgId))
        if receipt, message.kind == .message {
            let r = AMessageReceipt(agentMsgId: Int64(message.externalSndId), msgHash: message.hash.bytes)
            try await enqueue(connId, .message(.rcvd([r])), kind: .receipt, notification: false)
        }
    }

    /// Deletes a connection: its queues on our servers, then everything the store has of it.
    public func deleteConnection(_ connId: AgentConnId) async throws(AgentError) {
        try checkOpen()
        let conn = try await read { (s) throws(AgentStoreError) in
            let c = try s.connection(connId)
            try s.markConnectionDeleted(connId)
            return c
        }
        await stopListening(connId)
        for q in conn.sndQueues {
            workers.removeValue(forKey: q.id)?.cancel()
            idle.removeValue(forKey: q.id)?.resume()
        }
        for rq in conn.rcvQueues {
            let queue = try recipient(rq)
            do { try await client.delete(queue) } catch SMPClientError.server(.auth) {
                // Deleted before.
            } catch { throw .smp(error) }
        }
        try await read { (s) throws(AgentStoreError) in try s.deleteConnection(connId) }
    }

    /// Sends our new invitation to an address in the one-shot box of smp.md §4.6 R.2, unsigned.
    private func requestContact(_ request: ConnectionRequest, _ versions: JoinVersions, connInfo: [UInt8])
        async throws(AgentError) -> AgentConnId
    {
        let address = request.data.queues[0].address
        let (connId, link) = try await createConnection()
        do throws(AgentError) {
            let invitation: InvitationRequest
            let body: [UInt8]
            do {
                invitation = try InvitationRequest(parsing: link)
                body = try AgentSealing.sealInvitation(
                    invitation, connInfo: connInfo, agentVersion: versions.agent, clientVersion: versions.smpClient,
                    addressKey: address.dhPublicKey, ephemeralKey: X25519.PrivateKey(), nonce: .random())
            } catch { throw .agent(error) }
            do {
                try await client.send(
                    to: SenderQueue(server: address.server, senderId: address.senderId), senderKey: nil, body: body,
                    notification: true)
            } catch { throw .smp(error) }
        } catch {
            try? await deleteConnection(connId)
            throw error
        }
        return connId
    }

    /// A request on our address: stored, then `REQ`, then the `ACK` (smp.md §4.6 "O — receive").
    private func receiveRequest(_ invitation: InvitationRequest, connInfo: [UInt8], _ rq: RcvQueue, _ msgId: MsgId)
        async throws(AgentError)
    {
        let (connId, link, now) = (rq.connId, invitation.connectionRequest.text, Self.now())
        let request = try await read { (s) throws(AgentStoreError) in
            try s.createAddressRequest(connId, invitationLink: link, connInfo: connInfo, now: now)
        }
        emit(.req(connId, invitationId: request.invitationId, connInfo: connInfo))
        try await ackOnServer(rq, msgId, stored: nil)
    }

    // MARK: Handshake

    private func machine(_ step: HandshakeStep, _ input: HandshakeInput) throws(AgentError) -> [HandshakeAction] {
        do { return try HandshakeMachine.next(step, input) } catch { throw .prohibited(error.description) }
    }

    /// `SKEY` (smp.md §4.5 B.4): the queue is ours to sign for from now on.
    private func secure(_ queue: SndQueue) async throws(AgentError) {
        guard let key = queue.senderAuthKey else { return }
        let sender = SenderQueue(server: queue.server, senderId: queue.senderId)
        let senderKey = try privateKey(key)
        do { try await client.secure(sender, senderKey: senderKey) } catch { throw .smp(error) }
        try await read { (s) throws(AgentStoreError) in try s.setSndQueueStatus(queue.id, .secured) }
    }

    /// `NEW` with fresh keys on our server, subscribed (smp.md §4.5 A.1); the queue's e2e key for its link.
    private func newQueue(mode: QueueMode) async throws(AgentError) -> (NewRcvQueue, X25519.PrivateKey) {
        let auth = Ed25519.PrivateKey()
        let dh = X25519.PrivateKey()
        let e2e = X25519.PrivateKey()
        let server = configuration.server
        let request = NewQueueRequest(
            recipientAuthKey: .ed25519(auth.publicKey), recipientDhKey: dh.publicKey, subscriptionMode: .subscribe,
            queueRequestData: mode == .messaging ? .messaging(nil) : .contact(nil))
        let response: SMPBrokerMessage
        do { response = try await client.connection(to: server).request(.new(request), entityId: .empty, key: auth) } catch {
            throw .smp(error)
        }
        guard case .ids(let ids) = response else { throw .smp(.unexpectedResponse(response.tag)) }
        let secret: X25519.SharedSecret
        do { secret = try dh.sharedSecret(with: ids.serverDhKey) } catch {
            throw .smp(.unexpectedResponse("IDS with an unusable DH key"))
        }
        let queue = NewRcvQueue(
            server: server, recipientId: ids.recipientId, senderId: ids.senderId, mode: ids.queueMode ?? mode,
            recipientAuthKey: StoredEd25519Key(auth), recipientDHKey: StoredX25519Key(dh), serverDHSecret: secret,
            e2eDHKey: StoredX25519Key(e2e))
        return (queue, e2e)
    }

    /// Stores a connection made on our new queue and listens on it; the queue's address for the link.
    private func storeAndListen(
        _ new: NewConnection, _ queue: NewRcvQueue, _ e2eKey: X25519.PrivateKey, mode: QueueMode
    ) async throws(AgentError) -> (AgentConnection, SMPQueueURI) {
        let now = Self.now()
        let conn = try await read { (s) throws(AgentStoreError) in try s.createConnection(new, now: now) }
        try await listen(conn.rcvQueues[0])
        let uri = SMPQueueURI(
            clientVersions: SMPClientVersion.supported,
            address: SMPQueueAddress(
                server: queue.server, senderId: queue.senderId, dhPublicKey: e2eKey.publicKey, queueMode: mode))
        return (conn, uri)
    }

    // MARK: Sending

    /// What a send carries: a confirmation's conn info (with the joiner's X3DH parameters), or an `AMessage` that
    /// gets the connection's next `sndMsgId` and `prevMsgHash`.
    private enum Outgoing: Sendable {
        case confirmation(AgentMessage, E2ERatchetParams?)
        case message(AMessage)
    }

    /// Stores a send with its ratchet step in one transaction (with the handshake step it completes), then wakes
    /// the queue's worker.
    @discardableResult
    private func enqueue(
        _ connId: AgentConnId, _ outgoing: Outgoing, kind: AgentMessageKind, notification: Bool,
        step: (ConnectionStatus, HandshakeStep)? = nil
    ) async throws(AgentError) -> SentMessage {
        let now = Self.now()
        let sent = try await transaction { (s) throws(AgentStoreError) in
            let conn = try s.connection(connId)
            guard let queue = conn.sndQueues.first else {
                throw .badConnectionState("connection \(connId) has no send queue yet")
            }
            if let (status, handshakeStep) = step { try s.setConnectionStatus(connId, status, step: handshakeStep) }
            return try s.enqueueSend(connId, queue: queue.id, kind: kind, notification: notification, now: now) {
                (slot) throws(AgentStoreError) in
                guard let stored = slot.ratchet else { throw .badConnectionState("connection \(connId) has no ratchet") }
                let message: AgentMessage
                var params: E2ERatchetParams?
                switch outgoing {
                case .confirmation(let m, let p):
                    message = m
                    params = p
                case .message(let m):
                    message = .message(APrivHeader(sndMsgId: Int64(slot.sndMsgId), prevMsgHash: slot.prevMsgHash), m)
                }
                do { return try AgentEnvelopes.prepare(message, ratchet: try stored.state(), ratchetParams: params) } catch {
                    throw .step("\(error)")
                }
            }
        }
        startWorker(sent.queueId)
        wake(sent.queueId)
        return sent
    }

    private func startWorker(_ queue: SndQueueId) {
        guard workers[queue] == nil, !isClosed else { return }
        workers[queue] = Task { await self.deliver(queue) }
    }

    private func wake(_ queue: SndQueueId) {
        startWorker(queue)
        if let c = idle.removeValue(forKey: queue) { c.resume() } else { woken.insert(queue) }
    }

    /// Waits until `wake` or `seconds` passed, whichever is first.
    private func sleep(_ queue: SndQueueId, seconds: Double) async {
        if woken.remove(queue) != nil { return }
        let timer = Task {
            guard (try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))) != nil else { return }
            self.wake(queue)
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            if isClosed { c.resume() } else { idle[queue] = c }
        }
        timer.cancel()
        woken.remove(queue)
    }

    /// One send queue's delivery (`runSmpQueueMsgDelivery`): its pending sends in order, each until the server
    /// accepts it — network failures retried with back-off, `QUOTA` waiting for the peer's `A_QCONT` — or refuses it.
    private func deliver(_ queueId: SndQueueId) async {
        var backoff = configuration.retryInterval
        while !isClosed, !Task.isCancelled {
            let next: SentMessage?
            do { next = try await read { (s) throws(AgentStoreError) in try s.nextPendingSend(queueId) } } catch {
                emit(.err(nil, "delivery: \(error)"))
                await sleep(queueId, seconds: configuration.maxRetryInterval)
                continue
            }
            guard let message = next else {
                await sleep(queueId, seconds: 3600)
                continue
            }
            let wait = Double(message.nextAttemptAt - Self.now()) / 1000
            if wait > 0 {
                await sleep(queueId, seconds: wait)
                continue
            }
            switch await attempt(message) {
            case .sent:
                backoff = configuration.retryInterval
                await delivered(message)
            case .retry:
                let at = Self.now() + Int64(backoff * 1000)
                backoff = min(backoff * 2, configuration.maxRetryInterval)
                try? await read { (s) throws(AgentStoreError) in
                    try s.scheduleRetry(message.connId, message.internalId, nextAttemptAt: at)
                }
            case .quota:
                let at = Self.now() + Int64(configuration.quotaRetryInterval * 1000)
                try? await read { (s) throws(AgentStoreError) in
                    try s.scheduleRetry(message.connId, message.internalId, nextAttemptAt: at)
                }
                let key = message.connId.bytes + withUnsafeBytes(of: message.internalId.value) { Array($0) }
                if message.kind == .message, warned.insert(key).inserted {
                    emit(.mwarn(message.connId, message.internalId, "QUOTA"))
                }
            case .failed(let reason):
                try? await read { (s) throws(AgentStoreError) in
                    try s.markFailed(message.connId, message.internalId, error: reason)
                }
                if message.kind == .message {
                    emit(.merr(message.connId, message.internalId, reason))
                } else {
                    emit(.err(message.connId, "\(message.kind.rawValue) not delivered: \(reason)"))
                }
            case .stop:
                return
            }
        }
    }

    private enum Attempt {
        case sent, retry, quota, stop
        case failed(String)
    }

    private func attempt(_ message: SentMessage) async -> Attempt {
        let queue: SndQueue
        let conn: AgentConnection
        do {
            (queue, conn) = try await read { (s) throws(AgentStoreError) in
                (try s.sndQueue(message.queueId), try s.connection(message.connId))
            }
        } catch { return .failed("\(error)") }
        do throws(AgentError) {
            if queue.status == .new, queue.mode == .messaging, queue.senderAuthKey != nil { try await secure(queue) }
            let body = try AgentEnvelopes.seal(message, queue: queue, agentVersion: conn.agentVersion, nonce: .random())
            let key = try queue.senderAuthKey.map { (k) throws(AgentError) in try privateKey(k) }
            do {
                try await client.send(
                    to: SenderQueue(server: queue.server, senderId: queue.senderId), senderKey: key, body: body,
                    notification: message.notification)
            } catch { throw .smp(error) }
            return .sent
        } catch {
            switch error {
            case .smp(.server(.quota)): return .quota
            case .smp(.server(let e)): return .failed("SMP \(e)")
            case .smp(.closed): return .stop
            case .smp(.invalidCommand(let reason)): return .failed(reason)
            case .smp: return isClosed ? .stop : .retry
            case .closed: return .stop
            default: return .failed("\(error)")
            }
        }
    }

    private func delivered(_ message: SentMessage) async {
        do {
            try await read { (s) throws(AgentStoreError) in try s.markSent(message.connId, message.internalId) }
        } catch {
            emit(.err(message.connId, "delivery: \(error)"))
            return
        }
        switch message.kind {
        case .message: emit(.sent(message.connId, message.internalId))
        case .confirmation:
            do throws(AgentError) {
                let conn = try await read { (s) throws(AgentStoreError) in try s.connection(message.connId) }
                try await carryOut(try machine(conn.step, .confirmationDelivered), conn.id)
            } catch {
                emit(.err(message.connId, "\(error)"))
            }
        default: break
        }
    }

    /// The actions that need no more than the store and the event stream.
    private func carryOut(_ actions: [HandshakeAction], _ connId: AgentConnId, connInfo: [UInt8] = []) async throws(AgentError) {
        for action in actions {
            switch action {
            case .setStep(let status, let step):
                try await read { (s) throws(AgentStoreError) in try s.setConnectionStatus(connId, status, step: step) }
            case .emitInfo: emit(.info(connId, connInfo: connInfo))
            case .emitConnected: emit(.con(connId))
            default: throw .prohibited("unexpected \(action) for \(connId)")
            }
        }
    }

    // MARK: Receiving

    private func listen(_ rq: RcvQueue) async throws(AgentError) {
        let stream: AsyncStream<SMPQueueEvent>
        let queue = try recipient(rq)
        do { stream = try await client.subscribe(queue) } catch { throw .smp(error) }
        listeners[rq.id]?.cancel()
        let (id, connId, server) = (rq.id, rq.connId, rq.server)
        listeners[rq.id] = Task {
            for await event in stream { await self.handle(event, id, connId, server) }
        }
    }

    private func stopListening(_ connId: AgentConnId) async {
        guard let conn = try? await read({ (s) throws(AgentStoreError) in try s.connection(connId) }) else { return }
        for rq in conn.rcvQueues {
            listeners.removeValue(forKey: rq.id)?.cancel()
            if let c = try? await client.connection(to: rq.server) { await c.unsubscribe(recipientId: rq.recipientId) }
        }
    }

    private func handle(_ event: SMPQueueEvent, _ queueId: RcvQueueId, _ connId: AgentConnId, _ server: SMPServer) async {
        switch event {
        case .message(let m):
            do throws(AgentError) { try await receive(m, queueId) } catch {
                emit(.err(connId, "\(error)"))
                // What cannot be processed is ACKed, or the server holds every later message back; what failed to
                // be stored or acknowledged is left for the server to deliver again.
                switch error {
                case .smp, .closed, .store(.sqlite): break
                default:
                    if let rq = try? await read({ (s) throws(AgentStoreError) in try s.rcvQueue(queueId) }) {
                        try? await ackOnServer(rq, m.msgId, stored: nil)
                    }
                }
            }
        case .disconnected: emit(.down(server, [connId]))
        case .resubscribed: emit(.up(server, [connId]))
        case .end: emit(.err(connId, "END: the queue was subscribed from another connection"))
        case .deleted: emit(.err(connId, "DELD: the queue was deleted"))
        case .resubscriptionFailed(let e): emit(.err(connId, "subscription: \(e)"))
        }
    }

    private func receive(_ m: SMPMessage, _ queueId: RcvQueueId) async throws(AgentError) {
        let rq = try await read { (s) throws(AgentStoreError) in try s.rcvQueue(queueId) }
        switch m.content {
        case .failure(let e):
            try await ackOnServer(rq, m.msgId, stored: nil)
            emit(.err(rq.connId, "MSG: \(e)"))
        case .success(.quota):
            // The peer's deliveries to this queue wait for our word that it has room again (smp.md §4.8).
            try await ackOnServer(rq, m.msgId, stored: nil)
            let qcont = AMessage.qcont(SndQueueAddress(server: rq.server, senderId: rq.senderId))
            try await enqueue(rq.connId, .message(qcont), kind: .queueContinue, notification: false)
        case .success(.message(let timestamp, _, let body)):
            let conn = try await read { (s) throws(AgentStoreError) in try s.connection(rq.connId) }
            guard conn.status != .deleted else { return try await ackOnServer(rq, m.msgId, stored: nil) }
            let e2e = ReceiveQueueE2E(
                privateKey: try privateKey(rq.e2eDHKey), secret: rq.e2eDHSecret, queueMode: rq.mode,
                agreedClientVersion: rq.smpClientVersion ?? SMPClientVersion.current)
            let envelope: ReceivedEnvelope
            do { envelope = try AgentOpening.open(body, queue: e2e) } catch {
                try await ackOnServer(rq, m.msgId, stored: nil)
                throw .agent(error)
            }
            switch envelope {
            case .confirmation(let c):
                try await receiveConfirmation(c, conn, rq, m.msgId, timestamp)
            case .message(let version, let encAgentMessage):
                try await receiveMessage(encAgentMessage, version: version, conn, rq, m.msgId, timestamp)
            case .repeatedConfirmation:
                try await ackOnServer(rq, m.msgId, stored: nil)
            case .invitation(_, let request, let connInfo):
                guard conn.mode == .contact else {
                    try await ackOnServer(rq, m.msgId, stored: nil)
                    throw .agent(.prohibited("a contact request on a connection that is not an address"))
                }
                try await receiveRequest(request, connInfo: connInfo, rq, m.msgId)
            case .ratchetKey:
                try await ackOnServer(rq, m.msgId, stored: nil)
                throw .notServed("ratchet re-synchronisation")
            }
        }
    }

    /// The joiner's `"D"` on our invitation (initiator, smp.md §4.5 "A — receive"), or the initiator's `"I"` on
    /// our reply queue (joiner, "B — receive"): the ratchet, the queue's secret and, for the initiator, the send
    /// queue to the reply queue, all stored with the message and the new step in one transaction; then the events,
    /// then the `ACK`.
    private func receiveConfirmation(
        _ c: ReceivedConfirmation, _ conn: AgentConnection, _ rq: RcvQueue, _ msgId: MsgId, _ timestamp: Int64
    ) async throws(AgentError) {
        let reply = c.e2eParams != nil
        let actions = try machine(conn.step, .confirmationOpened(reply: reply))
        let steps = actions.compactMap { (a) -> (ConnectionStatus, HandshakeStep)? in
            if case .setStep(let status, let step) = a { return (status, step) }
            return nil
        }
        let (connId, agentVersion, queueId) = (conn.id, conn.agentVersion, rq.id)
        let clientVersion = rq.smpClientVersion ?? SMPClientVersion.current
        let now = Self.now()
        let result = try await transaction { (s) throws(AgentStoreError) -> (ReceiveOutcome, OpenedConfirmation?) in
            var opened: OpenedConfirmation?
            let outcome = try s.receive(
                connId, queue: queueId, serverMsgId: msgId, serverTimestamp: timestamp,
                ciphertextHash: MessageHash(of: c.encConnInfo), now: now
            ) { (slot) throws(AgentStoreError) in
                var keys = SystemRatchetKeys()
                let o: OpenedConfirmation
                do {
                    if reply {
                        guard let x3dh = slot.x3dhKeys else { throw AgentStoreError.badConnectionState("no X3DH keys") }
                        let own = E2EPrivateKeys(key1: try x3dh.key1.privateKey(), key2: try x3dh.key2.privateKey())
                        o = try AgentOpening.openConnInfoReply(
                            c, own: own, agreedAgentVersion: agentVersion, agreedClientVersion: clientVersion, keys: &keys)
                    } else {
                        guard let ratchet = slot.ratchet else { throw AgentStoreError.badConnectionState("no ratchet") }
                        o = try AgentOpening.openConnInfo(
                            c, ratchet: try ratchet.state(), skipped: slot.skippedKeys, agreedAgentVersion: agentVersion,
                            agreedClientVersion: clientVersion, keys: &keys)
                    }
                } catch let e as AgentStoreError { throw e } catch { throw .step("\(error)") }
                opened = o
                return ProcessedReceive(
                    kind: .confirmation, sndMsgId: 1, hash: try MessageHash(bytes: o.hash), integrity: .ok,
                    ratchet: StoredRatchet(o.ratchet), skippedKeys: o.skippedKeys, clearsX3DHKeys: true, ack: .acknowledged)
            }
            guard case .stored = outcome, let o = opened else { return (outcome, nil) }
            try s.setRcvQueueConfirmed(queueId, e2eDHSecret: c.secret, smpClientVersion: c.clientVersion)
            if reply {
                try s.setAgentVersion(connId, c.agentVersion)
                guard let info = o.replyQueues.first else { throw .step("conf: no reply queue") }
                let key = X25519.PrivateKey()
                let secret: X25519.SharedSecret
                do { secret = try key.sharedSecret(with: info.address.dhPublicKey) } catch {
                    throw .step("conf: reply queue key: \(error)")
                }
                _ = try s.addSndQueue(
                    connId,
                    NewSndQueue(
                        server: info.address.server, senderId: info.address.senderId, mode: info.address.queueMode ?? .messaging,
                        senderAuthKey: StoredEd25519Key(Ed25519.PrivateKey()), e2eKey: StoredX25519Key(key),
                        e2ePublicKey: key.publicKey, e2eDHSecret: secret,
                        smpClientVersion: min(info.clientVersion, SMPClientVersion.current)))
            } else {
                try s.setRcvQueueStatus(queueId, .active)
            }
            for (status, step) in steps { try s.setConnectionStatus(connId, status, step: step) }
            return (outcome, o)
        }
        switch result {
        case (.stored(let message), let opened?):
            try await ackOnServer(rq, msgId, stored: (conn.id, message.internalId))
            for action in actions {
                switch action {
                case .emitConfirmation:
                    emit(
                        .conf(
                            conn.id, confirmationId: String(message.internalId.value),
                            servers: opened.replyQueues.map(\.address.server), connInfo: opened.connInfo))
                case .emitInfo: emit(.info(conn.id, connInfo: opened.connInfo))
                case .emitConnected: emit(.con(conn.id))
                default: break
                }
            }
        default:
            try await ackOnServer(rq, msgId, stored: nil)
        }
    }

    private struct Decrypted: Sendable {
        let message: DecryptedAgentMessage?
        let failure: AgentProtocolError?
        let outcome: ReceiveOutcome?
    }

    /// A message of the connection (smp.md §4.7): decrypted against the stored ratchet, its integrity checked and
    /// everything stored in one transaction — a message that does not decrypt keeps only the ratchet's change.
    private func receiveMessage(
        _ encAgentMessage: [UInt8], version: UInt16, _ conn: AgentConnection, _ rq: RcvQueue, _ msgId: MsgId,
        _ timestamp: Int64
    ) async throws(AgentError) {
        let (connId, queueId, agentVersion) = (conn.id, rq.id, conn.agentVersion)
        let now = Self.now()
        let hash = MessageHash(of: encAgentMessage)
        let result = try await transaction { (s) throws(AgentStoreError) -> Decrypted in
            if try s.isDuplicate(connId, ciphertextHash: hash) {
                let outcome = try s.receive(
                    connId, queue: queueId, serverMsgId: msgId, serverTimestamp: timestamp, ciphertextHash: hash, now: now
                ) { (_) throws(AgentStoreError) in throw .step("a duplicate is not processed") }
                return Decrypted(message: nil, failure: nil, outcome: outcome)
            }
            guard let stored = try s.ratchet(connId) else { throw .badConnectionState("connection \(connId) has no ratchet") }
            var keys = SystemRatchetKeys()
            let (ratchet, skipped) = (try stored.state(), try s.skippedKeys(connId))
            let opened: OpenedMessage
            do throws(AgentProtocolError) {
                opened = try AgentOpening.openMessage(encAgentMessage, ratchet: ratchet, skipped: skipped, keys: &keys)
            } catch { return Decrypted(message: nil, failure: error, outcome: nil) }
            let decrypted: DecryptedAgentMessage
            switch opened.result {
            case .failure(let e):
                try s.updateRatchet(connId, StoredRatchet(opened.ratchet), skipped: opened.skippedKeys)
                return Decrypted(message: nil, failure: e, outcome: nil)
            case .success(let d): decrypted = d
            }
            if let upgraded = AgentVersion.upgrade(current: agentVersion, received: version) {
                try s.setAgentVersion(connId, upgraded)
            }
            let outcome = try s.receive(
                connId, queue: queueId, serverMsgId: msgId, serverTimestamp: timestamp, ciphertextHash: hash, now: now
            ) { (slot) throws(AgentStoreError) in
                let integrity = MsgIntegrity(
                    lastExternalSndId: Int64(clamping: slot.lastExternalSndId), lastReceivedHash: slot.lastRcvHash,
                    header: decrypted.header)
                let (kind, ack) = Self.kind(of: decrypted.message)
                var body: [UInt8]?
                if case .msg(let b) = decrypted.message { body = b }
                return ProcessedReceive(
                    kind: kind, sndMsgId: UInt64(clamping: decrypted.header.sndMsgId),
                    hash: try MessageHash(bytes: decrypted.hash), integrity: MessageIntegrity(integrity),
                    ratchet: StoredRatchet(opened.ratchet), skippedKeys: opened.skippedKeys, ack: ack, body: body)
            }
            return Decrypted(message: decrypted, failure: nil, outcome: outcome)
        }
        if let failure = result.failure {
            try await ackOnServer(rq, msgId, stored: nil)
            throw .agent(failure)
        }
        switch result.outcome {
        case .duplicate(let earlier)?:
            try await redelivered(earlier, conn, rq, msgId)
        case .stored(let stored)?:
            guard let decrypted = result.message else { return }
            let meta = MessageMeta(
                msgId: stored.internalId, sndMsgId: stored.externalSndId, integrity: stored.integrity,
                serverTimestamp: timestamp)
            try await dispatch(decrypted.message, meta, conn, rq, msgId)
        case nil:
            try await ackOnServer(rq, msgId, stored: nil)
        }
    }

    /// A message the server delivered again (its `ACK` was lost, or we restarted before it was sent): one the layer
    /// above has not acknowledged is given to it again, up to `maxRedeliveries` times; anything else is ACKed.
    private func redelivered(_ earlier: RcvMessage?, _ conn: AgentConnection, _ rq: RcvQueue, _ msgId: MsgId)
        async throws(AgentError)
    {
        guard let earlier, earlier.serverMsgId == msgId else { return try await ackOnServer(rq, msgId, stored: nil) }
        let (connId, id) = (conn.id, earlier.internalId)
        switch earlier.ack {
        case .pending:
            let again = earlier.kind == .message && earlier.receiveAttempts <= Self.maxRedeliveries
            let body = again ? try await read { (s) throws(AgentStoreError) in try s.pendingBody(connId, id) } : nil
            if let body {
                let meta = MessageMeta(
                    msgId: id, sndMsgId: earlier.externalSndId, integrity: earlier.integrity,
                    serverTimestamp: earlier.serverTimestamp)
                return emit(.msg(connId, meta, body: body))
            }
            _ = try await read { (s) throws(AgentStoreError) in try s.acknowledge(connId, id) }
            try await ackOnServer(rq, msgId, stored: (connId, id))
        case .acknowledged, .serverAcked:
            try await ackOnServer(rq, msgId, stored: (connId, id))
        }
    }

    /// How many times a message not acknowledged by the layer above is given to it (the reference's 8 attempts).
    static let maxRedeliveries = 8

    /// What the agent does with each `AMessage` (smp.md §4.7 receiver step 4).
    private func dispatch(_ message: AMessage, _ meta: MessageMeta, _ conn: AgentConnection, _ rq: RcvQueue, _ msgId: MsgId)
        async throws(AgentError)
    {
        let connId = conn.id
        switch message {
        case .msg(let body):
            emit(.msg(connId, meta, body: body))
        case .rcvd(let receipts):
            var named: [MessageReceipt] = []
            for r in receipts {
                let receipt: MessageReceipt?? = try? await read { (s) throws(AgentStoreError) in
                    let sent = try s.sentMessage(connId, sndMsgId: UInt64(clamping: r.agentMsgId))
                    guard sent.kind == .message else { return nil }
                    let status: ReceiptStatus = sent.hash.bytes == r.msgHash ? .ok : .badMsgHash
                    try s.setReceipt(connId, sndMsgId: sent.sndMsgId, status)
                    return MessageReceipt(msgId: sent.internalId, status: status)
                }
                if let receipt = receipt ?? nil { named.append(receipt) }
            }
            if named.isEmpty {
                _ = try await read { (s) throws(AgentStoreError) in try s.acknowledge(connId, meta.msgId) }
                try await ackOnServer(rq, msgId, stored: (connId, meta.msgId))
            } else {
                emit(.rcvd(connId, meta, named))
            }
        case .qcont(let address):
            try await ackOnServer(rq, msgId, stored: (connId, meta.msgId))
            if let q = conn.sndQueues.first(where: { $0.server == address.server && $0.senderId == address.senderId }) {
                let now = Self.now()
                try await read { (s) throws(AgentStoreError) in
                    if let next = try s.nextPendingSend(q.id) { try s.scheduleRetry(connId, next.internalId, nextAttemptAt: now) }
                }
                wake(q.id)
                emit(.qcont(connId))
            }
        case .hello:
            try await ackOnServer(rq, msgId, stored: (connId, meta.msgId))
        default:
            try await ackOnServer(rq, msgId, stored: (connId, meta.msgId))
            emit(.err(connId, "queue rotation and ratchet re-synchronisation are not served"))
        }
    }

    /// The store's kind of a received message, and whether the layer above acknowledges it.
    static func kind(of message: AMessage) -> (AgentMessageKind, AckState) {
        switch message {
        case .msg: (.message, .pending)
        case .rcvd: (.receipt, .pending)
        case .hello: (.hello, .acknowledged)
        case .qcont: (.queueContinue, .acknowledged)
        default: (.message, .acknowledged)
        }
    }

    /// `ACK`: a message the server no longer holds (`NO_MSG`, after a lost response) counts as acknowledged; the
    /// store then records it. A network failure leaves it to the redelivery after the reconnect.
    private func ackOnServer(_ rq: RcvQueue, _ msgId: MsgId, stored: (AgentConnId, InternalMessageId)?) async throws(AgentError) {
        let queue = try recipient(rq)
        do { try await client.ack(queue, msgId: msgId) } catch SMPClientError.server(.noMsg) {
        } catch { throw .smp(error) }
        let queueId = rq.id
        try await read { (s) throws(AgentStoreError) in
            if let (conn, id) = stored { try s.markServerAcked(conn, id) } else { try s.clearUnackedMsgId(queueId, msgId) }
        }
    }

    // MARK: Helpers

    private func emit(_ event: AgentEvent) { emitter.yield(event) }

    private func checkOpen() throws(AgentError) { if isClosed { throw .closed } }

    private func read<T: Sendable>(_ body: sending (AgentStore) throws(AgentStoreError) -> T) async throws(AgentError) -> T {
        do { return try await store.read(body) } catch { throw .store(error) }
    }

    private func transaction<T: Sendable>(_ body: sending (AgentStore) throws(AgentStoreError) -> T) async throws(AgentError) -> T
    {
        do { return try await store.transaction(body) } catch { throw .store(error) }
    }

    private func recipient(_ rq: RcvQueue) throws(AgentError) -> RecipientQueue {
        RecipientQueue(
            server: rq.server, recipientId: rq.recipientId, senderId: rq.senderId,
            recipientKey: try privateKey(rq.recipientAuthKey), sharedSecret: rq.serverDHSecret, queueMode: rq.mode)
    }

    private func privateKey(_ key: StoredEd25519Key) throws(AgentError) -> Ed25519.PrivateKey {
        do { return try key.privateKey() } catch { throw .store(error) }
    }

    private func privateKey(_ key: StoredX25519Key) throws(AgentError) -> X25519.PrivateKey {
        do { return try key.privateKey() } catch { throw .store(error) }
    }

    private func publicKey(_ key: StoredX25519Key) throws(AgentError) -> X25519.PublicKey {
        try privateKey(key).publicKey
    }

    /// Milliseconds since 1970, the store's time.
    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}

extension MessageIntegrity {
    /// The store's form of the wire layer's check.
    init(_ integrity: MsgIntegrity) {
        switch integrity {
        case .ok: self = .ok
        case .badId(let id): self = .badId(UInt64(clamping: id))
        case .duplicate: self = .duplicate
        case .skipped(let from, let to): self = .skipped(from: UInt64(clamping: from), to: UInt64(clamping: to))
        case .badHash: self = .badHash
        }
    }
}
