// Servers and operators, chat-api.md §4.12. Operators and usage conditions are shared by all users; each user has
// SMP and XFTP servers, grouped by operator when answering. The preset operators and conditions are stored on first
// use and a new user gets the preset servers (or the active user's), as the official core does at start and at user
// creation. Without an agent, the servers are only kept: nothing connects to them.
internal import ChatModel

extension ChatController {
    var serverStore: ServerRepository { ServerRepository(db: databases.chat) }

    /// `/_operators`.
    func getServerOperators() throws(ChatError) -> ChatResponse {
        .serverOperatorConditions(
            conditions: try store.write { () throws(ChatError) in
                try ensurePresetOperators()
                return try serverStore.operatorConditions(now: now)
            })
    }

    /// `/_operators <json([ServerOperator])>`: each listed operator's `enabled` and roles are stored.
    func setServerOperators(_ a: ChatCommand.APISetServerOperators) throws(ChatError) -> ChatResponse {
        let operators = try JSONInput(parsing: a.operators).nonEmptyArray().map { (o) throws(ChatError) in
            try ServerOperator(o)
        }
        return try setServerOperators(operators)
    }

    private func setServerOperators(_ operators: [ServerOperator]) throws(ChatError) -> ChatResponse {
        .serverOperatorConditions(
            conditions: try store.write { () throws(ChatError) in
                try ensurePresetOperators()
                for op in operators { try serverStore.updateOperator(op, at: now) }
                return try serverStore.operatorConditions(now: now)
            })
    }

    /// `/operators <id>:on|off[:smp=…][:xftp=…],…`: the listed operators as stored, with the given choices.
    func setServerOperatorsRoles(_ roles: [OperatorRoles]) throws(ChatError) -> ChatResponse {
        let stored = try store.write { () throws(ChatError) in
            try ensurePresetOperators()
            return try serverStore.operatorConditions(now: now).serverOperators
        }
        let operators = try roles.map { (r) throws(ChatError) -> ServerOperator in
            guard var op = stored.first(where: { $0.operatorId == r.operatorId }) else {
                throw .errorStore(.operatorNotFound(serverOperatorId: r.operatorId))
            }
            op.enabled = r.enabled
            op.smpRoles = ServerRoles(human: r.smpRoles)
            op.xftpRoles = ServerRoles(human: r.xftpRoles)
            return op
        }
        return try setServerOperators(operators)
    }

    /// `/_servers <userId>`: the user's servers of each operator, then the user's own.
    func getUserServers(_ a: ChatCommand.APIGetUserServers) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser(a.userId)
        let servers = try store.write { () throws(ChatError) in
            try ensurePresetOperators()
            try ensureServers(of: user)
            return try userServers(user)
        }
        return .userServers(user: user, userServers: servers)
    }

    /// `/_servers <userId> <json([UserOperatorServers])>`: refused with the validation errors when there are any;
    /// otherwise the operators' choices are stored, new servers added, changed ones updated and deleted ones removed.
    func setUserServers(_ a: ChatCommand.APISetUserServers) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser(a.userId)
        let submitted = try JSONInput(parsing: a.userServers).nonEmptyArray().map { (s) throws(ChatError) in
            try UserOperatorServers(s)
        }
        try store.write { () throws(ChatError) in
            try ensurePresetOperators()
            let validation = try validate(submitted, for: user)
            guard validation.errors.isEmpty else { throw .error(.commandError(validation.message)) }
            // The embedded core keeps no chat relays: refusing them is better than dropping them.
            if submitted.contains(where: { $0.chatRelays.contains { !$0.deleted } }) {
                throw .error(.commandError("chat relays are not supported by this core"))
            }
            for entry in submitted { try save(entry, for: user) }
        }
        return .cmdOk(user: nil)
    }

    /// `/_validate_servers <userId> <json([UserOperatorServers])>`.
    func validateServers(_ a: ChatCommand.APIValidateServers) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser(a.userId)
        let submitted = try JSONInput(parsing: a.userServers).array().map { (s) throws(ChatError) in
            try UserOperatorServers(s)
        }
        let validation = try store.write { () throws(ChatError) in
            try ensurePresetOperators()
            return try validate(submitted, for: user)
        }
        return .userServersValidation(user: user, serverErrors: validation.errors, serverWarnings: validation.warnings)
    }

    /// `/_conditions`: the current conditions, their text, and the conditions accepted last.
    func getUsageConditions() throws(ChatError) -> ChatResponse {
        let (current, accepted) = try store.write { () throws(ChatError) in
            try ensurePresetOperators()
            return (try serverStore.currentConditions(), try serverStore.latestAcceptedConditions())
        }
        return .usageConditions(usageConditions: current, conditionsText: Presets.conditionsText, acceptedConditions: accepted)
    }

    /// `/_accept_conditions <conditionsId> <operatorIds>`.
    func acceptConditions(_ a: ChatCommand.APIAcceptConditions) throws(ChatError) -> ChatResponse {
        .serverOperatorConditions(
            conditions: try store.write { () throws(ChatError) in
                try ensurePresetOperators()
                guard let conditions = try serverStore.conditions(id: a.conditionsId) else {
                    throw .errorStore(.usageConditionsNotFound)
                }
                let operators = try a.operatorIds.map { (id) throws(ChatError) -> ServerOperator in
                    guard let op = try serverStore.storedOperator(id: id) else {
                        throw .errorStore(.operatorNotFound(serverOperatorId: id))
                    }
                    return op
                }
                for op in operators { try serverStore.accept(op, commit: conditions.conditionsCommit, at: now, auto: false) }
                return try serverStore.operatorConditions(now: now)
            })
    }

    /// `/_conditions_notified <conditionsId>`: the user saw the notice; an unknown id changes nothing.
    func setConditionsNotified(_ a: ChatCommand.APISetConditionsNotified) throws(ChatError) -> ChatResponse {
        try store.write { () throws(ChatError) in
            try ensurePresetOperators()
            try serverStore.setConditionsNotified(id: a.conditionsId, at: now)
        }
        return .cmdOk(user: nil)
    }

    /// A new user's servers: a copy of the active user's, or the presets for the first user. Call inside `write`.
    func addServers(for user: User, copyingFrom active: User?) throws(ChatError) {
        try ensurePresetOperators(fresh: try store.users().count <= 1)
        guard let active else { return try addPresetServers(for: user) }
        try ensureServers(of: active)
        for p in ServerProtocol.all {
            for var s in try serverStore.servers(userId: active.userId, p) {
                s.serverId = nil
                try serverStore.insertServer(s, userId: user.userId, at: now)
            }
        }
    }

    // MARK: Presets

    /// Stores the current conditions and the preset operators when they are missing, updates the presets' names and
    /// domains, and accepts the conditions for an operator whose deadline passed (`getUpdateServerOperators`).
    /// `fresh`: the database has no user but the one being created (by default: no user at all).
    private func ensurePresetOperators(fresh: Bool? = nil) throws(ChatError) {
        let stored = try serverStore.allConditions()
        if stored.isEmpty {
            // Before any user the current conditions are the only ones; a database that had users gets the previous
            // conditions too, as one upgraded from before operators.
            let noUsers: Bool
            if let fresh { noUsers = fresh } else { noUsers = try store.users().isEmpty }
            if !noUsers { try serverStore.insertConditions(conditions(1, Presets.previousConditionsCommit)) }
            try serverStore.insertConditions(conditions(2, Presets.conditionsCommit))
        } else if !stored.contains(where: { $0.conditionsCommit == Presets.conditionsCommit }) {
            let next = (stored.map(\.conditionsId).max() ?? 0) + 1
            try serverStore.insertConditions(conditions(next, Presets.conditionsCommit))
        }
        let current = try serverStore.currentConditions()
        let latest = try serverStore.latestAcceptedConditions()
        let operators = try serverStore.storedOperators()
        for preset in Presets.operators {
            guard let op = operators.first(where: { $0.operatorTag == preset.tag }) else {
                try serverStore.insertOperator(preset, at: now)
                continue
            }
            if op.tradeName != preset.tradeName || op.legalName != preset.legalName || op.serverDomains != preset.serverDomains {
                try serverStore.updatePresetOperator(id: op.operatorId, preset, at: now)
            }
            let acceptance = try serverStore.acceptance(of: op, current: current, latestAccepted: latest, now: now)
            if case .required(let deadline?) = acceptance, deadline < now {
                try serverStore.accept(op, commit: current.conditionsCommit, at: now, auto: true)
            }
        }
    }

    private func conditions(_ id: Int64, _ commit: String) -> UsageConditions {
        UsageConditions(conditionsId: id, conditionsCommit: commit, notifiedAt: nil, createdAt: now)
    }

    /// A user created before servers were stored gets the presets.
    private func ensureServers(of user: User) throws(ChatError) {
        if try !serverStore.hasServers(userId: user.userId) { try addPresetServers(for: user) }
    }

    private func addPresetServers(for user: User) throws(ChatError) {
        for preset in Presets.operators {
            for p in ServerProtocol.all {
                for (text, enabled) in Presets.servers(preset, p, random: configuration.randomBytes) {
                    let address: ServerAddress
                    do { address = try ServerAddress(parsing: text) } catch {
                        throw .error(.internalError("preset server \(text): \(error.reason)"))
                    }
                    let server = UserServer(serverId: nil, server: address, preset: true, tested: nil, enabled: enabled)
                    try serverStore.insertServer(server, userId: user.userId, at: now)
                }
            }
        }
    }

    // MARK: Grouping, validation, saving

    /// The user's servers grouped by operator (`groupByOperator`): each operator's in operator order, then the user's
    /// own; a server belongs to the first operator one of whose domains ends one of its hosts.
    private func userServers(_ user: User) throws(ChatError) -> [UserOperatorServers] {
        let operators = try serverStore.operatorConditions(now: now).serverOperators
        var groups = operators.map { UserOperatorServers(operator: $0) } + [UserOperatorServers(operator: nil)]
        for p in ServerProtocol.all {
            for s in try serverStore.servers(userId: user.userId, p) {
                let i = operators.firstIndex { $0.operates(s.server) } ?? operators.count
                switch p {
                case .smp: groups[i].smpServers.append(s)
                case .xftp: groups[i].xftpServers.append(s)
                }
            }
        }
        return groups
    }

    /// Validates the user's submitted servers with the other users' stored ones, those seen with the submitted
    /// operators (`validateAllUsersServers`).
    private func validate(_ submitted: [UserOperatorServers], for user: User) throws(ChatError) -> ServersValidation {
        let submittedOperators = submitted.compactMap(\.operator)
        var others: [(User, [UserOperatorServers])] = []
        for other in try store.users() where other.userId != user.userId {
            try ensureServers(of: other)
            let servers = try userServers(other).map { entry in
                var entry = entry
                if let id = entry.operator?.operatorId, let op = submittedOperators.first(where: { $0.operatorId == id }) {
                    entry.operator = op
                }
                return entry
            }
            others.append((other, servers))
        }
        return ServersValidation(submitted, others: others)
    }

    /// Stores one operator's entry (`setUserServers`): a new server not deleted is added, a stored one updated or,
    /// when deleted, removed.
    private func save(_ entry: UserOperatorServers, for user: User) throws(ChatError) {
        if let op = entry.operator { try serverStore.updateOperator(op, at: now) }
        for s in entry.smpServers + entry.xftpServers {
            switch (s.serverId, s.deleted) {
            case (nil, true): continue
            case (nil, false): try serverStore.insertServer(s, userId: user.userId, at: now)
            case (let id?, true): try serverStore.deleteServer(id: id, userId: user.userId)
            case (let id?, false): try serverStore.updateServer(s, id: id, userId: user.userId, at: now)
            }
        }
    }
}

extension StoreError {
    static let uniqueID = StoreError(.uniqueID)
    static let usageConditionsNotFound = StoreError(.usageConditionsNotFound)
    static func operatorNotFound(serverOperatorId: Int64) -> StoreError {
        StoreError(.operatorNotFound, ["serverOperatorId": .integer(serverOperatorId)])
    }
}
