/// Why the double ratchet refused a message or an operation (simplexmq's `CryptoError` cases for the ratchet,
/// smp.md §5.6); the agent maps these to `A_CRYPTO`/ratchet-sync states, and `duplicateMessage` to "ACK and ignore".
public enum RatchetError: Error, Equatable, Sendable {
    /// The message or its header is not well formed (`CryptoHeaderError`).
    case headerSyntax(String)
    /// No header key opens the header: not the current, the next or a skipped chain's (`CERatchetHeader`).
    case header
    /// The state cannot do this: no sending chain yet, or the receiving chain is missing after a step (`CERatchetState`).
    case state
    /// The header accepts a KEM proposal we never made (`CERatchetKEMState`).
    case kemState
    /// The message would skip more than `RatchetState.maxSkip` keys of one chain; `count` of them
    /// (`CERatchetTooManySkipped`).
    case tooManySkipped(count: UInt32)
    /// A message number already passed and not among the skipped keys, `behind` messages before the last one
    /// (`CERatchetEarlierMessage`).
    case earlierMessage(behind: UInt32)
    /// The number of the message received last (`CERatchetDuplicateMessage`).
    case duplicateMessage
    /// The body does not authenticate under its message key (`AESDecryptError`).
    case decryption
    /// A decrypted block whose length prefix exceeds it (`CryptoInvalidMsgError`).
    case invalidPadding
    /// A message too long for its padded length (`CryptoLargeMsgError`).
    case messageTooLarge(length: Int, limit: Int)
    /// A peer X448 key that gives no shared secret.
    case invalidPublicKey
    /// OpenSSL failed an operation that cannot fail on keys and IVs of the right sizes.
    case cryptoFailure(String)
    /// A stored state, skipped key or encryption key that does not decode.
    case storedState(String)
}
