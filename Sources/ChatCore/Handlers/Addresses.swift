// Address management, chat-api.md §4.16. Creating an address needs the network; a user has none yet.
internal import ChatModel

extension ChatController {
    /// `/_show_address <userId>`: the store's `userContactLinkNotFound` while the user has no address.
    func showMyAddress(_ a: ChatCommand.APIShowMyAddress) throws(ChatError) -> ChatResponse {
        _ = try requireUser(a.userId)
        throw .errorStore(.userContactLinkNotFound)
    }
}
