/// The user's private notes (chat-api.md §7.16, NoteFolder); the core creates one per user.
public struct NoteFolder: Hashable, Sendable, JSONWritable {
    public var noteFolderId: Int64
    public var userId: Int64
    public var createdAt: UTCTime
    public var updatedAt: UTCTime
    public var chatTs: UTCTime
    public var favorite: Bool
    public var unread: Bool

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("noteFolderId", noteFolderId)
        w.field("userId", userId)
        w.field("createdAt", createdAt)
        w.field("updatedAt", updatedAt)
        w.field("chatTs", chatTs)
        w.field("favorite", favorite)
        w.field("unread", unread)
        w.endObject()
    }
}

/// ChatInfo (chat-api.md §7.16): the variants the embedded core has so far.
public enum ChatInfo: Hashable, Sendable, JSONWritable {
    case local(NoteFolder)
    /// A group's main chat (no support scope).
    /// Boxed: a GroupInfo is large, and chat lists copy their rows.
    indirect case group(GroupInfo)

    public func write(to w: inout JSONWriter) {
        switch self {
        case .local(let folder):
            w.beginTagged("local")
            w.field("noteFolder", folder)
        case .group(let info):
            w.beginTagged("group")
            w.field("groupInfo", info)
        }
        w.endObject()
    }

    /// When the chat was last active, for ordering chat lists.
    var chatTs: UTCTime {
        switch self {
        case .local(let folder): folder.chatTs
        case .group(let info): info.chatTs ?? info.updatedAt
        }
    }
}

/// ChatStats (chat-api.md §7.17).
public struct ChatStats: Hashable, Sendable, JSONWritable {
    public var unreadCount: Int64 = 0
    public var unreadMentions: Int64 = 0
    public var reportsCount: Int64 = 0
    public var minUnreadItemId: Int64 = 0
    public var unreadChat: Bool = false

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("unreadCount", unreadCount)
        w.field("unreadMentions", unreadMentions)
        w.field("reportsCount", reportsCount)
        w.field("minUnreadItemId", minUnreadItemId)
        w.field("unreadChat", unreadChat)
        w.endObject()
    }
}

/// AChat (chat-api.md §7.18): a chat with its items (in `apiChats`, at most the last one; in `apiChat`, the page in
/// ascending order) and stats.
public struct AChat: Hashable, Sendable, JSONWritable {
    public var chatInfo: ChatInfo
    public var chatItems: [ChatItem] = []
    public var chatStats: ChatStats

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("chatInfo", chatInfo)
        w.field("chatItems", chatItems)
        w.field("chatStats", chatStats)
        w.endObject()
    }
}

extension ChatStats {
    /// A chat with nothing unread.
    public static let none = ChatStats()
}
