public import SimplexCrypto
internal import SimplexEncoding

/// A known host, as a controller keeps it (xrcp.md §2.1, the `remote_hosts` table).
public struct RemoteHostRecord: Sendable {
    public let id: Int64
    /// The host's `deviceName` from its last HELLO.
    public var hostDeviceName: String
    /// The random name of the host's cache folder: `b64u(12 random bytes)`, 16 characters.
    public let storePath: String
    /// The controller's own CA for this host.
    public var authority: CertificateAuthority
    /// The controller's long-term identity key for this host.
    public var identityKey: Ed25519.PrivateKey
    /// The host's CA fingerprint, which its TLS chain must carry in later sessions.
    public var hostFingerprint: CertificateFingerprint
    /// The X25519 key of the host's last HELLO: multicast announcements are encrypted to it (§6.2).
    public var hostDHKey: X25519.PublicKey
    /// The user's preferred address, interface and port (`/start remote host … addr= iface= port=`).
    public var binding: RemoteHostBinding
}

/// Where the controller listens for a host, as the user asked (xrcp.md §15.1); every part is optional.
public struct RemoteHostBinding: Equatable, Sendable {
    public var address: String?
    public var interface: String?
    public var port: UInt16?

    public init(address: String? = nil, interface: String? = nil, port: UInt16? = nil) {
        self.address = address
        self.interface = interface
        self.port = port
    }
}

/// The `remote_hosts` table. Every method is one statement or one transaction.
public struct RemoteHostStore {
    let db: SQLiteDatabase

    public init(_ db: SQLiteDatabase) { self.db = db }

    private static let columns =
        "remote_host_id, host_device_name, store_path, ca_key, ca_cert, id_key, host_fingerprint, host_dh_pub, bind_addr, bind_iface, bind_port"

    /// A new cache folder name: base64url of 12 random bytes (16 characters, no padding).
    public static func newStorePath() -> String { Base64.encode(SecureRandom.bytes(12)) }

    /// Records the first accepted HELLO of a new host (xrcp.md §7.4, §18.4 step 5).
    public func insert(
        hostDeviceName: String, storePath: String = RemoteHostStore.newStorePath(), authority: CertificateAuthority,
        identityKey: Ed25519.PrivateKey, hostFingerprint: CertificateFingerprint, hostDHKey: X25519.PublicKey,
        binding: RemoteHostBinding = RemoteHostBinding()
    ) throws(PairingStoreError) -> RemoteHostRecord {
        do {
            try db.run(
                "INSERT INTO remote_hosts (host_device_name, store_path, ca_key, ca_cert, id_key, host_fingerprint, host_dh_pub, bind_addr, bind_iface, bind_port) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(hostDeviceName), .text(storePath), .blob(authority.key.pkcs8),
                    .blob(authority.certificate.derRepresentation), .blob(identityKey.pkcs8),
                    .blob(Self.fingerprintText(hostFingerprint)), .blob(hostDHKey.spki),
                ] + Self.values(binding))
        } catch { throw .sql(error) }
        return RemoteHostRecord(
            id: db.lastInsertRowID, hostDeviceName: hostDeviceName, storePath: storePath, authority: authority,
            identityKey: identityKey, hostFingerprint: hostFingerprint, hostDHKey: hostDHKey, binding: binding)
    }

    /// After a later accepted HELLO: the host's new name and DH key, and the binding the session was started with.
    public func recordSession(
        id: Int64, hostDeviceName: String, hostDHKey: X25519.PublicKey, binding: RemoteHostBinding
    ) throws(PairingStoreError) {
        let changed: Int
        do {
            changed = try db.run(
                "UPDATE remote_hosts SET host_device_name = ?, host_dh_pub = ?, bind_addr = ?, bind_iface = ?, bind_port = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE remote_host_id = ?",
                [.text(hostDeviceName), .blob(hostDHKey.spki)] + Self.values(binding) + [.integer(id)])
        } catch { throw .sql(error) }
        guard changed == 1 else { throw .notFound(id) }
    }

    /// All known hosts in table order.
    public func all() throws(PairingStoreError) -> [RemoteHostRecord] {
        try fetch("SELECT \(Self.columns) FROM remote_hosts ORDER BY remote_host_id", [])
    }

    public func find(id: Int64) throws(PairingStoreError) -> RemoteHostRecord? {
        try fetch("SELECT \(Self.columns) FROM remote_hosts WHERE remote_host_id = ?", [.integer(id)]).first
    }

    public func find(fingerprint: CertificateFingerprint) throws(PairingStoreError) -> RemoteHostRecord? {
        try fetch(
            "SELECT \(Self.columns) FROM remote_hosts WHERE host_fingerprint = ?", [.blob(Self.fingerprintText(fingerprint))]
        ).first
    }

    public func delete(id: Int64) throws(PairingStoreError) {
        let changed: Int
        do { changed = try db.run("DELETE FROM remote_hosts WHERE remote_host_id = ?", [.integer(id)]) } catch {
            throw .sql(error)
        }
        guard changed == 1 else { throw .notFound(id) }
    }

    /// Fingerprints are stored as base64url text in a BLOB, as the reference stores them (xrcp.md §20.30).
    static func fingerprintText(_ f: CertificateFingerprint) -> [UInt8] { Array(Base64.encode(f.rawRepresentation).utf8) }

    private static func values(_ b: RemoteHostBinding) -> [SQLValue] {
        [
            b.address.map { .text($0) } ?? .null, b.interface.map { .text($0) } ?? .null,
            b.port.map { .integer(Int64($0)) } ?? .null,
        ]
    }

    private func fetch(_ sql: String, _ values: [SQLValue]) throws(PairingStoreError) -> [RemoteHostRecord] {
        let rows: [[SQLValue]]
        do { rows = try db.query(sql, values) } catch { throw .sql(error) }
        var out: [RemoteHostRecord] = []
        for row in rows { out.append(try Self.record(row)) }
        return out
    }

    private static func record(_ row: [SQLValue]) throws(PairingStoreError) -> RemoteHostRecord {
        guard row.count == 11, let id = row[0].integer, let name = row[1].text, let storePath = row[2].text,
            let caKey = row[3].blob, let caCert = row[4].blob, let idKey = row[5].blob, let fpText = row[6].blob,
            let dhPub = row[7].blob
        else { throw .corrupt("remote_hosts row") }
        var port: UInt16?
        if case .integer(let n) = row[10] {
            guard let p = UInt16(exactly: n) else { throw .corrupt("remote host \(id): bind_port \(n)") }
            port = p
        }
        do {
            let fingerprint = try CertificateFingerprint(
                rawRepresentation: Base64.decode(String(decoding: fpText, as: UTF8.self)))
            return RemoteHostRecord(
                id: id, hostDeviceName: name, storePath: storePath,
                authority: CertificateAuthority(
                    key: try Ed25519.PrivateKey(pkcs8: caKey), certificate: try Certificate(der: caCert)),
                identityKey: try Ed25519.PrivateKey(pkcs8: idKey), hostFingerprint: fingerprint,
                hostDHKey: try X25519.PublicKey(spki: dhPub),
                binding: RemoteHostBinding(address: row[8].text, interface: row[9].text, port: port))
        } catch {
            throw .corrupt("remote host \(id): \(error)")
        }
    }
}

extension ChatStoreActor {
    /// Runs `body` with the known-host table (the controller role's pairings).
    public func remoteHosts<T: Sendable>(_ body: (RemoteHostStore) throws(PairingStoreError) -> T) throws(PairingStoreError) -> T
    {
        try body(RemoteHostStore(databases.chat))
    }

    /// Records a session's pairing after the host's HELLO was accepted (xrcp.md §18.4 step 5): a first session
    /// inserts, a later one updates the name, DH key and binding. One transaction.
    public func recordHostSession(
        existing: Int64?, hostDeviceName: String, authority: CertificateAuthority, identityKey: Ed25519.PrivateKey,
        hostFingerprint: CertificateFingerprint, hostDHKey: X25519.PublicKey, binding: RemoteHostBinding
    ) throws(PairingStoreError) -> RemoteHostRecord {
        try remoteHosts { (store) throws(PairingStoreError) -> RemoteHostRecord in
            do throws(TransactionError<PairingStoreError>) {
                return try store.db.transaction { () throws(PairingStoreError) -> RemoteHostRecord in
                    guard let existing else {
                        return try store.insert(
                            hostDeviceName: hostDeviceName, authority: authority, identityKey: identityKey,
                            hostFingerprint: hostFingerprint, hostDHKey: hostDHKey, binding: binding)
                    }
                    try store.recordSession(id: existing, hostDeviceName: hostDeviceName, hostDHKey: hostDHKey, binding: binding)
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
}
