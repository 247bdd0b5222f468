// The human (CLI) forms, chat-api.md §3 and the "Human" notes of §4: each names users, contacts, groups or members by
// display name, or acts for the active user. Resolving them against the store gives the API command they spell, which
// is then dispatched, so its answers and refusals (the network refusal included) are the API command's own.
internal import ChatModel
internal import Foundation

extension ChatController {
    /// Resolves a human command and runs the API command it stands for. Unknown names are the store errors the core
    /// gives for them; a command that names a contact or a group first needs an active user and a started chat
    /// (the core's `withUser`), a command for the active user needs only that user and leaves the rest to the API
    /// command.
    func human(_ h: HumanCommand) throws(ChatError) -> ChatResponse {
        switch h {
        // §4.1
        case .setActiveUser(let a):
            // An unknown name is `userUnknown`, as for an unknown id, so a hidden user's name is not revealed.
            guard let user = try userNamed(a.userName) else { throw .error(.userUnknown) }
            var c = ChatCommand.APISetActiveUser()
            c.userId = user.userId
            c.viewPwd = a.viewPwd
            return try dispatch(.apiSetActiveUser(c))
        case .hideUser(let a):
            var c = ChatCommand.APIHideUser()
            c.userId = try requireUser().userId
            c.viewPwd = a.viewPwd
            return try dispatch(.apiHideUser(c))
        case .unhideUser(let a):
            var c = ChatCommand.APIUnhideUser()
            c.userId = try requireUser().userId
            c.viewPwd = a.viewPwd
            return try dispatch(.apiUnhideUser(c))
        case .muteUser:
            var c = ChatCommand.APIMuteUser()
            c.userId = try requireUser().userId
            return try dispatch(.apiMuteUser(c))
        case .unmuteUser:
            var c = ChatCommand.APIUnmuteUser()
            c.userId = try requireUser().userId
            return try dispatch(.apiUnmuteUser(c))
        case .deleteUser(let a):
            guard let user = try userNamed(a.userName) else {
                throw .errorStore(.userNotFoundByName(contactName: a.userName))
            }
            var c = ChatCommand.APIDeleteUser()
            c.userId = user.userId
            c.delSMPQueues = true
            c.viewPwd = a.viewPwd
            return try dispatch(.apiDeleteUser(c))
        case .updateProfile(let a):
            let user = try requireUser()
            var profile = user.profile.profile
            profile.displayName = a.displayName
            profile.shortDescr = a.shortDescr
            var c = ChatCommand.APIUpdateProfile()
            c.userId = user.userId
            c.profile = try rawJSON(profile.json)
            return try dispatch(.apiUpdateProfile(c))
        case .setUserContactReceipts(let a):
            var c = ChatCommand.APISetUserContactReceipts()
            c.userId = try requireUser().userId
            c.enable = a.enable
            c.clearOverrides = a.clearOverrides
            return try dispatch(.apiSetUserContactReceipts(c))
        case .setUserGroupReceipts(let a):
            var c = ChatCommand.APISetUserGroupReceipts()
            c.userId = try requireUser().userId
            c.enable = a.enable
            c.clearOverrides = a.clearOverrides
            return try dispatch(.apiSetUserGroupReceipts(c))
        case .setUserAutoAcceptMemberContacts(let a):
            var c = ChatCommand.APISetUserAutoAcceptMemberContacts()
            c.userId = try requireUser().userId
            c.enable = a.enable
            return try dispatch(.apiSetUserAutoAcceptMemberContacts(c))
        // §4.2: one folder changes and the others stay, which `/set file paths` (all folders at once) cannot express.
        case .setTempFolder(let a):
            try createFolder(a.path)
            tempFolder = a.path
            return .cmdOk(user: nil)
        case .setFilesFolder(let a):
            try createFolder(a.path)
            filesFolder = a.path
            return .cmdOk(user: nil)
        case .setRemoteHostsFolder(let a):
            try createFolder(a.path)
            remoteHostsFolder = a.path
            return .cmdOk(user: nil)
        // §4.3
        case .sendMessage(let a):
            return try sendMessage(a)
        case .reportMessage(let a):
            _ = try requireStartedUser()
            let groupId = try groupId(named: a.groupName)
            var c = ChatCommand.APIReportMessage()
            c.groupId = groupId
            c.chatItemId = try groupItemId(groupId: groupId, memberName: a.memberName, text: a.reportedText)
            c.reportReason = a.reason
            return try dispatch(.apiReportMessage(c))
        // §4.4
        case .acceptContact(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APIAcceptContact()
            c.incognito = a.incognito
            c.contactReqId = try contactRequestId(named: a.contactName)
            return try dispatch(.apiAcceptContact(c))
        case .rejectContact(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APIRejectContact()
            c.contactReqId = try contactRequestId(named: a.contactName)
            return try dispatch(.apiRejectContact(c))
        case .deleteContact(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APIDeleteChat()
            c.chatRef = .direct(contactId: try contactId(named: a.contactName))
            c.chatDeleteMode = a.mode
            return try dispatch(.apiDeleteChat(c))
        case .deleteGroup(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APIDeleteChat()
            c.chatRef = .group(groupId: try groupId(named: a.groupName), scope: nil)
            return try dispatch(.apiDeleteChat(c))
        case .clearContact(let a):
            _ = try requireStartedUser()
            return try clearChat(.direct(contactId: try contactId(named: a.contactName)))
        case .clearGroup(let a):
            _ = try requireStartedUser()
            return try clearChat(.group(groupId: try groupId(named: a.groupName), scope: nil))
        case .clearNoteFolder:
            return try clearChat(.local(noteFolderId: try noteFolderId(try requireStartedUser())))
        case .listContacts:
            var c = ChatCommand.APIListContacts()
            c.userId = try requireUser().userId
            return try dispatch(.apiListContacts(c))
        case .contactInfo(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APIContactInfo()
            c.contactId = try contactId(named: a.contactName)
            return try dispatch(.apiContactInfo(c))
        // §4.5
        case .newGroup(let a):
            var c = ChatCommand.APINewGroup()
            c.userId = try requireUser().userId
            c.incognito = a.incognito
            c.groupProfile = try newGroupProfile(a.displayName, a.shortDescr)
            return try dispatch(.apiNewGroup(c))
        case .newPublicGroup(let a):
            var c = ChatCommand.APINewPublicGroup()
            c.userId = try requireUser().userId
            c.incognito = a.incognito
            c.relayIds = a.relayIds
            c.groupProfile = try newGroupProfile(a.displayName, a.shortDescr)
            return try dispatch(.apiNewPublicGroup(c))
        case .addMember(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APIAddMember()
            c.groupId = try groupId(named: a.groupName)
            c.contactId = try contactId(named: a.contactName)
            c.memberRole = a.role
            return try dispatch(.apiAddMember(c))
        case .joinGroup(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APIJoinGroup()
            c.groupId = try groupId(named: a.groupName)
            return try dispatch(.apiJoinGroup(c))
        case .removeMembers(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APIRemoveMembers()
            c.groupId = try groupId(named: a.groupName)
            for name in a.memberNames {
                c.memberIds.append(try groupMemberId(groupId: c.groupId, named: name))
            }
            c.withMessages = a.withMessages
            return try dispatch(.apiRemoveMembers(c))
        case .leaveGroup(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APILeaveGroup()
            c.groupId = try groupId(named: a.groupName)
            return try dispatch(.apiLeaveGroup(c))
        case .listMembers(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APIListMembers()
            c.groupId = try groupId(named: a.groupName)
            return try dispatch(.apiListMembers(c))
        case .createGroupLink(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APICreateGroupLink()
            c.groupId = try groupId(named: a.groupName)
            c.memberRole = a.role
            return try dispatch(.apiCreateGroupLink(c))
        case .showGroupLink(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APIGetGroupLink()
            c.groupId = try groupId(named: a.groupName)
            return try dispatch(.apiGetGroupLink(c))
        case .groupInfo(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APIGroupInfo()
            c.groupId = try groupId(named: a.groupName)
            return try dispatch(.apiGroupInfo(c))
        case .groupMemberInfo(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APIGroupMemberInfo()
            c.groupId = try groupId(named: a.groupName)
            c.groupMemberId = try groupMemberId(groupId: c.groupId, named: a.memberName)
            return try dispatch(.apiGroupMemberInfo(c))
        case .blockMember(let a):
            return try setShowMessages(a, false)
        case .unblockMember(let a):
            return try setShowMessages(a, true)
        case .allowRelayGroup(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APIAllowRelayGroup()
            c.groupId = try groupId(named: a.groupName)
            return try dispatch(.apiAllowRelayGroup(c))
        // §4.8
        case .sendCallInvitation(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APISendCallInvitation()
            c.contactId = try contactId(named: a.contactName)
            // The core's `defaultCallType`: video, encrypted.
            c.callType = try rawJSON(.record(["media": .string("video"), "capabilities": .record(["encryption": .bool(true)])]))
            return try dispatch(.apiSendCallInvitation(c))
        // §4.10
        case .setChatItemTTL(let a):
            var c = ChatCommand.APISetChatItemTTL()
            c.userId = try requireUser().userId
            c.seconds = a.seconds
            return try dispatch(.apiSetChatItemTTL(c))
        case .getChatItemTTL:
            var c = ChatCommand.APIGetChatItemTTL()
            c.userId = try requireUser().userId
            return try dispatch(.apiGetChatItemTTL(c))
        case .setChatTTL(let a):
            let user = try requireStartedUser()
            var c = ChatCommand.APISetChatTTL()
            c.userId = user.userId
            c.chatRef = try chatRef(a.chat, user)
            c.seconds = a.seconds
            return try dispatch(.apiSetChatTTL(c))
        case .setNetworkConfig(let settings):
            _ = try requireUser()
            networkConfig = try networkConfig.merging(settings)
            return .networkConfig(networkConfig: networkConfig)
        // §4.11
        case .exportArchive:
            var c = ChatCommand.APIExportArchive()
            c.config = try rawJSON(.record(["archivePath": .string(archiveFileName(now))]))
            return try dispatch(.apiExportArchive(c))
        // §4.12
        case .setServerOperators(let a): return try setServerOperatorsRoles(a.operators)
        case .testProtoServer(let a):
            var c = ChatCommand.APITestProtoServer()
            c.userId = try requireUser().userId
            c.server = a.server
            return try dispatch(.apiTestProtoServer(c))
        // §4.16
        case .createMyAddress:
            var c = ChatCommand.APICreateMyAddress()
            c.userId = try requireUser().userId
            return try dispatch(.apiCreateMyAddress(c))
        case .deleteMyAddress:
            var c = ChatCommand.APIDeleteMyAddress()
            c.userId = try requireUser().userId
            return try dispatch(.apiDeleteMyAddress(c))
        case .showMyAddress:
            var c = ChatCommand.APIShowMyAddress()
            c.userId = try requireUser().userId
            return try dispatch(.apiShowMyAddress(c))
        case .setProfileAddress(let a):
            var c = ChatCommand.APISetProfileAddress()
            c.userId = try requireUser().userId
            c.enable = a.enable
            return try dispatch(.apiSetProfileAddress(c))
        case .setAddressSettings(let a):
            var c = ChatCommand.APISetAddressSettings()
            c.userId = try requireUser().userId
            c.settings = try addressSettings(a.settings)
            return try dispatch(.apiSetAddressSettings(c))
        // §4.17
        case .getContactCode(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APIGetContactCode()
            c.contactId = try contactId(named: a.contactName)
            return try dispatch(.apiGetContactCode(c))
        case .verifyContact(let a):
            _ = try requireStartedUser()
            var c = ChatCommand.APIVerifyContact()
            c.contactId = try contactId(named: a.contactName)
            c.connectionCode = a.code
            return try dispatch(.apiVerifyContact(c))
        // §4.19
        case .listGroups(let a):
            var c = ChatCommand.APIListGroups()
            c.userId = try requireUser().userId
            if let name = a.contactName {
                _ = try requireStartedUser()
                c.contactId = try contactId(named: name)
            }
            c.search = a.search
            return try dispatch(.apiListGroups(c))
        }
    }

    // MARK: Names in the store

    /// A user by local display name, hidden users included (the core's `getUserIdByName`).
    private func userNamed(_ name: String) throws(ChatError) -> User? {
        try store.users().first { $0.localDisplayName == name }
    }

    /// A contact of the active user by local display name, deleted contacts aside (the core's `getContactIdByName`).
    private func contactId(named name: String) throws(ChatError) -> Int64 {
        let user = try requireUser()
        guard let id = try contactStore.contactId(userId: user.userId, localDisplayName: name) else {
            throw .errorStore(.contactNotFoundByName(contactName: name))
        }
        return id
    }

    /// A contact request of the active user by the requester's local display name.
    private func contactRequestId(named name: String) throws(ChatError) -> Int64 {
        let user = try requireUser()
        guard let id = try contactStore.contactRequestId(userId: user.userId, localDisplayName: name) else {
            throw .errorStore(.contactRequestNotFoundByName(contactName: name))
        }
        return id
    }

    /// A group of the active user by local display name.
    private func groupId(named name: String) throws(ChatError) -> Int64 {
        let user = try requireUser()
        guard let id = try groupStore.groupId(userId: user.userId, localDisplayName: name) else {
            throw .errorStore(.groupNotFoundByName(groupName: name))
        }
        return id
    }

    /// A member of a group by local display name.
    private func groupMemberId(groupId: Int64, named name: String) throws(ChatError) -> Int64 {
        let user = try requireUser()
        guard let id = try groupStore.groupMemberId(userId: user.userId, groupId: groupId, localDisplayName: name) else {
            throw .errorStore(.groupMemberNameNotFound(groupId: groupId, groupMemberName: name))
        }
        return id
    }

    /// The newest item of a group whose text starts with `text`: the user's own, or a named member's — and a local group
    /// has no other members whose items could be named (`getGroupChatItemIdByText`).
    private func groupItemId(groupId: Int64, memberName: String?, text: String) throws(ChatError) -> Int64 {
        let user = try requireStartedUser()
        guard memberName == nil,
            let id = try store.newestSentItemId(userId: user.userId, .group(groupId: groupId), textPrefix: text)
        else { throw .errorStore(.chatItemNotFoundByText(text: text)) }
        return id
    }

    /// The user's note folder (each user has one from creation).
    private func noteFolderId(_ user: User) throws(ChatError) -> Int64 {
        guard let folder = try store.noteFolders(userId: user.userId).first else {
            throw .errorStore(.userNoteFolderNotFound)
        }
        return folder.noteFolderId
    }

    private func chatRef(_ chat: ChatName, _ user: User) throws(ChatError) -> ChatRef {
        switch chat {
        case .direct(let name): .direct(contactId: try contactId(named: name))
        case .group(let name): .group(groupId: try groupId(named: name), scope: nil)
        case .local: .local(noteFolderId: try noteFolderId(user))
        }
    }

    // MARK: The API values the human forms build

    private func sendMessage(_ a: HumanCommand.SendMessage) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        switch a.target {
        case .local:
            var c = ChatCommand.APICreateChatItems()
            c.noteFolderId = try noteFolderId(user)
            c.messages = .text(a.text)
            return try dispatch(.apiCreateChatItems(c))
        case .direct(let name):
            var c = ChatCommand.APISendMessages()
            c.sendRef = .direct(contactId: try contactId(named: name))
            c.messages = .text(a.text)
            return try dispatch(.apiSendMessages(c))
        case .group(let name, let support):
            let groupId = try groupId(named: name)
            var scope: GroupChatScope?
            if let support {
                scope = .memberSupport(
                    groupMemberId: try support.memberName.map { (m) throws(ChatError) in
                        try groupMemberId(groupId: groupId, named: m)
                    })
            }
            var c = ChatCommand.APISendMessages()
            c.sendRef = .group(groupId: groupId, scope: scope, asGroup: false)
            c.messages = .text(a.text)
            return try dispatch(.apiSendMessages(c))
        }
    }

    private func clearChat(_ ref: ChatRef) throws(ChatError) -> ChatResponse {
        var c = ChatCommand.APIClearChat()
        c.chatRef = ref
        return try dispatch(.apiClearChat(c))
    }

    /// `/block` and `/unblock`: the member's local setting, other settings kept (the core reads them from the member).
    private func setShowMessages(_ a: HumanCommand.GroupMemberNamed, _ show: Bool) throws(ChatError) -> ChatResponse {
        _ = try requireStartedUser()
        var c = ChatCommand.APISetMemberSettings()
        c.groupId = try groupId(named: a.groupName)
        c.groupMemberId = try groupMemberId(groupId: c.groupId, named: a.memberName)
        c.memberSettings = try rawJSON(.record(["showMessages": .bool(show)]))
        return try dispatch(.apiSetMemberSettings(c))
    }

    /// The profile of a group made with `/group`: the name and description, direct messages and history on (the core's
    /// `groupProfile`).
    private func newGroupProfile(_ name: String, _ description: String?) throws(ChatError) -> RawJSON {
        try rawJSON(
            .record([
                "displayName": .string(name), "fullName": .string(""), "shortDescr": description?.json,
                "groupPreferences": .record([
                    "directMessages": .record(["enable": .string("on")]), "history": .record(["enable": .string("on")]),
                ]),
            ]))
    }

    /// The AddressSettings of `/auto_accept`.
    private func addressSettings(_ settings: AutoAcceptSettings) throws(ChatError) -> RawJSON {
        func reply(_ r: TextOrJSON?) throws(ChatError) -> JSONValue? {
            switch r {
            case nil: return nil
            case .text(let text)?: return .tagged("text", ["text": .string(text)])
            case .json(let json)?: return JSONValue(try JSONInput(parsing: json).value)
            }
        }
        switch settings {
        case .off:
            return try rawJSON(.record(["businessAddress": .bool(false)]))
        case .on(let incognito, let r):
            return try rawJSON(
                .record([
                    "businessAddress": .bool(false), "autoAccept": .record(["acceptIncognito": .bool(incognito)]),
                    "autoReply": try reply(r),
                ]))
        case .business(let r):
            return try rawJSON(
                .record([
                    "businessAddress": .bool(true), "autoAccept": .record(["acceptIncognito": .bool(false)]),
                    "autoReply": try reply(r),
                ]))
        }
    }

    /// `simplex-chat.<date>T<hhmmss>Z.zip`, the name `/db export` gives the archive.
    private func archiveFileName(_ time: UTCTime) -> String {
        let iso = time.iso8601  // 2025-06-01T09:30:12.123456Z
        let date = iso.prefix(10)
        let clock = iso.dropFirst(11).prefix(8).filter { $0 != ":" }
        return "simplex-chat.\(date)T\(clock)Z.zip"
    }

    private func rawJSON(_ value: JSONValue) throws(ChatError) -> RawJSON {
        do {
            return try RawJSON(parsing: value.rendered)
        } catch {
            throw .error(.internalError("built JSON does not parse: \(error.message)"))
        }
    }

    /// `createDirectoryIfMissing True`, as for `/set file paths`.
    private func createFolder(_ path: String) throws(ChatError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .error(.exception("\(path): createDirectory: \(error.localizedDescription)"))
        }
    }
}
