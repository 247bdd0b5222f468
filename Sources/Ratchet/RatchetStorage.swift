internal import SimplexCrypto
internal import SimplexEncoding

/// The stored forms of the ratchet's values, for the agent database. They are our own (the reference stores JSON),
/// start with a format byte so that a later format (PQ fields) can be told apart, use fixed-size raw keys, and are
/// decoded strictly: wrong sizes, unknown formats and trailing bytes are `RatchetError.storedState`.
extension RatchetState {
    /// Format 1: `01 ‖ u16 current ‖ u16 maxSupported ‖ AD(112) ‖ DHRs private(56) ‖ RK(32)
    /// ‖ Maybe(DHRr(56) ‖ CKs(32) ‖ HKs(32)) ‖ Maybe(CKr(32) ‖ HKr(32)) ‖ u32 Ns ‖ u32 Nr ‖ u32 PN ‖ NHKs(32) ‖ NHKr(32)`.
    public static let storageFormat: UInt8 = 1

    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 480)
        w.writeByte(Self.storageFormat)
        w.writeUInt16(versions.current)
        w.writeUInt16(versions.maxSupported)
        w.writeBytes(associatedData.rawRepresentation)
        w.writeBytes(ratchetKey.rawRepresentation)
        w.writeBytes(rootKey.rawRepresentation)
        if let sending {
            w.writeByte(UInt8(ascii: "1"))
            w.writeBytes(sending.peerKey.rawRepresentation)
            w.writeBytes(sending.chainKey.rawRepresentation)
            w.writeBytes(sending.headerKey.rawRepresentation)
        } else {
            w.writeByte(UInt8(ascii: "0"))
        }
        if let receiving {
            w.writeByte(UInt8(ascii: "1"))
            w.writeBytes(receiving.chainKey.rawRepresentation)
            w.writeBytes(receiving.headerKey.rawRepresentation)
        } else {
            w.writeByte(UInt8(ascii: "0"))
        }
        w.writeUInt32(sentCount)
        w.writeUInt32(receivedCount)
        w.writeUInt32(previousSentCount)
        w.writeBytes(nextSendingHeaderKey.rawRepresentation)
        w.writeBytes(nextReceivingHeaderKey.rawRepresentation)
        return w.bytes
    }

    public init(decoding bytes: [UInt8]) throws(RatchetError) {
        var r = ByteReader(bytes)
        self = try stored {
            let format = try r.readByte()
            guard format == Self.storageFormat else { throw StoredStateProblem("unknown ratchet state format \(format)") }
            let versions = RatchetVersions(current: try r.readUInt16(), maxSupported: try r.readUInt16())
            guard versions.current <= versions.maxSupported else { throw StoredStateProblem("current version above the maximum") }
            let ad = RatchetAssociatedData(validated: try r.readBytes(112))
            let ratchetKey = try X448.PrivateKey(rawRepresentation: try r.readBytes(56))
            let rootKey = RatchetRootKey(validated: try r.readBytes(32)[...])
            var sending: SendingChain?
            if try readFlag(&r) {
                sending = SendingChain(
                    peerKey: try X448.PublicKey(rawRepresentation: try r.readBytes(56)),
                    chainKey: RatchetChainKey(validated: try r.readBytes(32)[...]),
                    headerKey: RatchetHeaderKey(validated: try r.readBytes(32)[...]))
            }
            var receiving: ReceivingChain?
            if try readFlag(&r) {
                receiving = ReceivingChain(
                    chainKey: RatchetChainKey(validated: try r.readBytes(32)[...]),
                    headerKey: RatchetHeaderKey(validated: try r.readBytes(32)[...]))
            }
            let state = RatchetState(
                versions: versions, associatedData: ad, ratchetKey: ratchetKey, rootKey: rootKey, sending: sending,
                receiving: receiving, sentCount: try r.readUInt32(), receivedCount: try r.readUInt32(),
                previousSentCount: try r.readUInt32(),
                nextSendingHeaderKey: RatchetHeaderKey(validated: try r.readBytes(32)[...]),
                nextReceivingHeaderKey: RatchetHeaderKey(validated: try r.readBytes(32)[...]))
            try r.expectEnd()
            return state
        }
    }
}

extension RatchetMessageKey {
    /// `len1(key) ‖ len1(iv)`, the reference's `MessageKey` encoding (50 bytes).
    public func encoded() -> [UInt8] { [UInt8(key.count)] + key + [UInt8(iv.count)] + iv }

    public init(decoding bytes: [UInt8]) throws(RatchetError) {
        var r = ByteReader(bytes)
        self = try stored {
            let key = try r.readShortBytes()
            let iv = try r.readShortBytes()
            try r.expectEnd()
            guard key.count == 32, iv.count == 16 else {
                throw StoredStateProblem("message key of \(key.count) + \(iv.count) bytes")
            }
            return RatchetMessageKey(validatedKey: key[...], iv: iv[...])
        }
    }
}

extension MessageEncryptKey {
    public static let storageFormat: UInt8 = 1

    /// Format 1: `01 ‖ u16 version ‖ AD(112) ‖ key(32) ‖ IV(16) ‖ len2(encrypted header)`.
    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 320)
        w.writeByte(Self.storageFormat)
        w.writeUInt16(version)
        w.writeBytes(associatedData.rawRepresentation)
        w.writeBytes(messageKey.key)
        w.writeBytes(messageKey.iv)
        w.writeUInt16(UInt16(clamping: encryptedHeader.count))
        w.writeBytes(encryptedHeader.prefix(Int(UInt16.max)))
        return w.bytes
    }

    public init(decoding bytes: [UInt8]) throws(RatchetError) {
        var r = ByteReader(bytes)
        self = try stored {
            let format = try r.readByte()
            guard format == Self.storageFormat else { throw StoredStateProblem("unknown encryption key format \(format)") }
            let version = try r.readUInt16()
            let ad = RatchetAssociatedData(validated: try r.readBytes(112))
            let key = RatchetMessageKey(validatedKey: try r.readBytes(32)[...], iv: try r.readBytes(16)[...])
            let header = try r.readLargeBytes()
            try r.expectEnd()
            return MessageEncryptKey(version: version, associatedData: ad, messageKey: key, encryptedHeader: header)
        }
    }
}

/// Why a stored value does not decode, beside the reader's and the key constructors' own errors.
private struct StoredStateProblem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

private func readFlag(_ r: inout ByteReader) throws(BinaryDecodingError) -> Bool {
    switch try r.readByte() {
    case UInt8(ascii: "0"): false
    case UInt8(ascii: "1"): true
    case let b: throw .invalidTag(b, expected: "0 or 1")
    }
}

/// Runs a decoder whose steps throw the reader's, the key constructors' or its own errors, as one
/// `RatchetError.storedState`.
private func stored<T>(_ body: () throws -> T) throws(RatchetError) -> T {
    do {
        return try body()
    } catch {
        throw .storedState("\(error)")
    }
}
