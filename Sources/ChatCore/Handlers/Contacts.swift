// Contacts and connections, chat-api.md §4.4 (and `/_set custom @`, `/_set contact user @` of §4.19–4.20). Listing
// contacts and their aliases are served from the store (ContactRepository); the commands that need the network to
// make or change a contact answer what the official core answers when the id is not in its store, after the same
// preconditions, until the agent serves them.
internal import ChatModel

extension ChatController {
    var contactStore: ContactRepository { ContactRepository(db: databases.chat) }

    /// `/_contacts <userId>`: needs a started chat; the user's contacts that are not deleted, oldest first.
    func listContacts(_ a: ChatCommand.APIListContacts) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser(a.userId)
        return .contactsList(user: user, contacts: try contactStore.contacts(userId: user.userId))
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

    /// `/_set alias @<contactId>[ <alias>]`: the alias of the contact's local profile.
    func setContactAlias(_ a: ChatCommand.APISetContactAlias) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let contact = try contactStore.setContactAlias(userId: user.userId, contactId: a.contactId, a.localAlias, at: now)
        return .contactAliasUpdated(user: user, toContact: contact)
    }

    /// `/_info @<contactId>`.
    func contactInfo(_ a: ChatCommand.APIContactInfo) throws(ChatError) -> ChatResponse {
        try noContact(a.contactId)
    }

    /// `/_set custom @<contactId>[ <json(object)>]`: the JSON must be an object, as for groups.
    func setContactCustomData(_ a: ChatCommand.APISetContactCustomData) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let data = try a.customData.map { (d) throws(ChatError) in try JSONInput(parsing: d).object().value }
        _ = try contactStore.setCustomData(userId: user.userId, contactId: a.contactId, data, at: now)
        return .cmdOk(user: user)
    }

    /// `/_set contact user @<contactId> <newUserId>`: a prepared contact would be found first, and there is none.
    func changePreparedContactUser(_ a: ChatCommand.APIChangePreparedContactUser) throws(ChatError) -> ChatResponse {
        try noContact(a.contactId)
    }

    /// `/_set alias :<connId>[ <alias>]`.
    func setConnectionAlias(_ a: ChatCommand.APISetConnectionAlias) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let pcc = try contactStore.setPendingConnectionAlias(userId: user.userId, connId: a.connId, a.localAlias, at: now)
        return .connectionAliasUpdated(user: user, toConnection: pcc)
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
