public import ChatModel
public import SimplexEncoding

extension ServerProtocol {
    static let all: [ServerProtocol] = [.smp, .xftp]

    /// How the core's `Show` writes the protocol inside `AProtocolType`, for validation messages.
    var shown: String {
        switch self {
        case .smp: "SPSMP"
        case .xftp: "SPXFTP"
        }
    }
}

extension TransportHost {
    /// How the core's derived `Show` writes the host, for validation messages.
    var shown: String {
        switch self {
        case .ipv4(let a, let b, let c, let d): "THIPv4 (\(a),\(b),\(c),\(d))"
        case .ipv6(let s): "THIPv6 \(haskellShow(s))"
        case .onion(let s): "THOnionHost \(haskellShow(s))"
        case .domain(let s): "THDomainName \(haskellShow(s))"
        }
    }
}

/// An SMP or XFTP server address with its optional password (`ProtoServerWithAuth`):
/// `<protocol>://<keyHash>[:<basicAuth>]@<host>[,<host>…][:<port>]`, parsed as simplexmq's `serverStrP` parses it.
public struct ServerAddress: Hashable, Sendable {
    public var serverProtocol: ServerProtocol
    /// The server's certificate key hash, decoded.
    public var keyHash: [UInt8]
    public var basicAuth: String?
    public var hosts: [TransportHost]
    /// Decimal, or empty for the protocol's default port.
    public var port: String

    /// The canonical text (`strEncode`): the key hash re-encoded with padding, the port without leading zeros.
    public var text: String {
        var out = serverProtocol.rawValue + "://" + Base64.encode(keyHash)
        if let basicAuth { out += ":" + basicAuth }
        out += "@" + hostsText
        if !port.isEmpty { out += ":" + port }
        return out
    }

    /// The hosts joined by commas, as the store keeps them.
    var hostsText: String { hosts.map(\.text).joined(separator: ",") }

    /// Parses an address; the error says what is wrong with it.
    public init(parsing text: String) throws(ServerAddressError) {
        var p = AddressScanner(Array(text.utf8))
        guard let scheme = p.take(while: { $0 != UInt8(ascii: ":") }),
            let proto = ServerProtocol(rawValue: String(decoding: scheme, as: UTF8.self)), p.skip("://")
        else { throw .init("the address must start with smp:// or xftp://") }
        guard let hashText = p.take(while: Self.isBase64URL) else { throw .init("no key hash after \(proto)://") }
        let padding = p.take(while: { $0 == UInt8(ascii: "=") }) ?? []
        do {
            keyHash = try Base64.decode(String(decoding: hashText + padding, as: UTF8.self))
        } catch {
            throw .init("the key hash is not base64url")
        }
        if p.skip(":") {
            guard let auth = p.take(while: { $0 != UInt8(ascii: "@") }) else { throw .init("empty password after the key hash") }
            // `basicAuth`: printable, no spaces, none of `@ : /`.
            guard auth.allSatisfy({ $0 > 0x20 && $0 < 0x7f && !":/".utf8.contains($0) }) else {
                throw .init("invalid character in the password")
            }
            basicAuth = String(decoding: auth, as: UTF8.self)
        } else {
            basicAuth = nil
        }
        guard p.skip("@") else { throw .init("expected @ and the server's hosts after the key hash") }
        var hosts: [TransportHost] = []
        repeat {
            hosts.append(try p.host())
        } while p.skip(",")
        self.hosts = hosts
        if p.skip(":") {
            guard let digits = p.take(while: { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), digits.count <= 9,
                let n = Int(String(decoding: digits, as: UTF8.self))
            else { throw .init("the port must be a number") }
            port = String(n)
        } else {
            port = ""
        }
        guard p.atEnd else { throw .init("unexpected text after the hosts and port") }
        serverProtocol = proto
    }

    static func isBase64URL(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
    }

    /// The domain names among the hosts: what operators' domains are matched against.
    var domainNames: [String] {
        hosts.compactMap { if case .domain(let d) = $0 { d } else { nil } }
    }
}

/// Why a server address does not parse.
public struct ServerAddressError: Error, Hashable, Sendable {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// A cursor over an address's bytes.
private struct AddressScanner {
    let bytes: [UInt8]
    var i = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { i == bytes.count }

    mutating func skip(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard bytes[i...].starts(with: b) else { return false }
        i += b.count
        return true
    }

    /// One or more bytes matching `p`, or nil (nothing taken).
    mutating func take(while p: (UInt8) -> Bool) -> [UInt8]? {
        let start = i
        while i < bytes.count, p(bytes[i]) { i += 1 }
        return i > start ? Array(bytes[start..<i]) : nil
    }

    /// A host, tried as the core tries them (`TransportHost.parse`).
    mutating func host() throws(ServerAddressError) -> TransportHost {
        do {
            let (host, end) = try TransportHost.parse(bytes, from: i)
            i = end
            return host
        } catch .empty {
            throw .init("expected a host")
        } catch .invalidOnion(let text) {
            throw .init("invalid onion host \(text)")
        } catch {
            throw .init("expected a host")
        }
    }
}

/// A string as Haskell's `show` writes it: quoted, with `"` and `\` escaped and control and non-ASCII characters as
/// decimal escapes.
func haskellShow(_ s: String) -> String {
    var out = "\""
    var previousWasNumericEscape = false
    for scalar in s.unicodeScalars {
        let v = scalar.value
        if previousWasNumericEscape, v >= 48, v <= 57 { out += "\\&" }
        previousWasNumericEscape = false
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        default:
            if v >= 0x20 && v < 0x7f {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\\(v)"
                previousWasNumericEscape = true
            }
        }
    }
    return out + "\""
}
