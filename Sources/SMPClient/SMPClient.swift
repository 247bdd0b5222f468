public import SMP
public import SimplexCrypto
internal import SimplexEncoding

/// A queue this client created and reads (smp.md §3.3, §3.7, §4.2): its ids, the key that signs its commands and
/// the secret that opens its messages. As the reference agent's stored queue, it keeps the DH secret, not the DH keys
/// it came from: a client holds one of these for every queue it reads.
public struct RecipientQueue: Sendable {
    public let server: SMPServer
    public let recipientId: EntityId
    public let senderId: EntityId
    /// Signs the recipient's commands (Ed25519).
    public let recipientKey: Ed25519.PrivateKey
    /// `X25519(serverDhKey, dhKey)` of the recipient's DH key and the server's from `IDS`: opens `MSG` bodies
    /// (smp.md §3.7).
    public let sharedSecret: X25519.SharedSecret
    public let queueMode: QueueMode?

    /// A queue just created: `dhKey` is the recipient's half of the server→recipient encryption, `serverDhKey` the
    /// server's per-queue key from `IDS`.
    public init(
        server: SMPServer, recipientId: EntityId, senderId: EntityId, recipientKey: Ed25519.PrivateKey,
        dhKey: X25519.PrivateKey, serverDhKey: X25519.PublicKey, queueMode: QueueMode?
    ) throws(SMPClientError) {
        let secret: X25519.SharedSecret
        do { secret = try dhKey.sharedSecret(with: serverDhKey) } catch {
            throw .unexpectedResponse("IDS with an unusable DH key")
        }
        self.init(
            server: server, recipientId: recipientId, senderId: senderId, recipientKey: recipientKey,
            sharedSecret: secret, queueMode: queueMode)
    }

    /// A queue as stored: its ids, its key and its DH secret.
    public init(
        server: SMPServer, recipientId: EntityId, senderId: EntityId, recipientKey: Ed25519.PrivateKey,
        sharedSecret: X25519.SharedSecret, queueMode: QueueMode?
    ) {
        self.server = server
        self.recipientId = recipientId
        self.senderId = senderId
        self.recipientKey = recipientKey
        self.sharedSecret = sharedSecret
        self.queueMode = queueMode
    }

    /// Where a sender sends to this queue.
    public var senderQueue: SenderQueue { SenderQueue(server: server, senderId: senderId) }
}

/// A queue as its sender addresses it (smp.md §3.2): the server and the sender id.
public struct SenderQueue: Hashable, Sendable {
    public let server: SMPServer
    public let senderId: EntityId

    public init(server: SMPServer, senderId: EntityId) {
        self.server = server
        self.senderId = senderId
    }
}

/// The SMP client (smp.md §2, §3): one connection per server, shared by the queues on it, and the typed commands
/// of §3.3. Connections open on first use and reconnect by themselves while they carry subscriptions.
public actor SMPClient {
    private let configuration: SMPClientConfiguration
    private var connections: [SMPServer: SMPServerConnection] = [:]
    private var isClosed = false

    public init(configuration: SMPClientConfiguration = SMPClientConfiguration()) {
        self.configuration = configuration
    }

    /// The connection to `server`, made on first use.
    public func connection(to server: SMPServer) throws(SMPClientError) -> SMPServerConnection {
        if isClosed { throw .closed }
        if let c = connections[server] { return c }
        let c = SMPServerConnection(server: server, configuration: configuration)
        connections[server] = c
        return c
    }

    /// Connects to `server` now (TCP, TLS, handshake) without sending a command; the negotiated parameters.
    public func connect(to server: SMPServer) async throws(SMPClientError) -> TransportParameters {
        let c = try connection(to: server)
        try await c.ping()
        guard let p = await c.parameters else { throw .connectionLost }
        return p
    }

    /// `NEW` (smp.md §3.3): creates a queue with fresh recipient keys (Ed25519 to authorize, X25519 for messages),
    /// not subscribed (`C`) unless `subscribe` (`S`, the server then counts this connection as its subscriber);
    /// `subscribe` it to receive pushed messages, or `get` them.
    public func createQueue(
        on server: SMPServer, basicAuth: BasicAuth? = nil, mode: QueueMode = .messaging, subscribe: Bool = false
    ) async throws(SMPClientError) -> RecipientQueue {
        let recipientKey = Ed25519.PrivateKey()
        let dhKey = X25519.PrivateKey()
        let c = try connection(to: server)
        // Encoded at the negotiated version: below 15 only whether the sender secures the queue goes out.
        let data: QueueRequestData = mode == .messaging ? .messaging(nil) : .contact(nil)
        let request = NewQueueRequest(
            recipientAuthKey: .ed25519(recipientKey.publicKey), recipientDhKey: dhKey.publicKey, basicAuth: basicAuth,
            subscriptionMode: subscribe ? .subscribe : .onlyCreate, queueRequestData: data)
        let response = try await c.request(.new(request), entityId: .empty, key: recipientKey)
        guard case .ids(let ids) = response else { throw .unexpectedResponse(response.tag) }
        return try RecipientQueue(
            server: server, recipientId: ids.recipientId, senderId: ids.senderId, recipientKey: recipientKey, dhKey: dhKey,
            serverDhKey: ids.serverDhKey, queueMode: ids.queueMode)
    }

    /// `KEY` (smp.md §3.3): the recipient secures its queue with the sender's key.
    public func secure(_ queue: RecipientQueue, senderKey: Ed25519.PublicKey) async throws(SMPClientError) {
        try await expectOK(queue.server, .key(.ed25519(senderKey)), queue.recipientId, queue.recipientKey)
    }

    /// `SKEY` (smp.md §3.3, v ≥ 9): the sender secures a messaging queue with its own key.
    public func secure(_ queue: SenderQueue, senderKey: Ed25519.PrivateKey) async throws(SMPClientError) {
        try await expectOK(queue.server, .skey(.ed25519(senderKey.publicKey)), queue.senderId, senderKey)
    }

    /// `SEND` (smp.md §3.3): signed with the sender's key once the queue is secured, unsigned before.
    public func send(
        to queue: SenderQueue, senderKey: Ed25519.PrivateKey?, body: [UInt8], notification: Bool = false
    ) async throws(SMPClientError) {
        try await expectOK(
            queue.server, .send(flags: MessageFlags(notification: notification), body: body), queue.senderId, senderKey)
    }

    /// `SUB` (smp.md §3.8): messages and events of the queue, until `END`, `DELD` or a permanent error. The
    /// subscription survives reconnects.
    public func subscribe(_ queue: RecipientQueue) async throws(SMPClientError) -> AsyncStream<SMPQueueEvent> {
        try await connection(to: queue.server).subscribe(
            recipientId: queue.recipientId, recipientKey: queue.recipientKey, secret: queue.sharedSecret)
    }

    /// `GET` (smp.md §3.8): the first message without subscribing, or nil when the queue is empty; it stays until
    /// `ack`.
    public func get(_ queue: RecipientQueue) async throws(SMPClientError) -> SMPMessage? {
        let response = try await connection(to: queue.server).request(
            .get, entityId: queue.recipientId, key: queue.recipientKey)
        switch response {
        case .ok: return nil
        case .msg(let m): return SMPMessage(m, secret: queue.sharedSecret)
        default: throw .unexpectedResponse(response.tag)
        }
    }

    /// `ACK` (smp.md §3.8): deletes the delivered message; on a subscribed queue the next one arrives on its stream.
    public func ack(_ queue: RecipientQueue, msgId: MsgId) async throws(SMPClientError) {
        let c = try connection(to: queue.server)
        let response = try await c.request(
            .ack(msgId), entityId: queue.recipientId, key: queue.recipientKey, routesMessageTo: queue.recipientId)
        guard case .ok = response else { throw .unexpectedResponse(response.tag) }
    }

    /// `OFF` (smp.md §3.3): the queue accepts no more messages.
    public func suspend(_ queue: RecipientQueue) async throws(SMPClientError) {
        try await expectOK(queue.server, .off, queue.recipientId, queue.recipientKey)
    }

    /// `DEL` (smp.md §3.3): deletes the queue and its messages, and its subscription here.
    public func delete(_ queue: RecipientQueue) async throws(SMPClientError) {
        let c = try connection(to: queue.server)
        try await expectOK(queue.server, .del, queue.recipientId, queue.recipientKey)
        await c.unsubscribe(recipientId: queue.recipientId)
    }

    /// `PING` (smp.md §2.7): connects if needed and waits for `PONG`.
    public func ping(_ server: SMPServer) async throws(SMPClientError) {
        try await connection(to: server).ping()
    }

    /// Closes every connection; later calls fail with `.closed`.
    public func close() async {
        isClosed = true
        let all = connections.values
        connections = [:]
        for c in all { await c.close() }
    }

    private func expectOK(
        _ server: SMPServer, _ command: SMPCommand, _ entityId: EntityId, _ key: Ed25519.PrivateKey?
    ) async throws(SMPClientError) {
        let response = try await connection(to: server).request(command, entityId: entityId, key: key)
        guard case .ok = response else { throw .unexpectedResponse(response.tag) }
    }
}

extension SMPServerConnection {
    /// `PING` → `PONG`.
    public func ping() async throws(SMPClientError) {
        let response = try await request(.ping, entityId: .empty, key: nil)
        guard case .pong = response else { throw .unexpectedResponse(response.tag) }
    }
}
