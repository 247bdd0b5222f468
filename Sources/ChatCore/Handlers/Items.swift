// Chat items, chat-api.md §4.3 (and `/_clear chat`, `/_delete` of §4.4 for note folders). The embedded core keeps
// items for note folders (`*<noteFolderId>`) and local groups (`#<groupId>`); every handler reaches them through
// `itemChat`, the one place that maps a chat reference to a chat whose items are stored. Sending to groups and
// reactions are in GroupItems.swift.
internal import ChatModel
internal import Foundation

extension ChatController {
    /// The largest file an item may reference: XFTP's limit for one file, which the core applies to every attachment.
    static let maxFileSize: Int64 = 1_073_741_824

    /// The chat a reference names, for commands on its items. Only note folders exist; a contact or group id cannot
    /// name anything yet, so it is the store's not-found error, and pending connections have no items.
    func itemChat(_ ref: ChatRef, _ user: User) throws(ChatError) -> (ChatInfo, ItemChat) {
        switch ref {
        case .local(let id):
            let folder = try store.noteFolder(userId: user.userId, id: id)
            return (.local(folder), .local(noteFolderId: id))
        case .direct(let contactId): throw .errorStore(.contactNotFound(contactId: contactId))
        case .group(let groupId, nil):
            let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: groupId)
            return (.group(info), .group(groupId: groupId))
        case .group(let groupId, .some):
            _ = try groupStore.requireGroupInfo(userId: user.userId, groupId: groupId)
            throw .error(.commandError("not supported"))
        case .contactConnection: throw .error(.commandError("not supported"))
        }
    }

    // MARK: Reading

    /// `/_get chat <chatRef>[ content=<tag>] <pagination>[ search=<text>]`: a page in ascending order. `around=` gives
    /// up to `count` items on each side; it and `initial=` (a page around the first unread item) also give the chat's
    /// unread stats and the NavigationInfo after the page, as the core does; the other forms give empty stats.
    func getChat(_ a: ChatCommand.APIGetChat) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let (info, chat) = try itemChat(a.chatRef, user)
        let filter = ItemFilter(contentTag: a.contentTag, search: a.search ?? "")
        let uid = user.userId
        var stats = ChatStats.none
        var navigation: NavigationInfo?
        let items: [ChatItem]
        switch a.pagination {
        case .last(let count):
            items = try store.lastItems(userId: uid, chat, filter, count: count)
        case .after(let id, let count):
            let anchor = try store.item(userId: uid, chat, id: id)
            items = try store.items(userId: uid, chat, filter, after: anchor.position, count: count)
        case .before(let id, let count):
            let anchor = try store.item(userId: uid, chat, id: id)
            items = try store.items(userId: uid, chat, filter, before: anchor.position, count: count)
        case .around(let id, let count):
            let unread = try store.unreadStats(userId: uid, chat)
            let first = try store.firstUnread(userId: uid, chat, contentTag: nil) ?? 0
            stats = ChatStats(unreadCount: unread.count, minUnreadItemId: first)
            (items, navigation) = try page(around: id, count, uid, chat, filter)
        case .initial(let count):
            guard filter.search.isEmpty else {
                throw .errorStore(.internalError("initial chat pagination doesn't support search"))
            }
            if let first = try store.firstUnread(userId: uid, chat, contentTag: filter.contentTag) {
                let unread = try store.unreadStats(userId: uid, chat, contentTag: filter.contentTag)
                stats = ChatStats(unreadCount: unread.count, minUnreadItemId: first)
                (items, navigation) = try page(around: first, count, uid, chat, filter)
            } else {
                items = try store.lastItems(userId: uid, chat, filter, count: count)
                navigation = NavigationInfo(afterUnread: 0, afterTotal: 0)
            }
        }
        return .apiChat(user: user, chat: AChat(chatInfo: info, chatItems: items, chatStats: stats), navInfo: navigation)
    }

    /// Up to `count` items on each side of an item, and what follows the page.
    private func page(around id: Int64, _ count: Int64, _ uid: Int64, _ chat: ItemChat, _ filter: ItemFilter)
        throws(ChatError) -> ([ChatItem], NavigationInfo)
    {
        let anchor = try store.item(userId: uid, chat, id: id)
        let before = try store.items(userId: uid, chat, filter, before: anchor.position, count: count)
        let after = try store.items(userId: uid, chat, filter, after: anchor.position, count: count)
        let items = before + [anchor] + after
        let last = items.last ?? anchor
        // What follows counts every item after the page, the search aside, as the core counts.
        let following = ItemFilter(contentTag: filter.contentTag)
        return (items, try store.navigation(userId: uid, chat, following, after: last.position))
    }

    /// `/_get items <pagination>[ search=<text>]`: the user's items across all chats, oldest first, their text
    /// containing the search ignoring case (`getAllChatItems`). The item an `after=`, `before=` or `around=` page is
    /// anchored on is found as the core finds it, through its contact or group (`getChatRefViaItemId`): a note there
    /// is the store's `badChatItem`. `initial=` pages around the first unread item, of which the user's own have none.
    func getChatItems(_ a: ChatCommand.APIGetChatItems) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let uid = user.userId
        let search = a.search ?? ""
        let refs: [(id: Int64, chat: ItemChat)]
        switch a.pagination {
        case .last(let count):
            refs = try store.allItemRefs(userId: uid, search: search, .last, count: count)
        case .after(let id, let count):
            let anchor = try allItemsAnchor(user, id)
            refs = try store.allItemRefs(userId: uid, search: search, .after(anchor.item.position), count: count)
        case .before(let id, let count):
            let anchor = try allItemsAnchor(user, id)
            refs = try store.allItemRefs(userId: uid, search: search, .before(anchor.item.position), count: count)
        case .around(let id, let count):
            refs = try allItems(around: id, count, user, search)
        case .initial(let count):
            guard search.isEmpty else {
                throw .errorStore(.internalError("initial chat pagination doesn't support search"))
            }
            refs =
                if let first = try store.firstUnreadItemId(userId: uid) {
                    try allItems(around: first, count, user, search)
                } else {
                    try store.allItemRefs(userId: uid, search: search, .last, count: count)
                }
        }
        var chats: [ItemChat: ChatInfo] = [:]
        let items = try refs.map { (ref) throws(ChatError) -> AChatItem in
            let info: ChatInfo
            if let known = chats[ref.chat] {
                info = known
            } else {
                info = try chatInfo(ref.chat, user)
                chats[ref.chat] = info
            }
            return AChatItem(chatInfo: info, chatItem: try store.item(userId: uid, ref.chat, id: ref.id))
        }
        return .chatItems(user: user, chatItems: items)
    }

    /// Up to `count` of the user's items on each side of an item, with the item (whatever the search).
    private func allItems(around id: Int64, _ count: Int64, _ user: User, _ search: String) throws(ChatError) -> [(
        id: Int64, chat: ItemChat
    )] {
        let anchor = try allItemsAnchor(user, id)
        let p = anchor.item.position
        return try store.allItemRefs(userId: user.userId, search: search, .before(p), count: count)
            + [(id, anchor.chat)] + store.allItemRefs(userId: user.userId, search: search, .after(p), count: count)
    }

    /// The item a page of all items is anchored on, found through its group (`getChatRefViaItemId`, which knows
    /// contacts and groups only).
    private func allItemsAnchor(_ user: User, _ id: Int64) throws(ChatError) -> (item: ChatItem, chat: ItemChat) {
        switch try store.itemChat(userId: user.userId, itemId: id) {
        case nil: throw .errorStore(.chatItemNotFound(itemId: id))
        case .local: throw .errorStore(.badChatItem(itemId: id))
        case .group(let groupId):
            _ = try groupStore.requireGroupInfo(userId: user.userId, groupId: groupId)
            return (try store.item(userId: user.userId, .group(groupId: groupId), id: id), .group(groupId: groupId))
        }
    }

    /// The chat info of a chat whose items are stored.
    private func chatInfo(_ chat: ItemChat, _ user: User) throws(ChatError) -> ChatInfo {
        switch chat {
        case .local(let id): .local(try store.noteFolder(userId: user.userId, id: id))
        case .group(let id): .group(try groupStore.requireGroupInfo(userId: user.userId, groupId: id))
        }
    }

    /// `/_get content types <chatRef>`: the content types of the chat's items, in the API's order of MsgContentTag.
    func getChatContentTypes(_ a: ChatCommand.APIGetChatContentTypes) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let (_, chat) = try itemChat(a.chatRef, user)
        let order: [MsgContentTag] = [.text, .link, .image, .video, .voice, .file, .report, .chat]
        let present = Set(try store.contentTags(userId: user.userId, chat))
        let others = present.subtracting(order).sorted { $0.rawValue < $1.rawValue }
        return .chatContentTypes(contentTypes: order.filter(present.contains) + others)
    }

    /// `/_get item info <chatRef> <chatItemId>`: the item's edit history.
    func getChatItemInfo(_ a: ChatCommand.APIGetChatItemInfo) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let (info, chat) = try itemChat(a.chatRef, user)
        let item = try store.item(userId: user.userId, chat, id: a.chatItemId)
        var versions = try store.itemVersions(item.meta.itemId)
        // An item never edited has its content as its one version, numbered with the item's id (`mkItemVersion`).
        if versions.isEmpty, let mc = item.msgContent {
            versions = [
                ChatItemVersion(
                    chatItemVersionId: item.meta.itemId, msgContent: mc, itemVersionTs: item.meta.itemTs,
                    createdAt: item.meta.createdAt)
            ]
        }
        return .chatItemInfo(
            user: user, chatItem: AChatItem(chatInfo: info, chatItem: item),
            chatItemInfo: ChatItemInfo(itemVersions: versions, forwardedFromChatItem: nil))
    }

    // MARK: Creating and changing

    /// `/_create *<noteFolderId> json <[ComposedMessage]>` or `text <text>`: notes, each with its file from the files
    /// folder. Mentions, reports and quotes have no place in notes and are refused before anything is stored.
    func createChatItems(_ a: ChatCommand.APICreateChatItems) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let messages = try ComposedMessage.list(a.messages)
        for m in messages {
            try assertAllowedContent(m.msgContent)
            guard m.mentions.isEmpty else { throw .error(.commandError("mentions are not supported in this chat")) }
        }
        if messages.contains(where: { $0.quotedItemId != nil }) {
            throw .error(.commandError("createNoteFolderContentItems: quotes not supported"))
        }
        let (_, chat) = try itemChat(.local(noteFolderId: a.noteFolderId), user)
        let ts = now
        let new = try messages.map { (m) throws(ChatError) in
            NewChatItem(
                sent: true, content: m.msgContent, status: .sndNew, forwarded: nil,
                file: try m.fileSource.map { (f) throws(ChatError) in try localFile(f) }, ts: ts)
        }
        return try storeItems(user, chat, new)
    }

    /// A report goes to a group's moderators with `/_report`, never through the commands that create or edit items.
    func assertAllowedContent(_ mc: MsgContent) throws(ChatError) {
        if case .report = mc { throw .error(.commandError("sending reports via this API is not supported")) }
    }

    /// A file an item references: it must exist (relative to the files folder) and not exceed the size limit. An
    /// encrypted file's size is its content's, without the authentication tag.
    func localFile(_ source: CryptoFile) throws(ChatError) -> NewItemFile {
        let path = fileSystemPath(source.filePath)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular, let size = attributes[.size] as? Int64
        else { throw .error(.fileNotFound(source.filePath)) }
        let contentSize = source.cryptoArgs == nil ? size : max(0, size - 16)
        guard contentSize <= Self.maxFileSize else { throw .error(.fileSize(filePath: source.filePath)) }
        let name = source.filePath.split(separator: "/").last.map(String.init) ?? source.filePath
        return NewItemFile(fileName: name, fileSize: contentSize, source: source)
    }

    /// Where a stored file path is: inside the files folder when one is set (the core's `toFSFilePath`).
    func fileSystemPath(_ path: String) -> String {
        guard let folder = filesFolder, !path.hasPrefix("/") else { return path }
        return folder.hasSuffix("/") ? folder + path : folder + "/" + path
    }

    /// `/_update item <chatRef> <chatItemId>[ live=on|off] json <UpdatedMessage>` or `text <text>`: only the user's
    /// own messages change; the same content is `chatItemNotChanged`. The first edit keeps the original as a version.
    func updateChatItem(_ a: ChatCommand.APIUpdateChatItem) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let updated = try UpdatedMessage(a.updatedMessage)
        try assertAllowedContent(updated.msgContent)
        let (info, chat) = try itemChat(a.chatRef, user)
        switch info {
        case .group(let group):
            try requireGroupRole(group, .author)
            try checkMentions(updated.mentions, user, group.groupId)
        default:
            guard updated.mentions.isEmpty else { throw .error(.commandError("mentions are not supported in this chat")) }
        }
        let item = try store.item(userId: user.userId, chat, id: a.chatItemId)
        // A group item is edited on the network by its shared id, and only while it is editable (not deleted).
        if case .group = chat, item.meta.itemSharedMsgId == nil || !item.meta.editable {
            throw .error(.invalidChatItemUpdate)
        }
        guard case .sndMsgContent(let old) = item.content else { throw .error(.invalidChatItemUpdate) }
        if old == updated.msgContent {
            return .chatItemNotChanged(user: user, chatItem: AChatItem(chatInfo: info, chatItem: item))
        }
        let ts = now
        let changed = try store.write { () throws(ChatError) in
            try store.updateItemContent(item, to: updated.msgContent, at: ts)
            return try store.item(userId: user.userId, chat, id: item.meta.itemId)
        }
        return .chatItemUpdated(user: user, chatItem: AChatItem(chatInfo: info, chatItem: changed))
    }

    /// `/_delete item <chatRef> <ids> <mode>`: a note is only on this device, so every mode removes it, with its file
    /// (the core ignores the mode for local chats). In a group, `internal` removes, `internalMark` marks deleted, and
    /// `broadcast` (the user's own deletable items only) removes when the group allows full deletion and marks deleted
    /// otherwise, as the members would see it. Ids not in the chat are reported in a `chatErrors` event and the others
    /// are deleted.
    func deleteChatItems(_ a: ChatCommand.APIDeleteChatItem) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let (info, chat) = try itemChat(a.chatRef, user)
        let items = try commandItems(user, chat, a.chatItemIds)
        var mark = false
        if case .group(let group) = info {
            switch a.deleteMode {
            case .internal: break
            case .internalMark: mark = true
            case .broadcast:
                guard items.allSatisfy({ $0.meta.deletable && $0.meta.itemSharedMsgId != nil }) else {
                    throw .error(.invalidChatItemDelete)
                }
                try requireGroupRole(group, .observer)
                mark = !featureOn(group, .fullDelete)
            case .history: throw .error(.commandError("not supported"))
            }
        }
        let ts = now
        let marked = try store.write { () throws(ChatError) in
            try items.map { (item) throws(ChatError) -> ChatItem? in
                guard mark else {
                    try store.deleteItem(item, chat)
                    return nil
                }
                try store.markItemDeleted(item.meta.itemId, at: ts)
                return try store.item(userId: user.userId, chat, id: item.meta.itemId)
            }
        }
        // A marked item keeps its file: it is still there to be revealed.
        if !mark { removeFiles(items.compactMap { $0.file?.fileSource?.filePath }) }
        return .chatItemsDeleted(
            user: user,
            chatItemDeletions: zip(items, marked).map {
                ChatItemDeletion(
                    deletedChatItem: AChatItem(chatInfo: info, chatItem: $0.0),
                    toChatItem: $0.1.map { AChatItem(chatInfo: info, chatItem: $0) })
            }, byUser: true, timed: false)
    }

    /// The items a command names, each once and in the order given; the missing ones go out as `chatErrors`.
    func commandItems(_ user: User, _ chat: ItemChat, _ ids: [Int64]) throws(ChatError) -> [ChatItem] {
        var seen: Set<Int64> = []
        var items: [ChatItem] = []
        var errors: [ChatError] = []
        for id in ids where seen.insert(id).inserted {
            do {
                items.append(try store.item(userId: user.userId, chat, id: id))
            } catch {
                guard case .errorStore(let e) = error, e.tag == .chatItemNotFound else { throw error }
                errors.append(error)
            }
        }
        if !errors.isEmpty { emit(.chatErrors(chatErrors: errors)) }
        return items
    }

    /// Removes deleted items' files from the files folder. Only there: with no files folder set, a path is the
    /// user's own file, which deleting a note must not touch. A file already gone is no error.
    func removeFiles(_ paths: [String]) {
        guard filesFolder != nil else { return }
        for path in paths { try? FileManager.default.removeItem(atPath: fileSystemPath(path)) }
    }

    /// `/_reaction <chatRef> …`: group items take reactions; notes do not (the core's "not supported").
    func chatItemReaction(_ a: ChatCommand.APIChatItemReaction) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        switch a.chatRef {
        case .group(let groupId, nil): return try groupItemReaction(a, user, groupId)
        case .direct(let contactId): throw .errorStore(.contactNotFound(contactId: contactId))
        default: throw .error(.commandError("not supported"))
        }
    }

    // MARK: Forwarding

    /// Whether a file can go along with its forwarded item: it must still be where the item says.
    private func fileExists(_ file: CIFile) -> Bool {
        guard let source = file.fileSource else { return false }
        return FileManager.default.fileExists(atPath: fileSystemPath(source.filePath))
    }

    /// `/_forward plan <chatRef> <ids>`: which items can be forwarded, and whether some would lose their files. An
    /// item whose file is gone still goes when what is left says something (the core's `hasContent`).
    func planForwardChatItems(_ a: ChatCommand.APIPlanForwardChatItems) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let (_, chat) = try itemChat(a.fromChatRef, user)
        var ids: [Int64] = []
        var missing: Int64 = 0
        for item in try commandItems(user, chat, a.chatItemIds) {
            guard item.meta.itemDeleted == nil else { continue }
            // An event item is no message: the core refuses the whole forward (`forwardMsgContent`).
            guard let mc = item.msgContent else { throw .error(.invalidForward) }
            guard let file = item.file, !fileExists(file) else {
                ids.append(item.meta.itemId)
                continue
            }
            missing += 1
            let hasContent =
                switch mc {
                case .video, .voice, .file: !mc.text.isEmpty
                default: true
                }
            if hasContent { ids.append(item.meta.itemId) }
        }
        return .forwardPlan(
            user: user, itemsCount: Int64(a.chatItemIds.count), chatItemIds: ids,
            forwardConfirmation: missing > 0 ? .filesMissing(filesCount: missing) : nil)
    }

    /// `/_forward <toChatRef> <fromChatRef> <ids>`: between note folders and local groups, either way. A forwarded
    /// file is copied into the files folder, so that deleting either item leaves the other's file; without its file an
    /// item goes as its text, or not at all. With nothing to forward the answer is an empty list, whatever the target.
    /// Into a group the group's preferences apply as to any message; the TTL is the group's timed messages, off here.
    func forwardChatItems(_ a: ChatCommand.APIForwardChatItems) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let (fromInfo, fromChat) = try itemChat(a.fromChatRef, user)
        var forwards: [(ChatItem, MsgContent, CryptoFile?)] = []
        for item in try commandItems(user, fromChat, a.chatItemIds) {
            guard item.meta.itemDeleted == nil else { continue }
            // An event item is no message: the core refuses the whole forward (`forwardMsgContent`).
            guard let mc = item.msgContent else { throw .error(.invalidForward) }
            guard let file = item.file else {
                forwards.append((item, mc, nil))
                continue
            }
            if fileExists(file), let source = file.fileSource {
                forwards.append((item, mc, source))
                continue
            }
            switch mc {
            case .image, .link: forwards.append((item, mc, nil))
            case _ where !mc.itemText.isEmpty: forwards.append((item, .text(mc.itemText), nil))
            default: break
            }
        }
        guard !forwards.isEmpty else { return .newChatItems(user: user, chatItems: []) }
        let (toInfo, toChat) = try itemChat(a.toChatRef, user)
        let ts = now
        var new: [(ComposedMessage, CIForwardedFrom?, NewItemFile?)] = []
        for (item, mc, source) in forwards {
            let file = try source.map { (f) throws(ChatError) in try localFile(copyForForward(f, mc)) }
            // An item forwarded before keeps where it first came from; a group item names its group, a note nothing.
            let from: CIForwardedFrom? =
                if let earlier = item.meta.itemForwarded, earlier != .unknown {
                    earlier
                } else if case .group(let g) = fromInfo {
                    .group(
                        chatName: g.groupProfile.displayName, msgDir: item.chatDir.sent ? "snd" : "rcv", groupId: g.groupId,
                        chatItemId: item.meta.itemId)
                } else { nil }
            var m = ComposedMessage(msgContent: mc)
            m.fileSource = file?.source
            new.append((m, from, file))
        }
        if case .group(let group) = toInfo {
            return try sendGroupItems(user, group, new.map { ($0.0, $0.1) }, live: false)
        }
        return try storeItems(
            user, toChat,
            new.map { NewChatItem(sent: true, content: $0.0.msgContent, status: .sndNew, forwarded: $0.1, file: $0.2, ts: ts) })
    }

    /// Copies a forwarded file into the files folder under a free name: media files are renamed as the apps name them
    /// (`IMG_`, `voice_`, `video_` and the time), others keep their name, with `_1`, `_2`, … before the extension
    /// when taken. Without a files folder the file is shared, as the core does.
    private func copyForForward(_ source: CryptoFile, _ mc: MsgContent) throws(ChatError) -> CryptoFile {
        guard filesFolder != nil else { return source }
        var name = source.filePath.split(separator: "/").last.map(String.init) ?? source.filePath
        let prefix: String? =
            switch mc {
            case .image: "IMG_"
            case .voice: "voice_"
            case .video: "video_"
            default: nil
            }
        if let prefix {
            name = prefix + now.compactDateTime + (name.lastIndex(of: ".").map { String(name[$0...]) } ?? "")
        }
        // The suffix goes before all extensions: `a.tar.gz` becomes `a_1.tar.gz`.
        let (newBase, newExt) =
            if let dot = name.firstIndex(of: "."), dot != name.startIndex {
                (String(name[..<dot]), String(name[dot...]))
            } else { (name, "") }
        for n in 0...10_000 {
            let candidate = n == 0 ? name : newBase + "_\(n)" + newExt
            guard !FileManager.default.fileExists(atPath: fileSystemPath(candidate)) else { continue }
            do {
                try FileManager.default.copyItem(atPath: fileSystemPath(source.filePath), toPath: fileSystemPath(candidate))
            } catch {
                throw .error(.fileNotFound(source.filePath))
            }
            return CryptoFile(filePath: candidate, cryptoArgs: source.cryptoArgs)
        }
        throw .error(.internalError("no free file name for \(name)"))
    }

    // MARK: Read state and clearing

    /// `/_read chat <chatRef>`: every unread item becomes read.
    func chatRead(_ a: ChatCommand.APIChatRead) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let (_, chat) = try itemChat(a.chatRef, user)
        let ts = now
        try store.write { () throws(ChatError) in try store.markItemsRead(userId: user.userId, chat, at: ts) }
        return .cmdOk(user: user)
    }

    /// `/_read user <userId>`: every chat of the user becomes read — its unread items and its own unread mark
    /// (`setUserChatsRead`).
    func userRead(_ a: ChatCommand.APIUserRead) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser(a.userId)
        let ts = now
        try store.write { () throws(ChatError) in try store.markUserChatsRead(userId: user.userId, at: ts) }
        return .cmdOk(user: user)
    }

    /// `/_read chat items <chatRef> <ids>`: the named unread items of a group become read (a local group's items are
    /// all the user's own, so none is unread); not for notes (the core's "not supported").
    func chatItemsRead(_ a: ChatCommand.APIChatItemsRead) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        switch a.chatRef {
        case .group(_, nil):
            let (info, chat) = try itemChat(a.chatRef, user)
            let ts = now
            try store.write { () throws(ChatError) in
                try store.markItemsRead(userId: user.userId, chat, ids: a.chatItemIds, at: ts)
            }
            return .itemsReadForChat(user: user, chatInfo: info)
        case .direct(let contactId): throw .errorStore(.contactNotFound(contactId: contactId))
        default: throw .error(.commandError("not supported"))
        }
    }

    /// `/_unread chat <chatRef> on|off`: the chat's own unread mark.
    func chatUnread(_ a: ChatCommand.APIChatUnread) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        if case .group(_, .some) = a.chatRef { throw .error(.commandError("not supported")) }
        let (_, chat) = try itemChat(a.chatRef, user)
        let ts = now
        try store.write { () throws(ChatError) in
            switch chat {
            case .local(let id): try store.setNoteFolderUnread(id, a.unreadChat, at: ts)
            case .group(let id): try groupStore.setUnreadChat(a.unreadChat, groupId: id, at: ts)
            }
        }
        return .cmdOk(user: user)
    }

    /// `/_clear chat <chatRef>`: every item goes, with its file; the chat stays.
    func clearChat(_ a: ChatCommand.APIClearChat) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        if case .group(_, .some) = a.chatRef { throw .error(.commandError("not supported")) }
        let (info, chat) = try itemChat(a.chatRef, user)
        let paths = try store.write { () throws(ChatError) in
            let paths = try store.filePaths(userId: user.userId, chat)
            try store.deleteItems(userId: user.userId, chat)
            return paths
        }
        removeFiles(paths)
        return .chatCleared(user: user, chatInfo: info)
    }

}

extension ChatItem {
    /// Where the item sits in its chat's order.
    var position: ItemPosition { ItemPosition(ts: meta.itemTs.nanosecondsSinceEpoch, id: meta.itemId) }
}
