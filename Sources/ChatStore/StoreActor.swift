public import SimplexCrypto

/// Serial access to the chat store from concurrent code: every call runs on this actor, one at a time.
public actor ChatStoreActor {
    let databases: ChatDatabases

    public init(_ databases: ChatDatabases) { self.databases = databases }

    /// Opens the store, sealed with `key` when given (docs/storage-encryption.md).
    public init(prefix: String, key: DatabaseKey? = nil, confirmation: MigrationConfirmation) throws(ChatDatabases.OpenError) {
        databases = try ChatDatabases(prefix: prefix, key: key, confirmation: confirmation)
    }

    /// The key the files are open with; nil for plaintext.
    public var key: DatabaseKey? { databases.key }

    /// Closes both connections, for a command that replaces or re-keys the files through another connection; until
    /// `reopen`, calls fail with "database is closed".
    public func close() { databases.close() }

    /// Opens both files again, each under the first of `keys` that opens it (nil: the key it had), migrating files
    /// that were replaced meanwhile.
    public func reopen(keys: [DatabaseKey?]? = nil) throws(ChatDatabases.OpenError) {
        try databases.reopen(keys: keys)
    }

    /// The first half of a key change that follows another store's (`ChatDatabases.stageKeyChange`); the store must
    /// be closed.
    public func stageKeyChange(current: DatabaseKey?, new: DatabaseKey?) throws(ChatDatabases.KeyError) {
        try ChatDatabases.stageKeyChange(prefix: databases.prefix, current: current, new: new)
    }

    /// The second half, after the other store's change was made: switches the files, then opens them under `new`.
    public func commitStagedKeyChange(new: DatabaseKey?) throws(ChatDatabases.KeyError) {
        try ChatDatabases.commitStagedKeyChange(prefix: databases.prefix)
        do { try databases.reopen(keys: [new]) } catch {
            throw .errorOpen(SQLiteError(code: 1, message: "the re-keyed files did not open: \(error)"))
        }
    }

    /// Drops what `stageKeyChange` wrote, when the other store's change was not made.
    public func discardStagedKeyChange() { ChatDatabases.discardStagedKeyChange(prefix: databases.prefix) }

    /// `/_db encryption` for files of this store's own: see `ChatDatabases.changeKey(current:new:)`.
    public func changeKey(current: DatabaseKey?, new: DatabaseKey?) throws(ChatDatabases.KeyError) {
        try databases.changeKey(current: current, new: new)
    }

    /// Runs `body` with the known-controller table.
    public func remoteControllers<T: Sendable>(_ body: (RemoteControllerStore) throws(PairingStoreError) -> T)
        throws(PairingStoreError) -> T
    {
        try body(RemoteControllerStore(databases.chat))
    }

    /// Records a session's pairing atomically: a first session inserts, a later one rotates the DH keys.
    public func recordControllerSession(
        existing: Int64?, deviceName: String, authority: CertificateAuthority, fingerprint: CertificateFingerprint,
        identityKey: Ed25519.PublicKey, dhKey: X25519.PrivateKey
    ) throws(PairingStoreError) -> RemoteControllerRecord {
        let store = RemoteControllerStore(databases.chat)
        do throws(TransactionError<PairingStoreError>) {
            return try databases.chat.transaction { () throws(PairingStoreError) -> RemoteControllerRecord in
                guard let existing else {
                    return try store.insert(
                        deviceName: deviceName, authority: authority, controllerFingerprint: fingerprint,
                        identityKey: identityKey,
                        dhKey: dhKey)
                }
                try store.recordSession(id: existing, deviceName: deviceName, dhKey: dhKey)
                guard let record = try store.find(id: existing) else { throw .notFound(existing) }
                return record
            }
        } catch {
            switch error {
            case .sqlite(let e): throw .sql(e)
            case .body(let e): throw e
            }
        }
    }
}
