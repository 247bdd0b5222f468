internal import SimplexMarkdown

/// The markdown of an item's text (chat-api.md §7.19 `formattedText`, §7.20 `hasLink`).
extension MsgContent {
    /// The text parsed once for both uses: `formattedText` (absent for text without markdown) and `hasLink` (a link
    /// preview, or a link in the text).
    var markdown: (formattedText: JSONValue?, hasLink: Bool) {
        let parsed = Markdown.parse(text)
        let linkInText = parsed?.contains { $0.format?.isLink == true } ?? false
        let isLinkPreview = if case .link = self { true } else { false }
        return (parsed.map { $0.json.jsonValue }, isLinkPreview || linkInText)
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
