internal import Glibc
internal import SimplexCrypto
internal import SimplexEncoding

/// simplexmq's encrypted local files (`Simplex.Messaging.Crypto.File`): the content through SimpleX's streaming
/// secret box, the 16-byte tag after it, no header and no padding. Key and nonce are the file's `CryptoFileArgs`.
struct CryptoFileArgs {
    let key: SecretBox.Key
    let nonce: SecretBox.Nonce

    static func random() -> CryptoFileArgs {
        // 32 random bytes are always a valid key.
        guard let key = try? SecretBox.Key(rawRepresentation: SecureRandom.bytes(32)) else {
            preconditionFailure("a 32-byte key is valid")
        }
        return CryptoFileArgs(key: key, nonce: .random())
    }

    /// From the base64url strings of `{"fileKey","fileNonce"}`.
    init(key: CInput?, nonce: CInput?) throws(CryptoFileError) {
        guard let key, let nonce else { throw .invalidArgs("key or nonce is NULL") }
        do {
            self.key = try SecretBox.Key(rawRepresentation: try Base64.decode(key.lenientText))
        } catch { throw .invalidArgs("invalid file key") }
        do {
            self.nonce = try SecretBox.Nonce(rawRepresentation: try Base64.decode(nonce.lenientText))
        } catch { throw .invalidArgs("invalid file nonce") }
    }

    private init(key: SecretBox.Key, nonce: SecretBox.Nonce) {
        self.key = key
        self.nonce = nonce
    }

    /// `{"fileKey": …, "fileNonce": …}` (chat-api.md §9.4).
    var fields: [(String, String)] {
        [("fileKey", Base64.encode(key.rawRepresentation)), ("fileNonce", Base64.encode(nonce.rawRepresentation))]
    }
}

/// Why a file could not be written, read or decrypted; the texts follow the official core's (`FTCryptoError`).
enum CryptoFileError: Error {
    case invalidArgs(String)
    case io(path: String, operation: String, errno: Int32)
    /// The destination is the source itself, by whatever path or link; the official core's file locking refuses it
    /// in these words.
    case sameFile(path: String)
    case invalidFileSize
    case invalidAuthTag
    case unexpectedEOF

    var message: String {
        switch self {
        case .invalidArgs(let why): why
        case .io(let path, let operation, let code): "\(path): \(operation): \(String(cString: strerror(code)))"
        case .sameFile(let path): "\(path): withFile: resource busy (file is locked)"
        case .invalidFileSize: "FTCEInvalidFileSize"
        case .invalidAuthTag: "FTCEInvalidAuthTag"
        case .unexpectedEOF: "FTCEFileIOError \"unexpected EOF\""
        }
    }
}

/// A file descriptor, closed when released.
final class FileHandle {
    let fd: Int32
    let path: String

    fileprivate init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { Glibc.close(fd) }

    /// For reading; what is written goes through `ReplacingFile`.
    static func open(reading path: CInput) throws(CryptoFileError) -> FileHandle {
        // Paths are bytes on Linux: passed on as given, only shown as text.
        let fd = Glibc.open(path.cString, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw .io(path: path.lenientText, operation: "openBinaryFile", errno: errno)
        }
        return FileHandle(fd: fd, path: path.lenientText)
    }

    /// Device and inode: what makes two paths one file.
    var identity: FileIdentity {
        get throws(CryptoFileError) {
            var st = stat()
            guard fstat(fd, &st) == 0 else { throw .io(path: path, operation: "hFileSize", errno: errno) }
            return FileIdentity(st)
        }
    }

    var size: Int {
        get throws(CryptoFileError) {
            var st = stat()
            guard fstat(fd, &st) == 0 else { throw .io(path: path, operation: "hFileSize", errno: errno) }
            return Int(st.st_size)
        }
    }

    /// Up to `count` bytes; fewer only at the end of the file.
    func read(_ count: Int) throws(CryptoFileError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = out.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress.map { $0 + filled }, count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, operation: "hGetBuf", errno: errno)
            }
            if n == 0 { break }
            filled += n
        }
        out.removeLast(count - filled)
        return out
    }

    func write(_ bytes: [UInt8]) throws(CryptoFileError) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + written }, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, operation: "hPutBuf", errno: errno)
            }
            written += n
        }
    }
}

/// A file's device and inode.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }
}

/// What a file function writes: a new file beside the destination, renamed onto it only once it is whole, so that a
/// failure (a wrong key, a short or unreadable source, a full disk, a crash) leaves whatever the destination held.
/// The new file is removed unless it was put in place.
final class ReplacingFile {
    let handle: FileHandle
    private let temporary: [UInt8]
    private let destination: [UInt8]
    private let shownPath: String
    private var placed = false

    /// Refuses a destination that is `source` itself, through the same path, another path or a link (device and
    /// inode compared). A destination that is a link is written through: the file it names is replaced.
    init(_ path: CInput, notSameAs source: FileHandle?) throws(CryptoFileError) {
        shownPath = path.lenientText
        var target = path.bytes
        var st = stat()
        if lstat(path.cString, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK, let resolved = realpath(path.cString, nil) {
            target = Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
            Glibc.free(resolved)
        }
        destination = target
        var mode: mode_t = 0o666
        var existing = false
        if stat(Self.cString(target), &st) == 0 {
            if let source, try source.identity == FileIdentity(st) { throw .sameFile(path: shownPath) }
            guard (st.st_mode & S_IFMT) != S_IFDIR else {
                throw .io(path: shownPath, operation: "openBinaryFile", errno: EISDIR)
            }
            mode = st.st_mode & 0o7777
            existing = true
        }
        let slash = target.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        let suffix = SecureRandom.bytes(8).map { String($0, radix: 16) }.joined()
        temporary = Array(target[..<slash]) + Array(".".utf8) + Array(target[slash...]) + Array(".\(suffix).tmp".utf8)
        let fd = Glibc.open(Self.cString(temporary), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw .io(path: shownPath, operation: "openBinaryFile", errno: errno) }
        // The replacement keeps the permissions of the file it replaces.
        if existing { _ = fchmod(fd, mode) }
        handle = FileHandle(fd: fd, path: shownPath)
    }

    deinit {
        if !placed { unlink(Self.cString(temporary)) }
    }

    /// Flushes the new file to the disk and renames it onto the destination.
    func place() throws(CryptoFileError) {
        guard fsync(handle.fd) == 0 else { throw .io(path: shownPath, operation: "hClose", errno: errno) }
        guard rename(Self.cString(temporary), Self.cString(destination)) == 0 else {
            throw .io(path: shownPath, operation: "renameFile", errno: errno)
        }
        placed = true
        // The rename itself is made durable with the folder.
        let slash = destination.lastIndex(of: UInt8(ascii: "/"))
        let folder = slash.map { $0 == 0 ? [UInt8(ascii: "/")] : Array(destination[..<$0]) } ?? [UInt8(ascii: ".")]
        let dirFD = Glibc.open(Self.cString(folder), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            _ = fsync(dirFD)
            Glibc.close(dirFD)
        }
    }

    private static func cString(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }
}

/// The four file functions of the C ABI over `SecretBoxStream`, in 64 KiB pieces.
enum CryptoFile {
    static let chunkSize = 65536

    /// `chat_write_file`: `bytes` encrypted under fresh arguments.
    static func write(_ bytes: UnsafeRawBufferPointer, to path: CInput) throws(CryptoFileError) -> CryptoFileArgs {
        let args = CryptoFileArgs.random()
        let file = try ReplacingFile(path, notSameAs: nil)
        let box = SecretBoxStream(.seal, key: args.key, nonce: args.nonce)
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + chunkSize, bytes.count)
            try file.handle.write(box.update(Array(bytes[offset..<end])))
            offset = end
        }
        try file.handle.write(box.finalizeTag())
        try file.place()
        return args
    }

    /// `chat_encrypt_file`.
    static func encrypt(from: CInput, to: CInput) throws(CryptoFileError) -> CryptoFileArgs {
        let args = CryptoFileArgs.random()
        let input = try FileHandle.open(reading: from)
        let file = try ReplacingFile(to, notSameAs: input)
        let box = SecretBoxStream(.seal, key: args.key, nonce: args.nonce)
        while true {
            let piece = try input.read(chunkSize)
            if piece.isEmpty { break }
            try file.handle.write(box.update(piece))
        }
        try file.handle.write(box.finalizeTag())
        try file.place()
        return args
    }

    /// `chat_read_file`: the whole plaintext, after its tag is checked.
    static func read(_ path: CInput, _ args: CryptoFileArgs) throws(CryptoFileError) -> [UInt8] {
        let input = try FileHandle.open(reading: path)
        let total = try input.size
        guard total >= SecretBox.tagSize else { throw .invalidFileSize }
        let box = SecretBoxStream(.open, key: args.key, nonce: args.nonce)
        var plain: [UInt8] = []
        plain.reserveCapacity(total - SecretBox.tagSize)
        var left = total - SecretBox.tagSize
        while left > 0 {
            let piece = try input.read(min(left, chunkSize))
            guard !piece.isEmpty else { throw .unexpectedEOF }
            plain += box.update(piece)
            left -= piece.count
        }
        let tag = try input.read(SecretBox.tagSize)
        do { try box.verify(tag: tag) } catch { throw .invalidAuthTag }
        return plain
    }

    /// `chat_decrypt_file`: the plaintext is put in place only once its tag is checked, so a file that fails
    /// authentication leaves no unauthenticated plaintext and the destination as it was.
    static func decrypt(from: CInput, to: CInput, _ args: CryptoFileArgs) throws(CryptoFileError) {
        let input = try FileHandle.open(reading: from)
        let total = try input.size
        guard total >= SecretBox.tagSize else { throw .invalidFileSize }
        let file = try ReplacingFile(to, notSameAs: input)
        let box = SecretBoxStream(.open, key: args.key, nonce: args.nonce)
        var left = total - SecretBox.tagSize
        while left > 0 {
            let piece = try input.read(min(left, chunkSize))
            guard !piece.isEmpty else { throw CryptoFileError.unexpectedEOF }
            try file.handle.write(box.update(piece))
            left -= piece.count
        }
        do { try box.verify(tag: try input.read(SecretBox.tagSize)) } catch { throw CryptoFileError.invalidAuthTag }
        try file.place()
    }
}
