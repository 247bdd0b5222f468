public import SMP
public import SimplexCrypto
public import SimplexEncoding

/// A message as the server keeps it until ACK (smp.md §3.8): its id and the plaintext the recipient will open
/// (`RcvMsgBody`, §3.7) — a sent message with its server time and flags, or the quota marker.
public struct StoredMessage: Hashable, Sendable {
    public var msgId: MsgId
    public var content: ReceivedMessageContent

    public init(msgId: MsgId, content: ReceivedMessageContent) {
        self.msgId = msgId
        self.content = content
    }

    var isQuotaMarker: Bool {
        if case .quota = content { return true }
        return false
    }
}

/// A queue record (smp.md §3.8): ids, the recipient's key, the DH secret shared with the recipient, the sender's
/// key once secured, the mode, whether it is suspended, and its messages in order.
public struct QueueRecord: Sendable {
    public let recipientId: EntityId
    public let senderId: EntityId
    public let recipientKey: AuthPublicKey
    public let dhSecret: X25519.SharedSecret
    public let mode: QueueMode?
    public internal(set) var senderKey: AuthPublicKey?
    public internal(set) var suspended = false
    public internal(set) var messages: [StoredMessage] = []

    /// After the quota marker the queue takes no SEND until every message, the marker included, is ACKed (§3.8).
    public var acceptsMessages: Bool { messages.last?.isQuotaMarker != true }
}

/// One change to the queue store: what the journal holds, one record per change, replayed in order on start.
public enum StoreRecord: Sendable {
    /// The TLS credential, so that the address stays the same across restarts: chain DERs, leaf PKCS#8.
    case credential(chain: [[UInt8]], leafKey: [UInt8])
    case queueCreated(
        recipientId: EntityId, senderId: EntityId, recipientKey: AuthPublicKey, dhSecret: X25519.SharedSecret,
        mode: QueueMode?)
    case queueSecured(recipientId: EntityId, senderKey: AuthPublicKey)
    case queueSuspended(recipientId: EntityId)
    case queueDeleted(recipientId: EntityId)
    case messageAdded(recipientId: EntityId, StoredMessage)
    case messageRemoved(recipientId: EntityId, msgId: MsgId)
}

/// Why a journal record could not be read.
public enum StoreRecordError: Error, Equatable, Sendable {
    case syntax(BinaryDecodingError)
    case unknownTag(UInt8)
    case key(String)
}

extension StoreRecord {
    private enum Tag: UInt8 {
        case credential = 1
        case queueCreated = 2
        case queueSecured = 3
        case queueSuspended = 4
        case queueDeleted = 5
        case messageAdded = 6
        case messageRemoved = 7
    }

    /// The record's bytes: a tag, then `len1`/`len2` fields.
    public func encoded() throws(BinaryEncodingError) -> [UInt8] {
        var w = ByteWriter(capacity: 256)
        switch self {
        case .credential(let chain, let leafKey):
            w.writeByte(Tag.credential.rawValue)
            guard chain.count <= 255 else { throw .tooLong(length: chain.count, limit: 255) }
            w.writeByte(UInt8(chain.count))
            for der in chain { try w.writeLargeBytes(der) }
            try w.writeShortBytes(leafKey)
        case .queueCreated(let rid, let sid, let key, let secret, let mode):
            w.writeByte(Tag.queueCreated.rawValue)
            try w.writeShortBytes(rid.bytes)
            try w.writeShortBytes(sid.bytes)
            try w.writeShortBytes(key.spki)
            try w.writeShortBytes(secret.rawRepresentation)
            w.writeByte(mode == .messaging ? UInt8(ascii: "M") : mode == .contact ? UInt8(ascii: "C") : UInt8(ascii: "0"))
        case .queueSecured(let rid, let key):
            w.writeByte(Tag.queueSecured.rawValue)
            try w.writeShortBytes(rid.bytes)
            try w.writeShortBytes(key.spki)
        case .queueSuspended(let rid):
            w.writeByte(Tag.queueSuspended.rawValue)
            try w.writeShortBytes(rid.bytes)
        case .queueDeleted(let rid):
            w.writeByte(Tag.queueDeleted.rawValue)
            try w.writeShortBytes(rid.bytes)
        case .messageAdded(let rid, let message):
            w.writeByte(Tag.messageAdded.rawValue)
            try w.writeShortBytes(rid.bytes)
            try w.writeShortBytes(message.msgId.bytes)
            try w.writeLargeBytes(message.content.encoded())
        case .messageRemoved(let rid, let msgId):
            w.writeByte(Tag.messageRemoved.rawValue)
            try w.writeShortBytes(rid.bytes)
            try w.writeShortBytes(msgId.bytes)
        }
        return w.bytes
    }

    /// Parses one record; trailing bytes are refused.
    public init(decoding bytes: [UInt8]) throws(StoreRecordError) {
        var r = ByteReader(bytes)
        do {
            let tag = try r.readByte()
            guard let t = Tag(rawValue: tag) else { throw StoreRecordError.unknownTag(tag) }
            switch t {
            case .credential:
                let n = Int(try r.readByte())
                var chain: [[UInt8]] = []
                for _ in 0..<n { chain.append(try r.readLargeBytes()) }
                self = .credential(chain: chain, leafKey: try r.readShortBytes())
            case .queueCreated:
                let rid = EntityId(try r.readShortBytes())
                let sid = EntityId(try r.readShortBytes())
                let key = try Self.authKey(r.readShortBytes())
                let raw = try r.readShortBytes()
                guard let secret = try? X25519.SharedSecret(rawRepresentation: raw) else {
                    throw StoreRecordError.key("DH secret")
                }
                let mode: QueueMode?
                switch try r.readByte() {
                case UInt8(ascii: "M"): mode = .messaging
                case UInt8(ascii: "C"): mode = .contact
                case UInt8(ascii: "0"): mode = nil
                case let b: throw BinaryDecodingError.invalidTag(b, expected: "M, C or 0")
                }
                self = .queueCreated(recipientId: rid, senderId: sid, recipientKey: key, dhSecret: secret, mode: mode)
            case .queueSecured:
                let rid = EntityId(try r.readShortBytes())
                self = .queueSecured(recipientId: rid, senderKey: try Self.authKey(r.readShortBytes()))
            case .queueSuspended:
                self = .queueSuspended(recipientId: EntityId(try r.readShortBytes()))
            case .queueDeleted:
                self = .queueDeleted(recipientId: EntityId(try r.readShortBytes()))
            case .messageAdded:
                let rid = EntityId(try r.readShortBytes())
                let msgId = MsgId(try r.readShortBytes())
                let content = try ReceivedMessageContent(decoding: r.readLargeBytes())
                self = .messageAdded(recipientId: rid, StoredMessage(msgId: msgId, content: content))
            case .messageRemoved:
                let rid = EntityId(try r.readShortBytes())
                self = .messageRemoved(recipientId: rid, msgId: MsgId(try r.readShortBytes()))
            }
            try r.expectEnd()
        } catch let e as StoreRecordError {
            throw e
        } catch let e as BinaryDecodingError {
            throw .syntax(e)
        } catch {
            throw .key("\(error)")
        }
    }

    private static func authKey(_ spki: [UInt8]) throws(StoreRecordError) -> AuthPublicKey {
        let key: SMPPublicKey
        do { key = try SMPPublicKey(spki: spki) } catch { throw .syntax(error) }
        switch key {
        case .ed25519(let k): return .ed25519(k)
        case .ed448(let k): return .ed448(k)
        case .x25519(let k): return .x25519(k)
        case .x448: throw .key("X448 cannot authorize commands")
        }
    }
}

/// The queues of the server, by recipient and by sender id (smp.md §3.8). A value: every change is a `StoreRecord`,
/// applied here and journaled by the driver, so replaying the journal gives the same store.
public struct QueueStore: Sendable {
    public private(set) var queues: [EntityId: QueueRecord] = [:]
    private var recipientBySender: [EntityId: EntityId] = [:]

    public init() {}

    public var count: Int { queues.count }

    public func queue(recipientId: EntityId) -> QueueRecord? { queues[recipientId] }

    public func queue(senderId: EntityId) -> QueueRecord? { recipientBySender[senderId].flatMap { queues[$0] } }

    /// Whether an id is taken as either a recipient or a sender id.
    public func isUsed(_ id: EntityId) -> Bool { queues[id] != nil || recipientBySender[id] != nil }

    /// Applies a change; a record about a queue that is not there (a journal cut short) changes nothing.
    public mutating func apply(_ record: StoreRecord) {
        switch record {
        case .credential:
            break
        case .queueCreated(let rid, let sid, let key, let secret, let mode):
            queues[rid] = QueueRecord(recipientId: rid, senderId: sid, recipientKey: key, dhSecret: secret, mode: mode)
            recipientBySender[sid] = rid
        case .queueSecured(let rid, let key):
            queues[rid]?.senderKey = key
        case .queueSuspended(let rid):
            queues[rid]?.suspended = true
        case .queueDeleted(let rid):
            if let q = queues.removeValue(forKey: rid) { recipientBySender[q.senderId] = nil }
        case .messageAdded(let rid, let message):
            queues[rid]?.messages.append(message)
        case .messageRemoved(let rid, let msgId):
            if let i = queues[rid]?.messages.firstIndex(where: { $0.msgId == msgId }) { queues[rid]?.messages.remove(at: i) }
        }
    }

    /// The records that rebuild this store, for compacting the journal.
    public var snapshot: [StoreRecord] {
        var out: [StoreRecord] = []
        for q in queues.values.sorted(by: { $0.recipientId.bytes.lexicographicallyPrecedes($1.recipientId.bytes) }) {
            out.append(
                .queueCreated(
                    recipientId: q.recipientId, senderId: q.senderId, recipientKey: q.recipientKey, dhSecret: q.dhSecret,
                    mode: q.mode))
            if let k = q.senderKey { out.append(.queueSecured(recipientId: q.recipientId, senderKey: k)) }
            if q.suspended { out.append(.queueSuspended(recipientId: q.recipientId)) }
            for m in q.messages { out.append(.messageAdded(recipientId: q.recipientId, m)) }
        }
        return out
    }
}
