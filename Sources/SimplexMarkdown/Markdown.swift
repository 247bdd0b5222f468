/// SimpleX's message markdown: `*bold*`, `_italic_`, `~strike~`, `` `snippet` ``, `#secret#`, `!1 colored!`, links,
/// `[text](link)`, SimpleX links, `@mentions`, `/commands`, emails and phone numbers.
///
/// Markers count only where a fragment starts: at the start of a line, after spaces, or right after another
/// fragment. Each line is parsed on its own; a parse never fails, text that is not markdown stays plain.
public enum Markdown {
    /// The formatted texts of a message, or nil when nothing in it is formatted (the core then omits
    /// `formattedText`). As in the core, one trailing newline is not kept.
    public static func parse(_ text: String) -> [FormattedText]? {
        spans(text)?.map { FormattedText($0.text, $0.format) }
    }

    /// Whether the text has a link (`CIMeta.hasLink`).
    public static func hasLink(_ text: String) -> Bool {
        parse(text)?.contains { $0.format?.isLink == true } ?? false
    }

    /// The parse with each run's source text: the sources of the runs concatenate to the input.
    static func spans(_ text: String) -> [Span]? {
        isCertainlyPlain(text) ? nil : parsedSpans(text)
    }

    /// The parse itself, without the shortcut for plain text.
    static func parsedSpans(_ text: String) -> [Span]? {
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map(Array.init)
        // Like Haskell's `lines`: a final newline ends the last line rather than starting an empty one.
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard !lines.isEmpty else { return nil }
        if lines.count == 1 {
            let line = lines[0]
            let trimmed = line.drop { $0 == " " }
            // A single line of more than one character starting with `/` is all one command, arguments included.
            guard let first = trimmed.first, trimmed.count > 1 else { return nil }
            if first == "/" {
                let text = string(line[...])
                return [Span(.command(commandStr: string(trimmed.dropFirst())), text, text)]
            }
        }
        var all: [Span] = []
        for (n, line) in lines.enumerated() {
            if n > 0 { all.append(Span(nil, "\n", "\n")) }
            var parser = LineParser(line)
            all += parser.run()
        }
        guard all.contains(where: { $0.format != nil }) else { return nil }
        return merged(all)
    }

    /// Whether `text` is plain without parsing it: most messages are, and a page of items parses every text. True only
    /// for ASCII text without any character that starts or ends a fragment (markers, `@`, `/`, `[`, `+`, `.`, `:`,
    /// which links, domains and emails need, line breaks) and without 7 characters in a row of digits and the phone
    /// separators, the shortest phone number; anything else goes to the parser.
    static func isCertainlyPlain(_ text: String) -> Bool {
        // A phone number starts at a digit and ends at a digit or `)`: `run` counts from that digit, and only a
        // character that could end a number can make it long enough.
        var run = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                run = 0
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: ")"):
                if run > 0 || byte != UInt8(ascii: ")") {
                    run += 1
                    if run >= 7 { return false }
                }
            case UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "("):
                if run > 0 { run += 1 }
            case UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "?"), UInt8(ascii: "'"), UInt8(ascii: "\""),
                UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "="):
                run = 0
            default:
                return false
            }
        }
        return true
    }

    /// The scalars as a string, encoded straight into the string's storage (a scalar at a time is several times
    /// slower, which a megabyte of one character shows).
    static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var bytes = 0
        for c in scalars { bytes += UTF8.width(c) }
        return String(unsafeUninitializedCapacity: bytes) { buffer in
            var i = 0
            for c in scalars {
                if c.isASCII {
                    buffer[i] = UInt8(truncatingIfNeeded: c.value)
                    i += 1
                    continue
                }
                for unit in UTF8.encode(c) ?? UTF8.EncodedScalar() {
                    buffer[i] = unit
                    i += 1
                }
            }
            return i
        }
    }

    /// Adjacent runs of the same format become one; empty runs go.
    static func merged(_ spans: [Span]) -> [Span] {
        var out: [Span] = []
        for span in spans where !span.source.isEmpty {
            // Appended in place: a run made of many pieces (a line of `**`) grows once, not copied per piece.
            if !out.isEmpty, out[out.count - 1].format == span.format {
                out[out.count - 1].text += span.text
                out[out.count - 1].source += span.source
            } else {
                out.append(span)
            }
        }
        return out
    }
}

/// A formatted run and the input it came from.
struct Span: Hashable, Sendable {
    var format: Format?
    var text: String
    var source: String

    init(_ format: Format?, _ text: String, _ source: String) {
        self.format = format
        self.text = text
        self.source = source
    }
}

/// One line's fragments. Each sub-parser either consumes and appends, or leaves the position where it was.
///
/// The parse is linear in the line: a fragment that fails is taken as a word, which consumes up to the next space, and
/// whatever a fragment looks ahead for (a closing marker, `]`, `)`, punctuation) is found by `Lookahead`, which
/// scans each stretch of the line once per thing sought, however many fragments ask.
private struct LineParser {
    typealias Scalars = ArraySlice<Unicode.Scalar>

    let s: [Unicode.Scalar]
    var i = 0
    var out: [Span] = []
    var lookahead: Lookahead
    /// The link of the last `[text](link)` tried, by the position of its `]`: the texts that end there share it.
    var lastLink: (textEnd: Int, link: LinkTarget?)?
    /// Plain text not yet made a run: consecutive plain pieces (each `**` of a long line) become one string once.
    var pendingPlain: Range<Int>?

    init(_ line: [Unicode.Scalar]) {
        s = line
        lookahead = Lookahead(count: line.count)
    }

    mutating func run() -> [Span] {
        while i < s.count {
            let before = i
            fragment()
            // Every fragment consumes; should one not, the rest of the line stays plain rather than looping.
            if i <= before {
                plain(before..<s.count)
                i = s.count
            }
        }
        flushPlain()
        return Markdown.merged(out)
    }

    private mutating func fragment() {
        let c = s[i]
        switch c {
        case " ":
            let start = i
            while i < s.count, s[i] == " " { i += 1 }
            plain(start..<i)
        case "*": delimited("*", .bold)
        case "_": delimited("_", .italic)
        case "~": delimited("~", .strikeThrough)
        case "`": delimited("`", .snippet)
        case "#": secret()
        case "!": if !colored() { word() }
        case "@": if !prefixed("@", command: false) { word() }
        case "/": if !prefixed("/", command: true) { word() }
        case "[": if !hyperLink() { word() }
        case "+": if !phone() { word() }
        default: if !(Chars.isDigit(c) && phone()) { word() }
        }
    }

    // MARK: Output

    private mutating func plain(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        if let pending = pendingPlain, pending.upperBound == range.lowerBound {
            pendingPlain = pending.lowerBound..<range.upperBound
        } else {
            flushPlain()
            pendingPlain = range
        }
    }

    private mutating func flushPlain() {
        guard let pending = pendingPlain else { return }
        pendingPlain = nil
        let text = string(s[pending])
        out.append(Span(nil, text, text))
    }

    private mutating func formatted(_ format: Format, _ text: Scalars, source: Range<Int>) {
        flushPlain()
        out.append(Span(format, string(text), string(s[source])))
    }

    private func string(_ scalars: Scalars) -> String { Markdown.string(scalars) }

    private mutating func firstIndex(of c: Unicode.Scalar, from start: Int) -> Int? {
        lookahead.next(.marker(c), in: s, from: start)
    }

    // MARK: Fragments

    /// `*text*` and the like: no space just inside the markers, no nesting; without a closing marker the rest of the
    /// line is plain.
    private mutating func delimited(_ marker: Unicode.Scalar, _ format: Format) {
        let start = i
        guard let close = firstIndex(of: marker, from: i + 1) else {
            plain(start..<s.count)
            i = s.count
            return
        }
        i = close + 1
        let inner = s[(start + 1)..<close]
        if inner.isEmpty || inner.first == " " || inner.last == " " {
            plain(start..<i)
        } else {
            formatted(format, inner, source: start..<i)
        }
    }

    /// `#secret#`: extra `#`s at either end belong to the secret, less the closing one.
    private mutating func secret() {
        let start = i
        i += 1
        let before = i
        while i < s.count, s[i] == "#" { i += 1 }
        let body = i
        while i < s.count, s[i] != "#" { i += 1 }
        let bodyEnd = i
        while i < s.count, s[i] == "#" { i += 1 }
        let inner = s[body..<bodyEnd]
        if i == bodyEnd || inner.isEmpty || inner.first == " " || inner.last == " " {
            plain(start..<i)
        } else {
            formatted(.secret, s[before..<(i - 1)], source: start..<i)
        }
    }

    /// `!c text!` with a color name, its first letter, or 1–6 (red, green, blue, yellow, cyan, magenta).
    private mutating func colored() -> Bool {
        let start = i
        var j = i + 1
        guard j < s.count else { return false }
        let color: FormatColor
        switch s[j] {
        case "1": color = .red
        case "2": color = .green
        case "3": color = .blue
        case "4": color = .yellow
        case "5": color = .cyan
        case "6": color = .magenta
        default:
            guard
                let named = FormatColor.allCases.first(where: {
                    $0 != .black && $0 != .white && $0.rawValue.unicodeScalars.first == s[j]
                })
            else { return false }
            color = named
            let rest = Array(named.rawValue.unicodeScalars.dropFirst())
            if j + rest.count < s.count, Array(s[(j + 1)...(j + rest.count)]) == rest { j += rest.count }
        }
        j += 1
        guard j < s.count, Chars.isSpace(s[j]) else { return false }
        j += 1
        let body = j
        guard j < s.count, s[j] != " ", s[j] != "!", let close = firstIndex(of: "!", from: j) else { return false }
        guard s[close - 1] != " " else { return false }
        i = close + 1
        formatted(.colored(color), s[body..<close], source: start..<i)
        return true
    }

    /// `@name`, `@'a name'`, `/command`, `/'command with args'`; punctuation ending an unquoted name is not part of it.
    private mutating func prefixed(_ prefix: Unicode.Scalar, command: Bool) -> Bool {
        let start = i
        var j = i + 1
        guard j < s.count else { return false }
        let quoted = s[j] == "'"
        let name: Scalars
        var punctuation: Range<Int> = 0..<0
        if quoted {
            guard j + 1 < s.count, Chars.isNameStart(s[j + 1]), let close = firstIndex(of: "'", from: j + 1) else { return false }
            name = s[(j + 1)..<close]
            j = close + 1
        } else {
            guard Chars.isNameStart(s[j]) else { return false }
            let wordStart = j
            while j < s.count, !Chars.isSpace(s[j]) { j += 1 }
            var end = j
            while end > wordStart, Chars.isPunctuation(s[end - 1]) { end -= 1 }
            name = s[wordStart..<end]
            punctuation = end..<j
        }
        if command {
            let keyword = name.drop(while: Chars.isSpace).prefix { !Chars.isSpace($0) }
            guard !keyword.isEmpty, keyword.allSatisfy({ Chars.isLetter($0) || Chars.isDigit($0) || $0 == "_" }) else {
                return false
            }
        }
        let text = string(name)
        let format: Format = command ? .command(commandStr: text) : .mention(memberName: text)
        let end = quoted ? j : punctuation.lowerBound
        i = j
        formatted(format, s[start..<end], source: start..<end)
        if !punctuation.isEmpty { plain(punctuation) }
        return true
    }

    /// `[text](link)`: a web link or a short SimpleX link. Text with punctuation must be the link itself (with or
    /// without `https://`), so that the text cannot pretend to be another address.
    private mutating func hyperLink() -> Bool {
        let start = i
        guard let textEnd = firstIndex(of: "]", from: start + 1), textEnd > start + 1, textEnd + 1 < s.count,
            s[textEnd + 1] == "(", let linkEnd = firstIndex(of: ")", from: textEnd + 2), linkEnd > textEnd + 2
        else { return false }
        let textRange = (start + 1)..<textEnd
        let linkRange = (textEnd + 2)..<linkEnd
        // Texts that start at each of many `[` share their `]` and link: the tests below look at each text's own
        // characters only when it can pass, and the link is parsed once.
        let hasPunctuation = (lookahead.next(.punctuation, in: s, from: textRange.lowerBound) ?? s.count) < textEnd
        if hasPunctuation && !isLink(text: textRange, link: linkRange) { return false }
        let target: LinkTarget?
        if let last = lastLink, last.textEnd == textEnd {
            target = last.link
        } else {
            target = LinkTarget(string(s[linkRange]))
            lastLink = (textEnd, target)
        }
        let text = string(s[textRange])
        let format: Format
        switch target {
        case .simplex(let simplex):
            format = .simplexLink(
                showText: text, linkType: simplex.linkType, simplexUri: simplex.simplexURI, smpHosts: simplex.smpHosts)
        case .web(let link):
            format = .hyperLink(showText: text, linkUri: link)
        case nil:
            return false
        }
        i = linkEnd + 1
        formatted(format, s[start..<i], source: start..<i)
        return true
    }

    /// Whether the text is the link itself, with or without `https://`.
    private func isLink(text: Range<Int>, link: Range<Int>) -> Bool {
        let https = Array("https://".unicodeScalars)
        if text.count == link.count { return s[text].elementsEqual(s[link]) }
        guard text.count + https.count == link.count else { return false }
        return s[link].prefix(https.count).elementsEqual(https) && s[text].elementsEqual(s[link].dropFirst(https.count))
    }

    /// A phone number: optional `+country`, optional `(code)`, digit groups joined by nothing, a space, `-` or `.`;
    /// 7 to 22 characters in all.
    private mutating func phone() -> Bool {
        let start = i
        var j = i
        // Past 22 characters a number fails whatever follows, so a run that only moves the end on stops there (the
        // next fragment starts after the next space, and `1 1 1 …` would otherwise be read to its end from each
        // digit). A run in parentheses is read whole: only its `)` says whether it counts.
        let bound = min(s.count, start + 24)
        func digits(_ from: Int, upTo end: Int) -> Int? {
            var k = from
            while k < end, Chars.isDigit(s[k]) { k += 1 }
            return k > from ? k : nil
        }
        func separator(_ at: Int) -> Int {
            at < s.count && (s[at] == " " || s[at] == "-" || s[at] == ".") ? at + 1 : at
        }
        if s[j] == "+", let end = digits(j + 1, upTo: bound) { j = end }
        let sep = separator(j)
        if sep < s.count, s[sep] == "(", let end = digits(sep + 1, upTo: s.count), end < s.count, s[end] == ")" {
            j = end + 1
        }
        while j - start <= 22, let end = digits(separator(j), upTo: bound) { j = end }
        guard (7...22).contains(j - start) else { return false }
        i = j
        formatted(.phone, s[start..<j], source: start..<j)
        return true
    }

    /// Up to the next space: a link, a domain, an email or plain text; trailing punctuation (but `/` and `)`) is left
    /// out of a link.
    private mutating func word() {
        let start = i
        while i < s.count, s[i] != " " { i += 1 }
        var end = i
        while end > start, Chars.isPunctuation(s[end - 1]), s[end - 1] != "/", s[end - 1] != ")" { end -= 1 }
        // A link has a scheme's `:`, a domain a `.`, an email an `@`: a word without any is plain.
        guard s[start..<end].contains(where: { $0 == ":" || $0 == "." || $0 == "@" }) else {
            plain(start..<i)
            return
        }
        let core = string(s[start..<end])
        let format: Format?
        if Links.looksLikeURI(core) {
            if let simplex = SimplexLink(parsing: core) {
                format = .simplexLink(
                    showText: nil, linkType: simplex.linkType, simplexUri: simplex.simplexURI, smpHosts: simplex.smpHosts)
            } else if (try? WebURI(parsing: core)) != nil {
                format = .uri
            } else {
                format = nil
            }
        } else if Links.isDomain(core) {
            format = .uri
        } else if Links.isEmail(core) {
            format = .email
        } else {
            format = nil
        }
        if let format {
            formatted(format, s[start..<end], source: start..<end)
            if end < i { plain(end..<i) }
        } else {
            plain(start..<i)
        }
    }
}

/// The link of `[text](link)`: a short SimpleX link or a web address.
private enum LinkTarget {
    case simplex(SimplexLink)
    case web(String)

    init?(_ link: String) {
        if let simplex = SimplexLink(parsing: link) {
            guard simplex.isShort else { return nil }
            self = .simplex(simplex)
        } else if (try? WebURI(parsing: link)) != nil {
            self = .web(link)
        } else {
            return nil
        }
    }
}

/// The next position at or after a point where a line has a character of a class, for the few classes the
/// fragments look ahead for. For each class it remembers one stretch known to be free of it and where that stretch
/// ends (at the class's next character, or the line's end), so the fragments' questions, whose starting points only
/// move forward as the line is parsed, cost one scan of the line per class in all.
private struct Lookahead {
    enum Class {
        case marker(Unicode.Scalar)
        /// What makes a link's text have to be the link itself: punctuation other than `-` and `_`.
        case punctuation

        func contains(_ c: Unicode.Scalar) -> Bool {
            switch self {
            case .marker(let m): c == m
            case .punctuation: Chars.isPunctuation(c) && c != "-" && c != "_"
            }
        }

        /// Its place in `known`: the markers the fragments close on, then punctuation.
        var slot: Int {
            switch self {
            case .marker("*"): 0
            case .marker("_"): 1
            case .marker("~"): 2
            case .marker("`"): 3
            case .marker("!"): 4
            case .marker("'"): 5
            case .marker("]"): 6
            case .marker(")"): 7
            case .marker: 8
            case .punctuation: 9
            }
        }
    }

    /// Per class: no character of it in the range, and its upper bound is one (or the line's end).
    private var known = [Range<Int>?](repeating: nil, count: 10)
    private let count: Int

    init(count: Int) { self.count = count }

    mutating func next(_ target: Class, in s: [Unicode.Scalar], from start: Int) -> Int? {
        let slot = target.slot
        // A marker without a slot of its own is looked for afresh each time.
        let free = slot == 8 ? nil : known[slot]
        if let free, free.lowerBound <= start, start <= free.upperBound {
            return free.upperBound < count ? free.upperBound : nil
        }
        // Before a known stretch the scan may stop where it starts: past that, its end is the answer.
        var stop = count
        var fallback = count
        if let free, start < free.lowerBound {
            stop = free.lowerBound
            fallback = free.upperBound
        }
        var j = start
        while j < stop, !target.contains(s[j]) { j += 1 }
        let found = j < stop ? j : fallback
        if slot != 8 { known[slot] = start..<found }
        return found < count ? found : nil
    }
}

/// Character classes as the core's Haskell `Data.Char` has them.
enum Chars {
    static func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 0x30 && c.value <= 0x39 }

    static func isASCIILetter(_ c: Unicode.Scalar) -> Bool {
        (c.value >= 0x41 && c.value <= 0x5A) || (c.value >= 0x61 && c.value <= 0x7A)
    }

    static func isSpace(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x20, 0x09...0x0D, 0xA0: true
        default: c.value > 0xFF && c.properties.generalCategory == .spaceSeparator
        }
    }

    static func isLetter(_ c: Unicode.Scalar) -> Bool {
        switch c.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: true
        default: false
        }
    }

    static func isPunctuation(_ c: Unicode.Scalar) -> Bool {
        if c.isASCII {
            switch c {
            case "!", "\"", "#", "%", "&", "'", "(", ")", "*", ",", "-", ".", "/", ":", ";", "?", "@", "[", "\\", "]", "_",
                "{", "}":
                return true
            default: return false
            }
        }
        return switch c.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation:
            true
        default: false
        }
    }

    /// What may start a name: visible, and none of `# @ '`.
    static func isNameStart(_ c: Unicode.Scalar) -> Bool { c.value > 0x20 && c != "#" && c != "@" && c != "'" }
}
