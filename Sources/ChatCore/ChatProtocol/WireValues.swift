internal import SimplexCrypto
internal import SimplexEncoding

/// Opaque bytes of the chat protocol that travel as padded base64url text like the random ids: probes, probe
/// hashes and contact request ids.
public struct WireBytes: EncodedRandomId {
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// A new probe for contact merging: like the random ids, the standard-base64 text of random bytes, here 32.
    public static func newProbe(random: [UInt8]) -> WireBytes { WireBytes(random: random) }

    /// What `x.info.probe.check` carries for this probe: SHA-256 of its bytes.
    public var probeHash: WireBytes { WireBytes(bytes: Digest.sha256(bytes)) }
}

extension EncodedRandomId {
    /// Reads the id from a message's JSON, naming the path when it is not one.
    init(_ input: JSONInput) throws(ChatError) {
        do {
            try self.init(json: input.value)
        } catch {
            switch error {
            case .notAString: throw input.fail("expected String, but encountered \(input.value.kindName)")
            case .notBase64URL(let text): throw input.fail("bad base64url \"\(text)\"")
            }
        }
    }
}

extension MsgReaction {
    /// The emoji the reference accepts, each one code point of this string (`mrEmojiChar`), so the heart is U+2764
    /// alone.
    static let allowedEmoji = "👍👎😀😂😢❤️🚀✅"

    /// Reads a reaction as a peer's message carries it: an emoji outside the allowed ones, or not one code point,
    /// is kept as unknown (shown as such) rather than refused.
    init(wire input: JSONInput) throws(ChatError) {
        _ = try input.object()
        let tag = try input.string("type")
        if tag == "emoji", case .string(let text)? = try input.member("emoji")?.value, text.unicodeScalars.count == 1,
            let s = text.unicodeScalars.first, Self.allowedEmoji.unicodeScalars.contains(s)
        {
            self = .emoji(text)
        } else {
            self = .unknown(tag: tag, json: input.value)
        }
    }
}

extension JSONValue {
    /// The value as aeson writes a `J.Object` built by the core's encoders: every object's keys sorted by code
    /// point, at every depth. Chat message `params` are such objects (only the container itself keeps its order).
    var keysSorted: JSONValue {
        switch self {
        case .array(let items): return .array(items.map(\.keysSorted))
        case .object(let fields):
            let sorted = fields.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            return .object(sorted.map { JSONField($0.key, $0.value.keysSorted) })
        case .fragment(let f): return f.tree.keysSorted
        default: return self
        }
    }
}
