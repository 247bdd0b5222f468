public import ChatStore

/// The item store seen from outside, for `simplex-bench core`: a bulk fill of a note folder, and the statements the
/// handlers run for a command, so that each command can be timed beside the same SQL prepared once.
public enum ItemStoreProbe {
    /// One statement a command runs.
    public struct Statement: Sendable {
        public let sql: String
        public let values: [SQLValue]
    }

    /// Fills note folder `noteFolderId` of `userId` with `texts`, one second apart from `start`.
    public static func fillNotes(
        _ db: SQLiteDatabase, userId: Int64, noteFolderId: Int64, texts: some Sequence<String>, from start: UTCTime
    ) throws(ChatError) {
        try ChatRepository(db: db).insertNotes(userId: userId, noteFolderId: noteFolderId, texts: texts, from: start)
    }

    /// Creates `count` local groups of `userId`, as `/_group` creates them, `spacing` seconds apart from `start`; every
    /// `itemsEvery`-th group gets `itemsPerGroup` items. One transaction.
    public static func fillGroups(
        _ db: SQLiteDatabase, userId: Int64, count: Int, from start: UTCTime, spacing: Int64, itemsEvery: Int,
        itemsPerGroup: Int
    ) throws(ChatError) {
        guard let user = try ChatRepository(db: db).user(id: userId) else { throw .errorStore(.userNotFound(userId: userId)) }
        try GroupRepository(db: db).insertGroups(
            user: user, count: count, from: start, spacing: spacing, itemsEvery: itemsEvery, itemsPerGroup: itemsPerGroup)
    }

    /// `/_get chat *<id> [search=…] count=<n>`: the folder (the reply's chatInfo), then the last page.
    public static func lastPage(userId: Int64, noteFolderId: Int64, count: Int64, search: String = "") -> [Statement] {
        let (sql, values) = ChatRepository.lastItemsQuery(
            userId: userId, .local(noteFolderId: noteFolderId), ItemFilter(search: search), count: count)
        return [noteFolderStatement(userId: userId, noteFolderId), Statement(sql: sql, values: values)]
    }

    private static func noteFolderStatement(userId: Int64, _ noteFolderId: Int64) -> Statement {
        Statement(ChatRepository.noteFolderQuery(userId: userId, id: noteFolderId))
    }

    /// `/_get chat *<id> around=<itemId> count=<n>`: the stats, the anchor, both sides and what follows.
    public static func aroundPage(_ db: SQLiteDatabase, userId: Int64, noteFolderId: Int64, itemId: Int64, count: Int64)
        throws(ChatError) -> [Statement]
    {
        let store = ChatRepository(db: db)
        let chat = ItemChat.local(noteFolderId: noteFolderId)
        let anchor = try store.item(userId: userId, chat, id: itemId).position
        let last = try store.items(userId: userId, chat, .none, after: anchor, count: count).last?.position ?? anchor
        return [
            noteFolderStatement(userId: userId, noteFolderId), unreadStatement(userId: userId, chat),
            Statement(ChatRepository.firstUnreadQuery(userId: userId, chat, contentTag: nil)),
            itemStatement(userId: userId, chat, itemId),
            Statement(ChatRepository.itemsBeforeQuery(userId: userId, chat, .none, before: anchor, count: count)),
            Statement(ChatRepository.itemsAfterQuery(userId: userId, chat, .none, after: anchor, count: count)),
        ] + ChatRepository.navigationQueries(userId: userId, chat, .none, after: last).map(Statement.init)
    }

    /// `/_get chats <userId>`: the folders, and for each its unread stats and last item; the groups with their tags,
    /// and the unread stats and last items of all of them.
    public static func chatList(_ db: SQLiteDatabase, userId: Int64) throws(ChatError) -> [Statement] {
        var statements = [Statement(sql: ChatRepository.noteFoldersQuery, values: [.integer(userId)])]
        for folder in try ChatRepository(db: db).noteFolders(userId: userId) {
            statements += preview(userId: userId, .local(noteFolderId: folder.noteFolderId))
        }
        statements += GroupRepository.groupsQueries(userId: userId).map(Statement.init)
        statements.append(Statement(ChatRepository.groupUnreadStatsQuery(userId: userId)))
        statements.append(Statement(ChatRepository.groupLastItemsQuery(userId: userId)))
        return statements
    }

    private static func preview(userId: Int64, _ chat: ItemChat) -> [Statement] {
        [unreadStatement(userId: userId, chat), Statement(ChatRepository.lastItemsQuery(userId: userId, chat, .none, count: 1))]
    }

    private static func itemStatement(userId: Int64, _ chat: ItemChat, _ id: Int64) -> Statement {
        Statement(ChatRepository.itemQuery(userId: userId, chat, id: id))
    }

    private static func unreadStatement(userId: Int64, _ chat: ItemChat) -> Statement {
        Statement(ChatRepository.unreadStatsQuery(userId: userId, chat, contentTag: nil))
    }
}

extension ItemStoreProbe.Statement {
    init(_ q: (String, [SQLValue])) { self.init(sql: q.0, values: q.1) }
}
