public import ChatStore

extension ChatEngine {
    /// Closes both databases (`chat_close_store`, chat-api.md §9.2; clients send `/_stop` first). Until `reopenStore`,
    /// commands that read or write the store answer with the store's `dBException` "database is closed".
    public func closeStore() {
        controller.databases.close()
    }

    /// Opens both databases again at the same paths, migrating files that were replaced meanwhile
    /// (`chat_reopen_store`). The active user is read again; a store replaced by `/_db import` stays marked as
    /// changed, so `/_start` still needs a new engine.
    public func reopenStore() throws(ChatDatabases.OpenError) {
        try controller.databases.reopen()
        controller.currentUser = try? controller.store.activeUser()
    }
}
