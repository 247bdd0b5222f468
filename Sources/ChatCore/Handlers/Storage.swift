// Database and storage, chat-api.md §4.11: the store's key, archives and deleting the store. All but `/db test key`
// need the chat stopped (`checkChatStopped`); a key change, import and delete mark the store changed, so `/_start`
// answers `chatStoreChanged` until the core is started afresh on the new files (a new engine, or
// `chat_reopen_store`'s caller restarting), as the official core's `withStoreChanged` has it.
internal import ChatModel
internal import ChatStore

extension ChatController {
    /// `/_db encryption <json(DBEncryptionConfig)>` (and `/db encrypt`, `/db key`, `/db decrypt`): `cmdOk` once both
    /// files are under the new key. The connections are released for the change and opened again under the key the
    /// files have then, so a refused or failed change leaves the store as it was, open with its old key. Equal keys
    /// change nothing, as in the official core.
    func storageEncryption(_ a: ChatCommand.APIStorageEncryption) throws(ChatError) -> ChatResponse {
        try requireStopped()
        let config = try DBEncryptionConfig(a.config)
        if config.currentKey != config.newKey {
            do {
                try databases.changeKey(current: databaseKey(config.currentKey), new: databaseKey(config.newKey))
            } catch {
                throw .errorDatabase(DatabaseError(error))
            }
        }
        storeChanged = true
        return .cmdOk(user: nil)
    }

    /// `/db test key <key>`: `cmdOk` when the key opens both files as they are now, running or not (a second
    /// connection, nothing written).
    func testStorageEncryption(_ a: ChatCommand.TestStorageEncryption) throws(ChatError) -> ChatResponse {
        do { try ChatDatabases.testKey(prefix: databases.prefix, key: databaseKey(a.key)) } catch {
            throw .errorDatabase(DatabaseError(error))
        }
        return .cmdOk(user: nil)
    }

    /// The key of a passphrase, with the Argon2id cost new files get; nil for "" (no encryption).
    private func databaseKey(_ passphrase: String) -> DatabaseKey? {
        DatabaseKey(passphrase, cost: configuration.databaseKeyCost)
    }

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
