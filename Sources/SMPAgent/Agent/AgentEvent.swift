public import AgentProtocol
public import SMP
public import SMPClient

/// Why an agent call failed, in the reference's kinds (`AgentErrorType`): the store, the server, the peer's bytes,
/// or a call the connection's state does not allow.
public enum AgentError: Error, Equatable, Sendable {
    case store(AgentStoreError)
    /// The server or the network (`SMP`, `BROKER`).
    case smp(SMPClientError)
    /// The peer's link, envelope or message (`AGENT`).
    case agent(AgentProtocolError)
    /// Not allowed in the connection's state (`CMD PROHIBITED`).
    case prohibited(String)
    /// What this agent does not serve yet, said plainly.
    case notServed(String)
    /// The agent was closed.
    case closed
}

/// What a received message was, for the layer above (`MsgMeta`): its id to acknowledge it with, the peer's
/// `sndMsgId`, the integrity of the chain of messages, and the server's timestamp.
public struct MessageMeta: Equatable, Sendable {
    public let msgId: InternalMessageId
    public let sndMsgId: UInt64
    public let integrity: MessageIntegrity
    /// Seconds since 1970.
    public let serverTimestamp: Int64
}

/// One message a delivery receipt named (`MsgReceipt`): our message and what the receipt said of it.
public struct MessageReceipt: Equatable, Sendable {
    public let msgId: InternalMessageId
    public let status: ReceiptStatus
}

/// The agent's events in the protocol's own words (`ACommand` events of simplexmq's agent), in the order they
/// happened.
public enum AgentEvent: Equatable, Sendable {
    /// `CONF`: the joiner's confirmation reached our invitation; allow the connection with `confirmationId`.
    case conf(AgentConnId, confirmationId: String, servers: [SMPServer], connInfo: [UInt8])
    /// `REQ`: a contact request reached our address (smp.md §4.6); accept it with `acceptContact(invitationId:)`.
    case req(AgentConnId, invitationId: [UInt8], connInfo: [UInt8])
    /// `INFO`: the initiator's conn info reached the joiner.
    case info(AgentConnId, connInfo: [UInt8])
    /// `CON`: both directions work.
    case con(AgentConnId)
    /// `MSG`: acknowledge it with `ackMessage` once it is stored; until then the server holds the next one back.
    case msg(AgentConnId, MessageMeta, body: [UInt8])
    /// `SENT`: the server accepted our message.
    case sent(AgentConnId, InternalMessageId)
    /// `MWARN`: a delivery is held up (the peer's queue is full) and will go on.
    case mwarn(AgentConnId, InternalMessageId, String)
    /// `MERR`: a delivery was given up.
    case merr(AgentConnId, InternalMessageId, String)
    /// `RCVD`: a delivery receipt for our messages; acknowledge it with `ackMessage` too.
    case rcvd(AgentConnId, MessageMeta, [MessageReceipt])
    /// `QCONT`: the peer read its full queue; our deliveries to it go on.
    case qcont(AgentConnId)
    /// `ERR`: something went wrong with a connection, or, without one, with the agent.
    case err(AgentConnId?, String)
    /// `DOWN`: the connection to a server was lost; these connections wait for it to come back.
    case down(SMPServer, [AgentConnId])
    /// `UP`: the server is back and these connections are subscribed again.
    case up(SMPServer, [AgentConnId])
}
