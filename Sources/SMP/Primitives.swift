public import SimplexCrypto
public import SimplexEncoding

/// A transmission's correlation id (`CorrId`, smp.md §3.1): `len1`, 24 random bytes from clients, empty on events.
public struct CorrId: Hashable, Sendable {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    /// A fresh 24-byte id.
    public static func random() -> CorrId { CorrId(SecureRandom.bytes(24)) }
    public static let empty = CorrId([])
    public var isEmpty: Bool { bytes.isEmpty }
}

/// A queue id, link id or other entity a transmission addresses (`EntityId`, smp.md §3.1): `len1`, empty for none.
public struct EntityId: Hashable, Sendable {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public static let empty = EntityId([])
    public var isEmpty: Bool { bytes.isEmpty }
}

/// A server-assigned message id (`MsgId`, smp.md §3.4): `len1`, 24 bytes on reference servers; also the nonce of
/// the message's encryption (§3.7).
public struct MsgId: Hashable, Sendable {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// The TLS session id (`tls-unique`, smp.md §2.3): the client's Finished, 32 bytes; `len1` on the wire.
public struct SessionId: Hashable, Sendable {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// A server's identity (`KeyHash`, smp.md §1.7, §2.2): the SHA-256 of its identity certificate. `len1` in binary,
/// padded base64url in text. Any length parses (the reference's tests use 4 bytes); real ones are 32.
public struct KeyHash: Hashable, Sendable {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public init(_ fingerprint: CertificateFingerprint) { bytes = fingerprint.rawRepresentation }

    /// Whether this is the fingerprint of `certificate`; compared in constant time.
    public func identifies(_ fingerprint: CertificateFingerprint) -> Bool {
        constantTimeEqual(bytes, fingerprint.rawRepresentation)
    }
}

/// A server password for creating queues (`BasicAuth`, smp.md §1.7, §3.3): printable ASCII without space,
/// `@`, `:` or `/`. `len1` in binary.
public struct BasicAuth: Hashable, Sendable {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) throws(BinaryDecodingError) {
        guard bytes.allSatisfy(Self.isAllowed) else { throw .malformed("invalid character in BasicAuth") }
        self.bytes = bytes
    }

    public init(_ text: String) throws(BinaryDecodingError) { try self.init(Array(text.utf8)) }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    static func isAllowed(_ c: UInt8) -> Bool {
        c > 0x20 && c < 0x7f && c != UInt8(ascii: "@") && c != UInt8(ascii: ":") && c != UInt8(ascii: "/")
    }
}

/// The binary fields of smp.md §1.1 that SMP types share.
extension ByteWriter {
    mutating func writeASCII(_ s: StaticString) {
        s.withUTF8Buffer { writeBytes($0) }
    }

    mutating func writeSpace() { writeByte(0x20) }

    mutating func write(_ id: CorrId) throws(BinaryEncodingError) { try writeShortBytes(id.bytes) }
    mutating func write(_ id: EntityId) throws(BinaryEncodingError) { try writeShortBytes(id.bytes) }
    mutating func write(_ id: MsgId) throws(BinaryEncodingError) { try writeShortBytes(id.bytes) }
    mutating func write(_ id: SessionId) throws(BinaryEncodingError) { try writeShortBytes(id.bytes) }
    mutating func write(_ h: KeyHash) throws(BinaryEncodingError) { try writeShortBytes(h.bytes) }

    /// `Maybe a`: `"0"`, or `"1"` and the value.
    mutating func writeMaybe<T>(_ value: T?, _ body: (inout ByteWriter, T) throws(BinaryEncodingError) -> Void)
        throws(BinaryEncodingError)
    {
        guard let value else { return writeByte(UInt8(ascii: "0")) }
        writeByte(UInt8(ascii: "1"))
        try body(&self, value)
    }

    mutating func writeBool(_ b: Bool) { writeByte(b ? UInt8(ascii: "T") : UInt8(ascii: "F")) }
}

extension ByteReader {
    mutating func readCorrId() throws(BinaryDecodingError) -> CorrId { CorrId(try readShortBytes()) }
    mutating func readEntityId() throws(BinaryDecodingError) -> EntityId { EntityId(try readShortBytes()) }
    mutating func readMsgId() throws(BinaryDecodingError) -> MsgId { MsgId(try readShortBytes()) }
    mutating func readSessionId() throws(BinaryDecodingError) -> SessionId { SessionId(try readShortBytes()) }
    mutating func readKeyHash() throws(BinaryDecodingError) -> KeyHash { KeyHash(try readShortBytes()) }

    mutating func readBool() throws(BinaryDecodingError) -> Bool { try Bool(from: &self) }

    /// `Maybe a`.
    mutating func readMaybe<T>(_ body: (inout ByteReader) throws(BinaryDecodingError) -> T) throws(BinaryDecodingError) -> T? {
        switch try readByte() {
        case UInt8(ascii: "0"): return nil
        case UInt8(ascii: "1"): return try body(&self)
        case let b: throw .invalidTag(b, expected: "0 or 1")
        }
    }

    mutating func expectSpace() throws(BinaryDecodingError) {
        let b = try readByte()
        guard b == 0x20 else { throw .invalidTag(b, expected: "space") }
    }

    /// `A.takeTill (== ' ')`: the bytes up to the next space or the end, the space left unread.
    mutating func readWord() -> [UInt8] {
        var out: [UInt8] = []
        while let b = peekByte(), b != 0x20 {
            out.append(b)
            _ = try? readByte()
        }
        return out
    }

    /// Consumes `literal` if the input starts with it.
    mutating func skip(_ literal: [UInt8]) -> Bool {
        var probe = self
        guard (try? probe.readBytes(literal.count)) == literal else { return false }
        self = probe
        return true
    }
}
