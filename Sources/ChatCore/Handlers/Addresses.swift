// Address management, chat-api.md §4.16 (and `/_share address` of §4.19). Creating an address needs the network; a
// user has none yet, so every command on it answers the store's `userContactLinkNotFound`, as the core does for a user
// without an address.
internal import ChatModel

extension ChatController {
    /// `/_show_address <userId>`: the store's `userContactLinkNotFound` while the user has no address.
    func showMyAddress(_ a: ChatCommand.APIShowMyAddress) throws(ChatError) -> ChatResponse {
        _ = try requireUser(a.userId)
        throw .errorStore(.userContactLinkNotFound)
    }

    /// `/_delete_address <userId>`: the address's connection is looked up first (`getUserAddressConnection`).
    func deleteMyAddress(_ a: ChatCommand.APIDeleteMyAddress) throws(ChatError) -> ChatResponse {
        _ = try requireStartedUser(a.userId)
        throw .errorStore(.userContactLinkNotFound)
    }

    /// `/_share address <sendRef>`: the card is built from the user's address, read before the chat it goes to.
    func shareMyAddress(_ a: ChatCommand.APIShareMyAddress) throws(ChatError) -> ChatResponse {
        _ = try requireStartedUser()
        throw .errorStore(.userContactLinkNotFound)
    }
}
