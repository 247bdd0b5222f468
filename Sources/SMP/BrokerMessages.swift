public import SimplexCrypto
public import SimplexEncoding

/// A server response or event (`BrokerMsg`, smp.md §3.4), encoded and parsed at a negotiated version.
public enum SMPBrokerMessage: Hashable, Sendable {
    /// The new queue's ids and keys, for `NEW`.
    case ids(QueueIdsKeys)
    /// A queue's sender id and link data, for `LKEY` and `LGET`.
    case lnk(senderId: EntityId, data: QueueLinkData)
    /// `SUB` succeeded (v ≥ 16; older versions are sent `OK`).
    case sok(serviceId: EntityId?)
    case ok
    /// A message: an event after `SUB`/`SEND`, or the response to `GET` and `ACK`.
    case msg(ReceivedMessage)
    /// Another connection subscribed to the queue.
    case end
    /// The queue was deleted (v ≥ 10; older versions are sent `END`).
    case deld
    case pong
    case err(SMPErrorType)

    public var tag: String {
        switch self {
        case .ids: "IDS"
        case .lnk: "LNK"
        case .sok: "SOK"
        case .ok: "OK"
        case .msg: "MSG"
        case .end: "END"
        case .deld: "DELD"
        case .pong: "PONG"
        case .err: "ERR"
        }
    }

    /// The response's bytes at `version`; fields a version lacks are left out, and values it cannot carry are
    /// replaced as the reference replaces them (`SOK` → `OK`, `DELD` → `END`, `BLOCKED` → `AUTH` or without notice).
    public func encoded(version v: UInt16) throws(BinaryEncodingError) -> [UInt8] {
        var w = ByteWriter()
        switch self {
        case .ids(let ids):
            w.writeASCII("IDS ")
            try ids.encode(to: &w, version: v)
        case .lnk(let senderId, let data):
            w.writeASCII("LNK ")
            try w.write(senderId)
            try data.encode(to: &w)
        case .sok(let serviceId):
            if v >= SMPVersion.serviceCerts {
                w.writeASCII("SOK ")
                try w.writeMaybe(serviceId) { (w, id) throws(BinaryEncodingError) in try w.write(id) }
            } else {
                w.writeASCII("OK")
            }
        case .ok: w.writeASCII("OK")
        case .msg(let m):
            w.writeASCII("MSG ")
            try w.write(m.msgId)
            w.writeBytes(m.encryptedBody)
        case .end: w.writeASCII("END")
        case .deld: w.writeASCII(v >= SMPVersion.deletedEvent ? "DELD" : "END")
        case .pong: w.writeASCII("PONG")
        case .err(var e):
            if case .blocked(var info) = e {
                if v < SMPVersion.blockedEntity {
                    e = .auth
                } else if v < SMPVersion.clientNotices {
                    info.notice = nil
                    e = .blocked(info)
                }
            }
            w.writeASCII("ERR ")
            try e.encode(to: &w)
        }
        return w.bytes
    }

    /// Parses a whole response at `version`.
    public init(parsing bytes: [UInt8], version v: UInt16) throws(CommandParseError) {
        var r = ByteReader(bytes)
        let tag = String(decoding: r.readWord(), as: UTF8.self)
        func params<T>(_ spaced: Bool, _ body: (inout ByteReader) throws(BinaryDecodingError) -> T) throws(CommandParseError) -> T
        {
            do {
                if spaced { try r.expectSpace() }
                let value = try body(&r)
                try r.expectEnd()
                return value
            } catch {
                throw .syntax(tag: tag, error)
            }
        }
        let none: (inout ByteReader) throws(BinaryDecodingError) -> Void = { _ in }
        switch tag {
        case "IDS":
            self = .ids(
                try params(true) { (r: inout ByteReader) throws(BinaryDecodingError) in try QueueIdsKeys(from: &r, version: v) })
        case "LNK":
            let (id, data) = try params(true) { (r: inout ByteReader) throws(BinaryDecodingError) in
                (try r.readEntityId(), try QueueLinkData(from: &r))
            }
            self = .lnk(senderId: id, data: data)
        case "SOK":
            self = .sok(
                serviceId: try params(true) { (r: inout ByteReader) throws(BinaryDecodingError) in
                    try r.readMaybe { (r: inout ByteReader) throws(BinaryDecodingError) in try r.readEntityId() }
                })
        case "OK":
            try params(false, none)
            self = .ok
        case "MSG":
            self = .msg(
                try params(true) { (r: inout ByteReader) throws(BinaryDecodingError) in
                    ReceivedMessage(msgId: try r.readMsgId(), encryptedBody: r.readRest())
                })
        case "END":
            try params(false, none)
            self = .end
        case "DELD":
            try params(false, none)
            self = .deld
        case "PONG":
            try params(false, none)
            self = .pong
        case "ERR":
            self = .err(try params(true) { (r: inout ByteReader) throws(BinaryDecodingError) in try SMPErrorType(from: &r) })
        default:
            throw .unknownTag(tag)
        }
    }

    /// The client's check of a response's entity (`checkCredentials` for broker messages): `IDS` and `ERR` may
    /// have any, `PONG` none, the others the queue's.
    public func entityError(entityId: EntityId) -> SMPErrorType? {
        switch self {
        case .ids, .err: nil
        case .pong: entityId.isEmpty ? nil : .cmd(.hasAuth)
        case .lnk, .sok, .ok, .msg, .end, .deld: entityId.isEmpty ? .cmd(.noEntity) : nil
        }
    }
}

/// A new queue's ids and the server's keys (`QueueIdsKeys`, smp.md §3.4).
public struct QueueIdsKeys: Hashable, Sendable {
    public var recipientId: EntityId
    public var senderId: EntityId
    /// The server's per-queue X25519 key; with the recipient's DH key it keys the messages' encryption (§3.7).
    public var serverDhKey: X25519.PublicKey
    /// v ≥ 15; v 9–14 carry only whether the sender secures the queue, read back as a mode.
    public var queueMode: QueueMode?
    /// v ≥ 15.
    public var linkId: EntityId?
    /// v ≥ 16.
    public var serviceId: EntityId?
    /// v ≥ 17.
    public var notifierCredentials: ServerNotifierCredentials?

    public init(
        recipientId: EntityId, senderId: EntityId, serverDhKey: X25519.PublicKey, queueMode: QueueMode?,
        linkId: EntityId? = nil, serviceId: EntityId? = nil, notifierCredentials: ServerNotifierCredentials? = nil
    ) {
        self.recipientId = recipientId
        self.senderId = senderId
        self.serverDhKey = serverDhKey
        self.queueMode = queueMode
        self.linkId = linkId
        self.serviceId = serviceId
        self.notifierCredentials = notifierCredentials
    }

    func encode(to w: inout ByteWriter, version v: UInt16) throws(BinaryEncodingError) {
        try w.write(recipientId)
        try w.write(senderId)
        try w.write(serverDhKey)
        if v >= SMPVersion.shortLinks {
            try w.writeMaybe(queueMode) { (w, m) throws(BinaryEncodingError) in w.writeByte(m.byte) }
            try w.writeMaybe(linkId) { (w, id) throws(BinaryEncodingError) in try w.write(id) }
            if v >= SMPVersion.serviceCerts {
                try w.writeMaybe(serviceId) { (w, id) throws(BinaryEncodingError) in try w.write(id) }
            }
            if v >= SMPVersion.newNotifierCredentials {
                try w.writeMaybe(notifierCredentials) { (w, c) throws(BinaryEncodingError) in
                    try w.write(c.notifierId)
                    try w.write(c.dhKey)
                }
            }
        } else if v >= SMPVersion.senderAuthKey {
            w.writeBool(QueueMode.senderCanSecure(queueMode))
        }
    }

    init(from r: inout ByteReader, version v: UInt16) throws(BinaryDecodingError) {
        recipientId = try r.readEntityId()
        senderId = try r.readEntityId()
        serverDhKey = try r.readX25519Key()
        linkId = nil
        serviceId = nil
        notifierCredentials = nil
        if v >= SMPVersion.shortLinks {
            queueMode = try r.readMaybe { (r: inout ByteReader) throws(BinaryDecodingError) -> QueueMode in
                switch try r.readByte() {
                case UInt8(ascii: "M"): return .messaging
                case UInt8(ascii: "C"): return .contact
                case let b: throw .invalidTag(b, expected: "M or C")
                }
            }
            linkId = try r.readMaybe { (r: inout ByteReader) throws(BinaryDecodingError) in try r.readEntityId() }
            if v >= SMPVersion.serviceCerts {
                serviceId = try r.readMaybe { (r: inout ByteReader) throws(BinaryDecodingError) in try r.readEntityId() }
            }
            if v >= SMPVersion.newNotifierCredentials {
                notifierCredentials = try r.readMaybe { (r: inout ByteReader) throws(BinaryDecodingError) in
                    ServerNotifierCredentials(notifierId: try r.readEntityId(), dhKey: try r.readX25519Key())
                }
            }
        } else if v >= SMPVersion.senderAuthKey {
            queueMode = try r.readBool() ? .messaging : .contact
        } else {
            queueMode = nil
        }
    }
}

/// The server's notifier credentials in `IDS` (`ServerNtfCreds`, v ≥ 17).
public struct ServerNotifierCredentials: Hashable, Sendable {
    public var notifierId: EntityId
    public var dhKey: X25519.PublicKey

    public init(notifierId: EntityId, dhKey: X25519.PublicKey) {
        self.notifierId = notifierId
        self.dhKey = dhKey
    }
}

/// A message as the server delivers it (`RcvMessage`, smp.md §3.4, §3.7): its id and the body encrypted for the
/// recipient.
public struct ReceivedMessage: Hashable, Sendable {
    public var msgId: MsgId
    public var encryptedBody: [UInt8]

    public init(msgId: MsgId, encryptedBody: [UInt8]) {
        self.msgId = msgId
        self.encryptedBody = encryptedBody
    }

    /// The box nonce: the message id, zero-padded or cut to 24 bytes.
    static func nonce(_ id: MsgId) -> SecretBox.Nonce {
        let bytes = Array((id.bytes + [UInt8](repeating: 0, count: 24)).prefix(24))
        // 24 bytes by construction.
        guard let n = try? SecretBox.Nonce(rawRepresentation: bytes) else { preconditionFailure("nonce length") }
        return n
    }

    /// The server side (`encryptMsg`): boxes the content under the queue's DH secret, padded to 16,106 bytes.
    public static func seal(
        _ content: ReceivedMessageContent, msgId: MsgId, secret: X25519.SharedSecret
    ) throws(MessageDecryptionError) -> ReceivedMessage {
        do {
            let body = try SecretBox.sealPadded(
                content.encoded(), to: SMPLimits.paddedReceivedMessageLength, key: secret.boxKey, nonce: nonce(msgId))
            return ReceivedMessage(msgId: msgId, encryptedBody: body)
        } catch {
            throw .tooLarge
        }
    }

    /// The recipient side (smp.md §3.7): opens the body with the queue's DH secret.
    public func open(secret: X25519.SharedSecret) throws(MessageDecryptionError) -> ReceivedMessageContent {
        let plain: [UInt8]
        do { plain = try SecretBox.openPadded(encryptedBody, key: secret.boxKey, nonce: Self.nonce(msgId)) } catch {
            throw .decryption
        }
        do { return try ReceivedMessageContent(decoding: plain) } catch { throw .syntax(error) }
    }
}

/// A received message's plaintext (`RcvMsgBody`, smp.md §3.7): a sent message with its server time and flags, or
/// the quota marker.
public enum ReceivedMessageContent: Hashable, Sendable {
    /// `msgTs ‖ flags ‖ " " ‖ Tail(body)`.
    case message(timestamp: Int64, flags: MessageFlags, body: [UInt8])
    /// `"QUOTA " ‖ msgTs`: the queue filled up after this point.
    case quota(timestamp: Int64)

    public func encoded() -> [UInt8] {
        var w = ByteWriter()
        switch self {
        case .message(let ts, let flags, let body):
            w.writeInt64(ts)
            flags.encode(to: &w)
            w.writeSpace()
            w.writeBytes(body)
        case .quota(let ts):
            w.writeASCII("QUOTA ")
            w.writeInt64(ts)
        }
        return w.bytes
    }

    public init(decoding bytes: [UInt8]) throws(BinaryDecodingError) {
        var r = ByteReader(bytes)
        if r.skip(Array("QUOTA ".utf8)) {
            self = .quota(timestamp: try r.readInt64())
            try r.expectEnd()
        } else {
            let ts = try r.readInt64()
            let flags = try MessageFlags(from: &r)
            try r.expectSpace()
            self = .message(timestamp: ts, flags: flags, body: r.readRest())
        }
    }
}

/// Why a received message could not be opened or sealed.
public enum MessageDecryptionError: Error, Equatable, Sendable {
    /// Wrong key or tampered ciphertext, or bad padding.
    case decryption
    /// The plaintext is neither a message nor a quota marker.
    case syntax(BinaryDecodingError)
    /// The content does not fit the padded size.
    case tooLarge
}
