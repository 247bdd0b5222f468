public import SimplexEncoding

/// One chat message (smp.md §6.2): the sender's version range, the shared id of content messages, and the event.
public struct ChatMessage: Hashable, Sendable {
    public var chatVRange: ChatVersionRange
    public var msgId: SharedMsgId?
    public var event: ChatMsgEvent

    public init(chatVRange: ChatVersionRange = .advertised, msgId: SharedMsgId? = nil, event: ChatMsgEvent) {
        self.chatVRange = chatVRange
        self.msgId = msgId
        self.event = event
    }

    /// The container in the reference encoder's order, `v`, `msgId`, `event`, `params`; the params object with its
    /// keys sorted, as aeson writes the `J.Object` the core builds.
    public var json: JSONValue {
        var fields = [JSONField("v", .string(chatVRange.text))]
        if let msgId { fields.append(JSONField("msgId", msgId.json)) }
        fields.append(JSONField("event", .string(event.tag)))
        fields.append(JSONField("params", event.params.keysSorted))
        return .object(fields)
    }

    /// The compact JSON text, as sent.
    public var encoded: [UInt8] { json.renderedBytes }

    /// Reads a message from parsed JSON: unknown keys are ignored and unknown events kept; `v` absent or `null`
    /// means the initial range.
    public init(_ value: CanonicalJSON) throws(ChatProtocolError) {
        let input = JSONInput(value)
        let (range, msgId, tag, params) = try reading { () throws(ChatError) in
            _ = try input.object()
            let v = try input.member("v")?.string()
            let msgId = try input.member("msgId").map { (m) throws(ChatError) in try SharedMsgId(m) }
            let tag = try input.string("event")
            let params = try input.required("params").object()
            return (v, msgId, tag, params)
        }
        chatVRange = try range.map { (r) throws(ChatProtocolError) in try ChatVersionRange(parsing: r) } ?? .initial
        self.msgId = msgId
        event = try ChatMsgEvent(tag: tag, params: params)
    }
}

/// The events of direct chats (smp.md §6.5), named by their tags. Every other event, groups', files' and calls'
/// included, is kept as it came (`unknown`), to be stored and ignored rather than dropped.
public enum ChatMsgEvent: Hashable, Sendable {
    /// `x.msg.new`.
    case msgNew(MsgContainer)
    /// `x.msg.update`: an edit of the sender's own message.
    case msgUpdate(MsgUpdate)
    /// `x.msg.del`.
    case msgDel(msgId: SharedMsgId, memberId: MemberId?, scope: CanonicalJSON?)
    /// `x.msg.react`.
    case msgReact(MsgReact)
    /// `x.info`: the profile, in the handshake and as a later update.
    case info(Profile)
    /// `x.contact`: the conn info of a request through an address.
    case contact(ContactRequest)
    /// `x.direct.del`: the contact deleted the conversation.
    case directDel
    /// `x.ok`: conn info without a profile.
    case ok
    /// `x.info.probe`.
    case infoProbe(WireBytes)
    /// `x.info.probe.check`: SHA-256 of a probe.
    case infoProbeCheck(WireBytes)
    /// `x.info.probe.ok`.
    case infoProbeOk(WireBytes)
    /// An event this core does not interpret, with its params as received.
    case unknown(event: String, params: CanonicalJSON)

    public var tag: String {
        switch self {
        case .msgNew: "x.msg.new"
        case .msgUpdate: "x.msg.update"
        case .msgDel: "x.msg.del"
        case .msgReact: "x.msg.react"
        case .info: "x.info"
        case .contact: "x.contact"
        case .directDel: "x.direct.del"
        case .ok: "x.ok"
        case .infoProbe: "x.info.probe"
        case .infoProbeCheck: "x.info.probe.check"
        case .infoProbeOk: "x.info.probe.ok"
        case .unknown(let event, _): event
        }
    }

    /// Whether SEND carries the notification flag for this event (`hasNotification`, smp.md §6.6).
    public static func hasNotification(_ tag: String) -> Bool {
        ["x.msg.new", "x.file", "x.contact", "x.grp.inv", "x.grp.mem.fwd", "x.grp.del", "x.call.inv"].contains(tag)
    }

    /// Whether receiving this event asks for a delivery receipt (`hasDeliveryReceipt`).
    public static func hasDeliveryReceipt(_ tag: String) -> Bool {
        ["x.msg.new", "x.grp.inv", "x.call.inv"].contains(tag)
    }

    var params: JSONValue {
        switch self {
        case .msgNew(let container): container.json
        case .msgUpdate(let update): update.json
        case .msgDel(let msgId, let memberId, let scope):
            .record(["msgId": msgId.json, "memberId": memberId?.json, "scope": scope.map(JSONValue.init)])
        case .msgReact(let react): react.json
        case .info(let profile): .record(["profile": profile.json])
        case .contact(let request): request.json
        case .directDel, .ok: .object([])
        case .infoProbe(let probe), .infoProbeOk(let probe): .record(["probe": probe.json])
        case .infoProbeCheck(let hash): .record(["probeHash": hash.json])
        case .unknown(_, let params): JSONValue(params)
        }
    }

    init(tag: String, params: JSONInput) throws(ChatProtocolError) {
        let p = params
        self = try reading { () throws(ChatError) -> ChatMsgEvent in
            switch tag {
            case "x.msg.new": return .msgNew(try MsgContainer(p))
            case "x.msg.update": return .msgUpdate(try MsgUpdate(p))
            case "x.msg.del":
                return .msgDel(
                    msgId: try SharedMsgId(p.required("msgId")),
                    memberId: try p.member("memberId").map { (m) throws(ChatError) in try MemberId(m) },
                    scope: try p.member("scope")?.object().value)
            case "x.msg.react": return .msgReact(try MsgReact(p))
            case "x.info": return .info(try Profile(p.required("profile")))
            case "x.contact": return .contact(try ContactRequest(p))
            case "x.direct.del": return .directDel
            case "x.ok": return .ok
            case "x.info.probe": return .infoProbe(try WireBytes(p.required("probe")))
            case "x.info.probe.check": return .infoProbeCheck(try WireBytes(p.required("probeHash")))
            case "x.info.probe.ok": return .infoProbeOk(try WireBytes(p.required("probe")))
            default: return .unknown(event: tag, params: p.value)
            }
        }
    }
}

/// `x.msg.new` params (MsgContainer): the content and what goes with it, and at most one of a quote or the
/// forwarded mark.
public struct MsgContainer: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case simple
        case quote(QuotedMsg)
        case forward
    }

    public var content: MsgContent
    public var kind: Kind
    /// FileInvitation; files go over XFTP, which is not served yet, so it is carried as received.
    public var file: CanonicalJSON?
    /// Seconds until the message disappears.
    public var ttl: Int64?
    public var live: Bool?
    /// Mention name → member id (groups).
    public var mentions: [String: MemberId]
    /// MsgScope (groups), carried as received.
    public var scope: CanonicalJSON?

    public init(content: MsgContent, kind: Kind = .simple, ttl: Int64? = nil, live: Bool? = nil) {
        self.content = content
        self.kind = kind
        self.ttl = ttl
        self.live = live
        mentions = [:]
    }

    var json: JSONValue {
        var fields = [JSONField("content", content.json)]
        switch kind {
        case .simple: break
        case .quote(let q): fields.append(JSONField("quote", q.json))
        case .forward: fields.append(JSONField("forward", .bool(true)))
        }
        if let file { fields.append(JSONField("file", JSONValue(file))) }
        if let ttl { fields.append(JSONField("ttl", .integer(ttl))) }
        if let live { fields.append(JSONField("live", .bool(live))) }
        if let m = mentionsJSON(mentions) { fields.append(JSONField("mentions", m)) }
        if let scope { fields.append(JSONField("scope", JSONValue(scope))) }
        return .object(fields)
    }

    init(_ p: JSONInput) throws(ChatError) {
        content = try MsgContent(p.required("content"))
        // The reference tries a quote, then a forward, then a plain message (`<|>`): a quote it cannot read, or a
        // `forward` that is neither a Bool nor an object, leaves a plain message rather than a refusal.
        if let q = try p.member("quote"), let quote = try? QuotedMsg(q) {
            kind = .quote(quote)
        } else {
            switch try p.member("forward")?.value {
            case .bool(true)?, .object?: kind = .forward
            default: kind = .simple
            }
        }
        file = try p.member("file")?.object().value
        ttl = try p.optionalInteger("ttl")
        live = try p.optionalBool("live")
        mentions = try readMentions(p.member("mentions"))
        scope = try p.member("scope")?.object().value
    }
}

/// `{name: {"memberId": …}}`, omitted when empty.
private func mentionsJSON(_ mentions: [String: MemberId]) -> JSONValue? {
    guard !mentions.isEmpty else { return nil }
    return .object(mentions.map { JSONField($0.key, .record(["memberId": $0.value.json])) })
}

private func readMentions(_ input: JSONInput?) throws(ChatError) -> [String: MemberId] {
    guard let input else { return [:] }
    _ = try input.object()
    guard case .object(let fields) = input.value else { return [:] }
    var mentions: [String: MemberId] = [:]
    for key in fields.keys {
        mentions[key] = try MemberId(input.required(key).object().required("memberId"))
    }
    return mentions
}

/// A reply's reference to the message it quotes, and that message's content.
public struct QuotedMsg: Hashable, Sendable {
    public var msgRef: MsgRef
    public var content: MsgContent

    public init(msgRef: MsgRef, content: MsgContent) {
        self.msgRef = msgRef
        self.content = content
    }

    var json: JSONValue { .record(["msgRef": msgRef.json, "content": content.json]) }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        msgRef = try MsgRef(input.required("msgRef"))
        content = try MsgContent(input.required("content"))
    }
}

/// MsgRef: which message is meant, when it was sent, and whether by the party that refers to it.
public struct MsgRef: Hashable, Sendable {
    public var msgId: SharedMsgId?
    public var sentAt: UTCTime
    /// The quoted message was sent by the quoting party.
    public var sent: Bool
    public var memberId: MemberId?

    public init(msgId: SharedMsgId?, sentAt: UTCTime, sent: Bool, memberId: MemberId? = nil) {
        self.msgId = msgId
        self.sentAt = sentAt
        self.sent = sent
        self.memberId = memberId
    }

    var json: JSONValue {
        .record(["msgId": msgId?.json, "sentAt": sentAt.json, "sent": .bool(sent), "memberId": memberId?.json])
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        msgId = try input.member("msgId").map { (m) throws(ChatError) in try SharedMsgId(m) }
        let at = try input.required("sentAt")
        guard let time = UTCTime(iso8601: try at.string()) else { throw at.fail("could not parse date") }
        sentAt = time
        sent = try input.required("sent").bool()
        memberId = try input.member("memberId").map { (m) throws(ChatError) in try MemberId(m) }
    }
}

/// `x.msg.update` params.
public struct MsgUpdate: Hashable, Sendable {
    public var msgId: SharedMsgId
    public var content: MsgContent
    public var mentions: [String: MemberId]
    public var ttl: Int64?
    public var live: Bool?
    public var scope: CanonicalJSON?

    public init(msgId: SharedMsgId, content: MsgContent, ttl: Int64? = nil, live: Bool? = nil) {
        self.msgId = msgId
        self.content = content
        mentions = [:]
        self.ttl = ttl
        self.live = live
    }

    var json: JSONValue {
        .record([
            "msgId": msgId.json, "content": content.json, "mentions": mentionsJSON(mentions), "ttl": ttl?.json,
            "live": live?.json, "scope": scope.map(JSONValue.init),
        ])
    }

    init(_ p: JSONInput) throws(ChatError) {
        msgId = try SharedMsgId(p.required("msgId"))
        content = try MsgContent(p.required("content"))
        mentions = try readMentions(p.member("mentions"))
        ttl = try p.optionalInteger("ttl")
        live = try p.optionalBool("live")
        scope = try p.member("scope")?.object().value
    }
}

/// `x.msg.react` params.
public struct MsgReact: Hashable, Sendable {
    public var msgId: SharedMsgId
    public var memberId: MemberId?
    public var scope: CanonicalJSON?
    public var reaction: MsgReaction
    public var add: Bool

    public init(msgId: SharedMsgId, reaction: MsgReaction, add: Bool) {
        self.msgId = msgId
        self.reaction = reaction
        self.add = add
    }

    var json: JSONValue {
        .record([
            "msgId": msgId.json, "memberId": memberId?.json, "scope": scope.map(JSONValue.init),
            "reaction": reaction.json, "add": .bool(add),
        ])
    }

    init(_ p: JSONInput) throws(ChatError) {
        msgId = try SharedMsgId(p.required("msgId"))
        memberId = try p.member("memberId").map { (m) throws(ChatError) in try MemberId(m) }
        scope = try p.member("scope")?.object().value
        reaction = try MsgReaction(wire: p.required("reaction"))
        add = try p.required("add").bool()
    }
}

/// `x.contact` params: the requester's profile, the id that makes repeated requests one, and an optional message.
public struct ContactRequest: Hashable, Sendable {
    public var profile: Profile
    /// `XContactId`: 16 random bytes, the same for every retry of one request.
    public var contactReqId: WireBytes?
    public var welcomeMsgId: SharedMsgId?
    /// The request's message, only when both its id and content are present.
    public var requestMsg: (msgId: SharedMsgId, content: MsgContent)?

    public init(profile: Profile, contactReqId: WireBytes? = nil) {
        self.profile = profile
        self.contactReqId = contactReqId
    }

    public static func == (a: ContactRequest, b: ContactRequest) -> Bool {
        a.profile == b.profile && a.contactReqId == b.contactReqId && a.welcomeMsgId == b.welcomeMsgId
            && a.requestMsg?.msgId == b.requestMsg?.msgId && a.requestMsg?.content == b.requestMsg?.content
    }

    public func hash(into h: inout Hasher) {
        h.combine(profile)
        h.combine(contactReqId)
        h.combine(requestMsg?.msgId)
    }

    var json: JSONValue {
        .record([
            "profile": profile.json, "contactReqId": contactReqId?.json, "welcomeMsgId": welcomeMsgId?.json,
            "msgId": requestMsg?.msgId.json, "content": requestMsg?.content.json,
        ])
    }

    init(_ p: JSONInput) throws(ChatError) {
        profile = try Profile(p.required("profile"))
        contactReqId = try p.member("contactReqId").map { (m) throws(ChatError) in try WireBytes(m) }
        welcomeMsgId = try p.member("welcomeMsgId").map { (m) throws(ChatError) in try SharedMsgId(m) }
        let id = try p.member("msgId").map { (m) throws(ChatError) in try SharedMsgId(m) }
        let content = try p.member("content").map { (c) throws(ChatError) in try MsgContent(c) }
        if let id, let content { requestMsg = (id, content) }
    }
}
