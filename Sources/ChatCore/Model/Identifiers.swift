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
public protocol EncodedRandomId: Hashable, Sendable, JSONWritable {
    /// The id as the store and the binary wire have it.
    var bytes: [UInt8] { get }
    init(bytes: [UInt8])
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

    /// The JSON text: base64url of the id, padded (`strEncode` of a ByteString).
    public var jsonText: String { Base64.encode(bytes, alphabet: .url) }

    /// Parses the JSON text as the official parser does: base64url, padded or not.
    public init(jsonText: String) throws(EncodedRandomIdError) {
        let body = jsonText.utf8.prefix { $0 != UInt8(ascii: "=") }
        let isURLCharacter: (UInt8) -> Bool = {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D
                || $0 == 0x5F
        }
        guard !body.isEmpty, body.allSatisfy(isURLCharacter),
            let decoded = try? Base64.decode(jsonText, alphabet: .url)
        else { throw .notBase64URL(jsonText) }
        self.init(bytes: decoded)
    }

    public init(json: CanonicalJSON) throws(EncodedRandomIdError) {
        guard case .string(let text) = json else { throw .notAString }
        try self.init(jsonText: text)
    }

    /// The id as text, for the store's text columns: it is ASCII base64 when the core made it.
    var storeText: String { String(decoding: bytes, as: UTF8.self) }

    public func write(to w: inout JSONWriter) { w.string(jsonText) }
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
