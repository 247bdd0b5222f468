public import SimplexCrypto
internal import SimplexEncoding

/// The e2e versions of one ratchet (`RatchetVersions`, smp.md §5.1): the agreed `current` one, which decides the
/// encoding of what we send, and our `maxSupported`, which headers carry so that the peer can upgrade.
public struct RatchetVersions: Sendable, Equatable {
    public var current: UInt16
    public var maxSupported: UInt16

    public init(current: UInt16, maxSupported: UInt16 = E2EVersion.current) {
        self.current = current
        self.maxSupported = maxSupported
    }
}

/// Where a ratchet's new X448 keys come from: the DH step of a received header needs one (smp.md §5.6 step 5), the
/// joiner's initial ratchet key another. Tests give fixed keys; the agent gives `SystemRatchetKeys`.
public protocol RatchetKeySource {
    mutating func nextRatchetKey() -> X448.PrivateKey
}

/// Fresh keys from OpenSSL's generator.
public struct SystemRatchetKeys: RatchetKeySource {
    public init() {}
    public func nextRatchetKey() -> X448.PrivateKey { X448.PrivateKey() }
}

/// What a ratchet message carries, which decides the padded body length (smp.md §4.4, non-PQ sizes).
public enum RatchetPayload: Sendable {
    /// `AgentMessage "M"…`: padded to 15,840 bytes (a 15,982-byte ratchet message at v3).
    case agentMessage
    /// Connection info (`"I"`/`"D"` in confirmations): padded to 14,832 bytes (14,974 at v3).
    case connectionInfo

    public var paddedLength: Int {
        switch self {
        case .agentMessage: 15_840
        case .connectionInfo: 14_832
        }
    }
}

/// One connection's double ratchet with header encryption (simplexmq's `Ratchet`, smp.md §5.3), as a value without
/// I/O: the agent loads it, calls `encrypt` or `decrypt`, and stores the state (and the skipped-key change) that comes
/// back in the same transaction as the message (smp.md §9.3). PQ fields are absent: this ratchet never proposes a KEM,
/// uses 88-byte headers and ignores proposals it receives (§5.7).
///
///     joiner B                                         initiator A
///     init(joining:): CKs from X3DH and bR             init(initiating:): no chains, DHRs = a2
///     encrypt (HKs = HK) ─────────────────────────────▶ decrypt: NHKr = HK opens it → DH step, can now encrypt
///     decrypt: NHKr = NHK opens it → DH step ◀───────── encrypt (HKs = NHK)
///
///     DH step on a header with a new key DHRr': skip PN keys of the old receiving chain;
///       (RK, CKr, NHKr') = root(RK, DHRr', DHRs); new DHRs; (RK, CKs, NHKs') = root(RK, DHRr', DHRs);
///       HKs := NHKs, HKr := NHKr, NHKs := NHKs', NHKr := NHKr'; PN := Ns, Ns := 0, Nr := 0
public struct RatchetState: Sendable {
    /// At most this many message keys are skipped in one chain for one message (`maxSkip`, smp.md §5.6).
    public static let maxSkip: UInt32 = 512
    /// The padded header length without PQ support (`paddedHeaderLen`, smp.md §5.4).
    public static let paddedHeaderLength = 88

    public internal(set) var versions: RatchetVersions
    public let associatedData: RatchetAssociatedData
    /// `DHRs`: our current ratchet key pair.
    var ratchetKey: X448.PrivateKey
    var rootKey: RatchetRootKey
    var sending: SendingChain?
    var receiving: ReceivingChain?
    /// `Ns`, `Nr`, `PN`.
    public internal(set) var sentCount: UInt32
    public internal(set) var receivedCount: UInt32
    public internal(set) var previousSentCount: UInt32
    var nextSendingHeaderKey: RatchetHeaderKey
    var nextReceivingHeaderKey: RatchetHeaderKey

    struct SendingChain: Sendable {
        /// `DHRr`: the peer's current ratchet key.
        var peerKey: X448.PublicKey
        var chainKey: RatchetChainKey
        var headerKey: RatchetHeaderKey
    }

    struct ReceivingChain: Sendable {
        var chainKey: RatchetChainKey
        var headerKey: RatchetHeaderKey
    }

    /// Whether a message can be sent (the initiator can send only after the joiner's confirmation).
    public var canEncrypt: Bool { sending != nil }

    /// The joining party's ratchet (`pqX3dhSnd` + `initSndRatchet`): X3DH with the initiator's `a1, a2` from the link and
    /// our `b1, b2` (sent in our confirmation), then a first DH step with a third fresh key `ratchetKey` against `a2`.
    public init(joining peer: E2ERatchetParams, own: E2EPrivateKeys, ratchetKey: X448.PrivateKey, versions: RatchetVersions)
        throws(RatchetError)
    {
        let x3dh = try RatchetInitParams.joiner(own: own, peer: peer)
        let (rootKey, chainKey, nextHeaderKey) = try RatchetKDF.root(x3dh.rootKey, peer: peer.key2, own: ratchetKey)
        self.versions = versions
        associatedData = x3dh.associatedData
        self.ratchetKey = ratchetKey
        self.rootKey = rootKey
        sending = SendingChain(peerKey: peer.key2, chainKey: chainKey, headerKey: x3dh.sendingHeaderKey)
        receiving = nil
        sentCount = 0
        receivedCount = 0
        previousSentCount = 0
        nextSendingHeaderKey = nextHeaderKey
        nextReceivingHeaderKey = x3dh.receivingNextHeaderKey
    }

    /// The initiating party's ratchet (`pqX3dhRcv` + `initRcvRatchet`), made when the joiner's confirmation arrives with
    /// its `b1, b2`: no chains yet, `DHRs = a2`, `RK = SK`, `NHKs = NHK`, `NHKr = HK`.
    public init(initiating own: E2EPrivateKeys, peer: E2ERatchetParams, versions: RatchetVersions) throws(RatchetError) {
        let x3dh = try RatchetInitParams.initiator(own: own, peer: peer)
        self.versions = versions
        associatedData = x3dh.associatedData
        ratchetKey = own.key2
        rootKey = x3dh.rootKey
        sending = nil
        receiving = nil
        sentCount = 0
        receivedCount = 0
        previousSentCount = 0
        nextSendingHeaderKey = x3dh.receivingNextHeaderKey
        nextReceivingHeaderKey = x3dh.sendingHeaderKey
    }

    init(
        versions: RatchetVersions, associatedData: RatchetAssociatedData, ratchetKey: X448.PrivateKey, rootKey: RatchetRootKey,
        sending: SendingChain?, receiving: ReceivingChain?, sentCount: UInt32, receivedCount: UInt32,
        previousSentCount: UInt32, nextSendingHeaderKey: RatchetHeaderKey, nextReceivingHeaderKey: RatchetHeaderKey
    ) {
        self.versions = versions
        self.associatedData = associatedData
        self.ratchetKey = ratchetKey
        self.rootKey = rootKey
        self.sending = sending
        self.receiving = receiving
        self.sentCount = sentCount
        self.receivedCount = receivedCount
        self.previousSentCount = previousSentCount
        self.nextSendingHeaderKey = nextSendingHeaderKey
        self.nextReceivingHeaderKey = nextReceivingHeaderKey
    }

    // MARK: Sending

    /// Encrypts one message: the header under `HKs`, the body padded to the payload's length under the chain's next
    /// message key. A message too long for its padding is refused before the chain moves.
    public mutating func encrypt(_ plaintext: [UInt8], as payload: RatchetPayload) throws(RatchetError) -> [UInt8] {
        try checkCanPad(plaintext, payload.paddedLength)
        return try encryptHeader().encrypt(plaintext, as: payload)
    }

    /// The first half of `encrypt` (`rcEncryptHeader`): moves the sending chain and returns what encrypts the body, so
    /// that the agent can store the new state when it queues a message and encrypt the body when it delivers it.
    public mutating func encryptHeader() throws(RatchetError) -> MessageEncryptKey {
        guard var chain = sending else { throw .state }
        let (nextChainKey, messageKey, headerIV) = RatchetKDF.chain(chain.chainKey)
        let version = versions.current
        let header = RatchetHeader(
            maxVersion: max(versions.maxSupported, version), ratchetKey: ratchetKey.publicKey, kem: nil,
            previousCount: previousSentCount, number: sentCount)
        let padded = try pad(
            try encoding { () throws(BinaryEncodingError) in try header.encoded(version: version) },
            Self.paddedHeaderLength)
        let (tag, body) = try seal(padded, key: chain.headerKey.rawRepresentation, iv: headerIV, associatedData.rawRepresentation)
        let encryptedHeader = EncMessageHeader(version: version, iv: headerIV, authTag: tag, body: body)
        let headerBytes = try encoding { () throws(BinaryEncodingError) in try encryptedHeader.encoded() }
        chain.chainKey = nextChainKey
        sending = chain
        sentCount &+= 1
        return MessageEncryptKey(
            version: version, associatedData: associatedData, messageKey: messageKey, encryptedHeader: headerBytes)
    }

    // MARK: Receiving

    /// Decrypts one message (`rcDecrypt`, smp.md §5.6) against the stored skipped keys.
    ///
    /// A thrown error changes nothing: the message was not ours to read (no header key opens it), malformed, or would
    /// skip too many keys of the previous chain. A returned value must be stored even when its `plaintext` is a
    /// failure — the chain may have moved and keys may have been skipped (a duplicate, an earlier message, too many
    /// skips in the new chain, a body that does not authenticate), exactly as the reference persists it.
    public func decrypt(_ message: [UInt8], skipped: SkippedMessageKeys, keys: inout some RatchetKeySource)
        throws(RatchetError) -> RatchetDecryption
    {
        let encrypted = try parse { () throws(BinaryDecodingError) in try EncRatchetMessage(decoding: message) }
        let header = try parse { () throws(BinaryDecodingError) in try EncMessageHeader(decoding: encrypted.header) }
        for (headerKey, messageKeys) in skipped.byHeaderKey {
            guard let plain = try openHeader(header, with: headerKey) else { continue }
            if let messageKey = messageKeys[plain.number] {
                return RatchetDecryption(
                    plaintext: openBody(encrypted, messageKey), state: self,
                    skippedKeys: .used(headerKey: headerKey, number: plain.number))
            }
            if let receiving, receiving.headerKey == headerKey {
                return try decrypt(encrypted, plain, advancing: false, keys: &keys)
            }
            if headerKey == nextReceivingHeaderKey { return try decrypt(encrypted, plain, advancing: true, keys: &keys) }
            throw .header
        }
        if let receiving, let plain = try openHeader(header, with: receiving.headerKey) {
            return try decrypt(encrypted, plain, advancing: false, keys: &keys)
        }
        guard let plain = try openHeader(header, with: nextReceivingHeaderKey) else { throw .header }
        return try decrypt(encrypted, plain, advancing: true, keys: &keys)
    }

    /// `decrypt` with keys from OpenSSL's generator.
    public func decrypt(_ message: [UInt8], skipped: SkippedMessageKeys) throws(RatchetError) -> RatchetDecryption {
        var keys = SystemRatchetKeys()
        return try decrypt(message, skipped: skipped, keys: &keys)
    }

    private func decrypt(
        _ message: EncRatchetMessage, _ header: RatchetHeader, advancing: Bool, keys: inout some RatchetKeySource
    ) throws(RatchetError) -> RatchetDecryption {
        var next = self
        if header.maxVersion > versions.current {
            next.versions.current = max(versions.current, min(header.maxVersion, versions.maxSupported))
        }
        var skippedKeys: [SkippedMessageKey] = []
        if advancing {
            skippedKeys = try next.skipKeys(until: header.previousCount)
            try next.dhStep(header, keys: &keys)
        }
        do {
            skippedKeys += try next.skipKeys(until: header.number)
        } catch {
            return RatchetDecryption(plaintext: .failure(error), state: next, skippedKeys: .added(skippedKeys))
        }
        guard var chain = next.receiving else {
            return RatchetDecryption(plaintext: .failure(.state), state: next, skippedKeys: .added(skippedKeys))
        }
        let (nextChainKey, messageKey, _) = RatchetKDF.chain(chain.chainKey)
        chain.chainKey = nextChainKey
        next.receiving = chain
        next.receivedCount &+= 1
        return RatchetDecryption(
            plaintext: next.openBody(message, messageKey), state: next, skippedKeys: .added(skippedKeys))
    }

    /// The DH ratchet step on a header with a new ratchet key (smp.md §5.6 step 5). A KEM proposal is ignored, as the
    /// reference ignores it with PQ off; an acceptance answers a proposal we never made.
    private mutating func dhStep(_ header: RatchetHeader, keys: inout some RatchetKeySource) throws(RatchetError) {
        if case .accepted = header.kem { throw .kemState }
        let newKey = keys.nextRatchetKey()
        let (rootKey1, receivingChainKey, nextReceiving) = try RatchetKDF.root(rootKey, peer: header.ratchetKey, own: ratchetKey)
        let (rootKey2, sendingChainKey, nextSending) = try RatchetKDF.root(rootKey1, peer: header.ratchetKey, own: newKey)
        sending = SendingChain(peerKey: header.ratchetKey, chainKey: sendingChainKey, headerKey: nextSendingHeaderKey)
        receiving = ReceivingChain(chainKey: receivingChainKey, headerKey: nextReceivingHeaderKey)
        ratchetKey = newKey
        rootKey = rootKey2
        previousSentCount = sentCount
        sentCount = 0
        receivedCount = 0
        nextSendingHeaderKey = nextSending
        nextReceivingHeaderKey = nextReceiving
    }

    /// Moves the receiving chain to message `number`, returning the keys passed over (`skipMessageKeys`); counts are
    /// compared in 64 bits so that no header value can overflow them.
    private mutating func skipKeys(until number: UInt32) throws(RatchetError) -> [SkippedMessageKey] {
        guard var chain = receiving else { return [] }
        let received = UInt64(receivedCount)
        let target = UInt64(number)
        if received > target + 1 { throw .earlierMessage(behind: UInt32(clamping: received - target - 1)) }
        if received == target + 1 { throw .duplicateMessage }
        if received + UInt64(Self.maxSkip) < target { throw .tooManySkipped(count: UInt32(clamping: target + 1 - received)) }
        var skipped: [SkippedMessageKey] = []
        var n = receivedCount
        while n < number {
            let (nextChainKey, messageKey, _) = RatchetKDF.chain(chain.chainKey)
            skipped.append(SkippedMessageKey(headerKey: chain.headerKey, number: n, messageKey: messageKey))
            chain.chainKey = nextChainKey
            n += 1
        }
        receiving = chain
        receivedCount = n
        return skipped
    }

    /// The plaintext header if `key` opens it, nil if it does not (the next key may); a header that opens but does not
    /// parse is an error.
    private func openHeader(_ header: EncMessageHeader, with key: RatchetHeaderKey) throws(RatchetError) -> RatchetHeader? {
        guard
            let padded = try? AESGCM.open(
                header.body, key: key.rawRepresentation, iv: header.iv, associatedData: associatedData.rawRepresentation,
                tag: header.authTag),
            let plain = try? Padding.unpad(padded)
        else { return nil }
        return try parse { () throws(BinaryDecodingError) in try RatchetHeader(decoding: plain, version: header.version) }
    }

    private func openBody(_ message: EncRatchetMessage, _ key: RatchetMessageKey) -> Result<[UInt8], RatchetError> {
        let padded: [UInt8]
        do {
            padded = try AESGCM.open(
                message.body, key: key.key, iv: key.iv, associatedData: associatedData.rawRepresentation + message.header,
                tag: message.authTag)
        } catch {
            return .failure(.decryption)
        }
        do {
            return .success(try Padding.unpad(padded))
        } catch {
            return .failure(.invalidPadding)
        }
    }
}

/// What `RatchetState.decrypt` gives back: the plaintext or why there is none, the state to store, and the change to
/// the stored skipped keys.
public struct RatchetDecryption: Sendable {
    public let plaintext: Result<[UInt8], RatchetError>
    public let state: RatchetState
    public let skippedKeys: SkippedKeysChange
}

/// The body half of a message (`MsgEncryptKey`, `rcEncryptMsg`): the message key, the encrypted header and the
/// associated data, so that the body can be encrypted after the state was stored. Storable with `encoded()`.
public struct MessageEncryptKey: Sendable, Equatable {
    public let version: UInt16
    public let associatedData: RatchetAssociatedData
    public let messageKey: RatchetMessageKey
    public let encryptedHeader: [UInt8]

    /// The ratchet message: the body padded to the payload's length, authenticated with `AD ‖ encrypted header`.
    public func encrypt(_ plaintext: [UInt8], as payload: RatchetPayload) throws(RatchetError) -> [UInt8] {
        let padded = try pad(plaintext, payload.paddedLength)
        let (tag, body) = try seal(
            padded, key: messageKey.key, iv: messageKey.iv, associatedData.rawRepresentation + encryptedHeader)
        let message = EncRatchetMessage(header: encryptedHeader, authTag: tag, body: body)
        return try encoding { () throws(BinaryEncodingError) in try message.encoded(version: version) }
    }
}

func checkCanPad(_ message: [UInt8], _ size: Int) throws(RatchetError) {
    let limit = min(65533, size - 2)
    guard message.count <= limit else { throw .messageTooLarge(length: message.count, limit: limit) }
}

func pad(_ message: [UInt8], _ size: Int) throws(RatchetError) -> [UInt8] {
    do {
        return try Padding.pad(message, to: size)
    } catch {
        throw .messageTooLarge(length: message.count, limit: min(65533, size - 2))
    }
}

func seal(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8], _ associatedData: [UInt8]) throws(RatchetError)
    -> (tag: [UInt8], ciphertext: [UInt8])
{
    do {
        return try AESGCM.seal(plaintext, key: key, iv: iv, associatedData: associatedData)
    } catch {
        // Keys and IVs have their sizes by type; only a failing OpenSSL gets here.
        throw .cryptoFailure("AES-GCM: \(error)")
    }
}

func parse<T>(_ body: () throws(BinaryDecodingError) -> T) throws(RatchetError) -> T {
    do {
        return try body()
    } catch {
        throw .headerSyntax("\(error)")
    }
}

func encoding<T>(_ body: () throws(BinaryEncodingError) -> T) throws(RatchetError) -> T {
    do {
        return try body()
    } catch {
        switch error {
        case .tooLong(let length, let limit): throw .messageTooLarge(length: length, limit: limit)
        }
    }
}
