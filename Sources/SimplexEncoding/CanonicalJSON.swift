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
        let hex = Array("0123456789abcdef".unicodeScalars)
        var out = String.UnicodeScalarView()
        out.append("\"")
        for u in s.unicodeScalars {
            switch u {
            case "\"": out.append(contentsOf: "\\\"".unicodeScalars)
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            case _ where u.value < 0x20:
                out.append(contentsOf: "\\u00".unicodeScalars)
                out.append(hex[Int(u.value >> 4)])
                out.append(hex[Int(u.value & 15)])
            default: out.append(u)
            }
        }
        out.append("\"")
        return String(out)
    }
}
