/// An asynchronous event (chat-api.md §6): the value of `result` in an item read with `chat_recv_msg_wait`. The cases
/// are the events the embedded core produces so far.
public enum ChatEvent: Hashable, Sendable {
    /// The agent finished suspending after `/_app suspend` (§6.6).
    case chatSuspended
    /// A user's agent-side records are gone after `/_delete user` (§6.6).
    case agentUserDeleted(agentUserId: Int64)
    /// Items a batch command could not act on, the others being done (§6.2).
    case chatErrors(chatErrors: [ChatError])
    /// Items the core created on its own while a command ran, such as a group's event items (§6.2).
    case newChatItems(user: User, chatItems: [AChatItem])

    public var type: String {
        switch self {
        case .chatSuspended: "chatSuspended"
        case .agentUserDeleted: "agentUserDeleted"
        case .chatErrors: "chatErrors"
        case .newChatItems: "newChatItems"
        }
    }

    public var json: JSONValue {
        switch self {
        case .chatSuspended: .tagged(type)
        case .agentUserDeleted(let id): .tagged(type, ["agentUserId": .integer(id)])
        case .chatErrors(let errors): .tagged(type, ["chatErrors": .array(errors.map(\.json))])
        case .newChatItems(let user, let items): .tagged(type, ["user": user.json, "chatItems": .list(items)])
        }
    }
}
