public import AgentProtocol
public import Ratchet
internal import SMP
public import SimplexCrypto
internal import SimplexEncoding

/// The agent's envelope stack split where the store splits it (smp.md §4.3, §9.3): `prepare` runs inside the
/// transaction that queues a message — it moves the ratchet's sending chain and keeps the plaintext with its message
/// key — and `seal` runs at each delivery attempt, so a retry sends the same ratchet message and the peer drops the
/// repeat by its hash.
public enum AgentEnvelopes {
    /// A message's plaintext and key, and the ratchet after its header was encrypted. Refuses a message too long
    /// for its padding before the chain moves.
    public static func prepare(_ message: AgentMessage, ratchet: RatchetState, ratchetParams: E2ERatchetParams? = nil)
        throws(AgentError) -> PreparedSend
    {
        let plain: [UInt8]
        do { plain = try message.encoded() } catch { throw .agent(.message("\(error)")) }
        let payload = payload(of: message)
        let limit = payload.paddedLength - 2
        guard plain.count <= limit else { throw .agent(.tooLarge(length: plain.count, limit: limit)) }
        var state = ratchet
        let key: MessageEncryptKey
        do { key = try state.encryptHeader() } catch { throw .agent(AgentProtocolError(error)) }
        var params: [UInt8]?
        if let ratchetParams {
            do { params = try ratchetParams.encoded() } catch { throw .agent(.message("\(error)")) }
        }
        return PreparedSend(
            agentMessage: plain, encryptKey: key.encoded(), ratchetParams: params, ratchet: StoredRatchet(state))
    }

    /// The `SEND` body of a queued message: the ratchet message from its stored key, the agent envelope (a
    /// confirmation `"C"` with the connection's agreed agent version, else `"M"` with our highest), `"_"`, and the
    /// per-queue box — with our DH key in the public header for a confirmation.
    public static func seal(_ message: SentMessage, queue: SndQueue, agentVersion: UInt16, nonce: SecretBox.Nonce)
        throws(AgentError) -> [UInt8]
    {
        guard let plain = message.agentMessage, let keyBytes = message.encryptKey else {
            throw .prohibited("message \(message.internalId.value) has nothing left to seal")
        }
        let key: MessageEncryptKey
        do { key = try MessageEncryptKey(decoding: keyBytes) } catch { throw .agent(AgentProtocolError(error)) }
        let confirmation = message.kind == .confirmation
        let encrypted: [UInt8]
        do { encrypted = try key.encrypt(plain, as: confirmation ? .connectionInfo : .agentMessage) } catch {
            throw .agent(AgentProtocolError(error))
        }
        let envelope: AgentMsgEnvelope
        if confirmation {
            var params: E2ERatchetParams?
            if let bytes = message.ratchetParams {
                do { params = try E2ERatchetParams(decoding: bytes) } catch { throw .agent(.message("\(error)")) }
            }
            envelope = .confirmation(agentVersion: agentVersion, e2eParams: params, encConnInfo: encrypted)
        } else {
            envelope = .message(agentVersion: AgentVersion.current, encAgentMessage: encrypted)
        }
        do {
            return try ClientMsgEnvelope.seal(
                ClientMessage(privateHeader: .empty, envelope: envelope), version: queue.smpClientVersion,
                e2ePublicKey: confirmation ? queue.e2ePublicKey : nil, secret: queue.e2eDHSecret, nonce: nonce
            ).body()
        } catch {
            throw .agent(error)
        }
    }

    static func payload(of message: AgentMessage) -> RatchetPayload {
        switch message {
        case .connInfo, .connInfoReply, .ratchetInfo: .connectionInfo
        case .message: .agentMessage
        }
    }
}
