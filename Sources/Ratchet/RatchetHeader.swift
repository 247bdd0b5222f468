public import SimplexCrypto
public import SimplexEncoding

/// E2E (ratchet) versions, smp.md §5.1: 2 = KDF in X3DH (the minimum), 3 = the PQ-capable encoding (a KEM field in
/// headers and parameters, 2-byte lengths), used even without a KEM.
public enum E2EVersion {
    public static let kdfX3DH: UInt16 = 2
    public static let pqEncoding: UInt16 = 3
    public static let current: UInt16 = 3
    public static let supported: VersionRange = (try? VersionRange(min: kdfX3DH, max: current)) ?? VersionRange(current)
}

/// A KEM field of a header or of the e2e parameters (`ARKEMParams`, smp.md §5.4, §5.7): a sntrup761 proposal
/// (`"P" len2(public key)`) or an acceptance (`"A" len2(ciphertext) len2(public key)`). We parse both and propose none.
public enum RatchetKEMParams: Sendable, Equatable, BinaryCodable {
    case proposed(publicKey: [UInt8])
    case accepted(ciphertext: [UInt8], publicKey: [UInt8])

    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) {
        switch self {
        case .proposed(let key):
            writer.writeByte(UInt8(ascii: "P"))
            try writer.writeLargeBytes(key)
        case .accepted(let ciphertext, let key):
            writer.writeByte(UInt8(ascii: "A"))
            try writer.writeLargeBytes(ciphertext)
            try writer.writeLargeBytes(key)
        }
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        switch try reader.readByte() {
        case UInt8(ascii: "P"): self = .proposed(publicKey: try reader.readLargeBytes())
        case UInt8(ascii: "A"):
            let ciphertext = try reader.readLargeBytes()
            self = .accepted(ciphertext: ciphertext, publicKey: try reader.readLargeBytes())
        case let b: throw .invalidTag(b, expected: "P or A")
        }
    }
}

/// `len1(SPKI)` of an X448 key, the only key algorithm of the ratchet (smp.md §1.3).
func writeKey(_ key: X448.PublicKey, to writer: inout ByteWriter) throws(BinaryEncodingError) {
    try writer.writeShortBytes(key.spki)
}

func readKey(from reader: inout ByteReader) throws(BinaryDecodingError) -> X448.PublicKey {
    let der = try reader.readShortBytes()
    do {
        return try X448.PublicKey(spki: der)
    } catch {
        throw .malformed("not an X448 SPKI key (\(der.count) bytes)")
    }
}

/// The e2e ratchet parameters of a confirmation (`E2ERatchetParams`, smp.md §4.3, §1.10):
/// `u16be(version) ‖ len1(SPKI k1) ‖ len1(SPKI k2)`, then `Maybe KEM` from version 3.
public struct E2ERatchetParams: Sendable, Equatable, BinaryCodable {
    public let version: UInt16
    public let key1: X448.PublicKey
    public let key2: X448.PublicKey
    public let kem: RatchetKEMParams?

    public init(version: UInt16, key1: X448.PublicKey, key2: X448.PublicKey, kem: RatchetKEMParams? = nil) {
        self.version = version
        self.key1 = key1
        self.key2 = key2
        self.kem = kem
    }

    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) {
        writer.writeUInt16(version)
        try writeKey(key1, to: &writer)
        try writeKey(key2, to: &writer)
        if version >= E2EVersion.pqEncoding { try kem.encode(to: &writer) }
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        version = try reader.readUInt16()
        key1 = try readKey(from: &reader)
        key2 = try readKey(from: &reader)
        kem = version >= E2EVersion.pqEncoding ? try RatchetKEMParams?(from: &reader) : nil
    }
}

/// The two X448 private keys behind a party's `E2ERatchetParams` (`a1, a2` of the initiator, `b1, b2` of the joiner).
public struct E2EPrivateKeys: Sendable {
    public let key1: X448.PrivateKey
    public let key2: X448.PrivateKey

    public init(key1: X448.PrivateKey, key2: X448.PrivateKey) {
        self.key1 = key1
        self.key2 = key2
    }

    /// The public parameters to send, without a KEM.
    public func params(version: UInt16 = E2EVersion.current) -> E2ERatchetParams {
        E2ERatchetParams(version: version, key1: key1.publicKey, key2: key2.publicKey)
    }
}

/// The plaintext message header (`MsgHeader`, smp.md §5.4): `u16be(maxSupported) ‖ len1(SPKI DHRs)`, then `Maybe KEM`
/// when the version it is encoded at is 3 or more, then `u32be(PN) ‖ u32be(Ns)` — 80 bytes at v3 without a KEM.
public struct RatchetHeader: Sendable, Equatable {
    /// The sender's highest supported e2e version.
    public let maxVersion: UInt16
    /// The sender's current ratchet public key.
    public let ratchetKey: X448.PublicKey
    public let kem: RatchetKEMParams?
    /// The number of messages in the sender's previous sending chain.
    public let previousCount: UInt32
    /// This message's number in its sending chain.
    public let number: UInt32

    public init(maxVersion: UInt16, ratchetKey: X448.PublicKey, kem: RatchetKEMParams?, previousCount: UInt32, number: UInt32) {
        self.maxVersion = maxVersion
        self.ratchetKey = ratchetKey
        self.kem = kem
        self.previousCount = previousCount
        self.number = number
    }

    /// The header encoded at `version` (the sender's current version), which decides whether the KEM field is present.
    public func encoded(version: UInt16) throws(BinaryEncodingError) -> [UInt8] {
        var w = ByteWriter(capacity: 80)
        w.writeUInt16(maxVersion)
        try writeKey(ratchetKey, to: &w)
        if version >= E2EVersion.pqEncoding { try kem.encode(to: &w) }
        w.writeUInt32(previousCount)
        w.writeUInt32(number)
        return w.bytes
    }

    /// Parses a header encoded at `version`. Bytes after it are allowed, as the reference allows them, so that a later
    /// version can extend the header inside the same padding.
    public init(decoding bytes: [UInt8], version: UInt16) throws(BinaryDecodingError) {
        var r = ByteReader(bytes)
        maxVersion = try r.readUInt16()
        ratchetKey = try readKey(from: &r)
        kem = version >= E2EVersion.pqEncoding ? try RatchetKEMParams?(from: &r) : nil
        previousCount = try r.readUInt32()
        number = try r.readUInt32()
    }
}

/// The encrypted header (`EncMessageHeader`, smp.md §5.4): `u16be(version) ‖ IV(16) ‖ tag(16)`, then the ciphertext as
/// `len2` at version 3 or more and `len1` below — 124 bytes at v3 with an 88-byte padded header.
public struct EncMessageHeader: Sendable, Equatable, BinaryCodable {
    /// The sender's current e2e version.
    public let version: UInt16
    public let iv: [UInt8]
    public let authTag: [UInt8]
    public let body: [UInt8]

    public init(version: UInt16, iv: [UInt8], authTag: [UInt8], body: [UInt8]) {
        self.version = version
        self.iv = iv
        self.authTag = authTag
        self.body = body
    }

    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) {
        writer.writeUInt16(version)
        writer.writeBytes(iv)
        writer.writeBytes(authTag)
        try writeVersioned(body, version: version, to: &writer)
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        version = try reader.readUInt16()
        iv = try reader.readBytes(16)
        authTag = try reader.readBytes(16)
        body = try readEitherLength(from: &reader)
    }
}

/// A double-ratchet message (`EncRatchetMessage`, smp.md §5.5): the encrypted header with a length of the sender's
/// version's width, the body's tag, then the body to the end.
public struct EncRatchetMessage: Sendable, Equatable {
    /// The serialized `EncMessageHeader`, kept as bytes: they are part of the body's associated data.
    public let header: [UInt8]
    public let authTag: [UInt8]
    public let body: [UInt8]

    public init(header: [UInt8], authTag: [UInt8], body: [UInt8]) {
        self.header = header
        self.authTag = authTag
        self.body = body
    }

    public func encoded(version: UInt16) throws(BinaryEncodingError) -> [UInt8] {
        var w = ByteWriter(capacity: header.count + body.count + 20)
        try writeVersioned(header, version: version, to: &w)
        w.writeBytes(authTag)
        w.writeBytes(body)
        return w.bytes
    }

    public init(decoding bytes: [UInt8]) throws(BinaryDecodingError) {
        var r = ByteReader(bytes)
        header = try readEitherLength(from: &r)
        authTag = try r.readBytes(16)
        body = r.readRest()
    }
}

/// `len2` from version 3, `len1` below (`encodeLarge`).
func writeVersioned(_ bytes: [UInt8], version: UInt16, to writer: inout ByteWriter) throws(BinaryEncodingError) {
    if version >= E2EVersion.pqEncoding {
        try writer.writeLargeBytes(bytes)
    } else {
        try writer.writeShortBytes(bytes)
    }
}

/// Either width (`largeP`): a first byte below 32 starts a 2-byte length, since no header is shorter than 32 bytes.
func readEitherLength(from reader: inout ByteReader) throws(BinaryDecodingError) -> [UInt8] {
    guard let first = reader.peekByte() else { throw .truncated(needed: 1) }
    return first < 32 ? try reader.readLargeBytes() : try reader.readShortBytes()
}
