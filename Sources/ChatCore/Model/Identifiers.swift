public import SimplexEncoding

/// AgentUserId (chat-api.md §7.4, `User.agentUserId`): the agent's id of a user. The official encoder writes it as
/// its decimal text (`strToJSON`, `"agentUserId":"1"`) and its parser takes only that text (`strParseJSON` with
/// `A.decimal`): a JSON number is refused.
public struct AgentUserId: Hashable, Sendable, JSONWritable {
    public var value: Int64

    public init(_ value: Int64) { self.value = value }

    /// Why a JSON value is not an agent user id.
    public enum ParseError: Error, Equatable, Sendable {
        /// Not a JSON string (the official parser says `expected String, but encountered Number`).
        case notAString
        /// Not one or more decimal digits, or past Int64.
        case notDecimal(String)
    }

    /// Parses the JSON form: a string of decimal digits, nothing else (no sign, no spaces).
    public init(json: CanonicalJSON) throws(ParseError) {
        guard case .string(let text) = json else { throw .notAString }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(text) else {
            throw .notDecimal(text)
        }
        self.value = value
    }

    public func write(to w: inout JSONWriter) { w.string(String(value)) }
}

/// The ids the official core makes with `encodedRandomBytes` and writes with `strToJSON`: `SharedMsgId`
/// (Protocol.hs; `meta.itemSharedMsgId`, `quotedItem.sharedMsgId`, the chat protocol's `msgId`, smp.md §6.2) and
/// `MemberId` (Types.hs; `memberId`). The id itself is the standard-alphabet base64 text of 12 random bytes
/// (16 characters), and that text is what the store keeps and the binary chat message carries; its JSON is the text
/// base64url-encoded once more, padded (24 characters: `MEI1Q0xyT0lsVTdkSzZpYw==` for `0B5CLrOIlU7dK6ic`).
public protocol EncodedRandomId: StrEncodedBytes {}

/// The byte strings the official core writes with `strToJSON` (AgentConnId, AgentInvId, XContactId, GroupLinkId, and
/// the random ids): base64url, padded. The parser also takes them unpadded, as `base64urlP` does.
public protocol StrEncodedBytes: Hashable, Sendable, JSONWritable {
    /// The id as the store and the binary wire have it.
    var bytes: [UInt8] { get }
    init(bytes: [UInt8])
}

extension StrEncodedBytes {
    /// The JSON text: base64url of the bytes, padded (`strEncode` of a ByteString).
    public var jsonText: String { Base64.encode(bytes, alphabet: .url) }

    public func write(to w: inout JSONWriter) { w.string(jsonText) }

    /// Parses the JSON text as the official parser does: base64url (the URL alphabet, then `=` padding), padded or
    /// not, not empty.
    public init(jsonText: String) throws(EncodedRandomIdError) {
        guard let decoded = try? Base64.decode(jsonText, alphabet: .url) else { throw .notBase64URL(jsonText) }
        self.init(bytes: decoded)
    }

    init(_ input: JSONInput) throws(ChatError) {
        let text = try input.string()
        do { try self.init(jsonText: text) } catch { throw input.fail("invalid base64url \"\(text)\"") }
    }
}

/// Why a JSON value is not an encoded random id.
public enum EncodedRandomIdError: Error, Equatable, Sendable {
    case notAString
    /// Not base64url (`base64urlP`: letters, digits, `-`, `_`, then `=` padding), or empty.
    case notBase64URL(String)
}

extension EncodedRandomId {
    /// A new id from 12 random bytes, as `encodedRandomBytes gVar 12` makes it.
    public init(random: [UInt8]) { self.init(bytes: Array(Base64.encode(random, alphabet: .standard).utf8)) }

    public init(json: CanonicalJSON) throws(EncodedRandomIdError) {
        guard case .string(let text) = json else { throw .notAString }
        try self.init(jsonText: text)
    }

    /// The id as text, for the store's text columns: it is ASCII base64 when the core made it.
    var storeText: String { String(decoding: bytes, as: UTF8.self) }
}

/// SharedMsgId (Protocol.hs): a message's id among the members of its chat. See `EncodedRandomId`.
public struct SharedMsgId: EncodedRandomId {
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
}

/// MemberId (Types.hs): a member's id in its group, the same for every member. See `EncodedRandomId`.
public struct MemberId: EncodedRandomId {
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
}
