/// URL query encoding as SimpleX's invitations use it (xrcp.md §5.2, §5.5).
public enum QueryEncoding {
    /// `qenc`: every byte outside `A–Z a–z 0–9 - _ . ~` becomes `%XX` with upper-case hex; space is `%20`.
    public static func encode(_ text: some StringProtocol) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        for b in text.utf8 {
            if isUnreserved(b) {
                out.append(b)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 15)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// One URL decode: `+` is a space, `%XX` a byte, and an invalid escape stays as it is.
    /// The result is bytes, since an escape may produce invalid UTF-8.
    public static func decode(_ text: some StringProtocol) -> [UInt8] {
        let b = Array(text.utf8)
        var out = [UInt8]()
        out.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            switch b[i] {
            case UInt8(ascii: "+"):
                out.append(0x20)
                i += 1
            case UInt8(ascii: "%") where i + 2 < b.count:
                if let hi = hexValue(b[i + 1]), let lo = hexValue(b[i + 2]) {
                    out.append(hi << 4 | lo)
                    i += 3
                } else {
                    out.append(b[i])
                    i += 1
                }
            default:
                out.append(b[i])
                i += 1
            }
        }
        return out
    }

    /// A query string as http-types' `parseSimpleQuery` reads it: pairs split on `&` and `;`, `=` between key and
    /// value (a pair without one has an empty value), each side decoded once. Keys that are not UTF-8 are dropped.
    public static func parameters(_ query: some StringProtocol) -> [(key: String, value: [UInt8])] {
        var out: [(key: String, value: [UInt8])] = []
        for pair in query.split(whereSeparator: { $0 == "&" || $0 == ";" }) {
            let (k, v) =
                pair.firstIndex(of: "=").map { (pair[..<$0], pair[pair.index(after: $0)...]) } ?? (
                    pair[...], pair[pair.endIndex...]
                )
            guard let key = String(validating: decode(k), as: UTF8.self) else { continue }
            out.append((key, decode(v)))
        }
        return out
    }

    /// The value of the first parameter named `key`, as simplexmq's look-ups take it.
    public static func first(_ key: String, in parameters: [(key: String, value: [UInt8])]) -> [UInt8]? {
        parameters.first { $0.key == key }?.value
    }

    static func isUnreserved(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
