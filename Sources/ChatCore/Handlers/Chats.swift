// Chats, chat-api.md §4.3. The embedded core's chats are the users' note folders and local groups.
internal import ChatModel

extension ChatController {
    /// `/_get chats <userId>[ pcc=on|off][ <timePagination>][ <json(ChatListQuery)>]`: needs only the user (not a
    /// started chat). Newest chat first, each with its last item as the preview and its unread stats.
    func getChats(_ a: ChatCommand.APIGetChats) throws(ChatError) -> ChatResponse {
        let user = try requireUser(a.userId)
        let query = try ChatListQuery(a.query)
        let listed = try filtered(listedChats(user), by: query, user)
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

    /// Every chat of the user, note folders first: note folders built, groups as their rows with their previews.
    private func listedChats(_ user: User) throws(ChatError) -> [ListedChat] {
        let notes = try store.noteFolders(userId: user.userId).map { (folder) throws(ChatError) in
            ListedChat.built(
                try chatPreview(user, .local(folder), .local(noteFolderId: folder.noteFolderId), unreadChat: folder.unread))
        }
        let previews = try store.groupPreviews(userId: user.userId)
        let groups = try groupStore.groupRows(userId: user.userId).map { row in
            ListedChat.group(row, previews[row.groupId] ?? ChatPreview())
        }
        return notes + groups
    }

    /// The chats a ChatListQuery keeps: favorites and unread ones, or those a search matches — a group by its names,
    /// a note folder (which has no name) by an item's text.
    private func filtered(_ chats: [ListedChat], by query: ChatListQuery, _ user: User) throws(ChatError) -> [ListedChat] {
        switch query {
        case .all: return chats
        case .filters(let favorite, let unread):
            return chats.filter { (!favorite || $0.favorite) && (!unread || $0.isUnread) }
        case .search(let text):
            var found: [ListedChat] = []
            for chat in chats {
                let matches: Bool
                switch chat {
                case .built(let built):
                    guard case .local(let folder) = built.chatInfo else { continue }
                    let itemChat = ItemChat.local(noteFolderId: folder.noteFolderId)
                    matches = try store.anyItemText(userId: user.userId, itemChat, contains: text)
                case .group(let row, _):
                    matches = try groupStore.groupInfo(row).matches(text)
                }
                if matches { found.append(chat) }
            }
            return found
        }
    }

    /// A chat list row, built once it is on the page.
    func chat(_ listed: ListedChat) throws(ChatError) -> AChat {
        switch listed {
        case .built(let chat): return chat
        case .group(let row, let preview):
            return AChat(
                chatInfo: .group(try groupStore.groupInfo(row)), chatItems: preview.lastItem.map { [$0] } ?? [],
                chatStats: ChatStats(
                    unreadCount: preview.unread.count, minUnreadItemId: preview.unread.minId, unreadChat: row.unreadChat))
        }
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

/// A chat of the chat list before paging: note folders are built whole, groups only once on the page.
enum ListedChat {
    case built(AChat)
    case group(GroupListRow, ChatPreview)

    var chatTs: UTCTime {
        switch self {
        case .built(let chat): chat.chatInfo.chatTs
        case .group(let row, _): row.chatTs
        }
    }

    /// Marked favorite by the user.
    var favorite: Bool {
        switch self {
        case .built(let chat):
            if case .local(let folder) = chat.chatInfo { folder.favorite } else { false }
        case .group(let row, _): row.favorite
        }
    }

    /// Marked unread, or with unread items.
    var isUnread: Bool {
        switch self {
        case .built(let chat): chat.chatStats.unreadChat || chat.chatStats.unreadCount > 0
        case .group(let row, let preview): row.unreadChat || preview.unread.count > 0
        }
    }
}

/// ChatListQuery (chat-api.md §4.3), read once for the whole list.
enum ChatListQuery {
    case all
    case filters(favorite: Bool, unread: Bool)
    /// A non-empty search text.
    case search(String)

    init(_ query: RawJSON?) throws(ChatError) {
        guard let query else {
            self = .all
            return
        }
        let q = try JSONInput(parsing: query).object()
        switch try q.string("type") {
        case "filters":
            self = .filters(favorite: try q.optionalBool("favorite") ?? false, unread: try q.optionalBool("unread") ?? false)
        case "search":
            let text = try q.string("search")
            self = text.isEmpty ? .all : .search(text)
        case let other:
            throw q.fail("unknown ChatListQuery type \"\(other)\"")
        }
    }
}
