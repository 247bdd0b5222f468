public import SimplexCrypto
public import SimplexEncoding

/// A client command (`Command`, smp.md §3.3), encoded and parsed at a negotiated version. The same values serve a
/// client that encodes them and a server that parses them.
public enum SMPCommand: Hashable, Sendable {
    /// Create a queue (creator; signed with the new recipient key, no entity).
    case new(NewQueueRequest)
    /// Subscribe to the queue (recipient).
    case sub
    /// Secure the queue with the sender's key (recipient, the legacy path).
    case key(AuthPublicKey)
    /// Secure the queue with the sender's own key (sender, v ≥ 9; messaging queues).
    case skey(AuthPublicKey)
    /// Send a message (sender; unsigned until the queue is secured).
    case send(flags: MessageFlags, body: [UInt8])
    /// Acknowledge a delivered message (recipient).
    case ack(MsgId)
    /// Fetch the first message without subscribing (recipient).
    case get
    /// Suspend the queue: no more SENDs (recipient).
    case off
    /// Delete the queue and its messages (recipient).
    case del
    /// Keep-alive (no authorization, no entity).
    case ping
    /// Set the queue's link data (recipient).
    case lset(linkId: EntityId, data: QueueLinkData)
    /// Delete the queue's link data (recipient).
    case ldel
    /// Secure a messaging queue through its link and get its data (sender, link id as entity).
    case lkey(AuthPublicKey)
    /// Get a contact queue's link data (anyone, link id as entity).
    case lget

    /// The command's tag, the bytes before the first space.
    public var tag: String {
        switch self {
        case .new: "NEW"
        case .sub: "SUB"
        case .key: "KEY"
        case .skey: "SKEY"
        case .send: "SEND"
        case .ack: "ACK"
        case .get: "GET"
        case .off: "OFF"
        case .del: "DEL"
        case .ping: "PING"
        case .lset: "LSET"
        case .ldel: "LDEL"
        case .lkey: "LKEY"
        case .lget: "LGET"
        }
    }

    /// The command's bytes at `version`.
    public func encoded(version: UInt16) throws(BinaryEncodingError) -> [UInt8] {
        var w = ByteWriter()
        w.writeBytes(Array(tag.utf8))
        switch self {
        case .new(let req):
            w.writeSpace()
            try req.encode(to: &w, version: version)
        case .sub, .get, .off, .del, .ping, .ldel, .lget:
            break
        case .key(let k), .skey(let k), .lkey(let k):
            w.writeSpace()
            try w.write(k)
        case .send(let flags, let body):
            w.writeSpace()
            flags.encode(to: &w)
            w.writeSpace()
            w.writeBytes(body)
        case .ack(let id):
            w.writeSpace()
            try w.write(id)
        case .lset(let linkId, let data):
            w.writeSpace()
            try w.write(linkId)
            try data.encode(to: &w)
        }
        return w.bytes
    }

    /// Parses a whole command at `version` (`parseProtocol`): an unknown tag is `CMD UNKNOWN`, anything else that
    /// does not parse — trailing bytes included — `CMD SYNTAX`.
    public init(parsing bytes: [UInt8], version: UInt16) throws(CommandParseError) {
        var r = ByteReader(bytes)
        let tag = String(decoding: r.readWord(), as: UTF8.self)
        func params<T>(_ body: (inout ByteReader) throws(BinaryDecodingError) -> T) throws(CommandParseError) -> T {
            do {
                let v = try body(&r)
                try r.expectEnd()
                return v
            } catch {
                throw .syntax(tag: tag, error)
            }
        }
        func spaced<T>(_ body: (inout ByteReader) throws(BinaryDecodingError) -> T) throws(CommandParseError) -> T {
            try params { (r: inout ByteReader) throws(BinaryDecodingError) -> T in
                try r.expectSpace()
                return try body(&r)
            }
        }
        func bare() throws(CommandParseError) { try params { (_: inout ByteReader) throws(BinaryDecodingError) in } }
        switch tag {
        case "NEW":
            self = .new(
                try spaced { (r: inout ByteReader) throws(BinaryDecodingError) in try NewQueueRequest(from: &r, version: version)
                })
        case "SUB":
            try bare()
            self = .sub
        case "KEY": self = .key(try spaced { (r: inout ByteReader) throws(BinaryDecodingError) in try r.readAuthKey() })
        case "SKEY": self = .skey(try spaced { (r: inout ByteReader) throws(BinaryDecodingError) in try r.readAuthKey() })
        case "LKEY": self = .lkey(try spaced { (r: inout ByteReader) throws(BinaryDecodingError) in try r.readAuthKey() })
        case "SEND":
            let (flags, body) = try spaced { (r: inout ByteReader) throws(BinaryDecodingError) in
                let flags = try MessageFlags(from: &r)
                try r.expectSpace()
                return (flags, r.readRest())
            }
            self = .send(flags: flags, body: body)
        case "ACK": self = .ack(try spaced { (r: inout ByteReader) throws(BinaryDecodingError) in try r.readMsgId() })
        case "GET":
            try bare()
            self = .get
        case "OFF":
            try bare()
            self = .off
        case "DEL":
            try bare()
            self = .del
        case "PING":
            try bare()
            self = .ping
        case "LSET":
            let (id, data) = try spaced { (r: inout ByteReader) throws(BinaryDecodingError) in
                (try r.readEntityId(), try QueueLinkData(from: &r))
            }
            self = .lset(linkId: id, data: data)
        case "LDEL":
            try bare()
            self = .ldel
        case "LGET":
            try bare()
            self = .lget
        default:
            throw .unknownTag(tag)
        }
    }

    /// The server's check of a transmission's authorization and entity against its command (`checkCredentials`,
    /// smp.md §3.2); nil when they fit. Signatures themselves are verified against the queue's keys afterwards.
    public func credentialsError(authorized: Bool, entityId: EntityId) -> SMPErrorType? {
        switch self {
        case .new:
            if !authorized { return .cmd(.noAuth) }
            return entityId.isEmpty ? nil : .cmd(.hasAuth)
        case .send:
            return entityId.isEmpty ? .cmd(.noEntity) : nil
        case .lget:
            if entityId.isEmpty { return .cmd(.noEntity) }
            return authorized ? .cmd(.hasAuth) : nil
        case .ping:
            return !authorized && entityId.isEmpty ? nil : .cmd(.hasAuth)
        case .sub, .key, .skey, .ack, .get, .off, .del, .lset, .ldel, .lkey:
            return !authorized || entityId.isEmpty ? .cmd(.noAuth) : nil
        }
    }
}

/// Why a command or response did not parse; the server answers with `errorType`.
public enum CommandParseError: Error, Equatable, Sendable {
    case unknownTag(String)
    case syntax(tag: String, BinaryDecodingError)

    /// `CMD UNKNOWN` or `CMD SYNTAX`.
    public var errorType: SMPErrorType {
        switch self {
        case .unknownTag: .cmd(.unknown)
        case .syntax: .cmd(.syntax)
        }
    }
}

/// `NEW`'s fields (`NewQueueReq`, smp.md §3.3); which of them go on the wire depends on the version.
public struct NewQueueRequest: Hashable, Sendable {
    /// The recipient's key that authorizes its commands on the queue.
    public var recipientAuthKey: AuthPublicKey
    /// The recipient's X25519 key for the server→recipient encryption of messages (§3.7).
    public var recipientDhKey: X25519.PublicKey
    public var basicAuth: BasicAuth?
    public var subscriptionMode: SubscriptionMode
    /// The queue's mode and link data (v ≥ 15; v 9–14 send only whether the sender secures it).
    public var queueRequestData: QueueRequestData?
    /// Push-notification credentials (v ≥ 17).
    public var notifierCredentials: NewNotifierCredentials?

    public init(
        recipientAuthKey: AuthPublicKey, recipientDhKey: X25519.PublicKey, basicAuth: BasicAuth? = nil,
        subscriptionMode: SubscriptionMode = .subscribe, queueRequestData: QueueRequestData?,
        notifierCredentials: NewNotifierCredentials? = nil
    ) {
        self.recipientAuthKey = recipientAuthKey
        self.recipientDhKey = recipientDhKey
        self.basicAuth = basicAuth
        self.subscriptionMode = subscriptionMode
        self.queueRequestData = queueRequestData
        self.notifierCredentials = notifierCredentials
    }

    func encode(to w: inout ByteWriter, version v: UInt16) throws(BinaryEncodingError) {
        try w.write(recipientAuthKey)
        try w.write(recipientDhKey)
        if v >= SMPVersion.senderAuthKey {
            try w.writeMaybe(basicAuth) { (w, a) throws(BinaryEncodingError) in try w.writeShortBytes(a.bytes) }
        } else if let basicAuth {
            w.writeByte(UInt8(ascii: "A"))
            try w.writeShortBytes(basicAuth.bytes)
        }
        w.writeByte(subscriptionMode.byte)
        if v >= SMPVersion.shortLinks {
            try w.writeMaybe(queueRequestData) { (w, d) throws(BinaryEncodingError) in try d.encode(to: &w) }
            if v >= SMPVersion.newNotifierCredentials {
                try w.writeMaybe(notifierCredentials) { (w, c) throws(BinaryEncodingError) in try c.encode(to: &w) }
            }
        } else if v >= SMPVersion.senderAuthKey {
            w.writeBool(queueRequestData?.mode == .messaging)
        }
    }

    init(from r: inout ByteReader, version v: UInt16) throws(BinaryDecodingError) {
        recipientAuthKey = try r.readAuthKey()
        recipientDhKey = try r.readX25519Key()
        if v >= SMPVersion.senderAuthKey {
            basicAuth = try r.readMaybe { (r: inout ByteReader) throws(BinaryDecodingError) in try BasicAuth(r.readShortBytes()) }
        } else if r.peekByte() == UInt8(ascii: "A") {
            _ = try r.readByte()
            basicAuth = try BasicAuth(r.readShortBytes())
        } else {
            basicAuth = nil
        }
        subscriptionMode = try SubscriptionMode(from: &r)
        notifierCredentials = nil
        if v >= SMPVersion.shortLinks {
            queueRequestData = try r.readMaybe { (r: inout ByteReader) throws(BinaryDecodingError) in
                try QueueRequestData(from: &r)
            }
            if v >= SMPVersion.newNotifierCredentials {
                notifierCredentials = try r.readMaybe { (r: inout ByteReader) throws(BinaryDecodingError) in
                    try NewNotifierCredentials(from: &r)
                }
            }
        } else if v >= SMPVersion.senderAuthKey {
            queueRequestData = try r.readBool() ? .messaging(nil) : .contact(nil)
        } else {
            queueRequestData = nil
        }
    }
}

/// Whether the creating connection subscribes at once (`SubscriptionMode`): `S` or `C`.
public enum SubscriptionMode: Hashable, Sendable {
    case subscribe
    case onlyCreate

    var byte: UInt8 { self == .subscribe ? UInt8(ascii: "S") : UInt8(ascii: "C") }

    init(from r: inout ByteReader) throws(BinaryDecodingError) {
        switch try r.readByte() {
        case UInt8(ascii: "S"): self = .subscribe
        case UInt8(ascii: "C"): self = .onlyCreate
        case let b: throw .invalidTag(b, expected: "S or C")
        }
    }
}

/// The requested queue mode with optional link data (`QueueReqData`, smp.md §3.3): `M Maybe(senderId linkData)`
/// or `C Maybe(linkId senderId linkData)`.
public enum QueueRequestData: Hashable, Sendable {
    case messaging(MessagingLink?)
    case contact(ContactLink?)

    public struct MessagingLink: Hashable, Sendable {
        public var senderId: EntityId
        public var data: QueueLinkData
        public init(senderId: EntityId, data: QueueLinkData) {
            self.senderId = senderId
            self.data = data
        }
    }

    public struct ContactLink: Hashable, Sendable {
        public var linkId: EntityId
        public var senderId: EntityId
        public var data: QueueLinkData
        public init(linkId: EntityId, senderId: EntityId, data: QueueLinkData) {
            self.linkId = linkId
            self.senderId = senderId
            self.data = data
        }
    }

    public var mode: QueueMode {
        switch self {
        case .messaging: .messaging
        case .contact: .contact
        }
    }

    func encode(to w: inout ByteWriter) throws(BinaryEncodingError) {
        switch self {
        case .messaging(let link):
            w.writeByte(UInt8(ascii: "M"))
            try w.writeMaybe(link) { (w, l) throws(BinaryEncodingError) in
                try w.write(l.senderId)
                try l.data.encode(to: &w)
            }
        case .contact(let link):
            w.writeByte(UInt8(ascii: "C"))
            try w.writeMaybe(link) { (w, l) throws(BinaryEncodingError) in
                try w.write(l.linkId)
                try w.write(l.senderId)
                try l.data.encode(to: &w)
            }
        }
    }

    init(from r: inout ByteReader) throws(BinaryDecodingError) {
        switch try r.readByte() {
        case UInt8(ascii: "M"):
            self = .messaging(
                try r.readMaybe { (r: inout ByteReader) throws(BinaryDecodingError) in
                    MessagingLink(senderId: try r.readEntityId(), data: try QueueLinkData(from: &r))
                })
        case UInt8(ascii: "C"):
            self = .contact(
                try r.readMaybe { (r: inout ByteReader) throws(BinaryDecodingError) in
                    ContactLink(linkId: try r.readEntityId(), senderId: try r.readEntityId(), data: try QueueLinkData(from: &r))
                })
        case let b: throw .invalidTag(b, expected: "M or C")
        }
    }
}

/// A queue's encrypted link data (`QueueLinkData`, smp.md §3.3, §3.9): fixed and user parts, `len2` each, opaque
/// to the server.
public struct QueueLinkData: Hashable, Sendable {
    public var fixedData: [UInt8]
    public var userData: [UInt8]

    public init(fixedData: [UInt8], userData: [UInt8]) {
        self.fixedData = fixedData
        self.userData = userData
    }

    func encode(to w: inout ByteWriter) throws(BinaryEncodingError) {
        try w.writeLargeBytes(fixedData)
        try w.writeLargeBytes(userData)
    }

    init(from r: inout ByteReader) throws(BinaryDecodingError) {
        fixedData = try r.readLargeBytes()
        userData = try r.readLargeBytes()
    }
}

/// Push-notification credentials in `NEW` (`NewNtfCreds`, v ≥ 17): the notifier's auth key and DH key.
public struct NewNotifierCredentials: Hashable, Sendable {
    public var notifierKey: AuthPublicKey
    public var dhKey: X25519.PublicKey

    public init(notifierKey: AuthPublicKey, dhKey: X25519.PublicKey) {
        self.notifierKey = notifierKey
        self.dhKey = dhKey
    }

    func encode(to w: inout ByteWriter) throws(BinaryEncodingError) {
        try w.write(notifierKey)
        try w.write(dhKey)
    }

    init(from r: inout ByteReader) throws(BinaryDecodingError) {
        notifierKey = try r.readAuthKey()
        dhKey = try r.readX25519Key()
    }
}

/// `SEND` flags (`MsgFlags`, smp.md §3.3): one `Bool`; a parser skips later flag bytes up to the next space.
public struct MessageFlags: Hashable, Sendable {
    public var notification: Bool

    public init(notification: Bool) { self.notification = notification }

    func encode(to w: inout ByteWriter) { w.writeBool(notification) }

    init(from r: inout ByteReader) throws(BinaryDecodingError) {
        notification = try r.readBool()
        _ = r.readWord()
    }
}
