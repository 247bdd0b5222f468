// Groups, chat-api.md §4.5 (and `/_groups`, `/_info #`, `/_set custom #` of §4.19–4.20). The embedded core has no
// network, so its groups exist only locally: the user creates them and is their only member, the owner. Whatever a
// command would send to other members goes to none, which is what the official core does for a group without members.
internal import ChatModel
internal import SimplexEncoding

extension ChatController {
    var groupStore: GroupRepository { GroupRepository(db: databases.chat) }

    /// `/_group <userId>[ incognito=on|off] <json(GroupProfile)>`: the user becomes the group's owner and creator, with
    /// a random profile when incognito. The group starts with its banner (dated at the epoch, so it stays first), the
    /// encryption notice and one item per group feature, each announced by its own `newChatItems` (`APINewGroup`).
    func newGroup(_ a: ChatCommand.APINewGroup) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser(a.userId)
        let profile = try GroupProfile(JSONInput(parsing: a.groupProfile))
        try checkValidName(profile.displayName)
        let incognito = a.incognito ? DisplayName.random(configuration.randomBytes) : nil
        // A member id is the base64 text of 12 random bytes, as the core's `createNewGroup` makes it (`encodedRandomBytes`).
        let memberId = MemberId(random: configuration.randomBytes(12))
        let ts = now
        let (info, items) = try store.write { () throws(ChatError) in
            let info = try groupStore.createGroup(user: user, profile: profile, incognito: incognito, memberId: memberId, at: ts)
            var events: [(CIContent, UTCTime)] = [(.chatBanner, UTCTime(seconds: 0, nanoseconds: 0))]
            events.append((.sndGroupE2EEInfo(pqEnabled: false), ts))
            for feature in GroupFeature.itemFeatures {
                events.append((Self.featureItem(feature, profile.groupPreferences), ts))
            }
            let chat = ItemChat.group(groupId: info.groupId)
            let items = try events.map { (e) throws(ChatError) in
                try store.insertItem(userId: user.userId, chat, Self.eventItem(e.0, ts: e.1), at: ts)
            }
            return (info, items)
        }
        for item in items { emit(.newChatItems(user: user, chatItems: [AChatItem(chatInfo: .group(info), chatItem: item)])) }
        return .groupCreated(user: user, groupInfo: info)
    }

    /// A feature's item as a group's preferences have it (`createGroupFeatureItems`).
    static func featureItem(_ feature: GroupFeature, _ preferences: GroupPreferences?) -> CIContent {
        let s = feature.state(preferences)
        return .sndGroupFeature(groupFeature: feature.rawValue, enable: s.enable, param: s.param, memberRole: s.role)
    }

    /// An event item of the user; one that the members would be sent has a shared message id.
    func eventItem(_ content: CIContent, ts: UTCTime, sent: Bool) -> NewChatItem {
        var item = Self.eventItem(content, ts: ts)
        if sent { item.sharedMsgId = SharedMsgId(random: configuration.randomBytes(12)) }
        return item
    }

    static func eventItem(_ content: CIContent, ts: UTCTime) -> NewChatItem {
        NewChatItem(sent: true, content: .text(""), event: content, status: .sndNew, forwarded: nil, file: nil, ts: ts)
    }

    /// `/_group_profile #<groupId> <json(GroupProfile)>`: owners only; there are no members to tell. A change besides
    /// the preferences leaves a `groupUpdated` item, and each feature whose state changed its feature item, each
    /// announced by its own `newChatItems` (`runUpdateGroupProfile`).
    func updateGroupProfile(_ a: ChatCommand.APIUpdateGroupProfile) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let profile = try GroupProfile(JSONInput(parsing: a.groupProfile))
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        try requireGroupRole(info, .owner)
        if profile.displayName != info.groupProfile.displayName { try checkValidName(profile.displayName) }
        var events: [NewChatItem] = []
        let ts = now
        var old = info.groupProfile
        var new = profile
        old.groupPreferences = nil
        new.groupPreferences = nil
        if old != new { events.append(eventItem(.sndGroupEvent(.groupUpdated(profile)), ts: ts, sent: true)) }
        for feature in GroupFeature.itemFeatures
        where feature.state(info.groupProfile.groupPreferences) != feature.state(profile.groupPreferences) {
            events.append(Self.eventItem(Self.featureItem(feature, profile.groupPreferences), ts: ts))
        }
        let chat = ItemChat.group(groupId: info.groupId)
        let (updated, items) = try store.write { () throws(ChatError) in
            try groupStore.updateGroupProfile(info, userId: user.userId, to: profile, at: ts)
            if !events.isEmpty { try groupStore.setChatTs(ts, groupId: info.groupId) }
            let items = try events.map { (e) throws(ChatError) in try store.insertItem(userId: user.userId, chat, e, at: ts) }
            return (try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId), items)
        }
        for item in items {
            emit(.newChatItems(user: user, chatItems: [AChatItem(chatInfo: .group(updated), chatItem: item)]))
        }
        return .groupUpdated(user: user, fromGroup: info, toGroup: updated, msgSigned: false)
    }

    /// `/_set alias #<groupId>[ <alias>]`.
    func setGroupAlias(_ a: ChatCommand.APISetGroupAlias) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        let updated = try store.write { () throws(ChatError) in
            try groupStore.setAlias(a.localAlias, groupId: info.groupId, at: now)
            return try groupStore.requireGroupInfo(userId: user.userId, groupId: info.groupId)
        }
        return .groupAliasUpdated(user: user, toGroup: updated)
    }

    /// `/_members #<groupId>`: the members other than the user — none in a local group.
    func listMembers(_ a: ChatCommand.APIListMembers) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        let members = try groupStore.members(userId: user.userId, groupId: a.groupId)
        return .groupMembers(user: user, group: Group(groupInfo: info, members: members))
    }

    /// `/_info #<groupId>`.
    func groupInfo(_ a: ChatCommand.APIGroupInfo) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        return .groupInfo(user: user, groupInfo: try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId))
    }

    /// `/_info #<groupId> <groupMemberId>`: any member, the user's own included; without a connection there are no
    /// connection statistics.
    func groupMemberInfo(_ a: ChatCommand.APIGroupMemberInfo) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        let member = try requireMember(user, a.groupId, a.groupMemberId)
        return .groupMemberInfo(user: user, groupInfo: info, member: member)
    }

    /// `/_member settings #<groupId> <groupMemberId> <json(GroupMemberSettings)>`: whether the member's messages show.
    func setMemberSettings(_ a: ChatCommand.APISetMemberSettings) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let settings = try JSONInput(parsing: a.memberSettings).object()
        let show = try settings.required("showMessages").bool()
        let member = try requireMember(user, a.groupId, a.groupMemberId)
        try store.write { () throws(ChatError) in
            try groupStore.setShowMessages(show, groupMemberId: member.groupMemberId, at: now)
        }
        return .cmdOk(user: user)
    }

    /// `/_leave #<groupId>`: the user's membership becomes `left`; with no other members there is nobody to tell. The
    /// `userLeft` item is announced with the group as it was before (`APILeaveGroup`).
    func leaveGroup(_ a: ChatCommand.APILeaveGroup) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        let ts = now
        let left = eventItem(.sndGroupEvent(.userLeft), ts: ts, sent: true)
        let (item, updated) = try store.write { () throws(ChatError) in
            try groupStore.setChatTs(ts, groupId: info.groupId)
            let item = try store.insertItem(userId: user.userId, .group(groupId: info.groupId), left, at: ts)
            try groupStore.setMemberStatus(.left, groupMemberId: info.membership.groupMemberId, at: ts)
            return (item, try groupStore.requireGroupInfo(userId: user.userId, groupId: info.groupId))
        }
        emit(.newChatItems(user: user, chatItems: [AChatItem(chatInfo: .group(info), chatItem: item)]))
        return .leftMemberUser(user: user, groupInfo: updated)
    }

    /// `/_groups <userId>[ @<contactId>][ <search>]`: the user's groups; with a contact, those the contact is a member
    /// of (none: groups have no other members); with a search, those whose names or description contain it.
    func listGroups(_ a: ChatCommand.APIListGroups) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser(a.userId)
        var groups = try groupStore.groups(userId: user.userId)
        if a.contactId != nil { groups = [] }
        if let search = a.search, !search.isEmpty { groups = groups.filter { $0.matches(search) } }
        return .groupsList(user: user, groups: groups)
    }

    /// `/_set custom #<groupId>[ <json(object)>]`: the client's own data about the group; no JSON clears it.
    func setGroupCustomData(_ a: ChatCommand.APISetGroupCustomData) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let data = try a.customData.map { (d) throws(ChatError) in try JSONInput(parsing: d).object().value }
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        try store.write { () throws(ChatError) in try groupStore.setCustomData(data, groupId: info.groupId, at: now) }
        return .cmdOk(user: user)
    }

    /// `/_clear chat <chatRef>`: a group's items go (the embedded core keeps none for groups yet); contacts do not
    /// exist; note folders are not served here.

    /// `/_delete <chatRef>[ <mode>]`: a group goes with its members, while the user may delete it — as its owner, or
    /// once no longer a current member. The mode matters only to contacts, which do not exist.
    func deleteChat(_ a: ChatCommand.APIDeleteChat) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        switch a.chatRef {
        case .group(let groupId, nil):
            let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: groupId)
            let membership = info.membership
            guard membership.memberRole == .owner || !membership.memberStatus.isCurrent else {
                throw .error(.groupUserRole(groupInfo: info, requiredRole: .owner))
            }
            let chat = ItemChat.group(groupId: info.groupId)
            let paths = try store.write { () throws(ChatError) in
                let paths = try store.filePaths(userId: user.userId, chat)
                try store.deleteItems(userId: user.userId, chat)
                try groupStore.deleteGroup(info.groupId)
                return paths
            }
            removeFiles(paths)
            return .groupDeletedUser(user: user, groupInfo: info, msgSigned: false)
        case .direct(let contactId): throw .errorStore(.contactNotFound(contactId: contactId))
        case .contactConnection(let connId): throw .errorStore(.pendingConnectionNotFound(connId: connId))
        case .group, .local: throw .error(.commandError("not supported"))
        }
    }

    /// `/_get link #<groupId>`: a local group has no link, which clients read as "no link".
    func getGroupLink(_ a: ChatCommand.APIGetGroupLink) throws(ChatError) -> ChatResponse {
        try noGroupLink(a.groupId)
    }

    /// `/_delete link #<groupId>`: there is no link to delete.
    func deleteGroupLink(_ a: ChatCommand.APIDeleteGroupLink) throws(ChatError) -> ChatResponse {
        try noGroupLink(a.groupId)
    }

    /// `/_set link role #<groupId> <role>`: there is no link to change.
    func setGroupLinkMemberRole(_ a: ChatCommand.APIGroupLinkMemberRole) throws(ChatError) -> ChatResponse {
        try noGroupLink(a.groupId)
    }

    /// `/_get relays #<groupId>`: a local group is served by no chat relays.
    func getGroupRelays(_ a: ChatCommand.APIGetGroupRelays) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        return .groupRelays(user: user, groupInfo: info, groupRelays: [])
    }

    /// Group links need the network to be created, so no group has one: the store's `groupLinkNotFound`.
    private func noGroupLink(_ groupId: Int64) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: groupId)
        throw .errorStore(.groupLinkNotFound(groupInfo: info))
    }

    // MARK: Members

    /// `/_accept member #<groupId> <groupMemberId> <role>`: only a member pending approval or review can be admitted,
    /// and members come pending only through the network. The member is looked up by its id alone, in any of the user's
    /// groups (`getGroupMemberById`), before the user's role is checked.
    func acceptMember(_ a: ChatCommand.APIAcceptMember) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        _ = try memberById(user, a.groupMemberId)
        try requireGroupRole(info, Self.higherRole(.moderator, a.memberRole))
        throw .error(.commandError("member should be pending approval and invitee, or pending review and not invitee"))
    }

    /// `/_remove #<groupId> <ids>[ messages=on|off]`: the ids are looked for among the group's other members, of which a
    /// local group has none, so not even the user's own membership is found (the chat error `groupMemberNotFound`).
    func removeMembers(_ a: ChatCommand.APIRemoveMembers) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        _ = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        throw .error(.groupMemberNotFound)
    }

    /// `/_member role #<groupId> <ids> <role>`: the user's own role cannot be changed; other members there are none.
    func setMembersRole(_ a: ChatCommand.APIMembersRole) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        if a.memberIds.contains(info.membership.groupMemberId) {
            throw .error(.commandError("can't change role for self"))
        }
        throw .error(.groupMemberNotFound)
    }

    /// `/_block #<groupId> <ids> blocked=on|off`: the user cannot block themselves for all; other members there are none.
    func blockMembersForAll(_ a: ChatCommand.APIBlockMembersForAll) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        if a.memberIds.contains(info.membership.groupMemberId) {
            throw .error(.commandError("can't block/unblock self"))
        }
        throw .error(.groupMemberNotFound)
    }

    /// `/_delete member chat #<groupId> <groupMemberId>`: support chats are kept with moderators over the network, so
    /// no member has one. The member is looked up by its id alone (`getGroupMemberById`).
    func deleteMemberSupportChat(_ a: ChatCommand.APIDeleteMemberSupportChat) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        _ = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        _ = try memberById(user, a.groupMemberId)
        throw .error(.commandError("member has no support chat"))
    }

    /// `/_set group user #<groupId> <newUserId>`: only a group prepared from a link changes user before it is joined,
    /// and a local group was not prepared from one.
    func changePreparedGroupUser(_ a: ChatCommand.APIChangePreparedGroupUser) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        _ = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        throw .error(.commandError("group doesn't have link to connect"))
    }

    // MARK: Helpers

    /// A member of any of the user's groups, or the store's `groupMemberNotFound`.
    func memberById(_ user: User, _ groupMemberId: Int64) throws(ChatError) -> GroupMember {
        guard let member = try groupStore.member(userId: user.userId, groupMemberId: groupMemberId) else {
            throw .errorStore(.groupMemberNotFound(groupMemberId: groupMemberId))
        }
        return member
    }

    /// The higher of two roles (`max` of the core's ordered GroupMemberRole).
    static func higherRole(_ a: GroupMemberRole, _ b: GroupMemberRole) -> GroupMemberRole {
        let all = GroupMemberRole.allCases
        guard let i = all.firstIndex(of: a), let j = all.firstIndex(of: b) else { return a }
        return i >= j ? a : b
    }

    func requireMember(_ user: User, _ groupId: Int64, _ groupMemberId: Int64) throws(ChatError) -> GroupMember {
        guard let member = try groupStore.member(userId: user.userId, groupId: groupId, groupMemberId: groupMemberId)
        else { throw .errorStore(.groupMemberNotFound(groupMemberId: groupMemberId)) }
        return member
    }

    /// The user's role in the group is at least `role` and the user is an active member (`assertUserGroupRole`).
    func requireGroupRole(_ info: GroupInfo, _ role: GroupMemberRole) throws(ChatError) {
        let membership = info.membership
        guard let have = GroupMemberRole.allCases.firstIndex(of: membership.memberRole),
            let need = GroupMemberRole.allCases.firstIndex(of: role), have >= need
        else { throw .error(.groupUserRole(groupInfo: info, requiredRole: role)) }
        if membership.memberStatus == .invited { throw .error(.groupNotJoined(groupInfo: info)) }
        if membership.memberStatus.isRemoved { throw .error(.groupMemberUserRemoved) }
        if !membership.memberStatus.isCurrent { throw .error(.groupMemberNotActive) }
    }
}

extension GroupInfo {
    /// Whether a search text is in the group's names or description, ignoring case (the core's chat list search).
    func matches(_ search: String) -> Bool {
        let s = search.lowercased()
        return [localDisplayName, groupProfile.displayName, groupProfile.fullName, groupProfile.description ?? ""]
            .contains { $0.lowercased().contains(s) }
    }
}
