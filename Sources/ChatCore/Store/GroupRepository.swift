internal import ChatModel
internal import ChatStore
internal import SimplexEncoding

/// Groups and chat tags in the chat database (migrations `m20261202_local_groups`, `m20261203_chat_tags`). Like
/// `ChatRepository`, reads are single statements and a command's writes run inside `ChatRepository.write`, one
/// transaction; SQLite failures become the store errors the core's `withStore` gives.
struct GroupRepository {
    let db: SQLiteDatabase

    private func query(_ sql: String, _ values: [SQLValue] = []) throws(ChatError) -> [[SQLValue]] {
        do { return try db.query(sql, values) } catch { throw .database(error) }
    }

    @discardableResult
    private func run(_ sql: String, _ values: [SQLValue] = []) throws(ChatError) -> Int {
        do { return try db.run(sql, values) } catch { throw .database(error) }
    }

    // MARK: Reading groups

    /// A member with its shown profile: the incognito one when the user joined with it.
    private static let memberColumns = """
        m.group_member_id, m.group_id, m.index_in_group, m.member_id, m.member_role, m.member_category, m.member_status,
          m.show_messages, m.blocked_by_admin, m.invited_by, m.invited_by_contact_id, m.invited_by_group_member_id,
          m.local_display_name, m.contact_id, m.contact_profile_id, m.peer_chat_min_version, m.peer_chat_max_version,
          m.created_at, m.updated_at,
          p.contact_profile_id, p.display_name, p.full_name, p.short_descr, p.description, p.image, p.contact_link,
          p.preferences, p.peer_type, p.contact_domain, p.local_alias
        """
    private static let memberColumnCount = 30

    private static let groupColumns = """
        SELECT g.group_id, g.local_display_name, g.local_alias, g.enable_ntfs, g.send_rcpts, g.favorite, g.unread_chat,
          g.use_relays, g.ui_themes, g.custom_data, g.chat_item_ttl, g.chat_ts, g.user_member_profile_sent_at,
          g.created_at, g.updated_at,
          gp.display_name, gp.full_name, gp.short_descr, gp.description, gp.image, gp.public_group, gp.preferences,
          gp.member_admission,
          (SELECT count(*) FROM group_members c WHERE c.group_id = g.group_id AND c.member_status IN (\(
            GroupMemberStatus.currentValues.map { "'\($0)'" }.joined(separator: ", ")))),
          \(memberColumns)
        FROM groups g
        JOIN group_profiles gp ON gp.group_profile_id = g.group_profile_id
        JOIN group_members m ON m.group_id = g.group_id AND m.member_category = 'user'
        JOIN contact_profiles p ON p.contact_profile_id = COALESCE(m.member_profile_id, m.contact_profile_id)
        """
    private static let groupColumnCount = 24

    /// The user's group, or nil when the user has no group with that id.
    func groupInfo(userId: Int64, groupId: Int64) throws(ChatError) -> GroupInfo? {
        try query(Self.groupColumns + " WHERE g.user_id = ? AND g.group_id = ?", [.integer(userId), .integer(groupId)])
            .first.map { (row) throws(ChatError) in try Self.groupInfo(row, chatTags: try groupChatTags(groupId)) }
    }

    /// The user's group, or the store's `groupNotFound`.
    func requireGroupInfo(userId: Int64, groupId: Int64) throws(ChatError) -> GroupInfo {
        guard let info = try groupInfo(userId: userId, groupId: groupId) else {
            throw .errorStore(.groupNotFound(groupId: groupId))
        }
        return info
    }

    /// All the user's groups, oldest first: two statements, the groups and all their tags.
    func groups(userId: Int64) throws(ChatError) -> [GroupInfo] {
        try groupRows(userId: userId).map { (row) throws(ChatError) in try groupInfo(row) }
    }

    /// The same groups as rows read but not decoded: a chat list orders thousands of groups and shows a page of them.
    func groupRows(userId: Int64) throws(ChatError) -> [GroupListRow] {
        var tags: [Int64: [Int64]] = [:]
        for row in try query(Self.allGroupChatTagsQuery, [.integer(userId)]) {
            guard let groupId = row[0].integer, let tagId = row[1].integer else { continue }
            tags[groupId, default: []].append(tagId)
        }
        let (sql, values) = Self.groupsQuery(userId: userId)
        return try query(sql, values).map { (row) throws(ChatError) in
            guard row.count == Self.groupColumnCount + Self.memberColumnCount, let groupId = row[0].integer,
                let chatTs = ChatRepository.time(row[11]) ?? ChatRepository.time(row[14])
            else { throw .errorStore(.internalError("groups row")) }
            return GroupListRow(
                groupId: groupId, chatTs: chatTs, favorite: row[5].integer == 1, unreadChat: row[6].integer == 1,
                row: row, chatTags: tags[groupId] ?? [])
        }
    }

    func groupInfo(_ listed: GroupListRow) throws(ChatError) -> GroupInfo {
        try Self.groupInfo(listed.row, chatTags: listed.chatTags)
    }

    /// The statements of `groups(userId:)`, for the benchmark.
    static func groupsQueries(userId: Int64) -> [(String, [SQLValue])] {
        [(allGroupChatTagsQuery, [.integer(userId)]), groupsQuery(userId: userId)]
    }

    private static func groupsQuery(userId: Int64) -> (String, [SQLValue]) {
        (groupColumns + " WHERE g.user_id = ? ORDER BY g.group_id", [.integer(userId)])
    }

    /// The tags of all the user's groups, in each group's order.
    private static let allGroupChatTagsQuery = """
        SELECT t.group_id, t.chat_tag_id FROM chat_tags_chats t JOIN groups g ON g.group_id = t.group_id
        WHERE g.user_id = ? ORDER BY t.group_id, t.chat_tag_id
        """

    /// A member of the user's group (the user's own membership included), or nil.
    func member(userId: Int64, groupId: Int64, groupMemberId: Int64) throws(ChatError) -> GroupMember? {
        try firstMember(
            where: "m.user_id = ? AND m.group_id = ? AND m.group_member_id = ?",
            [.integer(userId), .integer(groupId), .integer(groupMemberId)])
    }

    /// The first member a condition on `group_members m` selects, with its profile.
    private func firstMember(where condition: String, _ values: [SQLValue]) throws(ChatError) -> GroupMember? {
        try query(
            """
            SELECT \(Self.memberColumns)
            FROM group_members m
            JOIN contact_profiles p ON p.contact_profile_id = COALESCE(m.member_profile_id, m.contact_profile_id)
            WHERE \(condition)
            """, values
        ).first.map { (row) throws(ChatError) in try Self.member(row[...]) }
    }

    /// A member of any of the user's groups by its id alone (the core's `getGroupMemberById`), or nil.
    func member(userId: Int64, groupMemberId: Int64) throws(ChatError) -> GroupMember? {
        try firstMember(where: "m.user_id = ? AND m.group_member_id = ?", [.integer(userId), .integer(groupMemberId)])
    }

    /// A member of a group by its id, for an item that names it (the moderator of a deleted item).
    func member(groupId: Int64, groupMemberId: Int64) throws(ChatError) -> GroupMember? {
        try firstMember(where: "m.group_id = ? AND m.group_member_id = ?", [.integer(groupId), .integer(groupMemberId)])
    }

    /// The id of the user's group with this local display name (how human commands name groups).
    func groupId(userId: Int64, localDisplayName name: String) throws(ChatError) -> Int64? {
        try query(
            "SELECT group_id FROM groups WHERE user_id = ? AND local_display_name = ?", [.integer(userId), .text(name)]
        ).first?.first?.integer
    }

    /// The id of a member of the group, the user's own membership included, by local display name.
    func groupMemberId(userId: Int64, groupId: Int64, localDisplayName name: String) throws(ChatError) -> Int64? {
        try query(
            """
            SELECT group_member_id FROM group_members
            WHERE user_id = ? AND group_id = ? AND local_display_name = ?
            ORDER BY group_member_id LIMIT 1
            """, [.integer(userId), .integer(groupId), .text(name)]
        ).first?.first?.integer
    }

    /// The members other than the user.
    func members(userId: Int64, groupId: Int64) throws(ChatError) -> [GroupMember] {
        try query(
            """
            SELECT \(Self.memberColumns)
            FROM group_members m
            JOIN contact_profiles p ON p.contact_profile_id = COALESCE(m.member_profile_id, m.contact_profile_id)
            WHERE m.user_id = ? AND m.group_id = ? AND m.member_category != 'user'
            ORDER BY m.group_member_id
            """, [.integer(userId), .integer(groupId)]
        ).map { (row) throws(ChatError) in try Self.member(row[...]) }
    }

    // MARK: Writing groups

    /// A local display name for `base` that none of the user's contacts, contact requests, groups or members has: `base`, else
    /// `base_1`, `base_2`, … (the core's `withLocalDisplayName`).
    func freeLocalDisplayName(_ base: String, userId: Int64, except groupId: Int64? = nil) throws(ChatError)
        -> String
    {
        var suffix = 0
        while true {
            let name = suffix == 0 ? base : "\(base)_\(suffix)"
            let taken = try query(
                """
                SELECT 1 FROM contacts WHERE user_id = ?1 AND local_display_name = ?2
                UNION ALL SELECT 1 FROM groups WHERE user_id = ?1 AND local_display_name = ?2 AND group_id IS NOT ?3
                UNION ALL SELECT 1 FROM group_members
                  WHERE user_id = ?1 AND local_display_name = ?2 AND member_profile_id IS NOT NULL
                UNION ALL SELECT 1 FROM contact_requests WHERE user_id = ?1 AND local_display_name = ?2
                LIMIT 1
                """, [.integer(userId), .text(name), groupId.map(SQLValue.integer) ?? .null])
            if taken.isEmpty { return name }
            suffix += 1
        }
    }

    /// Creates a group with the user as its only member, the owner and creator (the core's `createNewGroup`); with an
    /// incognito profile, the membership shows that profile instead of the user's. Call inside `write`.
    func createGroup(
        user: User, profile: GroupProfile, incognito: Profile?, memberId: MemberId, at ts: UTCTime
    ) throws(ChatError) -> GroupInfo {
        let time = SQLValue.text(ts.iso8601)
        let userId = SQLValue.integer(user.userId)
        try run(
            """
            INSERT INTO group_profiles (user_id, display_name, full_name, short_descr, description, image, public_group,
              preferences, member_admission, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [userId] + Self.profileValues(profile) + [time, time])
        let profileId = db.lastInsertRowID
        let ldn = try freeLocalDisplayName(profile.displayName, userId: user.userId)
        try run(
            """
            INSERT INTO groups (user_id, group_profile_id, local_display_name, chat_ts, user_member_profile_sent_at,
              created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [userId, .integer(profileId), .text(ldn), time, time, time, time])
        let groupId = db.lastInsertRowID
        var memberName = user.localDisplayName
        var incognitoProfileId: SQLValue = .null
        if let incognito {
            try run(
                """
                INSERT INTO contact_profiles (user_id, display_name, full_name, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?)
                """, [userId, .text(incognito.displayName), .text(incognito.fullName), time, time])
            incognitoProfileId = .integer(db.lastInsertRowID)
            memberName = try freeLocalDisplayName(incognito.displayName, userId: user.userId)
        }
        let index = try nextMemberIndex(groupId)
        let range = ChatVersionRange.supported
        try run(
            """
            INSERT INTO group_members (group_id, user_id, index_in_group, member_id, member_role, member_category,
              member_status, invited_by, local_display_name, contact_id, contact_profile_id, member_profile_id,
              peer_chat_min_version, peer_chat_max_version, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, 'user', ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(groupId), userId, .integer(index), .text(memberId.storeText), .text(GroupMemberRole.owner.rawValue),
                .text(GroupMemberCategory.user.rawValue), .text(GroupMemberStatus.creator.rawValue), .text(memberName),
                .integer(user.userContactId), .integer(user.profile.profileId), incognitoProfileId,
                .integer(range.minVersion), .integer(range.maxVersion), time, time,
            ])
        return try requireGroupInfo(userId: user.userId, groupId: groupId)
    }

    private func nextMemberIndex(_ groupId: Int64) throws(ChatError) -> Int64 {
        try run("UPDATE groups SET member_index = member_index + 1 WHERE group_id = ?", [.integer(groupId)])
        return
            (try query("SELECT member_index - 1 FROM groups WHERE group_id = ?", [.integer(groupId)]).first?.first?
            .integer) ?? 0
    }

    /// Replaces the group's profile; the local display name follows a changed display name (`updateGroupProfile`).
    func updateGroupProfile(_ info: GroupInfo, userId: Int64, to p: GroupProfile, at ts: UTCTime) throws(ChatError) {
        let time = SQLValue.text(ts.iso8601)
        try run(
            """
            UPDATE group_profiles SET display_name = ?, full_name = ?, short_descr = ?, description = ?, image = ?,
              public_group = ?, preferences = ?, member_admission = ?, updated_at = ?
            WHERE group_profile_id = (SELECT group_profile_id FROM groups WHERE group_id = ?)
            """, Self.profileValues(p) + [time, .integer(info.groupId)])
        if p.displayName != info.groupProfile.displayName {
            let ldn = try freeLocalDisplayName(p.displayName, userId: userId, except: info.groupId)
            try run("UPDATE groups SET local_display_name = ? WHERE group_id = ?", [.text(ldn), .integer(info.groupId)])
        }
        try touch(info.groupId, at: ts)
    }

    private static func profileValues(_ p: GroupProfile) -> [SQLValue] {
        [
            .text(p.displayName), .text(p.fullName), .maybe(p.shortDescr), .maybe(p.description), .maybe(p.image),
            .maybe(p.publicGroup?.rendered), .maybe(p.groupPreferences?.json.rendered), .maybe(p.memberAdmission?.rendered),
        ]
    }

    private func touch(_ groupId: Int64, at ts: UTCTime) throws(ChatError) {
        try run("UPDATE groups SET updated_at = ? WHERE group_id = ?", [.text(ts.iso8601), .integer(groupId)])
    }

    /// The chat's time, which orders the chat list: the newest item's (`updateGroupChatTs`).
    func setChatTs(_ ts: UTCTime, groupId: Int64) throws(ChatError) {
        try run("UPDATE groups SET chat_ts = ? WHERE group_id = ?", [.text(ts.iso8601), .integer(groupId)])
    }

    /// The group's own unread mark (`/_unread chat`).
    func setUnreadChat(_ unread: Bool, groupId: Int64, at ts: UTCTime) throws(ChatError) {
        try run(
            "UPDATE groups SET unread_chat = ?, updated_at = ? WHERE group_id = ?",
            [.integer(unread ? 1 : 0), .text(ts.iso8601), .integer(groupId)])
    }

    func setAlias(_ alias: String, groupId: Int64, at ts: UTCTime) throws(ChatError) {
        try run(
            "UPDATE groups SET local_alias = ?, updated_at = ? WHERE group_id = ?",
            [.text(alias), .text(ts.iso8601), .integer(groupId)])
    }

    func setChatSettings(_ s: ChatSettings, groupId: Int64) throws(ChatError) {
        try run(
            "UPDATE groups SET enable_ntfs = ?, send_rcpts = ?, favorite = ? WHERE group_id = ?",
            [.text(s.enableNtfs.rawValue), s.sendRcpts.map(SQLValue.flag) ?? .null, .flag(s.favorite), .integer(groupId)])
    }

    /// Clears the per-group receipt overrides of a user's groups (`clear_overrides=on`).
    func clearSendReceiptOverrides(userId: Int64) throws(ChatError) {
        try run("UPDATE groups SET send_rcpts = NULL WHERE user_id = ?", [.integer(userId)])
    }

    /// A group's own item TTL (nil: the user's), or nil when the group is gone.
    func chatItemTTL(userId: Int64, groupId: Int64) throws(ChatError) -> (exists: Bool, ttl: Int64?) {
        guard
            let row = try query(
                "SELECT chat_item_ttl FROM groups WHERE user_id = ? AND group_id = ?", [.integer(userId), .integer(groupId)]
            ).first
        else { return (false, nil) }
        return (true, row.first?.integer)
    }

    /// The user's groups whose items can expire: those with a TTL of their own, and with the user's TTL when it is set
    /// (the core's `getUserGroupsToExpire`; a group's 0 means never).
    func groupIdsToExpire(userId: Int64, globalTTL: Int64) throws(ChatError) -> [Int64] {
        let inherit = globalTTL > 0 ? " OR chat_item_ttl IS NULL" : ""
        return try query(
            "SELECT group_id FROM groups WHERE user_id = ? AND (chat_item_ttl > 0\(inherit)) ORDER BY group_id",
            [.integer(userId)]
        ).compactMap { $0.first?.integer }
    }

    /// How many of the user's chats have a TTL of their own (the core's `getChatTTLCount`).
    func chatTTLCount(userId: Int64) throws(ChatError) -> Int64 {
        try query("SELECT count(*) FROM groups WHERE user_id = ? AND chat_item_ttl > 0", [.integer(userId)]).first?.first?
            .integer ?? 0
    }

    func setChatItemTTL(_ seconds: Int64?, groupId: Int64) throws(ChatError) {
        try run(
            "UPDATE groups SET chat_item_ttl = ? WHERE group_id = ?", [seconds.map(SQLValue.integer) ?? .null, .integer(groupId)])
    }

    func setUIThemes(_ themes: UIThemeEntityOverrides?, groupId: Int64, at ts: UTCTime) throws(ChatError) {
        try run(
            "UPDATE groups SET ui_themes = ?, updated_at = ? WHERE group_id = ?",
            [.maybe(themes?.json.rendered), .text(ts.iso8601), .integer(groupId)])
    }

    func setCustomData(_ data: CanonicalJSON?, groupId: Int64, at ts: UTCTime) throws(ChatError) {
        try run(
            "UPDATE groups SET custom_data = ?, updated_at = ? WHERE group_id = ?",
            [.maybe(data?.rendered), .text(ts.iso8601), .integer(groupId)])
    }

    func setMemberStatus(_ status: GroupMemberStatus, groupMemberId: Int64, at ts: UTCTime) throws(ChatError) {
        try run(
            "UPDATE group_members SET member_status = ?, updated_at = ? WHERE group_member_id = ?",
            [.text(status.rawValue), .text(ts.iso8601), .integer(groupMemberId)])
    }

    func setShowMessages(_ show: Bool, groupMemberId: Int64, at ts: UTCTime) throws(ChatError) {
        try run(
            "UPDATE group_members SET show_messages = ?, updated_at = ? WHERE group_member_id = ?",
            [.flag(show), .text(ts.iso8601), .integer(groupMemberId)])
    }

    /// Deletes the group with its profile, members (and an incognito profile used only by them) and tag marks.
    func deleteGroup(_ groupId: Int64) throws(ChatError) {
        let incognito = try query(
            "SELECT member_profile_id FROM group_members WHERE group_id = ? AND member_profile_id IS NOT NULL",
            [.integer(groupId)]
        ).compactMap { $0.first?.integer }
        let profile = try query("SELECT group_profile_id FROM groups WHERE group_id = ?", [.integer(groupId)]).first?.first
        try run("DELETE FROM groups WHERE group_id = ?", [.integer(groupId)])
        if let profile { try run("DELETE FROM group_profiles WHERE group_profile_id = ?", [profile]) }
        for id in incognito {
            try run(
                """
                DELETE FROM contact_profiles WHERE contact_profile_id = ?1
                  AND NOT EXISTS (SELECT 1 FROM group_members WHERE member_profile_id = ?1)
                """, [.integer(id)])
        }
    }

    // MARK: Chat tags

    func chatTags(userId: Int64) throws(ChatError) -> [ChatTag] {
        try query(
            "SELECT chat_tag_id, chat_tag_text, chat_tag_emoji FROM chat_tags WHERE user_id = ? ORDER BY tag_order, chat_tag_id",
            [.integer(userId)]
        ).map { (row) throws(ChatError) in
            guard row.count == 3, let id = row[0].integer, let text = row[1].text else {
                throw .errorStore(.internalError("chat_tags row"))
            }
            return ChatTag(chatTagId: id, chatTagText: text, chatTagEmoji: row[2].text)
        }
    }

    /// A new tag goes last.
    func createChatTag(_ data: ChatTagData, userId: Int64) throws(ChatError) {
        try runTagWrite(
            """
            INSERT INTO chat_tags (user_id, chat_tag_text, chat_tag_emoji, tag_order)
            VALUES (?1, ?2, ?3, COALESCE((SELECT max(tag_order) + 1 FROM chat_tags WHERE user_id = ?1), 1))
            """, [.integer(userId), .text(data.text), .maybe(data.emoji)])
    }

    func updateChatTag(_ tagId: Int64, _ data: ChatTagData, userId: Int64) throws(ChatError) {
        try runTagWrite(
            "UPDATE chat_tags SET chat_tag_text = ?, chat_tag_emoji = ? WHERE user_id = ? AND chat_tag_id = ?",
            [.text(data.text), .maybe(data.emoji), .integer(userId), .integer(tagId)])
    }

    /// A name or emoji the user's tags have already is refused by the store's unique index; the core answers it with
    /// the exception as its SQLite binding shows it (`SEDBException $ show e`, direct-sqlite's `Show SQLError`).
    private func runTagWrite(_ sql: String, _ values: [SQLValue]) throws(ChatError) {
        do { _ = try db.run(sql, values) } catch {
            guard error.isConstraint else { throw .database(error) }
            throw .errorStore(
                .dBException("SQLite3 returned ErrorConstraint while attempting to perform step: \(error.message)"))
        }
    }

    func deleteChatTag(_ tagId: Int64, userId: Int64) throws(ChatError) {
        try run("DELETE FROM chat_tags WHERE user_id = ? AND chat_tag_id = ?", [.integer(userId), .integer(tagId)])
    }

    /// Tags in `tagIds` take the order of the list, from 1.
    func reorderChatTags(_ tagIds: [Int64], userId: Int64) throws(ChatError) {
        for (i, id) in tagIds.enumerated() {
            try run(
                "UPDATE chat_tags SET tag_order = ? WHERE user_id = ? AND chat_tag_id = ?",
                [.integer(Int64(i + 1)), .integer(userId), .integer(id)])
        }
    }

    /// Replaces the group's tags.
    func setGroupChatTags(_ tagIds: [Int64], groupId: Int64) throws(ChatError) {
        try run("DELETE FROM chat_tags_chats WHERE group_id = ?", [.integer(groupId)])
        for id in tagIds {
            try run(
                "INSERT OR IGNORE INTO chat_tags_chats (group_id, chat_tag_id) VALUES (?, ?)", [.integer(groupId), .integer(id)])
        }
    }

    func groupChatTags(_ groupId: Int64) throws(ChatError) -> [Int64] {
        try query("SELECT chat_tag_id FROM chat_tags_chats WHERE group_id = ? ORDER BY chat_tag_id", [.integer(groupId)])
            .compactMap { $0.first?.integer }
    }

    // MARK: Rows

    /// A slice of a row read from 0, without copying it.
    private struct OffsetRow {
        let values: ArraySlice<SQLValue>

        init(_ values: ArraySlice<SQLValue>) { self.values = values }

        var count: Int { values.count }

        subscript(i: Int) -> SQLValue { values[values.startIndex + i] }
    }

    private static func json(_ v: SQLValue) throws(ChatError) -> CanonicalJSON? {
        guard let text = v.text else { return nil }
        guard let json = try? CanonicalJSON.parse(text) else { throw .errorStore(.internalError("stored JSON")) }
        return json
    }

    private static func groupInfo(_ row: [SQLValue], chatTags: [Int64]) throws(ChatError) -> GroupInfo {
        var times = ChatRepository.RowTimes()
        guard row.count == Self.groupColumnCount + Self.memberColumnCount, let groupId = row[0].integer,
            let ldn = row[1].text, let alias = row[2].text,
            let ntfs = row[3].text.flatMap(MsgFilter.init(rawValue:)), let created = times.parse(row[13]),
            let updated = times.parse(row[14]), let displayName = row[15].text, let fullName = row[16].text,
            let current = row[23].integer
        else { throw .errorStore(.internalError("groups row")) }
        var profile = GroupProfile(displayName: displayName, fullName: fullName)
        profile.shortDescr = row[17].text
        profile.description = row[18].text
        profile.image = row[19].text
        profile.publicGroup = try json(row[20])
        profile.groupPreferences = try json(row[21]).map { (j) throws(ChatError) in try GroupPreferences(JSONInput(j)) }
        profile.memberAdmission = try json(row[22])
        return GroupInfo(
            groupId: groupId, useRelays: row[7].integer == 1, localDisplayName: ldn, groupProfile: profile,
            localAlias: alias, membership: try member(row[groupColumnCount...], &times),
            chatSettings: ChatSettings(
                enableNtfs: ntfs, sendRcpts: row[4].integer.map { $0 == 1 }, favorite: row[5].integer == 1),
            createdAt: created, updatedAt: updated, chatTs: times.parse(row[11]), userMemberProfileSentAt: times.parse(row[12]),
            chatTags: chatTags, chatItemTTL: row[10].integer, uiThemes: row[8].text.map(UIThemeEntityOverrides.init(stored:)),
            customData: try Self.json(row[9]), currentMembers: current, membersRequireAttention: 0,
            unreadChat: row[6].integer == 1)
    }

    private static func member(_ row: ArraySlice<SQLValue>) throws(ChatError) -> GroupMember {
        var times = ChatRepository.RowTimes()
        return try member(row, &times)
    }

    private static func member(_ row: ArraySlice<SQLValue>, _ times: inout ChatRepository.RowTimes) throws(ChatError)
        -> GroupMember
    {
        // Indexed from the slice's start: the member's columns follow the group's in a group row.
        let row = OffsetRow(row)
        guard row.count == memberColumnCount, let id = row[0].integer, let groupId = row[1].integer,
            let index = row[2].integer, let memberId = row[3].text,
            let role = row[4].text.flatMap(GroupMemberRole.init(rawValue:)),
            let category = row[5].text.flatMap(GroupMemberCategory.init(rawValue:)),
            let status = row[6].text.flatMap(GroupMemberStatus.init(rawValue:)), let invitedBy = row[9].text,
            let ldn = row[12].text, let contactProfileId = row[14].integer, let minV = row[15].integer,
            let maxV = row[16].integer, let created = times.parse(row[17]), let updated = times.parse(row[18]),
            let profileId = row[19].integer, let displayName = row[20].text, let fullName = row[21].text,
            let alias = row[29].text
        else { throw .errorStore(.internalError("group_members row")) }
        var profile = Profile(displayName: displayName, fullName: fullName)
        profile.shortDescr = row[22].text
        profile.description = row[23].text
        profile.image = row[24].text
        profile.contactLink = row[25].text
        profile.preferences = try json(row[26]).map { (j) throws(ChatError) in try Preferences(JSONInput(j)) }
        profile.peerType = row[27].text
        profile.contactDomain = try json(row[28])
        let by: InvitedBy =
            switch invitedBy {
            case "user": .user
            case "contact": row[10].integer.map { .contact(byContactId: $0) } ?? .unknown
            default: .unknown
            }
        return GroupMember(
            groupMemberId: id, groupId: groupId, indexInGroup: index, memberId: MemberId(bytes: Array(memberId.utf8)),
            memberRole: role,
            memberCategory: category, memberStatus: status, showMessages: row[7].integer == 1,
            blockedByAdmin: row[8].integer == 1, invitedBy: by, invitedByGroupMemberId: row[11].integer,
            localDisplayName: ldn, memberProfile: LocalProfile(profileId: profileId, profile: profile, localAlias: alias),
            memberContactId: row[13].integer, memberContactProfileId: contactProfileId,
            memberChatVRange: ChatVersionRange(minVersion: minV, maxVersion: maxV), createdAt: created, updatedAt: updated)
    }
}

extension SQLValue {
    fileprivate static func flag(_ b: Bool) -> SQLValue { .integer(b ? 1 : 0) }
    fileprivate static func maybe(_ s: String?) -> SQLValue { s.map(SQLValue.text) ?? .null }
}

extension GroupRepository {
    /// Creates `count` groups of the user in one transaction, each as `/_group` creates it, `spacing` seconds apart
    /// from `start`; every `itemsEvery`-th group also gets `itemsPerGroup` sent texts a second apart, its chat time moved
    /// past them as a new item moves it. How the benchmark fills a chat list.
    func insertGroups(
        user: User, count: Int, from start: UTCTime, spacing: Int64, itemsEvery: Int, itemsPerGroup: Int
    ) throws(ChatError) {
        let items = ChatRepository(db: db)
        try items.write { () throws(ChatError) in
            for n in 1...max(1, count) {
                let ts = start.adding(seconds: Int64(n - 1) * spacing)
                // A member id unique in its group, 12 bytes as the core makes it; the number keeps the fill repeatable.
                let memberId = MemberId(random: Array("member \(n)".utf8.prefix(12)))
                let info = try createGroup(
                    user: user, profile: GroupProfile(displayName: "group \(n)"), incognito: nil, memberId: memberId, at: ts)
                guard itemsEvery > 0, n % itemsEvery == 0 else { continue }
                let texts = (1...max(1, itemsPerGroup)).map { "message \($0) in group \(n)" }
                do throws(SQLiteError) {
                    let end = try items.insertSentTexts(
                        userId: user.userId, .group(groupId: info.groupId), texts: texts, from: ts.adding(seconds: 1))
                    try db.run(
                        "UPDATE groups SET chat_ts = ? WHERE group_id = ?", [.text(end.iso8601), .integer(info.groupId)])
                } catch {
                    throw .database(error)
                }
            }
        }
    }
}

/// A group's row as the chat list reads it: what ordering and filtering need, the rest decoded when shown.
struct GroupListRow {
    let groupId: Int64
    /// When the chat was last active (its chat time, else its update), as `ChatInfo.chatTs` orders it.
    let chatTs: UTCTime
    let favorite: Bool
    /// Marked unread by the user.
    let unreadChat: Bool
    fileprivate let row: [SQLValue]
    fileprivate let chatTags: [Int64]
}
