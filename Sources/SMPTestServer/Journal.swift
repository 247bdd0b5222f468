import SimplexCrypto
public import SimplexEncoding

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Why the store file cannot be used.
public enum JournalError: Error, Equatable, Sendable, CustomStringConvertible {
    case notAJournal(String)
    case record(offset: Int, StoreRecordError)
    case io(operation: String, path: String, message: String)

    public var description: String {
        switch self {
        case .notAJournal(let path): "\(path) is not an smp-test-server store"
        case .record(let offset, let e): "record at byte \(offset): \(e)"
        case .io(let op, let path, let message): "\(op) \(path): \(message)"
        }
    }
}

/// The journal's framing without I/O: a magic line, then records `u32be(length) ‖ record ‖ SHA-256(record)[0..4]`.
/// A record cut short or with a wrong check is where a crash interrupted an append: it and what follows are dropped.
public enum JournalFormat {
    public static let magic = Array("SMPJRNL1".utf8)

    public static func frame(_ record: StoreRecord) throws(BinaryEncodingError) -> [UInt8] {
        let payload = try record.encoded()
        var w = ByteWriter(capacity: payload.count + 8)
        w.writeUInt32(UInt32(payload.count))
        w.writeBytes(payload)
        w.writeBytes(Digest.sha256(payload).prefix(4))
        return w.bytes
    }

    /// The records of a journal's bytes and the length of its intact prefix.
    public static func parse(_ bytes: [UInt8], path: String) throws(JournalError) -> (records: [StoreRecord], intact: Int) {
        guard bytes.count >= magic.count, Array(bytes.prefix(magic.count)) == magic else { throw .notAJournal(path) }
        var records: [StoreRecord] = []
        var offset = magic.count
        while bytes.count - offset >= 4 {
            let n = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard bytes.count - offset - 4 >= n + 4 else { break }
            let payload = Array(bytes[offset + 4..<offset + 4 + n])
            guard Array(bytes[offset + 4 + n..<offset + 8 + n]) == Array(Digest.sha256(payload).prefix(4)) else { break }
            do { records.append(try StoreRecord(decoding: payload)) } catch { throw .record(offset: offset, error) }
            offset += n + 8
        }
        return (records, offset)
    }
}

/// The store file (`--store FILE`): an append-only journal of `StoreRecord`s, each append followed by `fsync`, so
/// what the server has answered survives a kill. On open the file is compacted: the live records are written to
/// `FILE.tmp`, synced and renamed over it.
public final class Journal {
    public let path: String
    private var fd: Int32

    /// Opens (or creates) the journal, returning the records it held.
    public static func open(path: String) throws(JournalError) -> (Journal, [StoreRecord]) {
        var records: [StoreRecord] = []
        if let bytes = try readFile(path) { records = try JournalFormat.parse(bytes, path: path).records }
        return (try Journal(path: path, fd: -1), records)
    }

    private init(path: String, fd: Int32) throws(JournalError) {
        self.path = path
        self.fd = fd
    }

    /// Replaces the file with exactly `records` and keeps it open for appending.
    public func rewrite(_ records: [StoreRecord]) throws(JournalError) {
        var bytes = JournalFormat.magic
        for r in records {
            guard let f = try? JournalFormat.frame(r) else {
                throw .io(operation: "encode", path: path, message: "record too large")
            }
            bytes += f
        }
        let tmp = path + ".tmp"
        let t = Glibc.open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard t >= 0 else { throw Self.error("open", tmp) }
        do throws(JournalError) {
            try writeAll(t, bytes, tmp)
            guard fsync(t) == 0 else { throw Self.error("fsync", tmp) }
        } catch {
            Glibc.close(t)
            throw error
        }
        Glibc.close(t)
        guard rename(tmp, path) == 0 else { throw Self.error("rename", path) }
        syncDirectory()
        if fd >= 0 { Glibc.close(fd) }
        fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw Self.error("open", path) }
    }

    /// Appends records and syncs them to disk before returning.
    public func append(_ records: [StoreRecord]) throws(JournalError) {
        guard !records.isEmpty else { return }
        var bytes: [UInt8] = []
        for r in records {
            guard let f = try? JournalFormat.frame(r) else {
                throw .io(operation: "encode", path: path, message: "record too large")
            }
            bytes += f
        }
        try writeAll(fd, bytes, path)
        guard fdatasync(fd) == 0 else { throw Self.error("fdatasync", path) }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8], _ name: String) throws(JournalError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Self.error("write", name) }
            offset += n
        }
    }

    private func syncDirectory() {
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[..<$0]) } ?? "."
        let d = Glibc.open(dir.isEmpty ? "/" : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if d >= 0 {
            _ = fsync(d)
            Glibc.close(d)
        }
    }

    private static func readFile(_ path: String) throws(JournalError) -> [UInt8]? {
        let f = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        if f < 0 {
            if errno == ENOENT { return nil }
            throw error("open", path)
        }
        defer { Glibc.close(f) }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(f, &buf, buf.count)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw error("read", path) }
            if n == 0 { return out }
            out += buf[0..<n]
        }
    }

    private static func error(_ op: String, _ path: String) -> JournalError {
        .io(operation: op, path: path, message: String(cString: strerror(errno)))
    }
}
