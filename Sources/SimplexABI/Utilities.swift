internal import ChatCore
internal import SimplexCrypto
internal import SimplexEncoding
internal import SimplexMarkdown

/// The C ABI's functions that need no controller.
enum Utilities {
    /// `chat_password_hash`: base64url(SHA-512(password ‖ base64url-decode(salt))), "" for a salt that is not base64url.
    static func passwordHash(_ password: CInput?, salt: CInput?) -> String {
        guard let password, let salt else { return "" }
        let saltBytes: [UInt8]
        if salt.bytes.isEmpty {
            saltBytes = []
        } else {
            guard let decoded = try? Base64.decode(salt.lenientText) else { return "" }
            saltBytes = decoded
        }
        return Base64.encode(Digest.sha512(password.bytes + saltBytes))
    }

    /// `chat_json_length`: the UTF-8 length of the JSON string form without its quotes.
    static func jsonLength(_ s: CInput?) -> Int32 {
        guard let s else { return 0 }
        return Int32(clamping: CanonicalJSON.quoted(s.lenientText).utf8.count - 2)
    }

    /// `WriteFileResult` (chat-api.md §9.4).
    static func writeFileResult(_ result: Result<CryptoFileArgs, CryptoFileError>) -> String {
        let value: JSONValue
        switch result {
        case .success(let args):
            let cryptoArgs = JSONValue.object(args.fields.map { JSONField($0.0, .string($0.1)) })
            value = .object([JSONField("type", .string("result")), JSONField("cryptoArgs", cryptoArgs)])
        case .failure(let error):
            value = .object([JSONField("type", .string("error")), JSONField("writeError", .string(error.message))])
        }
        return value.rendered
    }

    /// `chat_read_file`'s buffer (chat-api.md §9.3): 0, the length as a host-order UInt32, the plaintext; or 1 and a
    /// NUL-terminated message.
    static func readFileBuffer(_ result: Result<[UInt8], CryptoFileError>) -> UnsafeMutablePointer<UInt8> {
        switch result {
        case .success(let plain) where plain.count <= Int(UInt32.max):
            let out = CBuffer.allocate(5 + plain.count)
            out[0] = 0
            UnsafeMutableRawPointer(out + 1).storeBytes(of: UInt32(plain.count), toByteOffset: 0, as: UInt32.self)
            plain.withUnsafeBufferPointer { p in
                if let base = p.baseAddress { (out + 5).update(from: base, count: p.count) }
            }
            return out
        case .success:
            return failureBuffer("file too large for chat_read_file")
        case .failure(let error):
            return failureBuffer(error.message)
        }
    }

    private static func failureBuffer(_ message: String) -> UnsafeMutablePointer<UInt8> {
        let bytes = [1] + Array(message.utf8)
        return UnsafeMutableRawPointer(CBuffer.string(bytes)).assumingMemoryBound(to: UInt8.self)
    }

    /// `chat_parse_markdown`: `{"formattedText":[…]}`, or `{}` for text without markdown.
    static func parseMarkdown(_ text: CInput?) -> String {
        guard let formatted = text.flatMap({ Markdown.parse($0.lenientText) }) else { return "{}" }
        return "{\"formattedText\":" + formatted.json.rendered + "}"
    }

    /// `chat_parse_server`: `{"serverAddress": …, "parseError": ""}` or `{"parseError": why}`.
    static func parseServer(_ address: CInput?) -> String {
        let server: ServerAddress
        do {
            server = try ServerAddress(parsing: address?.lenientText ?? "")
        } catch {
            return JSONValue.object([JSONField("parseError", .string(error.reason))]).rendered
        }
        let fields = JSONValue.object([
            JSONField("serverProtocol", .string(server.serverProtocol.rawValue)),
            JSONField("hostnames", .array(server.hosts.map { .string($0.text) })),
            JSONField("port", .string(server.port)),
            JSONField("keyHash", .string(Base64.encode(server.keyHash))),
            JSONField("basicAuth", .string(server.basicAuth ?? "")),
        ])
        return JSONValue.object([JSONField("serverAddress", fields), JSONField("parseError", .string(""))]).rendered
    }

    /// `chat_parse_uri`: `{"uriInfo": {"scheme", "sanitized"?}, "parseError": ""}` for a web link, `sanitized` only
    /// when tracking parameters were removed; `{"parseError": why}` otherwise.
    static func parseURI(_ uri: CInput?, safe: Bool) -> String {
        let parsed: WebURI
        do {
            parsed = try WebURI(parsing: uri?.lenientText ?? "")
        } catch {
            return JSONValue.object([JSONField("parseError", .string(error.message))]).rendered
        }
        var info = [JSONField("scheme", .string(parsed.scheme))]
        if let sanitized = parsed.sanitized(safe: safe) { info.append(JSONField("sanitized", .string(sanitized))) }
        return JSONValue.object([JSONField("uriInfo", .object(info)), JSONField("parseError", .string(""))]).rendered
    }
}

/// WebRTC frames (chat-api.md §9.2): the frame's last 28 bytes hold the GCM tag and then the IV.
enum MediaFrame {
    static let reserved = AESGCM.tagSize + AESGCM.ivSize

    static func encrypt(key: CInput?, frame: UnsafeMutablePointer<UInt8>?, length: Int32) -> String {
        do throws(MediaError) {
            let (key, body, trailer) = try split(key: key, frame: frame, length: length)
            let iv = SecureRandom.bytes(AESGCM.ivSize)
            let tag: [UInt8]
            do { tag = try AESGCM.seal(body, key: key, iv: iv) } catch { throw .crypto("\(error)") }
            trailer.copyBytes(from: tag + iv)
            return ""
        } catch {
            return error.message
        }
    }

    static func decrypt(key: CInput?, frame: UnsafeMutablePointer<UInt8>?, length: Int32) -> String {
        do throws(MediaError) {
            let (key, body, trailer) = try split(key: key, frame: frame, length: length)
            let tag = Array(trailer[0..<AESGCM.tagSize])
            let iv = Array(trailer[AESGCM.tagSize...])
            do { try AESGCM.open(body, key: key, iv: iv, tag: tag) } catch { throw .crypto("\(error)") }
            trailer.initializeMemory(as: UInt8.self, repeating: 0)
            return ""
        } catch {
            return error.message
        }
    }

    enum MediaError: Error {
        case invalidArgs(String)
        case crypto(String)

        var message: String {
            switch self {
            case .invalidArgs(let why): why
            case .crypto(let why): why
            }
        }
    }

    private static func split(key: CInput?, frame: UnsafeMutablePointer<UInt8>?, length: Int32) throws(MediaError)
        -> ([UInt8], UnsafeMutableRawBufferPointer, UnsafeMutableRawBufferPointer)
    {
        guard let frame, length >= Int32(reserved) else {
            throw .invalidArgs("frame has no [reserved space for] IV and/or auth tag")
        }
        guard let key, let keyBytes = try? Base64.decode(key.lenientText), keyBytes.count == AESGCM.keySize else {
            throw .invalidArgs("invalid key: not base64url of 32 bytes")
        }
        let all = UnsafeMutableRawBufferPointer(start: frame, count: Int(length))
        let split = Int(length) - reserved
        return (
            keyBytes, UnsafeMutableRawBufferPointer(rebasing: all[..<split]),
            UnsafeMutableRawBufferPointer(rebasing: all[split...])
        )
    }
}
