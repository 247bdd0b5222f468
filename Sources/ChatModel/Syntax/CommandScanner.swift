/// A cursor over one command line's UTF-8 bytes (chat-api.md §1.1, §3).
///
/// Grammars are tried as a PEG, like the core's attoparsec parser: alternatives in order, the first that
/// consumes the whole line wins, and a failed alternative rewinds the cursor. The scanner remembers the
/// farthest point any attempt reached and what would have been accepted there, which becomes the
/// `commandError` message when nothing matches.
struct CommandScanner {
    let bytes: [UInt8]
    var position = 0
    /// The farthest position where something was expected and not found, and what was expected there.
    private(set) var failurePosition = -1
    private(set) var expectations: [String] = []

    /// Where the line's first word ends: a failure before it means an unknown command, whatever was
    /// expected there, so no expectations are kept for it (keeping them costs a string for nearly every
    /// grammar tried).
    let commandWordEnd: Int
    let isCommandLine: Bool

    /// A scanner over a command line (`commandLine`), or over a value such as JSON.
    init(_ bytes: [UInt8], commandLine: Bool = false) {
        self.bytes = bytes
        self.isCommandLine = commandLine
        self.commandWordEnd = commandLine ? bytes.firstIndex(where: Self.isSpace) ?? bytes.count : 0
    }

    init(_ text: String) {
        self.init(Array(text.utf8))
    }

    var atEnd: Bool { position == bytes.count }

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    /// Records that `expectation` (a quoted literal or a description such as "a number") would have been
    /// accepted at `position`; only the farthest position's expectations are kept.
    mutating func expected(_ expectation: @autoclosure () -> String, at position: Int) {
        guard position >= failurePosition else { return }
        guard position >= commandWordEnd else {
            failurePosition = position
            expectations = []
            return
        }
        let expectation = expectation()
        if position > failurePosition {
            failurePosition = position
            expectations = [expectation]
        } else if !expectations.contains(expectation) {
            expectations.append(expectation)
        }
    }

    /// Consumes `literal` exactly (case-sensitive). On a mismatch the cursor stays and what was still
    /// missing is recorded at the first byte that differs.
    mutating func literal(_ literal: [UInt8]) -> Bool {
        var i = 0
        while i < literal.count, position + i < bytes.count, bytes[position + i] == literal[i] {
            i += 1
        }
        if i == literal.count {
            position += i
            return true
        }
        // Report what is missing from where the input stops matching when whole words matched
        // ("/_unread" → `" chat "`), else the whole literal (" count=…" is not a misspelt " content=").
        if i > 0, literal[i - 1] == 0x20 || literal[i] == 0x20 {
            expected(Self.quoted(literal[i...]), at: position + i)
        } else {
            expected(Self.quoted(literal[...]), at: position)
        }
        return false
    }

    /// Consumes `literal` if it is next, recording nothing otherwise (for use inside a lexeme, which
    /// records its own expectation).
    mutating func match(_ literal: [UInt8]) -> Bool {
        guard bytes.count - position >= literal.count, bytes[position..<position + literal.count].elementsEqual(literal) else {
            return false
        }
        position += literal.count
        return true
    }

    /// Consumes one whitespace character as attoparsec's `space` does: space, tab, LF, VT, FF or CR.
    mutating func whitespace() -> Bool {
        if let c = current, Self.isSpace(c) {
            position += 1
            return true
        }
        expected("a space", at: position)
        return false
    }

    /// Consumes the longest run of bytes satisfying `predicate`, possibly empty.
    mutating func take(while predicate: (UInt8) -> Bool) -> ArraySlice<UInt8> {
        let start = position
        while let c = current, predicate(c) {
            position += 1
        }
        return bytes[start..<position]
    }

    /// Unsigned decimal digits as an `Int64` (attoparsec `decimal`); refuses values above `Int64.max`.
    mutating func decimal() -> Int64? {
        let start = position
        var value: Int64 = 0
        while let c = current, c >= 0x30, c <= 0x39 {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int64(c - 0x30))
            if o1 || o2 {
                position = start
                return nil
            }
            value = sum
            position += 1
        }
        return position > start ? value : nil
    }

    /// `decimal()`, recording "a number" where it is missing (inside a lexeme, after a keyword).
    mutating func number(_ what: String = "a number") -> Int64? {
        if let value = decimal() { return value }
        expected(what, at: position)
        return nil
    }

    /// One or more bytes up to the next whitespace character or the end, as text.
    mutating func token() -> String? {
        let run = take { !Self.isSpace($0) }
        return run.isEmpty ? nil : Self.text(run)
    }

    /// Everything up to the end of the line, possibly empty.
    mutating func rest() -> String {
        let run = bytes[position...]
        position = bytes.count
        return Self.text(run)
    }

    static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || (c >= 0x09 && c <= 0x0D)
    }

    static func isDigit(_ c: UInt8) -> Bool {
        c >= 0x30 && c <= 0x39
    }

    /// UTF-8 text from bytes; the input came from a Swift `String`, so whole tokens are valid UTF-8.
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    static func quoted(_ bytes: ArraySlice<UInt8>) -> String {
        "\"" + text(bytes) + "\""
    }
}
