internal import SimplexEncoding

/// A hidden user's password hash (`UserPwdHash`): base64url of SHA-512(password ‖ salt), and the salt.
public struct UserPasswordHash: Hashable, Sendable {
    public var hash: String
    public var salt: String

    var json: JSONValue { .record(["hash": .string(hash), "salt": .string(salt)]) }
}

/// A chat user (chat-api.md §7.4).
public struct User: Hashable, Sendable, JSONWritable {
    public var userId: Int64
    public var agentUserId: Int64
    public var userContactId: Int64
    public var localDisplayName: String
    public var profile: LocalProfile
    public var activeUser: Bool
    public var activeOrder: Int64
    public var viewPwdHash: UserPasswordHash?
    public var showNtfs: Bool
    public var sendRcptsContacts: Bool
    public var sendRcptsSmallGroups: Bool
    public var autoAcceptMemberContacts: Bool
    public var userMemberProfileUpdatedAt: UTCTime?
    public var userChatRelay: Bool
    public var clientService: Bool
    public var uiThemes: UIThemeEntityOverrides?

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("userId", userId)
        w.field("agentUserId", AgentUserId(agentUserId))
        w.field("userContactId", userContactId)
        w.field("localDisplayName", localDisplayName)
        w.field("profile", profile)
        w.field("fullPreferences", (profile.profile.preferences ?? Preferences()).full)
        w.field("activeUser", activeUser)
        w.field("activeOrder", activeOrder)
        w.field("viewPwdHash", viewPwdHash?.json)
        w.field("showNtfs", showNtfs)
        w.field("sendRcptsContacts", sendRcptsContacts)
        w.field("sendRcptsSmallGroups", sendRcptsSmallGroups)
        w.field("autoAcceptMemberContacts", autoAcceptMemberContacts)
        w.field("userMemberProfileUpdatedAt", userMemberProfileUpdatedAt)
        w.field("userChatRelay", userChatRelay)
        w.field("clientService", clientService)
        w.field("uiThemes", uiThemes?.json)
        w.endObject()
    }
}

/// An element of `usersList.users` (chat-api.md §7.5).
public struct UserInfo: Hashable, Sendable, JSONEncodable {
    public var user: User
    public var unreadCount: Int64

    public var json: JSONValue { .record(["user": user.json, "unreadCount": .integer(unreadCount)]) }
}

/// NewUser, the argument of `/_create user` (chat-api.md §7.35).
struct NewUser {
    var profile: Profile?
    var pastTimestamp: Bool
    var userChatRelay: Bool
    var clientService: Bool

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        profile = try input.member("profile").map { (p) throws(ChatError) in try Profile(p) }
        // The core's decoder requires pastTimestamp; scripting clients leave it out, and false is what they mean.
        pastTimestamp = try input.optionalBool("pastTimestamp") ?? false
        userChatRelay = try input.optionalBool("userChatRelay") ?? false
        clientService = try input.optionalBool("clientService") ?? false
    }
}
