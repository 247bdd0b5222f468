/// Lower-case hexadecimal, for diagnostics and test vectors.
public enum Hex {
    public enum Error: Swift.Error, Equatable, Sendable {
        case oddLength(Int)
        case invalidCharacter(offset: Int)
    }

    public static func encode<C: Collection<UInt8>>(_ bytes: C) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes hex digits (either case); spaces and newlines between bytes are ignored.
    public static func decode(_ text: some StringProtocol) throws(Error) -> [UInt8] {
        let chars = text.utf8.filter { $0 != 0x20 && $0 != 0x0a }
        guard chars.count % 2 == 0 else { throw .oddLength(chars.count) }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = QueryEncoding.hexValue(chars[i]) else { throw .invalidCharacter(offset: i) }
            guard let lo = QueryEncoding.hexValue(chars[i + 1]) else { throw .invalidCharacter(offset: i + 1) }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}
