// Database and storage, chat-api.md §4.11 (archives and deleting the store; encryption is elsewhere). Each needs the
// chat stopped (`checkChatStopped`); import and delete close the databases and mark the store changed, so `/_start`
// answers `chatStoreChanged` until the core is started afresh on the new files (a new engine, or
// `chat_reopen_store`'s caller restarting).
internal import ChatModel

extension ChatController {
    /// `/_db export <json(ArchiveConfig)>`: `archiveExported` with the files that could not be added.
    func exportArchive(_ a: ChatCommand.APIExportArchive) throws(ChatError) -> ChatResponse {
        try requireStopped()
        let config = try ArchiveConfig(a.config)
        return .archiveExported(archiveErrors: try storageArchive.export(config))
    }

    /// `/_db import <json(ArchiveConfig)>`: `archiveImported` with the files that could not be put in place.
    func importArchive(_ a: ChatCommand.APIImportArchive) throws(ChatError) -> ChatResponse {
        try requireStopped()
        let config = try ArchiveConfig(a.config)
        let errors = try storageArchive.importArchive(config)
        storeChanged = true
        return .archiveImported(archiveErrors: errors)
    }

    /// `/_db delete`: `cmdOk`; the store is changed as after an import (the official core's `withStoreChanged`).
    func deleteStorage() throws(ChatError) -> ChatResponse {
        try requireStopped()
        try StorageArchive.deleteStorage(databases, folders: [filesFolder, assetsFolder, tempFolder].compactMap { $0 })
        storeChanged = true
        return .cmdOk(user: nil)
    }

    /// The chat is stopped (`checkChatStopped`).
    func requireStopped() throws(ChatError) {
        if running { throw .error(.chatNotStopped) }
    }

    private var storageArchive: StorageArchive { StorageArchive(databases: databases, files: filesFolder, assets: assetsFolder) }
}
