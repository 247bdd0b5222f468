public import SimplexEncoding

// Contacts and their connections (chat-api.md §7.6–7.9, §7.33), in the field order of the official records
// (Types.hs); optional fields are left out when absent, as `omitNothingFields` leaves them out.

/// The agent's id of a connection (`Connection.agentConnId`, `pccAgentConnId`).
public struct AgentConnId: StrEncodedBytes {
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
}

/// The agent's id of a received contact request (`UserContactRequest.agentInvitationId`).
public struct AgentInvId: StrEncodedBytes {
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
}

/// The id a peer joining through an address sends in `x.contact`, so that a repeated request is recognised.
public struct XContactId: StrEncodedBytes {
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
}

/// The id of a group link a connection came through.
public struct GroupLinkId: StrEncodedBytes {
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
}

/// ConnStatus (chat-api.md §7.6). Written in the tagged form of the newest core (`{"type":"sndReady"}`, and `failed`
/// with its error), which is what the current clients' types decode; read in that form and in the plain strings
/// (`"snd-ready"`) older cores wrote. The store keeps the plain strings.
public enum ConnStatus: Hashable, Sendable, JSONWritable {
    case new, prepared, joined, requested, accepted, sndReady, ready, deleted
    case failed(connError: String)

    public func write(to w: inout JSONWriter) {
        switch self {
        case .new: w.tagged("new")
        case .prepared: w.tagged("prepared")
        case .joined: w.tagged("joined")
        case .requested: w.tagged("requested")
        case .accepted: w.tagged("accepted")
        case .sndReady: w.tagged("sndReady")
        case .ready: w.tagged("ready")
        case .deleted: w.tagged("deleted")
        case .failed(let error):
            w.beginTagged("failed")
            w.field("connError", error)
            w.endObject()
        }
    }

    /// The plain text of the status (`textEncode`), as the store keeps it; `failed` keeps its error beside it.
    var storeText: String {
        switch self {
        case .new: "new"
        case .prepared: "prepared"
        case .joined: "joined"
        case .requested: "requested"
        case .accepted: "accepted"
        case .sndReady: "snd-ready"
        case .ready: "ready"
        case .deleted: "deleted"
        case .failed: "failed"
        }
    }

    var connError: String? {
        if case .failed(let e) = self { return e }
        return nil
    }

    init?(storeText: String, connError: String?) {
        switch storeText {
        case "new": self = .new
        case "prepared": self = .prepared
        case "joined": self = .joined
        case "requested": self = .requested
        case "accepted": self = .accepted
        case "snd-ready": self = .sndReady
        case "ready": self = .ready
        case "deleted": self = .deleted
        case "failed": self = .failed(connError: connError ?? "")
        default: return nil
        }
    }

    init(_ input: JSONInput) throws(ChatError) {
        if case .string(let text) = input.value {
            guard text != "failed", let status = ConnStatus(storeText: text, connError: nil) else {
                throw input.fail("unexpected value \"\(text)\"")
            }
            self = status
            return
        }
        _ = try input.object()
        let tag = try input.string("type")
        switch tag {
        case "sndReady": self = .sndReady
        case "failed": self = .failed(connError: try input.string("connError"))
        case "snd-ready": throw input.fail("unexpected type \"\(tag)\"")
        default:
            guard let status = ConnStatus(storeText: tag, connError: nil), status != .failed(connError: "") else {
                throw input.fail("unexpected type \"\(tag)\"")
            }
            self = status
        }
    }
}

/// ConnType (chat-api.md §2.5): what a connection belongs to.
public enum ConnType: String, Hashable, Sendable {
    case contact, member
    case userContact = "user_contact"
}

/// SecurityCode (`Connection.connectionCode`): the code the user verified, and when.
public struct SecurityCode: Hashable, Sendable, JSONWritable {
    public var securityCode: String
    public var verifiedAt: UTCTime

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("securityCode", securityCode)
        w.field("verifiedAt", verifiedAt)
        w.endObject()
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        securityCode = try input.string("securityCode")
        verifiedAt = try input.required("verifiedAt").time()
    }

    init(securityCode: String, verifiedAt: UTCTime) {
        self.securityCode = securityCode
        self.verifiedAt = verifiedAt
    }
}

extension ChatVersionRange {
    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        self.init(minVersion: try input.required("minVersion").integer(), maxVersion: try input.required("maxVersion").integer())
        guard minVersion >= 0, minVersion <= maxVersion else { throw input.fail("invalid version range") }
    }
}

/// Connection (chat-api.md §7.6): the chat's side of an agent connection.
public struct Connection: Hashable, Sendable, JSONWritable {
    public var connId: Int64
    public var agentConnId: AgentConnId
    public var connChatVersion: Int64
    public var peerChatVRange: ChatVersionRange
    /// 0 for a direct connection; more for one made through group introductions.
    public var connLevel: Int64
    public var viaContact: Int64?
    public var viaUserContactLink: Int64?
    public var viaGroupLink: Bool
    public var groupLinkId: GroupLinkId?
    public var xContactId: XContactId?
    /// The incognito profile the user shows on this connection.
    public var customUserProfileId: Int64?
    public var connType: ConnType
    public var connStatus: ConnStatus
    public var contactConnInitiated: Bool
    public var localAlias: String
    /// The contact, member or address the connection belongs to.
    public var entityId: Int64?
    public var connectionCode: SecurityCode?
    public var pqSupport: Bool
    public var pqEncryption: Bool
    public var pqSndEnabled: Bool?
    public var pqRcvEnabled: Bool?
    public var authErrCounter: Int64
    public var quotaErrCounter: Int64
    public var createdAt: UTCTime

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("connId", connId)
        w.field("agentConnId", agentConnId)
        w.field("connChatVersion", connChatVersion)
        w.field("peerChatVRange", peerChatVRange)
        w.field("connLevel", connLevel)
        w.field("viaContact", viaContact)
        w.field("viaUserContactLink", viaUserContactLink)
        w.field("viaGroupLink", viaGroupLink)
        w.field("groupLinkId", groupLinkId)
        w.field("xContactId", xContactId)
        w.field("customUserProfileId", customUserProfileId)
        w.field("connType", connType.rawValue)
        w.field("connStatus", connStatus)
        w.field("contactConnInitiated", contactConnInitiated)
        w.field("localAlias", localAlias)
        w.field("entityId", entityId)
        w.field("connectionCode", connectionCode)
        w.field("pqSupport", pqSupport)
        w.field("pqEncryption", pqEncryption)
        w.field("pqSndEnabled", pqSndEnabled)
        w.field("pqRcvEnabled", pqRcvEnabled)
        w.field("authErrCounter", authErrCounter)
        w.field("quotaErrCounter", quotaErrCounter)
        w.field("createdAt", createdAt)
        w.endObject()
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        connId = try input.required("connId").integer()
        agentConnId = try AgentConnId(input.required("agentConnId"))
        connChatVersion = try input.required("connChatVersion").integer()
        peerChatVRange = try ChatVersionRange(input.required("peerChatVRange"))
        connLevel = try input.required("connLevel").integer()
        viaContact = try input.optionalInteger("viaContact")
        viaUserContactLink = try input.optionalInteger("viaUserContactLink")
        viaGroupLink = try input.required("viaGroupLink").bool()
        groupLinkId = try input.member("groupLinkId").map { (i) throws(ChatError) in try GroupLinkId(i) }
        xContactId = try input.member("xContactId").map { (i) throws(ChatError) in try XContactId(i) }
        customUserProfileId = try input.optionalInteger("customUserProfileId")
        connType = try input.required("connType").enumeration(ConnType.self)
        connStatus = try ConnStatus(input.required("connStatus"))
        contactConnInitiated = try input.required("contactConnInitiated").bool()
        localAlias = try input.string("localAlias")
        entityId = try input.optionalInteger("entityId")
        connectionCode = try input.member("connectionCode").map { (i) throws(ChatError) in try SecurityCode(i) }
        pqSupport = try input.required("pqSupport").bool()
        pqEncryption = try input.required("pqEncryption").bool()
        pqSndEnabled = try input.optionalBool("pqSndEnabled")
        pqRcvEnabled = try input.optionalBool("pqRcvEnabled")
        authErrCounter = try input.required("authErrCounter").integer()
        quotaErrCounter = try input.required("quotaErrCounter").integer()
        createdAt = try input.required("createdAt").time()
    }

    init(
        connId: Int64, agentConnId: AgentConnId, connChatVersion: Int64, peerChatVRange: ChatVersionRange,
        connLevel: Int64 = 0, viaContact: Int64? = nil, viaUserContactLink: Int64? = nil, viaGroupLink: Bool = false,
        groupLinkId: GroupLinkId? = nil, xContactId: XContactId? = nil, customUserProfileId: Int64? = nil,
        connType: ConnType, connStatus: ConnStatus, contactConnInitiated: Bool, localAlias: String = "",
        entityId: Int64?, connectionCode: SecurityCode? = nil, pqSupport: Bool, pqEncryption: Bool,
        pqSndEnabled: Bool? = nil, pqRcvEnabled: Bool? = nil, authErrCounter: Int64 = 0, quotaErrCounter: Int64 = 0,
        createdAt: UTCTime
    ) {
        self.connId = connId
        self.agentConnId = agentConnId
        self.connChatVersion = connChatVersion
        self.peerChatVRange = peerChatVRange
        self.connLevel = connLevel
        self.viaContact = viaContact
        self.viaUserContactLink = viaUserContactLink
        self.viaGroupLink = viaGroupLink
        self.groupLinkId = groupLinkId
        self.xContactId = xContactId
        self.customUserProfileId = customUserProfileId
        self.connType = connType
        self.connStatus = connStatus
        self.contactConnInitiated = contactConnInitiated
        self.localAlias = localAlias
        self.entityId = entityId
        self.connectionCode = connectionCode
        self.pqSupport = pqSupport
        self.pqEncryption = pqEncryption
        self.pqSndEnabled = pqSndEnabled
        self.pqRcvEnabled = pqRcvEnabled
        self.authErrCounter = authErrCounter
        self.quotaErrCounter = quotaErrCounter
        self.createdAt = createdAt
    }
}

/// ContactStatus (chat-api.md §2.5).
public enum ContactStatus: String, Hashable, Sendable {
    case active, deleted, deletedByUser
}

/// CreatedConnLink (chat-api.md §7.33): a full link and, when made, its short form. Both are link strings the agent
/// writes; the chat layer keeps them as text.
public struct CreatedConnLink: Hashable, Sendable, JSONWritable {
    public var connFullLink: String
    public var connShortLink: String?

    public init(connFullLink: String, connShortLink: String? = nil) {
        self.connFullLink = connFullLink
        self.connShortLink = connShortLink
    }

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("connFullLink", connFullLink)
        w.field("connShortLink", connShortLink)
        w.endObject()
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        connFullLink = try input.string("connFullLink")
        connShortLink = try input.optionalString("connShortLink")
    }
}

/// ConnectionMode of `PreparedContact.uiConnLinkType`: the official encoder writes `strEncode` in lower case
/// (`inv`, `con`), whatever the generated types say.
public enum ConnectionMode: String, Hashable, Sendable {
    case invitation = "inv"
    case contact = "con"

    init(_ input: JSONInput) throws(ChatError) {
        let text = try input.string()
        // The official parser upper-cases first, so either case is read.
        guard let mode = ConnectionMode(rawValue: text.lowercased()) else { throw input.fail("unexpected value \"\(text)\"") }
        self = mode
    }
}

/// PreparedContact (chat-api.md §7.7): a contact made from a link before connecting to it.
public struct PreparedContact: Hashable, Sendable, JSONWritable {
    public var connLinkToConnect: CreatedConnLink
    public var uiConnLinkType: ConnectionMode
    public var welcomeSharedMsgId: SharedMsgId?
    public var requestSharedMsgId: SharedMsgId?

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("connLinkToConnect", connLinkToConnect)
        w.field("uiConnLinkType", uiConnLinkType.rawValue)
        w.field("welcomeSharedMsgId", welcomeSharedMsgId)
        w.field("requestSharedMsgId", requestSharedMsgId)
        w.endObject()
    }

    init(
        connLinkToConnect: CreatedConnLink, uiConnLinkType: ConnectionMode, welcomeSharedMsgId: SharedMsgId? = nil,
        requestSharedMsgId: SharedMsgId? = nil
    ) {
        self.connLinkToConnect = connLinkToConnect
        self.uiConnLinkType = uiConnLinkType
        self.welcomeSharedMsgId = welcomeSharedMsgId
        self.requestSharedMsgId = requestSharedMsgId
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        connLinkToConnect = try CreatedConnLink(input.required("connLinkToConnect"))
        uiConnLinkType = try ConnectionMode(input.required("uiConnLinkType"))
        welcomeSharedMsgId = try input.member("welcomeSharedMsgId").map { (i) throws(ChatError) in try i.sharedMsgId() }
        requestSharedMsgId = try input.member("requestSharedMsgId").map { (i) throws(ChatError) in try i.sharedMsgId() }
    }
}

/// GroupDirectInvitation (`Contact.groupDirectInv`): a member's invitation to a direct chat from a group.
public struct GroupDirectInvitation: Hashable, Sendable, JSONWritable {
    public var groupDirectInvLink: String
    public var fromGroupId: Int64?
    public var fromGroupMemberId: Int64?
    public var fromGroupMemberConnId: Int64?
    public var groupDirectInvStartedConnection: Bool

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("groupDirectInvLink", groupDirectInvLink)
        w.field("fromGroupId_", fromGroupId)
        w.field("fromGroupMemberId_", fromGroupMemberId)
        w.field("fromGroupMemberConnId_", fromGroupMemberConnId)
        w.field("groupDirectInvStartedConnection", groupDirectInvStartedConnection)
        w.endObject()
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        groupDirectInvLink = try input.string("groupDirectInvLink")
        fromGroupId = try input.optionalInteger("fromGroupId_")
        fromGroupMemberId = try input.optionalInteger("fromGroupMemberId_")
        fromGroupMemberConnId = try input.optionalInteger("fromGroupMemberConnId_")
        groupDirectInvStartedConnection = try input.required("groupDirectInvStartedConnection").bool()
    }
}

/// Contact (chat-api.md §7.7). `mergedPreferences` is an input here: the contact preferences merging that makes it
/// lives with the chat protocol, and the store keeps what it made.
public struct Contact: Hashable, Sendable, JSONWritable {
    public var contactId: Int64
    public var localDisplayName: String
    public var profile: LocalProfile
    public var activeConn: Connection?
    public var contactUsed: Bool
    public var contactStatus: ContactStatus
    public var chatSettings: ChatSettings
    /// The user's preferences for this contact only.
    public var userPreferences: Preferences
    public var mergedPreferences: ContactUserPreferences
    public var createdAt: UTCTime
    public var updatedAt: UTCTime
    public var chatTs: UTCTime?
    public var preparedContact: PreparedContact?
    public var contactRequestId: Int64?
    public var contactGroupMemberId: Int64?
    public var contactGrpInvSent: Bool
    public var groupDirectInv: GroupDirectInvitation?
    public var chatTags: [Int64]
    public var chatItemTTL: Int64?
    public var uiThemes: UIThemeEntityOverrides?
    public var chatDeleted: Bool
    public var customData: CanonicalJSON?

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("contactId", contactId)
        w.field("localDisplayName", localDisplayName)
        w.field("profile", profile)
        w.field("activeConn", activeConn)
        w.field("contactUsed", contactUsed)
        w.field("contactStatus", contactStatus.rawValue)
        w.field("chatSettings", chatSettings)
        w.field("userPreferences", userPreferences.json)
        w.field("mergedPreferences", mergedPreferences)
        w.field("createdAt", createdAt)
        w.field("updatedAt", updatedAt)
        w.field("chatTs", chatTs)
        w.field("preparedContact", preparedContact)
        w.field("contactRequestId", contactRequestId)
        w.field("contactGroupMemberId", contactGroupMemberId)
        w.field("contactGrpInvSent", contactGrpInvSent)
        w.field("groupDirectInv", groupDirectInv)
        w.field("chatTags", chatTags)
        w.field("chatItemTTL", chatItemTTL)
        w.field("uiThemes", uiThemes?.json)
        w.field("chatDeleted", chatDeleted)
        w.field("customData", customData.map(JSONValue.init))
        w.endObject()
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        contactId = try input.required("contactId").integer()
        localDisplayName = try input.string("localDisplayName")
        profile = try LocalProfile(input.required("profile"))
        activeConn = try input.member("activeConn").map { (i) throws(ChatError) in try Connection(i) }
        contactUsed = try input.required("contactUsed").bool()
        contactStatus = try input.required("contactStatus").enumeration(ContactStatus.self)
        chatSettings = try ChatSettings(input.required("chatSettings"))
        userPreferences = try Preferences(input.required("userPreferences"))
        mergedPreferences = try ContactUserPreferences(input.required("mergedPreferences"))
        createdAt = try input.required("createdAt").time()
        updatedAt = try input.required("updatedAt").time()
        chatTs = try input.member("chatTs")?.time()
        preparedContact = try input.member("preparedContact").map { (i) throws(ChatError) in try PreparedContact(i) }
        contactRequestId = try input.optionalInteger("contactRequestId")
        contactGroupMemberId = try input.optionalInteger("contactGroupMemberId")
        contactGrpInvSent = try input.optionalBool("contactGrpInvSent") ?? false
        groupDirectInv = try input.member("groupDirectInv").map { (i) throws(ChatError) in
            try GroupDirectInvitation(i)
        }
        chatTags = try (input.member("chatTags")?.array() ?? []).map { (i) throws(ChatError) in try i.integer() }
        chatItemTTL = try input.optionalInteger("chatItemTTL")
        uiThemes = try input.member("uiThemes").map { (i) throws(ChatError) in try UIThemeEntityOverrides(i) }
        chatDeleted = try input.optionalBool("chatDeleted") ?? false
        customData = try input.member("customData")?.object().value
    }

    init(
        contactId: Int64, localDisplayName: String, profile: LocalProfile, activeConn: Connection?,
        contactUsed: Bool, contactStatus: ContactStatus, chatSettings: ChatSettings, userPreferences: Preferences,
        mergedPreferences: ContactUserPreferences, createdAt: UTCTime, updatedAt: UTCTime, chatTs: UTCTime?,
        preparedContact: PreparedContact? = nil, contactRequestId: Int64? = nil, contactGroupMemberId: Int64? = nil,
        contactGrpInvSent: Bool = false, groupDirectInv: GroupDirectInvitation? = nil, chatTags: [Int64] = [],
        chatItemTTL: Int64? = nil, uiThemes: UIThemeEntityOverrides? = nil, chatDeleted: Bool = false,
        customData: CanonicalJSON? = nil
    ) {
        self.contactId = contactId
        self.localDisplayName = localDisplayName
        self.profile = profile
        self.activeConn = activeConn
        self.contactUsed = contactUsed
        self.contactStatus = contactStatus
        self.chatSettings = chatSettings
        self.userPreferences = userPreferences
        self.mergedPreferences = mergedPreferences
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.chatTs = chatTs
        self.preparedContact = preparedContact
        self.contactRequestId = contactRequestId
        self.contactGroupMemberId = contactGroupMemberId
        self.contactGrpInvSent = contactGrpInvSent
        self.groupDirectInv = groupDirectInv
        self.chatTags = chatTags
        self.chatItemTTL = chatItemTTL
        self.uiThemes = uiThemes
        self.chatDeleted = chatDeleted
        self.customData = customData
    }
}

/// PendingContactConnection (chat-api.md §7.8): a connection not yet a contact, `:<pccConnId>` in commands.
public struct PendingContactConnection: Hashable, Sendable, JSONWritable {
    public var pccConnId: Int64
    public var pccAgentConnId: AgentConnId
    public var pccConnStatus: ConnStatus
    /// Joined through the peer's address rather than an invitation.
    public var viaContactUri: Bool
    public var viaUserContactLink: Int64?
    public var groupLinkId: GroupLinkId?
    public var customUserProfileId: Int64?
    /// The user's own invitation link, when the user made the connection.
    public var connLinkInv: CreatedConnLink?
    public var localAlias: String
    public var createdAt: UTCTime
    public var updatedAt: UTCTime

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("pccConnId", pccConnId)
        w.field("pccAgentConnId", pccAgentConnId)
        w.field("pccConnStatus", pccConnStatus)
        w.field("viaContactUri", viaContactUri)
        w.field("viaUserContactLink", viaUserContactLink)
        w.field("groupLinkId", groupLinkId)
        w.field("customUserProfileId", customUserProfileId)
        w.field("connLinkInv", connLinkInv)
        w.field("localAlias", localAlias)
        w.field("createdAt", createdAt)
        w.field("updatedAt", updatedAt)
        w.endObject()
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        pccConnId = try input.required("pccConnId").integer()
        pccAgentConnId = try AgentConnId(input.required("pccAgentConnId"))
        pccConnStatus = try ConnStatus(input.required("pccConnStatus"))
        viaContactUri = try input.required("viaContactUri").bool()
        viaUserContactLink = try input.optionalInteger("viaUserContactLink")
        groupLinkId = try input.member("groupLinkId").map { (i) throws(ChatError) in try GroupLinkId(i) }
        customUserProfileId = try input.optionalInteger("customUserProfileId")
        connLinkInv = try input.member("connLinkInv").map { (i) throws(ChatError) in try CreatedConnLink(i) }
        localAlias = try input.string("localAlias")
        createdAt = try input.required("createdAt").time()
        updatedAt = try input.required("updatedAt").time()
    }

    init(
        pccConnId: Int64, pccAgentConnId: AgentConnId, pccConnStatus: ConnStatus, viaContactUri: Bool,
        viaUserContactLink: Int64? = nil, groupLinkId: GroupLinkId? = nil, customUserProfileId: Int64? = nil,
        connLinkInv: CreatedConnLink?, localAlias: String, createdAt: UTCTime, updatedAt: UTCTime
    ) {
        self.pccConnId = pccConnId
        self.pccAgentConnId = pccAgentConnId
        self.pccConnStatus = pccConnStatus
        self.viaContactUri = viaContactUri
        self.viaUserContactLink = viaUserContactLink
        self.groupLinkId = groupLinkId
        self.customUserProfileId = customUserProfileId
        self.connLinkInv = connLinkInv
        self.localAlias = localAlias
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// UserContactRequest (chat-api.md §7.9): a request received through the user's address.
public struct UserContactRequest: Hashable, Sendable, JSONWritable {
    public var contactRequestId: Int64
    public var agentInvitationId: AgentInvId
    public var contactId: Int64?
    public var businessGroupId: Int64?
    public var userContactLinkId: Int64?
    public var cReqChatVRange: ChatVersionRange
    public var localDisplayName: String
    public var profileId: Int64
    public var profile: LocalProfile
    public var createdAt: UTCTime
    public var updatedAt: UTCTime
    public var xContactId: XContactId?
    public var pqSupport: Bool
    public var welcomeSharedMsgId: SharedMsgId?
    public var requestSharedMsgId: SharedMsgId?

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("contactRequestId", contactRequestId)
        w.field("agentInvitationId", agentInvitationId)
        w.field("contactId_", contactId)
        w.field("businessGroupId_", businessGroupId)
        w.field("userContactLinkId_", userContactLinkId)
        w.field("cReqChatVRange", cReqChatVRange)
        w.field("localDisplayName", localDisplayName)
        w.field("profileId", profileId)
        w.field("profile", profile)
        w.field("createdAt", createdAt)
        w.field("updatedAt", updatedAt)
        w.field("xContactId", xContactId)
        w.field("pqSupport", pqSupport)
        w.field("welcomeSharedMsgId", welcomeSharedMsgId)
        w.field("requestSharedMsgId", requestSharedMsgId)
        w.endObject()
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        contactRequestId = try input.required("contactRequestId").integer()
        agentInvitationId = try AgentInvId(input.required("agentInvitationId"))
        contactId = try input.optionalInteger("contactId_")
        businessGroupId = try input.optionalInteger("businessGroupId_")
        userContactLinkId = try input.optionalInteger("userContactLinkId_")
        cReqChatVRange = try ChatVersionRange(input.required("cReqChatVRange"))
        localDisplayName = try input.string("localDisplayName")
        profileId = try input.required("profileId").integer()
        profile = try LocalProfile(input.required("profile"))
        createdAt = try input.required("createdAt").time()
        updatedAt = try input.required("updatedAt").time()
        xContactId = try input.member("xContactId").map { (i) throws(ChatError) in try XContactId(i) }
        pqSupport = try input.required("pqSupport").bool()
        welcomeSharedMsgId = try input.member("welcomeSharedMsgId").map { (i) throws(ChatError) in try i.sharedMsgId() }
        requestSharedMsgId = try input.member("requestSharedMsgId").map { (i) throws(ChatError) in try i.sharedMsgId() }
    }

    init(
        contactRequestId: Int64, agentInvitationId: AgentInvId, contactId: Int64?, businessGroupId: Int64? = nil,
        userContactLinkId: Int64?, cReqChatVRange: ChatVersionRange, localDisplayName: String, profileId: Int64,
        profile: LocalProfile, createdAt: UTCTime, updatedAt: UTCTime, xContactId: XContactId?, pqSupport: Bool,
        welcomeSharedMsgId: SharedMsgId? = nil, requestSharedMsgId: SharedMsgId? = nil
    ) {
        self.contactRequestId = contactRequestId
        self.agentInvitationId = agentInvitationId
        self.contactId = contactId
        self.businessGroupId = businessGroupId
        self.userContactLinkId = userContactLinkId
        self.cReqChatVRange = cReqChatVRange
        self.localDisplayName = localDisplayName
        self.profileId = profileId
        self.profile = profile
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.xContactId = xContactId
        self.pqSupport = pqSupport
        self.welcomeSharedMsgId = welcomeSharedMsgId
        self.requestSharedMsgId = requestSharedMsgId
    }
}

/// AddressSettings (chat-api.md §7.33), also the argument of `/_address_settings`: no `autoAccept` means each
/// request waits for the user.
public struct AddressSettings: Hashable, Sendable, JSONWritable {
    public var businessAddress: Bool
    /// `autoAccept.acceptIncognito`, when requests are accepted without asking.
    public var autoAccept: AutoAccept?
    /// The welcome message sent to a contact the address accepted.
    public var autoReply: MsgContent?

    public struct AutoAccept: Hashable, Sendable {
        public var acceptIncognito: Bool
        public init(acceptIncognito: Bool) { self.acceptIncognito = acceptIncognito }
    }

    public init(businessAddress: Bool = false, autoAccept: AutoAccept? = nil, autoReply: MsgContent? = nil) {
        self.businessAddress = businessAddress
        self.autoAccept = autoAccept
        self.autoReply = autoReply
    }

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("businessAddress", businessAddress)
        if let autoAccept {
            w.key("autoAccept")
            w.beginObject()
            w.field("acceptIncognito", autoAccept.acceptIncognito)
            w.endObject()
        }
        w.field("autoReply", autoReply?.json)
        w.endObject()
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        businessAddress = try input.optionalBool("businessAddress") ?? false
        autoAccept = try input.member("autoAccept").map { (a) throws(ChatError) in
            _ = try a.object()
            return AutoAccept(acceptIncognito: try a.optionalBool("acceptIncognito") ?? false)
        }
        autoReply = try input.member("autoReply").map { (m) throws(ChatError) in try MsgContent(m) }
    }
}

/// UserContactLink (chat-api.md §7.33): the user's address and its settings.
public struct UserContactLink: Hashable, Sendable, JSONWritable {
    public var userContactLinkId: Int64
    public var connLinkContact: CreatedConnLink
    public var shortLinkDataSet: Bool
    public var shortLinkLargeDataSet: Bool
    public var addressSettings: AddressSettings

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("userContactLinkId", userContactLinkId)
        w.field("connLinkContact", connLinkContact)
        w.field("shortLinkDataSet", shortLinkDataSet)
        w.field("shortLinkLargeDataSet", shortLinkLargeDataSet)
        w.field("addressSettings", addressSettings)
        w.endObject()
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        userContactLinkId = try input.required("userContactLinkId").integer()
        connLinkContact = try CreatedConnLink(input.required("connLinkContact"))
        shortLinkDataSet = try input.optionalBool("shortLinkDataSet") ?? false
        shortLinkLargeDataSet = try input.optionalBool("shortLinkLargeDataSet") ?? false
        addressSettings = try AddressSettings(input.required("addressSettings"))
    }

    init(
        userContactLinkId: Int64, connLinkContact: CreatedConnLink, shortLinkDataSet: Bool,
        shortLinkLargeDataSet: Bool, addressSettings: AddressSettings
    ) {
        self.userContactLinkId = userContactLinkId
        self.connLinkContact = connLinkContact
        self.shortLinkDataSet = shortLinkDataSet
        self.shortLinkLargeDataSet = shortLinkLargeDataSet
        self.addressSettings = addressSettings
    }
}

extension JSONInput {
    func time() throws(ChatError) -> UTCTime {
        let text = try string()
        guard let t = UTCTime(iso8601: text) else { throw fail("could not parse date: \(text)") }
        return t
    }

    func sharedMsgId() throws(ChatError) -> SharedMsgId {
        do { return try SharedMsgId(json: value) } catch { throw fail("invalid SharedMsgId") }
    }
}

extension LocalProfile {
    init(_ input: JSONInput) throws(ChatError) {
        profileId = try input.required("profileId").integer()
        profile = try Profile(input)
        localAlias = try input.optionalString("localAlias") ?? ""
    }
}
