/// What happened to a connection in its fast duplex handshake (smp.md §4.5): a call from above, a server's answer,
/// or a confirmation opened. After a restart nothing needs an input: a queued confirmation is delivered by its
/// worker, whose report moves the step on.
public enum HandshakeInput: Equatable, Sendable {
    /// Joiner: the connection with its send queue and ratchet was stored (`joinConnection`).
    case joined
    /// The server accepted our confirmation (`SEND` → `OK`).
    case confirmationDelivered
    /// A confirmation on our queue was opened: the joiner's `"D"` with its reply queue (`reply`), or the initiator's
    /// `"I"`.
    case confirmationOpened(reply: Bool)
    /// Initiator: the layer above allowed the connection with its conn info (`allowConnection`).
    case allowed
}

/// What the agent must do next for the connection, in order; each action is done before the next one starts.
public enum HandshakeAction: Equatable, Sendable {
    /// `SKEY` our sender key on the initiator's queue (smp.md §4.5 B.4), so that a used link fails the join at once.
    case secureSendQueue
    /// `NEW` the reply queue on our own server and store it (B.5).
    case createReplyQueue
    /// Queue our confirmation on the send queue: the joiner's `"D"` with the reply queue and its X3DH parameters,
    /// or the initiator's `"I"` (B.6, A's allow step).
    case enqueueConfirmation
    case setStep(ConnectionStatus, HandshakeStep)
    /// The event of the same name to the layer above.
    case emitConfirmation
    case emitInfo
    case emitConnected
}

/// An input the connection's step does not expect: the reference's `A_PROHIBITED`/`CMD PROHIBITED`.
public struct HandshakeViolation: Error, Equatable, Sendable, CustomStringConvertible {
    public let step: HandshakeStep
    public let input: HandshakeInput
    public var description: String { "handshake: \(input) at step \(step.rawValue)" }
}

/// The fast duplex handshake of agent v7 with `SKEY` (smp.md §4.5) as a function from a connection's step and what
/// happened to what to do, without I/O; the agent actor carries the actions out and feeds their results back.
///
///     joiner                                                 initiator
///     joined → SKEY, NEW reply queue, enqueue "D"            invitationCreated
///                                           ── conf ──▶      confirmationOpened(reply) → confirmationReceived, CONF
///     delivered → confirmationSent                           allowed → confirmationAllowed, enqueue "I" (SKEY, SEND)
///     confirmationOpened → connected, INFO, CON  ◀── conf ── delivered → connected, CON
public enum HandshakeMachine {
    public static func next(_ step: HandshakeStep, _ input: HandshakeInput) throws(HandshakeViolation) -> [HandshakeAction] {
        switch (step, input) {
        // Joiner.
        case (.joinStarted, .joined):
            return [.secureSendQueue, .createReplyQueue, .enqueueConfirmation]
        case (.joinStarted, .confirmationDelivered):
            return [.setStep(.confirmed, .confirmationSent)]
        case (.joinStarted, .confirmationOpened(reply: false)), (.confirmationSent, .confirmationOpened(reply: false)):
            // The initiator's confirmation can overtake the report of our own one's delivery.
            return [.setStep(.duplex, .connected), .emitInfo, .emitConnected]

        // Initiator.
        case (.invitationCreated, .confirmationOpened(reply: true)):
            return [.setStep(.confirmed, .confirmationReceived), .emitConfirmation]
        case (.confirmationReceived, .allowed):
            // One transaction: the step and our confirmation. Its delivery secures the reply queue before it sends.
            return [.setStep(.confirmed, .confirmationAllowed), .enqueueConfirmation]
        case (.confirmationAllowed, .confirmationDelivered):
            return [.setStep(.duplex, .connected), .emitConnected]

        // A delivery report that comes after the peer's confirmation already connected us.
        case (.connected, .confirmationDelivered):
            return []
        default:
            throw HandshakeViolation(step: step, input: input)
        }
    }
}
