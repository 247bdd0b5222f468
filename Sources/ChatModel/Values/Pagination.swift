/// Which items of a chat to load, `<pagination>` (chat-api.md §3.1, ChatPagination).
public enum ChatPagination: Hashable, Sendable {
    /// `count=<n>`: the last n items.
    case last(count: Int64)
    /// `after=<itemId> count=<n>`.
    case after(chatItemId: Int64, count: Int64)
    /// `before=<itemId> count=<n>`.
    case before(chatItemId: Int64, count: Int64)
    /// `around=<itemId> count=<n>`.
    case around(chatItemId: Int64, count: Int64)
    /// `initial=<n>`: a page around the first unread item.
    case initial(count: Int64)
}

/// Which chats to list, `<timePagination>` (chat-api.md §3.1, PaginationByTime). Times are ISO-8601 UTC
/// tokens as sent (e.g. `2025-06-01T09:30:12Z`).
public enum TimePagination: Hashable, Sendable {
    /// `count=<n>`.
    case last(count: Int64)
    /// `after=<time> count=<n>`.
    case after(time: String, count: Int64)
    /// `before=<time> count=<n>`.
    case before(time: String, count: Int64)
}

extension ChatPagination: TextArgument {
    static var lexeme: Lexeme<ChatPagination> { chatPaginationLexeme }
}

extension TimePagination: TextArgument {
    static var lexeme: Lexeme<TimePagination> { timePaginationLexeme }
}

private let chatPaginationLexeme = Lexeme<ChatPagination>(
    expected: ["\"count=\"", "\"after=\"", "\"before=\"", "\"around=\"", "\"initial=\""],
    samples: ["count=20", "after=10 count=5", "before=11 count=6", "around=12 count=7", "initial=8"].map {
        SyntaxSample($0)
    },
    read: { scanner in
        if scanner.match(Array("count=".utf8)) { return scanner.number().map { .last(count: $0) } }
        if scanner.match(Array("initial=".utf8)) { return scanner.number().map { .initial(count: $0) } }
        for (word, make) in anchored {
            if scanner.match(Array(word.utf8)) {
                guard let id = scanner.number("a chat item id"), let count = readCount(&scanner) else { return nil }
                return make(id, count)
            }
        }
        return nil
    },
    write: { pagination, out in
        switch pagination {
        case .last(let count): out += "count=\(count)"
        case .after(let id, let count): out += "after=\(id) count=\(count)"
        case .before(let id, let count): out += "before=\(id) count=\(count)"
        case .around(let id, let count): out += "around=\(id) count=\(count)"
        case .initial(let count): out += "initial=\(count)"
        }
        return true
    })

private let anchored: [(String, @Sendable (Int64, Int64) -> ChatPagination)] = [
    ("after=", { .after(chatItemId: $0, count: $1) }),
    ("before=", { .before(chatItemId: $0, count: $1) }),
    ("around=", { .around(chatItemId: $0, count: $1) }),
]

/// ` count=<n>` after an anchor (the separator is attoparsec's `A.space`).
private func readCount(_ scanner: inout CommandScanner) -> Int64? {
    guard scanner.whitespace(), scanner.match(Array("count=".utf8)) else {
        scanner.expected("\" count=\"", at: scanner.position)
        return nil
    }
    return scanner.number()
}

private let timePaginationLexeme = Lexeme<TimePagination>(
    expected: ["\"count=\"", "\"after=\"", "\"before=\""],
    samples: ["count=50", "after=2025-06-01T09:30:12Z count=10", "before=2025-06-01T09:30:12.123456Z count=10"].map {
        SyntaxSample($0)
    },
    read: { scanner in
        if scanner.match(Array("count=".utf8)) { return scanner.number().map { .last(count: $0) } }
        let after = scanner.match(Array("after=".utf8))
        guard after || scanner.match(Array("before=".utf8)) else { return nil }
        guard let time = scanner.token() else {
            scanner.expected("an ISO-8601 time", at: scanner.position)
            return nil
        }
        guard let count = readCount(&scanner) else { return nil }
        return after ? .after(time: time, count: count) : .before(time: time, count: count)
    },
    write: { pagination, out in
        switch pagination {
        case .after(let time, _), .before(let time, _):
            guard !time.isEmpty, !time.utf8.contains(where: CommandScanner.isSpace) else { return false }
        case .last: break
        }
        switch pagination {
        case .last(let count): out += "count=\(count)"
        case .after(let time, let count): out += "after=\(time) count=\(count)"
        case .before(let time, let count): out += "before=\(time) count=\(count)"
        }
        return true
    })
