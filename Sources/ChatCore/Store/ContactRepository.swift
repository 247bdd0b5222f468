internal import ChatStore
internal import SimplexEncoding

/// Contacts, their connections, the user's address and the requests it receives, in the chat database (migration
/// `m20261210_contacts_connections`). Reads are single statements or a few; each operation that writes is one
/// transaction (`ChatRepository.write`), so that a failure leaves nothing half made. SQLite failures become the store
/// errors the core's `withStore` gives; a row the store cannot read is an `internalError`, never a trap.
struct ContactRepository {
    let db: SQLiteDatabase

    private var chat: ChatRepository { ChatRepository(db: db) }

    private func query(_ sql: String, _ values: [SQLValue] = []) throws(ChatError) -> [[SQLValue]] {
        try chat.query(sql, values)
    }

    @discardableResult
    private func run(_ sql: String, _ values: [SQLValue] = []) throws(ChatError) -> Int {
        try chat.run(sql, values)
    }

    /// One transaction, or a part of the caller's when one is open.
    private func write<T>(_ body: () throws(ChatError) -> T) throws(ChatError) -> T {
        if db.isInTransaction { return try body() }
        return try chat.write(body)
    }

    // MARK: Connections

    private static let connectionColumns = """
        c.connection_id, c.agent_conn_id, c.conn_chat_version, c.peer_chat_min_version, c.peer_chat_max_version,
          c.conn_level, c.via_contact, c.via_user_contact_link, c.via_group_link, c.group_link_id, c.xcontact_id,
          c.custom_user_profile_id, c.conn_type, c.conn_status, c.conn_error, c.contact_conn_initiated, c.local_alias,
          c.contact_id, c.group_member_id, c.user_contact_link_id, c.security_code, c.security_code_verified_at,
          c.pq_support, c.pq_encryption, c.pq_snd_enabled, c.pq_rcv_enabled, c.auth_err_counter, c.quota_err_counter,
          c.created_at, c.via_contact_uri_hash, c.conn_req_inv, c.short_link_inv, c.updated_at
        """
    private static let connectionColumnCount = 33

    private static func connection(_ r: ArraySlice<SQLValue>) throws(ChatError) -> Connection {
        let row = Array(r)
        guard row.count == connectionColumnCount, let connId = row[0].integer, let agentConnId = row[1].blob,
            let version = row[2].integer, let minV = row[3].integer, let maxV = row[4].integer,
            let level = row[5].integer, let typeText = row[12].text, let connType = ConnType(rawValue: typeText),
            let statusText = row[13].text, let status = ConnStatus(storeText: statusText, connError: row[14].text),
            let alias = row[16].text, let created = ChatRepository.time(row[28])
        else { throw .errorStore(.internalError("connections row")) }
        let entityId: Int64? =
            switch connType {
            case .contact: row[17].integer
            case .member: row[18].integer
            case .userContact: row[19].integer
            }
        let code: SecurityCode? =
            if let text = row[20].text, let at = ChatRepository.time(row[21]) {
                SecurityCode(securityCode: text, verifiedAt: at)
            } else { nil }
        return Connection(
            connId: connId, agentConnId: AgentConnId(bytes: agentConnId), connChatVersion: version,
            peerChatVRange: ChatVersionRange(minVersion: minV, maxVersion: maxV), connLevel: level,
            viaContact: row[6].integer, viaUserContactLink: row[7].integer, viaGroupLink: row[8].integer == 1,
            groupLinkId: row[9].blob.map(GroupLinkId.init(bytes:)), xContactId: row[10].blob.map(XContactId.init(bytes:)),
            customUserProfileId: row[11].integer, connType: connType, connStatus: status,
            contactConnInitiated: row[15].integer == 1, localAlias: alias, entityId: entityId, connectionCode: code,
            pqSupport: row[22].integer == 1, pqEncryption: row[23].integer == 1, pqSndEnabled: row[24].integer.map { $0 == 1 },
            pqRcvEnabled: row[25].integer.map { $0 == 1 }, authErrCounter: row[26].integer ?? 0,
            quotaErrCounter: row[27].integer ?? 0, createdAt: created)
    }

    private static func pending(_ row: [SQLValue]) throws(ChatError) -> PendingContactConnection {
        let c = try connection(row[...])
        guard let updated = ChatRepository.time(row[32]) else { throw .errorStore(.internalError("connections row")) }
        let link = row[30].text.map { CreatedConnLink(connFullLink: $0, connShortLink: row[31].text) }
        return PendingContactConnection(
            pccConnId: c.connId, pccAgentConnId: c.agentConnId, pccConnStatus: c.connStatus,
            viaContactUri: row[29] != .null, viaUserContactLink: c.viaUserContactLink, groupLinkId: c.groupLinkId,
            customUserProfileId: c.customUserProfileId, connLinkInv: link, localAlias: c.localAlias, createdAt: c.createdAt,
            updatedAt: updated)
    }

    /// A connection of the user by its id, whatever it belongs to.
    func connection(userId: Int64, connId: Int64) throws(ChatError) -> Connection? {
        try query(
            "SELECT \(Self.connectionColumns) FROM connections c WHERE c.user_id = ? AND c.connection_id = ?",
            [.integer(userId), .integer(connId)]
        ).first.map { (row) throws(ChatError) in try Self.connection(row[...]) }
    }

    /// A connection by the agent's id (how the agent's events name it).
    func connection(agentConnId: AgentConnId) throws(ChatError) -> Connection? {
        try query(
            "SELECT \(Self.connectionColumns) FROM connections c WHERE c.agent_conn_id = ?", [.blob(agentConnId.bytes)]
        ).first.map { (row) throws(ChatError) in try Self.connection(row[...]) }
    }

    private static let pendingCondition = "c.conn_type = 'contact' AND c.contact_id IS NULL"

    /// A pending connection of the user (`:<connId>`), or nil.
    func pendingConnection(userId: Int64, connId: Int64) throws(ChatError) -> PendingContactConnection? {
        try query(
            """
            SELECT \(Self.connectionColumns) FROM connections c
            WHERE c.user_id = ? AND c.connection_id = ? AND \(Self.pendingCondition)
            """, [.integer(userId), .integer(connId)]
        ).first.map { (row) throws(ChatError) in try Self.pending(row) }
    }

    func requirePendingConnection(userId: Int64, connId: Int64) throws(ChatError) -> PendingContactConnection {
        guard let pcc = try pendingConnection(userId: userId, connId: connId) else {
            throw .errorStore(.pendingConnectionNotFound(connId: connId))
        }
        return pcc
    }

    /// The user's pending connections, oldest first.
    func pendingConnections(userId: Int64) throws(ChatError) -> [PendingContactConnection] {
        try query(
            """
            SELECT \(Self.connectionColumns) FROM connections c
            WHERE c.user_id = ? AND \(Self.pendingCondition) ORDER BY c.connection_id
            """, [.integer(userId)]
        ).map { (row) throws(ChatError) in try Self.pending(row) }
    }

    /// What a new pending connection is: the user's invitation (with its link) or the user joining someone's link.
    struct NewPendingConnection {
        var agentConnId: AgentConnId
        var status: ConnStatus
        /// The user made the invitation (`contactConnInitiated`).
        var initiated: Bool
        var connLinkInv: CreatedConnLink?
        /// The hash of the address joined, when joining one.
        var viaContactUriHash: [UInt8]?
        var xContactId: XContactId?
        var incognitoProfile: Profile?
        var chatVersion: Int64
        var pqSupport: Bool
    }

    /// Records a pending connection (the core's `createDirectConnection`), with the incognito profile it shows if any.
    func createPendingConnection(user: User, _ new: NewPendingConnection, at ts: UTCTime) throws(ChatError)
        -> PendingContactConnection
    {
        try write { () throws(ChatError) in
            let profileId = try new.incognitoProfile.map { (p) throws(ChatError) in
                try chat.insertProfile(p, userId: user.userId, at: ts)
            }
            let time = SQLValue.text(ts.iso8601)
            do throws(SQLiteError) {
                _ = try db.run(
                    """
                    INSERT INTO connections (user_id, agent_conn_id, conn_type, conn_status, contact_conn_initiated,
                      conn_req_inv, short_link_inv, via_contact_uri_hash, xcontact_id, custom_user_profile_id,
                      conn_chat_version, pq_support, pq_encryption, created_at, updated_at)
                    VALUES (?, ?, 'contact', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .integer(user.userId), .blob(new.agentConnId.bytes), .text(new.status.storeText), .bool(new.initiated),
                        .optional(new.connLinkInv?.connFullLink), .optional(new.connLinkInv?.connShortLink),
                        new.viaContactUriHash.map(SQLValue.blob) ?? .null, new.xContactId.map { .blob($0.bytes) } ?? .null,
                        profileId.map(SQLValue.integer) ?? .null, .integer(new.chatVersion), .bool(new.pqSupport),
                        .bool(new.pqSupport), time, time,
                    ])
            } catch {
                if error.isConstraint { throw .errorStore(.internalError("duplicate agent connection id")) }
                throw .database(error)
            }
            return try requirePendingConnection(userId: user.userId, connId: db.lastInsertRowID)
        }
    }

    /// The status the agent's events move a connection to.
    func setConnectionStatus(connId: Int64, _ status: ConnStatus, at ts: UTCTime) throws(ChatError) {
        try write { () throws(ChatError) in
            _ = try run(
                "UPDATE connections SET conn_status = ?, conn_error = ?, updated_at = ? WHERE connection_id = ?",
                [.text(status.storeText), .optional(status.connError), .text(ts.iso8601), .integer(connId)])
        }
    }

    /// `/_set conn alias :<connId>`.
    func setPendingConnectionAlias(userId: Int64, connId: Int64, _ alias: String, at ts: UTCTime) throws(ChatError)
        -> PendingContactConnection
    {
        try write { () throws(ChatError) in
            _ = try requirePendingConnection(userId: userId, connId: connId)
            try run(
                "UPDATE connections SET local_alias = ?, updated_at = ? WHERE connection_id = ?",
                [.text(alias), .text(ts.iso8601), .integer(connId)])
            return try requirePendingConnection(userId: userId, connId: connId)
        }
    }

    /// Deletes a pending connection with the incognito profile only it used.
    func deletePendingConnection(userId: Int64, connId: Int64) throws(ChatError) {
        try write { () throws(ChatError) in
            let pcc = try requirePendingConnection(userId: userId, connId: connId)
            try run("DELETE FROM connections WHERE connection_id = ?", [.integer(connId)])
            if let profileId = pcc.customUserProfileId { try deleteUnusedProfile(profileId) }
        }
    }

    /// Deletes a profile nothing refers to any more.
    private func deleteUnusedProfile(_ profileId: Int64) throws(ChatError) {
        try run(
            """
            DELETE FROM contact_profiles WHERE contact_profile_id = ?1
              AND NOT EXISTS (SELECT 1 FROM contacts WHERE contact_profile_id = ?1)
              AND NOT EXISTS (SELECT 1 FROM connections WHERE custom_user_profile_id = ?1)
              AND NOT EXISTS (SELECT 1 FROM contact_requests WHERE contact_profile_id = ?1)
              AND NOT EXISTS (SELECT 1 FROM group_members WHERE contact_profile_id = ?1 OR member_profile_id = ?1)
            """, [.integer(profileId)])
    }

    // MARK: Contacts

    private static let contactColumns = """
        SELECT ct.contact_id, ct.local_display_name, ct.contact_used, ct.contact_status, ct.enable_ntfs, ct.send_rcpts,
          ct.favorite, ct.user_preferences, ct.merged_preferences, ct.created_at, ct.updated_at, ct.chat_ts,
          ct.contact_request_id, ct.contact_group_member_id, ct.contact_grp_inv_sent, ct.chat_item_ttl, ct.ui_themes,
          ct.chat_deleted, ct.custom_data, ct.conn_full_link_to_connect, ct.conn_short_link_to_connect,
          ct.ui_conn_link_type, ct.welcome_shared_msg_id, ct.request_shared_msg_id,
          p.contact_profile_id, p.display_name, p.full_name, p.short_descr, p.description, p.image, p.contact_link,
          p.preferences, p.peer_type, p.badge, p.contact_domain, p.local_alias,
          \(connectionColumns)
        FROM contacts ct
        JOIN contact_profiles p ON p.contact_profile_id = ct.contact_profile_id
        LEFT JOIN connections c ON c.connection_id = (
          SELECT connection_id FROM connections WHERE contact_id = ct.contact_id AND conn_type = 'contact'
          ORDER BY connection_id DESC LIMIT 1)
        """
    private static let contactOwnColumnCount = 36

    /// The user's contact (not the user's own row), with its active connection, or nil.
    func contact(userId: Int64, contactId: Int64) throws(ChatError) -> Contact? {
        guard
            let row = try query(
                Self.contactColumns + " WHERE ct.user_id = ? AND ct.contact_id = ? AND ct.is_user = 0",
                [.integer(userId), .integer(contactId)]
            ).first
        else { return nil }
        return try Self.contact(row, chatTags: try chatTags(contactId: contactId))
    }

    /// The user's contact, or the store's `contactNotFound`.
    func requireContact(userId: Int64, contactId: Int64) throws(ChatError) -> Contact {
        guard let ct = try contact(userId: userId, contactId: contactId) else {
            throw .errorStore(.contactNotFound(contactId: contactId))
        }
        return ct
    }

    /// The user's contacts that are not deleted, oldest first (the core's `getUserContacts`).
    func contacts(userId: Int64) throws(ChatError) -> [Contact] {
        var tags: [Int64: [Int64]] = [:]
        for row in try query(
            """
            SELECT t.contact_id, t.chat_tag_id FROM chat_tags_chats t JOIN contacts ct ON ct.contact_id = t.contact_id
            WHERE ct.user_id = ? ORDER BY t.contact_id, t.chat_tag_id
            """, [.integer(userId)])
        {
            guard let contactId = row[0].integer, let tagId = row[1].integer else { continue }
            tags[contactId, default: []].append(tagId)
        }
        return try query(
            Self.contactColumns
                + " WHERE ct.user_id = ? AND ct.is_user = 0 AND ct.contact_status = 'active' ORDER BY ct.contact_id",
            [.integer(userId)]
        ).map { (row) throws(ChatError) in try Self.contact(row, chatTags: tags[row[0].integer ?? 0] ?? []) }
    }

    /// The id of the user's contact with this local display name (how human commands name contacts).
    func contactId(userId: Int64, localDisplayName name: String) throws(ChatError) -> Int64? {
        try query(
            """
            SELECT contact_id FROM contacts
            WHERE user_id = ? AND local_display_name = ? AND is_user = 0 AND contact_status = 'active'
            """, [.integer(userId), .text(name)]
        ).first?.first?.integer
    }

    private func chatTags(contactId: Int64) throws(ChatError) -> [Int64] {
        try query(
            "SELECT chat_tag_id FROM chat_tags_chats WHERE contact_id = ? ORDER BY chat_tag_id", [.integer(contactId)]
        ).compactMap { $0.first?.integer }
    }

    private static func profile(_ row: [SQLValue], at i: Int) throws(ChatError) -> LocalProfile {
        guard let profileId = row[i].integer, let displayName = row[i + 1].text, let fullName = row[i + 2].text,
            let alias = row[i + 11].text
        else { throw .errorStore(.internalError("contact_profiles row")) }
        var p = Profile(displayName: displayName, fullName: fullName)
        p.shortDescr = row[i + 3].text
        p.description = row[i + 4].text
        p.image = row[i + 5].text
        p.contactLink = row[i + 6].text
        p.preferences = try ChatRepository.json(row[i + 7]).map { (j) throws(ChatError) in try Preferences(JSONInput(j)) }
        p.peerType = row[i + 8].text
        p.badge = try ChatRepository.json(row[i + 9])
        p.contactDomain = try ChatRepository.json(row[i + 10])
        return LocalProfile(profileId: profileId, profile: p, localAlias: alias)
    }

    private static func contact(_ row: [SQLValue], chatTags: [Int64]) throws(ChatError) -> Contact {
        guard row.count == contactOwnColumnCount + connectionColumnCount, let contactId = row[0].integer,
            let ldn = row[1].text, let statusText = row[3].text, let status = ContactStatus(rawValue: statusText),
            let ntfsText = row[4].text, let ntfs = MsgFilter(rawValue: ntfsText), let created = ChatRepository.time(row[9]),
            let updated = ChatRepository.time(row[10]), let mergedJSON = try ChatRepository.json(row[8]),
            let userPrefsJSON = try ChatRepository.json(row[7])
        else { throw .errorStore(.internalError("contacts row")) }
        let activeConn = row[contactOwnColumnCount] == .null ? nil : try connection(row[contactOwnColumnCount...])
        var prepared: PreparedContact?
        if let link = row[19].text {
            guard let kindText = row[21].text, let kind = ConnectionMode(rawValue: kindText) else {
                throw .errorStore(.internalError("contacts row"))
            }
            prepared = PreparedContact(
                connLinkToConnect: CreatedConnLink(connFullLink: link, connShortLink: row[20].text), uiConnLinkType: kind,
                welcomeSharedMsgId: row[22].blob.map(SharedMsgId.init(bytes:)),
                requestSharedMsgId: row[23].blob.map(SharedMsgId.init(bytes:)))
        }
        return Contact(
            contactId: contactId, localDisplayName: ldn, profile: try profile(row, at: 24), activeConn: activeConn,
            contactUsed: row[2].integer == 1, contactStatus: status,
            chatSettings: ChatSettings(
                enableNtfs: ntfs, sendRcpts: row[5].integer.map { $0 == 1 }, favorite: row[6].integer == 1),
            userPreferences: try Preferences(JSONInput(userPrefsJSON)),
            mergedPreferences: try ContactUserPreferences(JSONInput(mergedJSON)), createdAt: created, updatedAt: updated,
            chatTs: ChatRepository.time(row[11]), preparedContact: prepared, contactRequestId: row[12].integer,
            contactGroupMemberId: row[13].integer, contactGrpInvSent: row[14].integer == 1, chatTags: chatTags,
            chatItemTTL: row[15].integer, uiThemes: row[16].text.map(UIThemeEntityOverrides.init(stored:)),
            chatDeleted: row[17].integer == 1, customData: try ChatRepository.json(row[18]))
    }

    /// A new contact row for a profile (inside a transaction); its local display name is made free among the
    /// user's names.
    private func insertContact(
        user: User, profileId: Int64, displayName: String, mergedPreferences: ContactUserPreferences,
        contactUsed: Bool, at ts: UTCTime
    ) throws(ChatError) -> Int64 {
        let name = try GroupRepository(db: db).freeLocalDisplayName(displayName, userId: user.userId)
        let time = SQLValue.text(ts.iso8601)
        try run(
            """
            INSERT INTO contacts (user_id, contact_profile_id, local_display_name, contact_used, merged_preferences,
              chat_ts, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(user.userId), .integer(profileId), .text(name), .bool(contactUsed),
                .text(mergedPreferences.json.rendered), time, time, time,
            ])
        return db.lastInsertRowID
    }

    /// What a pending connection becomes a contact with: the peer's profile and chat versions, as the handshake told.
    struct PeerInfo {
        var profile: Profile
        var peerChatVRange: ChatVersionRange
        var connChatVersion: Int64
        var status: ConnStatus
        var mergedPreferences: ContactUserPreferences
    }

    /// Turns a pending connection into a contact (the core's `createDirectContact`): the peer's profile, the contact,
    /// and the connection now the contact's with the versions agreed.
    func createContact(user: User, fromPendingConnection connId: Int64, _ peer: PeerInfo, at ts: UTCTime)
        throws(ChatError) -> Contact
    {
        try write { () throws(ChatError) in
            _ = try requirePendingConnection(userId: user.userId, connId: connId)
            let profileId = try chat.insertProfile(peer.profile, userId: user.userId, at: ts)
            let contactId = try insertContact(
                user: user, profileId: profileId, displayName: peer.profile.displayName,
                mergedPreferences: peer.mergedPreferences, contactUsed: true, at: ts)
            try run(
                """
                UPDATE connections SET contact_id = ?, conn_status = ?, conn_error = ?, conn_chat_version = ?,
                  peer_chat_min_version = ?, peer_chat_max_version = ?, updated_at = ?
                WHERE connection_id = ?
                """,
                [
                    .integer(contactId), .text(peer.status.storeText), .optional(peer.status.connError),
                    .integer(peer.connChatVersion), .integer(peer.peerChatVRange.minVersion),
                    .integer(peer.peerChatVRange.maxVersion), .text(ts.iso8601), .integer(connId),
                ])
            return try requireContact(userId: user.userId, contactId: contactId)
        }
    }

    /// `/_set alias @<id>`: the alias lives in the contact's local profile.
    func setContactAlias(userId: Int64, contactId: Int64, _ alias: String, at ts: UTCTime) throws(ChatError) -> Contact {
        try write { () throws(ChatError) in
            let ct = try requireContact(userId: userId, contactId: contactId)
            try run(
                "UPDATE contact_profiles SET local_alias = ?, updated_at = ? WHERE contact_profile_id = ?",
                [.text(alias), .text(ts.iso8601), .integer(ct.profile.profileId)])
            try touch(contactId, at: ts)
            return try requireContact(userId: userId, contactId: contactId)
        }
    }

    /// `/_set prefs @<id>`: the user's preferences for the contact and the merged preferences made with them.
    func setContactPreferences(
        userId: Int64, contactId: Int64, _ prefs: Preferences, merged: ContactUserPreferences, at ts: UTCTime
    ) throws(ChatError) -> Contact {
        try write { () throws(ChatError) in
            _ = try requireContact(userId: userId, contactId: contactId)
            try run(
                "UPDATE contacts SET user_preferences = ?, merged_preferences = ?, updated_at = ? WHERE contact_id = ?",
                [.text(prefs.json.rendered), .text(merged.json.rendered), .text(ts.iso8601), .integer(contactId)])
            return try requireContact(userId: userId, contactId: contactId)
        }
    }

    /// The merged preferences again, when one of their inputs changed elsewhere (the user's or the peer's profile).
    func setMergedPreferences(contactId: Int64, _ merged: ContactUserPreferences) throws(ChatError) {
        try write { () throws(ChatError) in
            _ = try run(
                "UPDATE contacts SET merged_preferences = ? WHERE contact_id = ?",
                [.text(merged.json.rendered), .integer(contactId)])
        }
    }

    /// `/_settings @<id>`.
    func setChatSettings(userId: Int64, contactId: Int64, _ settings: ChatSettings, at ts: UTCTime) throws(ChatError)
        -> Contact
    {
        try write { () throws(ChatError) in
            _ = try requireContact(userId: userId, contactId: contactId)
            try run(
                "UPDATE contacts SET enable_ntfs = ?, send_rcpts = ?, favorite = ?, updated_at = ? WHERE contact_id = ?",
                [
                    .text(settings.enableNtfs.rawValue), settings.sendRcpts.map(SQLValue.bool) ?? .null,
                    .bool(settings.favorite), .text(ts.iso8601), .integer(contactId),
                ])
            return try requireContact(userId: userId, contactId: contactId)
        }
    }

    /// `/_set custom @<id>`: the client's object, or nil to clear it.
    func setCustomData(userId: Int64, contactId: Int64, _ data: CanonicalJSON?, at ts: UTCTime) throws(ChatError)
        -> Contact
    {
        try write { () throws(ChatError) in
            _ = try requireContact(userId: userId, contactId: contactId)
            try run(
                "UPDATE contacts SET custom_data = ?, updated_at = ? WHERE contact_id = ?",
                [.optional(data.map { JSONValue($0).rendered }), .text(ts.iso8601), .integer(contactId)])
            return try requireContact(userId: userId, contactId: contactId)
        }
    }

    /// `/_ttl @<id>`: seconds, nil for the user's setting.
    func setChatItemTTL(userId: Int64, contactId: Int64, _ seconds: Int64?, at ts: UTCTime) throws(ChatError) {
        try write { () throws(ChatError) in
            _ = try requireContact(userId: userId, contactId: contactId)
            try run(
                "UPDATE contacts SET chat_item_ttl = ?, updated_at = ? WHERE contact_id = ?",
                [seconds.map(SQLValue.integer) ?? .null, .text(ts.iso8601), .integer(contactId)])
        }
    }

    /// A contact the user deleted but whose chat is kept (`/_delete @<id> … notify=off` modes) is marked; a full
    /// delete removes the contact with its connections and its profile when nothing else shows it.
    func deleteContact(userId: Int64, contactId: Int64, keepingChat: Bool, at ts: UTCTime) throws(ChatError) {
        try write { () throws(ChatError) in
            let ct = try requireContact(userId: userId, contactId: contactId)
            if keepingChat {
                try run(
                    "UPDATE contacts SET contact_status = 'deletedByUser', updated_at = ? WHERE contact_id = ?",
                    [.text(ts.iso8601), .integer(contactId)])
                try run(
                    "UPDATE connections SET conn_status = 'deleted', updated_at = ? WHERE contact_id = ?",
                    [.text(ts.iso8601), .integer(contactId)])
            } else {
                try run("DELETE FROM connections WHERE contact_id = ?", [.integer(contactId)])
                try run("DELETE FROM contacts WHERE contact_id = ?", [.integer(contactId)])
                try deleteUnusedProfile(ct.profile.profileId)
            }
        }
    }

    private func touch(_ contactId: Int64, at ts: UTCTime) throws(ChatError) {
        try run("UPDATE contacts SET updated_at = ? WHERE contact_id = ?", [.text(ts.iso8601), .integer(contactId)])
    }

    // MARK: The user's address

    private static let addressColumns = """
        SELECT user_contact_link_id, conn_req_contact, short_link_contact, short_link_data_set, short_link_large_data_set,
          business_address, auto_accept, auto_accept_incognito, auto_reply_msg_content
        FROM user_contact_links
        """

    private static func address(_ row: [SQLValue]) throws(ChatError) -> UserContactLink {
        guard row.count == 9, let id = row[0].integer, let full = row[1].text else {
            throw .errorStore(.internalError("user_contact_links row"))
        }
        let reply = try ChatRepository.json(row[8]).map { (j) throws(ChatError) in try MsgContent(JSONInput(j)) }
        let settings = AddressSettings(
            businessAddress: row[5].integer == 1,
            autoAccept: row[6].integer == 1 ? AddressSettings.AutoAccept(acceptIncognito: row[7].integer == 1) : nil,
            autoReply: reply)
        return UserContactLink(
            userContactLinkId: id, connLinkContact: CreatedConnLink(connFullLink: full, connShortLink: row[2].text),
            shortLinkDataSet: row[3].integer == 1, shortLinkLargeDataSet: row[4].integer == 1, addressSettings: settings)
    }

    /// The user's address, or nil.
    func address(userId: Int64) throws(ChatError) -> UserContactLink? {
        try query(Self.addressColumns + " WHERE user_id = ? AND group_id IS NULL", [.integer(userId)]).first.map {
            (row) throws(ChatError) in try Self.address(row)
        }
    }

    /// The user's address, or the store's `userContactLinkNotFound`.
    func requireAddress(userId: Int64) throws(ChatError) -> UserContactLink {
        guard let address = try address(userId: userId) else { throw .errorStore(.userContactLinkNotFound) }
        return address
    }

    /// Creates the user's address with the agent connection that receives its requests (the core's
    /// `createUserContactLink`). A user has one address: a second is the store's `duplicateContactLink`.
    func createAddress(
        user: User, agentConnId: AgentConnId, link: CreatedConnLink, chatVersion: Int64, pqSupport: Bool,
        at ts: UTCTime
    ) throws(ChatError) -> UserContactLink {
        try write { () throws(ChatError) in
            if try address(userId: user.userId) != nil { throw .errorStore(.duplicateContactLink) }
            let time = SQLValue.text(ts.iso8601)
            try run(
                """
                INSERT INTO user_contact_links (user_id, conn_req_contact, short_link_contact, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?)
                """, [.integer(user.userId), .text(link.connFullLink), .optional(link.connShortLink), time, time])
            let linkId = db.lastInsertRowID
            do throws(SQLiteError) {
                _ = try db.run(
                    """
                    INSERT INTO connections (user_id, agent_conn_id, conn_type, conn_status, user_contact_link_id,
                      conn_chat_version, pq_support, pq_encryption, created_at, updated_at)
                    VALUES (?, ?, 'user_contact', 'new', ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .integer(user.userId), .blob(agentConnId.bytes), .integer(linkId), .integer(chatVersion),
                        .bool(pqSupport), .bool(pqSupport), time, time,
                    ])
            } catch {
                if error.isConstraint { throw .errorStore(.internalError("duplicate agent connection id")) }
                throw .database(error)
            }
            return try requireAddress(userId: user.userId)
        }
    }

    /// `/_address_settings`.
    func setAddressSettings(userId: Int64, _ settings: AddressSettings, at ts: UTCTime) throws(ChatError)
        -> UserContactLink
    {
        try write { () throws(ChatError) in
            let address = try requireAddress(userId: userId)
            try run(
                """
                UPDATE user_contact_links SET business_address = ?, auto_accept = ?, auto_accept_incognito = ?,
                  auto_reply_msg_content = ?, updated_at = ?
                WHERE user_contact_link_id = ?
                """,
                [
                    .bool(settings.businessAddress), .bool(settings.autoAccept != nil),
                    .bool(settings.autoAccept?.acceptIncognito ?? false), .optional(settings.autoReply?.json.rendered),
                    .text(ts.iso8601), .integer(address.userContactLinkId),
                ])
            return try requireAddress(userId: userId)
        }
    }

    /// The agent connections of the user's address, for the agent to delete with it.
    func addressAgentConnIds(userId: Int64) throws(ChatError) -> [AgentConnId] {
        try query(
            """
            SELECT c.agent_conn_id FROM connections c
            JOIN user_contact_links l ON l.user_contact_link_id = c.user_contact_link_id
            WHERE l.user_id = ? AND l.group_id IS NULL ORDER BY c.connection_id
            """, [.integer(userId)]
        ).compactMap { $0.first?.blob.map(AgentConnId.init(bytes:)) }
    }

    /// `/_delete_address`: the address, its connections and the requests still waiting on it (with their profiles).
    func deleteAddress(userId: Int64) throws(ChatError) {
        try write { () throws(ChatError) in
            let address = try requireAddress(userId: userId)
            let id = SQLValue.integer(address.userContactLinkId)
            let profiles = try query(
                "SELECT contact_profile_id FROM contact_requests WHERE user_contact_link_id = ?", [id]
            ).compactMap { $0.first?.integer }
            try run("DELETE FROM contact_requests WHERE user_contact_link_id = ?", [id])
            try run("DELETE FROM connections WHERE user_contact_link_id = ?", [id])
            try run("DELETE FROM user_contact_links WHERE user_contact_link_id = ?", [id])
            for p in profiles { try deleteUnusedProfile(p) }
        }
    }

    // MARK: Contact requests

    private static let requestColumns = """
        SELECT r.contact_request_id, r.agent_invitation_id, r.contact_id, r.business_group_id, r.user_contact_link_id,
          r.peer_chat_min_version, r.peer_chat_max_version, r.local_display_name, r.created_at, r.updated_at,
          r.xcontact_id, r.pq_support, r.welcome_shared_msg_id, r.request_shared_msg_id,
          p.contact_profile_id, p.display_name, p.full_name, p.short_descr, p.description, p.image, p.contact_link,
          p.preferences, p.peer_type, p.badge, p.contact_domain, p.local_alias
        FROM contact_requests r
        JOIN contact_profiles p ON p.contact_profile_id = r.contact_profile_id
        """

    private static func request(_ row: [SQLValue]) throws(ChatError) -> UserContactRequest {
        guard row.count == 26, let id = row[0].integer, let inv = row[1].blob, let minV = row[5].integer,
            let maxV = row[6].integer, let ldn = row[7].text, let created = ChatRepository.time(row[8]),
            let updated = ChatRepository.time(row[9])
        else { throw .errorStore(.internalError("contact_requests row")) }
        let profile = try profile(row, at: 14)
        return UserContactRequest(
            contactRequestId: id, agentInvitationId: AgentInvId(bytes: inv), contactId: row[2].integer,
            businessGroupId: row[3].integer, userContactLinkId: row[4].integer,
            cReqChatVRange: ChatVersionRange(minVersion: minV, maxVersion: maxV), localDisplayName: ldn,
            profileId: profile.profileId, profile: profile, createdAt: created, updatedAt: updated,
            xContactId: row[10].blob.map(XContactId.init(bytes:)), pqSupport: row[11].integer == 1,
            welcomeSharedMsgId: row[12].blob.map(SharedMsgId.init(bytes:)),
            requestSharedMsgId: row[13].blob.map(SharedMsgId.init(bytes:)))
    }

    func contactRequest(userId: Int64, requestId: Int64) throws(ChatError) -> UserContactRequest? {
        try query(
            Self.requestColumns + " WHERE r.user_id = ? AND r.contact_request_id = ?",
            [
                .integer(userId), .integer(requestId),
            ]
        ).first.map { (row) throws(ChatError) in try Self.request(row) }
    }

    func requireContactRequest(userId: Int64, requestId: Int64) throws(ChatError) -> UserContactRequest {
        guard let r = try contactRequest(userId: userId, requestId: requestId) else {
            throw .errorStore(.contactRequestNotFound(contactRequestId: requestId))
        }
        return r
    }

    /// The requests waiting for the user, oldest first.
    func contactRequests(userId: Int64) throws(ChatError) -> [UserContactRequest] {
        try query(Self.requestColumns + " WHERE r.user_id = ? ORDER BY r.contact_request_id", [.integer(userId)]).map {
            (row) throws(ChatError) in try Self.request(row)
        }
    }

    /// The id of the user's request with this local display name (how human commands name requests).
    func contactRequestId(userId: Int64, localDisplayName name: String) throws(ChatError) -> Int64? {
        try query(
            "SELECT contact_request_id FROM contact_requests WHERE user_id = ? AND local_display_name = ?",
            [.integer(userId), .text(name)]
        ).first?.first?.integer
    }

    /// What an `x.contact` through the address brought.
    struct NewContactRequest {
        var agentInvitationId: AgentInvId
        var profile: Profile
        var chatVRange: ChatVersionRange
        var xContactId: XContactId?
        var pqSupport: Bool
    }

    /// Records a request received through the user's address (the core's `createOrUpdateContactRequest`): a request
    /// repeated with the same `xContactId` updates the one kept (its invitation, profile and versions) instead of
    /// making a second.
    func createContactRequest(user: User, _ new: NewContactRequest, at ts: UTCTime) throws(ChatError)
        -> UserContactRequest
    {
        try write { () throws(ChatError) in
            let address = try requireAddress(userId: user.userId)
            let time = SQLValue.text(ts.iso8601)
            if let x = new.xContactId,
                let existing = try query(
                    "SELECT contact_request_id, contact_profile_id FROM contact_requests WHERE user_id = ? AND xcontact_id = ?",
                    [.integer(user.userId), .blob(x.bytes)]
                ).first, let requestId = existing[0].integer, let profileId = existing[1].integer
            {
                try run(
                    """
                    UPDATE contact_profiles SET display_name = ?, full_name = ?, short_descr = ?, description = ?, image = ?,
                      contact_link = ?, preferences = ?, peer_type = ?, badge = ?, contact_domain = ?, updated_at = ?
                    WHERE contact_profile_id = ?
                    """, ChatRepository.profileValues(new.profile) + [time, .integer(profileId)])
                try run(
                    """
                    UPDATE contact_requests SET agent_invitation_id = ?, peer_chat_min_version = ?, peer_chat_max_version = ?,
                      pq_support = ?, updated_at = ?
                    WHERE contact_request_id = ?
                    """,
                    [
                        .blob(new.agentInvitationId.bytes), .integer(new.chatVRange.minVersion),
                        .integer(new.chatVRange.maxVersion), .bool(new.pqSupport), time, .integer(requestId),
                    ])
                return try requireContactRequest(userId: user.userId, requestId: requestId)
            }
            let profileId = try chat.insertProfile(new.profile, userId: user.userId, at: ts)
            let name = try GroupRepository(db: db).freeLocalDisplayName(new.profile.displayName, userId: user.userId)
            do throws(SQLiteError) {
                _ = try db.run(
                    """
                    INSERT INTO contact_requests (user_id, user_contact_link_id, agent_invitation_id, contact_profile_id,
                      local_display_name, peer_chat_min_version, peer_chat_max_version, xcontact_id, pq_support, created_at,
                      updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .integer(user.userId), .integer(address.userContactLinkId), .blob(new.agentInvitationId.bytes),
                        .integer(profileId), .text(name), .integer(new.chatVRange.minVersion),
                        .integer(new.chatVRange.maxVersion), new.xContactId.map { .blob($0.bytes) } ?? .null,
                        .bool(new.pqSupport), time, time,
                    ])
            } catch {
                if error.isConstraint { throw .errorStore(.internalError("duplicate agent invitation id")) }
                throw .database(error)
            }
            return try requireContactRequest(userId: user.userId, requestId: db.lastInsertRowID)
        }
    }

    /// `/_accept`: the request becomes a contact with the requester's profile and a new connection the agent made
    /// for it; the request is gone.
    func acceptContactRequest(
        user: User, requestId: Int64, agentConnId: AgentConnId, chatVersion: Int64, incognitoProfile: Profile?,
        mergedPreferences: ContactUserPreferences, at ts: UTCTime
    ) throws(ChatError) -> Contact {
        try write { () throws(ChatError) in
            let request = try requireContactRequest(userId: user.userId, requestId: requestId)
            // First, so that the contact can take the request's local display name.
            try run("DELETE FROM contact_requests WHERE contact_request_id = ?", [.integer(requestId)])
            let contactId = try insertContact(
                user: user, profileId: request.profileId, displayName: request.localDisplayName,
                mergedPreferences: mergedPreferences, contactUsed: false, at: ts)
            let incognitoId = try incognitoProfile.map { (p) throws(ChatError) in
                try chat.insertProfile(p, userId: user.userId, at: ts)
            }
            let time = SQLValue.text(ts.iso8601)
            do throws(SQLiteError) {
                _ = try db.run(
                    """
                    INSERT INTO connections (user_id, agent_conn_id, conn_type, conn_status, contact_id, via_user_contact_link,
                      xcontact_id, custom_user_profile_id, conn_chat_version, peer_chat_min_version, peer_chat_max_version,
                      pq_support, pq_encryption, created_at, updated_at)
                    VALUES (?, ?, 'contact', 'accepted', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .integer(user.userId), .blob(agentConnId.bytes), .integer(contactId),
                        request.userContactLinkId.map(SQLValue.integer) ?? .null,
                        request.xContactId.map { .blob($0.bytes) } ?? .null, incognitoId.map(SQLValue.integer) ?? .null,
                        .integer(chatVersion), .integer(request.cReqChatVRange.minVersion),
                        .integer(request.cReqChatVRange.maxVersion), .bool(request.pqSupport), .bool(request.pqSupport), time,
                        time,
                    ])
            } catch {
                if error.isConstraint { throw .errorStore(.internalError("duplicate agent connection id")) }
                throw .database(error)
            }
            return try requireContact(userId: user.userId, contactId: contactId)
        }
    }

    /// `/_reject`: the request and its profile are gone; the agent invitation is for the caller to drop.
    func rejectContactRequest(userId: Int64, requestId: Int64) throws(ChatError) -> UserContactRequest {
        try write { () throws(ChatError) in
            let request = try requireContactRequest(userId: userId, requestId: requestId)
            try run("DELETE FROM contact_requests WHERE contact_request_id = ?", [.integer(requestId)])
            try deleteUnusedProfile(request.profileId)
            return request
        }
    }
}
