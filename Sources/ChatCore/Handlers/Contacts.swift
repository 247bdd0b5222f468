// Contacts and connections, chat-api.md §4.4. The embedded core has no network, so no contacts yet.
internal import ChatModel

extension ChatController {
    /// `/_contacts <userId>`: needs a started chat.
    func listContacts(_ a: ChatCommand.APIListContacts) throws(ChatError) -> ChatResponse {
        .contactsList(user: try requireStartedUser(a.userId), contacts: [])
    }
}
