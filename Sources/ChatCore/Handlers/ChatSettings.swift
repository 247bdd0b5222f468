// Per-chat settings, TTL and themes, chat-api.md §4.10 and §4.13. They apply to contacts and groups without a support
// scope; contacts have their settings in the contacts store, the other settings only for groups so far.
internal import ChatModel

extension ChatController {
    /// `/_settings <chatRef> <json(ChatSettings)>`: notifications, receipts and favourite.
    func setChatSettings(_ a: ChatCommand.APISetChatSettings) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let settings = try ChatSettings(JSONInput(parsing: a.chatSettings))
        if case .direct(let contactId) = a.chatRef {
            _ = try contactStore.setChatSettings(userId: user.userId, contactId: contactId, settings, at: now)
            return .cmdOk(user: user)
        }
        let info = try chatGroup(a.chatRef, user)
        try store.write { () throws(ChatError) in try groupStore.setChatSettings(settings, groupId: info.groupId) }
        return .cmdOk(user: user)
    }

    /// `/_ttl <userId> <chatRef> <seconds>|default`: the chat's own item TTL; `default` goes back to the user's. Chats
    /// without a TTL of their own (notes, pending connections) are left as they are, as the core leaves them. When the
    /// chat keeps its items for less time than before, its due items go at once, in the background.
    func setChatTTL(_ a: ChatCommand.APISetChatTTL) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser(a.userId)
        try requireStoreNotChanged()
        switch a.chatRef {
        case .local, .contactConnection, .group(_, .some): return .cmdOk(user: user)
        case .direct, .group(_, nil): break
        }
        let info = try chatGroup(a.chatRef, user)
        let (old, global, count) = try store.write { () throws(ChatError) in
            let old = try groupStore.chatItemTTL(userId: user.userId, groupId: info.groupId).ttl
            try groupStore.setChatItemTTL(a.seconds, groupId: info.groupId)
            return (old, try store.chatItemTTL(userId: user.userId), try groupStore.chatTTLCount(userId: user.userId))
        }
        if Self.ttlLowered(from: old ?? global, to: a.seconds ?? global) {
            expiry.expireNow(.group(userId: user.userId, groupId: info.groupId))
        }
        updateExpiry(userId: user.userId, globalTTL: global, chatTTLCount: count)
        return .cmdOk(user: user)
    }

    /// `/_set theme <chatRef>[ <json(UIThemeEntityOverrides)>]`: kept with the chat as the core's typed decoder reads
    /// it; no JSON clears.
    func setChatUIThemes(_ a: ChatCommand.APISetChatUIThemes) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let themes = try a.themes.map { (t) throws(ChatError) in try UIThemeEntityOverrides(JSONInput(parsing: t)) }
        let info = try chatGroup(a.chatRef, user)
        try store.write { () throws(ChatError) in try groupStore.setUIThemes(themes, groupId: info.groupId, at: now) }
        return .cmdOk(user: user)
    }

    /// The group a per-chat setting is for: a contact does not exist, other chats are "not supported".
    private func chatGroup(_ ref: ChatRef, _ user: User) throws(ChatError) -> GroupInfo {
        switch ref {
        case .group(let groupId, nil): return try groupStore.requireGroupInfo(userId: user.userId, groupId: groupId)
        case .direct(let contactId): throw .errorStore(.contactNotFound(contactId: contactId))
        case .group, .local, .contactConnection: throw .error(.commandError("not supported"))
        }
    }
}
