/// Why a JSON text was refused.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public let offset: Int

    public var description: String { "\(message) at byte \(offset)" }
}

extension CanonicalJSON {
    /// Parses one JSON value (RFC 8259) filling all of `bytes` but for whitespace. Numbers that are not
    /// integers in Int64 are kept as their literal text; duplicate keys keep the last value, as aeson does.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 64) throws(JSONParseError) -> CanonicalJSON {
        var p = JSONCursor(bytes: bytes, maxDepth: maxDepth)
        p.skipWhitespace()
        let value = try p.value(depth: 0)
        p.skipWhitespace()
        guard p.i == bytes.count else { throw p.fail("unexpected text after the JSON value") }
        return value
    }

    public static func parse(_ text: String) throws(JSONParseError) -> CanonicalJSON { try parse(Array(text.utf8)) }

    /// The members of the JSON object that fills `bytes` (but for whitespace), in the order written, each with the
    /// byte range of its value: for passing a value's bytes on as they were written, key order included. The whole
    /// text is checked as `parse` checks it.
    public static func members(ofObject bytes: [UInt8], maxDepth: Int = 64) throws(JSONParseError) -> [(
        key: String, value: Range<Int>
    )] {
        var p = JSONCursor(bytes: bytes, maxDepth: maxDepth)
        p.skipWhitespace()
        guard p.i < bytes.count, bytes[p.i] == UInt8(ascii: "{") else { throw p.fail("expected an object") }
        p.i += 1
        var members: [(key: String, value: Range<Int>)] = []
        p.skipWhitespace()
        if p.i < bytes.count, bytes[p.i] == UInt8(ascii: "}") {
            p.i += 1
        } else {
            while true {
                p.skipWhitespace()
                guard p.i < bytes.count, bytes[p.i] == UInt8(ascii: "\"") else { throw p.fail("expected a string key") }
                let key = try p.string()
                p.skipWhitespace()
                guard p.i < bytes.count, bytes[p.i] == UInt8(ascii: ":") else { throw p.fail("expected ':'") }
                p.i += 1
                p.skipWhitespace()
                let start = p.i
                _ = try p.value(depth: 1)
                members.append((key, start..<p.i))
                p.skipWhitespace()
                guard p.i < bytes.count else { throw p.fail("unexpected end of object") }
                if bytes[p.i] == UInt8(ascii: ",") {
                    p.i += 1
                } else if bytes[p.i] == UInt8(ascii: "}") {
                    p.i += 1
                    break
                } else {
                    throw p.fail("expected ',' or '}'")
                }
            }
        }
        p.skipWhitespace()
        guard p.i == bytes.count else { throw p.fail("unexpected text after the JSON value") }
        return members
    }

    /// The value of `key` when this is an object.
    public subscript(key: String) -> CanonicalJSON? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var integerValue: Int64? {
        if case .integer(let n) = self { return n }
        return nil
    }
}

private struct JSONCursor {
    let bytes: [UInt8]
    let maxDepth: Int
    var i = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    func fail(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: i) }

    mutating func skipWhitespace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0a || bytes[i] == 0x0d || bytes[i] == 0x09 { i += 1 }
    }

    mutating func expect(_ word: String) throws(JSONParseError) {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<i + w.count]) == w else { throw fail("expected \(word)") }
        i += w.count
    }

    mutating func value(depth: Int) throws(JSONParseError) -> CanonicalJSON {
        guard depth < maxDepth else { throw fail("nesting deeper than \(maxDepth)") }
        guard i < bytes.count else { throw fail("unexpected end of JSON") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw fail("unexpected character")
        }
    }

    mutating func object(depth: Int) throws(JSONParseError) -> CanonicalJSON {
        i += 1
        var fields: [String: CanonicalJSON] = [:]
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
            i += 1
            return .object(fields)
        }
        while true {
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let key = try string()
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            i += 1
            skipWhitespace()
            fields[key] = try value(depth: depth + 1)
            skipWhitespace()
            guard i < bytes.count else { throw fail("unexpected end of object") }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
            } else if bytes[i] == UInt8(ascii: "}") {
                i += 1
                return .object(fields)
            } else {
                throw fail("expected ',' or '}'")
            }
        }
    }

    mutating func array(depth: Int) throws(JSONParseError) -> CanonicalJSON {
        i += 1
        var items: [CanonicalJSON] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
            i += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth + 1))
            skipWhitespace()
            guard i < bytes.count else { throw fail("unexpected end of array") }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
            } else if bytes[i] == UInt8(ascii: "]") {
                i += 1
                return .array(items)
            } else {
                throw fail("expected ',' or ']'")
            }
        }
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let d = QueryEncoding.hexValue(bytes[i]) else { throw fail("invalid \\u escape") }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    mutating func string() throws(JSONParseError) -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "\""):
                i += 1
                guard let s = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8 in string") }
                return s
            case UInt8(ascii: "\\"):
                i += 1
                guard i < bytes.count else { throw fail("unterminated escape") }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5c)
                case UInt8(ascii: "/"): out.append(0x2f)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0c)
                case UInt8(ascii: "n"): out.append(0x0a)
                case UInt8(ascii: "r"): out.append(0x0d)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xd800..<0xdc00).contains(scalar) {
                        guard i + 2 <= bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate")
                        }
                        i += 2
                        let low = try hex4()
                        guard (0xdc00..<0xe000).contains(low) else { throw fail("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xd800) << 10) + (low - 0xdc00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail("unpaired surrogate") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default: throw fail("invalid escape")
                }
            case 0..<0x20:
                throw fail("control character in string")
            default:
                out.append(c)
                i += 1
            }
        }
    }

    mutating func number() throws(JSONParseError) -> CanonicalJSON {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        func digits(_ cursor: inout JSONCursor) -> Int {
            let s = cursor.i
            while cursor.i < cursor.bytes.count, (0x30...0x39).contains(cursor.bytes[cursor.i]) { cursor.i += 1 }
            return cursor.i - s
        }
        let intStart = i
        let n = digits(&self)
        guard n > 0 else { throw fail("expected digits") }
        guard !(n > 1 && bytes[intStart] == UInt8(ascii: "0")) else { throw fail("leading zero in number") }
        var integral = true
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            integral = false
            guard digits(&self) > 0 else { throw fail("expected digits after '.'") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            integral = false
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits(&self) > 0 else { throw fail("expected exponent digits") }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        if integral, let v = Int64(text) { return .integer(v) }
        return .number(text)
    }
}
