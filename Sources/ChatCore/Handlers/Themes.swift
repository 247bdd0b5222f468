// Theme and UI, chat-api.md §4.13.
internal import ChatModel

extension ChatController {
    /// `/_set theme user <userId>[ <json(UIThemeEntityOverrides)>]`: kept with the user, as the core's typed decoder
    /// reads it; no JSON clears it. Any user may be changed; an unknown one is the store's `userNotFound`. The answer
    /// carries the user as read before the change, as the core's does (`ok user'`).
    func setUserUIThemes(_ a: ChatCommand.APISetUserUIThemes) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let themes = try a.themes.map { (t) throws(ChatError) in try UIThemeEntityOverrides(JSONInput(parsing: t)) }
        guard let target = try store.user(id: a.userId) else { throw .errorStore(.userNotFound(userId: a.userId)) }
        try store.write { () throws(ChatError) in try store.setUIThemes(themes, userId: a.userId, at: now) }
        if a.userId == user.userId { currentUser = try privateUser(user.userId) }
        return .cmdOk(user: target)
    }
}
