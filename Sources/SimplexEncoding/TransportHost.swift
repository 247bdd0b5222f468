/// A host of a server address (`TransportHost`, smp.md §1.7): an IPv4 or IPv6 address, an onion host or a domain name.
public enum TransportHost: Hashable, Sendable {
    case ipv4(UInt8, UInt8, UInt8, UInt8)
    /// The address as written, without brackets, in lower case.
    case ipv6(String)
    case onion(String)
    case domain(String)

    /// The text form (`strEncode`).
    public var text: String {
        switch self {
        case .ipv4(let a, let b, let c, let d): "\(a).\(b).\(c).\(d)"
        case .ipv6(let s), .onion(let s), .domain(let s): s
        }
    }

    public enum ParseError: Error, Hashable, Sendable {
        /// No host characters at all.
        case empty
        /// A name ending in `.onion` whose label is not `[a-z0-9]*`.
        case invalidOnion(String)
        /// Bytes after a host that must fill its input.
        case trailingText
    }

    /// Parses a whole string as one host.
    public init(parsing text: String) throws(ParseError) {
        let bytes = Array(text.utf8)
        let (host, end) = try Self.parse(bytes, from: 0)
        guard end == bytes.count else { throw .trailingText }
        self = host
    }

    /// Parses a host at `start`, tried as simplexmq tries them: IPv4, IPv6 (bare or in brackets), onion, then any
    /// domain name (1+ bytes other than `:#,;/` and white space); returns the host and the offset after it.
    public static func parse(_ bytes: [UInt8], from start: Int) throws(ParseError) -> (TransportHost, Int) {
        var s = HostScanner(bytes: bytes, i: start)
        if let v4 = s.ipv4() { return (v4, s.i) }
        s.i = start
        if let v6 = s.ipv6() { return (v6, s.i) }
        s.i = start
        let name = s.take { !":#,;/ \n\r\t".utf8.contains($0) } ?? []
        let text = String(decoding: name, as: UTF8.self)
        guard !name.isEmpty else { throw .empty }
        guard text.hasSuffix(".onion") else { return (.domain(text), s.i) }
        let label = name.dropLast(6)
        guard label.allSatisfy({ ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= 48 && $0 <= 57) }) else {
            throw .invalidOnion(text)
        }
        return (.onion(text), s.i)
    }
}

/// A cursor over a host's bytes; never reads past the end.
private struct HostScanner {
    let bytes: [UInt8]
    var i: Int

    mutating func skip(_ b: UInt8) -> Bool {
        guard i < bytes.count, bytes[i] == b else { return false }
        i += 1
        return true
    }

    /// One or more bytes matching `p`, or nil (nothing taken).
    mutating func take(while p: (UInt8) -> Bool) -> [UInt8]? {
        let start = i
        while i < bytes.count, p(bytes[i]) { i += 1 }
        return i > start ? Array(bytes[start..<i]) : nil
    }

    private mutating func decimal() -> Int? {
        guard let d = take(while: { $0 >= 48 && $0 <= 57 }), d.count <= 9 else { return nil }
        return Int(String(decoding: d, as: UTF8.self))
    }

    mutating func ipv4() -> TransportHost? {
        var parts: [UInt8] = []
        for n in 0..<4 {
            guard let v = decimal(), v <= 255 else { return nil }
            parts.append(UInt8(v))
            if n < 3, !skip(UInt8(ascii: ".")) { return nil }
        }
        return .ipv4(parts[0], parts[1], parts[2], parts[3])
    }

    mutating func ipv6() -> TransportHost? {
        let bracketed = skip(UInt8(ascii: "["))
        let isHex: (UInt8) -> Bool = { c in
            (c >= 48 && c <= 57) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"))
                || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F")) || c == UInt8(ascii: ":")
        }
        guard let body = take(while: isHex), !bracketed || skip(UInt8(ascii: "]")) else { return nil }
        let text = String(decoding: body, as: UTF8.self)
        return Self.isIPv6(text) ? .ipv6(text.lowercased()) : nil
    }

    /// Eight hex groups, or fewer with one `::`.
    private static func isIPv6(_ s: String) -> Bool {
        let b = Array(s.utf8)
        var halves: [[UInt8]] = [[]]
        var k = 0
        while k < b.count {
            if b[k] == UInt8(ascii: ":"), k + 1 < b.count, b[k + 1] == UInt8(ascii: ":") {
                halves.append([])
                k += 2
            } else {
                halves[halves.count - 1].append(b[k])
                k += 1
            }
        }
        guard halves.count <= 2 else { return false }
        let groups = halves.map { $0.isEmpty ? [] : $0.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false) }
        let count = groups.reduce(0) { $0 + $1.count }
        guard groups.allSatisfy({ $0.allSatisfy { !$0.isEmpty && $0.count <= 4 } }) else { return false }
        return halves.count == 2 ? count < 8 : count == 8
    }
}
