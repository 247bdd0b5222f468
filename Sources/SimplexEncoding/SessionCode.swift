/// The session code people compare on both screens (xrcp.md §4.5): the tls-unique bytes read as one
/// big-endian unsigned integer, in decimal without leading zeros, in groups of five digits.
public enum SessionCode {
    public static func render(_ tlsUnique: [UInt8]) -> String {
        let digits = decimalDigits(bigEndian: tlsUnique)
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0 && i % 5 == 0 { out.append(" ") }
            out.append(Character(Unicode.Scalar(UInt8(ascii: "0") + d)))
        }
        return out
    }

    /// Whether a code typed by a person matches, ignoring spaces as the reference does.
    public static func matches(_ typed: String, _ expected: String) -> Bool {
        typed.filter { $0 != " " } == expected.filter { $0 != " " }
    }

    /// Decimal digits of a big-endian unsigned integer, most significant first; `[0]` for zero.
    static func decimalDigits(bigEndian bytes: [UInt8]) -> [UInt8] {
        var number = Array(bytes.drop { $0 == 0 })
        var reversed: [UInt8] = []
        while !number.isEmpty {
            // Divide by 10 in base 256, keeping the remainder as the next digit.
            var remainder = 0
            var quotient: [UInt8] = []
            quotient.reserveCapacity(number.count)
            for byte in number {
                let acc = remainder << 8 | Int(byte)
                let q = acc / 10
                remainder = acc % 10
                if !quotient.isEmpty || q != 0 { quotient.append(UInt8(q)) }
            }
            reversed.append(UInt8(remainder))
            number = quotient
        }
        return reversed.isEmpty ? [0] : reversed.reversed()
    }
}
