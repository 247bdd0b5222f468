import SMP
import SMPTestServer
import SimplexCrypto
import SimplexEncoding
import XCTest

/// Ids and keys from a counter, so every run is the same.
struct CountingEntropy: ServerEntropy {
    var counter: UInt8 = 0
    mutating func bytes(_ count: Int) -> [UInt8] {
        counter &+= 1
        return [UInt8](repeating: counter, count: count)
    }
}

/// A client connection as the tests drive it: transmissions encoded and signed as a client does, responses read
/// with the client's decoder.
struct TestClient {
    let id: ConnectionId
    let parameters: TransportParameters
}

/// A recipient's view of a queue it created.
struct TestQueue {
    let recipientId: EntityId
    let senderId: EntityId
    let recipientKey: Ed25519.PrivateKey
    let secret: X25519.SharedSecret
}

/// The server state with a clock and counting entropy; every step returns what each connection received.
struct Harness {
    var state: ServerState
    var entropy = CountingEntropy()
    var now: Int64 = 1_800_000_000
    var records: [StoreRecord] = []
    private var corr: UInt8 = 0
    private var clients: [ConnectionId: TransportParameters] = [:]

    init(limits: ServerLimits = ServerLimits()) { state = ServerState(limits: limits) }

    mutating func connect(_ n: UInt64, version: UInt16 = SMPVersion.current) -> TestClient {
        let p = TransportParameters(version: version, sessionId: SessionId([UInt8](repeating: UInt8(n), count: 32)))
        state.connect(ConnectionId(n), parameters: p)
        clients[ConnectionId(n)] = p
        return TestClient(id: ConnectionId(n), parameters: p)
    }

    mutating func nextCorrId() -> CorrId {
        corr &+= 1
        return CorrId([UInt8](repeating: corr, count: 24))
    }

    /// One block of commands from `client`; the transmissions each connection received, decoded.
    mutating func block(
        _ client: TestClient, _ commands: [(EntityId, SMPCommand, Ed25519.PrivateKey?)]
    ) throws -> [ConnectionId: [SMPTransmission<SMPBrokerMessage>]] {
        var ts: [[UInt8]] = []
        for (entity, command, key) in commands {
            ts.append(
                try Transmissions.encodeCommand(
                    corrId: nextCorrId(), entityId: entity, command: command, parameters: client.parameters, signedWith: key))
        }
        return try deliver(state.receive(ts, from: client.id, now: now, entropy: &entropy))
    }

    /// Raw transmission bytes from `client`.
    mutating func raw(_ client: TestClient, _ ts: [[UInt8]]) throws -> [ConnectionId: [SMPTransmission<SMPBrokerMessage>]] {
        try deliver(state.receive(ts, from: client.id, now: now, entropy: &entropy))
    }

    mutating func deliver(_ out: ServerOutput) throws -> [ConnectionId: [SMPTransmission<SMPBrokerMessage>]] {
        records += out.records
        var result: [ConnectionId: [SMPTransmission<SMPBrokerMessage>]] = [:]
        for d in out.deliveries {
            XCTAssertNil(result[d.connection], "one delivery per connection")
            result[d.connection] = d.transmissions.map {
                Transmissions.decodeResponse($0, parameters: clients[d.connection] ?? client0)
            }
        }
        return result
    }

    private let client0 = TransportParameters(version: SMPVersion.current, sessionId: SessionId([]))

    /// One command's single response on the same connection.
    mutating func request(
        _ client: TestClient, _ entity: EntityId, _ command: SMPCommand, _ key: Ed25519.PrivateKey?
    ) throws -> SMPBrokerMessage {
        let out = try block(client, [(entity, command, key)])
        let mine = try XCTUnwrap(out[client.id])
        XCTAssertEqual(mine.count, 1, "\(mine.map { $0.response?.tag ?? "error" })")
        return try mine[0].message.get()
    }

    mutating func create(
        _ client: TestClient, subscribe: Bool = true, mode: QueueRequestData? = .messaging(nil), password: BasicAuth? = nil
    ) throws -> TestQueue {
        let key = Ed25519.PrivateKey()
        let dh = X25519.PrivateKey()
        let request = NewQueueRequest(
            recipientAuthKey: .ed25519(key.publicKey), recipientDhKey: dh.publicKey, basicAuth: password,
            subscriptionMode: subscribe ? .subscribe : .onlyCreate, queueRequestData: mode)
        guard case .ids(let ids) = try self.request(client, .empty, .new(request), key) else {
            throw Unexpected("NEW was refused")
        }
        return TestQueue(
            recipientId: ids.recipientId, senderId: ids.senderId, recipientKey: key,
            secret: try dh.sharedSecret(with: ids.serverDhKey))
    }
}

extension SMPTransmission where Message == SMPBrokerMessage {
    var response: SMPBrokerMessage? { try? message.get() }
}

/// The content of a MSG for `q`.
func open(_ m: SMPBrokerMessage?, _ q: TestQueue) throws -> (MsgId, ReceivedMessageContent) {
    guard case .msg(let received) = m else { throw Unexpected("not a MSG: \(String(describing: m))") }
    return (received.msgId, try received.open(secret: q.secret))
}

func body(_ content: ReceivedMessageContent) -> [UInt8]? {
    if case .message(_, _, let b) = content { return b }
    return nil
}

struct Unexpected: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
