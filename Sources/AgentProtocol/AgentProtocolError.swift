public import Ratchet

/// Why the agent's wire layer refused a link, an envelope or a message. The cases follow simplexmq's
/// `SMPAgentError` (chat-api.md §8.4, `AGENT {agentErr}`), so the chat layer maps them one to one; the two that are
/// not agent errors in the reference say which error they become there.
public enum AgentProtocolError: Error, Equatable, Sendable {
    /// A connection link, queue URI or e2e parameter string that does not parse. The reference reports it as a command
    /// syntax error (`CMD SYNTAX`) or, in the chat API, as an invalid connection link.
    case linkSyntax(String)
    /// An envelope or agent message that does not parse (`A_MESSAGE`).
    case message(String)
    /// A message that parses but is not allowed in the queue's or connection's state (`A_PROHIBITED`).
    case prohibited(String)
    /// The peer's agent, SMP client or e2e version range does not meet ours (`A_VERSION`).
    case version
    /// A per-queue box or ratchet message that does not decrypt (`A_CRYPTO`).
    case crypto(AgentCryptoError)
    /// The ratchet has already decrypted this message (`A_DUPLICATE`): acknowledge it and ignore it.
    case duplicate
    /// A queue-rotation message that refers to queues the connection does not have (`A_QUEUE`).
    case queue(String)
    /// Something to send that does not fit its padded size (`CMD LARGE` in the reference).
    case tooLarge(length: Int, limit: Int)
    /// A failure of our own side, not of the peer's bytes (`INTERNAL`).
    case `internal`(String)

    /// The reference's `cryptoError` mapping of ratchet failures.
    public init(_ error: RatchetError) {
        switch error {
        case .headerSyntax(let reason): self = .message("ratchet header: \(reason)")
        case .header: self = .crypto(.ratchetHeader)
        case .duplicateMessage: self = .duplicate
        case .decryption: self = .crypto(.decryptAES)
        case .tooManySkipped(let n): self = .crypto(.ratchetSkipped(n))
        case .earlierMessage(let n): self = .crypto(.ratchetEarlier(n))
        case .messageTooLarge(let length, let limit): self = .tooLarge(length: length, limit: limit)
        case .state, .kemState, .invalidPadding, .invalidPublicKey, .cryptoFailure, .storedState:
            self = .internal("ratchet: \(error)")
        }
    }
}

/// The kinds of `A_CRYPTO` (simplexmq `AgentCryptoError`): each decides the ratchet synchronisation state the agent
/// moves to.
public enum AgentCryptoError: Equatable, Sendable {
    /// A ratchet message body that does not authenticate (`DECRYPT_AES`).
    case decryptAES
    /// A per-queue box that does not open (`DECRYPT_CB`).
    case decryptCB
    /// No header key opens the ratchet header (`RATCHET_HEADER`): the ratchets are out of sync.
    case ratchetHeader
    /// A message number already passed, this many before the last one (`RATCHET_EARLIER`).
    case ratchetEarlier(UInt32)
    /// More skipped messages than the ratchet keeps keys for (`RATCHET_SKIPPED`).
    case ratchetSkipped(UInt32)
    /// The ratchets need re-synchronising (`RATCHET_SYNC`).
    case ratchetSync
}
