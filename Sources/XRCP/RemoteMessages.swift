public import SimplexEncoding

/// A file on the host, as `getFile` names it (xrcp.md §11.1).
public struct RemoteFile: Equatable, Sendable {
    public var userId: Int64
    public var fileId: Int64
    public var sent: Bool
    /// `CryptoFile`: `{"filePath": …, "cryptoArgs"?: {"fileKey": …, "fileNonce": …}}`, kept as sent.
    public var fileSource: CanonicalJSON

    public init(userId: Int64, fileId: Int64, sent: Bool, fileSource: CanonicalJSON) {
        self.userId = userId
        self.fileId = fileId
        self.sent = sent
        self.fileSource = fileSource
    }

    public var filePath: String? { fileSource["filePath"]?.stringValue }
}

/// Controller → host (xrcp.md §11.1); always the tagged JSON style.
public enum RemoteCommand: Equatable, Sendable {
    /// A chat command line for the host's core; `retryNumber` is mandatory on the wire.
    case send(command: String, retryNumber: Int64)
    /// Long-poll for the next event, waiting at most `wait` µs.
    case recv(wait: Int64)
    /// Upload: the file follows the request; `fileDigest` is its SHA-512.
    case storeFile(fileName: String, fileSize: UInt32, fileDigest: [UInt8])
    /// Download a file the host has a record of.
    case getFile(RemoteFile)

    public var json: CanonicalJSON {
        switch self {
        case .send(let command, let retry):
            return .object(["type": .string("send"), "command": .string(command), "retryNumber": .integer(retry)])
        case .recv(let wait):
            return .object(["type": .string("recv"), "wait": .integer(wait)])
        case .storeFile(let name, let size, let digest):
            return .object([
                "type": .string("storeFile"), "fileName": .string(name), "fileSize": .integer(Int64(size)),
                "fileDigest": .string(Base64.encode(digest)),
            ])
        case .getFile(let file):
            return .object([
                "type": .string("getFile"),
                "file": .object([
                    "userId": .integer(file.userId), "fileId": .integer(file.fileId), "sent": .bool(file.sent),
                    "fileSource": file.fileSource,
                ]),
            ])
        }
    }

    /// Parses a decrypted request; anything malformed is `invalidJSON` with the reason.
    public init(json bytes: [UInt8]) throws(RemoteProtocolError) {
        let json: CanonicalJSON
        do { json = try CanonicalJSON.parse(bytes) } catch { throw .invalidJSON("\(error)") }
        func field<T>(_ name: String, _ get: (CanonicalJSON) -> T?) throws(RemoteProtocolError) -> T {
            guard let v = json[name].flatMap(get) else { throw .invalidJSON("missing or invalid \(name)") }
            return v
        }
        switch json["type"]?.stringValue {
        case "send":
            self = .send(command: try field("command", \.stringValue), retryNumber: try field("retryNumber", \.integerValue))
        case "recv":
            self = .recv(wait: try field("wait", \.integerValue))
        case "storeFile":
            let size = try field("fileSize", { $0.integerValue.flatMap(UInt32.init(exactly:)) })
            let digest = try field("fileDigest", { $0.stringValue.flatMap { try? Base64.decode($0) } })
            guard digest.count == 64 else { throw .invalidJSON("fileDigest is not a SHA-512") }
            self = .storeFile(fileName: try field("fileName", \.stringValue), fileSize: size, fileDigest: digest)
        case "getFile":
            let file = try field("file", { $0 })
            guard let userId = file["userId"]?.integerValue, let fileId = file["fileId"]?.integerValue,
                let sent = file["sent"]?.boolValue, let source = file["fileSource"], source["filePath"]?.stringValue != nil
            else { throw .invalidJSON("invalid file") }
            self = .getFile(RemoteFile(userId: userId, fileId: fileId, sent: sent, fileSource: source))
        default:
            throw .invalidJSON("unknown command type")
        }
    }
}

/// Host → controller (xrcp.md §11.2). Chat results travel as the core's JSON text, spliced in unchanged.
public enum RemoteResponse: Equatable, Sendable {
    /// For `send`: `{"result": …}` or `{"error": …}` as the core produced it.
    case chatResponse(rawJSON: [UInt8])
    /// For `recv`: the next event's envelope, or nil when the wait expired (the key is then omitted).
    case chatEvent(rawJSON: [UInt8]?)
    case fileStored(filePath: String)
    /// For `getFile`: the file follows the body.
    case file(fileSize: UInt32, fileDigest: [UInt8])
    case protocolError(RemoteProtocolError)

    public var encoded: [UInt8] {
        switch self {
        case .chatResponse(let raw):
            return Array(#"{"type":"chatResponse","chatResponse":"#.utf8) + raw + [UInt8(ascii: "}")]
        case .chatEvent(let raw):
            guard let raw else { return Array(#"{"type":"chatEvent"}"#.utf8) }
            return Array(#"{"type":"chatEvent","chatEvent":"#.utf8) + raw + [UInt8(ascii: "}")]
        case .fileStored(let path):
            return Array(CanonicalJSON.object(["type": .string("fileStored"), "filePath": .string(path)]).rendered.utf8)
        case .file(let size, let digest):
            return Array(
                CanonicalJSON.object([
                    "type": .string("file"), "fileSize": .integer(Int64(size)), "fileDigest": .string(Base64.encode(digest)),
                ]).rendered.utf8)
        case .protocolError(let e):
            // The key's spelling is the reference's.
            return Array(CanonicalJSON.object(["type": .string("protocolError"), "remoteProcotolError": e.json]).rendered.utf8)
        }
    }

    /// Controller side: a decrypted response. `protocolError` keeps the peer's error JSON as `invalidBody` text when
    /// it is not one we know.
    public init(json bytes: [UInt8]) throws(RemoteProtocolError) {
        let json: CanonicalJSON
        do { json = try CanonicalJSON.parse(bytes) } catch { throw .invalidJSON("\(error)") }
        switch json["type"]?.stringValue {
        case "chatResponse":
            guard let r = json["chatResponse"] else { throw .invalidJSON("missing chatResponse") }
            self = .chatResponse(rawJSON: Array(r.rendered.utf8))
        case "chatEvent":
            self = .chatEvent(rawJSON: json["chatEvent"].map { Array($0.rendered.utf8) })
        case "fileStored":
            guard let p = json["filePath"]?.stringValue else { throw .invalidJSON("missing filePath") }
            self = .fileStored(filePath: p)
        case "file":
            guard let size = json["fileSize"]?.integerValue.flatMap(UInt32.init(exactly:)),
                let digest = json["fileDigest"]?.stringValue.flatMap({ try? Base64.decode($0) }), digest.count == 64
            else { throw .invalidJSON("invalid file response") }
            self = .file(fileSize: size, fileDigest: digest)
        case "protocolError":
            self = .protocolError(.invalidBody(json["remoteProcotolError"]?.rendered ?? "protocolError"))
        default:
            throw .invalidJSON("unknown response type")
        }
    }
}
