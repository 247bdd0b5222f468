public import Ratchet
public import SMP
public import SimplexCrypto
internal import SimplexEncoding

/// What a sender keeps for the e2e layer of one send queue (smp.md §4.2): the agreed SMP client version, the
/// per-queue secret `X25519(dh= key of the queue, sndE2e.priv)`, the public half `sndE2e.pub` that confirmations
/// carry, and the private header of its confirmations.
public struct SendQueueE2E: Sendable {
    public let clientVersion: UInt16
    public let secret: X25519.SharedSecret
    public let publicKey: X25519.PublicKey
    /// `"_"` when the sender secures the queue itself (`SKEY`, messaging queues), else `"K"` with the sender's key,
    /// which the recipient then secures the queue with (`KEY`).
    public let confirmationHeader: PrivHeader

    public init(clientVersion: UInt16, secret: X25519.SharedSecret, publicKey: X25519.PublicKey, confirmationHeader: PrivHeader) {
        self.clientVersion = clientVersion
        self.secret = secret
        self.publicKey = publicKey
        self.confirmationHeader = confirmationHeader
    }

    /// A new send queue's e2e keys: the recipient's key from the queue URI and our fresh `sndE2e` key.
    public init(
        clientVersion: UInt16, recipientKey: X25519.PublicKey, own: X25519.PrivateKey, queueMode: QueueMode?,
        senderKey: AuthPublicKey
    ) throws(AgentProtocolError) {
        do { secret = try own.sharedSecret(with: recipientKey) } catch {
            throw .prohibited("the queue's DH key gives no shared secret")
        }
        self.clientVersion = clientVersion
        publicKey = own.publicKey
        confirmationHeader = queueMode == .messaging ? .empty : .confirmation(senderKey: senderKey)
    }
}

/// A message ready to send: the SEND body, the ratchet state to store with it (before it is sent, smp.md §9.3), and
/// the SHA-256 of the agent message plaintext — the next message's `prevMsgHash` and what receipts name.
public struct SealedMessage: Sendable {
    public let body: [UInt8]
    public let ratchet: RatchetState
    public let hash: [UInt8]
}

/// The sending half of the agent's envelope stack (smp.md §4.5–§4.7): pure functions from what a connection holds to
/// the bytes of a `SEND`. Randomness (nonces, ephemeral keys) comes in as parameters.
public enum AgentSealing {
    /// A confirmation (smp.md §4.5 B.6 and A's allow step): the joiner's `"D"` with its reply queues and its
    /// e2e parameters, or the initiator's `"I"` without. Ratchet-encrypted padded to 14,832, agent envelope `"C"`,
    /// private header of the queue, per-queue box padded to 15,904 with our DH key in the public header.
    public static func sealConfirmation(
        _ message: AgentMessage, agentVersion: UInt16, e2eParams: E2ERatchetParams?, ratchet: RatchetState,
        queue: SendQueueE2E, nonce: SecretBox.Nonce
    ) throws(AgentProtocolError) -> SealedMessage {
        switch message {
        case .connInfo, .connInfoReply: break
        case .ratchetInfo, .message: throw .internal("a confirmation carries connection info only")
        }
        let plain = try encodeMessage { () throws(BinaryEncodingError) in try message.encoded() }
        var state = ratchet
        let encConnInfo = try ratchetEncrypt(plain, as: .connectionInfo, with: &state)
        let envelope = AgentMsgEnvelope.confirmation(agentVersion: agentVersion, e2eParams: e2eParams, encConnInfo: encConnInfo)
        let body = try ClientMsgEnvelope.seal(
            ClientMessage(privateHeader: queue.confirmationHeader, envelope: envelope), version: queue.clientVersion,
            e2ePublicKey: queue.publicKey, secret: queue.secret, nonce: nonce
        ).body()
        return SealedMessage(body: body, ratchet: state, hash: Digest.sha256(plain))
    }

    /// A message after the handshake (smp.md §4.7): `"M" ‖ APrivHeader ‖ AMessage` ratchet-encrypted padded to
    /// 15,840, envelope `"M"` with our highest agent version, `"_"`, per-queue box padded to 16,000 without a key.
    public static func sealMessage(
        _ message: AMessage, header: APrivHeader, ratchet: RatchetState, queue: SendQueueE2E, nonce: SecretBox.Nonce,
        agentVersion: UInt16 = AgentVersion.current
    ) throws(AgentProtocolError) -> SealedMessage {
        let plain = try encodeMessage { () throws(BinaryEncodingError) in
            try AgentMessage.message(header, message).encoded()
        }
        var state = ratchet
        let encAgentMessage = try ratchetEncrypt(plain, as: .agentMessage, with: &state)
        let envelope = AgentMsgEnvelope.message(agentVersion: agentVersion, encAgentMessage: encAgentMessage)
        let body = try ClientMsgEnvelope.seal(
            ClientMessage(privateHeader: .empty, envelope: envelope), version: queue.clientVersion, e2ePublicKey: nil,
            secret: queue.secret, nonce: nonce
        ).body()
        return SealedMessage(body: body, ratchet: state, hash: Digest.sha256(plain))
    }

    /// A contact request to an address (smp.md §4.6 R.2): our invitation and connection info in envelope `"I"`, not
    /// ratchet-encrypted, in a one-shot box under a fresh ephemeral key (`agentCbEncryptOnce`), padded to 15,904.
    /// The body is sent unsigned.
    public static func sealInvitation(
        _ request: InvitationRequest, connInfo: [UInt8], agentVersion: UInt16, clientVersion: UInt16,
        addressKey: X25519.PublicKey, ephemeralKey: X25519.PrivateKey, nonce: SecretBox.Nonce
    ) throws(AgentProtocolError) -> [UInt8] {
        let secret: X25519.SharedSecret
        do { secret = try ephemeralKey.sharedSecret(with: addressKey) } catch {
            throw .prohibited("the address's DH key gives no shared secret")
        }
        let envelope = AgentMsgEnvelope.invitation(agentVersion: agentVersion, request: request, connInfo: connInfo)
        return try ClientMsgEnvelope.seal(
            ClientMessage(privateHeader: .empty, envelope: envelope), version: clientVersion,
            e2ePublicKey: ephemeralKey.publicKey, secret: secret, nonce: nonce
        ).body()
    }

    private static func ratchetEncrypt(_ plain: [UInt8], as payload: RatchetPayload, with state: inout RatchetState)
        throws(AgentProtocolError) -> [UInt8]
    {
        do { return try state.encrypt(plain, as: payload) } catch { throw AgentProtocolError(error) }
    }
}
