// User management, chat-api.md §4.1.
internal import ChatModel
internal import SimplexCrypto
internal import SimplexEncoding

extension ChatController {
    /// `/user`, `/u`.
    func showActiveUser() throws(ChatError) -> ChatResponse {
        .activeUser(user: try requireUser())
    }

    /// `/_create user <json(NewUser)>`: the new user becomes the active one, with its note folder. Needs no active user
    /// and no started chat.
    func createActiveUser(_ a: ChatCommand.CreateActiveUser) throws(ChatError) -> ChatResponse {
        let newUser = try NewUser(JSONInput(parsing: a.newUser))
        if let p = newUser.profile { try checkValidName(p.displayName) }
        let profile = newUser.profile ?? DisplayName.random(configuration.randomBytes)
        for u in try store.users() {
            if u.localDisplayName == profile.displayName {
                throw u.activeUser || u.viewPwdHash == nil
                    ? .error(.userExists(contactName: profile.displayName))
                    : .error(.invalidDisplayName(displayName: profile.displayName, validName: ""))
            }
            if newUser.userChatRelay && u.userChatRelay { throw .error(.chatRelayExists) }
        }
        var createdAt = now
        if newUser.pastTimestamp {
            // Two to three days back, so the new user's first messages do not stand out (`coupleDaysAgo`).
            let r = configuration.randomBytes(4).reduce(0) { $0 << 8 | Int64($1) }
            createdAt = createdAt.adding(seconds: -(2 * 86400 + r % 86401))
        }
        let user = try store.write { () throws(ChatError) in
            let user = try store.createUser(
                profile: profile, userChatRelay: newUser.userChatRelay, clientService: newUser.clientService,
                createdAt: createdAt)
            try addServers(for: user, copyingFrom: currentUser)
            return user
        }
        currentUser = user
        return .activeUser(user: user)
    }

    /// `/users`.
    func listUsers() throws(ChatError) -> ChatResponse {
        .usersList(users: try store.users().map { UserInfo(user: $0, unreadCount: 0) })
    }

    /// `/_user <userId>[ <json(password)>]`: needs the chat started; a hidden user needs its password.
    func setActiveUser(_ a: ChatCommand.APISetActiveUser) throws(ChatError) -> ChatResponse {
        guard running else { throw .error(.chatNotStarted) }
        let target = try privateUser(a.userId)
        try validatePassword(current: currentUser, target, a.viewPwd)
        let user = try store.write { () throws(ChatError) in
            try store.setActiveUser(target.userId)
            return try privateUser(target.userId)
        }
        currentUser = user
        return .activeUser(user: user)
    }

    /// `/_hide user <userId> <json(password)>`.
    func hideUser(_ a: ChatCommand.APIHideUser) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        var target = try privateUser(a.userId)
        guard target.viewPwdHash == nil else { throw .error(.userAlreadyHidden(userId: a.userId)) }
        guard !a.viewPwd.isEmpty else { throw .error(.emptyUserPassword(userId: a.userId)) }
        guard try store.users().filter({ $0.viewPwdHash == nil }).count > 1 else {
            throw .error(.cantHideLastUser(userId: a.userId))
        }
        let salt = configuration.randomBytes(16)
        target.viewPwdHash = UserPasswordHash(
            hash: Base64.encode(Self.passwordDigest(a.viewPwd, salt: salt)), salt: Base64.encode(salt))
        target.showNtfs = false
        return try setUserPrivacy(user, target)
    }

    /// `/_unhide user <userId> <json(password)>`.
    func unhideUser(_ a: ChatCommand.APIUnhideUser) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        var target = try privateUser(a.userId)
        guard target.viewPwdHash != nil else { throw .error(.userNotHidden(userId: a.userId)) }
        guard !a.viewPwd.isEmpty else { throw .error(.emptyUserPassword(userId: a.userId)) }
        try validatePassword(current: user, target, a.viewPwd)
        target.viewPwdHash = nil
        target.showNtfs = true
        return try setUserPrivacy(user, target)
    }

    /// `/_mute user <userId>`, `/_unmute user <userId>`: a hidden user is always muted.
    func setUserNotifications(_ userId: Int64, show: Bool) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        var target = try privateUser(userId)
        guard target.viewPwdHash == nil else { throw .error(.hiddenUserAlwaysMuted(userId: userId)) }
        target.showNtfs = show
        return try setUserPrivacy(user, target)
    }

    /// `/_delete user <userId> del_smp=on|off[ <json(password)>]`: the active user only when no other visible user
    /// exists. Answers `cmdOk`; the agent's `agentUserDeleted` event follows.
    func deleteUser(_ a: ChatCommand.APIDeleteUser) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let target = try privateUser(a.userId)
        try validatePassword(current: user, target, a.viewPwd)
        let otherVisible = try store.users().filter { $0.userId != target.userId && $0.viewPwdHash == nil }
        if target.activeUser && !otherVisible.isEmpty { throw .error(.cantDeleteActiveUser(userId: target.userId)) }
        try store.write { () throws(ChatError) in try store.deleteUser(target.userId) }
        if target.activeUser { currentUser = nil }
        emit(.agentUserDeleted(agentUserId: target.agentUserId))
        return .cmdOk(user: nil)
    }

    /// `/_profile <userId> <json(Profile)>`: `userProfileNoChange` for the same profile; otherwise the update goes to
    /// contacts — the embedded core has none, so the summary counts nothing.
    func updateProfile(_ a: ChatCommand.APIUpdateProfile) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser(a.userId)
        let profile = try Profile(JSONInput(parsing: a.profile))
        let old = user.profile.profile
        if profile == old { return .userProfileNoChange(user: user) }
        if profile.displayName != old.displayName { try checkValidName(profile.displayName) }
        let updated = try store.write { () throws(ChatError) in
            try store.updateProfile(user, to: profile, at: now)
            return try privateUser(user.userId)
        }
        currentUser = updated
        return .userProfileUpdated(
            user: updated, fromProfile: old, toProfile: profile,
            updateSummary: UserProfileUpdateSummary(updateSuccesses: 0, updateFailures: 0, changedContacts: []))
    }

    /// `/set receipts all on|off`: every contact of every user.
    func setAllContactReceipts(_ a: ChatCommand.SetAllContactReceipts) throws(ChatError) -> ChatResponse {
        _ = try requireStartedUser()
        try store.write { () throws(ChatError) in try store.setAllContactReceipts(a.enable) }
        return .cmdOk(user: nil)
    }

    /// `/_set receipts contacts <userId> on|off[ clear_overrides=on|off]`.
    func setUserContactReceipts(_ a: ChatCommand.APISetUserContactReceipts) throws(ChatError) -> ChatResponse {
        try setUserFlag(a.userId, .sendReceiptsContacts, a.enable) { () throws(ChatError) in
            if a.clearOverrides { try store.clearContactReceiptOverrides(userId: a.userId) }
        }
    }

    /// `/_set receipts groups <userId> on|off[ clear_overrides=on|off]`.
    func setUserGroupReceipts(_ a: ChatCommand.APISetUserGroupReceipts) throws(ChatError) -> ChatResponse {
        try setUserFlag(a.userId, .sendReceiptsSmallGroups, a.enable) { () throws(ChatError) in
            if a.clearOverrides { try groupStore.clearSendReceiptOverrides(userId: a.userId) }
        }
    }

    /// `/_set accept member contacts <userId> on|off`.
    func setAutoAcceptMemberContacts(_ a: ChatCommand.APISetUserAutoAcceptMemberContacts) throws(ChatError) -> ChatResponse {
        try setUserFlag(a.userId, .autoAcceptMemberContacts, a.enable) {}
    }

    /// `/_set accept group invitations <userId> on|off`: whether the user joins the groups contacts invite them to
    /// without being asked; kept for when invitations can arrive.
    func setAutoAcceptGroupInvitations(_ a: ChatCommand.APISetUserAutoAcceptGroupInvitations) throws(ChatError)
        -> ChatResponse
    {
        try setUserFlag(a.userId, .autoAcceptGroupInvitations, a.enable) {}
    }

    // MARK: Helpers

    /// A user setting changed for any user the caller may see (the core checks the password rule, not the active id).
    /// The answer carries the active user as it was before the command, as the core's `ok user` does.
    private func setUserFlag(
        _ userId: Int64, _ flag: ChatRepository.UserFlag, _ on: Bool, also: () throws(ChatError) -> Void
    ) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let target = try privateUser(userId)
        try validatePassword(current: user, target, nil)
        try store.write { () throws(ChatError) in
            try store.setFlag(flag, on, userId: target.userId, at: now)
            try also()
        }
        if target.userId == user.userId { currentUser = try privateUser(user.userId) }
        return .cmdOk(user: user)
    }

    /// A user by id for the privacy commands: an unknown id is `userUnknown` (the core's `privateGetUser`), so that
    /// hidden users are not revealed.
    func privateUser(_ userId: Int64) throws(ChatError) -> User {
        guard let user = try store.user(id: userId) else { throw .error(.userUnknown) }
        return user
    }

    /// A hidden user is reachable with its password, or without one when it is the active user
    /// (`validateUserPassword_`); anything else is `userUnknown`.
    func validatePassword(current: User?, _ target: User, _ password: String?) throws(ChatError) {
        guard let stored = target.viewPwdHash else { return }
        let ok: Bool
        if let password {
            ok = Self.passwordMatches(password, stored)
        } else {
            ok = current?.userId == target.userId
        }
        if !ok { throw .error(.userUnknown) }
    }

    /// SHA-512 of the password's UTF-8 bytes followed by the salt (the core's `UserPwdHash`).
    static func passwordDigest(_ password: String, salt: [UInt8]) -> [UInt8] {
        Digest.sha512(Array(password.utf8) + salt)
    }

    static func passwordMatches(_ password: String, _ stored: UserPasswordHash) -> Bool {
        guard let salt = try? Base64.decode(stored.salt), let hash = try? Base64.decode(stored.hash) else { return false }
        let digest = passwordDigest(password, salt: salt)
        guard digest.count == hash.count else { return false }
        return zip(digest, hash).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Stores a user's privacy change; the answer's `user` is the changed user when it is the active one.
    private func setUserPrivacy(_ user: User, _ updated: User) throws(ChatError) -> ChatResponse {
        try store.write { () throws(ChatError) in try store.updatePrivacy(updated, at: now) }
        if user.userId == updated.userId {
            currentUser = updated
            return .userPrivacy(user: updated, updatedUser: updated)
        }
        return .userPrivacy(user: user, updatedUser: updated)
    }

    /// A display name must equal its valid form (`checkValidName`).
    func checkValidName(_ name: String) throws(ChatError) {
        guard !name.isEmpty else { throw .error(.invalidDisplayName(displayName: name, validName: "")) }
        let valid = DisplayName.valid(name)
        guard name == valid else { throw .error(.invalidDisplayName(displayName: name, validName: valid)) }
    }
}
