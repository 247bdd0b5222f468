/// A command grammar over the command's argument value `Args`: ONE description that both reads a line
/// into `Args` and writes `Args` back as its canonical line (chat-api.md §3).
///
/// A grammar is a sequence of pieces, written as an array literal whose strings are literals:
///
///     ["/_get chat ", .param(\.chatRef), .optional(" content=", \.contentTag), " ", .param(\.pagination),
///      .optional(" search=", \.search, .rest)]
///
/// Reading follows the core's attoparsec parser: pieces in order, alternatives tried in order, greedy
/// optional parts that fall back to absent when they do not match. Writing emits what reading accepts;
/// optional parts equal to their default are left out, and of several alternatives the first that can
/// write the value is used (the others read aliases).
struct Syntax<Args>: Sendable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral {
    /// Reads the piece into `args`; `false` when it does not match (the caller rewinds).
    let read: @Sendable (inout CommandScanner, inout Args) -> Bool
    /// Writes the piece for `args`; `false` when this piece cannot express the value (the caller rewinds).
    let write: @Sendable (Args, inout String) -> Bool
    /// Texts the piece accepts, optional parts present and every alternative used at least once.
    let samples: @Sendable () -> [SyntaxSample]
    /// The shortest text the piece accepts: optional parts absent, first alternatives.
    let minimal: @Sendable () -> SyntaxSample
    /// Texts one of which every text the piece reads starts with, when known: a line starting with none of them is
    /// not tried (a parse tries hundreds of grammars in turn).
    let leading: [[UInt8]]?

    init(
        read: @escaping @Sendable (inout CommandScanner, inout Args) -> Bool,
        write: @escaping @Sendable (Args, inout String) -> Bool,
        samples: @escaping @Sendable () -> [SyntaxSample],
        minimal: @escaping @Sendable () -> SyntaxSample,
        leading: [[UInt8]]? = nil
    ) {
        self.read = read
        self.write = write
        self.samples = samples
        self.minimal = minimal
        self.leading = leading
    }

    /// Whether a line starting at `bytes` could be read by this piece.
    func mayRead(_ bytes: [UInt8]) -> Bool {
        guard let leading else { return true }
        return leading.contains { bytes.starts(with: $0) }
    }

    init(stringLiteral value: String) {
        self = .literal(value)
    }

    init(arrayLiteral elements: Syntax...) {
        self = .sequence(elements)
    }

    /// Reads `args` from the whole of `scanner`'s remaining text.
    func parse(_ scanner: inout CommandScanner, into args: inout Args) -> Bool {
        let start = scanner.position
        guard read(&scanner, &args) else {
            scanner.position = start
            return false
        }
        guard scanner.atEnd else {
            scanner.expected("the end of the command", at: scanner.position)
            scanner.position = start
            return false
        }
        return true
    }

    /// The canonical text of `args`, or `nil` if this grammar cannot express it.
    func text(_ args: Args) -> String? {
        var out = ""
        return write(args, &out) ? out : nil
    }
}

extension Syntax {
    /// Exact text (case-sensitive); `aliases` are accepted too and never written.
    static func literal(_ text: String, aliases: [String] = []) -> Syntax {
        let encoded = ([text] + aliases).map { Array($0.utf8) }
        return Syntax(
            read: { scanner, _ in encoded.contains { scanner.literal($0) } },
            write: { _, out in
                out += text
                return true
            },
            samples: { aliases.isEmpty ? [SyntaxSample(text)] : aliases.map { SyntaxSample(text, alternate: $0) } },
            minimal: { SyntaxSample(text) }, leading: encoded)
    }

    /// One whitespace character, as attoparsec's `A.space` between arguments; written as a space.
    static var space: Syntax {
        Syntax(
            read: { scanner, _ in scanner.whitespace() },
            write: { _, out in
                out += " "
                return true
            },
            samples: { [SyntaxSample(" ", alternate: "\t")] },
            minimal: { SyntaxSample(" ") })
    }

    /// Any whitespace, possibly none (before a JSON value, which the core's `jsonP` trims); written as
    /// one space.
    static var blank: Syntax {
        Syntax(
            read: { scanner, _ in
                _ = scanner.take(while: CommandScanner.isSpace)
                return true
            },
            write: { _, out in
                out += " "
                return true
            },
            samples: { [SyntaxSample(" ", alternate: "\n "), SyntaxSample(" ", alternate: "")] },
            minimal: { SyntaxSample(" ") })
    }

    /// A required value.
    static func param<V>(_ field: any WritableKeyPath<Args, V> & Sendable, _ lexeme: Lexeme<V>) -> Syntax {
        Syntax(
            read: { scanner, args in
                guard let value = lexeme.parse(&scanner) else { return false }
                args[keyPath: field] = value
                return true
            },
            write: { args, out in lexeme.write(args[keyPath: field], &out) },
            samples: { lexeme.samples },
            minimal: { lexeme.samples[0] })
    }

    static func param<V: TextArgument>(_ field: any WritableKeyPath<Args, V> & Sendable) -> Syntax {
        param(field, V.lexeme)
    }

    /// `prefix` and a value, or nothing (`nil`).
    static func optional<V>(
        _ prefix: Syntax,
        _ field: any WritableKeyPath<Args, V?> & Sendable,
        _ lexeme: Lexeme<V>
    ) -> Syntax {
        Syntax(
            read: { scanner, args in
                let start = scanner.position
                var attempt = args
                if prefix.read(&scanner, &attempt), let value = lexeme.parse(&scanner) {
                    args = attempt
                    args[keyPath: field] = value
                } else {
                    scanner.position = start
                    args[keyPath: field] = nil
                }
                return true
            },
            write: { args, out in
                guard let value = args[keyPath: field] else { return true }
                return prefix.write(args, &out) && lexeme.write(value, &out)
            },
            samples: { present(prefix, lexeme.samples) + [SyntaxSample("")] },
            minimal: { SyntaxSample("") })
    }

    static func optional<V: TextArgument>(_ prefix: Syntax, _ field: any WritableKeyPath<Args, V?> & Sendable) -> Syntax {
        optional(prefix, field, V.lexeme)
    }

    /// `prefix` and a value, or nothing meaning `defaultValue`; written only when not the default.
    static func flag<V: Equatable & Sendable>(
        _ prefix: Syntax,
        _ field: any WritableKeyPath<Args, V> & Sendable,
        _ lexeme: Lexeme<V>,
        default defaultValue: V
    ) -> Syntax {
        Syntax(
            read: { scanner, args in
                let start = scanner.position
                var attempt = args
                if prefix.read(&scanner, &attempt), let value = lexeme.parse(&scanner) {
                    args = attempt
                    args[keyPath: field] = value
                } else {
                    scanner.position = start
                    args[keyPath: field] = defaultValue
                }
                return true
            },
            write: { args, out in
                let value = args[keyPath: field]
                guard value != defaultValue else { return true }
                return prefix.write(args, &out) && lexeme.write(value, &out)
            },
            samples: {
                let values = lexeme.samples.map { sample in
                    var sample = sample
                    sample.canonical = sample.canonical && lexeme.value(of: sample.text) != defaultValue
                    return sample
                }
                return present(prefix, values) + [SyntaxSample("")]
            },
            minimal: { SyntaxSample("") })
    }

    static func flag<V: TextArgument & Equatable & Sendable>(
        _ prefix: Syntax,
        _ field: any WritableKeyPath<Args, V> & Sendable,
        default defaultValue: V
    ) -> Syntax {
        flag(prefix, field, V.lexeme, default: defaultValue)
    }

    /// `marker` present means `true`, absent `false` (e.g. `[ force=on]`, `[ incognito]`).
    static func marker(_ marker: Syntax, _ field: any WritableKeyPath<Args, Bool> & Sendable) -> Syntax {
        Syntax(
            read: { scanner, args in
                let start = scanner.position
                var attempt = args
                if marker.read(&scanner, &attempt) {
                    args = attempt
                    args[keyPath: field] = true
                } else {
                    scanner.position = start
                    args[keyPath: field] = false
                }
                return true
            },
            write: { args, out in args[keyPath: field] ? marker.write(args, &out) : true },
            samples: { marker.samples() + [SyntaxSample("")] },
            minimal: { SyntaxSample("") })
    }

    /// `[ incognito=on|off]`: the core's `incognitoOnOffP` (`A.space`, then `incognito=`), default off.
    static func incognito(_ field: any WritableKeyPath<Args, Bool> & Sendable) -> Syntax {
        .flag([.space, "incognito="], field, default: false)
    }

    /// The first alternative that matches; written with the first that can express the value.
    static func oneOf(_ alternatives: [Syntax]) -> Syntax {
        Syntax(
            read: { scanner, args in
                let start = scanner.position
                for alternative in alternatives {
                    var attempt = args
                    if alternative.read(&scanner, &attempt) {
                        args = attempt
                        return true
                    }
                    scanner.position = start
                }
                return false
            },
            write: { args, out in
                for alternative in alternatives {
                    var attempt = ""
                    if alternative.write(args, &attempt) {
                        out += attempt
                        return true
                    }
                }
                return false
            },
            samples: { alternatives.flatMap { $0.samples() } },
            minimal: { alternatives[0].minimal() },
            leading: alternatives.allSatisfy { $0.leading != nil } ? alternatives.flatMap { $0.leading ?? [] } : nil)
    }

    /// A form that is read (an alias, a legacy spelling) but never written.
    static func parseOnly(_ syntax: Syntax) -> Syntax {
        Syntax(
            read: syntax.read,
            write: { _, _ in false },
            samples: { syntax.samples().map { SyntaxSample($0.text, canonical: false, alternate: $0.alternate) } },
            minimal: { SyntaxSample(syntax.minimal().text, canonical: false, alternate: syntax.minimal().alternate) },
            leading: syntax.leading)
    }

    /// Pieces one after another.
    static func sequence(_ parts: [Syntax]) -> Syntax {
        Syntax(
            read: { scanner, args in
                for part in parts where !part.read(&scanner, &args) {
                    return false
                }
                return true
            },
            write: { args, out in
                for part in parts where !part.write(args, &out) {
                    return false
                }
                return true
            },
            samples: {
                // Variant i takes each part's variant i (or its last): every variant of every part is used.
                let variants = parts.map { $0.samples() }
                let count = variants.map(\.count).max() ?? 1
                return (0..<count).map { i in
                    variants.reduce(SyntaxSample("")) { sample, part in sample + part[min(i, part.count - 1)] }
                }
            },
            minimal: { parts.reduce(SyntaxSample("")) { $0 + $1.minimal() } }, leading: parts.first?.leading)
    }

    private static func present(_ prefix: Syntax, _ values: [SyntaxSample]) -> [SyntaxSample] {
        let prefixes = prefix.samples()
        return values.indices.map { i in prefixes[min(i, prefixes.count - 1)] + values[i] }
    }
}

extension Lexeme {
    /// A value written with its own grammar (e.g. a link and its optional short link); the grammar's
    /// pieces say what they expect.
    static func record(_ syntax: Syntax<Value>, blank: Value) -> Lexeme where Value: Sendable {
        Lexeme(
            expected: [],
            samples: syntax.samples(),
            read: { scanner in
                var value = blank
                return syntax.read(&scanner, &value) ? value : nil
            },
            write: { value, out in syntax.write(value, &out) })
    }
}
