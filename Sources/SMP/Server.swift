public import SimplexEncoding

/// An SMP server address (`ProtocolServer`, smp.md §1.7): `smp://<keyHash>@<host>[,<host>…][:<port>]`.
/// The first host is the primary one; an empty port means the default of §2.1.
public struct SMPServer: Hashable, Sendable, BinaryCodable {
    public var hosts: [TransportHost]
    /// Decimal, or empty.
    public var port: String
    public var keyHash: KeyHash

    public init(hosts: [TransportHost], port: String = "", keyHash: KeyHash) throws(SMPAddressError) {
        guard !hosts.isEmpty else { throw .init("a server needs a host") }
        guard port.isEmpty || (port.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && UInt16(port) != nil) else {
            throw .init("the port must be a number")
        }
        self.hosts = hosts
        self.port = port
        self.keyHash = keyHash
    }

    /// The primary host.
    public var host: TransportHost { hosts[0] }

    /// The text form with all hosts.
    public var text: String { Self.text(keyHash: keyHash, basicAuth: nil, hosts: hosts, port: port) }

    /// The text form with the first host only (legacy queue URIs, §1.9).
    public var legacyText: String { Self.text(keyHash: keyHash, basicAuth: nil, hosts: [host], port: port) }

    static func text(keyHash: KeyHash, basicAuth: BasicAuth?, hosts: [TransportHost], port: String) -> String {
        var out = "smp://" + Base64.encode(keyHash.bytes)
        if let basicAuth { out += ":" + basicAuth.text }
        out += "@" + hosts.map(\.text).joined(separator: ",")
        if !port.isEmpty { out += ":" + port }
        return out
    }

    /// Parses a whole address; one with a password is refused (it is an `SMPServerWithAuth`).
    public init(parsing text: String) throws(SMPAddressError) {
        var s = AddressScanner(Array(text.utf8))
        let (server, auth) = try s.server()
        guard s.atEnd else { throw .init("unexpected text after the hosts and port") }
        guard auth == nil else { throw .init("a server with a password is not allowed here") }
        self = server
    }

    /// Which port and ALPN a client connects with (§2.1, simplexmq `useWebPort`): the address's port, else 443
    /// for servers on the web port and 5223 for others; `http/1.1` whenever the web port policy applies, even
    /// with an explicit port, else `smp/1`.
    public func endpoint(webPort: WebPortServers, presetDomains: [String] = SMPServer.presetDomains) -> (
        port: UInt16, alpn: String
    ) {
        let web: Bool
        switch webPort {
        case .all: web = true
        case .off: web = false
        case .preset:
            if case .domain(let name) = host { web = presetDomains.contains { name.hasSuffix($0) } } else { web = false }
        }
        let number = port.isEmpty ? (web ? 443 : 5223) : (UInt16(port) ?? 5223)
        return (number, web ? "http/1.1" : "smp/1")
    }

    /// Domains of the preset servers, matched as suffixes of the primary host (simplex-chat's `presetDomains`).
    public static let presetDomains = [".simplex.im", ".simplexonflux.com"]

    /// Binary form: `NonEmpty host ‖ len1(port) ‖ len1(keyHash)`.
    public func encode(to w: inout ByteWriter) throws(BinaryEncodingError) {
        guard hosts.count <= 255 else { throw .tooLong(length: hosts.count, limit: 255) }
        w.writeByte(UInt8(hosts.count))
        for h in hosts { try w.writeShortBytes(Array(h.text.utf8)) }
        try w.writeShortBytes(Array(port.utf8))
        try w.write(keyHash)
    }

    public init(from r: inout ByteReader) throws(BinaryDecodingError) {
        let n = Int(try r.readByte())
        guard n > 0 else { throw .malformed("server without hosts") }
        var hosts: [TransportHost] = []
        for _ in 0..<n { hosts.append(try Self.readHost(&r)) }
        self.hosts = hosts
        port = try Self.readPort(&r)
        keyHash = try r.readKeyHash()
    }

    /// Legacy binary form (client version 1 queue infos): one host, port, key hash.
    func encodeLegacy(to w: inout ByteWriter) throws(BinaryEncodingError) {
        try w.writeShortBytes(Array(host.text.utf8))
        try w.writeShortBytes(Array(port.utf8))
        try w.write(keyHash)
    }

    init(legacyFrom r: inout ByteReader) throws(BinaryDecodingError) {
        hosts = [try Self.readHost(&r)]
        port = try Self.readPort(&r)
        keyHash = try r.readKeyHash()
    }

    static func readHost(_ r: inout ByteReader) throws(BinaryDecodingError) -> TransportHost {
        let bytes = try r.readShortBytes()
        guard let text = String(validating: bytes, as: UTF8.self), let h = try? TransportHost(parsing: text) else {
            throw .malformed("invalid host")
        }
        return h
    }

    static func readPort(_ r: inout ByteReader) throws(BinaryDecodingError) -> String {
        let bytes = try r.readShortBytes()
        guard bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { throw .malformed("invalid port") }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A server address with its optional queue-creation password (`ProtoServerWithAuth`, smp.md §1.7).
public struct SMPServerWithAuth: Hashable, Sendable {
    public var server: SMPServer
    public var basicAuth: BasicAuth?

    public init(server: SMPServer, basicAuth: BasicAuth? = nil) {
        self.server = server
        self.basicAuth = basicAuth
    }

    public var text: String {
        SMPServer.text(keyHash: server.keyHash, basicAuth: basicAuth, hosts: server.hosts, port: server.port)
    }

    public init(parsing text: String) throws(SMPAddressError) {
        var s = AddressScanner(Array(text.utf8))
        (server, basicAuth) = try s.server()
        guard s.atEnd else { throw .init("unexpected text after the hosts and port") }
    }
}

/// When a client connects to the web port 443 with ALPN `http/1.1` (`SMPWebPortServers`, smp.md §2.1).
public enum WebPortServers: String, Hashable, Sendable {
    case all
    case preset
    case off
}

/// Why a server address or queue URI does not parse.
public struct SMPAddressError: Error, Hashable, Sendable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}

/// A cursor over the text of addresses and queue URIs; never reads past the end.
struct AddressScanner {
    let bytes: [UInt8]
    var i = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { i == bytes.count }
    var rest: [UInt8] { Array(bytes[i...]) }

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

    static func isBase64URL(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
    }

    /// `strP` of a `ByteString`: base64url characters, then any `=`, decoded (unpadded input is accepted).
    mutating func base64() throws(SMPAddressError) -> [UInt8] {
        guard let text = take(while: Self.isBase64URL) else { throw .init("expected base64url") }
        let padding = take(while: { $0 == UInt8(ascii: "=") }) ?? []
        do { return try Base64.decode(String(decoding: text + padding, as: UTF8.self)) } catch {
            throw .init("invalid base64url")
        }
    }

    /// `serverStrP`: `smp://keyHash[:auth]@hosts[:port]`.
    mutating func server() throws(SMPAddressError) -> (SMPServer, BasicAuth?) {
        guard skip("smp://") else { throw .init("the address must start with smp://") }
        let keyHash = KeyHash(try base64())
        var auth: BasicAuth?
        if skip(":") {
            guard let a = take(while: { $0 != UInt8(ascii: "@") }), let b = try? BasicAuth(a) else {
                throw .init("invalid password")
            }
            auth = b
        }
        guard skip("@") else { throw .init("expected @ and the server's hosts") }
        var hosts: [TransportHost] = []
        repeat {
            do {
                let (h, end) = try TransportHost.parse(bytes, from: i)
                hosts.append(h)
                i = end
            } catch {
                throw .init("invalid host: \(error)")
            }
        } while skip(",")
        var port = ""
        if skip(":") {
            guard let digits = take(while: { $0 >= 0x30 && $0 <= 0x39 }), digits.count <= 9,
                let n = Int(String(decoding: digits, as: UTF8.self)), n <= 65535
            else { throw .init("the port must be a number") }
            port = String(n)
        }
        return (try SMPServer(hosts: hosts, port: port, keyHash: keyHash), auth)
    }
}
