internal import SimplexMarkdown

/// The markdown of an item's text (chat-api.md §7.19 `formattedText`, §7.20 `hasLink`).
extension MsgContent {
    /// The parsed text, absent for text without markdown.
    var formattedText: JSONValue? {
        Markdown.parse(text).map { $0.json.jsonValue }
    }

    /// A link preview, or a link in the text.
    var hasLink: Bool {
        if case .link = self { return true }
        return Markdown.hasLink(text)
    }
}

extension MarkdownJSON {
    var jsonValue: JSONValue {
        switch self {
        case .string(let s): .string(s)
        case .array(let items): .array(items.map(\.jsonValue))
        case .object(let fields): .object(fields.map { JSONField($0.key, $0.value.jsonValue) })
        }
    }
}
