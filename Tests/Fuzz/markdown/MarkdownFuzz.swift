// Message markdown and web links (chat-api.md §7.19, §9.2): a parse never traps, and the runs it cuts the text
// into have the text itself as their sources, in order (one final newline aside).
@testable import SimplexMarkdown

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMarkdown(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = fuzzText(fuzzBytes(data, size))
    if let spans = Markdown.parsedSpans(text) {
        let sources = Array(spans.map(\.source).joined().unicodeScalars)
        var expected = Array(text.unicodeScalars)
        if sources.count < expected.count, expected.last == "\n" { expected.removeLast() }
        invariant(sources == expected, "the sources of \(spans) do not concatenate to \(text.debugDescription)")
    }
    _ = Markdown.parse(text)
    _ = try? WebURI(parsing: text)
    return 0
}
