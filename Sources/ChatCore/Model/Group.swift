public import ChatModel
public import SimplexEncoding

/// A group's profile (chat-api.md §7.10); also the argument of `/_group` and `/_group_profile`.
public struct GroupProfile: Hashable, Sendable, JSONWritable {
    public var displayName: String
    public var fullName: String
    public var shortDescr: String?
    public var description: String?
    public var image: String?
    /// `{groupType, groupLink, publicGroupId, publicGroupAccess?}` of channels, kept as the client sent it.
    public var publicGroup: CanonicalJSON?
    public var groupPreferences: GroupPreferences?
    /// `{review?: "all"}`.
    public var memberAdmission: CanonicalJSON?

    public init(displayName: String, fullName: String = "") {
        self.displayName = displayName
        self.fullName = fullName
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        displayName = try input.string("displayName")
        fullName = try input.optionalString("fullName") ?? ""
        shortDescr = try input.optionalString("shortDescr")
        description = try input.optionalString("description")
        image = try input.optionalString("image")
        if let p = try input.member("publicGroup") {
            _ = try p.object()
            guard ["channel", "group"].contains(try p.string("groupType")) else {
                throw p.fail("unexpected groupType \"\(try p.string("groupType"))\"")
            }
            _ = try p.string("groupLink")
            _ = try p.string("publicGroupId")
            publicGroup = p.value
        }
        groupPreferences = try input.member("groupPreferences").map { (p) throws(ChatError) in try GroupPreferences(p) }
        if let a = try input.member("memberAdmission") {
            _ = try a.object()
            if let review = try a.member("review"), try review.string() != "all" {
                throw review.fail("unexpected value \"\(try review.string())\"")
            }
            memberAdmission = a.value
        }
    }

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("displayName", displayName)
        w.field("fullName", fullName)
        w.field("shortDescr", shortDescr)
        w.field("description", description)
        w.field("image", image)
        w.field("publicGroup", publicGroup.map(JSONValue.init))
        w.field("groupPreferences", groupPreferences?.json)
        w.field("memberAdmission", memberAdmission.map(JSONValue.init))
        w.endObject()
    }
}

/// GroupMemberCategory (chat-api.md §2.5): how a member came to the group, from the user's side.
public enum GroupMemberCategory: String, Hashable, Sendable {
    case user, invitee, host, pre, post
}

/// GroupMemberStatus (chat-api.md §2.5).
public enum GroupMemberStatus: String, Hashable, Sendable {
    case rejected, removed, left, deleted, unknown, invited
    case pendingApproval = "pending_approval"
    case pendingReview = "pending_review"
    case introduced
    case introInvited = "intro-inv"
    case accepted, announced, connected, complete, creator

    /// A current member: one that receives the group's messages (the core's `memberCurrent`).
    var isCurrent: Bool {
        switch self {
        case .introduced, .introInvited, .accepted, .announced, .connected, .complete, .creator: true
        case .rejected, .removed, .left, .deleted, .unknown, .invited, .pendingApproval, .pendingReview: false
        }
    }

    /// The member is out of the group (the core's `memberRemoved`).
    var isRemoved: Bool {
        switch self {
        case .rejected, .removed, .left, .deleted: true
        default: false
        }
    }

    /// The statuses counted in `groupSummary.currentMembers`, as stored text.
    static let currentValues = [
        introduced, introInvited, accepted, announced, connected, complete, creator,
    ].map(\.rawValue)
}

/// InvitedBy (chat-api.md §7.11).
public enum InvitedBy: Hashable, Sendable, JSONWritable {
    case contact(byContactId: Int64)
    case user
    case unknown

    public func write(to w: inout JSONWriter) {
        switch self {
        case .contact(let id):
            w.beginTagged("contact")
            w.field("byContactId", id)
            w.endObject()
        case .user: w.tagged("user")
        case .unknown: w.tagged("unknown")
        }
    }
}

/// The chat protocol versions the core speaks (`chatVRange`), given as a member's `memberChatVRange`.
public struct ChatVersionRange: Hashable, Sendable, JSONWritable {
    public var minVersion: Int64
    public var maxVersion: Int64

    public static let supported = ChatVersionRange(minVersion: 1, maxVersion: 16)

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("minVersion", minVersion)
        w.field("maxVersion", maxVersion)
        w.endObject()
    }
}

/// A group member (chat-api.md §7.11). The embedded core has only the user's own membership records: no connection,
/// no support chat, no keys.
public struct GroupMember: Hashable, Sendable, JSONWritable {
    public var groupMemberId: Int64
    public var groupId: Int64
    public var indexInGroup: Int64
    public var memberId: MemberId
    public var memberRole: GroupMemberRole
    public var memberCategory: GroupMemberCategory
    public var memberStatus: GroupMemberStatus
    /// `memberSettings.showMessages`.
    public var showMessages: Bool
    public var blockedByAdmin: Bool
    public var invitedBy: InvitedBy
    public var invitedByGroupMemberId: Int64?
    public var localDisplayName: String
    public var memberProfile: LocalProfile
    public var memberContactId: Int64?
    public var memberContactProfileId: Int64
    public var memberChatVRange: ChatVersionRange
    public var createdAt: UTCTime
    public var updatedAt: UTCTime

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("groupMemberId", groupMemberId)
        w.field("groupId", groupId)
        w.field("indexInGroup", indexInGroup)
        w.field("memberId", memberId)
        w.field("memberRole", memberRole.rawValue)
        w.field("memberCategory", memberCategory.rawValue)
        w.field("memberStatus", memberStatus.rawValue)
        w.key("memberSettings")
        w.beginObject()
        w.field("showMessages", showMessages)
        w.endObject()
        w.field("blockedByAdmin", blockedByAdmin)
        w.field("invitedBy", invitedBy)
        w.field("invitedByGroupMemberId", invitedByGroupMemberId)
        w.field("localDisplayName", localDisplayName)
        w.field("memberProfile", memberProfile)
        w.field("memberContactId", memberContactId)
        w.field("memberContactProfileId", memberContactProfileId)
        w.field("memberChatVRange", memberChatVRange)
        w.field("createdAt", createdAt)
        w.field("updatedAt", updatedAt)
        w.endObject()
    }
}

/// MsgFilter (chat-api.md §2.5): which messages of a chat notify.
public enum MsgFilter: String, Hashable, Sendable {
    case none, all, mentions
}

/// ChatSettings (chat-api.md §7.15); also the argument of `/_settings`.
public struct ChatSettings: Hashable, Sendable, JSONWritable {
    public var enableNtfs: MsgFilter
    public var sendRcpts: Bool?
    public var favorite: Bool

    public init(enableNtfs: MsgFilter = .all, sendRcpts: Bool? = nil, favorite: Bool = false) {
        self.enableNtfs = enableNtfs
        self.sendRcpts = sendRcpts
        self.favorite = favorite
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        let ntfs = try input.required("enableNtfs")
        // Clients written for older cores send a boolean: on is every message, off none.
        if case .bool(let on) = ntfs.value {
            enableNtfs = on ? .all : .none
        } else {
            enableNtfs = try ntfs.enumeration(MsgFilter.self)
        }
        sendRcpts = try input.optionalBool("sendRcpts")
        favorite = try input.optionalBool("favorite") ?? false
    }

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("enableNtfs", enableNtfs.rawValue)
        w.field("sendRcpts", sendRcpts)
        w.field("favorite", favorite)
        w.endObject()
    }
}

/// A group as the user sees it (chat-api.md §7.12). Fields for channels, relays, business chats and prepared groups
/// are absent: the embedded core creates only local groups.
public struct GroupInfo: Hashable, Sendable, JSONWritable {
    public var groupId: Int64
    public var useRelays: Bool
    public var localDisplayName: String
    public var groupProfile: GroupProfile
    public var localAlias: String
    public var membership: GroupMember
    public var chatSettings: ChatSettings
    public var createdAt: UTCTime
    public var updatedAt: UTCTime
    public var chatTs: UTCTime?
    public var userMemberProfileSentAt: UTCTime?
    public var chatTags: [Int64]
    public var chatItemTTL: Int64?
    public var uiThemes: UIThemeEntityOverrides?
    public var customData: CanonicalJSON?
    /// `groupSummary.currentMembers`.
    public var currentMembers: Int64
    public var membersRequireAttention: Int64
    /// Marked unread by the user (`/_unread chat`), for the chat list's stats.
    public var unreadChat: Bool

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("groupId", groupId)
        w.field("useRelays", useRelays)
        w.field("localDisplayName", localDisplayName)
        w.field("groupProfile", groupProfile)
        w.field("localAlias", localAlias)
        w.key("fullGroupPreferences")
        (groupProfile.groupPreferences ?? GroupPreferences()).writeFull(to: &w)
        w.field("membership", membership)
        w.field("chatSettings", chatSettings)
        w.field("createdAt", createdAt)
        w.field("updatedAt", updatedAt)
        w.field("chatTs", chatTs)
        w.field("userMemberProfileSentAt", userMemberProfileSentAt)
        w.field("chatTags", chatTags)
        w.field("chatItemTTL", chatItemTTL)
        w.field("uiThemes", uiThemes?.json)
        w.field("customData", customData.map(JSONValue.init))
        w.key("groupSummary")
        w.beginObject()
        w.field("currentMembers", currentMembers)
        w.endObject()
        w.field("membersRequireAttention", membersRequireAttention)
        w.endObject()
    }
}

/// Group (chat-api.md §7.13): a group with its members other than the user.
public struct Group: Hashable, Sendable, JSONEncodable {
    public var groupInfo: GroupInfo
    public var members: [GroupMember]

    public var json: JSONValue { .record(["groupInfo": groupInfo.json, "members": .list(members)]) }
}
