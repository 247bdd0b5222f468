public import SimplexCrypto

/// Serial access to the chat store from concurrent code: every call runs on this actor, one at a time.
public actor ChatStoreActor {
    let databases: ChatDatabases

    public init(_ databases: ChatDatabases) { self.databases = databases }

    /// Opens the store, sealed with `key` when given (docs/storage-encryption.md).
    public init(prefix: String, key: DatabaseKey? = nil, confirmation: MigrationConfirmation) throws(ChatDatabases.OpenError) {
        databases = try ChatDatabases(prefix: prefix, key: key, confirmation: confirmation)
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
