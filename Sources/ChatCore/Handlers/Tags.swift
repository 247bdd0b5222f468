// Chat tags, chat-api.md §4.6. Tags mark contacts and groups; the embedded core has no contacts, so only groups.
internal import ChatModel

extension ChatController {
    /// `/_get tags <userId>`: works before `/_start`.
    func getChatTags(_ a: ChatCommand.APIGetChatTags) throws(ChatError) -> ChatResponse {
        let user = try requireUser(a.userId)
        return .chatTags(user: user, userTags: try groupStore.chatTags(userId: user.userId))
    }

    /// `/_create tag <json(ChatTagData)>`: the new tag goes last; the answer lists all the user's tags.
    func createChatTag(_ a: ChatCommand.APICreateChatTag) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let data = try ChatTagData(JSONInput(parsing: a.tagData))
        let tags = try store.write { () throws(ChatError) in
            try groupStore.createChatTag(data, userId: user.userId)
            return try groupStore.chatTags(userId: user.userId)
        }
        return .chatTags(user: user, userTags: tags)
    }

    /// `/_tags <chatRef>[ <tagIds>]`: replaces the chat's tags (none without ids). Every id must be one of the user's
    /// tags.
    func setChatTags(_ a: ChatCommand.APISetChatTags) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        switch a.chatRef {
        case .group(let groupId, nil):
            let info = try groupStore.requireGroupInfo(userId: user.userId, groupId: groupId)
            let ids = a.tagIds ?? []
            let known = Set(try groupStore.chatTags(userId: user.userId).map(\.chatTagId))
            if let unknown = ids.first(where: { !known.contains($0) }) {
                throw .error(.commandError("chat tag not found: \(unknown)"))
            }
            let (userTags, chatTags) = try store.write { () throws(ChatError) in
                try groupStore.setGroupChatTags(ids, groupId: info.groupId)
                return (try groupStore.chatTags(userId: user.userId), try groupStore.groupChatTags(info.groupId))
            }
            return .tagsUpdated(user: user, userTags: userTags, chatTags: chatTags)
        case .direct(let contactId): throw .errorStore(.contactNotFound(contactId: contactId))
        case .group, .local, .contactConnection: throw .error(.commandError("not supported"))
        }
    }

    /// `/_delete tag <tagId>`: the tag leaves every chat it marked; an id that is not the user's changes nothing.
    func deleteChatTag(_ a: ChatCommand.APIDeleteChatTag) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        try store.write { () throws(ChatError) in try groupStore.deleteChatTag(a.tagId, userId: user.userId) }
        return .cmdOk(user: user)
    }

    /// `/_update tag <tagId> <json(ChatTagData)>`: an id that is not the user's changes nothing.
    func updateChatTag(_ a: ChatCommand.APIUpdateChatTag) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let data = try ChatTagData(JSONInput(parsing: a.tagData))
        try store.write { () throws(ChatError) in try groupStore.updateChatTag(a.tagId, data, userId: user.userId) }
        return .cmdOk(user: user)
    }

    /// `/_reorder tags <tagIds>`: the listed tags take the list's order.
    func reorderChatTags(_ a: ChatCommand.APIReorderChatTags) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        try store.write { () throws(ChatError) in try groupStore.reorderChatTags(a.tagIds, userId: user.userId) }
        return .cmdOk(user: user)
    }
}
