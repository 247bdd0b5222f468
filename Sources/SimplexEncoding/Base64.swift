/// Base64 as SimpleX writes it: RFC 4648 with `=` padding, in the URL-safe alphabet (`b64u`, xrcp.md §1.1)
/// or, for the legacy invitation signature only, the standard one.
public enum Base64 {
    fileprivate static let urlTable = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    fileprivate static let standardTable = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    fileprivate static let urlLookup = lookup(for: urlTable)
    fileprivate static let standardLookup = lookup(for: standardTable)

    private static func lookup(for table: [UInt8]) -> [UInt8] {
        var lookup = [UInt8](repeating: 0xff, count: 256)
        for (i, c) in table.enumerated() { lookup[Int(c)] = UInt8(i) }
        return lookup
    }

    public enum Alphabet: Sendable {
        case url
        case standard

        fileprivate var table: [UInt8] {
            switch self {
            case .url: return Base64.urlTable
            case .standard: return Base64.standardTable
            }
        }

        /// Character → 6-bit value, 0xff for characters outside the alphabet.
        fileprivate var lookup: [UInt8] {
            switch self {
            case .url: return Base64.urlLookup
            case .standard: return Base64.standardLookup
            }
        }
    }

    public enum Error: Swift.Error, Equatable, Sendable {
        case empty
        /// A character outside the alphabet at this offset.
        case invalidCharacter(offset: Int)
        /// The length (after padding) cannot be base64.
        case invalidLength(Int)
        /// Bits below the last full byte are not zero, or the padding is wrong: not a canonical encoding.
        case nonCanonical
    }

    public static func encode<C: Collection<UInt8>>(_ bytes: C, alphabet: Alphabet = .url) -> String {
        let table = alphabet.table
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var it = bytes.makeIterator()
        while let b0 = it.next() {
            let b1 = it.next()
            let b2 = b1 == nil ? nil : it.next()
            let n = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
            out.append(table[Int(n >> 18 & 63)])
            out.append(table[Int(n >> 12 & 63)])
            out.append(b1 == nil ? UInt8(ascii: "=") : table[Int(n >> 6 & 63)])
            out.append(b2 == nil ? UInt8(ascii: "=") : table[Int(n & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes canonical base64, with or without `=` padding; non-empty input only (xrcp.md §1.3).
    public static func decode(_ text: some StringProtocol, alphabet: Alphabet = .url) throws(Error) -> [UInt8] {
        var chars = Array(text.utf8)
        guard !chars.isEmpty else { throw .empty }
        var padding = 0
        while chars.last == UInt8(ascii: "=") {
            chars.removeLast()
            padding += 1
        }
        guard !chars.isEmpty else { throw .empty }
        if padding > 0 {
            guard padding <= 2, (chars.count + padding) % 4 == 0 else { throw .nonCanonical }
        }
        let lookup = alphabet.lookup
        var out = [UInt8]()
        out.reserveCapacity(chars.count * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        for (i, c) in chars.enumerated() {
            let v = lookup[Int(c)]
            guard v != 0xff else { throw .invalidCharacter(offset: i) }
            acc = acc << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
                acc &= (1 << UInt32(bits)) - 1
            }
        }
        guard chars.count % 4 != 1 else { throw .invalidLength(chars.count) }
        guard acc == 0 else { throw .nonCanonical }
        return out
    }
}
