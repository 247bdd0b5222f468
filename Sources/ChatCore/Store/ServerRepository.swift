internal import ChatModel
internal import ChatStore
internal import SimplexEncoding

/// Server operators, usage conditions and users' servers in the chat database (migration
/// `m20261204_servers_operators`). Like the other repositories, reads are single statements and a command's writes
/// run inside `ChatRepository.write`, one transaction.
struct ServerRepository {
    let db: SQLiteDatabase

    private func query(_ sql: String, _ values: [SQLValue] = []) throws(ChatError) -> [[SQLValue]] {
        do { return try db.query(sql, values) } catch { throw .database(error) }
    }

    private func run(_ sql: String, _ values: [SQLValue] = []) throws(ChatError) {
        do {
            _ = try db.run(sql, values)
        } catch {
            // SQLITE_CONSTRAINT: the core's `checkConstraint SEUniqueID`.
            throw error.code & 0xff == 19 ? .errorStore(.uniqueID) : .database(error)
        }
    }

    private static func corrupt(_ what: String) -> ChatError { .errorStore(.internalError("bad stored \(what)")) }

    private static func time(_ v: SQLValue, _ what: String) throws(ChatError) -> UTCTime {
        guard let t = v.text.flatMap(UTCTime.init(iso8601:)) else { throw corrupt(what) }
        return t
    }

    // MARK: Usage conditions

    private static let conditionsColumns =
        "SELECT usage_conditions_id, conditions_commit, notified_at, created_at FROM usage_conditions"

    private static func conditions(_ row: [SQLValue]) throws(ChatError) -> UsageConditions {
        guard row.count == 4, let id = row[0].integer, let commit = row[1].text else { throw corrupt("usage conditions") }
        let notifiedAt: UTCTime? = row[2] == .null ? nil : try time(row[2], "usage conditions")
        return UsageConditions(
            conditionsId: id, conditionsCommit: commit, notifiedAt: notifiedAt, createdAt: try time(row[3], "usage conditions"))
    }

    /// Every version of the conditions, oldest first.
    func allConditions() throws(ChatError) -> [UsageConditions] {
        try query(Self.conditionsColumns + " ORDER BY usage_conditions_id").map { (r) throws(ChatError) in try Self.conditions(r)
        }
    }

    func insertConditions(_ c: UsageConditions) throws(ChatError) {
        try run(
            """
            INSERT INTO usage_conditions (usage_conditions_id, conditions_commit, notified_at, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?)
            """,
            [
                .integer(c.conditionsId), .text(c.conditionsCommit), c.notifiedAt.map { .text($0.iso8601) } ?? .null,
                .text(c.createdAt.iso8601), .text(c.createdAt.iso8601),
            ])
    }

    /// The newest conditions, or the store's `usageConditionsNotFound`.
    func currentConditions() throws(ChatError) -> UsageConditions {
        guard let row = try query(Self.conditionsColumns + " ORDER BY usage_conditions_id DESC LIMIT 1").first else {
            throw .errorStore(.usageConditionsNotFound)
        }
        return try Self.conditions(row)
    }

    func conditions(id: Int64) throws(ChatError) -> UsageConditions? {
        try query(Self.conditionsColumns + " WHERE usage_conditions_id = ?", [.integer(id)]).first.map {
            (r) throws(ChatError) in try Self.conditions(r)
        }
    }

    /// The conditions some operator accepted last (`getLatestAcceptedConditions`).
    func latestAcceptedConditions() throws(ChatError) -> UsageConditions? {
        try query(
            Self.conditionsColumns + """
                 WHERE conditions_commit = (
                  SELECT conditions_commit FROM operator_usage_conditions ORDER BY accepted_at DESC LIMIT 1)
                """
        ).first.map { (r) throws(ChatError) in try Self.conditions(r) }
    }

    func setConditionsNotified(id: Int64, at ts: UTCTime) throws(ChatError) {
        try run(
            "UPDATE usage_conditions SET notified_at = ?, updated_at = ? WHERE usage_conditions_id = ?",
            [.text(ts.iso8601), .text(ts.iso8601), .integer(id)])
    }

    // MARK: Operators

    private static let operatorColumns = """
        SELECT server_operator_id, server_operator_tag, trade_name, legal_name, server_domains, enabled,
          smp_role_storage, smp_role_proxy, xftp_role_storage, xftp_role_proxy
        FROM server_operators
        """

    /// An operator as stored; its acceptance is filled in by `operators(now:)`.
    private static func storedOperator(_ row: [SQLValue]) throws(ChatError) -> ServerOperator {
        guard row.count == 10, let id = row[0].integer, let tradeName = row[2].text, let enabled = row[5].integer,
            let ss = row[6].integer, let sp = row[7].integer, let xs = row[8].integer, let xp = row[9].integer
        else { throw corrupt("server operator") }
        return ServerOperator(
            operatorId: id, operatorTag: row[1].text.flatMap(OperatorTag.init(rawValue:)), tradeName: tradeName,
            legalName: row[3].text, serverDomains: (row[4].text ?? "").split(separator: ",").map(String.init),
            conditionsAcceptance: .required(deadline: nil), enabled: enabled != 0,
            smpRoles: ServerRoles(storage: ss != 0, proxy: sp != 0), xftpRoles: ServerRoles(storage: xs != 0, proxy: xp != 0))
    }

    /// The operators in the order they were stored, without their acceptance.
    func storedOperators() throws(ChatError) -> [ServerOperator] {
        try query(Self.operatorColumns + " ORDER BY server_operator_id").map { (r) throws(ChatError) in
            try Self.storedOperator(r)
        }
    }

    func storedOperator(id: Int64) throws(ChatError) -> ServerOperator? {
        try query(Self.operatorColumns + " WHERE server_operator_id = ?", [.integer(id)]).first.map {
            (r) throws(ChatError) in try Self.storedOperator(r)
        }
    }

    func insertOperator(_ p: PresetOperator, at ts: UTCTime) throws(ChatError) {
        try run(
            """
            INSERT INTO server_operators (server_operator_tag, trade_name, legal_name, server_domains, enabled,
              smp_role_storage, smp_role_proxy, xftp_role_storage, xftp_role_proxy, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(p.tag.rawValue), .text(p.tradeName), .text(p.legalName), .text(p.serverDomains.joined(separator: ",")),
                .flag(p.enabled), .flag(p.smpRoles.storage), .flag(p.smpRoles.proxy), .flag(p.xftpRoles.storage),
                .flag(p.xftpRoles.proxy), .text(ts.iso8601), .text(ts.iso8601),
            ])
    }

    /// A preset operator's names and domains as the app ships them; the user's choices (enabled, roles) stay.
    func updatePresetOperator(id: Int64, _ p: PresetOperator, at ts: UTCTime) throws(ChatError) {
        try run(
            """
            UPDATE server_operators SET trade_name = ?, legal_name = ?, server_domains = ?, updated_at = ?
            WHERE server_operator_id = ?
            """,
            [
                .text(p.tradeName), .text(p.legalName), .text(p.serverDomains.joined(separator: ",")), .text(ts.iso8601),
                .integer(id),
            ]
        )
    }

    /// The user's choices for an operator: whether it is used and what for. An unknown id changes nothing.
    func updateOperator(_ op: ServerOperator, at ts: UTCTime) throws(ChatError) {
        try run(
            """
            UPDATE server_operators SET enabled = ?, smp_role_storage = ?, smp_role_proxy = ?, xftp_role_storage = ?,
              xftp_role_proxy = ?, updated_at = ?
            WHERE server_operator_id = ?
            """,
            [
                .flag(op.enabled), .flag(op.smpRoles.storage), .flag(op.smpRoles.proxy), .flag(op.xftpRoles.storage),
                .flag(op.xftpRoles.proxy), .text(ts.iso8601), .integer(op.operatorId),
            ])
    }

    /// Whether the operator accepted the current conditions (`getOperatorConditions_`): accepted when the last
    /// conditions it accepted are the current ones; when they are the ones accepted last but newer exist, required by
    /// a deadline; otherwise required.
    func acceptance(
        of op: ServerOperator, current: UsageConditions, latestAccepted: UsageConditions?, now: UTCTime
    ) throws(ChatError) -> ConditionsAcceptance {
        guard let latestAccepted else { return .required(deadline: nil) }
        let row = try query(
            """
            SELECT conditions_commit, accepted_at, auto_accepted FROM operator_usage_conditions
            WHERE server_operator_id = ? ORDER BY operator_usage_conditions_id DESC LIMIT 1
            """, [.integer(op.operatorId)]
        ).first
        guard let row, let commit = row[0].text, commit == latestAccepted.conditionsCommit else {
            return .required(deadline: nil)
        }
        if current.conditionsCommit != latestAccepted.conditionsCommit {
            return .required(deadline: current.deadline(seenAt: current.notifiedAt ?? now))
        }
        let acceptedAt: UTCTime? = row[1] == .null ? nil : try Self.time(row[1], "conditions acceptance")
        return .accepted(acceptedAt: acceptedAt, autoAccepted: (row[2].integer ?? 0) != 0)
    }

    /// Records that the operator accepted the conditions (`acceptConditions_`); an earlier acceptance of the same
    /// conditions stands.
    func accept(_ op: ServerOperator, commit: String, at ts: UTCTime, auto: Bool) throws(ChatError) {
        try run(
            """
            INSERT INTO operator_usage_conditions
              (server_operator_id, server_operator_tag, conditions_commit, accepted_at, auto_accepted, created_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?4)
            ON CONFLICT (conditions_commit, server_operator_id)
              DO UPDATE SET accepted_at = ?4, auto_accepted = ?5 WHERE accepted_at IS NULL
            """,
            [
                .integer(op.operatorId), op.operatorTag.map { .text($0.rawValue) } ?? .null, .text(commit),
                .text(ts.iso8601), .flag(auto),
            ])
    }

    /// The operators with their acceptance, the current conditions and what the user is asked (`getServerOperators`).
    func operatorConditions(now: UTCTime) throws(ChatError) -> ServerOperatorConditions {
        let current = try currentConditions()
        let latest = try latestAcceptedConditions()
        var operators = try storedOperators()
        for i in operators.indices {
            operators[i].conditionsAcceptance = try acceptance(
                of: operators[i], current: current, latestAccepted: latest, now: now)
        }
        return ServerOperatorConditions(
            serverOperators: operators, currentConditions: current,
            conditionsAction: UsageConditionsAction(operators: operators, conditions: current, now: now))
    }

    // MARK: Servers

    /// The user's servers of a protocol in the order they were stored.
    func servers(userId: Int64, _ p: ServerProtocol) throws(ChatError) -> [UserServer] {
        try query(
            """
            SELECT smp_server_id, host, port, key_hash, basic_auth, preset, tested, enabled
            FROM protocol_servers WHERE user_id = ? AND protocol = ? ORDER BY smp_server_id
            """, [.integer(userId), .text(p.rawValue)]
        ).map { (row) throws(ChatError) in
            guard row.count == 8, let id = row[0].integer, let host = row[1].text, let port = row[2].text,
                let keyHash = row[3].blob, let preset = row[5].integer, let enabled = row[7].integer
            else { throw Self.corrupt("server") }
            var text = p.rawValue + "://" + Base64.encode(keyHash)
            if let auth = row[4].text { text += ":" + auth }
            text += "@" + host + (port.isEmpty ? "" : ":" + port)
            let address: ServerAddress
            do { address = try ServerAddress(parsing: text) } catch { throw Self.corrupt("server address") }
            return UserServer(
                serverId: id, server: address, preset: preset != 0, tested: row[6].integer.map { $0 != 0 },
                enabled: enabled != 0)
        }
    }

    /// Whether the user has any server: a user without is one the servers were never set up for.
    func hasServers(userId: Int64) throws(ChatError) -> Bool {
        try !query("SELECT 1 FROM protocol_servers WHERE user_id = ? LIMIT 1", [.integer(userId)]).isEmpty
    }

    func insertServer(_ s: UserServer, userId: Int64, at ts: UTCTime) throws(ChatError) {
        try run(
            """
            INSERT INTO protocol_servers (protocol, host, port, key_hash, basic_auth, preset, tested, enabled, user_id,
              created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, Self.serverValues(s) + [.integer(userId), .text(ts.iso8601), .text(ts.iso8601)])
    }

    func updateServer(_ s: UserServer, id: Int64, userId: Int64, at ts: UTCTime) throws(ChatError) {
        try run(
            """
            UPDATE protocol_servers SET protocol = ?, host = ?, port = ?, key_hash = ?, basic_auth = ?, preset = ?,
              tested = ?, enabled = ?, updated_at = ?
            WHERE smp_server_id = ? AND user_id = ?
            """, Self.serverValues(s) + [.text(ts.iso8601), .integer(id), .integer(userId)])
    }

    /// Removes a server the user added; preset servers stay (they can only be disabled).
    func deleteServer(id: Int64, userId: Int64) throws(ChatError) {
        try run(
            "DELETE FROM protocol_servers WHERE user_id = ? AND smp_server_id = ? AND preset = 0",
            [.integer(userId), .integer(id)])
    }

    private static func serverValues(_ s: UserServer) -> [SQLValue] {
        let a = s.server
        return [
            .text(a.serverProtocol.rawValue), .text(a.hostsText), .text(a.port), .blob(a.keyHash),
            a.basicAuth.map(SQLValue.text) ?? .null, .flag(s.preset), s.tested.map(SQLValue.flag) ?? .null, .flag(s.enabled),
        ]
    }
}

extension SQLValue {
    fileprivate static func flag(_ b: Bool) -> SQLValue { .integer(b ? 1 : 0) }
}
