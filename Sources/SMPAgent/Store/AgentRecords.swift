public import Ratchet
public import SMP
public import SimplexCrypto
internal import SimplexEncoding

/// An agent connection id (`ConnId`): bytes the chat layer keeps as its `agentConnId`.
public struct AgentConnId: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// A new id as the official agent makes them: the base64url text of 12 random bytes.
    public static func random() -> AgentConnId { AgentConnId(Array(Base64.encode(SecureRandom.bytes(12)).utf8)) }

    public var description: String { String(decoding: bytes, as: UTF8.self) }
}

/// What a connection was made for (`ConnectionMode`).
public enum ConnectionMode: String, Sendable, CaseIterable {
    /// A one-time invitation, ours or joined: becomes a duplex connection.
    case invitation
    /// A contact address: one receive queue, requests only.
    case contact
}

/// Where a connection stands (smp.md §4.5).
public enum ConnectionStatus: String, Sendable, CaseIterable {
    /// Created: our invitation's queue exists, nobody joined yet.
    case new
    /// We joined a peer's invitation: our confirmation is on its way.
    case joined
    /// A confirmation was received or sent, the other half of the handshake is pending.
    case confirmed
    /// Both directions work.
    case duplex
    /// Deleted by the user; kept until its queues are deleted on the servers.
    case deleted
}

/// The step of the fast duplex handshake (smp.md §4.5) a connection has reached, so that it resumes after a restart.
public enum HandshakeStep: String, Sendable, CaseIterable {
    /// A contact address, which has no handshake of its own.
    case none
    /// Initiator: the link is out; waiting for the joiner's confirmation.
    case invitationCreated
    /// Initiator: the joiner's confirmation is decrypted and given to the chat layer; waiting for it to allow.
    case confirmationReceived
    /// Initiator: allowed; our confirmation is queued on the new send queue.
    case confirmationAllowed
    /// Joiner: the send queue and ratchet exist; SKEY, the reply queue and our confirmation are to be done.
    case joinStarted
    /// Joiner: our confirmation was accepted by the server; waiting for the initiator's.
    case confirmationSent
    /// `CON` was emitted.
    case connected
}

/// A queue's status (`QueueStatus`).
public enum QueueStatus: String, Sendable, CaseIterable {
    case new
    case confirmed
    case secured
    case active
    case disabled
}

/// What an agent message is (`AgentMessageType`): which envelope a send wraps it in, and what a received one was.
public enum AgentMessageKind: String, Sendable, CaseIterable {
    /// `"C"` envelope: a confirmation with its conn info (`AgentConnInfo` or `AgentConnInfoReply`).
    case confirmation = "CONF"
    /// `"I"` envelope to a contact address: not ratchet-encrypted.
    case invitation = "INV"
    case hello = "HELLO"
    case message = "A_MSG"
    case receipt = "A_RCVD"
    case queueContinue = "A_QCONT"
}

/// How far a sent message got.
public enum DeliveryState: Sendable, Equatable {
    /// Waiting for its turn, or for `nextAttemptAt` after a failed attempt.
    case pending
    /// The server accepted it.
    case sent
    /// Given up (`MERR`), with the error as the agent reports it.
    case failed(String)
}

/// What a delivery receipt said about a sent message (`MsgReceiptStatus`).
public enum ReceiptStatus: String, Sendable, CaseIterable {
    case ok
    case badMsgHash
}

/// The integrity of a received message against the previous one (`MsgIntegrity`, smp.md §4.7).
public enum MessageIntegrity: Sendable, Equatable {
    case ok
    case badId(UInt64)
    case badHash
    case duplicate
    case skipped(from: UInt64, to: UInt64)
}

/// Where a received message's acknowledgement stands: it is ACKed on the server only after the chat layer stored it.
public enum AckState: String, Sendable, CaseIterable {
    /// Given to the chat layer, which has not acknowledged it yet.
    case pending
    /// The chat layer acknowledged it; the SMP `ACK` is to be sent.
    case acknowledged
    /// The server has the `ACK`.
    case serverAcked
}

/// A ratchet in its stored form (`RatchetState.encoded()`), decoded only when the agent encrypts or decrypts.
public struct StoredRatchet: Sendable, Equatable {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }
    public init(_ state: RatchetState) { bytes = state.encoded() }

    public func state() throws(AgentStoreError) -> RatchetState {
        do { return try RatchetState(decoding: bytes) } catch { throw .invalidStoredValue("ratchet: \(error)") }
    }
}

/// A receive queue's row id.
public struct RcvQueueId: Hashable, Sendable {
    public let value: Int64
    public init(_ value: Int64) { self.value = value }
}

/// A send queue's row id.
public struct SndQueueId: Hashable, Sendable {
    public let value: Int64
    public init(_ value: Int64) { self.value = value }
}

/// A message's id in its connection, shared by sent and received messages (`InternalId`, the chat layer's
/// `agentMsgId`).
public struct InternalMessageId: Hashable, Comparable, Sendable {
    public let value: Int64
    public init(_ value: Int64) { self.value = value }
    public static func < (a: Self, b: Self) -> Bool { a.value < b.value }
}

/// A receive queue to create (`NewRcvQueue`), after the server answered `NEW` with `IDS` (smp.md §4.2).
public struct NewRcvQueue: Sendable {
    public var server: SMPServer
    public var recipientId: EntityId
    public var senderId: EntityId
    public var mode: QueueMode
    public var recipientAuthKey: StoredEd25519Key
    public var recipientDHKey: StoredX25519Key
    public var serverDHSecret: X25519.SharedSecret
    public var e2eDHKey: StoredX25519Key
    public var subscribeMode: SubscriptionMode
    public var status: QueueStatus

    public init(
        server: SMPServer, recipientId: EntityId, senderId: EntityId, mode: QueueMode, recipientAuthKey: StoredEd25519Key,
        recipientDHKey: StoredX25519Key, serverDHSecret: X25519.SharedSecret, e2eDHKey: StoredX25519Key,
        subscribeMode: SubscriptionMode = .subscribe, status: QueueStatus = .new
    ) {
        self.server = server
        self.recipientId = recipientId
        self.senderId = senderId
        self.mode = mode
        self.recipientAuthKey = recipientAuthKey
        self.recipientDHKey = recipientDHKey
        self.serverDHSecret = serverDHSecret
        self.e2eDHKey = e2eDHKey
        self.subscribeMode = subscribeMode
        self.status = status
    }
}

/// A stored receive queue (`RcvQueue`).
public struct RcvQueue: Sendable, Equatable {
    public let id: RcvQueueId
    public let connId: AgentConnId
    public let server: SMPServer
    public let recipientId: EntityId
    public let senderId: EntityId
    public let mode: QueueMode
    public let recipientAuthKey: StoredEd25519Key
    public let recipientDHKey: StoredX25519Key
    public let serverDHSecret: X25519.SharedSecret
    public let e2eDHKey: StoredX25519Key
    /// Known once the sender's first confirmation arrived.
    public let e2eDHSecret: X25519.SharedSecret?
    /// The sender's SMP client version, from its confirmation.
    public let smpClientVersion: UInt16?
    public let status: QueueStatus
    public let subscribeMode: SubscriptionMode
    /// The server's id of the message delivered and not ACKed yet.
    public let unackedMsgId: MsgId?
}

/// A send queue to create (`NewSndQueue`), from the peer's queue information (smp.md §4.2).
public struct NewSndQueue: Sendable {
    public var server: SMPServer
    public var senderId: EntityId
    public var mode: QueueMode
    /// Nil for a contact address, which is never secured.
    public var senderAuthKey: StoredEd25519Key?
    public var e2eKey: StoredX25519Key
    public var e2ePublicKey: X25519.PublicKey
    public var e2eDHSecret: X25519.SharedSecret
    public var smpClientVersion: UInt16
    public var status: QueueStatus

    public init(
        server: SMPServer, senderId: EntityId, mode: QueueMode, senderAuthKey: StoredEd25519Key?, e2eKey: StoredX25519Key,
        e2ePublicKey: X25519.PublicKey, e2eDHSecret: X25519.SharedSecret, smpClientVersion: UInt16,
        status: QueueStatus = .new
    ) {
        self.server = server
        self.senderId = senderId
        self.mode = mode
        self.senderAuthKey = senderAuthKey
        self.e2eKey = e2eKey
        self.e2ePublicKey = e2ePublicKey
        self.e2eDHSecret = e2eDHSecret
        self.smpClientVersion = smpClientVersion
        self.status = status
    }
}

/// A stored send queue (`SndQueue`).
public struct SndQueue: Sendable, Equatable {
    public let id: SndQueueId
    public let connId: AgentConnId
    public let server: SMPServer
    public let senderId: EntityId
    public let mode: QueueMode
    public let senderAuthKey: StoredEd25519Key?
    public let e2eKey: StoredX25519Key
    public let e2ePublicKey: X25519.PublicKey
    public let e2eDHSecret: X25519.SharedSecret
    public let status: QueueStatus
    /// The peer's SMP client version for this queue (the envelope's `phVersion`).
    public let smpClientVersion: UInt16
}

/// A connection to create, with the queues and keys it starts with, all in one transaction.
public struct NewConnection: Sendable {
    /// Nil: a new random id.
    public var id: AgentConnId?
    public var mode: ConnectionMode
    public var status: ConnectionStatus
    public var step: HandshakeStep
    public var agentVersion: UInt16
    public var x3dhKeys: StoredX3DHKeys?
    public var ratchet: StoredRatchet?
    public var rcvQueue: NewRcvQueue?
    public var sndQueue: NewSndQueue?

    public init(
        id: AgentConnId? = nil, mode: ConnectionMode, status: ConnectionStatus, step: HandshakeStep, agentVersion: UInt16,
        x3dhKeys: StoredX3DHKeys? = nil, ratchet: StoredRatchet? = nil, rcvQueue: NewRcvQueue? = nil,
        sndQueue: NewSndQueue? = nil
    ) {
        self.id = id
        self.mode = mode
        self.status = status
        self.step = step
        self.agentVersion = agentVersion
        self.x3dhKeys = x3dhKeys
        self.ratchet = ratchet
        self.rcvQueue = rcvQueue
        self.sndQueue = sndQueue
    }

    /// The initiator of a one-time invitation: its queue is created and its X3DH keys wait for the confirmation.
    public static func invitation(rcvQueue: NewRcvQueue, x3dhKeys: StoredX3DHKeys, agentVersion: UInt16) -> NewConnection {
        NewConnection(
            mode: .invitation, status: .new, step: .invitationCreated, agentVersion: agentVersion, x3dhKeys: x3dhKeys,
            rcvQueue: rcvQueue)
    }

    /// A contact address with its queue.
    public static func contactAddress(rcvQueue: NewRcvQueue, agentVersion: UInt16) -> NewConnection {
        NewConnection(mode: .contact, status: .new, step: .none, agentVersion: agentVersion, rcvQueue: rcvQueue)
    }

    /// The joiner of a one-time invitation: its send queue to the initiator and its sending ratchet.
    public static func joining(sndQueue: NewSndQueue, ratchet: StoredRatchet, agentVersion: UInt16) -> NewConnection {
        NewConnection(
            mode: .invitation, status: .joined, step: .joinStarted, agentVersion: agentVersion, ratchet: ratchet,
            sndQueue: sndQueue)
    }
}

/// A stored connection with its queues (`SomeConn`).
public struct AgentConnection: Sendable, Equatable {
    public let id: AgentConnId
    public let mode: ConnectionMode
    public let status: ConnectionStatus
    public let step: HandshakeStep
    public let agentVersion: UInt16
    public let x3dhKeys: StoredX3DHKeys?
    public let ratchet: StoredRatchet?
    public let lastInternalId: InternalMessageId
    public let lastSndId: UInt64
    public let lastSndHash: [UInt8]
    public let lastExternalSndId: UInt64
    public let lastRcvHash: [UInt8]
    public let rcvQueues: [RcvQueue]
    public let sndQueues: [SndQueue]
}

/// A receive queue to subscribe at start: what `SUB` needs, grouped by server for one batch per server.
public struct QueueSubscription: Sendable, Equatable {
    public let connId: AgentConnId
    public let queueId: RcvQueueId
    public let recipientId: EntityId
    public let recipientAuthKey: StoredEd25519Key
    public let status: QueueStatus
}

/// The next send of a connection, handed to the caller that builds its plaintext inside the same transaction.
public struct SendSlot: Sendable {
    public let internalId: InternalMessageId
    /// The `sndMsgId` the agent message carries (the confirmation is 1).
    public let sndMsgId: UInt64
    /// The hash of the previous sent message, empty for the first.
    public let prevMsgHash: [UInt8]
    /// The connection's ratchet before this message.
    public let ratchet: StoredRatchet?
}

/// What the caller prepared for a send: the plaintext to seal at delivery and the ratchet after encrypting its
/// header.
public struct PreparedSend: Sendable {
    /// The agent message plaintext (`AgentMessage`, or the whole `AgentInvitation` of an address request), unpadded.
    public var agentMessage: [UInt8]
    /// The ratchet's key for this message (`MessageEncryptKey.encoded()`); nil for an address request.
    public var encryptKey: [UInt8]?
    /// The clear `E2ERatchetParams` of a joiner's confirmation envelope.
    public var ratchetParams: [UInt8]?
    /// The ratchet after this message's header was encrypted; nil leaves it as it was.
    public var ratchet: StoredRatchet?

    public init(agentMessage: [UInt8], encryptKey: [UInt8]?, ratchetParams: [UInt8]? = nil, ratchet: StoredRatchet?) {
        self.agentMessage = agentMessage
        self.encryptKey = encryptKey
        self.ratchetParams = ratchetParams
        self.ratchet = ratchet
    }
}

/// A stored sent message (`SndMsg` with its delivery).
public struct SentMessage: Sendable, Equatable {
    public let connId: AgentConnId
    public let internalId: InternalMessageId
    public let sndMsgId: UInt64
    public let queueId: SndQueueId
    public let kind: AgentMessageKind
    public let hash: MessageHash
    public let notification: Bool
    /// What delivery seals; nil once the server accepted it.
    public let agentMessage: [UInt8]?
    public let encryptKey: [UInt8]?
    public let ratchetParams: [UInt8]?
    public let delivery: DeliveryState
    public let retries: Int
    /// Milliseconds since 1970.
    public let nextAttemptAt: Int64
    public let receipt: ReceiptStatus?
}

/// What the store knows before a received message is processed: the integrity check's inputs and the ratchet.
public struct ReceiveSlot: Sendable {
    public let internalId: InternalMessageId
    public let lastExternalSndId: UInt64
    public let lastRcvHash: [UInt8]
    public let ratchet: StoredRatchet?
    public let skippedKeys: SkippedMessageKeys
    /// The initiator's X3DH keys while its ratchet waits for the joiner's confirmation.
    public let x3dhKeys: StoredX3DHKeys?
}

/// What the caller made of a received message.
public struct ProcessedReceive: Sendable {
    public var kind: AgentMessageKind
    /// The `sndMsgId` the message carried.
    public var sndMsgId: UInt64
    /// SHA-256 of the agent message plaintext.
    public var hash: MessageHash
    public var integrity: MessageIntegrity
    /// The ratchet after decryption, nil when unchanged; with the skipped keys' change.
    public var ratchet: StoredRatchet?
    public var skippedKeys: SkippedKeysChange
    /// The initiator's confirmation made the ratchet: its X3DH keys are dropped.
    public var clearsX3DHKeys: Bool
    /// The ACK state to store: `pending` for what the chat layer acknowledges, `acknowledged` for what the agent
    /// ACKs itself.
    public var ack: AckState
    /// What the chat layer is given, kept while it has not acknowledged it (`pendingBody`).
    public var body: [UInt8]?

    public init(
        kind: AgentMessageKind, sndMsgId: UInt64, hash: MessageHash, integrity: MessageIntegrity, ratchet: StoredRatchet?,
        skippedKeys: SkippedKeysChange = .unchanged, clearsX3DHKeys: Bool = false, ack: AckState = .pending,
        body: [UInt8]? = nil
    ) {
        self.body = body
        self.clearsX3DHKeys = clearsX3DHKeys
        self.kind = kind
        self.sndMsgId = sndMsgId
        self.hash = hash
        self.integrity = integrity
        self.ratchet = ratchet
        self.skippedKeys = skippedKeys
        self.ack = ack
    }
}

/// A stored received message (`RcvMsg`).
public struct RcvMessage: Sendable, Equatable {
    public let connId: AgentConnId
    public let internalId: InternalMessageId
    public let queueId: RcvQueueId
    public let kind: AgentMessageKind
    public let externalSndId: UInt64
    public let serverMsgId: MsgId
    /// The server's timestamp, seconds since 1970.
    public let serverTimestamp: Int64
    public let hash: MessageHash
    public let integrity: MessageIntegrity
    public let ack: AckState
    /// How many times the server delivered it, duplicates included.
    public let receiveAttempts: Int
}

/// The result of recording a received message.
public enum ReceiveOutcome: Sendable, Equatable {
    case stored(RcvMessage)
    /// Its ciphertext was received before: nothing was decrypted, and only the earlier message's receive attempts
    /// were counted. The earlier message, unless it was pruned since.
    case duplicate(of: RcvMessage?)
}

/// A request that arrived on a contact address (`Invitation`, smp.md §4.6).
public struct AddressRequest: Sendable, Equatable {
    public let invitationId: [UInt8]
    public let connId: AgentConnId
    /// The requester's invitation link, as its text came.
    public let invitationLink: String
    public let connInfo: [UInt8]
    public let accepted: Bool
    public let ownConnInfo: [UInt8]?
    public let joinedConnId: AgentConnId?
}
