internal import ChatModel
internal import ChatStore
internal import SimplexEncoding

/// Whose items a query is about: the chat's id column in `chat_items` and `files` (migration `m20261202_chat_items`).
/// Every item query goes through this one type, so another kind of chat (local groups: `group_id`) needs a case here
/// and its directions in `direction(sent:)`, and nothing else in the store.
enum ItemChat: Hashable, Sendable {
    case local(noteFolderId: Int64)
    /// A local group's items: the user is its only member, so every item is the user's own.
    case group(groupId: Int64)

    var column: String {
        switch self {
        case .local: "note_folder_id"
        case .group: "group_id"
        }
    }

    var id: Int64 {
        switch self {
        case .local(let id), .group(let id): id
        }
    }

    func direction(sent: Bool) -> CIDirection {
        switch self {
        case .local: sent ? .localSnd : .localRcv
        case .group: .groupSnd
        }
    }

    /// Whether a sent item may be deleted (and, unless forwarded, edited): the user's own items always, as in the core
    /// (a group item's deletion for everyone reaches nobody: there are no other members).
    func deletable(sent: Bool) -> Bool { sent }

    /// The chat type CIDeleted names.
    var chatType: String {
        switch self {
        case .local: "local"
        case .group: "group"
        }
    }
}

/// Which of a chat's items a page holds: `content=` and `search=` (empty: all).
struct ItemFilter: Hashable, Sendable {
    var contentTag: MsgContentTag?
    var search: String = ""

    static let none = ItemFilter()
}

/// An item to store: a message, or (with `event`) an event item, whose `content` is then not stored.
struct NewChatItem {
    var sent: Bool
    var content: MsgContent
    var event: CIContent? = nil
    var status: CIStatus
    var forwarded: CIForwardedFrom?
    var file: NewItemFile?
    var ts: UTCTime
    /// Group items: the id the item has on the network.
    var sharedMsgId: SharedMsgId? = nil
    var live: Bool? = nil
    var quote: NewQuote? = nil
}

/// What a new item quotes: the quoted item's shared id, time and content as the quote shows it.
struct NewQuote {
    var sharedMsgId: SharedMsgId?
    var sentAt: UTCTime
    var content: MsgContent
    var sent: Bool
}

/// A file record to store with its item.
struct NewItemFile {
    var fileName: String
    var fileSize: Int64
    var source: CryptoFile
}

/// A chat list row's view of a chat's items: its unread stats and newest item.
struct ChatPreview {
    var unread: (count: Int64, minId: Int64) = (0, 0)
    var lastItem: ChatItem?
}

/// The position of an item in its chat's order: (item_ts, chat_item_id).
struct ItemPosition: Hashable, Sendable {
    var ts: Int64
    var id: Int64
}

extension UTCTime {
    /// Nanoseconds since the epoch, the stored `item_ts`.
    var nanosecondsSinceEpoch: Int64 { seconds &* 1_000_000_000 &+ Int64(nanoseconds) }

    init(nanosecondsSinceEpoch ns: Int64) {
        let (s, r) = ns.quotientAndRemainder(dividingBy: 1_000_000_000)
        self.init(seconds: s, nanoseconds: Int32(r))
    }
}

extension ChatRepository {
    private static let itemColumnList = """
        SELECT i.chat_item_id, i.item_sent, i.item_ts, i.msg_content, i.item_text, i.item_status, i.item_edited,
          i.fwd_from_tag, i.fwd_from_chat_name, i.fwd_from_msg_dir, i.fwd_from_contact_id, i.fwd_from_group_id,
          i.fwd_from_chat_item_id, i.created_at, i.updated_at,
          f.file_id, f.file_name, f.file_size, f.file_path, f.file_crypto_key, f.file_crypto_nonce, f.ci_file_status,
          f.protocol,
          i.shared_msg_id, i.item_deleted, i.item_deleted_ts, i.item_live, i.quoted_shared_msg_id, i.quoted_sent_at,
          i.quoted_content, i.quoted_sent,
          (SELECT q.chat_item_id FROM chat_items q
           WHERE q.group_id = i.group_id AND q.shared_msg_id = i.quoted_shared_msg_id LIMIT 1),
          i.item_deleted_by_group_member_id, i.item_content_tag, i.item_content
        """
    private static let itemColumnCount = 35
    private static let itemColumns = itemColumnList + " FROM chat_items i LEFT JOIN files f ON f.chat_item_id = i.chat_item_id"

    /// `WHERE` for a chat's items under a filter, with its values.
    private static func chatCondition(userId: Int64, _ chat: ItemChat, _ filter: ItemFilter) -> (String, [SQLValue]) {
        var sql = " WHERE i.user_id = ? AND i.\(chat.column) = ?"
        var values: [SQLValue] = [.integer(userId), .integer(chat.id)]
        if let tag = filter.contentTag {
            sql += " AND i.msg_content_tag = ?"
            values.append(.text(tag.rawValue))
        }
        if !filter.search.isEmpty {
            sql += " AND " + textContains("i.item_text", filter.search)
            values.append(.text(filter.search))
        }
        return (sql, values)
    }

    /// SQLite's default `SQLITE_MAX_LIKE_PATTERN_LENGTH`, in bytes: a longer LIKE pattern fails the statement.
    static let likePatternLimit = 50_000

    /// A condition that `column` contains the next bound value, ignoring ASCII case. The official core matches with
    /// `LIKE '%' || ? || '%'` and bounds nothing, so a search past SQLite's LIKE limit fails its query; such a search
    /// (which no wildcard could make shorter) is matched as plain text with `instr` instead, folding case as LIKE does.
    static func textContains(_ column: String, _ search: String) -> String {
        search.utf8.count + 2 > likePatternLimit
            ? "instr(LOWER(\(column)), LOWER(?)) > 0" : "\(column) LIKE '%' || ? || '%'"
    }

    /// The page-query SQL and values, so the benchmark can run the very statements the core runs.
    static func lastItemsQuery(userId: Int64, _ chat: ItemChat, _ filter: ItemFilter, count: Int64) -> (String, [SQLValue]) {
        let (condition, values) = chatCondition(userId: userId, chat, filter)
        return (
            itemColumns + condition + " ORDER BY i.item_ts DESC, i.chat_item_id DESC LIMIT ?", values + [.integer(count)]
        )
    }

    static func itemsAfterQuery(
        userId: Int64, _ chat: ItemChat, _ filter: ItemFilter, after p: ItemPosition, count: Int64
    ) -> (String, [SQLValue]) {
        let (condition, values) = chatCondition(userId: userId, chat, filter)
        // The first term is the index range; the second drops the anchor's equals that come before it.
        return (
            itemColumns + condition
                + " AND i.item_ts >= ? AND (i.item_ts > ? OR i.chat_item_id > ?) ORDER BY i.item_ts ASC, i.chat_item_id ASC LIMIT ?",
            values + [.integer(p.ts), .integer(p.ts), .integer(p.id), .integer(count)]
        )
    }

    static func itemsBeforeQuery(
        userId: Int64, _ chat: ItemChat, _ filter: ItemFilter, before p: ItemPosition, count: Int64
    ) -> (String, [SQLValue]) {
        let (condition, values) = chatCondition(userId: userId, chat, filter)
        return (
            itemColumns + condition
                + " AND i.item_ts <= ? AND (i.item_ts < ? OR i.chat_item_id < ?) ORDER BY i.item_ts DESC, i.chat_item_id DESC LIMIT ?",
            values + [.integer(p.ts), .integer(p.ts), .integer(p.id), .integer(count)]
        )
    }

    static func itemQuery(userId: Int64, _ chat: ItemChat, id: Int64) -> (String, [SQLValue]) {
        let (condition, values) = chatCondition(userId: userId, chat, .none)
        return (itemColumns + condition + " AND i.chat_item_id = ?", values + [.integer(id)])
    }

    /// Two counts after a position, all items and unread ones, each from its own index alone (no table reads).
    static func navigationQueries(userId: Int64, _ chat: ItemChat, _ filter: ItemFilter, after p: ItemPosition) -> [(
        String, [SQLValue]
    )] {
        let (condition, values) = chatCondition(userId: userId, chat, filter)
        let after = " AND i.item_ts >= ? AND (i.item_ts > ? OR i.chat_item_id > ?)"
        let position: [SQLValue] = [.integer(p.ts), .integer(p.ts), .integer(p.id)]
        return [
            ("SELECT count(*) FROM chat_items i" + condition + after, values + position),
            (
                "SELECT count(*) FROM chat_items i" + condition + " AND i.item_status = 'rcv_new'" + after,
                values + position
            ),
        ]
    }

    static func unreadStatsQuery(userId: Int64, _ chat: ItemChat, contentTag: MsgContentTag?) -> (String, [SQLValue]) {
        var sql = "SELECT count(*), coalesce(min(chat_item_id), 0) FROM chat_items WHERE user_id = ? AND \(chat.column) = ?"
        var values: [SQLValue] = [.integer(userId), .integer(chat.id)]
        if let contentTag {
            sql += " AND msg_content_tag = ?"
            values.append(.text(contentTag.rawValue))
        }
        return (sql + " AND item_status = 'rcv_new'", values)
    }

    /// Each of the user's groups with unread items: its id, their count and the smallest id. Groups without unread
    /// items have no row. `CROSS JOIN` keeps the groups outside, so each group's unread items are one index range;
    /// otherwise SQLite reads every item of every group to find the unread ones.
    static func groupUnreadStatsQuery(userId: Int64) -> (String, [SQLValue]) {
        (
            """
            SELECT g.group_id, count(*), min(i.chat_item_id) FROM groups g
            CROSS JOIN chat_items i ON i.user_id = g.user_id AND i.group_id = g.group_id AND i.item_status = 'rcv_new'
            WHERE g.user_id = ? GROUP BY g.group_id
            """, [.integer(userId)]
        )
    }

    /// The newest item of each of the user's groups that has items, with the group's id last.
    static func groupLastItemsQuery(userId: Int64) -> (String, [SQLValue]) {
        (
            itemColumnList + """
                , g.group_id
                FROM groups g
                JOIN chat_items i ON i.chat_item_id = (
                  SELECT l.chat_item_id FROM chat_items l WHERE l.user_id = g.user_id AND l.group_id = g.group_id
                  ORDER BY l.item_ts DESC, l.chat_item_id DESC LIMIT 1)
                LEFT JOIN files f ON f.chat_item_id = i.chat_item_id
                WHERE g.user_id = ?
                """, [.integer(userId)]
        )
    }

    // MARK: Reading

    /// The chat list's view of all the user's groups, by group id: each group's unread stats and newest item, from
    /// two statements for all of them (where `unreadStats` and `lastItem` would be two for each).
    func groupPreviews(userId: Int64) throws(ChatError) -> [Int64: ChatPreview] {
        var previews: [Int64: ChatPreview] = [:]
        let (statsSQL, statsValues) = Self.groupUnreadStatsQuery(userId: userId)
        for row in try query(statsSQL, statsValues) {
            guard row.count == 3, let id = row[0].integer, let count = row[1].integer, let minId = row[2].integer else {
                throw .errorStore(.internalError("unread stats row"))
            }
            previews[id, default: ChatPreview()].unread = (count, minId)
        }
        let (itemsSQL, itemsValues) = Self.groupLastItemsQuery(userId: userId)
        for row in try query(itemsSQL, itemsValues) {
            guard row.count == Self.itemColumnCount + 1, let id = row[Self.itemColumnCount].integer else {
                throw .errorStore(.internalError("chat_items row"))
            }
            let itemRow = Array(row.prefix(Self.itemColumnCount))
            previews[id, default: ChatPreview()].lastItem = try withModerator(
                Self.item(itemRow, .group(groupId: id)), itemRow, .group(groupId: id))
        }
        return previews
    }

    /// The last `count` items, oldest first.
    func lastItems(userId: Int64, _ chat: ItemChat, _ filter: ItemFilter, count: Int64) throws(ChatError) -> [ChatItem] {
        let (sql, values) = Self.lastItemsQuery(userId: userId, chat, filter, count: count)
        var found = try items(sql, values, chat)
        found.reverse()
        return found
    }

    /// Up to `count` items after a position, oldest first.
    func items(userId: Int64, _ chat: ItemChat, _ filter: ItemFilter, after p: ItemPosition, count: Int64) throws(ChatError)
        -> [ChatItem]
    {
        let (sql, values) = Self.itemsAfterQuery(userId: userId, chat, filter, after: p, count: count)
        return try items(sql, values, chat)
    }

    /// Up to `count` items before a position, oldest first.
    func items(userId: Int64, _ chat: ItemChat, _ filter: ItemFilter, before p: ItemPosition, count: Int64)
        throws(ChatError) -> [ChatItem]
    {
        let (sql, values) = Self.itemsBeforeQuery(userId: userId, chat, filter, before: p, count: count)
        var found = try items(sql, values, chat)
        found.reverse()
        return found
    }

    /// One item of the chat, or `chatItemNotFound`.
    func item(userId: Int64, _ chat: ItemChat, id: Int64) throws(ChatError) -> ChatItem {
        let (sql, values) = Self.itemQuery(userId: userId, chat, id: id)
        guard let item = try items(sql, values, chat).first else { throw .errorStore(.chatItemNotFound(itemId: id)) }
        return item
    }

    /// The newest item (a chat list's preview).
    func lastItem(userId: Int64, _ chat: ItemChat) throws(ChatError) -> ChatItem? {
        try lastItems(userId: userId, chat, .none, count: 1).first
    }

    /// Unread and total items after a position (NavigationInfo).
    func navigation(userId: Int64, _ chat: ItemChat, _ filter: ItemFilter, after p: ItemPosition) throws(ChatError)
        -> NavigationInfo
    {
        let counts = try Self.navigationQueries(userId: userId, chat, filter, after: p).map { (sql, values) throws(ChatError) in
            try query(sql, values).first?.first?.integer ?? 0
        }
        return NavigationInfo(afterUnread: counts.last ?? 0, afterTotal: counts.first ?? 0)
    }

    /// The unread items' count and smallest id (0 when none).
    func unreadStats(userId: Int64, _ chat: ItemChat, contentTag: MsgContentTag? = nil) throws(ChatError) -> (
        count: Int64, minId: Int64
    ) {
        let (sql, values) = Self.unreadStatsQuery(userId: userId, chat, contentTag: contentTag)
        let row = try query(sql, values).first
        return (row?[0].integer ?? 0, row?[1].integer ?? 0)
    }

    /// The first unread item in the chat's order (where `initial=` opens), or nil.
    func firstUnread(userId: Int64, _ chat: ItemChat, contentTag: MsgContentTag?) throws(ChatError) -> Int64? {
        let (sql, values) = Self.firstUnreadQuery(userId: userId, chat, contentTag: contentTag)
        return try query(sql, values).first?.first?.integer
    }

    static func firstUnreadQuery(userId: Int64, _ chat: ItemChat, contentTag: MsgContentTag?) -> (String, [SQLValue]) {
        var sql = "SELECT chat_item_id FROM chat_items WHERE user_id = ? AND \(chat.column) = ? AND item_status = 'rcv_new'"
        var values: [SQLValue] = [.integer(userId), .integer(chat.id)]
        if let contentTag {
            sql += " AND msg_content_tag = ?"
            values.append(.text(contentTag.rawValue))
        }
        return (sql + " ORDER BY item_ts, chat_item_id LIMIT 1", values)
    }

    /// Whether any item's text contains `text` (the chat list's search).
    func anyItemText(userId: Int64, _ chat: ItemChat, contains text: String) throws(ChatError) -> Bool {
        !(try query(
            "SELECT 1 FROM chat_items WHERE user_id = ? AND \(chat.column) = ? AND \(Self.textContains("item_text", text)) LIMIT 1",
            [.integer(userId), .integer(chat.id), .text(text)]
        ).isEmpty)
    }

    /// The newest of the user's own items whose text starts with `prefix` (the human forms name items by their text).
    func newestSentItemId(userId: Int64, _ chat: ItemChat, textPrefix prefix: String) throws(ChatError) -> Int64? {
        try query(
            """
            SELECT chat_item_id FROM chat_items WHERE user_id = ? AND \(chat.column) = ? AND item_sent = 1
              AND substr(item_text, 1, length(?3)) = ?3
            ORDER BY chat_item_id DESC LIMIT 1
            """, [.integer(userId), .integer(chat.id), .text(prefix)]
        ).first?.first?.integer
    }

    /// The content types present in the chat.
    func contentTags(userId: Int64, _ chat: ItemChat) throws(ChatError) -> [MsgContentTag] {
        try query(
            "SELECT DISTINCT msg_content_tag FROM chat_items WHERE user_id = ? AND \(chat.column) = ? AND msg_content_tag != ''",
            [.integer(userId), .integer(chat.id)]
        ).compactMap { $0.first?.text.map(MsgContentTag.init(rawValue:)) }
    }

    /// An item's edit history, newest first.
    func itemVersions(_ itemId: Int64) throws(ChatError) -> [ChatItemVersion] {
        try query(
            """
            SELECT chat_item_version_id, msg_content, item_version_ts, created_at FROM chat_item_versions
            WHERE chat_item_id = ? ORDER BY chat_item_version_id DESC
            """, [.integer(itemId)]
        ).map { (row) throws(ChatError) in
            guard let id = row[0].integer, let mc = row[1].text, let ts = Self.time(row[2]), let created = Self.time(row[3])
            else { throw .errorStore(.internalError("chat_item_versions row")) }
            return ChatItemVersion(
                chatItemVersionId: id, msgContent: try Self.msgContent(mc), itemVersionTs: ts, createdAt: created)
        }
    }

    /// The files of the chat's items: what clearing the chat removes from the files folder.
    func filePaths(userId: Int64, _ chat: ItemChat) throws(ChatError) -> [String] {
        try query(
            "SELECT file_path FROM files WHERE user_id = ? AND \(chat.column) = ? AND file_path IS NOT NULL",
            [.integer(userId), .integer(chat.id)]
        ).compactMap { $0.first?.text }
    }

    // MARK: Writing (inside `write`)

    /// Stores an item and its file; returns the item as read back.
    func insertItem(userId: Int64, _ chat: ItemChat, _ new: NewChatItem, at now: UTCTime) throws(ChatError) -> ChatItem {
        let time = SQLValue.text(now.iso8601)
        var forwarded: [SQLValue] = [.null, .null, .null, .null, .null, .null]
        switch new.forwarded {
        case nil: break
        case .unknown: forwarded[0] = .text("unknown")
        case .contact(let name, let dir, let contactId, let itemId):
            forwarded = [
                .text("contact"), .text(name), .integer(dir == "snd" ? 1 : 0), Self.int(contactId), .null, Self.int(itemId),
            ]
        case .group(let name, let dir, let groupId, let itemId):
            forwarded = [.text("group"), .text(name), .integer(dir == "snd" ? 1 : 0), .null, Self.int(groupId), Self.int(itemId)]
        }
        try run(
            """
            INSERT INTO chat_items (user_id, \(chat.column), item_sent, item_ts, msg_content, msg_content_tag, item_text,
              item_status, fwd_from_tag, fwd_from_chat_name, fwd_from_msg_dir, fwd_from_contact_id, fwd_from_group_id,
              fwd_from_chat_item_id, created_at, updated_at, shared_msg_id, item_live, quoted_shared_msg_id, quoted_sent_at,
              quoted_content, quoted_sent, item_content_tag, item_content)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(userId), .integer(chat.id), .integer(new.sent ? 1 : 0), .integer(new.ts.nanosecondsSinceEpoch),
                .text(new.event == nil ? new.content.json.rendered : ""),
                .text(new.event == nil ? new.content.tag.rawValue : ""),
                .text(new.event?.eventText ?? new.content.itemText), .text(new.status.rawValue),
            ] + forwarded + [
                time, time, new.sharedMsgId.map { SQLValue.blob($0.bytes) } ?? .null,
                new.live.map { .integer($0 ? 1 : 0) } ?? .null,
                new.quote?.sharedMsgId.map { SQLValue.blob($0.bytes) } ?? .null, Self.text(new.quote?.sentAt.iso8601),
                Self.text(new.quote?.content.json.rendered), new.quote.map { .integer($0.sent ? 1 : 0) } ?? .null,
                Self.text(new.event?.tag), Self.text(new.event.map { String(decoding: $0.jsonBytes, as: UTF8.self) }),
            ])
        let itemId = db.lastInsertRowID
        if let file = new.file {
            try run(
                """
                INSERT INTO files (user_id, \(chat.column), chat_item_id, file_name, file_path, file_size, file_crypto_key,
                  file_crypto_nonce, ci_file_status, protocol, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'sndStored', 'LOCAL', ?, ?)
                """,
                [
                    .integer(userId), .integer(chat.id), .integer(itemId), .text(file.fileName), .text(file.source.filePath),
                    .integer(file.fileSize), Self.text(file.source.cryptoArgs?.fileKey),
                    Self.text(file.source.cryptoArgs?.fileNonce), time, time,
                ])
        }
        return try item(userId: userId, chat, id: itemId)
    }

    /// Replaces an item's content after an edit, keeping the old and new contents as versions (the core's
    /// `addInitialAndNewCIVersions`: the first edit also records the original).
    func updateItemContent(_ item: ChatItem, to content: MsgContent, at now: UTCTime) throws(ChatError) {
        let time = SQLValue.text(now.iso8601)
        let id = SQLValue.integer(item.meta.itemId)
        if let old = item.msgContent,
            try query("SELECT 1 FROM chat_item_versions WHERE chat_item_id = ? LIMIT 1", [id]).isEmpty
        {
            try run(
                "INSERT INTO chat_item_versions (chat_item_id, msg_content, item_version_ts, created_at) VALUES (?, ?, ?, ?)",
                [id, .text(old.json.rendered), .text(item.meta.itemTs.iso8601), time])
        }
        try run(
            "INSERT INTO chat_item_versions (chat_item_id, msg_content, item_version_ts, created_at) VALUES (?, ?, ?, ?)",
            [id, .text(content.json.rendered), time, time])
        try run(
            """
            UPDATE chat_items SET msg_content = ?, msg_content_tag = ?, item_text = ?, item_edited = 1, updated_at = ?
            WHERE chat_item_id = ?
            """, [.text(content.json.rendered), .text(content.tag.rawValue), .text(content.itemText), time, id])
    }

    /// Deletes an item, and with it the reactions to it (which name it by its shared id, not its row).
    func deleteItem(_ item: ChatItem, _ chat: ItemChat) throws(ChatError) {
        if case .group(let groupId) = chat, let shared = item.meta.itemSharedMsgId {
            try run(
                "DELETE FROM chat_item_reactions WHERE group_id = ? AND shared_msg_id = ?",
                [.integer(groupId), .blob(shared.bytes)])
        }
        try run("DELETE FROM chat_items WHERE chat_item_id = ?", [.integer(item.meta.itemId)])
    }

    /// Deletes every item of the chat, and with them their files and versions.
    func deleteItems(userId: Int64, _ chat: ItemChat) throws(ChatError) {
        if case .group(let groupId) = chat {
            try run("DELETE FROM chat_item_reactions WHERE group_id = ?", [.integer(groupId)])
        }
        try run("DELETE FROM files WHERE user_id = ? AND \(chat.column) = ?", [.integer(userId), .integer(chat.id)])
        try run("DELETE FROM chat_items WHERE user_id = ? AND \(chat.column) = ?", [.integer(userId), .integer(chat.id)])
    }

    /// Every unread item of the user becomes read, and no chat stays marked unread (`setUserChatsRead`).
    func markUserChatsRead(userId: Int64, at now: UTCTime) throws(ChatError) {
        let values: [SQLValue] = [.text(now.iso8601), .integer(userId)]
        try run("UPDATE groups SET unread_chat = 0, updated_at = ? WHERE user_id = ? AND unread_chat = 1", values)
        try run("UPDATE note_folders SET unread_chat = 0, updated_at = ? WHERE user_id = ? AND unread_chat = 1", values)
        try run(
            "UPDATE chat_items SET item_status = 'rcv_read', updated_at = ? WHERE user_id = ? AND item_status = 'rcv_new'",
            values)
    }

    /// Marks every unread item read.
    func markItemsRead(userId: Int64, _ chat: ItemChat, at now: UTCTime) throws(ChatError) {
        try run(
            """
            UPDATE chat_items SET item_status = 'rcv_read', updated_at = ?
            WHERE user_id = ? AND \(chat.column) = ? AND item_status = 'rcv_new'
            """, [.text(now.iso8601), .integer(userId), .integer(chat.id)])
    }

    /// Marks the named unread items read.
    func markItemsRead(userId: Int64, _ chat: ItemChat, ids: [Int64], at now: UTCTime) throws(ChatError) {
        for id in ids {
            try run(
                """
                UPDATE chat_items SET item_status = 'rcv_read', updated_at = ?
                WHERE user_id = ? AND \(chat.column) = ? AND chat_item_id = ? AND item_status = 'rcv_new'
                """, [.text(now.iso8601), .integer(userId), .integer(chat.id), .integer(id)])
        }
    }

    // MARK: Items of all chats

    /// Which of the user's items, across all chats, `/_get items` reads: the newest, or those after or before an item.
    enum AllItemsRange {
        case last
        case after(ItemPosition)
        case before(ItemPosition)
    }

    /// The chat an item of the user is in, when it is in one the embedded core keeps.
    func itemChat(userId: Int64, itemId: Int64) throws(ChatError) -> ItemChat? {
        guard
            let row = try query(
                "SELECT group_id, note_folder_id FROM chat_items WHERE user_id = ? AND chat_item_id = ?",
                [.integer(userId), .integer(itemId)]
            ).first
        else { return nil }
        return Self.itemChat(groupId: row[0].integer, noteFolderId: row[1].integer)
    }

    /// Up to `count` of the user's items in `range` whose text contains `search` ignoring case, oldest first, each with
    /// its chat (`getAllChatItems`, which orders every chat's items by `item_ts` alike).
    func allItemRefs(userId: Int64, search: String, _ range: AllItemsRange, count: Int64) throws(ChatError) -> [(
        id: Int64, chat: ItemChat
    )] {
        var sql = """
            SELECT chat_item_id, group_id, note_folder_id FROM chat_items
            WHERE user_id = ? AND \(Self.textContains("item_text", search))
            """
        var values: [SQLValue] = [.integer(userId), .text(search)]
        var descending = true
        switch range {
        case .last: break
        case .after(let p):
            sql += " AND (item_ts > ? OR (item_ts = ? AND chat_item_id > ?))"
            values += [.integer(p.ts), .integer(p.ts), .integer(p.id)]
            descending = false
        case .before(let p):
            sql += " AND (item_ts < ? OR (item_ts = ? AND chat_item_id < ?))"
            values += [.integer(p.ts), .integer(p.ts), .integer(p.id)]
        }
        sql += descending ? " ORDER BY item_ts DESC, chat_item_id DESC LIMIT ?" : " ORDER BY item_ts, chat_item_id LIMIT ?"
        let refs = try query(sql, values + [.integer(count)]).compactMap { (row) -> (id: Int64, chat: ItemChat)? in
            guard let id = row[0].integer, let chat = Self.itemChat(groupId: row[1].integer, noteFolderId: row[2].integer)
            else { return nil }
            return (id, chat)
        }
        return descending ? Array(refs.reversed()) : refs
    }

    /// The smallest id of the user's unread items, in any chat.
    func firstUnreadItemId(userId: Int64) throws(ChatError) -> Int64? {
        try query(
            "SELECT min(chat_item_id) FROM chat_items WHERE user_id = ? AND item_status = 'rcv_new'", [.integer(userId)]
        ).first?.first?.integer
    }

    private static func itemChat(groupId: Int64?, noteFolderId: Int64?) -> ItemChat? {
        if let groupId { return .group(groupId: groupId) }
        return noteFolderId.map { .local(noteFolderId: $0) }
    }

    // MARK: Rows

    private func items(_ sql: String, _ values: [SQLValue], _ chat: ItemChat) throws(ChatError) -> [ChatItem] {
        try query(sql, values).map { (row) throws(ChatError) in
            var item = try withModerator(Self.item(row, chat), row, chat)
            if case .group(let groupId) = chat, let shared = row[23].blob {
                item.reactions = try reactions(groupId: groupId, sharedMsgId: SharedMsgId(bytes: shared))
            }
            return item
        }
    }

    /// An item a moderator deleted names the moderator, a member read with the item (the core's join on
    /// `item_deleted_by_group_member_id`); a member since gone leaves the deletion unattributed.
    private func withModerator(_ item: ChatItem, _ row: [SQLValue], _ chat: ItemChat) throws(ChatError) -> ChatItem {
        guard case .group(let groupId) = chat, let moderatorId = row[32].integer, item.meta.itemDeleted != nil else {
            return item
        }
        var item = item
        item.meta.itemDeleted?.byGroupMember = try GroupRepository(db: db).member(
            groupId: groupId, groupMemberId: moderatorId)
        return item
    }

    // MARK: Reactions

    /// An item's reactions, each with its count, in the order they were first given (`getGroupCIReactions`).
    func reactions(groupId: Int64, sharedMsgId: SharedMsgId) throws(ChatError) -> [CIReactionCount] {
        try query(
            """
            SELECT reaction, max(reaction_sent), count(*) FROM chat_item_reactions
            WHERE group_id = ? AND shared_msg_id = ? GROUP BY reaction ORDER BY min(chat_item_reaction_id)
            """, [.integer(groupId), .blob(sharedMsgId.bytes)]
        ).map { (row) throws(ChatError) in
            guard let text = row[0].text, let count = row[2].integer else {
                throw .errorStore(.internalError("chat_item_reactions row"))
            }
            return CIReactionCount(
                reaction: try MsgReaction.stored(text), userReacted: row[1].integer == 1, totalReacted: count)
        }
    }

    /// The user's own reactions to an item.
    func userReactions(groupId: Int64, sharedMsgId: SharedMsgId) throws(ChatError) -> [MsgReaction] {
        try query(
            """
            SELECT reaction FROM chat_item_reactions WHERE group_id = ? AND shared_msg_id = ? AND reaction_sent = 1
            ORDER BY chat_item_reaction_id
            """, [.integer(groupId), .blob(sharedMsgId.bytes)]
        ).map { (row) throws(ChatError) in try MsgReaction.stored(row.first?.text ?? "") }
    }

    func setUserReaction(
        groupId: Int64, sharedMsgId: SharedMsgId, _ reaction: MsgReaction, add: Bool, at now: UTCTime
    ) throws(ChatError) {
        let values: [SQLValue] = [.integer(groupId), .blob(sharedMsgId.bytes), .text(reaction.json.rendered)]
        if add {
            try run(
                """
                INSERT INTO chat_item_reactions (group_id, shared_msg_id, reaction, reaction_sent, reaction_ts, created_at)
                VALUES (?, ?, ?, 1, ?, ?)
                """, values + [.text(now.iso8601), .text(now.iso8601)])
        } else {
            try run(
                "DELETE FROM chat_item_reactions WHERE group_id = ? AND shared_msg_id = ? AND reaction = ? AND reaction_sent = 1",
                values)
        }
    }

    /// Who gave `reaction` to an item, in the order it was given: whether it was the user (the only one who can react
    /// in a local group) and when (`getReactionMembers`).
    func reactionGivers(groupId: Int64, sharedMsgId: SharedMsgId, _ reaction: MsgReaction) throws(ChatError) -> [(
        sent: Bool, ts: UTCTime
    )] {
        try query(
            """
            SELECT reaction_sent, reaction_ts FROM chat_item_reactions
            WHERE group_id = ? AND shared_msg_id = ? AND reaction = ? ORDER BY chat_item_reaction_id
            """, [.integer(groupId), .blob(sharedMsgId.bytes), .text(reaction.json.rendered)]
        ).map { (row) throws(ChatError) in
            guard let ts = row[1].text.flatMap(UTCTime.init(iso8601:)) else {
                throw .errorStore(.internalError("chat_item_reactions row"))
            }
            return (row[0].integer == 1, ts)
        }
    }

    // MARK: Moderation

    /// The stored `item_content_tag` of what a moderator's full deletion leaves of a message.
    static let moderatedContentTag = "sndModerated"

    /// Marks an item deleted by a moderator, keeping it and its file (`markGroupChatItemDeleted` with the moderator).
    /// With `removeContent` the message goes too (`updateGroupChatItemModerated`): the item becomes a placeholder whose
    /// text is "moderated", and its edit history is dropped.
    func moderateItem(_ itemId: Int64, by moderatorId: Int64, removeContent: Bool, at now: UTCTime) throws(ChatError) {
        let time = SQLValue.text(now.iso8601)
        let id = SQLValue.integer(itemId)
        guard removeContent else {
            try run(
                """
                UPDATE chat_items SET item_deleted = 1, item_deleted_ts = ?, item_deleted_by_group_member_id = ?, updated_at = ?
                WHERE chat_item_id = ?
                """, [time, .integer(moderatorId), time, id])
            return
        }
        try run("DELETE FROM chat_item_versions WHERE chat_item_id = ?", [id])
        try run(
            """
            UPDATE chat_items SET item_deleted = 1, item_deleted_ts = ?, item_deleted_by_group_member_id = ?,
              item_content_tag = ?, item_text = ?, updated_at = ?
            WHERE chat_item_id = ?
            """,
            [
                time, .integer(moderatorId), .text(Self.moderatedContentTag), .text(CIContent.moderatedText), time, id,
            ])
    }

    /// Marks an item deleted, keeping it and its file (`markGroupChatItemDeleted`): the user's own deletion, so no
    /// longer a moderator's.
    func markItemDeleted(_ itemId: Int64, at now: UTCTime) throws(ChatError) {
        try run(
            """
            UPDATE chat_items SET item_deleted = 1, item_deleted_ts = ?, item_deleted_by_group_member_id = NULL,
              updated_at = ?
            WHERE chat_item_id = ?
            """, [.text(now.iso8601), .text(now.iso8601), .integer(itemId)])
    }

    private static func int(_ n: Int64?) -> SQLValue { n.map(SQLValue.integer) ?? .null }
    private static func text(_ s: String?) -> SQLValue { s.map(SQLValue.text) ?? .null }

    static func msgContent(_ text: String) throws(ChatError) -> MsgContent {
        guard let json = try? CanonicalJSON.parse(text) else { throw .errorStore(.internalError("stored MsgContent")) }
        return try MsgContent(JSONInput(json))
    }

    /// The stored JSON of a text message up to its quoted text, as `MsgContent.json` renders it: an empty text's
    /// rendering without its `""}`.
    private static let textContentPrefix: [UInt8] = Array(MsgContent.text("").json.renderedBytes.dropLast(3))

    /// An item's stored content. A text message, the commonest, is taken from the item's text when the stored JSON
    /// is exactly what that text renders to; anything else is parsed.
    private static func msgContent(_ stored: String, itemText: String) throws(ChatError) -> MsgContent {
        var stored = stored
        var itemText = itemText
        let isText = stored.withUTF8 { json in
            itemText.withUTF8 { text in
                // The stored JSON is the prefix, the text in quotes, `}`; a text with nothing to escape is compared in
                // place, the rare other one against its rendering.
                guard json.count >= textContentPrefix.count + 3, json.starts(with: textContentPrefix) else { return false }
                let quoted = UnsafeBufferPointer(rebasing: json[textContentPrefix.count...])
                if !text.contains(where: CanonicalJSON.needsEscape) {
                    return quoted.count == text.count + 3 && quoted.first == 0x22
                        && quoted[quoted.count - 2] == 0x22 && quoted.last == UInt8(ascii: "}")
                        && UnsafeBufferPointer(rebasing: quoted[1..<(quoted.count - 2)]).elementsEqual(text)
                }
                var expected: [UInt8] = []
                CanonicalJSON.appendQuoted(String(decoding: text, as: UTF8.self), to: &expected)
                expected.append(UInt8(ascii: "}"))
                return quoted.elementsEqual(expected)
            }
        }
        if isText { return .text(itemText) }
        return try msgContent(stored)
    }

    private static func item(_ row: [SQLValue], _ chat: ItemChat) throws(ChatError) -> ChatItem {
        var times = RowTimes()
        guard row.count == itemColumnCount, let id = row[0].integer, let sent = row[1].integer, let ts = row[2].integer,
            let mcText = row[3].text, let text = row[4].text, let statusText = row[5].text,
            let status = CIStatus(rawValue: statusText), let created = times.parse(row[13]),
            let updated = times.parse(row[14])
        else { throw .errorStore(.internalError("chat_items row")) }
        // An event item keeps its content in `item_content` and has no message.
        let event = try row[34].text.map { (t) throws(ChatError) in try CIContent.storedEvent(t) }
        let mc = event == nil ? try msgContent(mcText, itemText: text) : .text("")
        // A moderator's full deletion leaves a placeholder of the message (`sndModerated`), with no markdown.
        let moderated = row[33].text == Self.moderatedContentTag
        var forwarded: CIForwardedFrom?
        switch row[7].text {
        case "unknown": forwarded = .unknown
        case "contact":
            forwarded = .contact(
                chatName: row[8].text ?? "", msgDir: row[9].integer == 1 ? "snd" : "rcv", contactId: row[10].integer,
                chatItemId: row[12].integer)
        case "group":
            forwarded = .group(
                chatName: row[8].text ?? "", msgDir: row[9].integer == 1 ? "snd" : "rcv", groupId: row[11].integer,
                chatItemId: row[12].integer)
        default: break
        }
        var file: CIFile?
        if let fileId = row[15].integer, let name = row[16].text, let size = row[17].integer, let fileStatus = row[21].text,
            let proto = row[22].text.flatMap(FileProtocol.init(storeTag:))
        {
            let args: CryptoFileArgs? =
                if let key = row[19].text, let nonce = row[20].text { CryptoFileArgs(fileKey: key, fileNonce: nonce) } else {
                    nil
                }
            file = CIFile(
                fileId: fileId, fileName: name, fileSize: size,
                fileSource: row[18].text.map { CryptoFile(filePath: $0, cryptoArgs: args) }, fileStatus: fileStatus,
                fileProtocol: proto)
        }
        let isSent = sent == 1
        let deleted: CIDeleted? =
            row[24].integer == 1 ? CIDeleted(deletedTs: time(row[25]), chatType: chat.chatType) : nil
        // A deleted item can be neither deleted for everyone again nor edited, as in the core (`deletable'`).
        // Nor can an event item (`deletable'` is for messages only).
        let deletable = chat.deletable(sent: isSent) && deleted == nil && event == nil
        let markdown = moderated || event != nil ? (formattedText: nil, hasLink: false) : mc.markdown
        let meta = CIMeta(
            itemId: id, itemTs: UTCTime(nanosecondsSinceEpoch: ts), itemText: text, itemStatus: status,
            itemSharedMsgId: row[23].blob.map(SharedMsgId.init(bytes:)), itemForwarded: forwarded, itemDeleted: deleted,
            itemEdited: row[6].integer == 1, itemLive: row[26].integer.map { $0 == 1 }, userMention: false,
            hasLink: markdown.hasLink, deletable: deletable, editable: deletable && forwarded == nil, createdAt: created,
            updatedAt: updated)
        var quote: CIQuote?
        if let sentAt = time(row[28]), let quoted = row[29].text {
            quote = CIQuote(
                chatDir: row[30].integer == 1 ? chat.direction(sent: true) : nil, itemId: row[31].integer,
                sharedMsgId: row[27].blob.map(SharedMsgId.init(bytes:)), sentAt: sentAt, content: try msgContent(quoted))
        }
        return ChatItem(
            chatDir: chat.direction(sent: isSent), meta: meta,
            content: event ?? (moderated ? .sndModerated : isSent ? .sndMsgContent(mc) : .rcvMsgContent(mc)),
            quotedItem: quote, file: file, formattedText: markdown.formattedText)
    }
}

extension ChatRepository {
    /// One batch of a group's items due to expire, oldest first, each with its file's path. The chat and the `item_ts`
    /// range are `idx_chat_items_groups_item_ts`, so a batch reads only what it deletes; `created_at` is checked on those
    /// rows (ISO-8601 text, which orders as time does to within the fraction of a second).
    static func expiredItemsQuery(userId: Int64, _ cutoff: ExpiryPass.Cutoff, limit: Int) -> (String, [SQLValue]) {
        (
            """
            SELECT i.chat_item_id, f.file_path FROM chat_items i LEFT JOIN files f ON f.chat_item_id = i.chat_item_id
            WHERE i.user_id = ? AND i.group_id = ? AND i.item_ts <= ? AND i.created_at <= ?
            ORDER BY i.item_ts LIMIT ?
            """,
            [
                .integer(userId), .integer(cutoff.groupId), .integer(cutoff.itemTs), .text(cutoff.createdAt.iso8601),
                .integer(Int64(limit)),
            ]
        )
    }

    /// Up to `limit` expired items of a group: their ids and the paths of their files.
    func expiredItems(userId: Int64, _ cutoff: ExpiryPass.Cutoff, limit: Int) throws(ChatError) -> (
        ids: [Int64], filePaths: [String]
    ) {
        let (sql, values) = Self.expiredItemsQuery(userId: userId, cutoff, limit: limit)
        var ids: [Int64] = []
        var paths: [String] = []
        for row in try query(sql, values) {
            guard let id = row.first?.integer else { throw .errorStore(.internalError("chat_items row")) }
            ids.append(id)
            if let path = row.last?.text { paths.append(path) }
        }
        return (ids, paths)
    }

    /// Deletes items by id, with their files' rows and versions (inside `write`), a few hundred per statement to stay
    /// far below SQLite's limit on parameters.
    func deleteItems(ids: [Int64]) throws(ChatError) {
        var start = 0
        while start < ids.count {
            let chunk = ids[start..<min(start + 500, ids.count)]
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            try run("DELETE FROM chat_items WHERE chat_item_id IN (\(marks))", chunk.map(SQLValue.integer))
            start += chunk.count
        }
    }
}

extension ChatRepository {
    /// Stores many sent text notes in one transaction with one prepared statement (no files, no re-reads): how the
    /// benchmark fills a folder. Each note is one second after the previous one.
    func insertNotes(userId: Int64, noteFolderId: Int64, texts: some Sequence<String>, from start: UTCTime) throws(ChatError) {
        do {
            try db.transaction { () throws(SQLiteError) in
                let end = try insertSentTexts(userId: userId, .local(noteFolderId: noteFolderId), texts: texts, from: start)
                try db.run(
                    "UPDATE note_folders SET chat_ts = ? WHERE note_folder_id = ?", [.text(end.iso8601), .integer(noteFolderId)])
            }
        } catch {
            switch error {
            case .sqlite(let e), .body(let e): throw .database(e)
            }
        }
    }

    /// Stores sent text items in a chat with one prepared statement, one second apart from `start`; returns the time
    /// after the last one. Call inside a transaction.
    func insertSentTexts(userId: Int64, _ chat: ItemChat, texts: some Sequence<String>, from start: UTCTime)
        throws(SQLiteError) -> UTCTime
    {
        let insert = try db.prepare(
            """
            INSERT INTO chat_items (user_id, \(chat.column), item_sent, item_ts, msg_content, msg_content_tag, item_text,
              item_status, created_at, updated_at)
            VALUES (?, ?, 1, ?, ?, 'text', ?, 'snd_new', ?, ?)
            """)
        var ts = start
        for text in texts {
            let time = SQLValue.text(ts.iso8601)
            try insert.bind([
                .integer(userId), .integer(chat.id), .integer(ts.nanosecondsSinceEpoch),
                .text(MsgContent.text(text).json.rendered), .text(text), time, time,
            ])
            while try insert.step() {}
            ts = ts.adding(seconds: 1)
        }
        return ts
    }
}
