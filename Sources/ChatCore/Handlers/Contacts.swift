// Contacts and connections, chat-api.md §4.4 (and `/_set custom @`, `/_set contact user @` of §4.19–4.20). The
// embedded core has no network, so no contacts, contact requests or pending connections: every command on one answers
// what the official core answers when the id is not in its store, after the same preconditions.
internal import ChatModel

extension ChatController {
    /// `/_contacts <userId>`: needs a started chat.
    func listContacts(_ a: ChatCommand.APIListContacts) throws(ChatError) -> ChatResponse {
        .contactsList(user: try requireStartedUser(a.userId), contacts: [])
    }

    /// `/_reject <contactReqId>`: the request is looked up before anything is deleted (`getContactRequest`).
    func rejectContact(_ a: ChatCommand.APIRejectContact) throws(ChatError) -> ChatResponse {
        _ = try requireStartedUser()
        throw .errorStore(.contactRequestNotFound(contactRequestId: a.contactReqId))
    }

    /// `/_set prefs @<contactId> <json(Preferences)>`: the preferences are read as the core's parser reads them.
    func setContactPrefs(_ a: ChatCommand.APISetContactPrefs) throws(ChatError) -> ChatResponse {
        _ = try Preferences(JSONInput(parsing: a.preferences))
        return try noContact(a.contactId)
    }

    /// `/_set alias @<contactId>[ <alias>]`.
    func setContactAlias(_ a: ChatCommand.APISetContactAlias) throws(ChatError) -> ChatResponse {
        try noContact(a.contactId)
    }

    /// `/_info @<contactId>`.
    func contactInfo(_ a: ChatCommand.APIContactInfo) throws(ChatError) -> ChatResponse {
        try noContact(a.contactId)
    }

    /// `/_set custom @<contactId>[ <json(object)>]`: the JSON must be an object, as for groups.
    func setContactCustomData(_ a: ChatCommand.APISetContactCustomData) throws(ChatError) -> ChatResponse {
        _ = try requireStartedUser()
        if let data = a.customData { _ = try JSONInput(parsing: data).object() }
        return try noContact(a.contactId)
    }

    /// `/_set contact user @<contactId> <newUserId>`: a prepared contact would be found first, and there is none.
    func changePreparedContactUser(_ a: ChatCommand.APIChangePreparedContactUser) throws(ChatError) -> ChatResponse {
        try noContact(a.contactId)
    }

    /// `/_set alias :<connId>[ <alias>]`: pending connections are made over the network.
    func setConnectionAlias(_ a: ChatCommand.APISetConnectionAlias) throws(ChatError) -> ChatResponse {
        _ = try requireStartedUser()
        throw .errorStore(.pendingConnectionNotFound(connId: a.connId))
    }

    /// `/_set incognito :<connId> on|off`.
    func setConnectionIncognito(_ a: ChatCommand.APISetConnectionIncognito) throws(ChatError) -> ChatResponse {
        _ = try requireStartedUser()
        throw .errorStore(.pendingConnectionNotFound(connId: a.connId))
    }

    /// A command on a contact, after the started-chat precondition (`withUser`, then `getContact`): there are none.
    func noContact(_ contactId: Int64) throws(ChatError) -> ChatResponse {
        _ = try requireStartedUser()
        throw .errorStore(.contactNotFound(contactId: contactId))
    }
}
