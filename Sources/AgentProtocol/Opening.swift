public import Ratchet
public import SMP
public import SimplexCrypto
public import SimplexEncoding

/// What a recipient keeps for the e2e layer of one of its queues (smp.md §4.2): the private half of the queue
/// URI's `dh=` key, the per-queue secret once the first confirmation brought the sender's key, the queue's mode and
/// the client versions it accepts.
public struct ReceiveQueueE2E: Sendable {
    public let privateKey: X25519.PrivateKey
    /// Nil until a confirmation (or, on an address, each invitation) arrives with the sender's key.
    public let secret: X25519.SharedSecret?
    public let queueMode: QueueMode?
    public let agreedClientVersion: UInt16
    public let clientVersions: VersionRange

    public init(
        privateKey: X25519.PrivateKey, secret: X25519.SharedSecret?, queueMode: QueueMode?, agreedClientVersion: UInt16,
        clientVersions: VersionRange = SMPClientVersion.supported
    ) {
        self.privateKey = privateKey
        self.secret = secret
        self.queueMode = queueMode
        self.agreedClientVersion = agreedClientVersion
        self.clientVersions = clientVersions
    }
}

/// A confirmation whose per-queue box opened (smp.md §4.5): the secret to store for the queue, the sender's keys,
/// its versions, and the ratchet message still to decrypt.
public struct ReceivedConfirmation: Equatable, Sendable {
    /// `X25519(sender's header key, our dh key)`: stored on the queue from now on.
    public let secret: X25519.SharedSecret
    public let senderE2EKey: X25519.PublicKey
    /// The legacy `"K"` header's key: the recipient secures the queue with it (`KEY`), then both sides send `HELLO`.
    public let senderKey: AuthPublicKey?
    public let agentVersion: UInt16
    /// The public header's SMP client version.
    public let clientVersion: UInt16
    /// The joiner's X3DH parameters; present in the joiner's confirmation, absent in the initiator's.
    public let e2eParams: E2ERatchetParams?
    public let encConnInfo: [UInt8]
}

/// A received `MSG` body after its per-queue box (smp.md §4.2, §4.3): what the connection's state decides next.
public enum ReceivedEnvelope: Equatable, Sendable {
    case confirmation(ReceivedConfirmation)
    /// A contact request on an address queue: the requester's invitation and its connection info (smp.md §4.6).
    case invitation(agentVersion: UInt16, request: InvitationRequest, connInfo: [UInt8])
    /// A ratchet message of the connection, to `openMessage`.
    case message(agentVersion: UInt16, encAgentMessage: [UInt8])
    /// Ratchet re-synchronisation (agent v3), parsed only.
    case ratchetKey(agentVersion: UInt16, e2eParams: E2ERatchetParams, info: [UInt8])
    /// A confirmation delivered again because its ACK was lost: acknowledge it, nothing else.
    case repeatedConfirmation
}

/// A confirmation's connection info after the ratchet: the ratchet to store, the skipped-key change, the plaintext's
/// hash (the receiver's `lastRcvHash`, with `lastExternalSndId = 1`), and for the joiner's confirmation its reply
/// queues.
public struct OpenedConfirmation: Sendable {
    public let ratchet: RatchetState
    public let skippedKeys: SkippedKeysChange
    public let replyQueues: [SMPQueueInfo]
    public let connInfo: [UInt8]
    public let hash: [UInt8]
}

/// An agent message of the connection (smp.md §4.7 receiver step 2).
public struct DecryptedAgentMessage: Equatable, Sendable {
    public let header: APrivHeader
    public let message: AMessage
    /// SHA-256 of the plaintext: the next `lastRcvHash`, and the `msgHash` of a receipt for it.
    public let hash: [UInt8]
}

/// What decrypting a ratchet message gives: the state to store whatever the outcome (the chain may have moved and keys
/// may have been skipped, smp.md §5.6), the ciphertext's hash to recognise a re-delivery, and the message or why
/// there is none.
public struct OpenedMessage: Sendable {
    public let ratchet: RatchetState
    public let skippedKeys: SkippedKeysChange
    /// SHA-256 of `encAgentMessage`.
    public let encryptedHash: [UInt8]
    public let result: Result<DecryptedAgentMessage, AgentProtocolError>
}

/// The receiving half of the agent's envelope stack: pure functions from a `MSG` body (already out of the server's
/// box, smp.md §3.7) and what a queue and connection hold to typed received items.
public enum AgentOpening {
    /// Parses the client envelope and opens its per-queue box under the rules of the reference's `processSMP`:
    ///
    ///     no secret yet, header key      → confirmation ("K" always; "_" only if the sender secures the queue)
    ///                                      or an address's invitation ("_")
    ///     secret, no header key          → message or ratchet key ("_")
    ///     secret and a header key        → a repeated confirmation (to acknowledge), nothing else
    ///     neither                        → prohibited
    public static func open(_ body: [UInt8], queue: ReceiveQueueE2E) throws(AgentProtocolError) -> ReceivedEnvelope {
        let envelope = try ClientMsgEnvelope(body: body)
        guard VersionAgreement.accepts(envelope.version, supported: queue.clientVersions, agreed: queue.agreedClientVersion)
        else { throw .version }
        switch (queue.secret, envelope.e2ePublicKey) {
        case (nil, let senderE2EKey?):
            let secret: X25519.SharedSecret
            do { secret = try queue.privateKey.sharedSecret(with: senderE2EKey) } catch { throw .crypto(.decryptCB) }
            let message = try envelope.open(secret: secret)
            switch (message.privateHeader, try message.envelope()) {
            case (.confirmation(let key), .confirmation(let version, let params, let encConnInfo)):
                return .confirmation(
                    ReceivedConfirmation(
                        secret: secret, senderE2EKey: senderE2EKey, senderKey: key, agentVersion: version,
                        clientVersion: envelope.version, e2eParams: params, encConnInfo: encConnInfo))
            case (.empty, .confirmation(let version, let params, let encConnInfo)):
                guard queue.queueMode == .messaging else { throw .prohibited("handshake: missing sender key") }
                return .confirmation(
                    ReceivedConfirmation(
                        secret: secret, senderE2EKey: senderE2EKey, senderKey: nil, agentVersion: version,
                        clientVersion: envelope.version, e2eParams: params, encConnInfo: encConnInfo))
            case (.empty, .invitation(let version, let request, let connInfo)):
                return .invitation(agentVersion: version, request: request, connInfo: connInfo)
            default:
                throw .prohibited("handshake: incorrect state")
            }
        case (let secret?, nil):
            let message = try envelope.open(secret: secret)
            switch (message.privateHeader, try message.envelope()) {
            case (.empty, .message(let version, let encAgentMessage)):
                return .message(agentVersion: version, encAgentMessage: encAgentMessage)
            case (.empty, .ratchetKey(let version, let params, let info)):
                return .ratchetKey(agentVersion: version, e2eParams: params, info: info)
            default:
                throw .prohibited("msg: bad client msg")
            }
        case (let secret?, _?):
            guard case .confirmation = try envelope.open(secret: secret).envelope() else {
                throw .prohibited("msg: public header")
            }
            return .repeatedConfirmation
        case (nil, nil):
            throw .prohibited("msg: no keys")
        }
    }

    /// The initiator receives the joiner's confirmation (smp.md §4.5 "A — receive confirmation"): checks the versions,
    /// makes its ratchet from its own X3DH keys `a1, a2` and the joiner's parameters (agent v7: now, so that early
    /// messages decrypt), and decrypts the connection info, which must be `"D"` with the reply queues.
    public static func openConnInfoReply(
        _ confirmation: ReceivedConfirmation, own: E2EPrivateKeys, agreedAgentVersion: UInt16, agreedClientVersion: UInt16,
        keys: inout some RatchetKeySource, agentVersions: VersionRange = AgentVersion.supported,
        clientVersions: VersionRange = SMPClientVersion.supported, e2eVersions: VersionRange = E2EVersion.supported
    ) throws(AgentProtocolError) -> OpenedConfirmation {
        try checkVersions(confirmation, agreedAgentVersion, agreedClientVersion, agentVersions, clientVersions)
        guard let params = confirmation.e2eParams else { throw .prohibited("conf: incorrect state") }
        guard e2eVersions.contains(params.version) else { throw .version }
        // We never propose a KEM, so an acceptance answers nothing of ours (`CERatchetKEMState`); a proposal is ignored,
        // as the reference ignores it with PQ off (smp.md §5.7).
        if case .accepted = params.kem { throw AgentProtocolError(RatchetError.kemState) }
        let ratchet: RatchetState
        do {
            ratchet = try RatchetState(
                initiating: own, peer: params,
                versions: RatchetVersions(current: params.version, maxSupported: e2eVersions.max))
        } catch {
            throw AgentProtocolError(error)
        }
        let (state, skipped, plain) = try decryptConnInfo(confirmation.encConnInfo, ratchet, SkippedMessageKeys(), &keys)
        guard
            case .connInfoReply(let queues, let connInfo) = try decodeMessage({ () throws(BinaryDecodingError) in
                try AgentMessage(decoding: plain)
            })
        else { throw .prohibited("conf: not AgentConnInfoReply") }
        return OpenedConfirmation(
            ratchet: state, skippedKeys: skipped, replyQueues: queues, connInfo: connInfo, hash: Digest.sha256(plain))
    }

    /// The joiner receives the initiator's confirmation on its reply queue (smp.md §4.5 "B — receive"): decrypted with
    /// the ratchet it made when joining; the connection info must be `"I"`.
    public static func openConnInfo(
        _ confirmation: ReceivedConfirmation, ratchet: RatchetState, skipped: SkippedMessageKeys, agreedAgentVersion: UInt16,
        agreedClientVersion: UInt16, keys: inout some RatchetKeySource, agentVersions: VersionRange = AgentVersion.supported,
        clientVersions: VersionRange = SMPClientVersion.supported
    ) throws(AgentProtocolError) -> OpenedConfirmation {
        try checkVersions(confirmation, agreedAgentVersion, agreedClientVersion, agentVersions, clientVersions)
        guard confirmation.e2eParams == nil else { throw .prohibited("conf: incorrect state") }
        let (state, change, plain) = try decryptConnInfo(confirmation.encConnInfo, ratchet, skipped, &keys)
        guard
            case .connInfo(let connInfo) = try decodeMessage({ () throws(BinaryDecodingError) in
                try AgentMessage(decoding: plain)
            })
        else { throw .prohibited("conf: not AgentConnInfo") }
        return OpenedConfirmation(
            ratchet: state, skippedKeys: change, replyQueues: [], connInfo: connInfo, hash: Digest.sha256(plain))
    }

    /// A message of the connection (smp.md §4.7 receiver steps 1–2): the ratchet plaintext must be `"M"` with its
    /// private header and `AMessage`. A failure thrown here changed nothing (no header key opens the message, or it is
    /// malformed); a failure in the result comes with a state that must be stored all the same.
    public static func openMessage(
        _ encAgentMessage: [UInt8], ratchet: RatchetState, skipped: SkippedMessageKeys, keys: inout some RatchetKeySource
    ) throws(AgentProtocolError) -> OpenedMessage {
        let decryption: RatchetDecryption
        do { decryption = try ratchet.decrypt(encAgentMessage, skipped: skipped, keys: &keys) } catch {
            throw AgentProtocolError(error)
        }
        let result: Result<DecryptedAgentMessage, AgentProtocolError>
        switch decryption.plaintext {
        case .failure(let error): result = .failure(AgentProtocolError(error))
        case .success(let plain):
            switch Result(catching: { () throws(BinaryDecodingError) in try AgentMessage(decoding: plain) }) {
            case .success(.message(let header, let message)):
                result = .success(DecryptedAgentMessage(header: header, message: message, hash: Digest.sha256(plain)))
            case .success: result = .failure(.prohibited("msg: bad agent msg"))
            case .failure(let error): result = .failure(.message("\(error)"))
            }
        }
        return OpenedMessage(
            ratchet: decryption.state, skippedKeys: decryption.skippedKeys, encryptedHash: Digest.sha256(encAgentMessage),
            result: result)
    }

    /// `smpConfirmation`'s check: versions we support, or not above those agreed, so a downgrade keeps the connection.
    private static func checkVersions(
        _ c: ReceivedConfirmation, _ agreedAgent: UInt16, _ agreedClient: UInt16, _ agentVersions: VersionRange,
        _ clientVersions: VersionRange
    ) throws(AgentProtocolError) {
        guard VersionAgreement.accepts(c.agentVersion, supported: agentVersions, agreed: agreedAgent),
            VersionAgreement.accepts(c.clientVersion, supported: clientVersions, agreed: agreedClient)
        else { throw .version }
    }

    /// A confirmation's ratchet message: a header that opens with a body that does not is `conf: decrypt error`, as
    /// in the reference; nothing is stored for a confirmation that fails.
    private static func decryptConnInfo(
        _ encConnInfo: [UInt8], _ ratchet: RatchetState, _ skipped: SkippedMessageKeys, _ keys: inout some RatchetKeySource
    ) throws(AgentProtocolError) -> (RatchetState, SkippedKeysChange, [UInt8]) {
        let decryption: RatchetDecryption
        do { decryption = try ratchet.decrypt(encConnInfo, skipped: skipped, keys: &keys) } catch {
            throw AgentProtocolError(error)
        }
        guard case .success(let plain) = decryption.plaintext else { throw .prohibited("conf: decrypt error") }
        return (decryption.state, decryption.skippedKeys, plain)
    }
}

/// The integrity of a received message against the previous one (`checkMsgIntegrity`, smp.md §4.7 step 3). A failed
/// check does not stop processing: the chat shows it as an integrity item.
public enum MsgIntegrity: Equatable, Sendable {
    case ok
    /// An id below the last one received (`MsgBadId`).
    case badId(Int64)
    /// The last id again (`MsgDuplicate`).
    case duplicate
    /// Ids `from…to` never arrived (`MsgSkipped`).
    case skipped(from: Int64, to: Int64)
    /// The next id, but its `prevMsgHash` is not the hash of the message received before (`MsgBadHash`).
    case badHash

    /// Checks `header` against `(lastExternalSndId, lastRcvHash)` — after a confirmation, `1` and its hash.
    public init(lastExternalSndId last: Int64, lastReceivedHash: [UInt8], header: APrivHeader) {
        let id = header.sndMsgId
        if id == last &+ 1, header.prevMsgHash == lastReceivedHash {
            self = .ok
        } else if id < last {
            self = .badId(id)
        } else if id == last {
            self = .duplicate
        } else if id > last &+ 1 {
            self = .skipped(from: last &+ 1, to: id &- 1)
        } else {
            self = .badHash
        }
    }
}
