/// A JSON value rendered the way SimpleX signs it (xrcp.md §5.2): compact, object keys sorted
/// byte-wise at every level, strings escaped as Haskell's aeson does.
public indirect enum CanonicalJSON: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A number that is not an Int64 integer, kept as its JSON text.
    case number(String)
    case string(String)
    case array([CanonicalJSON])
    case object([String: CanonicalJSON])

    public var rendered: String {
        var out = ""
        render(into: &out)
        return out
    }

    private func render(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let n): out += String(n)
        case .number(let text): out += text
        case .string(let s): out += Self.quoted(s)
        case .array(let items):
            out += "["
            for (i, v) in items.enumerated() {
                if i > 0 { out += "," }
                v.render(into: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            let keys = fields.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            for (i, k) in keys.enumerated() {
                if i > 0 { out += "," }
                out += Self.quoted(k)
                out += ":"
                fields[k]?.render(into: &out)
            }
            out += "}"
        }
    }

    /// A JSON string literal with aeson's escapes: `\"`, `\\`, `\n`, `\r`, `\t`, other control
    /// characters as `\u00xx` (lower-case hex); everything else, `/` and non-ASCII included, literally.
    public static func quoted(_ s: String) -> String {
        var out: [UInt8] = []
        appendQuoted(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether a byte of UTF-8 text is written escaped in a JSON string: a control character, `"` or `\`.
    @inlinable
    public static func needsEscape(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C }

    /// `quoted(s)` appended to UTF-8 bytes: renderers building large documents escape in place, byte by byte (every
    /// escaped character is ASCII, so multi-byte sequences pass through untouched).
    public static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        // Reserving exactly what one string needs would defeat the array's doubling: a long document would be copied
        // again and again as it grows.
        let needed = out.count + s.utf8.count + 2
        if needed > out.capacity { out.reserveCapacity(Swift.max(needed, out.capacity * 2)) }
        out.append(0x22)
        // Most strings need no escape: one copy of their bytes.
        let plain = s.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !bytes.contains(where: needsEscape) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if plain == true {
            out.append(0x22)
            return
        }
        for b in s.utf8 {
            switch b {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, 0x6E]
            case 0x0D: out += [0x5C, 0x72]
            case 0x09: out += [0x5C, 0x74]
            case 0..<0x20: out += [0x5C, 0x75, 0x30, 0x30, hexDigits[Int(b >> 4)], hexDigits[Int(b & 15)]]
            default: out.append(b)
            }
        }
        out.append(0x22)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
