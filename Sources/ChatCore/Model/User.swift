public import SimplexEncoding

/// A hidden user's password hash (`UserPwdHash`): base64url of SHA-512(password ‖ salt), and the salt.
public struct UserPasswordHash: Hashable, Sendable {
    public var hash: String
    public var salt: String

    var json: JSONValue { .record(["hash": .string(hash), "salt": .string(salt)]) }
}

/// A chat user (chat-api.md §7.4).
public struct User: Hashable, Sendable, JSONEncodable {
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
    /// UIThemeEntityOverrides, opaque to the core.
    public var uiThemes: CanonicalJSON?

    public var json: JSONValue {
        .record([
            "userId": .integer(userId), "agentUserId": .integer(agentUserId), "userContactId": .integer(userContactId),
            "localDisplayName": .string(localDisplayName), "profile": profile.json,
            "fullPreferences": (profile.profile.preferences ?? Preferences()).full, "activeUser": .bool(activeUser),
            "activeOrder": .integer(activeOrder), "viewPwdHash": viewPwdHash?.json, "showNtfs": .bool(showNtfs),
            "sendRcptsContacts": .bool(sendRcptsContacts), "sendRcptsSmallGroups": .bool(sendRcptsSmallGroups),
            "autoAcceptMemberContacts": .bool(autoAcceptMemberContacts),
            "userMemberProfileUpdatedAt": userMemberProfileUpdatedAt?.json, "userChatRelay": .bool(userChatRelay),
            "clientService": .bool(clientService), "uiThemes": uiThemes.map(JSONValue.init),
        ])
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
