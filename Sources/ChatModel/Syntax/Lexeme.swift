/// How one kind of value is written in a command's text (chat-api.md §3.1): how to read it, how to write
/// it, what to call it in an error message, and sample texts for the grammar walk test.
///
/// A lexeme may write only some values of its type (a partial inverse): `write` returns `false` for the
/// others, and a grammar's alternatives are then tried in order until one can write the value.
struct Lexeme<Value>: Sendable {
    /// What the lexeme accepts, for "expected …" messages.
    let expected: [String]
    let read: @Sendable (inout CommandScanner) -> Value?
    let write: @Sendable (Value, inout String) -> Bool
    /// Texts the lexeme accepts; the canonical ones are written back unchanged.
    let samples: [SyntaxSample]

    init(
        expected: [String],
        samples: [SyntaxSample],
        read: @escaping @Sendable (inout CommandScanner) -> Value?,
        write: @escaping @Sendable (Value, inout String) -> Bool
    ) {
        self.expected = expected
        self.samples = samples
        self.read = read
        self.write = write
    }

    /// Reads a value; on failure rewinds and records what was expected.
    func parse(_ scanner: inout CommandScanner) -> Value? {
        let start = scanner.position
        if let value = read(&scanner) {
            return value
        }
        scanner.position = start
        for e in expected {
            scanner.expected(e, at: start)
        }
        return nil
    }

    /// The same text, read into another type: `wrap` after reading, `unwrap` (`nil`: not writable here)
    /// before writing.
    func map<Other>(
        _ wrap: @escaping @Sendable (Value) -> Other,
        _ unwrap: @escaping @Sendable (Other) -> Value?
    ) -> Lexeme<Other> {
        let read = self.read
        let write = self.write
        return Lexeme<Other>(
            expected: expected, samples: samples,
            read: { scanner in read(&scanner).map(wrap) },
            write: { value, out in unwrap(value).map { write($0, &out) } ?? false })
    }

    /// The value, alone on a scanner, as a check for samples.
    func value(of sample: String) -> Value? {
        var scanner = CommandScanner(sample)
        guard let value = read(&scanner), scanner.atEnd else { return nil }
        return value
    }
}

/// A text a grammar piece accepts: whether writing what it reads gives the same text back (`canonical`),
/// and another spelling of the same value (`alternate`: other whitespace, an alias, pretty JSON).
struct SyntaxSample: Hashable, Sendable {
    var text: String
    var canonical: Bool
    var alternate: String

    init(_ text: String, canonical: Bool = true, alternate: String? = nil) {
        self.text = text
        self.canonical = canonical
        self.alternate = alternate ?? text
    }

    static func + (a: SyntaxSample, b: SyntaxSample) -> SyntaxSample {
        SyntaxSample(a.text + b.text, canonical: a.canonical && b.canonical, alternate: a.alternate + b.alternate)
    }
}

/// Values with one usual text form, so a grammar can name the field alone: `.param(\.userId)`.
protocol TextArgument {
    static var lexeme: Lexeme<Self> { get }
}

extension Lexeme where Value == Int64 {
    /// Unsigned decimal digits (attoparsec `decimal`), e.g. an id.
    static let decimal = Lexeme(
        expected: ["a number"], samples: [SyntaxSample("42")],
        read: { $0.decimal() },
        write: { value, out in
            guard value >= 0 else { return false }
            out += String(value)
            return true
        })
}

extension Int64: TextArgument {
    static var lexeme: Lexeme<Int64> { .decimal }
}

extension Lexeme where Value == Bool {
    /// `on` or `off`.
    static let onOff = Lexeme(
        expected: ["\"on\"", "\"off\""], samples: [SyntaxSample("on"), SyntaxSample("off")],
        read: { scanner in
            if scanner.match(Array("on".utf8)) { return true }
            if scanner.match(Array("off".utf8)) { return false }
            return nil
        },
        write: { value, out in
            out += value ? "on" : "off"
            return true
        })
}

extension Bool: TextArgument {
    static var lexeme: Lexeme<Bool> { .onOff }
}

extension Lexeme where Value == String {
    /// One or more characters up to the next whitespace (a link, a server address, a key, a name token).
    static let word = token("a word without spaces", sample: "abc_DEF-123")

    /// A token that starts with a URI scheme (`simplex:/…`, `https://…`, `smp://…`, `xrcp:/…`), as SimpleX's
    /// own `strP` parsers for links and servers require.
    static let uri = token("a link", sample: "simplex:/contact#/?v=2-7&smp=smp%3A%2F%2Fu%40h.example%2Fq") {
        $0.utf8.first.map(isLetter) == true && hasScheme($0)
    }

    /// The rest of the line, taken verbatim; may be empty.
    static let rest = Lexeme(
        expected: ["text"], samples: [SyntaxSample("some text, with spaces")],
        read: { $0.rest() },
        write: { value, out in
            out += value
            return true
        })

    /// The rest of the line, at least one character.
    static let text = Lexeme(
        expected: ["text"], samples: [SyntaxSample("some text, with spaces")],
        read: { scanner in
            let text = scanner.rest()
            return text.isEmpty ? nil : text
        },
        write: { value, out in
            out += value
            return !value.isEmpty
        })

    /// A token of characters accepted by `valid`, at least one.
    static func token(
        _ expected: String,
        sample: String,
        _ valid: @escaping @Sendable (String) -> Bool = { _ in true }
    ) -> Lexeme {
        Lexeme(
            expected: [expected], samples: [SyntaxSample(sample)],
            read: { scanner in scanner.token().flatMap { valid($0) ? $0 : nil } },
            write: { value, out in
                guard !value.isEmpty, !value.utf8.contains(where: CommandScanner.isSpace), valid(value) else {
                    return false
                }
                out += value
                return true
            })
    }

    private static func isLetter(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
    }

    private static func hasScheme(_ token: String) -> Bool {
        for c in token.utf8 {
            if c == 0x3A { return true }  // ':' ends the scheme
            if !(isLetter(c) || CommandScanner.isDigit(c) || c == 0x2B || c == 0x2D || c == 0x2E) { return false }
        }
        return false
    }
}

extension Lexeme {
    /// One of a fixed set of words, each written as given (tried in order, like attoparsec's `<|>`).
    static func words(_ table: [(String, Value)], samples: [String]? = nil) -> Lexeme where Value: Equatable & Sendable {
        let encoded = table.map { (Array($0.0.utf8), $0.1) }
        return Lexeme(
            expected: table.map { "\"\($0.0)\"" },
            samples: (samples ?? table.map(\.0)).map { SyntaxSample($0) },
            read: { scanner in
                for (word, value) in encoded where scanner.match(word) {
                    return value
                }
                return nil
            },
            write: { value, out in
                guard let word = table.first(where: { $0.1 == value })?.0 else { return false }
                out += word
                return true
            })
    }
}

extension Lexeme where Value: RawRepresentable & CaseIterable & Equatable & Sendable, Value.RawValue == String {
    /// A whole token that is one of the enumeration's raw values (SimpleX `strP` for text enumerations).
    static var enumeration: Lexeme {
        let all = Array(Value.allCases)
        return Lexeme(
            expected: all.map { "\"\($0.rawValue)\"" },
            samples: all.map { SyntaxSample($0.rawValue) },
            read: { scanner in scanner.token().flatMap(Value.init(rawValue:)) },
            write: { value, out in
                out += value.rawValue
                return true
            })
    }
}
