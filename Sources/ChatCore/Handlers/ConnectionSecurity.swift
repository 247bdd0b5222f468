// Connection security, chat-api.md §4.17 (security codes), and `/_enable` of §4.20 (resetting a connection's
// authentication errors). Codes and errors belong to a connection with a peer. There are no contacts here, and the only
// member of a local group is the user, whose membership has no connection: the core's `groupMemberNotActive`.
internal import ChatModel

extension ChatController {
    /// `/_get code @<contactId>`.
    func getContactCode(_ a: ChatCommand.APIGetContactCode) throws(ChatError) -> ChatResponse {
        try noContact(a.contactId)
    }

    /// `/_verify code @<contactId>[ <code>]`.
    func verifyContact(_ a: ChatCommand.APIVerifyContact) throws(ChatError) -> ChatResponse {
        try noContact(a.contactId)
    }

    /// `/_enable @<contactId>`.
    func enableContact(_ a: ChatCommand.APIEnableContact) throws(ChatError) -> ChatResponse {
        try noContact(a.contactId)
    }

    /// `/_get code #<groupId> <groupMemberId>`: the group is read before the member, as the core reads both.
    func getGroupMemberCode(_ a: ChatCommand.APIGetGroupMemberCode) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        _ = try groupStore.requireGroupInfo(userId: user.userId, groupId: a.groupId)
        _ = try requireMember(user, a.groupId, a.groupMemberId)
        throw .error(.groupMemberNotActive)
    }

    /// `/_verify code #<groupId> <groupMemberId>[ <code>]`: only the member is read.
    func verifyGroupMember(_ a: ChatCommand.APIVerifyGroupMember) throws(ChatError) -> ChatResponse {
        try memberWithoutConnection(a.groupId, a.groupMemberId)
    }

    /// `/_enable #<groupId> <groupMemberId>`: only the member is read.
    func enableGroupMember(_ a: ChatCommand.APIEnableGroupMember) throws(ChatError) -> ChatResponse {
        try memberWithoutConnection(a.groupId, a.groupMemberId)
    }

    /// A member found in the group has no connection: the user's own membership is the only member there is.
    private func memberWithoutConnection(_ groupId: Int64, _ groupMemberId: Int64) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        _ = try requireMember(user, groupId, groupMemberId)
        throw .error(.groupMemberNotActive)
    }
}
