public import ChatModel
public import SimplexEncoding

/// MsgContent (chat-api.md §7.24): what a message says, tagged by `type`. `text` is always present. Nested values the
/// core only carries (a chat link card, an owner signature, a link preview's content) stay as the client sent them.
public enum MsgContent: Hashable, Sendable, JSONEncodable {
    case text(String)
    case link(text: String, preview: LinkPreview)
    case image(text: String, image: String)
    case video(text: String, image: String, duration: Int64)
    case voice(text: String, duration: Int64)
    case file(String)
    case report(text: String, reason: String)
    case chat(text: String, chatLink: CanonicalJSON, ownerSig: CanonicalJSON?)
    /// A type this core does not know: kept whole, and written back as it came (the core's `MCUnknown`).
    case unknown(tag: String, text: String, json: CanonicalJSON)

    /// The `type` tag, also the item's `msg_content_tag` (MsgContentTag).
    public var tag: MsgContentTag {
        switch self {
        case .text: .text
        case .link: .link
        case .image: .image
        case .video: .video
        case .voice: .voice
        case .file: .file
        case .report: .report
        case .chat: .chat
        case .unknown(let tag, _, _): MsgContentTag(rawValue: tag)
        }
    }

    /// The `text` field.
    public var text: String {
        switch self {
        case .text(let t), .file(let t): t
        case .link(let t, _), .image(let t, _), .video(let t, _, _), .voice(let t, _), .report(let t, _),
            .chat(let t, _, _), .unknown(_, let t, _):
            t
        }
    }

    /// The item's text (`itemText`, the core's `msgContentText`): the text, with a description first for voice
    /// messages, reports and chat cards.
    public var itemText: String {
        func joined(_ description: String, _ separator: String) -> String {
            text.isEmpty ? description : description + separator + text
        }
        switch self {
        case .voice(_, let duration): return joined("voice message " + Self.durationText(duration), "; ")
        case .report(_, let reason): return joined("report " + reason, ": ")
        case .chat(_, let link, _):
            let kind = link["type"]?.stringValue ?? "chat"
            let name =
                link["profile"]?["displayName"]?.stringValue ?? link["groupProfile"]?["displayName"]?.stringValue ?? ""
            return joined(kind + " " + name, ": ")
        default: return text
        }
    }

    /// `(mm:ss)`, minutes not capped.
    static func durationText(_ seconds: Int64) -> String {
        func two(_ n: Int64) -> String { n <= 9 ? "0\(n)" : "\(n)" }
        let (m, s) = seconds.quotientAndRemainder(dividingBy: 60)
        return "(" + two(m) + ":" + two(s) + ")"
    }

    public var json: JSONValue {
        switch self {
        case .text(let t): .tagged("text", ["text": .string(t)])
        case .link(let t, let preview): .tagged("link", ["text": .string(t), "preview": preview.json])
        case .image(let t, let image): .tagged("image", ["text": .string(t), "image": .string(image)])
        case .video(let t, let image, let duration):
            .tagged("video", ["text": .string(t), "image": .string(image), "duration": .integer(duration)])
        case .voice(let t, let duration): .tagged("voice", ["text": .string(t), "duration": .integer(duration)])
        case .file(let t): .tagged("file", ["text": .string(t)])
        case .report(let t, let reason): .tagged("report", ["text": .string(t), "reason": .string(reason)])
        case .chat(let t, let link, let sig):
            .tagged("chat", ["text": .string(t), "chatLink": JSONValue(link), "ownerSig": sig.map(JSONValue.init)])
        case .unknown(_, _, let json): JSONValue(json)
        }
    }

    /// Writes the content: text, by far the most common, straight; the others through their tree.
    func write(to w: inout JSONWriter) {
        if case .text(let t) = self {
            w.beginTagged("text")
            w.field("text", t)
            w.endObject()
        } else {
            w.value(json)
        }
    }

    static let reportReasons: Set<String> = ["spam", "content", "community", "profile", "other"]

    /// Reads a MsgContent as the core's parser does: a known `type` needs its fields; an unknown one is kept whole,
    /// its text defaulting to the core's placeholder.
    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        let type = try input.string("type")
        switch type {
        case "text": self = .text(try input.string("text"))
        case "link": self = .link(text: try input.string("text"), preview: try LinkPreview(input.required("preview")))
        case "image": self = .image(text: try input.string("text"), image: try input.string("image"))
        case "video":
            self = .video(
                text: try input.string("text"), image: try input.string("image"),
                duration: try input.required("duration").integer())
        case "voice": self = .voice(text: try input.string("text"), duration: try input.required("duration").integer())
        case "file": self = .file(try input.string("text"))
        case "report":
            let reason = try input.required("reason")
            let r = try reason.string()
            guard Self.reportReasons.contains(r) else { throw reason.fail("unexpected value \"\(r)\"") }
            self = .report(text: try input.string("text"), reason: r)
        case "chat":
            self = .chat(
                text: try input.string("text"), chatLink: try input.required("chatLink").object().value,
                ownerSig: try input.member("ownerSig")?.object().value)
        default:
            self = .unknown(tag: type, text: try input.optionalString("text") ?? "unknown message type", json: input.value)
        }
    }
}

/// LinkPreview (chat-api.md §7.24); `content` (LinkContent) is carried as sent.
public struct LinkPreview: Hashable, Sendable, JSONEncodable {
    public var uri: String
    public var title: String
    public var description: String
    public var image: String
    public var content: CanonicalJSON?

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        uri = try input.string("uri")
        title = try input.string("title")
        description = try input.string("description")
        image = try input.string("image")
        content = try input.member("content")?.object().value
    }

    public var json: JSONValue {
        .record([
            "uri": .string(uri), "title": .string(title), "description": .string(description), "image": .string(image),
            "content": content.map(JSONValue.init),
        ])
    }
}

/// CryptoFile (chat-api.md §7.25): a path relative to the files folder, with the key and nonce when the file is
/// stored encrypted.
public struct CryptoFile: Hashable, Sendable, JSONEncodable {
    public var filePath: String
    public var cryptoArgs: CryptoFileArgs?

    init(filePath: String, cryptoArgs: CryptoFileArgs?) {
        self.filePath = filePath
        self.cryptoArgs = cryptoArgs
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        filePath = try input.string("filePath")
        cryptoArgs = try input.member("cryptoArgs").map { (a) throws(ChatError) in
            _ = try a.object()
            return CryptoFileArgs(fileKey: try a.string("fileKey"), fileNonce: try a.string("fileNonce"))
        }
    }

    public var json: JSONValue { .record(["filePath": .string(filePath), "cryptoArgs": cryptoArgs?.json]) }
}

/// CryptoFileArgs: base64url key and nonce.
public struct CryptoFileArgs: Hashable, Sendable, JSONEncodable {
    public var fileKey: String
    public var fileNonce: String

    public var json: JSONValue { .record(["fileKey": .string(fileKey), "fileNonce": .string(fileNonce)]) }
}

/// ComposedMessage (chat-api.md §7.24), the input of `/_send` and `/_create`: the legacy `filePath` key stands for a
/// plain `fileSource`.
struct ComposedMessage: Hashable, Sendable {
    var fileSource: CryptoFile?
    var quotedItemId: Int64?
    var msgContent: MsgContent
    /// Mention name → groupMemberId.
    var mentions: [String: Int64]

    init(msgContent: MsgContent) {
        self.msgContent = msgContent
        mentions = [:]
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        if let source = try input.member("fileSource") {
            fileSource = try CryptoFile(source)
        } else if let path = try input.optionalString("filePath") {
            fileSource = CryptoFile(filePath: path, cryptoArgs: nil)
        }
        quotedItemId = try input.optionalInteger("quotedItemId")
        msgContent = try MsgContent(input.required("msgContent"))
        mentions = [:]
        if let m = try input.member("mentions") {
            _ = try m.object()
            if case .object(let fields) = m.value {
                for key in fields.keys { mentions[key] = try m.required(key).integer() }
            }
        }
    }

    /// The messages of `json <[ComposedMessage]>` or `text <text>`; at least one.
    static func list(_ arg: TextOrJSON) throws(ChatError) -> [ComposedMessage] {
        switch arg {
        case .text(let text): return [ComposedMessage(msgContent: .text(text))]
        case .json(let raw):
            let items = try JSONInput(parsing: raw).array()
            guard !items.isEmpty else { throw .error(.commandError("Error in $: empty list of messages")) }
            return try items.map { (item) throws(ChatError) in try ComposedMessage(item) }
        }
    }
}

/// UpdatedMessage (chat-api.md §7.24), the input of `/_update item`.
struct UpdatedMessage: Hashable, Sendable {
    var msgContent: MsgContent
    var mentions: [String: Int64]

    init(_ arg: TextOrJSON) throws(ChatError) {
        switch arg {
        case .text(let text):
            msgContent = .text(text)
            mentions = [:]
        case .json(let raw):
            let input = try JSONInput(parsing: raw).object()
            msgContent = try MsgContent(input.required("msgContent"))
            mentions = [:]
            if let m = try input.member("mentions"), case .object(let fields) = try m.object().value {
                for key in fields.keys { mentions[key] = try m.required(key).integer() }
            }
        }
    }
}
