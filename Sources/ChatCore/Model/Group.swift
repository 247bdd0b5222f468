public import ChatModel
public import SimplexEncoding

/// A group's profile (chat-api.md §7.10); also the argument of `/_group` and `/_group_profile`.
public struct GroupProfile: Hashable, Sendable, JSONEncodable {
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

    public var json: JSONValue {
        .record([
            "displayName": .string(displayName), "fullName": .string(fullName), "shortDescr": shortDescr?.json,
            "description": description?.json, "image": image?.json, "publicGroup": publicGroup.map(JSONValue.init),
            "groupPreferences": groupPreferences?.json, "memberAdmission": memberAdmission.map(JSONValue.init),
        ])
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
public enum InvitedBy: Hashable, Sendable {
    case contact(byContactId: Int64)
    case user
    case unknown

    var json: JSONValue {
        switch self {
        case .contact(let id): .tagged("contact", ["byContactId": .integer(id)])
        case .user: .tagged("user")
        case .unknown: .tagged("unknown")
        }
    }
}

/// The chat protocol versions the core speaks (`chatVRange`), given as a member's `memberChatVRange`.
public struct ChatVersionRange: Hashable, Sendable {
    public var minVersion: Int64
    public var maxVersion: Int64

    public static let supported = ChatVersionRange(minVersion: 1, maxVersion: 16)

    var json: JSONValue { .record(["minVersion": .integer(minVersion), "maxVersion": .integer(maxVersion)]) }
}

/// A group member (chat-api.md §7.11). The embedded core has only the user's own membership records: no connection,
/// no support chat, no keys.
public struct GroupMember: Hashable, Sendable, JSONEncodable {
    public var groupMemberId: Int64
    public var groupId: Int64
    public var indexInGroup: Int64
    public var memberId: String
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

    public var json: JSONValue {
        .record([
            "groupMemberId": .integer(groupMemberId), "groupId": .integer(groupId), "indexInGroup": .integer(indexInGroup),
            "memberId": .string(memberId), "memberRole": .string(memberRole.rawValue),
            "memberCategory": .string(memberCategory.rawValue), "memberStatus": .string(memberStatus.rawValue),
            "memberSettings": .record(["showMessages": .bool(showMessages)]), "blockedByAdmin": .bool(blockedByAdmin),
            "invitedBy": invitedBy.json, "invitedByGroupMemberId": invitedByGroupMemberId?.json,
            "localDisplayName": .string(localDisplayName), "memberProfile": memberProfile.json,
            "memberContactId": memberContactId?.json, "memberContactProfileId": .integer(memberContactProfileId),
            "memberChatVRange": memberChatVRange.json, "createdAt": createdAt.json, "updatedAt": updatedAt.json,
        ])
    }
}

/// MsgFilter (chat-api.md §2.5): which messages of a chat notify.
public enum MsgFilter: String, Hashable, Sendable {
    case none, all, mentions
}

/// ChatSettings (chat-api.md §7.15); also the argument of `/_settings`.
public struct ChatSettings: Hashable, Sendable, JSONEncodable {
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

    public var json: JSONValue {
        .record(["enableNtfs": .string(enableNtfs.rawValue), "sendRcpts": sendRcpts?.json, "favorite": .bool(favorite)])
    }
}

/// A group as the user sees it (chat-api.md §7.12). Fields for channels, relays, business chats and prepared groups
/// are absent: the embedded core creates only local groups.
public struct GroupInfo: Hashable, Sendable, JSONEncodable {
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
    /// UIThemeEntityOverrides, opaque to the core.
    public var uiThemes: CanonicalJSON?
    public var customData: CanonicalJSON?
    /// `groupSummary.currentMembers`.
    public var currentMembers: Int64
    public var membersRequireAttention: Int64
    /// Marked unread by the user (`/_unread chat`), for the chat list's stats.
    public var unreadChat: Bool

    public var json: JSONValue {
        .record([
            "groupId": .integer(groupId), "useRelays": .bool(useRelays), "localDisplayName": .string(localDisplayName),
            "groupProfile": groupProfile.json, "localAlias": .string(localAlias),
            "fullGroupPreferences": (groupProfile.groupPreferences ?? GroupPreferences()).full,
            "membership": membership.json, "chatSettings": chatSettings.json, "createdAt": createdAt.json,
            "updatedAt": updatedAt.json, "chatTs": chatTs?.json, "userMemberProfileSentAt": userMemberProfileSentAt?.json,
            "chatTags": .array(chatTags.map(\.json)), "chatItemTTL": chatItemTTL?.json,
            "uiThemes": uiThemes.map(JSONValue.init), "customData": customData.map(JSONValue.init),
            "groupSummary": .record(["currentMembers": .integer(currentMembers)]),
            "membersRequireAttention": .integer(membersRequireAttention),
        ])
    }
}

/// Group (chat-api.md §7.13): a group with its members other than the user.
public struct Group: Hashable, Sendable, JSONEncodable {
    public var groupInfo: GroupInfo
    public var members: [GroupMember]

    public var json: JSONValue { .record(["groupInfo": groupInfo.json, "members": .list(members)]) }
}
