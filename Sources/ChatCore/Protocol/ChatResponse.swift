public import ChatModel
public import ChatStore
public import SimplexEncoding

/// A command's result (chat-api.md §5): the value of `result` in the envelope, tagged by `type`. The cases are the
/// responses the embedded core produces so far.
public enum ChatResponse: Equatable, Sendable {
    case activeUser(user: User)
    case usersList(users: [UserInfo])
    case chatStarted
    case chatRunning
    case chatStopped
    case apiChats(user: User, chats: [AChat])
    case chatTags(user: User, userTags: [ChatTag])
    case chatItemTTL(user: User, chatItemTTL: Int64?)
    case userPrivacy(user: User, updatedUser: User)
    case cmdOk(user: User?)
    case userProfileUpdated(user: User, fromProfile: Profile, toProfile: Profile, updateSummary: UserProfileUpdateSummary)
    case userProfileNoChange(user: User)
    case versionInfo(versionInfo: CoreVersionInfo, chatMigrations: [UpMigration], agentMigrations: [UpMigration])
    case agentSubsTotal(user: User, subsTotal: SMPServerSubs, hasSession: Bool)
    case agentServersSummary(user: User, serversSummary: PresentedServersSummary)
    case contactsList(user: User, contacts: [Contact])
    case contactAliasUpdated(user: User, toContact: Contact)
    case connectionAliasUpdated(user: User, toConnection: PendingContactConnection)
    /// RcvCallInvitation values; the embedded core has no calls yet.
    case callInvitations(callInvitations: [JSONValue])
    case appSettings(appSettings: AppSettings)
    case groupCreated(user: User, groupInfo: GroupInfo)
    /// `member_` is absent: it names the member who changed the profile, and the user did. `msgSigned` is false: the
    /// embedded core signs no group messages.
    case groupUpdated(user: User, fromGroup: GroupInfo, toGroup: GroupInfo, msgSigned: Bool)
    case groupAliasUpdated(user: User, toGroup: GroupInfo)
    case groupMembers(user: User, group: Group)
    case groupInfo(user: User, groupInfo: GroupInfo)
    /// `connectionStats_` is absent: the member has no connection.
    case groupMemberInfo(user: User, groupInfo: GroupInfo, member: GroupMember)
    case groupsList(user: User, groups: [GroupInfo])
    case chatCleared(user: User, chatInfo: ChatInfo)
    case groupDeletedUser(user: User, groupInfo: GroupInfo, msgSigned: Bool)
    case leftMemberUser(user: User, groupInfo: GroupInfo)
    case tagsUpdated(user: User, userTags: [ChatTag], chatTags: [Int64])
    case networkConfig(networkConfig: NetworkConfig)
    /// `groupRelays` are GroupRelay values; a local group has none.
    case groupRelays(user: User, groupInfo: GroupInfo, groupRelays: [JSONValue])
    case serverOperatorConditions(conditions: ServerOperatorConditions)
    case userServers(user: User, userServers: [UserOperatorServers])
    case userServersValidation(user: User, serverErrors: [UserServersError], serverWarnings: [UserServersWarning])
    case usageConditions(usageConditions: UsageConditions, conditionsText: String, acceptedConditions: UsageConditions?)
    /// `/_server test`: no `testFailure` when every step passed.
    case serverTestResult(user: User, testServer: String, testFailure: ProtocolTestFailure?)
    // Chat items, §4.3.
    case apiChat(user: User, chat: AChat, navInfo: NavigationInfo?)
    case chatContentTypes(contentTypes: [MsgContentTag])
    case chatItemInfo(user: User, chatItem: AChatItem, chatItemInfo: ChatItemInfo)
    case newChatItems(user: User, chatItems: [AChatItem])
    case chatItemUpdated(user: User, chatItem: AChatItem)
    case chatItemNotChanged(user: User, chatItem: AChatItem)
    case chatItemsDeleted(user: User, chatItemDeletions: [ChatItemDeletion], byUser: Bool, timed: Bool)
    case forwardPlan(user: User, itemsCount: Int64, chatItemIds: [Int64], forwardConfirmation: ForwardConfirmation?)
    case archiveExported(archiveErrors: [ArchiveError])
    case archiveImported(archiveErrors: [ArchiveError])
    case chatItemReaction(user: User, added: Bool, reaction: ACIReaction)
    case itemsReadForChat(user: User, chatInfo: ChatInfo)
    case reactionMembers(user: User, memberReactions: [MemberReaction])
    /// `chatName_` is absent: the API form names no chat.
    case chatItems(user: User, chatItems: [AChatItem])
    /// `member_` is the member who deleted the items: the user's membership when the user did.
    case groupChatItemsDeleted(user: User, groupInfo: GroupInfo, chatItemIDs: [Int64], byUser: Bool, member: GroupMember?)
    case chatMsgContent(user: User, msgContent: MsgContent)
    /// The JSON object a file description link carries in its `data` parameter, when it carries one.
    case standaloneFileInfo(fileMeta: CanonicalJSON?)
    case connectionsDiff(showIds: Bool, userIds: DatabaseDiff, connIds: DatabaseDiff)
    /// `networkStatuses` are ConnNetworkStatus values, one per connection; `user_` is absent, as the core leaves it.
    case networkStatuses(user: User?, networkStatuses: [JSONValue])

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
        case .groupCreated: "groupCreated"
        case .groupUpdated: "groupUpdated"
        case .groupAliasUpdated: "groupAliasUpdated"
        case .contactAliasUpdated: "contactAliasUpdated"
        case .connectionAliasUpdated: "connectionAliasUpdated"
        case .groupMembers: "groupMembers"
        case .groupInfo: "groupInfo"
        case .groupMemberInfo: "groupMemberInfo"
        case .groupsList: "groupsList"
        case .chatCleared: "chatCleared"
        case .groupDeletedUser: "groupDeletedUser"
        case .leftMemberUser: "leftMemberUser"
        case .tagsUpdated: "tagsUpdated"
        case .networkConfig: "networkConfig"
        case .groupRelays: "groupRelays"
        case .serverOperatorConditions: "serverOperatorConditions"
        case .userServers: "userServers"
        case .userServersValidation: "userServersValidation"
        case .usageConditions: "usageConditions"
        case .serverTestResult: "serverTestResult"
        case .apiChat: "apiChat"
        case .chatContentTypes: "chatContentTypes"
        case .chatItemInfo: "chatItemInfo"
        case .newChatItems: "newChatItems"
        case .chatItemUpdated: "chatItemUpdated"
        case .chatItemNotChanged: "chatItemNotChanged"
        case .chatItemsDeleted: "chatItemsDeleted"
        case .forwardPlan: "forwardPlan"
        case .archiveExported: "archiveExported"
        case .archiveImported: "archiveImported"
        case .chatItemReaction: "chatItemReaction"
        case .itemsReadForChat: "itemsReadForChat"
        case .reactionMembers: "reactionMembers"
        case .chatItems: "chatItems"
        case .groupChatItemsDeleted: "groupChatItemsDeleted"
        case .chatMsgContent: "chatMsgContent"
        case .standaloneFileInfo: "standaloneFileInfo"
        case .connectionsDiff: "connectionsDiff"
        case .networkStatuses: "networkStatuses"
        }
    }

    public var json: JSONValue {
        switch self {
        case .activeUser(let user): .tagged(type, ["user": user.json])
        case .usersList(let users): .tagged(type, ["users": .list(users)])
        case .chatStarted, .chatRunning, .chatStopped: .tagged(type)
        case .apiChats(let user, let chats): .tagged(type, ["user": user.json, "chats": .list(chats)])
        case .chatTags(let user, let tags): .tagged(type, ["user": user.json, "userTags": .list(tags)])
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
        case .contactsList(let user, let contacts): .tagged(type, ["user": user.json, "contacts": .list(contacts)])
        case .contactAliasUpdated(let user, let to): .tagged(type, ["user": user.json, "toContact": to.json])
        case .connectionAliasUpdated(let user, let to): .tagged(type, ["user": user.json, "toConnection": to.json])
        case .callInvitations(let invitations): .tagged(type, ["callInvitations": .array(invitations)])
        case .appSettings(let settings): .tagged(type, ["appSettings": settings.json])
        case .groupCreated(let user, let info), .groupInfo(let user, let info), .leftMemberUser(let user, let info):
            .tagged(type, ["user": user.json, "groupInfo": info.json])
        case .groupUpdated(let user, let from, let to, let signed):
            .tagged(type, ["user": user.json, "fromGroup": from.json, "toGroup": to.json, "msgSigned": .bool(signed)])
        case .groupAliasUpdated(let user, let to): .tagged(type, ["user": user.json, "toGroup": to.json])
        case .groupMembers(let user, let group): .tagged(type, ["user": user.json, "group": group.json])
        case .groupMemberInfo(let user, let info, let member):
            .tagged(type, ["user": user.json, "groupInfo": info.json, "member": member.json])
        case .groupsList(let user, let groups): .tagged(type, ["user": user.json, "groups": .list(groups)])
        case .chatCleared(let user, let chatInfo): .tagged(type, ["user": user.json, "chatInfo": chatInfo.json])
        case .groupDeletedUser(let user, let info, let signed):
            .tagged(type, ["user": user.json, "groupInfo": info.json, "msgSigned": .bool(signed)])
        case .tagsUpdated(let user, let userTags, let chatTags):
            .tagged(type, ["user": user.json, "userTags": .list(userTags), "chatTags": .array(chatTags.map(\.json))])
        case .networkConfig(let config): .tagged(type, ["networkConfig": config.json])
        case .groupRelays(let user, let info, let relays):
            .tagged(type, ["user": user.json, "groupInfo": info.json, "groupRelays": .array(relays)])
        case .serverOperatorConditions(let conditions): .tagged(type, ["conditions": conditions.json])
        case .userServers(let user, let servers): .tagged(type, ["user": user.json, "userServers": .list(servers)])
        case .userServersValidation(let user, let errors, let warnings):
            .tagged(type, ["user": user.json, "serverErrors": .list(errors), "serverWarnings": .list(warnings)])
        case .usageConditions(let current, let text, let accepted):
            .tagged(
                type,
                ["usageConditions": current.json, "conditionsText": .string(text), "acceptedConditions": accepted?.json])
        case .serverTestResult(let user, let server, let failure):
            .tagged(type, ["user": user.json, "testServer": .string(server), "testFailure": failure?.json])
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
        case .archiveExported(let errors), .archiveImported(let errors): .tagged(type, ["archiveErrors": .list(errors)])
        case .chatItemReaction(let user, let added, let reaction):
            .tagged(type, ["user": user.json, "added": .bool(added), "reaction": reaction.json])
        case .itemsReadForChat(let user, let chatInfo): .tagged(type, ["user": user.json, "chatInfo": chatInfo.json])
        case .reactionMembers(let user, let reactions):
            .tagged(type, ["user": user.json, "memberReactions": .list(reactions)])
        case .chatItems(let user, let items): .tagged(type, ["user": user.json, "chatItems": .list(items)])
        case .groupChatItemsDeleted(let user, let info, let ids, let byUser, let member):
            .tagged(
                type,
                [
                    "user": user.json, "groupInfo": info.json, "chatItemIDs": .array(ids.map(\.json)),
                    "byUser": .bool(byUser), "member_": member?.json,
                ])
        case .chatMsgContent(let user, let mc): .tagged(type, ["user": user.json, "msgContent": mc.json])
        case .standaloneFileInfo(let meta): .tagged(type, ["fileMeta": meta.map(JSONValue.init)])
        case .connectionsDiff(let showIds, let userIds, let connIds):
            .tagged(type, ["showIds": .bool(showIds), "userIds": userIds.json, "connIds": connIds.json])
        case .networkStatuses(let user, let statuses):
            .tagged(type, ["user_": user?.json, "networkStatuses": .array(statuses)])
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

/// DatabaseDiff (the agent's `DatabaseDiff`, chat-api.md §5 `connectionsDiff`): ids the chat database has and the
/// agent's lacks (`missingIds`), and the other way round (`extraIds`). User ids are numbers, connection ids base64url.
public struct DatabaseDiff: Hashable, Sendable, JSONEncodable {
    public var missingIds: [JSONValue] = []
    public var extraIds: [JSONValue] = []

    public var json: JSONValue { .record(["missingIds": .array(missingIds), "extraIds": .array(extraIds)]) }
}
