// Settings and configuration, chat-api.md §4.10.
internal import ChatModel

extension ChatController {
    /// `/_save app settings <json(AppSettings)>`: kept in the chat database; no user needed.
    func saveAppSettings(_ a: ChatCommand.APISaveSettings) throws(ChatError) -> ChatResponse {
        let settings = try AppSettings(JSONInput(parsing: a.settings))
        try store.write { () throws(ChatError) in try store.saveAppSettings(settings) }
        return .cmdOk(user: nil)
    }

    /// `/_get app settings[ <json(AppSettings)>]`: the stored settings over the platform defaults the client passes,
    /// over the core's own defaults.
    func getAppSettings(_ a: ChatCommand.APIGetSettings) throws(ChatError) -> ChatResponse {
        let defaults = try a.settings.map { (s) throws(ChatError) in try AppSettings(JSONInput(parsing: s)) } ?? AppSettings()
        let stored = try store.appSettings() ?? AppSettings()
        return .appSettings(appSettings: stored.over(defaults.over(.coreDefaults)))
    }

    /// `/_ttl <userId> <seconds>`: the user's chat item TTL, 0 = never; needs a started chat. A shorter TTL expires
    /// items at once, in the background: the answer does not wait for the deletions.
    func setChatItemTTL(_ a: ChatCommand.APISetChatItemTTL) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser(a.userId)
        try requireStoreNotChanged()
        let (old, count) = try store.write { () throws(ChatError) in
            let old = try store.chatItemTTL(userId: user.userId)
            try store.setChatItemTTL(a.seconds, userId: user.userId)
            return (old, try groupStore.chatTTLCount(userId: user.userId))
        }
        if Self.ttlLowered(from: old, to: a.seconds) { expiry.expireNow(.user(userId: user.userId)) }
        updateExpiry(userId: user.userId, globalTTL: a.seconds, chatTTLCount: count)
        return .cmdOk(user: user)
    }

    /// `/_ttl <userId>`: works before `/_start`.
    func getChatItemTTL(_ a: ChatCommand.APIGetChatItemTTL) throws(ChatError) -> ChatResponse {
        let user = try requireUser(a.userId)
        return .chatItemTTL(user: user, chatItemTTL: try store.chatItemTTL(userId: user.userId))
    }
}

extension ChatController {
    /// `/_network info <json(UserNetworkInfo)>`: the device's network state, which the agent uses to pause and resume
    /// connecting; with no agent there is nothing to pause. Needs no user.
    func setNetworkInfo(_ a: ChatCommand.APISetNetworkInfo) throws(ChatError) -> ChatResponse {
        let info = try JSONInput(parsing: a.networkInfo).object()
        let type = try info.required("networkType")
        guard ["none", "cellular", "wifi", "ethernet", "other"].contains(try type.string()) else {
            throw type.fail("unexpected value \"\(try type.string())\"")
        }
        _ = try info.required("online").bool()
        return .cmdOk(user: nil)
    }
}
