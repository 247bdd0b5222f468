/// A chat tag of the user (chat-api.md §7.26, ChatTag).
public struct ChatTag: Hashable, Sendable, JSONEncodable {
    public var chatTagId: Int64
    public var chatTagText: String
    public var chatTagEmoji: String?

    public var json: JSONValue {
        .record(["chatTagId": .integer(chatTagId), "chatTagText": .string(chatTagText), "chatTagEmoji": chatTagEmoji?.json])
    }
}

/// ChatTagData (chat-api.md §7.26), the argument of `/_create tag` and `/_update tag`.
struct ChatTagData {
    var emoji: String?
    var text: String

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        emoji = try input.optionalString("emoji")
        text = try input.string("text")
    }
}
