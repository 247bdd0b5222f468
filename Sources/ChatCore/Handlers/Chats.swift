// Chats, chat-api.md §4.3. The embedded core's chats are the users' note folders and local groups.
internal import ChatModel

extension ChatController {
    /// `/_get chats <userId>[ pcc=on|off][ <timePagination>][ <json(ChatListQuery)>]`: needs only the user (not a
    /// started chat). Newest chat first, each with its last item as the preview and its unread stats.
    func getChats(_ a: ChatCommand.APIGetChats) throws(ChatError) -> ChatResponse {
        let user = try requireUser(a.userId)
        var chats = try store.noteFolders(userId: user.userId).map { (folder) throws(ChatError) in
            try chatPreview(user, .local(folder), .local(noteFolderId: folder.noteFolderId), unreadChat: folder.unread)
        }
        if let query = a.query {
            let q = try JSONInput(parsing: query).object()
            switch try q.string("type") {
            case "filters":
                let favorite = try q.optionalBool("favorite") ?? false
                let unread = try q.optionalBool("unread") ?? false
                chats = chats.filter { chat in
                    guard case .local(let folder) = chat.chatInfo else { return false }
                    let isUnread = folder.unread || chat.chatStats.unreadCount > 0
                    return (!favorite || folder.favorite) && (!unread || isUnread)
                }
            case "search":
                // A search matches chats by name or by an item's text; a note folder has no name.
                let search = try q.string("search")
                if !search.isEmpty {
                    var found: [AChat] = []
                    for chat in chats {
                        guard case .local(let folder) = chat.chatInfo else { continue }
                        let itemChat = ItemChat.local(noteFolderId: folder.noteFolderId)
                        if try store.anyItemText(userId: user.userId, itemChat, contains: search) { found.append(chat) }
                    }
                    chats = found
                }
            case let other:
                throw q.fail("unknown ChatListQuery type \"\(other)\"")
            }
        }
        let listed = chats.map(ListedChat.built) + (try groupChats(user, query: a.query))
        // Positions are sorted by their chats' times and paged, then the page's chats built: a row is large, and
        // building or moving thousands of them cost more than the rest of the list.
        let times = listed.map(\.chatTs)
        var order = listed.indices.sorted { times[$0] > times[$1] }
        switch a.pagination ?? .last(count: 5000) {
        case .last(let count):
            order = Array(order.prefix(Int(clamping: count)))
        case .after(let time, let count):
            let t = try paginationTime(time)
            order = Array(order.filter { times[$0] > t }.suffix(Int(clamping: count)))
        case .before(let time, let count):
            let t = try paginationTime(time)
            order = Array(order.filter { times[$0] < t }.prefix(Int(clamping: count)))
        }
        return .apiChats(user: user, chats: try order.map { (i) throws(ChatError) in try chat(listed[i]) })
    }

    /// A chat list row: the chat, its newest item, its unread stats.
    func chatPreview(_ user: User, _ info: ChatInfo, _ chat: ItemChat, unreadChat: Bool) throws(ChatError) -> AChat {
        let unread = try store.unreadStats(userId: user.userId, chat)
        let preview = try store.lastItem(userId: user.userId, chat)
        return AChat(
            chatInfo: info, chatItems: preview.map { [$0] } ?? [],
            chatStats: ChatStats(unreadCount: unread.count, minUnreadItemId: unread.minId, unreadChat: unreadChat))
    }

    private func paginationTime(_ text: String) throws(ChatError) -> UTCTime {
        guard let t = UTCTime(iso8601: text) else { throw .error(.commandError("invalid time in pagination: \(text)")) }
        return t
    }
}
