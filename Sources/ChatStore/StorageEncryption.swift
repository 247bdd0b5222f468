internal import CSQLite
internal import CSealedVFS
internal import Glibc
public import SimplexCrypto
internal import SimplexEncoding

/// The passphrase a database is encrypted with (`DBEncryptionConfig` keys, chat-api.md §7.30; the C ABI's
/// `chat_migrate_init` key). Never printed.
public struct DatabaseKey: Sendable, CustomStringConvertible {
    let passphrase: [UInt8]
    /// Argon2id's cost for files made with this key; files opened later use the cost in their header.
    public let cost: PassphraseKey.Cost

    /// The key for `passphrase`, or nil for the empty passphrase, which the API uses for "no encryption".
    public init?(_ passphrase: String, cost: PassphraseKey.Cost = .interactive) {
        if passphrase.isEmpty { return nil }
        self.passphrase = Array(passphrase.utf8)
        self.cost = cost
    }

    public var description: String { "DatabaseKey(redacted)" }
}

/// What a database file holds, read from its first bytes without a key.
public enum StorageState: Sendable, Equatable {
    /// No file, or an empty one: opening makes a new database.
    case missing
    /// An SQLite database in the clear.
    case plaintext
    /// A database sealed by the encrypting VFS (docs/storage-encryption.md).
    case encrypted
    /// Neither: another format, a future version of ours, or damage.
    case unrecognized
}

/// The key header at the start of a sealed main file (docs/storage-encryption.md, "Key header"): 4096 bytes,
/// of which these 80 are used and the rest are zero.
struct SealedHeader: Equatable {
    static let magic = Array("SimpleX-SealedDB".utf8)
    static let version: UInt32 = 1
    static let size = Int(SIMPLEX_SEALED_HEADER_SIZE)
    /// The most work a header may ask for, so a forged header cannot make opening exhaust memory or time.
    static let maximumCost = PassphraseKey.Cost(passes: 16, memoryKiB: 1024 * 1024)
    static let kdfContext: StaticString = "SXsealdb"
    static let pageKeyID: UInt64 = 1
    static let keyCheckID: UInt64 = 2

    let cost: PassphraseKey.Cost
    let salt: [UInt8]
    /// A subkey of the passphrase key: the same passphrase and salt give it back, any other passphrase does not.
    let keyCheck: [UInt8]

    var encoded: [UInt8] {
        var w = ByteWriter(capacity: Self.size)
        w.writeBytes(Self.magic)
        w.writeUInt32(Self.version)
        w.writeUInt32(UInt32(SIMPLEX_SEALED_PAGE_SIZE))
        w.writeUInt32(cost.passes)
        w.writeUInt32(cost.memoryKiB)
        w.writeBytes(salt)
        w.writeBytes(keyCheck)
        w.writeBytes([UInt8](repeating: 0, count: Self.size - w.bytes.count))
        return w.bytes
    }

    /// Reads a header; nil when the bytes are not one this version can open.
    init?(decoding bytes: [UInt8]) {
        var r = ByteReader(bytes)
        do {
            guard try r.readBytes(Self.magic.count) == Self.magic, try r.readUInt32() == Self.version,
                try r.readUInt32() == UInt32(SIMPLEX_SEALED_PAGE_SIZE)
            else { return nil }
            let cost = PassphraseKey.Cost(passes: try r.readUInt32(), memoryKiB: try r.readUInt32())
            guard (1...Self.maximumCost.passes).contains(cost.passes),
                (8...Self.maximumCost.memoryKiB).contains(cost.memoryKiB)
            else { return nil }
            self.cost = cost
            salt = try r.readBytes(PassphraseKey.saltSize)
            keyCheck = try r.readBytes(PassphraseKey.size)
        } catch { return nil }
    }

    init(cost: PassphraseKey.Cost, salt: [UInt8], keyCheck: [UInt8]) {
        self.cost = cost
        self.salt = salt
        self.keyCheck = keyCheck
    }
}

/// The passphrase side of sealing: the key header, Argon2id, and handing the page key to the VFS.
enum SealedStorage {
    static let notADatabase = SQLiteError(code: SQLITE_NOTADB, message: "file is not a database")
    static let plaintextMagic = Array("SQLite format 3\0".utf8)

    static func state(ofFile path: String) -> StorageState {
        guard let bytes = FileBytes.prefix(path, count: SealedHeader.size), !bytes.isEmpty else { return .missing }
        if bytes.starts(with: plaintextMagic) { return .plaintext }
        return SealedHeader(decoding: bytes) != nil ? .encrypted : .unrecognized
    }

    /// The page key of an existing sealed file, or of a new one whose header this writes first.
    /// A wrong passphrase, a plaintext file or an unreadable header are all `SQLITE_NOTADB`, as SQLCipher has it.
    static func pageKey(opening path: String, with key: DatabaseKey) throws(SQLiteError) -> [UInt8] {
        switch state(ofFile: path) {
        case .missing: return try create(path, with: key)
        case .plaintext, .unrecognized: throw notADatabase
        case .encrypted:
            guard let bytes = FileBytes.prefix(path, count: SealedHeader.size), let header = SealedHeader(decoding: bytes)
            else { throw notADatabase }
            let stretched = try stretch(key, salt: header.salt, cost: header.cost)
            guard constantTimeEqual(stretched.subkey(SealedHeader.keyCheckID, context: SealedHeader.kdfContext), header.keyCheck)
            else { throw notADatabase }
            return stretched.subkey(SealedHeader.pageKeyID, context: SealedHeader.kdfContext)
        }
    }

    /// Writes the header of a new sealed file (fresh salt) and returns its page key.
    static func create(_ path: String, with key: DatabaseKey) throws(SQLiteError) -> [UInt8] {
        let salt = SecureRandom.bytes(PassphraseKey.saltSize)
        let stretched = try stretch(key, salt: salt, cost: key.cost)
        let header = SealedHeader(
            cost: key.cost, salt: salt, keyCheck: stretched.subkey(SealedHeader.keyCheckID, context: SealedHeader.kdfContext))
        try FileBytes.writeNew(path, header.encoded)
        return stretched.subkey(SealedHeader.pageKeyID, context: SealedHeader.kdfContext)
    }

    private static func stretch(_ key: DatabaseKey, salt: [UInt8], cost: PassphraseKey.Cost) throws(SQLiteError)
        -> PassphraseKey
    {
        do { return try PassphraseKey.derive(passphrase: key.passphrase, salt: salt, cost: cost) } catch {
            throw SQLiteError(code: SQLITE_NOMEM, message: "key derivation failed: \(error)")
        }
    }

    /// Runs `body` with the page key in a VFS slot, emptied as soon as `body` returns.
    @discardableResult
    static func withSlot<T>(_ pageKey: [UInt8], _ body: (Int32) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        guard simplex_sealed_vfs_register() == SQLITE_OK else {
            throw SQLiteError(code: SQLITE_ERROR, message: "the sealed VFS could not be registered")
        }
        let slot = simplex_sealed_key_put(pageKey, pageKey.count)
        guard slot > 0 else { throw SQLiteError(code: SQLITE_BUSY, message: "too many sealed databases opening at once") }
        defer { simplex_sealed_key_remove(slot) }
        return try body(slot)
    }

    /// The name of this copy's sealed VFS (registered by `withSlot` before any URI names it).
    static var vfsName: String { String(cString: simplex_sealed_vfs_name()) }

    /// An SQLite URI for `path` through `vfs`: `%`, `?` and `#` escaped, an empty authority so any path is one.
    static func uri(_ path: String, vfs: String, slot: Int32? = nil) -> String {
        var escaped = ""
        for c in path.unicodeScalars {
            switch c {
            case "%": escaped += "%25"
            case "?": escaped += "%3F"
            case "#": escaped += "%23"
            default: escaped.unicodeScalars.append(c)
            }
        }
        let prefix = path.hasPrefix("/") ? "file://" : "file:"
        let key = slot.map { "&\(SIMPLEX_SEALED_KEY_PARAMETER)=\($0)" } ?? ""
        // VFS names here are ours (letters, digits, '-') or SQLite's default ("unix"): nothing to escape.
        return "\(prefix)\(escaped)?vfs=\(vfs)\(key)"
    }

    /// The name of SQLite's default VFS, for plaintext targets named by URI.
    static var defaultVFSName: String {
        guard let vfs = sqlite3_vfs_find(nil), let name = vfs.pointee.zName else { return "unix" }
        return String(cString: name)
    }
}

/// The few direct file operations sealing needs beside SQLite's: the header, and the durable rename of a rekey.
enum FileBytes {
    static func ioError(_ operation: String, _ path: String) -> SQLiteError {
        SQLiteError(code: SQLITE_IOERR, message: "\(operation) failed for \(path): errno \(errno)")
    }

    /// Up to `count` bytes from the start of a file; nil when it cannot be opened.
    static func prefix(_ path: String, count: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                buffer.baseAddress.map { pread(fd, $0 + filled, count - filled, off_t(filled)) } ?? 0
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            filled += n
        }
        return Array(bytes[..<filled])
    }

    /// Writes `bytes` as the whole content of `path` (made or emptied) and makes them durable.
    static func writeNew(_ path: String, _ bytes: [UInt8]) throws(SQLiteError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ioError("open", path) }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in
                buffer.baseAddress.map { write(fd, $0 + written, bytes.count - written) } ?? 0
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw ioError("write", path) }
            written += n
        }
        guard fsync(fd) == 0 else { throw ioError("fsync", path) }
    }

    static func sync(_ path: String) throws(SQLiteError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ioError("open", path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw ioError("fsync", path) }
    }

    /// Replaces `target` by `source` in one step, then makes the directory entry durable.
    static func replace(_ target: String, with source: String) throws(SQLiteError) {
        guard rename(source, target) == 0 else { throw ioError("rename", source) }
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { $0 == target.startIndex ? "/" : String(target[..<$0]) } ?? "."
        try sync(directory)
    }

    /// Removes a file that may not exist.
    static func remove(_ path: String) throws(SQLiteError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw ioError("unlink", path) }
    }
}

extension SQLiteDatabase {
    /// What the file at `path` holds, without opening it (for `errorEncrypted` and `errorPlaintext`).
    public static func storageState(ofFile path: String) -> StorageState { SealedStorage.state(ofFile: path) }

    /// Encrypts, re-encrypts or decrypts a database file: `current` must open it (nil: plaintext), `new` seals
    /// the result (nil: plaintext). No connection to the file may be open. The new content is written to a
    /// staging file beside it, made durable, and renamed over the old one, so a crash leaves one or the other.
    /// (Several files that must change together go through `StoreSwitch` instead.)
    public static func changeKey(path: String, from current: DatabaseKey?, to new: DatabaseKey?) throws(SQLiteError) {
        let staging = try stageKeyChange(path: path, from: current, to: new)
        // The source was checkpointed and closed, so its WAL holds nothing; a leftover one must not meet the new file.
        for suffix in ["-wal", "-shm"] { try FileBytes.remove(path + suffix) }
        try FileBytes.replace(path, with: staging)
    }

    /// Writes the file's content under `new` to its staging name (`<path>-rekey`, `StoreSwitch.Kind.rekey`) and makes
    /// it durable; the file itself is not touched. Returns the staging path.
    static func stageKeyChange(path: String, from current: DatabaseKey?, to new: DatabaseKey?) throws(SQLiteError)
        -> String
    {
        guard storageState(ofFile: path) != .missing else {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "no database file at \(path)")
        }
        let staging = StoreSwitch.stagingPath(of: path, kind: .rekey)
        for suffix in ["", "-wal", "-shm", "-journal"] { try FileBytes.remove(staging + suffix) }
        do {
            try exportCopy(of: path, key: current, to: staging, key: new)
            try FileBytes.sync(staging)
        } catch {
            // A copy cut short (a full disk) would otherwise hold the space until the next change or start.
            for suffix in ["", "-journal"] { try? FileBytes.remove(staging + suffix) }
            throw error
        }
        return staging
    }

    /// A consistent copy of `path` at `staging` (`VACUUM INTO`), sealed with `new` when given; the source
    /// connection closes when this returns.
    private static func exportCopy(of path: String, key current: DatabaseKey?, to staging: String, key new: DatabaseKey?)
        throws(SQLiteError)
    {
        let source = try SQLiteDatabase(path: path, key: current, namesAreURIs: true)
        _ = try source.query("PRAGMA wal_checkpoint(TRUNCATE)")
        guard let new else {
            // A decrypted copy keeps the 40 reserved bytes per page: SQLite can add reserved bytes in a copy
            // but not remove them. They stay unused.
            try source.run("VACUUM INTO ?", [.text(SealedStorage.uri(staging, vfs: SealedStorage.defaultVFSName))])
            return
        }
        try source.vacuum(into: staging, sealedWith: new)
    }

    /// `VACUUM INTO` a new file sealed with `key`: its key header (a fresh salt) first, then the pages through the
    /// sealed VFS, which the target's URI names. The connection must read names as URIs (sealed connections do).
    func vacuum(into target: String, sealedWith key: DatabaseKey) throws(SQLiteError) {
        let pageKey = try SealedStorage.create(target, with: key)
        // Refused on a database with pages (SQLITE_READONLY), but remembered for the copy.
        _ = try? setReservedBytes(Int32(SIMPLEX_SEALED_RESERVE))
        try SealedStorage.withSlot(pageKey) { slot throws(SQLiteError) in
            try run("VACUUM INTO ?", [.text(SealedStorage.uri(target, vfs: SealedStorage.vfsName, slot: slot))])
        }
    }
}
