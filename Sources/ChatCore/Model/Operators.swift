internal import ChatModel

// Server operators, usage conditions and users' servers (chat-api.md §7.29). JSON fields follow the official
// records' order (`defaultJSON`); tagged unions drop the constructor prefixes (`CA`, `UCA`, `USE`, `USW`).

/// The preset operators' tags (`OperatorTag`).
public enum OperatorTag: String, Hashable, Sendable {
    case simplex
    case flux
}

/// What an operator's servers are used for (`ServerRoles`): storing messages or files, and proxying to other servers.
public struct ServerRoles: Hashable, Sendable {
    public var storage: Bool
    public var proxy: Bool

    public static let all = ServerRoles(storage: true, proxy: true)

    public init(storage: Bool, proxy: Bool) {
        self.storage = storage
        self.proxy = proxy
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        storage = try input.required("storage").bool()
        proxy = try input.required("proxy").bool()
    }

    /// The human form's roles: `on`, `off`, `storage`, `proxy`; none given is `on`.
    init(human word: String?) {
        switch word {
        case "off": self.init(storage: false, proxy: false)
        case "storage": self.init(storage: true, proxy: false)
        case "proxy": self.init(storage: false, proxy: true)
        default: self = .all
        }
    }

    public var json: JSONValue { .record(["storage": .bool(storage), "proxy": .bool(proxy)]) }
}

/// Whether an operator accepted the current usage conditions (`ConditionsAcceptance`).
public enum ConditionsAcceptance: Hashable, Sendable {
    case accepted(acceptedAt: UTCTime?, autoAccepted: Bool)
    /// Not accepted; with a deadline the operator's servers are used until then.
    case required(deadline: UTCTime?)

    var isAccepted: Bool {
        if case .accepted = self { return true }
        return false
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        switch try input.string("type") {
        case "accepted":
            self = .accepted(
                acceptedAt: try input.member("acceptedAt").map { (t) throws(ChatError) in try t.utcTime() },
                autoAccepted: try input.required("autoAccepted").bool())
        case "required":
            self = .required(deadline: try input.member("deadline").map { (t) throws(ChatError) in try t.utcTime() })
        case let other: throw input.fail("unknown ConditionsAcceptance \"\(other)\"")
        }
    }

    public var json: JSONValue {
        switch self {
        case .accepted(let at, let auto): .tagged("accepted", ["acceptedAt": at?.json, "autoAccepted": .bool(auto)])
        case .required(let deadline): .tagged("required", ["deadline": deadline?.json])
        }
    }
}

/// A server operator (`ServerOperator`); its servers are those whose hosts end with one of its domains.
public struct ServerOperator: Hashable, Sendable, JSONEncodable {
    public var operatorId: Int64
    public var operatorTag: OperatorTag?
    public var tradeName: String
    public var legalName: String?
    public var serverDomains: [String]
    public var conditionsAcceptance: ConditionsAcceptance
    public var enabled: Bool
    public var smpRoles: ServerRoles
    public var xftpRoles: ServerRoles

    func roles(_ p: ServerProtocol) -> ServerRoles {
        switch p {
        case .smp: smpRoles
        case .xftp: xftpRoles
        }
    }

    /// The core's `matchingHost`: a domain name host that ends with one of the operator's domains.
    func operates(_ address: ServerAddress) -> Bool {
        serverDomains.contains { d in address.domainNames.contains { $0.hasSuffix(d) } }
    }

    init(
        operatorId: Int64, operatorTag: OperatorTag?, tradeName: String, legalName: String?, serverDomains: [String],
        conditionsAcceptance: ConditionsAcceptance, enabled: Bool, smpRoles: ServerRoles, xftpRoles: ServerRoles
    ) {
        self.operatorId = operatorId
        self.operatorTag = operatorTag
        self.tradeName = tradeName
        self.legalName = legalName
        self.serverDomains = serverDomains
        self.conditionsAcceptance = conditionsAcceptance
        self.enabled = enabled
        self.smpRoles = smpRoles
        self.xftpRoles = xftpRoles
    }

    /// A stored operator as a client sends it back: every field is read, only the id, `enabled` and roles are used.
    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        operatorId = try input.required("operatorId").integer()
        operatorTag = try input.member("operatorTag").map { (t) throws(ChatError) in try t.enumeration(OperatorTag.self) }
        tradeName = try input.string("tradeName")
        legalName = try input.optionalString("legalName")
        serverDomains = try input.required("serverDomains").array().map { (d) throws(ChatError) in try d.string() }
        conditionsAcceptance = try ConditionsAcceptance(input.required("conditionsAcceptance"))
        enabled = try input.required("enabled").bool()
        smpRoles = try ServerRoles(input.required("smpRoles"))
        xftpRoles = try ServerRoles(input.required("xftpRoles"))
    }

    public var json: JSONValue {
        .record([
            "operatorId": .integer(operatorId), "operatorTag": operatorTag.map { .string($0.rawValue) },
            "tradeName": .string(tradeName), "legalName": legalName.map(JSONValue.string),
            "serverDomains": .array(serverDomains.map(JSONValue.string)), "conditionsAcceptance": conditionsAcceptance.json,
            "enabled": .bool(enabled), "smpRoles": smpRoles.json, "xftpRoles": xftpRoles.json,
        ])
    }
}

/// A version of the usage conditions, named by the commit of the conditions' text (`UsageConditions`).
public struct UsageConditions: Hashable, Sendable, JSONEncodable {
    public var conditionsId: Int64
    public var conditionsCommit: String
    public var notifiedAt: UTCTime?
    public var createdAt: UTCTime

    public var json: JSONValue {
        .record([
            "conditionsId": .integer(conditionsId), "conditionsCommit": .string(conditionsCommit),
            "notifiedAt": notifiedAt?.json, "createdAt": createdAt.json,
        ])
    }

    /// The core's `conditionsRequiredOrDeadline`: conditions seen within 14 days of their publication may be accepted
    /// until 31 days after they were seen; later they are required at once (no deadline).
    func deadline(seenAt: UTCTime) -> UTCTime? {
        seenAt < createdAt.adding(seconds: 14 * 86400) ? seenAt.adding(seconds: 31 * 86400) : nil
    }
}

/// What the user is asked to do about the conditions (`UsageConditionsAction`).
public enum UsageConditionsAction: Hashable, Sendable {
    case review(operators: [ServerOperator], deadline: UTCTime?, showNotice: Bool)
    case accepted(operators: [ServerOperator])

    /// The core's `usageConditionsAction`: nothing without enabled operators; `accepted` once every enabled operator
    /// accepted; else a review of the enabled operators that did not, noticed once.
    init?(operators: [ServerOperator], conditions: UsageConditions, now: UTCTime) {
        let enabled = operators.filter(\.enabled)
        if enabled.isEmpty { return nil }
        if enabled.allSatisfy(\.conditionsAcceptance.isAccepted) {
            self = .accepted(operators: operators.filter(\.conditionsAcceptance.isAccepted))
        } else {
            self = .review(
                operators: enabled.filter { !$0.conditionsAcceptance.isAccepted },
                deadline: conditions.deadline(seenAt: conditions.notifiedAt ?? now),
                showNotice: conditions.notifiedAt == nil)
        }
    }

    public var json: JSONValue {
        switch self {
        case .review(let ops, let deadline, let notice):
            .tagged("review", ["operators": .list(ops), "deadline": deadline?.json, "showNotice": .bool(notice)])
        case .accepted(let ops): .tagged("accepted", ["operators": .list(ops)])
        }
    }
}

/// The operators with the current conditions (`ServerOperatorConditions`).
public struct ServerOperatorConditions: Hashable, Sendable {
    public var serverOperators: [ServerOperator]
    public var currentConditions: UsageConditions
    public var conditionsAction: UsageConditionsAction?

    public var json: JSONValue {
        .record([
            "serverOperators": .list(serverOperators), "currentConditions": currentConditions.json,
            "conditionsAction": conditionsAction?.json,
        ])
    }
}

/// One of a user's servers (`UserServer`); `serverId` is nil for a server the client adds.
public struct UserServer: Hashable, Sendable, JSONEncodable {
    public var serverId: Int64?
    public var server: ServerAddress
    public var preset: Bool
    public var tested: Bool?
    public var enabled: Bool
    /// Set by the client to remove the server; stored servers are never deleted.
    public var deleted: Bool

    init(serverId: Int64?, server: ServerAddress, preset: Bool, tested: Bool?, enabled: Bool, deleted: Bool = false) {
        self.serverId = serverId
        self.server = server
        self.preset = preset
        self.tested = tested
        self.enabled = enabled
        self.deleted = deleted
    }

    /// A server of `serverProtocol` from a client; the address must parse and be of that protocol.
    init(_ input: JSONInput, _ serverProtocol: ServerProtocol) throws(ChatError) {
        _ = try input.object()
        serverId = try input.optionalInteger("serverId")
        let field = try input.required("server")
        let text = try field.string()
        do {
            server = try ServerAddress(parsing: text)
        } catch {
            throw field.fail("bad server address: \(error.reason)")
        }
        guard server.serverProtocol == serverProtocol else {
            throw field.fail("bad server address: expected a \(serverProtocol.rawValue):// server")
        }
        preset = try input.required("preset").bool()
        tested = try input.optionalBool("tested")
        enabled = try input.required("enabled").bool()
        deleted = try input.required("deleted").bool()
    }

    public var json: JSONValue {
        .record([
            "serverId": serverId.map(JSONValue.integer), "server": .string(server.text), "preset": .bool(preset),
            "tested": tested.map(JSONValue.bool), "enabled": .bool(enabled), "deleted": .bool(deleted),
        ])
    }
}

/// A chat relay as a client submits it with its servers. The embedded core keeps none; it reads what validation
/// needs (`UserChatRelay`: the name is the relay profile's display name).
public struct SubmittedChatRelay: Hashable, Sendable {
    public var name: String
    public var address: String
    public var enabled: Bool
    public var deleted: Bool
    let value: JSONValue

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        if let profile = try input.member("relayProfile") {
            name = try profile.string("displayName")
        } else {
            name = try input.string("name")
        }
        address = try input.string("address")
        enabled = try input.required("enabled").bool()
        deleted = try input.required("deleted").bool()
        value = JSONValue(input.value)
    }
}

/// A user's servers of one operator, or (without `operator`) the user's own (`UserOperatorServers`).
public struct UserOperatorServers: Hashable, Sendable, JSONEncodable {
    public var `operator`: ServerOperator?
    public var smpServers: [UserServer]
    public var xftpServers: [UserServer]
    public var chatRelays: [SubmittedChatRelay] = []

    init(operator op: ServerOperator?, smpServers: [UserServer] = [], xftpServers: [UserServer] = []) {
        self.operator = op
        self.smpServers = smpServers
        self.xftpServers = xftpServers
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        self.operator = try input.member("operator").map { (o) throws(ChatError) in try ServerOperator(o) }
        smpServers = try input.required("smpServers").array().map { (s) throws(ChatError) in try UserServer(s, .smp) }
        xftpServers = try input.required("xftpServers").array().map { (s) throws(ChatError) in try UserServer(s, .xftp) }
        // Clients older than chat relays do not send them.
        chatRelays = try (input.member("chatRelays")?.array() ?? []).map { (r) throws(ChatError) in
            try SubmittedChatRelay(r)
        }
    }

    func servers(_ p: ServerProtocol) -> [UserServer] {
        switch p {
        case .smp: smpServers
        case .xftp: xftpServers
        }
    }

    public var json: JSONValue {
        .record([
            "operator": self.operator?.json, "smpServers": .list(smpServers), "xftpServers": .list(xftpServers),
            "chatRelays": .array(chatRelays.map(\.value)),
        ])
    }
}

extension JSONInput {
    /// A `UTCTime` string.
    func utcTime() throws(ChatError) -> UTCTime {
        let text = try string()
        guard let t = UTCTime(iso8601: text) else { throw fail("could not parse date-time \"\(text)\"") }
        return t
    }

    /// A JSON array that must not be empty (the core's `NonEmpty`).
    func nonEmptyArray() throws(ChatError) -> [JSONInput] {
        let items = try array()
        guard !items.isEmpty else { throw fail("parsing NonEmpty failed, unexpected empty list") }
        return items
    }
}
