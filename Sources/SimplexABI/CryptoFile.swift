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
    case invalidFileSize
    case invalidAuthTag
    case unexpectedEOF

    var message: String {
        switch self {
        case .invalidArgs(let why): why
        case .io(let path, let operation, let code): "\(path): \(operation): \(String(cString: strerror(code)))"
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

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { Glibc.close(fd) }

    static func open(_ path: CInput, forWriting: Bool) throws(CryptoFileError) -> FileHandle {
        let flags = forWriting ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC : O_RDONLY | O_CLOEXEC
        // Paths are bytes on Linux: passed on as given, only shown as text.
        let fd = Glibc.open(path.cString, flags, 0o666)
        guard fd >= 0 else {
            throw .io(path: path.lenientText, operation: "openBinaryFile", errno: errno)
        }
        return FileHandle(fd: fd, path: path.lenientText)
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

/// The four file functions of the C ABI over `SecretBoxStream`, in 64 KiB pieces.
enum CryptoFile {
    static let chunkSize = 65536

    /// `chat_write_file`: `bytes` encrypted under fresh arguments.
    static func write(_ bytes: UnsafeRawBufferPointer, to path: CInput) throws(CryptoFileError) -> CryptoFileArgs {
        let args = CryptoFileArgs.random()
        let out = try FileHandle.open(path, forWriting: true)
        let box = SecretBoxStream(.seal, key: args.key, nonce: args.nonce)
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + chunkSize, bytes.count)
            try out.write(box.update(Array(bytes[offset..<end])))
            offset = end
        }
        try out.write(box.finalizeTag())
        return args
    }

    /// `chat_encrypt_file`.
    static func encrypt(from: CInput, to: CInput) throws(CryptoFileError) -> CryptoFileArgs {
        let args = CryptoFileArgs.random()
        let input = try FileHandle.open(from, forWriting: false)
        let out = try FileHandle.open(to, forWriting: true)
        let box = SecretBoxStream(.seal, key: args.key, nonce: args.nonce)
        while true {
            let piece = try input.read(chunkSize)
            if piece.isEmpty { break }
            try out.write(box.update(piece))
        }
        try out.write(box.finalizeTag())
        return args
    }

    /// `chat_read_file`: the whole plaintext, after its tag is checked.
    static func read(_ path: CInput, _ args: CryptoFileArgs) throws(CryptoFileError) -> [UInt8] {
        let input = try FileHandle.open(path, forWriting: false)
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

    /// `chat_decrypt_file`; a file that fails authentication is removed rather than left as unauthenticated plaintext.
    static func decrypt(from: CInput, to: CInput, _ args: CryptoFileArgs) throws(CryptoFileError) {
        let input = try FileHandle.open(from, forWriting: false)
        let total = try input.size
        guard total >= SecretBox.tagSize else { throw .invalidFileSize }
        let out = try FileHandle.open(to, forWriting: true)
        let box = SecretBoxStream(.open, key: args.key, nonce: args.nonce)
        do throws(CryptoFileError) {
            var left = total - SecretBox.tagSize
            while left > 0 {
                let piece = try input.read(min(left, chunkSize))
                guard !piece.isEmpty else { throw CryptoFileError.unexpectedEOF }
                try out.write(box.update(piece))
                left -= piece.count
            }
            do { try box.verify(tag: try input.read(SecretBox.tagSize)) } catch { throw CryptoFileError.invalidAuthTag }
        } catch {
            unlink(to.cString)
            throw error
        }
    }
}
