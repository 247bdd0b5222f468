public import ChatModel
public import ChatStore

/// A command's result (chat-api.md §5): the value of `result` in the envelope, tagged by `type`. The cases are the
/// responses the embedded core produces so far.
public enum ChatResponse: Equatable, Sendable {
    case activeUser(user: User)
    case usersList(users: [UserInfo])
    case chatStarted
    case chatRunning
    case chatStopped
    case apiChats(user: User, chats: [AChat])
    /// `userTags` are ChatTag values; the embedded core has none yet.
    case chatTags(user: User, userTags: [JSONValue])
    case chatItemTTL(user: User, chatItemTTL: Int64?)
    case userPrivacy(user: User, updatedUser: User)
    case cmdOk(user: User?)
    case userProfileUpdated(user: User, fromProfile: Profile, toProfile: Profile, updateSummary: UserProfileUpdateSummary)
    case userProfileNoChange(user: User)
    case versionInfo(versionInfo: CoreVersionInfo, chatMigrations: [UpMigration], agentMigrations: [UpMigration])
    case agentSubsTotal(user: User, subsTotal: SMPServerSubs, hasSession: Bool)
    case agentServersSummary(user: User, serversSummary: PresentedServersSummary)
    /// `contacts` are Contact values; the embedded core has no contacts yet.
    case contactsList(user: User, contacts: [JSONValue])
    /// RcvCallInvitation values; the embedded core has no calls yet.
    case callInvitations(callInvitations: [JSONValue])
    case appSettings(appSettings: AppSettings)
    // Chat items, §4.3.
    case apiChat(user: User, chat: AChat, navInfo: NavigationInfo?)
    case chatContentTypes(contentTypes: [MsgContentTag])
    case chatItemInfo(user: User, chatItem: AChatItem, chatItemInfo: ChatItemInfo)
    case newChatItems(user: User, chatItems: [AChatItem])
    case chatItemUpdated(user: User, chatItem: AChatItem)
    case chatItemNotChanged(user: User, chatItem: AChatItem)
    case chatItemsDeleted(user: User, chatItemDeletions: [ChatItemDeletion], byUser: Bool, timed: Bool)
    case forwardPlan(user: User, itemsCount: Int64, chatItemIds: [Int64], forwardConfirmation: ForwardConfirmation?)
    case chatCleared(user: User, chatInfo: ChatInfo)

    /// The `type` tag.
    public var type: String {
        switch self {
        case .activeUser: "activeUser"
        case .usersList: "usersList"
        case .chatStarted: "chatStarted"
        case .chatRunning: "chatRunning"
        case .chatStopped: "chatStopped"
        case .apiChats: "apiChats"
        case .chatTags: "chatTags"
        case .chatItemTTL: "chatItemTTL"
        case .userPrivacy: "userPrivacy"
        case .cmdOk: "cmdOk"
        case .userProfileUpdated: "userProfileUpdated"
        case .userProfileNoChange: "userProfileNoChange"
        case .versionInfo: "versionInfo"
        case .agentSubsTotal: "agentSubsTotal"
        case .agentServersSummary: "agentServersSummary"
        case .contactsList: "contactsList"
        case .callInvitations: "callInvitations"
        case .appSettings: "appSettings"
        case .apiChat: "apiChat"
        case .chatContentTypes: "chatContentTypes"
        case .chatItemInfo: "chatItemInfo"
        case .newChatItems: "newChatItems"
        case .chatItemUpdated: "chatItemUpdated"
        case .chatItemNotChanged: "chatItemNotChanged"
        case .chatItemsDeleted: "chatItemsDeleted"
        case .forwardPlan: "forwardPlan"
        case .chatCleared: "chatCleared"
        }
    }

    public var json: JSONValue {
        switch self {
        case .activeUser(let user): .tagged(type, ["user": user.json])
        case .usersList(let users): .tagged(type, ["users": .list(users)])
        case .chatStarted, .chatRunning, .chatStopped: .tagged(type)
        case .apiChats(let user, let chats): .tagged(type, ["user": user.json, "chats": .list(chats)])
        case .chatTags(let user, let tags): .tagged(type, ["user": user.json, "userTags": .array(tags)])
        case .chatItemTTL(let user, let ttl): .tagged(type, ["user": user.json, "chatItemTTL": ttl?.json])
        case .userPrivacy(let user, let updated): .tagged(type, ["user": user.json, "updatedUser": updated.json])
        case .cmdOk(let user): .tagged(type, ["user_": user?.json])
        case .userProfileUpdated(let user, let from, let to, let summary):
            .tagged(
                type, ["user": user.json, "fromProfile": from.json, "toProfile": to.json, "updateSummary": summary.json])
        case .userProfileNoChange(let user): .tagged(type, ["user": user.json])
        case .versionInfo(let info, let chat, let agent):
            .tagged(
                type,
                [
                    "versionInfo": info.json, "chatMigrations": .array(chat.map(\.json)),
                    "agentMigrations": .array(agent.map(\.json)),
                ])
        case .agentSubsTotal(let user, let subs, let hasSession):
            .tagged(type, ["user": user.json, "subsTotal": subs.json, "hasSession": .bool(hasSession)])
        case .agentServersSummary(let user, let summary):
            .tagged(type, ["user": user.json, "serversSummary": summary.json])
        case .contactsList(let user, let contacts): .tagged(type, ["user": user.json, "contacts": .array(contacts)])
        case .callInvitations(let invitations): .tagged(type, ["callInvitations": .array(invitations)])
        case .appSettings(let settings): .tagged(type, ["appSettings": settings.json])
        case .apiChat(let user, let chat, let nav): .tagged(type, ["user": user.json, "chat": chat.json, "navInfo": nav?.json])
        case .chatContentTypes(let tags): .tagged(type, ["contentTypes": .array(tags.map { .string($0.rawValue) })])
        case .chatItemInfo(let user, let item, let info):
            .tagged(type, ["user": user.json, "chatItem": item.json, "chatItemInfo": info.json])
        case .newChatItems(let user, let items): .tagged(type, ["user": user.json, "chatItems": .list(items)])
        case .chatItemUpdated(let user, let item), .chatItemNotChanged(let user, let item):
            .tagged(type, ["user": user.json, "chatItem": item.json])
        case .chatItemsDeleted(let user, let deletions, let byUser, let timed):
            .tagged(
                type,
                ["user": user.json, "chatItemDeletions": .list(deletions), "byUser": .bool(byUser), "timed": .bool(timed)])
        case .forwardPlan(let user, let count, let ids, let confirmation):
            .tagged(
                type,
                [
                    "user": user.json, "itemsCount": .integer(count), "chatItemIds": .array(ids.map(\.json)),
                    "forwardConfirmation": confirmation?.json,
                ])
        case .chatCleared(let user, let info): .tagged(type, ["user": user.json, "chatInfo": info.json])
        }
    }
}

/// UserProfileUpdateSummary (chat-api.md §7.35); `changedContacts` are Contact values.
public struct UserProfileUpdateSummary: Hashable, Sendable {
    public var updateSuccesses: Int64
    public var updateFailures: Int64
    public var changedContacts: [JSONValue]

    public var json: JSONValue {
        .record([
            "updateSuccesses": .integer(updateSuccesses), "updateFailures": .integer(updateFailures),
            "changedContacts": .array(changedContacts),
        ])
    }
}
