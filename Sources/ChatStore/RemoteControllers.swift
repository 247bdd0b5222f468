public import SimplexCrypto
internal import SimplexEncoding

/// A known controller, as a host keeps it (xrcp.md §2.2).
public struct RemoteControllerRecord: Sendable {
    public let id: Int64
    public var deviceName: String
    /// The host's own CA for this controller.
    public var authority: CertificateAuthority
    /// The controller's CA fingerprint, which its invitations and TLS chain must carry.
    public var controllerFingerprint: CertificateFingerprint
    /// The controller's long-term identity key.
    public var identityKey: Ed25519.PublicKey
    /// The DH key of the host's last successful HELLO, and the one before it.
    public var dhKey: X25519.PrivateKey
    public var previousDHKey: X25519.PrivateKey?
}

/// Why a stored pairing could not be read or written.
public enum PairingStoreError: Error, Equatable, Sendable {
    case sql(SQLiteError)
    /// A row whose keys or certificate do not decode: the store was changed behind our back.
    case corrupt(String)
    case notFound(Int64)
}

/// The `remote_controllers` table. Every method is one statement or one transaction.
public struct RemoteControllerStore {
    let db: SQLiteDatabase

    public init(_ db: SQLiteDatabase) { self.db = db }

    private static let columns =
        "remote_ctrl_id, ctrl_device_name, ca_key, ca_cert, ctrl_fingerprint, id_pub, dh_priv_key, prev_dh_priv_key"

    /// Records a first successful session with a controller.
    public func insert(
        deviceName: String, authority: CertificateAuthority, controllerFingerprint: CertificateFingerprint,
        identityKey: Ed25519.PublicKey, dhKey: X25519.PrivateKey
    ) throws(PairingStoreError) -> RemoteControllerRecord {
        do {
            try db.run(
                "INSERT INTO remote_controllers (ctrl_device_name, ca_key, ca_cert, ctrl_fingerprint, id_pub, dh_priv_key) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    .text(deviceName), .blob(authority.key.pkcs8), .blob(authority.certificate.derRepresentation),
                    .blob(Self.fingerprintText(controllerFingerprint)), .blob(identityKey.spki), .blob(dhKey.pkcs8),
                ])
        } catch { throw .sql(error) }
        return RemoteControllerRecord(
            id: db.lastInsertRowID, deviceName: deviceName, authority: authority, controllerFingerprint: controllerFingerprint,
            identityKey: identityKey, dhKey: dhKey, previousDHKey: nil)
    }

    /// After a later successful session: the new name and DH key; the old key becomes the previous one (one
    /// statement, so the right-hand side reads the old row).
    public func recordSession(id: Int64, deviceName: String, dhKey: X25519.PrivateKey) throws(PairingStoreError) {
        let changed: Int
        do {
            changed = try db.run(
                "UPDATE remote_controllers SET ctrl_device_name = ?, prev_dh_priv_key = dh_priv_key, dh_priv_key = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE remote_ctrl_id = ?",
                [.text(deviceName), .blob(dhKey.pkcs8), .integer(id)])
        } catch { throw .sql(error) }
        guard changed == 1 else { throw .notFound(id) }
    }

    /// All known controllers in table order (the order multicast keys are tried in).
    public func all() throws(PairingStoreError) -> [RemoteControllerRecord] {
        try fetch("SELECT \(Self.columns) FROM remote_controllers ORDER BY remote_ctrl_id", [])
    }

    public func find(id: Int64) throws(PairingStoreError) -> RemoteControllerRecord? {
        try fetch("SELECT \(Self.columns) FROM remote_controllers WHERE remote_ctrl_id = ?", [.integer(id)]).first
    }

    public func find(fingerprint: CertificateFingerprint) throws(PairingStoreError) -> RemoteControllerRecord? {
        try fetch(
            "SELECT \(Self.columns) FROM remote_controllers WHERE ctrl_fingerprint = ?",
            [.blob(Self.fingerprintText(fingerprint))]
        ).first
    }

    public func delete(id: Int64) throws(PairingStoreError) {
        let changed: Int
        do { changed = try db.run("DELETE FROM remote_controllers WHERE remote_ctrl_id = ?", [.integer(id)]) } catch {
            throw .sql(error)
        }
        guard changed == 1 else { throw .notFound(id) }
    }

    /// Fingerprints are stored as base64url text in a BLOB, as the reference stores them (xrcp.md §20.30).
    static func fingerprintText(_ f: CertificateFingerprint) -> [UInt8] { Array(Base64.encode(f.rawRepresentation).utf8) }

    private func fetch(_ sql: String, _ values: [SQLValue]) throws(PairingStoreError) -> [RemoteControllerRecord] {
        let rows: [[SQLValue]]
        do { rows = try db.query(sql, values) } catch { throw .sql(error) }
        var out: [RemoteControllerRecord] = []
        for row in rows { out.append(try Self.record(row)) }
        return out
    }

    private static func record(_ row: [SQLValue]) throws(PairingStoreError) -> RemoteControllerRecord {
        guard row.count == 8, let id = row[0].integer, let name = row[1].text, let caKey = row[2].blob, let caCert = row[3].blob,
            let fpText = row[4].blob, let idPub = row[5].blob, let dh = row[6].blob
        else { throw .corrupt("remote_controllers row") }
        do {
            let fingerprint = try CertificateFingerprint(
                rawRepresentation: Base64.decode(String(decoding: fpText, as: UTF8.self)))
            return RemoteControllerRecord(
                id: id, deviceName: name,
                authority: CertificateAuthority(
                    key: try Ed25519.PrivateKey(pkcs8: caKey), certificate: try Certificate(der: caCert)),
                controllerFingerprint: fingerprint, identityKey: try Ed25519.PublicKey(spki: idPub),
                dhKey: try X25519.PrivateKey(pkcs8: dh),
                previousDHKey: try row[7].blob.map { (b) throws(CryptoError) in try X25519.PrivateKey(pkcs8: b) })
        } catch {
            throw .corrupt("remote controller \(id): \(error)")
        }
    }
}
