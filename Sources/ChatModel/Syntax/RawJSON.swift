/// A JSON argument of a command (`<json(T)>`, chat-api.md §0.2), validated and kept as compact text: the
/// original key order, number spellings and string escapes, with the insignificant whitespace removed.
/// Clients may send it pretty-printed over several lines (SimpleX Desktop does); typed decoding of the
/// payload is the command handler's business.
public struct RawJSON: Hashable, Sendable, CustomStringConvertible {
    /// The value without insignificant whitespace.
    public let text: String
    public let kind: Kind

    public enum Kind: String, Hashable, Sendable {
        case object, array, string, number, boolean, null
    }

    /// Validates one JSON value (RFC 8259; surrounding whitespace allowed).
    public init(parsing text: String) throws(CommandParseError) {
        var scanner = CommandScanner(text)
        guard let json = Self.read(&scanner) else {
            scanner.expected("a JSON value", at: 0)
            throw CommandParseError(scanner)
        }
        self = json
    }

    private init(compact: [UInt8], kind: Kind) {
        self.text = String(decoding: compact, as: UTF8.self)
        self.kind = kind
    }

    public var description: String { text }

    /// `{}`.
    public static let emptyObject = RawJSON(compact: Array("{}".utf8), kind: .object)
    /// `[]`.
    public static let emptyArray = RawJSON(compact: Array("[]".utf8), kind: .array)

    /// The decoded value of a JSON string.
    public var stringValue: String? {
        guard kind == .string else { return nil }
        var parser = JSONReader(bytes: Array(text.utf8))
        return parser.string(decoding: true)
    }

    /// A JSON string holding `value`, escaped as aeson does.
    public init(string value: String) {
        self.init(compact: Array(JSONReader.quoted(value).utf8), kind: .string)
    }

    /// Reads one JSON value running to the end of the line, as the core's `jsonP` does: leading and
    /// trailing JSON whitespace allowed, nothing else after the value.
    static func read(_ scanner: inout CommandScanner) -> RawJSON? {
        var reader = JSONReader(bytes: scanner.bytes, position: scanner.position)
        reader.skipWhitespace()
        let valueStart = reader.position
        guard let kind = reader.value(depth: 0) else {
            if reader.failure > valueStart {  // at the start, the caller's "a JSON object" says it better
                scanner.expected(reader.expectation, at: reader.failure)
            }
            return nil
        }
        reader.skipWhitespace()
        guard reader.position == scanner.bytes.count else {
            scanner.expected("the end of the JSON value", at: reader.position)
            return nil
        }
        scanner.position = reader.position
        return RawJSON(compact: reader.output, kind: kind)
    }
}

/// A JSON cursor that validates and copies tokens without whitespace (a defensive decoder: typed
/// failures, a nesting cap, no traps).
struct JSONReader {
    let bytes: [UInt8]
    var position = 0
    var output: [UInt8] = []
    var failure = 0
    var expectation = "a JSON value"
    static let maxDepth = 512

    init(bytes: [UInt8], position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skipWhitespace() {
        while let c = current, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D {
            position += 1
        }
    }

    private mutating func fail(_ what: String) -> Kind? {
        failure = position
        expectation = what
        return nil
    }

    typealias Kind = RawJSON.Kind

    mutating func value(depth: Int) -> Kind? {
        guard depth < Self.maxDepth else { return fail("JSON nested at most \(Self.maxDepth) deep") }
        guard let c = current else { return fail("a JSON value") }
        switch c {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""): return string(decoding: false) == nil ? nil : .string
        case UInt8(ascii: "t"): return word("true", .boolean)
        case UInt8(ascii: "f"): return word("false", .boolean)
        case UInt8(ascii: "n"): return word("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return fail("a JSON value")
        }
    }

    private mutating func object(depth: Int) -> Kind? {
        copy()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            copy()
            return .object
        }
        while true {
            guard current == UInt8(ascii: "\"") else { return fail("a JSON object key") }
            guard string(decoding: false) != nil else { return nil }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return fail("\":\" in a JSON object") }
            copy()
            skipWhitespace()
            guard value(depth: depth + 1) != nil else { return nil }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                copy()
                skipWhitespace()
            case UInt8(ascii: "}"):
                copy()
                return .object
            default:
                return fail("\",\" or \"}\" in a JSON object")
            }
        }
    }

    private mutating func array(depth: Int) -> Kind? {
        copy()
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            copy()
            return .array
        }
        while true {
            guard value(depth: depth + 1) != nil else { return nil }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                copy()
                skipWhitespace()
            case UInt8(ascii: "]"):
                copy()
                return .array
            default:
                return fail("\",\" or \"]\" in a JSON array")
            }
        }
    }

    private mutating func word(_ word: String, _ kind: Kind) -> Kind? {
        for c in word.utf8 {
            guard current == c else { return fail("a JSON value") }
            copy()
        }
        return kind
    }

    private mutating func number() -> Kind? {
        if current == UInt8(ascii: "-") { copy() }
        if current == UInt8(ascii: "0") {
            copy()
        } else if digits() == 0 {
            return fail("a digit in a JSON number")
        }
        if current == UInt8(ascii: ".") {
            copy()
            guard digits() > 0 else { return fail("a digit in a JSON number") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            copy()
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { copy() }
            guard digits() > 0 else { return fail("a digit in a JSON number") }
        }
        return .number
    }

    private mutating func digits() -> Int {
        var n = 0
        while let c = current, CommandScanner.isDigit(c) {
            copy()
            n += 1
        }
        return n
    }

    private mutating func copy() {
        output.append(bytes[position])
        position += 1
    }

    /// A JSON string at the cursor: copied verbatim, or (`decoding`) returned decoded.
    mutating func string(decoding: Bool) -> String? {
        var decoded = String.UnicodeScalarView()
        copy()  // opening quote
        var runStart = position
        func flush() {
            if decoding {
                decoded.append(contentsOf: String(decoding: bytes[runStart..<position], as: UTF8.self).unicodeScalars)
            }
        }
        while true {
            guard let c = current else {
                _ = fail("a closing \" of a JSON string")
                return nil
            }
            switch c {
            case UInt8(ascii: "\""):
                flush()
                copy()
                return String(decoded)
            case UInt8(ascii: "\\"):
                flush()
                copy()
                guard let scalar = escape() else { return nil }
                decoded.append(scalar)
                runStart = position
            case 0..<0x20:
                _ = fail("a JSON string without raw control characters")
                return nil
            default:
                copy()
            }
        }
    }

    /// The escape after a backslash (already copied).
    private mutating func escape() -> Unicode.Scalar? {
        guard let c = current else {
            _ = fail("a JSON escape")
            return nil
        }
        let simple: [UInt8: Unicode.Scalar] = [
            UInt8(ascii: "\""): "\"", UInt8(ascii: "\\"): "\\", UInt8(ascii: "/"): "/", UInt8(ascii: "b"): "\u{08}",
            UInt8(ascii: "f"): "\u{0C}", UInt8(ascii: "n"): "\n", UInt8(ascii: "r"): "\r", UInt8(ascii: "t"): "\t",
        ]
        if let scalar = simple[c] {
            copy()
            return scalar
        }
        guard c == UInt8(ascii: "u") else {
            _ = fail("a JSON escape")
            return nil
        }
        copy()
        guard let unit = hex4() else { return nil }
        switch unit {
        case 0xD800..<0xDC00:
            guard current == UInt8(ascii: "\\") else { return surrogateFailure() }
            copy()
            guard current == UInt8(ascii: "u") else { return surrogateFailure() }
            copy()
            guard let low = hex4() else { return nil }
            guard (0xDC00..<0xE000).contains(low) else { return surrogateFailure() }
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
        case 0xDC00..<0xE000:
            return surrogateFailure()
        default:
            return Unicode.Scalar(unit)
        }
    }

    private mutating func surrogateFailure() -> Unicode.Scalar? {
        _ = fail("a UTF-16 surrogate pair in a JSON escape")
        return nil
    }

    private mutating func hex4() -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let c = current else {
                _ = fail("four hex digits in a JSON escape")
                return nil
            }
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
            default:
                _ = fail("four hex digits in a JSON escape")
                return nil
            }
            value = value << 4 | UInt32(digit)
            copy()
        }
        return value
    }

    /// A JSON string literal with aeson's escapes: `\"`, `\\`, `\n`, `\r`, `\t`, other control characters
    /// as `\u00xx`; everything else literally.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
