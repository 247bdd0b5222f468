public import Ratchet
public import SMP
public import SimplexEncoding

/// The agent envelope inside a client message (`AgentMsgEnvelope`, smp.md §4.3 c). Every kind starts with the
/// sender's agent version: the agreed one in confirmations, its highest in messages.
///
///     confirmation   u16be(v) ‖ "C" ‖ Maybe(E2ERatchetParams) ‖ Tail(encConnInfo)       ratchet message of "I"/"D"
///     message        u16be(v) ‖ "M" ‖ Tail(encAgentMessage)                            ratchet message of "M"…
///     invitation     u16be(v) ‖ "I" ‖ len2(invitation link text) ‖ Tail(connInfo)      no ratchet
///     ratchet key    u16be(v) ‖ "R" ‖ E2ERatchetParams ‖ Tail(info)                    re-synchronisation
public enum AgentMsgEnvelope: Equatable, Sendable, BinaryCodable {
    case confirmation(agentVersion: UInt16, e2eParams: E2ERatchetParams?, encConnInfo: [UInt8])
    case message(agentVersion: UInt16, encAgentMessage: [UInt8])
    /// A contact request to an address: the requester's own invitation and its connection info.
    case invitation(agentVersion: UInt16, request: InvitationRequest, connInfo: [UInt8])
    case ratchetKey(agentVersion: UInt16, e2eParams: E2ERatchetParams, info: [UInt8])

    public var agentVersion: UInt16 {
        switch self {
        case .confirmation(let v, _, _), .message(let v, _), .invitation(let v, _, _), .ratchetKey(let v, _, _): v
        }
    }

    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) {
        writer.writeUInt16(agentVersion)
        switch self {
        case .confirmation(_, let params, let encConnInfo):
            writer.writeByte(UInt8(ascii: "C"))
            try params.encode(to: &writer)
            writer.writeBytes(encConnInfo)
        case .message(_, let encAgentMessage):
            writer.writeByte(UInt8(ascii: "M"))
            writer.writeBytes(encAgentMessage)
        case .invitation(_, let request, let connInfo):
            writer.writeByte(UInt8(ascii: "I"))
            try writer.writeLargeBytes(Array(request.connectionRequest.text.utf8))
            writer.writeBytes(connInfo)
        case .ratchetKey(_, let params, let info):
            writer.writeByte(UInt8(ascii: "R"))
            try params.encode(to: &writer)
            writer.writeBytes(info)
        }
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        let version = try reader.readUInt16()
        switch try reader.readByte() {
        case UInt8(ascii: "C"):
            let params = try E2ERatchetParams?(from: &reader)
            self = .confirmation(agentVersion: version, e2eParams: params, encConnInfo: reader.readRest())
        case UInt8(ascii: "M"):
            self = .message(agentVersion: version, encAgentMessage: reader.readRest())
        case UInt8(ascii: "I"):
            let text = try reader.readLargeBytes()
            guard let link = String(validating: text, as: UTF8.self) else { throw .malformed("invitation link is not UTF-8") }
            let request: InvitationRequest
            do { request = try InvitationRequest(parsing: link) } catch { throw .malformed("invitation link: \(error)") }
            self = .invitation(agentVersion: version, request: request, connInfo: reader.readRest())
        case UInt8(ascii: "R"):
            let params = try E2ERatchetParams(from: &reader)
            self = .ratchetKey(agentVersion: version, e2eParams: params, info: reader.readRest())
        case let b: throw .invalidTag(b, expected: "C, M, I or R")
        }
    }
}

/// A one-time invitation link, as an address request carries it: a `ConnectionRequest` that is not a contact.
public struct InvitationRequest: Equatable, Sendable {
    public var data: ConnectionRequestData
    public var e2e: E2ERatchetParamsURI

    public init(data: ConnectionRequestData, e2e: E2ERatchetParamsURI) {
        self.data = data
        self.e2e = e2e
    }

    public var connectionRequest: ConnectionRequest { .invitation(data, e2e) }

    /// Parses a link that must be an invitation (`connReqUriP'` with the invitation mode).
    public init(parsing text: String) throws(AgentProtocolError) {
        guard case .invitation(let data, let e2e) = try ConnectionRequest(parsing: text) else {
            throw .linkSyntax("a contact address where an invitation is expected")
        }
        self.init(data: data, e2e: e2e)
    }
}

/// A ratchet plaintext (`AgentMessage`, smp.md §4.3 d):
///
///     "I" ‖ Tail(connInfo)                               the initiator's confirmation
///     "D" ‖ NonEmpty SMPQueueInfo ‖ Tail(connInfo)        the joiner's confirmation, with its reply queue(s)
///     "R" ‖ Tail(info)                                    ratchet re-synchronisation
///     "M" ‖ APrivHeader ‖ AMessage                       every later message
public enum AgentMessage: Equatable, Sendable, BinaryCodable {
    case connInfo([UInt8])
    case connInfoReply(queues: [SMPQueueInfo], connInfo: [UInt8])
    case ratchetInfo([UInt8])
    case message(APrivHeader, AMessage)

    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) {
        switch self {
        case .connInfo(let info):
            writer.writeByte(UInt8(ascii: "I"))
            writer.writeBytes(info)
        case .connInfoReply(let queues, let info):
            writer.writeByte(UInt8(ascii: "D"))
            try queues.encode(to: &writer)
            writer.writeBytes(info)
        case .ratchetInfo(let info):
            writer.writeByte(UInt8(ascii: "R"))
            writer.writeBytes(info)
        case .message(let header, let message):
            writer.writeByte(UInt8(ascii: "M"))
            header.encode(to: &writer)
            try message.encode(to: &writer)
        }
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        switch try reader.readByte() {
        case UInt8(ascii: "I"): self = .connInfo(reader.readRest())
        case UInt8(ascii: "D"):
            let queues = try readNonEmpty(&reader) { (r: inout ByteReader) throws(BinaryDecodingError) in
                try SMPQueueInfo(from: &r)
            }
            self = .connInfoReply(queues: queues, connInfo: reader.readRest())
        case UInt8(ascii: "R"): self = .ratchetInfo(reader.readRest())
        case UInt8(ascii: "M"): self = .message(try APrivHeader(from: &reader), try AMessage(from: &reader))
        case let b: throw .invalidTag(b, expected: "I, D, R or M")
        }
    }
}

/// The sender's id and chain hash of a message (`APrivHeader`, smp.md §4.3 d): `i64be(sndMsgId) ‖ len1(prevMsgHash)`,
/// the hash being SHA-256 of the sender's previous agent message plaintext (empty before the first).
public struct APrivHeader: Equatable, Sendable, BinaryCodable {
    public var sndMsgId: Int64
    public var prevMsgHash: [UInt8]

    public init(sndMsgId: Int64, prevMsgHash: [UInt8]) {
        self.sndMsgId = sndMsgId
        self.prevMsgHash = prevMsgHash
    }

    public func encode(to writer: inout ByteWriter) {
        writer.writeInt64(sndMsgId)
        // The hash is 32 bytes or none; only a caller's bug could make it longer, and the peer then sees a bad hash.
        try? writer.writeShortBytes(prevMsgHash)
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        sndMsgId = try reader.readInt64()
        prevMsgHash = try reader.readShortBytes()
    }
}

/// The message between two agents of a connection (`AMessage`, smp.md §4.3 e). Queue rotation (`QADD` … `QTEST`)
/// and re-synchronisation (`EREADY`) are read and written here; what the agent does with them is its own choice.
public enum AMessage: Equatable, Sendable, BinaryCodable {
    /// `"H"`: the first message of older peers' handshakes.
    case hello
    /// `"M" ‖ Tail(body)`: the chat's message.
    case msg([UInt8])
    /// `"V" ‖ NonEmpty receipt`: delivery receipts.
    case rcvd([AMessageReceipt])
    /// `"QC" ‖ server ‖ len1(senderId)`: the queue drained after a QUOTA; the peer may send again.
    case qcont(SndQueueAddress)
    /// `"QA" ‖ NonEmpty (SMPQueueUri ‖ Maybe replaced queue)`.
    case qadd([QueueAddition])
    /// `"QK" ‖ NonEmpty (SMPQueueInfo ‖ len1 SPKI sender key)`.
    case qkey([QueueKey])
    /// `"QU" ‖ NonEmpty (queue address ‖ Bool primary)`.
    case quse([QueueUse])
    /// `"QT" ‖ NonEmpty queue address`.
    case qtest([SndQueueAddress])
    /// `"E" ‖ i64be`: re-synchronisation finished; the last sndMsgId the peer decrypted.
    case eready(lastDecryptedSndMsgId: Int64)

    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) {
        switch self {
        case .hello: writer.writeByte(UInt8(ascii: "H"))
        case .msg(let body):
            writer.writeByte(UInt8(ascii: "M"))
            writer.writeBytes(body)
        case .rcvd(let receipts):
            writer.writeByte(UInt8(ascii: "V"))
            try receipts.encode(to: &writer)
        case .qcont(let address):
            writer.writeBytes(Array("QC".utf8))
            try address.encode(to: &writer)
        case .qadd(let queues):
            writer.writeBytes(Array("QA".utf8))
            try queues.encode(to: &writer)
        case .qkey(let queues):
            writer.writeBytes(Array("QK".utf8))
            try queues.encode(to: &writer)
        case .quse(let queues):
            writer.writeBytes(Array("QU".utf8))
            try queues.encode(to: &writer)
        case .qtest(let queues):
            writer.writeBytes(Array("QT".utf8))
            try queues.encode(to: &writer)
        case .eready(let id):
            writer.writeByte(UInt8(ascii: "E"))
            writer.writeInt64(id)
        }
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        switch try reader.readByte() {
        case UInt8(ascii: "H"): self = .hello
        case UInt8(ascii: "M"): self = .msg(reader.readRest())
        case UInt8(ascii: "V"):
            self = .rcvd(
                try readNonEmpty(&reader) { (r: inout ByteReader) throws(BinaryDecodingError) in try AMessageReceipt(from: &r) })
        case UInt8(ascii: "E"): self = .eready(lastDecryptedSndMsgId: try reader.readInt64())
        case UInt8(ascii: "Q"):
            switch try reader.readByte() {
            case UInt8(ascii: "C"): self = .qcont(try SndQueueAddress(from: &reader))
            case UInt8(ascii: "A"):
                self = .qadd(
                    try readNonEmpty(&reader) { (r: inout ByteReader) throws(BinaryDecodingError) in try QueueAddition(from: &r) }
                )
            case UInt8(ascii: "K"):
                self = .qkey(
                    try readNonEmpty(&reader) { (r: inout ByteReader) throws(BinaryDecodingError) in try QueueKey(from: &r) })
            case UInt8(ascii: "U"):
                self = .quse(
                    try readNonEmpty(&reader) { (r: inout ByteReader) throws(BinaryDecodingError) in try QueueUse(from: &r) })
            case UInt8(ascii: "T"):
                self = .qtest(
                    try readNonEmpty(&reader) { (r: inout ByteReader) throws(BinaryDecodingError) in try SndQueueAddress(from: &r)
                    })
            case let b: throw .invalidTag(b, expected: "QC, QA, QK, QU or QT")
            }
        case let b: throw .invalidTag(b, expected: "H, M, V, Q… or E")
        }
    }
}

/// One delivery receipt (`AMessageReceipt`, smp.md §4.9): `i64be(agentMsgId) ‖ len1(msgHash) ‖ len2(rcptInfo)`, the id
/// being the peer's sndMsgId of the received message and the hash SHA-256 of its plaintext.
public struct AMessageReceipt: Equatable, Sendable, BinaryCodable {
    public var agentMsgId: Int64
    public var msgHash: [UInt8]
    public var rcptInfo: [UInt8]

    public init(agentMsgId: Int64, msgHash: [UInt8], rcptInfo: [UInt8] = []) {
        self.agentMsgId = agentMsgId
        self.msgHash = msgHash
        self.rcptInfo = rcptInfo
    }

    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) {
        writer.writeInt64(agentMsgId)
        try writer.writeShortBytes(msgHash)
        try writer.writeLargeBytes(rcptInfo)
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        agentMsgId = try reader.readInt64()
        msgHash = try reader.readShortBytes()
        rcptInfo = try reader.readLargeBytes()
    }
}

/// A queue as its sender knows it (`SndQAddr`): the server and the sender id, `server ‖ len1(senderId)`.
public struct SndQueueAddress: Hashable, Sendable, BinaryCodable {
    public var server: SMPServer
    public var senderId: EntityId

    public init(server: SMPServer, senderId: EntityId) {
        self.server = server
        self.senderId = senderId
    }

    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) {
        try server.encode(to: &writer)
        try writer.writeShortBytes(senderId.bytes)
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        server = try SMPServer(from: &reader)
        senderId = EntityId(try reader.readShortBytes())
    }
}

/// A queue offered in `QADD`, with the queue it replaces if any.
public struct QueueAddition: Equatable, Sendable, BinaryCodable {
    public var queue: SMPQueueURI
    public var replaced: SndQueueAddress?

    public init(queue: SMPQueueURI, replaced: SndQueueAddress?) {
        self.queue = queue
        self.replaced = replaced
    }

    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) {
        try queue.encode(to: &writer)
        try replaced.encode(to: &writer)
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        queue = try SMPQueueURI(from: &reader)
        replaced = try SndQueueAddress?(from: &reader)
    }
}

/// A queue and the sender key to secure it with, in `QKEY`.
public struct QueueKey: Equatable, Sendable, BinaryCodable {
    public var queue: SMPQueueInfo
    public var senderKey: AuthPublicKey

    public init(queue: SMPQueueInfo, senderKey: AuthPublicKey) {
        self.queue = queue
        self.senderKey = senderKey
    }

    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) {
        try queue.encode(to: &writer)
        try writer.writeShortBytes(senderKey.spki)
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        queue = try SMPQueueInfo(from: &reader)
        senderKey = try readAuthKey(&reader)
    }
}

/// A queue ready for use, and whether it becomes the primary one, in `QUSE`.
public struct QueueUse: Equatable, Sendable, BinaryCodable {
    public var queue: SndQueueAddress
    public var primary: Bool

    public init(queue: SndQueueAddress, primary: Bool) {
        self.queue = queue
        self.primary = primary
    }

    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) {
        try queue.encode(to: &writer)
        primary.encode(to: &writer)
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        queue = try SndQueueAddress(from: &reader)
        primary = try Bool(from: &reader)
    }
}

/// `NonEmpty a`: a one-byte count of at least one, then the elements.
func readNonEmpty<T>(_ reader: inout ByteReader, _ element: (inout ByteReader) throws(BinaryDecodingError) -> T)
    throws(BinaryDecodingError) -> [T]
{
    let n = Int(try reader.readByte())
    guard n > 0 else { throw .malformed("an empty list where one element at least is required") }
    var out: [T] = []
    out.reserveCapacity(n)
    for _ in 0..<n { out.append(try element(&reader)) }
    return out
}
