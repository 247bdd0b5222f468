public import SimplexCrypto
public import SimplexEncoding

/// Whether a queue carries a conversation or contact requests (`QueueMode`, smp.md §1.9, §3.3): `M` or `C`.
public enum QueueMode: Hashable, Sendable {
    case messaging
    case contact

    var byte: UInt8 { self == .messaging ? UInt8(ascii: "M") : UInt8(ascii: "C") }

    /// `senderCanSecure`: only messaging queues are secured by their sender.
    static func senderCanSecure(_ mode: QueueMode?) -> Bool { mode == .messaging }

    /// `queueModeP`: `M`/`C`, else an optional `T`/`F` (sender can secure), else nothing.
    static func readOptional(_ r: inout ByteReader) throws(BinaryDecodingError) -> QueueMode? {
        switch r.peekByte() {
        case UInt8(ascii: "M"):
            _ = try r.readByte()
            return .messaging
        case UInt8(ascii: "C"):
            _ = try r.readByte()
            return .contact
        case UInt8(ascii: "T"):
            _ = try r.readByte()
            return .messaging
        case UInt8(ascii: "F"):
            _ = try r.readByte()
            return .contact
        default:
            return nil
        }
    }
}

/// The address of a queue for its sender (`SMPQueueAddress`, smp.md §1.9).
public struct SMPQueueAddress: Hashable, Sendable {
    public var server: SMPServer
    public var senderId: EntityId
    /// The recipient's per-queue X25519 key for the e2e layer of this queue.
    public var dhPublicKey: X25519.PublicKey
    public var queueMode: QueueMode?

    public init(server: SMPServer, senderId: EntityId, dhPublicKey: X25519.PublicKey, queueMode: QueueMode?) {
        self.server = server
        self.senderId = senderId
        self.dhPublicKey = dhPublicKey
        self.queueMode = queueMode
    }
}

/// A queue URI (`SMPQueueUri`, smp.md §1.9) with the SMP client versions it supports; text in links, binary in
/// link data.
public struct SMPQueueURI: Hashable, Sendable, BinaryCodable {
    public var clientVersions: VersionRange
    public var address: SMPQueueAddress

    public init(clientVersions: VersionRange, address: SMPQueueAddress) {
        self.clientVersions = clientVersions
        self.address = address
    }

    /// The text form: the new layout (all hosts in the server) when the minimum version is ≥ 2, else the legacy
    /// one (first host, the rest in `srv=`), which current clients emit with range 1–4.
    public var text: String {
        let a = address
        var params: [(String, String)] = [
            ("v", clientVersions.description), ("dh", Base64.encode(a.dhPublicKey.spki)),
        ]
        switch a.queueMode {
        case .messaging: params.append(("q", "m"))
        case .contact: params.append(("q", "c"))
        case nil: break
        }
        if QueueMode.senderCanSecure(a.queueMode), clientVersions.min < SMPClientVersion.shortLinks {
            params.append(("k", "s"))
        }
        let serverText: String
        if clientVersions.min >= SMPClientVersion.serverHostnames {
            serverText = a.server.text
        } else {
            serverText = a.server.legacyText
            let others = a.server.hosts.dropFirst()
            if !others.isEmpty { params.append(("srv", others.map(\.text).joined(separator: ","))) }
        }
        let query = params.map { QueryEncoding.encode($0.0) + "=" + QueryEncoding.encode($0.1) }.joined(separator: "&")
        return serverText + "/" + Base64.encode(a.senderId.bytes) + "#/?" + query
    }

    /// Parses both layouts and the legacy unversioned form (`<server>/<senderId>#<dhKey>`).
    public init(parsing text: String) throws(SMPAddressError) {
        var s = AddressScanner(Array(text.utf8))
        let (parsedServer, auth) = try s.server()
        guard auth == nil else { throw .init("a queue URI cannot carry a server password") }
        var server = parsedServer
        guard s.skip("/") else { throw .init("expected / after the server") }
        let senderId = EntityId(try s.base64())
        _ = s.skip("/")
        guard s.skip("#") else { throw .init("expected # after the sender id") }

        var versions = VersionRange(SMPClientVersion.initial)
        var extraHosts: [TransportHost] = []
        var mode: QueueMode?
        let dhKey: X25519.PublicKey
        let keyStart = s
        if let key = try? s.base64(), s.atEnd {
            // Unversioned: the key alone fills the fragment.
            dhKey = try Self.x25519(key)
        } else {
            s = keyStart
            let leadingKey = try? s.base64()
            if leadingKey == nil { s = keyStart }
            _ = s.skip("/")
            guard s.skip("?") else { throw .init("expected the query of the queue URI") }
            let params = QueryEncoding.parameters(String(decoding: s.rest, as: UTF8.self))
            func text(_ name: String) -> String? {
                QueryEncoding.first(name, in: params).flatMap { String(validating: $0, as: UTF8.self) }
            }
            guard let v = text("v"), let range = try? VersionRange(text: v) else { throw .init("invalid or absent v=") }
            versions = range
            if let leadingKey {
                dhKey = try Self.x25519(leadingKey)
            } else {
                guard let dh = text("dh") else { throw .init("absent dh=") }
                var k = AddressScanner(Array(dh.utf8))
                let key = try k.base64()
                guard k.atEnd else { throw .init("invalid dh=") }
                dhKey = try Self.x25519(key)
            }
            if let srv = text("srv") {
                let bytes = Array(srv.utf8)
                var at = 0
                while at < bytes.count {
                    do {
                        let (h, end) = try TransportHost.parse(bytes, from: at)
                        extraHosts.append(h)
                        at = end
                    } catch {
                        throw .init("invalid srv=")
                    }
                    if at < bytes.count {
                        guard bytes[at] == UInt8(ascii: ",") else { throw .init("invalid srv=") }
                        at += 1
                    }
                }
            }
            switch text("q") {
            case "m": mode = .messaging
            case "c": mode = .contact
            default: mode = text("k") == "s" ? .messaging : nil
            }
        }
        server.hosts += extraHosts
        if versions.max < SMPClientVersion.serverHostnames { server = Self.addingOnionHost(server) }
        self.init(
            clientVersions: versions,
            address: SMPQueueAddress(server: server, senderId: senderId, dhPublicKey: dhKey, queueMode: mode))
    }

    private static func x25519(_ spki: [UInt8]) throws(SMPAddressError) -> X25519.PublicKey {
        do { return try X25519.PublicKey(spki: spki) } catch { throw .init("dh is not an X25519 key") }
    }

    /// `updateSMPServerHosts`: old links name some preset servers by their domain only; their onion host is added.
    static func addingOnionHost(_ server: SMPServer) -> SMPServer {
        guard server.hosts.count == 1, case .domain(let name) = server.host, let onion = extraServerHosts[name] else {
            return server
        }
        var s = server
        s.hosts.append(.onion(onion))
        return s
    }

    /// `extraSMPServerHosts` of simplexmq `Agent/Protocol.hs`.
    static let extraServerHosts: [String: String] = [
        "smp4.simplex.im": "o5vmywmrnaxalvz6wi3zicyftgio6psuvyniis6gco6bp6ekl4cqj4id.onion",
        "smp5.simplex.im": "jjbyvoemxysm7qxap7m5d5m35jzv5qq6gnlv7s4rsn7tdwwmuqciwpid.onion",
        "smp6.simplex.im": "bylepyau3ty4czmn77q4fglvperknl4bi2eb2fdy2bh4jxtf32kf73yd.onion",
        "smp8.simplex.im": "beccx4yfxxbvyhqypaavemqurytl6hozr47wfc7uuecacjqdvwpw2xid.onion",
        "smp9.simplex.im": "jssqzccmrcws6bhmn77vgmhfjmhwlyr3u7puw4erkyoosywgl67slqqd.onion",
        "smp10.simplex.im": "rb2pbttocvnbrngnwziclp2f4ckjq65kebafws6g4hy22cdaiv5dwjqd.onion",
    ]

    /// Binary: `VersionRange ‖ server ‖ len1(senderId) ‖ len1(SPKI dh)`, then the queue mode (`M`/`C`) when the
    /// minimum version is ≥ 4, else the sender-secures `Bool` when old clients need it.
    public func encode(to w: inout ByteWriter) throws(BinaryEncodingError) {
        clientVersions.encode(to: &w)
        try address.server.encode(to: &w)
        try w.write(address.senderId)
        try w.write(address.dhPublicKey)
        let secures = QueueMode.senderCanSecure(address.queueMode)
        if clientVersions.min >= SMPClientVersion.shortLinks {
            if let m = address.queueMode { w.writeByte(m.byte) }
        } else if clientVersions.min >= SMPClientVersion.senderAuthKey
            || (clientVersions.max >= SMPClientVersion.senderAuthKey && secures)
        {
            w.writeBool(secures)
        }
    }

    public init(from r: inout ByteReader) throws(BinaryDecodingError) {
        clientVersions = try VersionRange(from: &r)
        let server = try SMPServer(from: &r)
        let senderId = try r.readEntityId()
        let dh = try r.readX25519Key()
        address = SMPQueueAddress(server: server, senderId: senderId, dhPublicKey: dh, queueMode: try QueueMode.readOptional(&r))
    }
}

/// A queue address at one agreed client version (`SMPQueueInfo`, smp.md §1.9), binary only: used in
/// confirmations and queue rotation.
public struct SMPQueueInfo: Hashable, Sendable, BinaryCodable {
    public var clientVersion: UInt16
    public var address: SMPQueueAddress

    public init(clientVersion: UInt16, address: SMPQueueAddress) {
        self.clientVersion = clientVersion
        self.address = address
    }

    public func encode(to w: inout ByteWriter) throws(BinaryEncodingError) {
        w.writeUInt16(clientVersion)
        if clientVersion > SMPClientVersion.initial {
            try address.server.encode(to: &w)
        } else {
            try address.server.encodeLegacy(to: &w)
        }
        try w.write(address.senderId)
        try w.write(address.dhPublicKey)
        if clientVersion >= SMPClientVersion.shortLinks {
            if let m = address.queueMode { w.writeByte(m.byte) }
        } else if clientVersion >= SMPClientVersion.senderAuthKey, QueueMode.senderCanSecure(address.queueMode) {
            w.writeBool(true)
        }
    }

    public init(from r: inout ByteReader) throws(BinaryDecodingError) {
        clientVersion = try r.readUInt16()
        let server =
            clientVersion > SMPClientVersion.initial
            ? try SMPServer(from: &r) : SMPQueueURI.addingOnionHost(try SMPServer(legacyFrom: &r))
        let senderId = try r.readEntityId()
        let dh = try r.readX25519Key()
        address = SMPQueueAddress(server: server, senderId: senderId, dhPublicKey: dh, queueMode: try QueueMode.readOptional(&r))
    }
}
