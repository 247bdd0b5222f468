public import SimplexCrypto
public import SimplexEncoding

/// Batches of transmissions, the content of every block (smp.md §2.5): `len1(n)` (1–255) then `n` × `len2(t)`.
public enum TransmissionBatch {
    /// A batch's content; at most 255 transmissions within `SMPLimits.batchCapacity` bytes.
    public static func encode(_ transmissions: [[UInt8]]) throws(BlockError) -> [UInt8] {
        guard !transmissions.isEmpty, transmissions.count <= 255 else { throw .batchCount(transmissions.count) }
        var w = ByteWriter(capacity: transmissions.reduce(1) { $0 + 2 + $1.count })
        w.writeByte(UInt8(transmissions.count))
        for t in transmissions {
            do { try w.writeLargeBytes(t) } catch { throw .largeMessage }
        }
        return w.bytes
    }

    /// Groups transmissions in order into as few batches as fit (`batchTransmissions_`): each batch holds at most 255,
    /// with their `len2` encodings within `SMPLimits.batchCapacity`. A transmission too large alone is an error.
    public static func group(_ transmissions: [[UInt8]]) throws(BlockError) -> [[[UInt8]]] {
        var batches: [[[UInt8]]] = []
        var current: [[UInt8]] = []
        var size = 0
        for t in transmissions {
            let n = t.count + 2
            guard n <= SMPLimits.batchCapacity else { throw .largeMessage }
            if size + n > SMPLimits.batchCapacity || current.count == 255 {
                batches.append(current)
                current = []
                size = 0
            }
            current.append(t)
            size += n
        }
        if !current.isEmpty { batches.append(current) }
        return batches
    }

    /// Parses a whole batch; a count of 0 or any trailing byte is refused.
    public static func parse(_ content: [UInt8]) throws(BlockError) -> [[UInt8]] {
        var r = ByteReader(content)
        guard let n = r.peekByte() else { throw .syntax(.truncated(needed: 1)) }
        guard n > 0 else { throw .batchCount(0) }
        do {
            _ = try r.readByte()
            var out: [[UInt8]] = []
            out.reserveCapacity(Int(n))
            for _ in 0..<n { out.append(try r.readLargeBytes()) }
            try r.expectEnd()
            return out
        } catch {
            throw .syntax(error)
        }
    }
}

/// Why a block could not be made or read (smp.md §2.5, §2.6); all close the connection (`TEBadBlock`/`TELargeMsg`).
public enum BlockError: Error, Equatable, Sendable {
    /// Not exactly 16,384 bytes.
    case blockSize(Int)
    /// The content does not fit the block, or a transmission does not fit a batch.
    case largeMessage
    /// The block does not decrypt or unpad.
    case decryption
    case batchCount(Int)
    case syntax(BinaryDecodingError)

    /// The transport error the reference closes the connection with.
    public var transportError: TransportError {
        switch self {
        case .blockSize, .batchCount, .syntax: .block
        case .largeMessage, .decryption: .largeMsg
        }
    }
}

/// The per-block encryption of v ≥ 11 (smp.md §2.6, `TSbChainKeys`): two chains from the handshake's X25519 secret,
/// each advancing by one step per block. A value: the driver keeps it and calls `seal`/`open` once per block in
/// order.
public struct BlockEncryption: Sendable {
    public private(set) var sendChain: ChainKey
    public private(set) var receiveChain: ChainKey

    public init(sendChain: ChainKey, receiveChain: ChainKey) {
        self.sendChain = sendChain
        self.receiveChain = receiveChain
    }

    /// `sbcInit`: `HKDF-SHA512(salt = sessionId, ikm = dh, "SimpleXSbChainInit", 64)` = server send ‖ client send.
    static func chains(sessionId: SessionId, secret: X25519.SharedSecret) -> (serverSend: ChainKey, clientSend: ChainKey) {
        let out = HKDF.sha512(
            salt: sessionId.bytes, ikm: secret.rawRepresentation, info: Array("SimpleXSbChainInit".utf8), length: 64)
        // 32-byte halves of a 64-byte output.
        guard let a = try? ChainKey(rawRepresentation: Array(out[0..<32])),
            let b = try? ChainKey(rawRepresentation: Array(out[32..<64]))
        else { preconditionFailure("HKDF output length") }
        return (a, b)
    }

    /// The client's state: it sends on the second chain.
    public static func client(sessionId: SessionId, secret: X25519.SharedSecret) -> BlockEncryption {
        let c = chains(sessionId: sessionId, secret: secret)
        return BlockEncryption(sendChain: c.clientSend, receiveChain: c.serverSend)
    }

    /// The server's state: it sends on the first chain.
    public static func server(sessionId: SessionId, secret: X25519.SharedSecret) -> BlockEncryption {
        let c = chains(sessionId: sessionId, secret: secret)
        return BlockEncryption(sendChain: c.serverSend, receiveChain: c.clientSend)
    }

    /// One block: `box(sk, nonce, pad(content, 16368))`, 16,384 bytes.
    public mutating func seal(_ content: [UInt8]) throws(BlockError) -> [UInt8] {
        let padded: [UInt8]
        do { padded = try Padding.pad(content, to: SMPLimits.blockSize - SecretBox.tagSize) } catch { throw .largeMessage }
        let k = sendChain.next()
        return SecretBox.seal(padded, key: k.key, nonce: k.nonce)
    }

    /// The content of one received block. The chain advances even when the block fails: the connection is closed then.
    public mutating func open(_ block: [UInt8]) throws(BlockError) -> [UInt8] {
        guard block.count == SMPLimits.blockSize else { throw .blockSize(block.count) }
        let k = receiveChain.next()
        do { return try SecretBox.openPadded(block, key: k.key, nonce: k.nonce) } catch { throw .decryption }
    }
}

/// A connection's block framing after the handshake (smp.md §2.5): plain padding, or the encryption of §2.6.
public struct BlockFraming: Sendable {
    public private(set) var encryption: BlockEncryption?

    public init(encryption: BlockEncryption?) { self.encryption = encryption }

    /// A block from batch content.
    public mutating func seal(_ content: [UInt8]) throws(BlockError) -> [UInt8] {
        if var e = encryption {
            defer { encryption = e }
            return try e.seal(content)
        }
        do { return try Padding.pad(content, to: SMPLimits.blockSize) } catch { throw .largeMessage }
    }

    /// Batch content from a block.
    public mutating func open(_ block: [UInt8]) throws(BlockError) -> [UInt8] {
        if var e = encryption {
            defer { encryption = e }
            return try e.open(block)
        }
        guard block.count == SMPLimits.blockSize else { throw .blockSize(block.count) }
        do { return try Padding.unpad(block) } catch { throw .largeMessage }
    }

    /// Blocks carrying `transmissions`, batched in order.
    public mutating func seal(transmissions: [[UInt8]]) throws(BlockError) -> [[UInt8]] {
        var blocks: [[UInt8]] = []
        for batch in try TransmissionBatch.group(transmissions) {
            blocks.append(try seal(TransmissionBatch.encode(batch)))
        }
        return blocks
    }

    /// The transmissions of one block.
    public mutating func openTransmissions(_ block: [UInt8]) throws(BlockError) -> [[UInt8]] {
        try TransmissionBatch.parse(open(block))
    }
}
