// The items of local groups, chat-api.md §4.3: `/_send #<groupId>` and reactions. A local group has the user as its only
// member, so what the official core would send to the members goes to none: the items are created as it creates them
// (`groupSnd`, with a shared message id), its checks of the group's preferences apply, and nothing else happens.
internal import ChatModel
internal import SimplexEncoding

extension ChatController {
    /// The most reactions one member may give one item (the core's `maxMsgReactions`).
    static let maxMsgReactions = 3

    /// `/_send <sendRef>[ live=on|off][ ttl=…][ sign=on] json <[ComposedMessage]>` or `text <text>`: to a local group;
    /// a contact cannot be named (there are none), and a support scope or sending as the group needs members or a
    /// channel, which local groups are not.
    func sendMessages(_ a: ChatCommand.APISendMessages) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let messages = try ComposedMessage.list(a.messages)
        for m in messages { try assertAllowedContent(m.msgContent) }
        switch a.sendRef {
        case .direct(let contactId):
            if messages.contains(where: { !$0.mentions.isEmpty }) {
                throw .error(.commandError("mentions are not supported in this chat"))
            }
            throw .errorStore(.contactNotFound(contactId: contactId))
        case .group(let groupId, let scope, let asGroup):
            let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: groupId)
            if scope != nil { throw .error(.commandError("not supported")) }
            if asGroup { throw .error(.commandError("not supported")) }
            for m in messages { try checkMentions(m.mentions, user, groupId) }
            return try sendGroupItems(
                user, info, messages.map { ($0, nil) }, live: a.liveMessage)
        }
    }

    /// Every mentioned member must be a member of the group; the mention itself is kept only where the text names it,
    /// which takes the markdown parser this core does not have, so none is kept.
    func checkMentions(_ mentions: [String: Int64], _ user: User, _ groupId: Int64) throws(ChatError) {
        for id in mentions.values.sorted()
        where try groupStore.member(userId: user.userId, groupId: groupId, groupMemberId: id) == nil {
            throw .errorStore(.groupMemberNotFound(groupMemberId: id))
        }
    }

    /// Creates the user's items in a local group (`sendGroupContentMessages`): the multi-send rule, the group's
    /// preferences for each message, quotes of the group's own items, files from the files folder.
    func sendGroupItems(
        _ user: User, _ info: GroupInfo, _ messages: [(ComposedMessage, CIForwardedFrom?)], live: Bool
    ) throws(ChatError) -> ChatResponse {
        let quotes = messages.filter { $0.0.quotedItemId != nil }.count
        if messages.count > 1 && (live || quotes > 1) {
            throw .error(.commandError("invalid multi send: live and more than one quote not supported"))
        }
        try requireGroupRole(info, .author)
        let chat = ItemChat.group(groupId: info.groupId)
        let ts = now
        var new: [NewChatItem] = []
        for (m, forwarded) in messages {
            if let feature = prohibitedContent(info, m.msgContent, hasFile: m.fileSource != nil) {
                throw .error(.commandError("feature not allowed \(feature)"))
            }
            let file = try m.fileSource.map { (f) throws(ChatError) in try localFile(f) }
            let quote = try m.quotedItemId.map { (id) throws(ChatError) in try groupQuote(user, chat, id, m.msgContent) }
            new.append(
                NewChatItem(
                    sent: true, content: m.msgContent, status: .sndNew, forwarded: forwarded, file: file, ts: ts,
                    sharedMsgId: SharedMsgId(random: configuration.randomBytes(12)), live: live ? true : nil, quote: quote))
        }
        return try storeItems(user, chat, new)
    }

    /// Which preference of the group forbids a message (`prohibitedGroupContent`), by the name the error gives it. The
    /// user is the owner, so a feature is allowed exactly when it is on; SimpleX links need the markdown parser.
    private func prohibitedContent(_ info: GroupInfo, _ mc: MsgContent, hasFile: Bool) -> String? {
        let isVoice = if case .voice = mc { true } else { false }
        let isMedia =
            switch mc {
            case .image, .video: true
            default: false
            }
        if isVoice && !featureOn(info, .voice) { return "Voice messages" }
        if !isVoice && (hasFile || isMedia) && !featureOn(info, .files) { return "Files and media" }
        return nil
    }

    func featureOn(_ info: GroupInfo, _ feature: GroupFeature) -> Bool {
        let preference = info.groupProfile.groupPreferences?.features[feature.rawValue] ?? feature.defaultPreference
        return preference.enable == .on
    }

    /// The quote of an item of the same group (`prepareGroupMsg`): a deleted item or one without a message cannot be
    /// quoted. What the quote shows depends on both messages (`quoteContent`).
    private func groupQuote(_ user: User, _ chat: ItemChat, _ id: Int64, _ mc: MsgContent) throws(ChatError) -> NewQuote {
        let quoted = try store.item(userId: user.userId, chat, id: id)
        guard quoted.meta.itemDeleted == nil, let qmc = quoted.msgContent else { throw .errorStore(.invalidQuote) }
        let shared = quoted.meta.itemSharedMsgId
        return NewQuote(
            sharedMsgId: shared, sentAt: quoted.meta.itemTs, content: Self.quoteContent(mc, qmc, quoted.file),
            sent: quoted.chatDir.sent)
    }

    /// What a quote shows: a reply that is itself large (a link, media, a card) quotes the text alone; an image or a
    /// file quote without text shows the file's name.
    static func quoteContent(_ mc: MsgContent, _ qmc: MsgContent, _ file: CIFile?) -> MsgContent {
        let qText = qmc.text
        let textOrFile = qText.isEmpty ? (file?.fileName ?? qText) : qText
        switch mc {
        case .link, .image, .video, .chat, .unknown: return .text(textOrFile)
        default: break
        }
        switch qmc {
        case .image(_, let image): return .image(text: textOrFile, image: image)
        case .file: return .file(textOrFile)
        default: return qmc
        }
    }

    /// Stores new items in a chat whose time moves to now, and answers `newChatItems`.
    func storeItems(_ user: User, _ chat: ItemChat, _ new: [NewChatItem]) throws(ChatError)
        -> ChatResponse
    {
        let ts = now
        let (chatInfo, items) = try store.write { () throws(ChatError) in
            if !new.isEmpty {
                switch chat {
                case .local(let id): try store.setNoteFolderChatTs(id, ts)
                case .group(let id): try groupStore.setChatTs(ts, groupId: id)
                }
            }
            let items = try new.map { (n) throws(ChatError) in try store.insertItem(userId: user.userId, chat, n, at: ts) }
            let chatInfo: ChatInfo =
                switch chat {
                case .local(let id): .local(try store.noteFolder(userId: user.userId, id: id))
                case .group(let id): .group(try groupStore.requireGroupInfo(userId: user.userId, groupId: id))
                }
            return (chatInfo, items)
        }
        return .newChatItems(user: user, chatItems: items.map { AChatItem(chatInfo: chatInfo, chatItem: $0) })
    }

    /// `/_reaction #<groupId> <chatItemId> on|off <json(MsgReaction)>`: the user's reaction to an item of a local group.
    func groupItemReaction(_ a: ChatCommand.APIChatItemReaction, _ user: User, _ groupId: Int64) throws(ChatError)
        -> ChatResponse
    {
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: groupId)
        let chat = ItemChat.group(groupId: groupId)
        let item = try store.item(userId: user.userId, chat, id: a.chatItemId)
        let reaction = try MsgReaction(JSONInput(parsing: a.reaction))
        guard let shared = item.meta.itemSharedMsgId else {
            throw .error(.commandError("reaction not possible - no shared item ID"))
        }
        guard featureOn(info, .reactions) else { throw .error(.commandError("feature not allowed Message reactions")) }
        guard item.meta.itemDeleted == nil, item.msgContent != nil else {
            throw .error(.commandError("reaction not allowed - chat item has no content"))
        }
        let given = try store.userReactions(groupId: groupId, sharedMsgId: shared)
        if given.contains(reaction) == a.add {
            throw .error(.commandError("reaction already " + (a.add ? "added" : "removed")))
        }
        if a.add && given.count >= Self.maxMsgReactions { throw .error(.commandError("too many reactions")) }
        let ts = now
        let changed = try store.write { () throws(ChatError) in
            try store.setUserReaction(groupId: groupId, sharedMsgId: shared, reaction, add: a.add, at: ts)
            return try store.item(userId: user.userId, chat, id: item.meta.itemId)
        }
        return .chatItemReaction(
            user: user, added: a.add,
            reaction: ACIReaction(chatInfo: .group(info), chatDir: .groupSnd, chatItem: changed, sentAt: ts, reaction: reaction))
    }
}

extension ChatController {
    // MARK: Moderation and reports

    /// `/_delete member item #<groupId> <ids>`: a moderator's deletion of items (`delGroupChatItemsForMembers`). Every
    /// item of a local group is the user's own, which a moderator may delete at any age, and the user is the owner.
    /// The items are marked deleted by the user's membership, or, when the group allows full deletion, replaced by the
    /// `sndModerated` placeholder and their files removed from the files folder; reports quoting them would be marked
    /// too, and a local group has none. Ids not in the group are reported in a `chatErrors` event.
    func deleteMemberChatItems(_ a: ChatCommand.APIDeleteMemberChatItem) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        let chat = ItemChat.group(groupId: info.groupId)
        let items = try commandItems(user, chat, a.chatItemIds)
        // A deletion reaches the members by the items' shared ids.
        guard items.allSatisfy({ $0.meta.itemSharedMsgId != nil }) else { throw .error(.invalidChatItemDelete) }
        try requireGroupRole(info, .moderator)
        let removeContent = featureOn(info, .fullDelete)
        let ts = now
        let moderated = try store.write { () throws(ChatError) in
            try items.map { (item) throws(ChatError) in
                try store.moderateItem(
                    item.meta.itemId, by: info.membership.groupMemberId, removeContent: removeContent, at: ts)
                return try store.item(userId: user.userId, chat, id: item.meta.itemId)
            }
        }
        if removeContent { removeFiles(items.compactMap { $0.file?.fileSource?.filePath }) }
        let chatInfo = ChatInfo.group(info)
        return .chatItemsDeleted(
            user: user,
            chatItemDeletions: zip(items, moderated).map {
                ChatItemDeletion(
                    deletedChatItem: AChatItem(chatInfo: chatInfo, chatItem: $0.0),
                    toChatItem: AChatItem(chatInfo: chatInfo, chatItem: $0.1))
            }, byUser: true, timed: false)
    }

    /// `/_report #<groupId> <chatItemId> reason=…[ <text>]`: a report goes to the group's moderators in the reporter's
    /// member support chat (`GCSMemberSupport`), a scope the embedded core does not keep — the answer of a `/_send` to
    /// `#<groupId>(_support)`.
    func reportMessage(_ a: ChatCommand.APIReportMessage) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        _ = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        throw .error(.commandError("not supported"))
    }

    /// `/_archive reports #<groupId>`: the received reports become deleted by the user's membership
    /// (`markReceivedGroupReportsDeleted`); a local group receives none, so no item changes.
    func archiveReceivedReports(_ a: ChatCommand.APIArchiveReceivedReports) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        return .groupChatItemsDeleted(user: user, groupInfo: info, chatItemIDs: [], byUser: true, member: info.membership)
    }

    /// `/_delete reports #<groupId> <ids> <mode>`: only received reports may be named, and every item of a local group
    /// is the user's own. With none named (ids not in the group go out as `chatErrors`), the mode still has its checks:
    /// `history` is for channels, `broadcast` is a moderator's.
    func deleteReceivedReports(_ a: ChatCommand.APIDeleteReceivedReports) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        let items = try commandItems(user, .group(groupId: info.groupId), a.chatItemIds)
        guard items.isEmpty else { throw .error(.commandError("some items are not received reports")) }
        switch a.deleteMode {
        case .internal, .internalMark: break
        case .broadcast: try requireGroupRole(info, .moderator)
        case .history: throw .error(.invalidChatItemDelete)
        }
        return .chatItemsDeleted(user: user, chatItemDeletions: [], byUser: true, timed: false)
    }

    /// `/_reaction members <userId> #<groupId> <chatItemId> <json(MsgReaction)>`: who gave the reaction to the item —
    /// in a local group only the user, as the user's membership (`getReactionMembers`).
    func getReactionMembers(_ a: ChatCommand.APIGetReactionMembers) throws(ChatError) -> ChatResponse {
        let reaction = try MsgReaction(JSONInput(parsing: a.reaction))
        let user = try requireStartedUser(a.userId)
        let item = try store.item(userId: user.userId, .group(groupId: a.groupId), id: a.chatItemId)
        guard let shared = item.meta.itemSharedMsgId else {
            // Every item of a group has one; the core's pattern on it would fail the same way.
            throw .errorStore(.internalError("group item without a shared message id"))
        }
        let membership = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId).membership
        let givers = try store.reactionGivers(groupId: a.groupId, sharedMsgId: shared, reaction)
        // Reactions of members that are gone are left out, as the core leaves them.
        let reactions = givers.filter(\.sent).map { MemberReaction(groupMember: membership, reactionTs: $0.ts) }
        return .reactionMembers(user: user, memberReactions: reactions)
    }

    // MARK: Sharing

    /// `/_share chat content <chatRef> <sendRef>`: a card (`chat` content) of a public group, to send. Only a group
    /// whose profile is public has a link for it; the owner's signature takes the group's keys, which a local group
    /// does not have, so the card goes unsigned and the chat it is for is not read.
    func shareChatMsgContent(_ a: ChatCommand.APIShareChatMsgContent) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        guard case .group(let groupId, _) = a.chatRef else {
            throw .error(.commandError("sharing is only supported for public groups"))
        }
        let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: groupId)
        guard let publicGroup = info.groupProfile.publicGroup, let link = publicGroup["groupLink"]?.stringValue else {
            throw .error(.commandError("not a public group"))
        }
        guard let profile = try? CanonicalJSON.parse(info.groupProfile.json.rendered) else {
            throw .error(.internalError("group profile JSON"))
        }
        let chatLink = CanonicalJSON.object(["type": .string("group"), "connLink": .string(link), "groupProfile": profile])
        return .chatMsgContent(user: user, msgContent: .chat(text: link, chatLink: chatLink, ownerSig: nil))
    }
}
