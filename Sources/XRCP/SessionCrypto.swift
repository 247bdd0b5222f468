public import SimplexCrypto
internal import SimplexEncoding
internal import SimplexZstd

/// The keys of one message: its body, then its attachment (every message takes both, xrcp.md §8.4).
public struct MessageKeys: Sendable, Equatable {
    public let body: MessageKey
    public let file: MessageKey
}

/// The receiving side of a chain with the skipped-id window (xrcp.md §9.4 step 3).
struct ReceiveChain: Sendable {
    var chain: ChainKey
    var counter: UInt32 = 0
    var skipped: [UInt32: MessageKeys] = [:]
    static let maxSkip: UInt32 = 256

    init(_ chain: ChainKey) { self.chain = chain }

    mutating func keys(for corrId: UInt32) throws(RemoteProtocolError) -> MessageKeys {
        if corrId == counter { throw .duplicateId }
        if corrId < counter {
            guard let keys = skipped.removeValue(forKey: corrId) else { throw .earlierId(counter - corrId) }
            return keys
        }
        guard corrId - counter <= Self.maxSkip else { throw .manySkippedIds(corrId - counter) }
        var id = counter + 1
        while id < corrId {
            skipped[id] = MessageKeys(body: chain.next(), file: chain.next())
            id += 1
        }
        counter = corrId
        return MessageKeys(body: chain.next(), file: chain.next())
    }
}

/// One side's crypto for the bodies of a session (xrcp.md §9.5): chains and counters in both directions, the
/// session code bytes embedded in every body, and whether bodies are compressed.
public struct RemoteCrypto: Sendable {
    public enum Role: Sendable { case controller, host }

    public let role: Role
    /// The tls-unique bytes, inside every encrypted body.
    public let sessionCode: [UInt8]
    public let compression: Bool
    var sendChain: ChainKey
    var sendCounter: UInt32 = 0
    var receive: ReceiveChain
    /// Controller: its session and identity keys, which sign every request.
    let signingKeys: (session: Ed25519.PrivateKey, identity: Ed25519.PrivateKey)?
    /// Host: the invitation's session and identity keys, which must have signed every request.
    let verifyingKeys: (session: Ed25519.PublicKey, identity: Ed25519.PublicKey)?

    /// The controller's context; `keys` already had its first controller→host step taken by the HELLO.
    public static func controller(
        keys: SessionKeys, sessionCode: [UInt8], compression: Bool, sessionKey: Ed25519.PrivateKey,
        identityKey: Ed25519.PrivateKey
    ) -> RemoteCrypto {
        RemoteCrypto(
            role: .controller, sessionCode: sessionCode, compression: compression, sendChain: keys.controllerToHost,
            receive: ReceiveChain(keys.hostToController), signingKeys: (sessionKey, identityKey), verifyingKeys: nil)
    }

    /// The host's context, verifying requests with the invitation's keys.
    public static func host(
        keys: SessionKeys, sessionCode: [UInt8], compression: Bool, sessionKey: Ed25519.PublicKey, identityKey: Ed25519.PublicKey
    ) -> RemoteCrypto {
        RemoteCrypto(
            role: .host, sessionCode: sessionCode, compression: compression, sendChain: keys.hostToController,
            receive: ReceiveChain(keys.controllerToHost), signingKeys: nil, verifyingKeys: (sessionKey, identityKey))
    }

    private init(
        role: Role, sessionCode: [UInt8], compression: Bool, sendChain: ChainKey, receive: ReceiveChain,
        signingKeys: (session: Ed25519.PrivateKey, identity: Ed25519.PrivateKey)?,
        verifyingKeys: (session: Ed25519.PublicKey, identity: Ed25519.PublicKey)?
    ) {
        self.role = role
        self.sessionCode = sessionCode
        self.compression = compression
        self.sendChain = sendChain
        self.receive = receive
        self.signingKeys = signingKeys
        self.verifyingKeys = verifyingKeys
    }

    /// Seals one body (§9.3): `u32 corrId ‖ u32 len ‖ sx_box_tt(len1(code) ‖ payload)`, then, from the controller,
    /// both signatures. Returns the bytes and the key for an attachment that may follow.
    public mutating func seal(json: [UInt8]) throws(RemoteProtocolError) -> (body: [UInt8], fileKey: MessageKey) {
        sendCounter += 1
        let keys = MessageKeys(body: sendChain.next(), file: sendChain.next())
        var plaintext = ByteWriter(capacity: json.count + 64)
        do { try plaintext.writeShortBytes(sessionCode) } catch { throw .invalidBody("session code too long") }
        plaintext.writeBytes(compression ? Zstd.compress(json) : json)
        let ct = SecretBox.sealTailTag(plaintext.bytes, key: keys.body.key, nonce: keys.body.nonce)
        var w = ByteWriter(capacity: ct.count + 140)
        w.writeUInt32(sendCounter)
        w.writeUInt32(UInt32(ct.count))
        w.writeBytes(ct)
        if let signing = signingKeys {
            let ssig = signing.session.signature(for: Digest.sha512(w.bytes))
            let idsig = signing.identity.signature(for: Digest.sha512(w.bytes + ssig.rawRepresentation))
            do {
                try w.writeShortBytes(ssig.rawRepresentation)
                try w.writeShortBytes(idsig.rawRepresentation)
            } catch { throw .invalidBody("signature") }
        }
        return (w.bytes, keys.file)
    }

    /// How many bytes the body at the start of `prefix` occupies, once its 8-byte header has arrived.
    public func bodyLength(prefix: [UInt8]) throws(RemoteProtocolError) -> Int? {
        guard prefix.count >= 8 else { return nil }
        let ctLen = Int(prefix[4]) << 24 | Int(prefix[5]) << 16 | Int(prefix[6]) << 8 | Int(prefix[7])
        guard ctLen <= Self.maxBodySize else { throw .invalidSize }
        return 8 + ctLen + (verifyingKeys == nil ? 0 : 130)
    }

    /// Bodies larger than this are refused before they are read (`invalidSize`).
    public static let maxBodySize = 64 << 20

    /// Opens one body from the start of `bytes` (§9.4): on the host the signatures are checked first, then the
    /// keys for its correlation id are taken (consumed even if decryption fails). Returns the JSON, the key for an
    /// attachment, and how many bytes the body took.
    public mutating func open(_ bytes: [UInt8]) throws(RemoteProtocolError) -> (json: [UInt8], fileKey: MessageKey, consumed: Int)
    {
        var r = ByteReader(bytes)
        let corrId: UInt32
        let ct: [UInt8]
        do {
            corrId = try r.readUInt32()
            let ctLen = Int(try r.readUInt32())
            guard ctLen <= Self.maxBodySize else { throw RemoteProtocolError.invalidSize }
            ct = try r.readBytes(ctLen)
        } catch let e as RemoteProtocolError {
            throw e
        } catch {
            throw .invalidBody("truncated body")
        }
        if let verifying = verifyingKeys {
            let signed = Array(bytes[0..<r.offset])
            let ssig: Ed25519.Signature
            let idsig: Ed25519.Signature
            do {
                ssig = try Ed25519.Signature(rawRepresentation: r.readShortBytes())
                idsig = try Ed25519.Signature(rawRepresentation: r.readShortBytes())
            } catch { throw .invalidBody("signature") }
            guard verifying.session.isValidSignature(ssig, for: Digest.sha512(signed)),
                verifying.identity.isValidSignature(idsig, for: Digest.sha512(signed + ssig.rawRepresentation))
            else { throw .remoteControl(.ctrlAuth) }
        }
        let keys = try receive.keys(for: corrId)
        let plaintext: [UInt8]
        do { plaintext = try SecretBox.openTailTag(ct, key: keys.body.key, nonce: keys.body.nonce) } catch {
            throw .remoteControl(.decrypt)
        }
        guard !plaintext.isEmpty else { throw .invalidBody("empty body") }
        var p = ByteReader(plaintext)
        guard let code = try? p.readShortBytes(), constantTimeEqual(code, sessionCode) else { throw .sessionCode }
        let payload = p.readRest()
        let json: [UInt8]
        if compression {
            do { json = try Zstd.decompress(payload) } catch { throw .invalidBody("\(error)") }
        } else {
            json = payload
        }
        return (json, keys.file, r.offset)
    }
}

/// A file after a body (xrcp.md §10): `0x01 ‖ u32be(size + 16)`, then `sx_box_tt` of the file, streamed.
public enum Attachment {
    public static let maxFileSize: UInt64 = 0xffff_ffff - 16

    public static func header(fileSize: UInt64) throws(RemoteProtocolError) -> [UInt8] {
        guard fileSize <= maxFileSize else { throw .fileSize }
        var w = ByteWriter(capacity: 5)
        w.writeByte(0x01)
        w.writeUInt32(UInt32(fileSize + 16))
        return w.bytes
    }

    /// Checks the 5-byte header against the size the JSON announced.
    public static func checkHeader(_ header: [UInt8], fileSize: UInt64) throws(RemoteProtocolError) {
        guard header.first == 0x01 else { throw .noFile }
        guard header.count == 5, fileSize <= maxFileSize else { throw .fileSize }
        let declared = UInt64(header[1]) << 24 | UInt64(header[2]) << 16 | UInt64(header[3]) << 8 | UInt64(header[4])
        guard declared == fileSize + 16 else { throw .fileSize }
    }
}
