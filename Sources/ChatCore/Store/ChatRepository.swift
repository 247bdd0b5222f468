internal import ChatStore
internal import SimplexEncoding

/// The embedded core's tables in the chat database (migration `m20261201_chat_users`): users with their profiles and
/// own contact rows, note folders, app settings. Reads are single statements; each command's writes go through
/// `write`, one transaction. SQLite failures become the store errors the core's `withStore` gives.
struct ChatRepository {
    let db: SQLiteDatabase

    /// Runs a command's writes in one transaction: all of them happen, or none.
    func write<T>(_ body: () throws(ChatError) -> T) throws(ChatError) -> T {
        do {
            return try db.transaction(body)
        } catch {
            switch error {
            case .sqlite(let e): throw .database(e)
            case .body(let e): throw e
            }
        }
    }

    func query(_ sql: String, _ values: [SQLValue] = []) throws(ChatError) -> [[SQLValue]] {
        do { return try db.query(sql, values) } catch { throw .database(error) }
    }

    @discardableResult
    func run(_ sql: String, _ values: [SQLValue] = []) throws(ChatError) -> Int {
        do { return try db.run(sql, values) } catch { throw .database(error) }
    }

    // MARK: Users

    private static let userColumns = """
        SELECT u.user_id, u.agent_user_id, u.contact_id, u.local_display_name, u.active_user, u.active_order,
          u.view_pwd_hash, u.view_pwd_salt, u.show_ntfs, u.send_rcpts_contacts, u.send_rcpts_small_groups,
          u.auto_accept_member_contacts, u.user_member_profile_updated_at, u.user_chat_relay, u.client_service, u.ui_themes,
          p.contact_profile_id, p.display_name, p.full_name, p.short_descr, p.description, p.image, p.contact_link,
          p.preferences, p.peer_type, p.badge, p.contact_domain, p.local_alias
        FROM users u
        JOIN contacts c ON c.contact_id = u.contact_id
        JOIN contact_profiles p ON p.contact_profile_id = c.contact_profile_id
        """

    /// All users, oldest first.
    func users() throws(ChatError) -> [User] {
        try query(Self.userColumns + " ORDER BY u.user_id").map { (row) throws(ChatError) in try Self.user(row) }
    }

    func user(id: Int64) throws(ChatError) -> User? {
        try query(Self.userColumns + " WHERE u.user_id = ?", [.integer(id)]).first.map { (row) throws(ChatError) in
            try Self.user(row)
        }
    }

    func activeUser() throws(ChatError) -> User? {
        try query(Self.userColumns + " WHERE u.active_user = 1 ORDER BY u.user_id LIMIT 1").first.map {
            (row) throws(ChatError) in try Self.user(row)
        }
    }

    /// The next `active_order`: one more than the largest.
    private func nextActiveOrder() throws(ChatError) -> Int64 {
        (try query("SELECT max(active_order) FROM users").first?.first?.integer ?? 0) + 1
    }

    /// Creates a user as the core's `createUserRecordAt` does: the profile, the user (made the active one), the contact
    /// row that stands for the user, and the user's note folder. Call inside `write`.
    func createUser(profile: Profile, userChatRelay: Bool, clientService: Bool, createdAt ts: UTCTime) throws(ChatError)
        -> User
    {
        let time = SQLValue.text(ts.iso8601)
        let agentUserId = (try query("SELECT max(agent_user_id) FROM users").first?.first?.integer ?? 0) + 1
        try run("UPDATE users SET active_user = 0")
        let order = try nextActiveOrder()
        try run(
            """
            INSERT INTO users (agent_user_id, local_display_name, active_user, active_order, user_chat_relay, client_service,
              created_at, updated_at)
            VALUES (?, ?, 1, ?, ?, ?, ?, ?)
            """,
            [
                .integer(agentUserId), .text(profile.displayName), .integer(order), .bool(userChatRelay),
                .bool(clientService), time, time,
            ])
        let userId = db.lastInsertRowID
        let profileId = try insertProfile(profile, userId: userId, at: ts)
        try run(
            """
            INSERT INTO contacts (user_id, contact_profile_id, local_display_name, is_user, created_at, updated_at)
            VALUES (?, ?, ?, 1, ?, ?)
            """, [.integer(userId), .integer(profileId), .text(profile.displayName), time, time])
        let contactId = db.lastInsertRowID
        try run("UPDATE users SET contact_id = ? WHERE user_id = ?", [.integer(contactId), .integer(userId)])
        try run(
            "INSERT INTO note_folders (user_id, created_at, updated_at, chat_ts) VALUES (?, ?, ?, ?)",
            [.integer(userId), time, time, time])
        guard let user = try user(id: userId) else { throw .errorStore(.userNotFound(userId: userId)) }
        return user
    }

    func insertProfile(_ p: Profile, userId: Int64, at ts: UTCTime) throws(ChatError) -> Int64 {
        try run(
            """
            INSERT INTO contact_profiles (user_id, display_name, full_name, short_descr, description, image, contact_link,
              preferences, peer_type, badge, contact_domain, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.integer(userId)] + Self.profileValues(p) + [.text(ts.iso8601), .text(ts.iso8601)])
        return db.lastInsertRowID
    }

    static func profileValues(_ p: Profile) -> [SQLValue] {
        [
            .text(p.displayName), .text(p.fullName), .optional(p.shortDescr), .optional(p.description), .optional(p.image),
            .optional(p.contactLink), .optional(p.preferences?.json.rendered), .optional(p.peerType),
            .optional(p.badge?.rendered), .optional(p.contactDomain?.rendered),
        ]
    }

    /// Makes `userId` the active user with the next `active_order`.
    func setActiveUser(_ userId: Int64) throws(ChatError) {
        try run("UPDATE users SET active_user = 0")
        let order = try nextActiveOrder()
        try run("UPDATE users SET active_user = 1, active_order = ? WHERE user_id = ?", [.integer(order), .integer(userId)])
    }

    /// Stores the hidden-user password hash and notification flag (`updateUserPrivacy`).
    func updatePrivacy(_ user: User, at ts: UTCTime) throws(ChatError) {
        try run(
            "UPDATE users SET view_pwd_hash = ?, view_pwd_salt = ?, show_ntfs = ?, updated_at = ? WHERE user_id = ?",
            [
                .optional(user.viewPwdHash?.hash), .optional(user.viewPwdHash?.salt), .bool(user.showNtfs), .text(ts.iso8601),
                .integer(user.userId),
            ])
    }

    /// Replaces the user's profile; the local display name follows the display name. A name another user has is the
    /// store's `duplicateName`.
    func updateProfile(_ user: User, to p: Profile, at ts: UTCTime) throws(ChatError) {
        let time = SQLValue.text(ts.iso8601)
        if p.displayName != user.localDisplayName {
            let taken = try query(
                "SELECT 1 FROM users WHERE local_display_name = ? AND user_id != ?",
                [.text(p.displayName), .integer(user.userId)])
            if !taken.isEmpty { throw .errorStore(.duplicateName) }
            try run(
                "UPDATE users SET local_display_name = ? WHERE user_id = ?", [.text(p.displayName), .integer(user.userId)])
            try run(
                "UPDATE contacts SET local_display_name = ?, updated_at = ? WHERE contact_id = ?",
                [.text(p.displayName), time, .integer(user.userContactId)])
        }
        try run(
            """
            UPDATE contact_profiles SET display_name = ?, full_name = ?, short_descr = ?, description = ?, image = ?,
              contact_link = ?, preferences = ?, peer_type = ?, badge = ?, contact_domain = ?, updated_at = ?
            WHERE contact_profile_id = ?
            """, Self.profileValues(p) + [time, .integer(user.profile.profileId)])
        try run(
            "UPDATE users SET user_member_profile_updated_at = ?, updated_at = ? WHERE user_id = ?",
            [time, time, .integer(user.userId)])
    }

    /// Deletes a user and everything that is theirs.
    func deleteUser(_ userId: Int64) throws(ChatError) {
        try run("DELETE FROM users WHERE user_id = ?", [.integer(userId)])
    }

    enum UserFlag: String {
        case sendReceiptsContacts = "send_rcpts_contacts"
        case sendReceiptsSmallGroups = "send_rcpts_small_groups"
        case autoAcceptMemberContacts = "auto_accept_member_contacts"
        case autoAcceptGroupInvitations = "auto_accept_group_invitations"
    }

    func setFlag(_ flag: UserFlag, _ on: Bool, userId: Int64, at ts: UTCTime) throws(ChatError) {
        try run(
            "UPDATE users SET \(flag.rawValue) = ?, updated_at = ? WHERE user_id = ?",
            [.bool(on), .text(ts.iso8601), .integer(userId)])
    }

    /// Clears the per-contact receipt overrides of a user's contacts (`clear_overrides=on`).
    func clearContactReceiptOverrides(userId: Int64) throws(ChatError) {
        try run("UPDATE contacts SET send_rcpts = NULL WHERE user_id = ? AND is_user = 0", [.integer(userId)])
    }

    /// `/set receipts all`: every contact of every user.
    func setAllContactReceipts(_ on: Bool) throws(ChatError) {
        try run("UPDATE contacts SET send_rcpts = ? WHERE is_user = 0", [.bool(on)])
    }

    func setUIThemes(_ themes: UIThemeEntityOverrides?, userId: Int64, at ts: UTCTime) throws(ChatError) {
        try run(
            "UPDATE users SET ui_themes = ?, updated_at = ? WHERE user_id = ?",
            [.optional(themes?.json.rendered), .text(ts.iso8601), .integer(userId)])
    }

    func chatItemTTL(userId: Int64) throws(ChatError) -> Int64 {
        try query("SELECT chat_item_ttl FROM users WHERE user_id = ?", [.integer(userId)]).first?.first?.integer ?? 0
    }

    func setChatItemTTL(_ seconds: Int64, userId: Int64) throws(ChatError) {
        try run("UPDATE users SET chat_item_ttl = ? WHERE user_id = ?", [.integer(seconds), .integer(userId)])
    }

    // MARK: Note folders

    static let noteFoldersQuery = noteFolderColumns + "WHERE user_id = ? ORDER BY note_folder_id"
    private static let noteFolderColumns =
        "SELECT note_folder_id, user_id, created_at, updated_at, chat_ts, favorite, unread_chat FROM note_folders "

    func noteFolders(userId: Int64) throws(ChatError) -> [NoteFolder] {
        try noteFolders(Self.noteFoldersQuery, [.integer(userId)])
    }

    /// A user's note folder, or `noteFolderNotFound`.
    func noteFolder(userId: Int64, id: Int64) throws(ChatError) -> NoteFolder {
        let (sql, values) = Self.noteFolderQuery(userId: userId, id: id)
        guard let folder = try noteFolders(sql, values).first
        else { throw .errorStore(.noteFolderNotFound(noteFolderId: id)) }
        return folder
    }

    static func noteFolderQuery(userId: Int64, id: Int64) -> (String, [SQLValue]) {
        (noteFolderColumns + "WHERE user_id = ? AND note_folder_id = ?", [.integer(userId), .integer(id)])
    }

    func setNoteFolderChatTs(_ id: Int64, _ ts: UTCTime) throws(ChatError) {
        try run("UPDATE note_folders SET chat_ts = ? WHERE note_folder_id = ?", [.text(ts.iso8601), .integer(id)])
    }

    func setNoteFolderUnread(_ id: Int64, _ unread: Bool, at ts: UTCTime) throws(ChatError) {
        try run(
            "UPDATE note_folders SET unread_chat = ?, updated_at = ? WHERE note_folder_id = ?",
            [.integer(unread ? 1 : 0), .text(ts.iso8601), .integer(id)])
    }

    private func noteFolders(_ sql: String, _ values: [SQLValue]) throws(ChatError) -> [NoteFolder] {
        try query(sql, values).map { (row) throws(ChatError) in
            guard row.count == 7, let id = row[0].integer, let uid = row[1].integer, let created = Self.time(row[2]),
                let updated = Self.time(row[3]), let chatTs = Self.time(row[4])
            else { throw .errorStore(.internalError("note_folders row")) }
            return NoteFolder(
                noteFolderId: id, userId: uid, createdAt: created, updatedAt: updated, chatTs: chatTs,
                favorite: row[5].integer == 1, unread: row[6].integer == 1)
        }
    }

    // MARK: App settings

    func appSettings() throws(ChatError) -> AppSettings? {
        guard let text = try query("SELECT app_settings FROM app_settings LIMIT 1").first?.first?.text else { return nil }
        guard let json = try? CanonicalJSON.parse(text) else { throw .errorStore(.internalError("app_settings row")) }
        return try AppSettings(JSONInput(json))
    }

    func saveAppSettings(_ settings: AppSettings) throws(ChatError) {
        try run("DELETE FROM app_settings")
        try run("INSERT INTO app_settings (app_settings) VALUES (?)", [.text(settings.json.rendered)])
    }

    // MARK: Rows

    static func time(_ v: SQLValue) -> UTCTime? { v.text.flatMap(UTCTime.init(iso8601:)) }

    /// The times of one row: an item's or a group's creation, update and the like are mostly one time, parsed once.
    struct RowTimes {
        private var last: (text: String, time: UTCTime)?

        mutating func parse(_ value: SQLValue) -> UTCTime? {
            guard let text = value.text else { return nil }
            if let last, last.text == text { return last.time }
            guard let time = UTCTime(iso8601: text) else { return nil }
            last = (text, time)
            return time
        }
    }

    static func json(_ v: SQLValue) throws(ChatError) -> CanonicalJSON? {
        guard let text = v.text else { return nil }
        guard let json = try? CanonicalJSON.parse(text) else { throw .errorStore(.internalError("stored JSON")) }
        return json
    }

    private static func user(_ row: [SQLValue]) throws(ChatError) -> User {
        guard row.count == 28, let userId = row[0].integer, let agentUserId = row[1].integer, let contactId = row[2].integer,
            let ldn = row[3].text, let profileId = row[16].integer, let displayName = row[17].text,
            let fullName = row[18].text, let alias = row[27].text
        else { throw .errorStore(.internalError("users row")) }
        var profile = Profile(displayName: displayName, fullName: fullName)
        profile.shortDescr = row[19].text
        profile.description = row[20].text
        profile.image = row[21].text
        profile.contactLink = row[22].text
        profile.preferences = try json(row[23]).map { (j) throws(ChatError) in try Preferences(JSONInput(j)) }
        profile.peerType = row[24].text
        profile.badge = try json(row[25])
        profile.contactDomain = try json(row[26])
        let hash: UserPasswordHash? =
            if let h = row[6].text, let s = row[7].text { UserPasswordHash(hash: h, salt: s) } else { nil }
        return User(
            userId: userId, agentUserId: agentUserId, userContactId: contactId, localDisplayName: ldn,
            profile: LocalProfile(profileId: profileId, profile: profile, localAlias: alias), activeUser: row[4].integer == 1,
            activeOrder: row[5].integer ?? 0, viewPwdHash: hash, showNtfs: row[8].integer == 1,
            sendRcptsContacts: row[9].integer == 1, sendRcptsSmallGroups: row[10].integer == 1,
            autoAcceptMemberContacts: row[11].integer == 1, userMemberProfileUpdatedAt: time(row[12]),
            userChatRelay: row[13].integer == 1, clientService: row[14].integer == 1,
            uiThemes: row[15].text.map(UIThemeEntityOverrides.init(stored:)))
    }
}

extension SQLValue {
    static func bool(_ b: Bool) -> SQLValue { .integer(b ? 1 : 0) }
    static func optional(_ s: String?) -> SQLValue { s.map(SQLValue.text) ?? .null }
}
