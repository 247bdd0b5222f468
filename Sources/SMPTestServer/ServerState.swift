public import SMP
import SimplexCrypto
import SimplexEncoding

/// One client connection of the server, as the shared state knows it.
public struct ConnectionId: Hashable, Sendable, CustomStringConvertible {
    public let raw: UInt64
    public init(_ raw: UInt64) { self.raw = raw }
    public var description: String { "#\(raw)" }
}

/// The server's limits (smp.md §3.8 and the resource bounds of a test server).
public struct ServerLimits: Sendable {
    /// Messages a queue holds before the quota marker (`msgQueueQuota`, 128 by default).
    public var quota: Int
    /// Queues the server keeps; a NEW beyond them is `ERR STORE queue limit`.
    public var maxQueues: Int
    /// The basic auth NEW must carry, when set (smp.md §3.3); a missing or wrong one is `ERR AUTH`.
    public var password: BasicAuth?

    public init(quota: Int = 128, maxQueues: Int = 100_000, password: BasicAuth? = nil) {
        self.quota = quota
        self.maxQueues = maxQueues
        self.password = password
    }
}

/// Randomness for new ids and keys, an input so tests are deterministic.
public protocol ServerEntropy {
    mutating func bytes(_ count: Int) -> [UInt8]
}

/// The operating system's random bytes.
public struct SystemEntropy: ServerEntropy {
    public init() {}
    public func bytes(_ count: Int) -> [UInt8] { SecureRandom.bytes(count) }
}

/// What processing a block produced: changes to journal (durably, before anything is sent — a SEND is answered
/// only once its message is stored) and transmissions per connection, in the order they must go out.
public struct ServerOutput: Sendable {
    public var records: [StoreRecord] = []
    public var deliveries: [(connection: ConnectionId, transmissions: [[UInt8]])] = []

    public init() {}

    mutating func deliver(_ t: [UInt8], to c: ConnectionId) {
        if let i = deliveries.firstIndex(where: { $0.connection == c }) {
            deliveries[i].transmissions.append(t)
        } else {
            deliveries.append((c, [t]))
        }
    }
}

/// The server behaviour of smp.md §3.8 without I/O: queues and their messages, one subscriber per queue with END to
/// the replaced one, one message in flight until ACK, GET vs SUB, the quota with its marker, DEL with DELD, basic
/// auth for NEW, and the error codes of §3.5. The driver calls `receive` with the transmissions of one block and
/// carries out the output; time and randomness come in as arguments.
public struct ServerState {
    /// How a connection reads a queue: subscribed, or by GET; with the message delivered and not yet ACKed.
    struct Subscription {
        enum Kind { case sub, get }
        var kind: Kind
        var delivered: MsgId?
    }

    struct Connection {
        var parameters: TransportParameters
        var subscriptions: [EntityId: Subscription] = [:]
    }

    public private(set) var store: QueueStore
    public let limits: ServerLimits
    private var connections: [ConnectionId: Connection] = [:]
    private var subscribers: [EntityId: ConnectionId] = [:]

    public init(store: QueueStore = QueueStore(), limits: ServerLimits = ServerLimits()) {
        self.store = store
        self.limits = limits
    }

    public var connectionCount: Int { connections.count }

    /// A connection finished its handshake.
    public mutating func connect(_ id: ConnectionId, parameters: TransportParameters) {
        connections[id] = Connection(parameters: parameters)
    }

    /// A connection closed: its subscriptions end silently (§3.8), its undelivered messages stay.
    public mutating func disconnect(_ id: ConnectionId) {
        guard let c = connections.removeValue(forKey: id) else { return }
        for rid in c.subscriptions.keys where subscribers[rid] == id { subscribers[rid] = nil }
    }

    /// A block whose batch did not parse: `ERR BLOCK` with no correlation id (the connection stays).
    public mutating func receiveUnparsableBatch(from id: ConnectionId) -> ServerOutput {
        var out = ServerOutput()
        respond(&out, to: id, corrId: .empty, entityId: .empty, .err(.block))
        return out
    }

    /// The transmissions of one block from `id`: their responses, then the events they caused on this
    /// connection, in one delivery; events for other connections in theirs.
    public mutating func receive(
        _ transmissions: [[UInt8]], from id: ConnectionId, now: Int64, entropy: inout some ServerEntropy
    ) -> ServerOutput {
        var out = ServerOutput()
        guard let p = connections[id]?.parameters else { return out }
        var ownEvents: [[UInt8]] = []
        for bytes in transmissions {
            let t = Transmissions.decodeCommand(bytes, parameters: p)
            let response: SMPBrokerMessage
            switch t.message {
            case .failure(let e):
                response = .err(e)
            case .success(let command):
                if command.authorizations?.serviceSignature != nil {
                    response = .err(.service)
                } else {
                    response = handle(
                        command, corrId: t.corrId, entityId: t.entityId, from: id, now: now, entropy: &entropy,
                        out: &out, ownEvents: &ownEvents)
                }
            }
            respond(&out, to: id, corrId: t.corrId, entityId: t.entityId, response)
        }
        for e in ownEvents { out.deliver(e, to: id) }
        return out
    }

    // MARK: Commands

    private mutating func handle(
        _ c: AuthorizedCommand, corrId: CorrId, entityId: EntityId, from id: ConnectionId, now: Int64,
        entropy: inout some ServerEntropy, out: inout ServerOutput, ownEvents: inout [[UInt8]]
    ) -> SMPBrokerMessage {
        switch c.command {
        case .ping:
            return .pong
        case .new(let request):
            return create(request, c, from: id, entropy: &entropy, out: &out)
        case .send(let flags, let body):
            return send(
                c, senderId: entityId, flags: flags, body: body, now: now, entropy: &entropy, out: &out, ownEvents: &ownEvents,
                from: id)
        case .skey(let key):
            guard let q = store.queue(senderId: entityId), c.isAuthorized(by: key) else { return .err(.auth) }
            guard q.mode == .messaging else { return .err(.auth) }
            return secure(q, key, out: &out)
        case .lset, .ldel, .lkey, .lget:
            // Short links are not served by this server (smp.md §3.9, phase 2).
            return .err(.cmd(.prohibited))
        case .sub, .key, .get, .ack, .off, .del:
            guard let q = store.queue(recipientId: entityId), c.isAuthorized(by: q.recipientKey) else { return .err(.auth) }
            switch c.command {
            case .sub: return subscribe(q, from: id, out: &out, ownEvents: &ownEvents)
            case .key(let key): return secure(q, key, out: &out)
            case .get: return get(q, from: id)
            case .ack(let msgId): return acknowledge(q, msgId, from: id, out: &out)
            case .off:
                if !q.suspended { record(.queueSuspended(recipientId: q.recipientId), &out) }
                return .ok
            default: return delete(q, from: id, out: &out)
            }
        }
    }

    private mutating func create(
        _ r: NewQueueRequest, _ c: AuthorizedCommand, from id: ConnectionId, entropy: inout some ServerEntropy,
        out: inout ServerOutput
    ) -> SMPBrokerMessage {
        guard c.isAuthorized(by: r.recipientAuthKey) else { return .err(.auth) }
        if let password = limits.password, r.basicAuth != password { return .err(.auth) }
        // Push notifications and short-link data are not served by this server.
        if r.notifierCredentials != nil { return .err(.cmd(.prohibited)) }
        switch r.queueRequestData {
        case .messaging(.some), .contact(.some): return .err(.cmd(.prohibited))
        default: break
        }
        guard store.count < limits.maxQueues else { return .err(.store("queue limit")) }
        guard let serverKey = try? X25519.PrivateKey(rawRepresentation: entropy.bytes(32)),
            let secret = try? serverKey.sharedSecret(with: r.recipientDhKey)
        else { return .err(.internal) }
        // Three tries on an id collision, then INTERNAL (§3.8).
        var ids: (EntityId, EntityId)?
        for _ in 0..<3 {
            let rid = EntityId(entropy.bytes(24))
            let sid = EntityId(entropy.bytes(24))
            if rid != sid, !store.isUsed(rid), !store.isUsed(sid) {
                ids = (rid, sid)
                break
            }
        }
        guard let (rid, sid) = ids else { return .err(.internal) }
        let mode = r.queueRequestData?.mode
        record(
            .queueCreated(recipientId: rid, senderId: sid, recipientKey: r.recipientAuthKey, dhSecret: secret, mode: mode), &out)
        if r.subscriptionMode == .subscribe {
            connections[id]?.subscriptions[rid] = Subscription(kind: .sub)
            subscribers[rid] = id
        }
        return .ids(QueueIdsKeys(recipientId: rid, senderId: sid, serverDhKey: serverKey.publicKey, queueMode: mode))
    }

    private mutating func secure(_ q: QueueRecord, _ key: AuthPublicKey, out: inout ServerOutput) -> SMPBrokerMessage {
        if let k = q.senderKey { return k == key ? .ok : .err(.auth) }
        record(.queueSecured(recipientId: q.recipientId, senderKey: key), &out)
        return .ok
    }

    private mutating func send(
        _ c: AuthorizedCommand, senderId: EntityId, flags: MessageFlags, body: [UInt8], now: Int64,
        entropy: inout some ServerEntropy, out: inout ServerOutput, ownEvents: inout [[UInt8]], from id: ConnectionId
    ) -> SMPBrokerMessage {
        guard let q = store.queue(senderId: senderId) else { return .err(.auth) }
        if let key = q.senderKey {
            guard c.isAuthorized(by: key) else { return .err(.auth) }
        } else if c.authorizations != nil {
            return .err(.auth)
        }
        guard let version = connections[id]?.parameters.version else { return .err(.internal) }
        guard body.count <= SMPVersion.maxMessageLength(version) else { return .err(.largeMsg) }
        guard !q.suspended else { return .err(.auth) }
        guard q.acceptsMessages else { return .err(.quota) }
        let msgId = MsgId(entropy.bytes(24))
        if q.messages.count >= limits.quota {
            record(.messageAdded(recipientId: q.recipientId, StoredMessage(msgId: msgId, content: .quota(timestamp: now))), &out)
            deliverWaiting(q.recipientId, out: &out, ownEvents: &ownEvents, from: id)
            return .err(.quota)
        }
        let message = StoredMessage(msgId: msgId, content: .message(timestamp: now, flags: flags, body: body))
        record(.messageAdded(recipientId: q.recipientId, message), &out)
        deliverWaiting(q.recipientId, out: &out, ownEvents: &ownEvents, from: id)
        return .ok
    }

    /// Pushes the first message to an idle subscriber (§3.8: at most one in flight).
    private mutating func deliverWaiting(
        _ rid: EntityId, out: inout ServerOutput, ownEvents: inout [[UInt8]], from id: ConnectionId
    ) {
        guard let s = subscribers[rid], let sub = connections[s]?.subscriptions[rid], sub.kind == .sub,
            sub.delivered == nil, let q = store.queue(recipientId: rid), let first = q.messages.first,
            let sealed = seal(first, q)
        else { return }
        connections[s]?.subscriptions[rid]?.delivered = first.msgId
        event(.msg(sealed), entity: rid, to: s, from: id, out: &out, ownEvents: &ownEvents)
    }

    private mutating func subscribe(
        _ q: QueueRecord, from id: ConnectionId, out: inout ServerOutput, ownEvents: inout [[UInt8]]
    ) -> SMPBrokerMessage {
        let rid = q.recipientId
        if connections[id]?.subscriptions[rid]?.kind == .get { return .err(.cmd(.prohibited)) }
        if let old = subscribers[rid], old != id {
            connections[old]?.subscriptions[rid] = nil
            event(.end, entity: rid, to: old, from: id, out: &out, ownEvents: &ownEvents)
        }
        subscribers[rid] = id
        // A repeated SUB delivers the un-ACKed message again.
        connections[id]?.subscriptions[rid] = Subscription(kind: .sub, delivered: nil)
        deliverWaiting(rid, out: &out, ownEvents: &ownEvents, from: id)
        return .sok(serviceId: nil)
    }

    private mutating func get(_ q: QueueRecord, from id: ConnectionId) -> SMPBrokerMessage {
        let rid = q.recipientId
        if connections[id]?.subscriptions[rid]?.kind == .sub { return .err(.cmd(.prohibited)) }
        let first = q.messages.first
        connections[id]?.subscriptions[rid] = Subscription(kind: .get, delivered: first?.msgId)
        guard let first else { return .ok }
        return seal(first, q).map { .msg($0) } ?? .err(.internal)
    }

    private mutating func acknowledge(
        _ q: QueueRecord, _ msgId: MsgId, from id: ConnectionId, out: inout ServerOutput
    ) -> SMPBrokerMessage {
        let rid = q.recipientId
        // An empty id matches the delivered message (the reference's ACK of a message it could not parse).
        guard let sub = connections[id]?.subscriptions[rid], let delivered = sub.delivered,
            msgId.bytes.isEmpty || msgId == delivered
        else { return .err(.noMsg) }
        connections[id]?.subscriptions[rid]?.delivered = nil
        if q.messages.first?.msgId == delivered { record(.messageRemoved(recipientId: rid, msgId: delivered), &out) }
        // After an ACK on a GET connection the answer is OK, never the next message.
        guard sub.kind == .sub, let q = store.queue(recipientId: rid), let next = q.messages.first else { return .ok }
        connections[id]?.subscriptions[rid]?.delivered = next.msgId
        return seal(next, q).map { .msg($0) } ?? .err(.internal)
    }

    private mutating func delete(_ q: QueueRecord, from id: ConnectionId, out: inout ServerOutput) -> SMPBrokerMessage {
        let rid = q.recipientId
        record(.queueDeleted(recipientId: rid), &out)
        connections[id]?.subscriptions[rid] = nil
        if let old = subscribers.removeValue(forKey: rid), old != id {
            connections[old]?.subscriptions[rid] = nil
            var none: [[UInt8]] = []
            event(.deld, entity: rid, to: old, from: id, out: &out, ownEvents: &none)
        }
        return .ok
    }

    // MARK: Helpers

    private mutating func record(_ r: StoreRecord, _ out: inout ServerOutput) {
        store.apply(r)
        out.records.append(r)
    }

    /// The message boxed for its recipient; nil only for a body over the padded size, which a SEND cannot store
    /// but a damaged journal could hold.
    private func seal(_ m: StoredMessage, _ q: QueueRecord) -> ReceivedMessage? {
        try? ReceivedMessage.seal(m.content, msgId: m.msgId, secret: q.dhSecret)
    }

    private func encode(_ m: SMPBrokerMessage, corrId: CorrId, entityId: EntityId, to c: ConnectionId) -> [UInt8]? {
        guard let p = connections[c]?.parameters else { return nil }
        return try? Transmissions.encodeResponse(corrId: corrId, entityId: entityId, message: m, parameters: p)
    }

    private func respond(
        _ out: inout ServerOutput, to c: ConnectionId, corrId: CorrId, entityId: EntityId, _ m: SMPBrokerMessage
    ) {
        if let t = encode(m, corrId: corrId, entityId: entityId, to: c) { out.deliver(t, to: c) }
    }

    /// An event (empty corrId): after this block's responses when it goes to the connection that sent the block.
    private func event(
        _ m: SMPBrokerMessage, entity: EntityId, to c: ConnectionId, from id: ConnectionId, out: inout ServerOutput,
        ownEvents: inout [[UInt8]]
    ) {
        guard let t = encode(m, corrId: .empty, entityId: entity, to: c) else { return }
        if c == id { ownEvents.append(t) } else { out.deliver(t, to: c) }
    }
}
