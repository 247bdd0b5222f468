// Chats, chat-api.md §4.3. The embedded core's chats are the users' note folders and local groups.
internal import ChatModel

extension ChatController {
    /// `/_get chats <userId>[ pcc=on|off][ <timePagination>][ <json(ChatListQuery)>]`: needs only the user (not a
    /// started chat). Previews newest first; a note folder has no items yet, so its item list is empty.
    func getChats(_ a: ChatCommand.APIGetChats) throws(ChatError) -> ChatResponse {
        let user = try requireUser(a.userId)
        var chats = try store.noteFolders(userId: user.userId).map { folder in
            AChat(chatInfo: .local(folder), chatStats: ChatStats(unreadChat: folder.unread))
        }
        if let query = a.query {
            let q = try JSONInput(parsing: query).object()
            switch try q.string("type") {
            case "filters":
                let favorite = try q.optionalBool("favorite") ?? false
                let unread = try q.optionalBool("unread") ?? false
                chats = chats.filter { chat in
                    guard case .local(let folder) = chat.chatInfo else { return false }
                    return (!favorite || folder.favorite) && (!unread || folder.unread)
                }
            case "search":
                // A search matches chats by name or content; a note folder has no name and no items yet.
                let search = try q.string("search")
                if !search.isEmpty { chats = [] }
            case let other:
                throw q.fail("unknown ChatListQuery type \"\(other)\"")
            }
        }
        chats += try groupChats(userId: user.userId, query: a.query)
        chats.sort { $0.chatInfo.chatTs > $1.chatInfo.chatTs }
        switch a.pagination ?? .last(count: 5000) {
        case .last(let count):
            chats = Array(chats.prefix(Int(clamping: count)))
        case .after(let time, let count):
            let t = try paginationTime(time)
            chats = Array(chats.filter { $0.chatInfo.chatTs > t }.suffix(Int(clamping: count)))
        case .before(let time, let count):
            let t = try paginationTime(time)
            chats = Array(chats.filter { $0.chatInfo.chatTs < t }.prefix(Int(clamping: count)))
        }
        return .apiChats(user: user, chats: chats)
    }

    private func paginationTime(_ text: String) throws(ChatError) -> UTCTime {
        guard let t = UTCTime(iso8601: text) else { throw .error(.commandError("invalid time in pagination: \(text)")) }
        return t
    }
}
