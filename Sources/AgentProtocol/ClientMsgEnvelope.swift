public import SMP
public import SimplexCrypto
public import SimplexEncoding

/// The agent's size limits (smp.md §3.6, §4.4, non-PQ): every kind of message has one padded size at each layer, so
/// that all of one kind look the same on the wire.
public enum AgentLimits {
    /// The per-queue box of a message with the sender's DH key in its header (confirmations, invitations):
    /// `e2eEncConfirmationLength`; 15,920 bytes of ciphertext.
    public static let e2eEncConfirmationLength = 15_904
    /// The per-queue box of every other message: `e2eEncMessageLength`; 16,016 bytes of ciphertext.
    public static let e2eEncMessageLength = 16_000
    /// The ratchet body of an agent message (`"M"…`): `e2eEncAgentMsgLength`.
    public static let e2eEncAgentMessageLength = 15_840
    /// The ratchet body of connection info (`"I"`/`"D"`): `e2eEncConnInfoLength`.
    public static let e2eEncConnInfoLength = 14_832
    /// The largest `SEND` body a client may send at SMP v11 and later; the envelopes above stay below it
    /// (16,043 for a message, 15,992 for a confirmation).
    public static let maxSendBody = 16_048
    /// The largest message body a server stores and delivers (`MaxMessageLen`); a longer received envelope is refused.
    public static let maxReceivedBody = 16_088
    /// The `prevMsgHash` and receipt hashes: SHA-256.
    public static let messageHashLength = 32
}

/// The public header and box of everything sent to a queue (`ClientMsgEnvelope`, smp.md §4.3 a):
///
///     u16be(phVersion) ‖ Maybe(len1 SPKI X25519 phE2ePubDhKey) ‖ nonce(24) ‖ Tail(cmEncBody)
///
/// `phVersion` is the SMP client version agreed for the queue; the key is present in confirmations and invitations
/// (so the recipient can compute the per-queue secret) and absent in every later message.
public struct ClientMsgEnvelope: Equatable, Sendable, BinaryCodable {
    public var version: UInt16
    public var e2ePublicKey: X25519.PublicKey?
    public var nonce: SecretBox.Nonce
    public var encryptedBody: [UInt8]

    public init(version: UInt16, e2ePublicKey: X25519.PublicKey?, nonce: SecretBox.Nonce, encryptedBody: [UInt8]) {
        self.version = version
        self.e2ePublicKey = e2ePublicKey
        self.nonce = nonce
        self.encryptedBody = encryptedBody
    }

    /// `agentCbEncrypt`: boxes a client message under the per-queue secret, padded to 15,904 bytes when the header
    /// carries a key and to 16,000 otherwise.
    public static func seal(
        _ message: ClientMessage, version: UInt16, e2ePublicKey: X25519.PublicKey?, secret: X25519.SharedSecret,
        nonce: SecretBox.Nonce
    ) throws(AgentProtocolError) -> ClientMsgEnvelope {
        let size = e2ePublicKey == nil ? AgentLimits.e2eEncMessageLength : AgentLimits.e2eEncConfirmationLength
        let plain = message.encoded()
        do {
            let box = try SecretBox.sealPadded(plain, to: size, key: secret.boxKey, nonce: nonce)
            return ClientMsgEnvelope(version: version, e2ePublicKey: e2ePublicKey, nonce: nonce, encryptedBody: box)
        } catch {
            throw .tooLarge(length: plain.count, limit: size - 2)
        }
    }

    /// `agentCbDecrypt`: the client message inside, or `A_CRYPTO DECRYPT_CB` when the box does not open under
    /// `secret`, `A_MESSAGE` when what it holds does not parse.
    public func open(secret: X25519.SharedSecret) throws(AgentProtocolError) -> ClientMessage {
        let plain: [UInt8]
        do { plain = try SecretBox.openPadded(encryptedBody, key: secret.boxKey, nonce: nonce) } catch {
            throw .crypto(.decryptCB)
        }
        return try decodeMessage { () throws(BinaryDecodingError) in try ClientMessage(decoding: plain) }
    }

    /// The SEND body.
    public func body() throws(AgentProtocolError) -> [UInt8] {
        try encodeMessage { () throws(BinaryEncodingError) in try encoded() }
    }

    /// Parses a received body (after the server layer, smp.md §3.7); longer than a server may deliver is refused.
    public init(body: [UInt8]) throws(AgentProtocolError) {
        guard body.count <= AgentLimits.maxReceivedBody else {
            throw .message("an envelope of \(body.count) bytes exceeds \(AgentLimits.maxReceivedBody)")
        }
        self = try decodeMessage { () throws(BinaryDecodingError) in try ClientMsgEnvelope(decoding: body) }
    }

    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) {
        writer.writeUInt16(version)
        try e2ePublicKey.map { X25519Field($0) }.encode(to: &writer)
        writer.writeBytes(nonce.rawRepresentation)
        writer.writeBytes(encryptedBody)
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        version = try reader.readUInt16()
        e2ePublicKey = try X25519Field?(from: &reader)?.key
        let raw = try reader.readBytes(24)
        do { nonce = try SecretBox.Nonce(rawRepresentation: raw) } catch { throw .malformed("nonce") }
        encryptedBody = reader.readRest()
    }
}

/// The plaintext of a per-queue box (`ClientMessage`, smp.md §4.3 b): a private header, then the agent envelope.
public struct ClientMessage: Equatable, Sendable, BinaryCodable {
    public var privateHeader: PrivHeader
    /// The encoded `AgentMsgEnvelope`, to the end.
    public var body: [UInt8]

    public init(privateHeader: PrivHeader, body: [UInt8]) {
        self.privateHeader = privateHeader
        self.body = body
    }

    public init(privateHeader: PrivHeader, envelope: AgentMsgEnvelope) throws(AgentProtocolError) {
        self.privateHeader = privateHeader
        body = try encodeMessage { () throws(BinaryEncodingError) in try envelope.encoded() }
    }

    /// The agent envelope inside, or `A_MESSAGE`.
    public func envelope() throws(AgentProtocolError) -> AgentMsgEnvelope {
        try decodeMessage { () throws(BinaryDecodingError) in try AgentMsgEnvelope(decoding: body) }
    }

    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: body.count + 48)
        privateHeader.encode(to: &w)
        w.writeBytes(body)
        return w.bytes
    }

    public func encode(to writer: inout ByteWriter) { writer.writeBytes(encoded()) }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        privateHeader = try PrivHeader(from: &reader)
        body = reader.readRest()
    }
}

/// The private header of a client message (`PrivHeader`, smp.md §4.3 b): `"_"` normally; `"K" ‖ len1(SPKI)` with
/// the sender's key in a confirmation to a queue its sender cannot secure (the recipient then runs `KEY`).
public enum PrivHeader: Equatable, Sendable {
    case empty
    case confirmation(senderKey: AuthPublicKey)

    public func encode(to writer: inout ByteWriter) {
        switch self {
        case .empty: writer.writeByte(UInt8(ascii: "_"))
        case .confirmation(let key):
            writer.writeByte(UInt8(ascii: "K"))
            // An SPKI key is at most 69 bytes.
            try? writer.writeShortBytes(key.spki)
        }
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        switch try reader.readByte() {
        case UInt8(ascii: "_"): self = .empty
        case UInt8(ascii: "K"): self = .confirmation(senderKey: try readAuthKey(&reader))
        case let b: throw .invalidTag(b, expected: "_ or K")
        }
    }
}

/// `len1(SPKI)` of an X25519 key, the DH field of a public header.
struct X25519Field: BinaryCodable {
    let key: X25519.PublicKey

    init(_ key: X25519.PublicKey) { self.key = key }

    func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) { try writer.writeShortBytes(key.spki) }

    init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        guard case .x25519(let k) = try SMPPublicKey(spki: reader.readShortBytes()) else {
            throw .malformed("expected an X25519 key")
        }
        key = k
    }
}

/// A key that authorizes commands (`APublicAuthKey`): Ed25519, Ed448 or X25519, `len1(SPKI)`.
func readAuthKey(_ reader: inout ByteReader) throws(BinaryDecodingError) -> AuthPublicKey {
    switch try SMPPublicKey(spki: reader.readShortBytes()) {
    case .ed25519(let k): return .ed25519(k)
    case .ed448(let k): return .ed448(k)
    case .x25519(let k): return .x25519(k)
    case .x448: throw .malformed("X448 cannot authorize commands")
    }
}

/// Runs a decoder, its failure becoming `A_MESSAGE`.
func decodeMessage<T>(_ body: () throws(BinaryDecodingError) -> T) throws(AgentProtocolError) -> T {
    do { return try body() } catch { throw .message("\(error)") }
}

/// Runs an encoder; a field too long for its length prefix is a message too large to send.
func encodeMessage<T>(_ body: () throws(BinaryEncodingError) -> T) throws(AgentProtocolError) -> T {
    do {
        return try body()
    } catch {
        switch error {
        case .tooLong(let length, let limit): throw .tooLarge(length: length, limit: limit)
        }
    }
}
