public import SimplexCrypto
public import SimplexEncoding

/// The server's first block (`SMPServerHandshake`, smp.md §2.4): its version range, the session id, and (v ≥ 7) its
/// certificate chain with the connection's X25519 key signed by the leaf.
public struct ServerHello: Hashable, Sendable {
    public var versionRange: VersionRange
    public var sessionId: SessionId
    public var authKey: CertChainPublicKey?

    public init(versionRange: VersionRange, sessionId: SessionId, authKey: CertChainPublicKey?) {
        self.versionRange = versionRange
        self.sessionId = sessionId
        self.authKey = authKey
    }

    public func encoded() throws(BinaryEncodingError) -> [UInt8] {
        var w = ByteWriter(capacity: 1024)
        versionRange.encode(to: &w)
        try w.write(sessionId)
        if versionRange.max >= SMPVersion.authCommands, let authKey { try authKey.encode(to: &w) }
        return w.bytes
    }

    /// Parses a hello; bytes after it are ignored (forward extension).
    public init(decoding bytes: [UInt8]) throws(HandshakeError) {
        var r = ByteReader(bytes)
        do {
            versionRange = try VersionRange(from: &r)
            sessionId = try r.readSessionId()
        } catch { throw .parse }
        authKey = nil
        if versionRange.max >= SMPVersion.authCommands, !r.isAtEnd {
            var probe = r
            // `optional`: a key that does not parse is absent, as the reference's parser backtracks.
            if let k = try? CertChainPublicKey(from: &probe) {
                authKey = k
                r = probe
            }
        }
    }

    /// The block: `pad(hello, 16384)`.
    public func block() throws(HandshakeError) -> [UInt8] {
        do { return try Padding.pad(encoded(), to: SMPLimits.blockSize) } catch { throw .parse }
    }

    public init(block: [UInt8]) throws(HandshakeError) { try self.init(decoding: try Self.unpad(block)) }

    static func unpad(_ block: [UInt8]) throws(HandshakeError) -> [UInt8] {
        guard block.count == SMPLimits.blockSize, let content = try? Padding.unpad(block) else { throw .parse }
        return content
    }
}

/// The client's reply block (`SMPClientHandshake`, smp.md §2.4), at the version it chose.
public struct ClientHello: Hashable, Sendable {
    public var version: UInt16
    /// The server identity the client expects; the server closes with `HANDSHAKE IDENTITY` if it is not its own.
    public var keyHash: KeyHash
    /// The client's X25519 key for block encryption (v ≥ 7; reference clients always send one).
    public var authKey: X25519.PublicKey?
    /// Whether the client is an SMP proxy (v ≥ 14); a proxy's blocks are not encrypted.
    public var proxyServer: Bool
    /// A service's certificate and key (v ≥ 16); none for ordinary clients.
    public var clientService: ClientHelloService?

    public init(
        version: UInt16, keyHash: KeyHash, authKey: X25519.PublicKey?, proxyServer: Bool = false,
        clientService: ClientHelloService? = nil
    ) {
        self.version = version
        self.keyHash = keyHash
        self.authKey = authKey
        self.proxyServer = proxyServer
        self.clientService = clientService
    }

    /// The version a client picks: the highest both ranges hold, or nil (`TEVersion`).
    public static func negotiate(server: VersionRange, client: VersionRange = SMPVersion.supported) -> UInt16? {
        server.intersection(client)?.max
    }

    public func encoded() throws(BinaryEncodingError) -> [UInt8] {
        var w = ByteWriter(capacity: 128)
        w.writeUInt16(version)
        try w.write(keyHash)
        if version >= SMPVersion.authCommands, let authKey { try w.write(authKey) }
        if version >= SMPVersion.proxyServerHandshake { w.writeBool(proxyServer) }
        if version >= SMPVersion.serviceCerts {
            try w.writeMaybe(clientService) { (w, s) throws(BinaryEncodingError) in
                w.writeByte(s.role.byte)
                try s.certKey.encode(to: &w)
            }
        }
        return w.bytes
    }

    /// Parses a hello; bytes after it are ignored.
    public init(decoding bytes: [UInt8]) throws(HandshakeError) {
        var r = ByteReader(bytes)
        do {
            version = try r.readUInt16()
            keyHash = try r.readKeyHash()
            authKey = nil
            if version >= SMPVersion.authCommands {
                var probe = r
                if let k = try? probe.readX25519Key() {
                    authKey = k
                    r = probe
                }
            }
            proxyServer = version >= SMPVersion.proxyServerHandshake ? try r.readBool() : false
            clientService =
                version >= SMPVersion.serviceCerts
                ? try r.readMaybe { (r: inout ByteReader) throws(BinaryDecodingError) in
                    ClientHelloService(role: try ServiceRole(from: &r), certKey: try CertChainPublicKey(from: &r))
                } : nil
        } catch { throw .parse }
    }

    public func block() throws(HandshakeError) -> [UInt8] {
        do { return try Padding.pad(encoded(), to: SMPLimits.blockSize) } catch { throw .parse }
    }

    public init(block: [UInt8]) throws(HandshakeError) { try self.init(decoding: try ServerHello.unpad(block)) }

    /// Whether this hello, with the server's own hello, turns on block encryption (§2.6): v ≥ 11, both keys sent,
    /// not a proxy.
    public func encryptsBlocks(with server: ServerHello) -> Bool {
        version >= SMPVersion.encryptedBlock && authKey != nil && server.authKey != nil && !proxyServer
    }
}

/// A service's part of the client hello (`SMPClientHandshakeService`).
public struct ClientHelloService: Hashable, Sendable {
    public var role: ServiceRole
    public var certKey: CertChainPublicKey

    public init(role: ServiceRole, certKey: CertChainPublicKey) {
        self.role = role
        self.certKey = certKey
    }
}

/// A client service's role (`SMPServiceRole`): `M`, `N` or `P`.
public enum ServiceRole: Hashable, Sendable {
    case messaging
    case notifier
    case proxy

    var byte: UInt8 {
        switch self {
        case .messaging: UInt8(ascii: "M")
        case .notifier: UInt8(ascii: "N")
        case .proxy: UInt8(ascii: "P")
        }
    }

    init(from r: inout ByteReader) throws(BinaryDecodingError) {
        switch try r.readByte() {
        case UInt8(ascii: "M"): self = .messaging
        case UInt8(ascii: "N"): self = .notifier
        case UInt8(ascii: "P"): self = .proxy
        case let b: throw .invalidTag(b, expected: "M, N or P")
        }
    }
}

/// The third block a server sends a client that declared a service (`SMPServerHandshakeResponse`).
public enum ServerHandshakeResponse: Hashable, Sendable {
    case serviceId(EntityId)
    case error(TransportError)

    public func encoded() throws(BinaryEncodingError) -> [UInt8] {
        var w = ByteWriter()
        switch self {
        case .serviceId(let id):
            w.writeByte(UInt8(ascii: "R"))
            try w.write(id)
        case .error(let e):
            w.writeByte(UInt8(ascii: "E"))
            e.encode(to: &w)
        }
        return w.bytes
    }

    public init(decoding bytes: [UInt8]) throws(HandshakeError) {
        var r = ByteReader(bytes)
        do {
            switch try r.readByte() {
            case UInt8(ascii: "R"): self = .serviceId(try r.readEntityId())
            case UInt8(ascii: "E"): self = .error(try TransportError(from: &r))
            default: throw HandshakeError.parse
            }
        } catch { throw .parse }
    }
}

/// A certificate chain with a key signed by its leaf (`CertChainPubKey`, smp.md §2.4):
/// `len1(count) ‖ len2(cert DER)… ‖ len2(signed key DER)`.
public struct CertChainPublicKey: Hashable, Sendable {
    public var certificates: [Certificate]
    public var signedKey: SignedServerKey

    public init(certificates: [Certificate], signedKey: SignedServerKey) {
        self.certificates = certificates
        self.signedKey = signedKey
    }

    func encode(to w: inout ByteWriter) throws(BinaryEncodingError) {
        guard !certificates.isEmpty, certificates.count <= 255 else { throw .tooLong(length: certificates.count, limit: 255) }
        w.writeByte(UInt8(certificates.count))
        for c in certificates { try w.writeLargeBytes(c.derRepresentation) }
        try w.writeLargeBytes(signedKey.derRepresentation)
    }

    init(from r: inout ByteReader) throws(BinaryDecodingError) {
        let n = Int(try r.readByte())
        guard n > 0 else { throw .malformed("empty certificate chain") }
        var certs: [Certificate] = []
        for _ in 0..<n {
            let der = try r.readLargeBytes()
            certs.append(try mapCrypto { () throws(CryptoError) in try Certificate(der: der) })
        }
        certificates = certs
        signedKey = try SignedServerKey(der: r.readLargeBytes())
    }
}

/// The server's per-connection X25519 key signed by its TLS leaf certificate's key (X.509 `SignedExact PubKey`,
/// smp.md §2.4): `SEQUENCE { SEQUENCE { SPKI }, AlgorithmIdentifier (Ed25519 or Ed448, no parameters),
/// BIT STRING signature }`, the signature over the DER of `SEQUENCE { SPKI }`. Keeps its original bytes.
public struct SignedServerKey: Hashable, Sendable {
    public enum Algorithm: Hashable, Sendable {
        case ed25519
        case ed448

        var identifier: [UInt8] {
            switch self {
            case .ed25519: [0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70]
            case .ed448: [0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x71]
            }
        }
    }

    public let derRepresentation: [UInt8]
    /// The signed object's DER, `SEQUENCE { SPKI }`.
    public let signedBytes: [UInt8]
    /// The key, not yet verified.
    public let unverifiedKey: X25519.PublicKey
    public let algorithm: Algorithm
    public let signature: [UInt8]

    public init(der: [UInt8]) throws(BinaryDecodingError) {
        var outer = DERReader(der)
        var body = DERReader(try outer.element(tag: 0x30).content)
        guard outer.isAtEnd else { throw .malformed("bytes after the signed key") }
        let object = try body.element(tag: 0x30)
        let alg = try body.element(tag: 0x30)
        let sig = try body.element(tag: 0x03)
        guard body.isAtEnd else { throw .malformed("extra fields in the signed key") }
        var inner = DERReader(object.content)
        let spki = try inner.element(tag: 0x30)
        guard inner.isAtEnd else { throw .malformed("extra fields in the signed object") }
        switch alg.whole {
        case Algorithm.ed25519.identifier: algorithm = .ed25519
        case Algorithm.ed448.identifier: algorithm = .ed448
        default: throw .malformed("signature algorithm is not Ed25519 or Ed448 without parameters")
        }
        guard sig.content.first == 0 else { throw .malformed("signature bit string with unused bits") }
        signature = Array(sig.content.dropFirst())
        guard signature.count == (algorithm == .ed25519 ? 64 : 114) else { throw .malformed("signature length") }
        unverifiedKey = try mapCrypto { () throws(CryptoError) in try X25519.PublicKey(spki: spki.whole) }
        signedBytes = object.whole
        derRepresentation = der
    }

    /// Signs `key` with an Ed25519 leaf key, as a server does (`signX509`).
    public static func sign(_ key: X25519.PublicKey, with signer: Ed25519.PrivateKey) -> SignedServerKey {
        let object = DERWriter.element(0x30, key.spki)
        let sig = signer.signature(for: object).rawRepresentation
        let der = DERWriter.element(0x30, object + Algorithm.ed25519.identifier + DERWriter.element(0x03, [0] + sig))
        // Made from valid parts just above.
        guard let signed = try? SignedServerKey(der: der) else { preconditionFailure("signed key encoding") }
        return signed
    }

    /// The key, once its signature verifies with the TLS leaf certificate's key (of the same algorithm).
    public func verifiedKey(leafKey: SMPPublicKey) throws(HandshakeError) -> X25519.PublicKey {
        let ok: Bool
        switch (algorithm, leafKey) {
        case (.ed25519, .ed25519(let k)):
            guard let s = try? Ed25519.Signature(rawRepresentation: signature) else { throw .badAuth }
            ok = k.isValidSignature(s, for: signedBytes)
        case (.ed448, .ed448(let k)):
            guard let s = try? Ed448.Signature(rawRepresentation: signature) else { throw .badAuth }
            ok = k.isValidSignature(s, for: signedBytes)
        default:
            ok = false
        }
        guard ok else { throw .badAuth }
        return unverifiedKey
    }
}

/// A minimal DER reader for the signed key: definite lengths up to 65,535.
struct DERReader {
    struct Element {
        var whole: [UInt8]
        var content: [UInt8]
    }

    private var r: ByteReader
    init(_ bytes: [UInt8]) { r = ByteReader(bytes) }
    var isAtEnd: Bool { r.isAtEnd }

    mutating func element(tag: UInt8) throws(BinaryDecodingError) -> Element {
        let t = try r.readByte()
        guard t == tag else { throw .invalidTag(t, expected: "DER tag \(tag)") }
        let first = try r.readByte()
        var header: [UInt8] = [t, first]
        let length: Int
        switch first {
        case 0..<0x80: length = Int(first)
        case 0x81:
            let b = try r.readByte()
            guard b >= 0x80 else { throw .malformed("non-minimal DER length") }
            header.append(b)
            length = Int(b)
        case 0x82:
            let b = try r.readBytes(2)
            guard b[0] != 0 else { throw .malformed("non-minimal DER length") }
            header += b
            length = Int(b[0]) << 8 | Int(b[1])
        default: throw .malformed("unsupported DER length")
        }
        let content = try r.readBytes(length)
        return Element(whole: header + content, content: content)
    }
}

enum DERWriter {
    static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        let n = content.count
        let length: [UInt8] =
            n < 0x80 ? [UInt8(n)] : n < 0x100 ? [0x81, UInt8(n)] : [0x82, UInt8(n >> 8), UInt8(truncatingIfNeeded: n)]
        return [tag] + length + content
    }
}
