/// The user's private notes (chat-api.md §7.16, NoteFolder); the core creates one per user.
public struct NoteFolder: Hashable, Sendable, JSONEncodable {
    public var noteFolderId: Int64
    public var userId: Int64
    public var createdAt: UTCTime
    public var updatedAt: UTCTime
    public var chatTs: UTCTime
    public var favorite: Bool
    public var unread: Bool

    public var json: JSONValue {
        .record([
            "noteFolderId": .integer(noteFolderId), "userId": .integer(userId), "createdAt": createdAt.json,
            "updatedAt": updatedAt.json, "chatTs": chatTs.json, "favorite": .bool(favorite), "unread": .bool(unread),
        ])
    }
}

/// ChatInfo (chat-api.md §7.16): the variants the embedded core has so far.
public enum ChatInfo: Hashable, Sendable, JSONEncodable {
    case local(NoteFolder)
    /// A group's main chat (no support scope).
    case group(GroupInfo)

    public var json: JSONValue {
        switch self {
        case .local(let folder): .tagged("local", ["noteFolder": folder.json])
        case .group(let info): .tagged("group", ["groupInfo": info.json])
        }
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
public struct ChatStats: Hashable, Sendable, JSONEncodable {
    public var unreadCount: Int64 = 0
    public var unreadMentions: Int64 = 0
    public var reportsCount: Int64 = 0
    public var minUnreadItemId: Int64 = 0
    public var unreadChat: Bool = false

    public var json: JSONValue {
        .record([
            "unreadCount": .integer(unreadCount), "unreadMentions": .integer(unreadMentions),
            "reportsCount": .integer(reportsCount), "minUnreadItemId": .integer(minUnreadItemId),
            "unreadChat": .bool(unreadChat),
        ])
    }
}

/// AChat (chat-api.md §7.18): a chat with its items (in `apiChats`, at most the last one; in `apiChat`, the page in
/// ascending order) and stats.
public struct AChat: Hashable, Sendable, JSONEncodable {
    public var chatInfo: ChatInfo
    public var chatItems: [ChatItem] = []
    public var chatStats: ChatStats

    public var json: JSONValue {
        .record(["chatInfo": chatInfo.json, "chatItems": .list(chatItems), "chatStats": chatStats.json])
    }
}

extension ChatStats {
    /// A chat with nothing unread.
    public static let none = ChatStats()
}
