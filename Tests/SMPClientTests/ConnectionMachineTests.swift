import SMP
import SMPClient
import SimplexCrypto
import SimplexEncoding
import XCTest

/// The server end of a connection, made from the SMP module's server-side encodings, so the machine is tested with
/// the bytes a server sends (smp.md §2.4–§2.6, §3.1).
struct ServerEnd {
    let authority: CertificateAuthority
    let leaf: TLSCredential
    let dhKey = X25519.PrivateKey()
    let sessionId = SessionId(SecureRandom.bytes(32))
    var range = SMPVersion.supported
    var framing = BlockFraming(encryption: nil)
    var parameters: TransportParameters?

    init() throws {
        authority = try CertificateAuthority.generate(now: 1_767_225_600, hoursBefore: 1)
        leaf = try authority.issueLeaf(now: 1_767_225_600)
    }

    var keyHash: KeyHash { KeyHash(authority.certificate.fingerprint) }

    func facts(negotiatedProtocol: Bool = true) -> SMPTransportFacts {
        SMPTransportFacts(sessionId: sessionId, negotiatedProtocol: negotiatedProtocol, serverLeaf: leaf.chain[0])
    }

    func hello(signedWith signer: Ed25519.PrivateKey? = nil, chain: [Certificate]? = nil, sessionId: SessionId? = nil) throws
        -> [UInt8]
    {
        let signed = SignedServerKey.sign(dhKey.publicKey, with: signer ?? leaf.leafKey)
        return try ServerHello(
            versionRange: range, sessionId: sessionId ?? self.sessionId,
            authKey: CertChainPublicKey(certificates: chain ?? leaf.chain, signedKey: signed)
        ).block()
    }

    /// Reads the client hello and sets up the server's framing.
    mutating func accept(_ block: [UInt8]) throws -> ClientHello {
        let hello = try ClientHello(block: block)
        parameters = TransportParameters(version: hello.version, sessionId: sessionId)
        if hello.version >= SMPVersion.encryptedBlock, let key = hello.authKey {
            framing = BlockFraming(encryption: .server(sessionId: sessionId, secret: try dhKey.sharedSecret(with: key)))
        }
        return hello
    }

    /// The client's transmissions in `bytes` (whole blocks).
    mutating func read(_ bytes: [UInt8]) throws -> [SMPTransmission<AuthorizedCommand>] {
        let p = try XCTUnwrap(parameters)
        var out: [SMPTransmission<AuthorizedCommand>] = []
        for i in stride(from: 0, to: bytes.count, by: SMPLimits.blockSize) {
            let block = Array(bytes[i..<i + SMPLimits.blockSize])
            for t in try framing.openTransmissions(block) { out.append(Transmissions.decodeCommand(t, parameters: p)) }
        }
        return out
    }

    /// One block with these responses.
    mutating func block(_ responses: [(CorrId, EntityId, SMPBrokerMessage)]) throws -> [UInt8] {
        let p = try XCTUnwrap(parameters)
        let ts = try responses.map {
            try Transmissions.encodeResponse(corrId: $0.0, entityId: $0.1, message: $0.2, parameters: p)
        }
        return try framing.seal(TransmissionBatch.encode(ts))
    }
}

extension [SMPConnectionMachine.Action] {
    var written: [UInt8] {
        var out: [UInt8] = []
        for case .write(let bytes) in self { out += bytes }
        return out
    }

    var responses: [(CorrId, Result<SMPBrokerMessage, SMPClientError>)] {
        compactMap { if case .response(let c, let r) = $0 { (c, r) } else { nil } }
    }

    var events: [(EntityId, SMPConnectionMachine.SMPServerEvent)] {
        compactMap { if case .event(let e, let v) = $0 { (e, v) } else { nil } }
    }

    var failure: SMPClientError? {
        for case .failed(let e) in self { return e }
        return nil
    }
}

final class ConnectionMachineTests: XCTestCase {
    /// A machine and a server end with the handshake done at v18 with block encryption.
    private func established() throws -> (SMPConnectionMachine, ServerEnd) {
        var server = try ServerEnd()
        var machine = SMPConnectionMachine(keyHash: server.keyHash, facts: server.facts(), now: 0)
        let actions = machine.receive(try server.hello(), now: 0)
        let hello = try server.accept(actions.written)
        XCTAssertEqual(hello.version, 18)
        return (machine, server)
    }

    /// The handshake (smp.md §2.4): the server hello is read in pieces, the client hello is the 82-byte v18 hello
    /// with the address's key hash and a fresh X25519 key, and a request made before it goes out after it,
    /// encrypted (§2.6) and signed over the implied session id (§3.1).
    func testHandshakeThenQueuedRequestSignedAndEncrypted() throws {
        var server = try ServerEnd()
        let dhKey = X25519.PrivateKey()
        var machine = SMPConnectionMachine(keyHash: server.keyHash, facts: server.facts(), dhKey: dhKey, now: 0)
        let recipientKey = Ed25519.PrivateKey()
        let new = SMPCommand.new(
            NewQueueRequest(
                recipientAuthKey: .ed25519(recipientKey.publicKey), recipientDhKey: X25519.PrivateKey().publicKey,
                subscriptionMode: .onlyCreate, queueRequestData: .messaging(nil)))
        let request = SMPRequest(entityId: .empty, command: new, key: recipientKey)
        XCTAssertTrue(machine.send([request], now: 0).isEmpty)
        let hello = try server.hello()
        var actions: [SMPConnectionMachine.Action] = []
        for i in stride(from: 0, to: hello.count, by: 1000) {
            actions += machine.receive(Array(hello[i..<min(i + 1000, hello.count)]), now: 0)
        }
        guard case .write(let helloBlock) = actions.first, case .connected(let p, let encrypted) = actions[1] else {
            return XCTFail("\(actions)")
        }
        XCTAssertEqual(p, TransportParameters(version: 18, sessionId: server.sessionId))
        XCTAssertTrue(encrypted)
        XCTAssertEqual(helloBlock.count, 16384)
        // 00 12 | 20 <fingerprint> | 2c <X25519 SPKI> | F | 0 (no service)
        let prefix = Array(helloBlock[2..<84])
        XCTAssertEqual(Array(helloBlock[0..<2]), [0, 82])
        XCTAssertEqual(prefix, [0, 18, 32] + server.keyHash.bytes + [44] + dhKey.publicKey.spki + Array("F0".utf8))
        let clientHello = try server.accept(helloBlock)
        XCTAssertEqual(clientHello.authKey, dhKey.publicKey)
        let received = try server.read(Array(actions.written.dropFirst(16384)))
        XCTAssertEqual(received.count, 1)
        let t = try XCTUnwrap(received.first)
        XCTAssertEqual(t.corrId, request.corrId)
        XCTAssertEqual(try t.message.get().command, new)
        XCTAssertTrue(try t.message.get().isAuthorized(by: .ed25519(recipientKey.publicKey)))

        let ids = QueueIdsKeys(
            recipientId: EntityId([1]), senderId: EntityId([2]), serverDhKey: X25519.PrivateKey().publicKey, queueMode: .messaging
        )
        let answer = machine.receive(try server.block([(request.corrId, .empty, .ids(ids))]), now: 1)
        XCTAssertEqual(answer.responses.count, 1)
        XCTAssertEqual(answer.responses.first?.0, request.corrId)
        XCTAssertEqual(try answer.responses.first?.1.get(), .ids(ids))
        XCTAssertEqual(machine.pendingCount, 0)
    }

    /// A block batching a response and events (smp.md §2.5, §3.8): `SOK` for a `SUB`, then its `MSG`; `END` takes the
    /// queue out of the table; events for queues not in it are dropped.
    func testBatchedResponseAndEventsRoutedBySubscription() throws {
        var (machine, server) = try established()
        let queue = EntityId(Array(repeating: 7, count: 24))
        let sub = SMPRequest(entityId: queue, command: .sub, key: Ed25519.PrivateKey())
        let sent = try server.read(machine.send([sub], now: 1).written)
        XCTAssertEqual(try sent.first?.message.get().command, .sub)
        XCTAssertEqual(machine.subscriptions, [queue])
        let message = ReceivedMessage(msgId: MsgId(Array(repeating: 1, count: 24)), encryptedBody: [1, 2, 3])
        let stranger = EntityId([9])
        let actions = machine.receive(
            try server.block([
                (sub.corrId, queue, .sok(serviceId: nil)), (.empty, queue, .msg(message)), (.empty, stranger, .msg(message)),
            ]), now: 2)
        XCTAssertEqual(actions.responses.map(\.0), [sub.corrId])
        XCTAssertEqual(try actions.responses.first?.1.get(), .sok(serviceId: nil))
        XCTAssertEqual(actions.events.map(\.0), [queue])
        XCTAssertEqual(actions.events.first?.1, .message(message))

        let end = machine.receive(try server.block([(.empty, queue, .end)]), now: 3)
        XCTAssertEqual(end.events.map(\.1), [.end])
        XCTAssertTrue(machine.subscriptions.isEmpty)
        XCTAssertTrue(machine.receive(try server.block([(.empty, queue, .msg(message))]), now: 4).isEmpty)
    }

    /// `ERR` is the request's failure with its code; a failed `SUB` leaves the table; a response for another
    /// entity is unexpected.
    func testServerErrorsAndUnexpectedResponses() throws {
        var (machine, server) = try established()
        let queue = EntityId([5])
        let sub = SMPRequest(entityId: queue, command: .sub, key: Ed25519.PrivateKey())
        let get = SMPRequest(entityId: queue, command: .get, key: Ed25519.PrivateKey())
        _ = try server.read(machine.send([sub, get], now: 1).written)
        let actions = machine.receive(
            try server.block([(sub.corrId, queue, .err(.auth)), (get.corrId, EntityId([6]), .ok)]), now: 2)
        XCTAssertEqual(actions.responses.count, 2)
        XCTAssertEqual(actions.responses[0].1, .failure(.server(.auth)))
        XCTAssertEqual(actions.responses[1].1, .failure(.unexpectedResponse("OK for another entity")))
        XCTAssertTrue(machine.subscriptions.isEmpty)
    }

    /// Version negotiation (smp.md §2.4): without ALPN only version 6 is offered, with plain blocks; no common
    /// version fails with `VERSION`.
    func testVersionNegotiation() throws {
        var server = try ServerEnd()
        server.range = try VersionRange(min: 6, max: 6)
        var machine = SMPConnectionMachine(keyHash: server.keyHash, facts: server.facts(negotiatedProtocol: false), now: 0)
        let actions = machine.receive(try server.hello(), now: 0)
        guard case .connected(let p, let encrypted) = actions[1] else { return XCTFail("\(actions)") }
        XCTAssertEqual(p.version, 6)
        XCTAssertFalse(encrypted)
        XCTAssertEqual(try server.accept(actions.written).version, 6)
        // At v6 the session id is sent in every transmission (smp.md §3.1) and checked by the server.
        let ping = SMPRequest(entityId: .empty, command: .ping, key: nil)
        XCTAssertEqual(try server.read(machine.send([ping], now: 1).written).first?.message.get().command, .ping)
        XCTAssertEqual(
            try machine.receive(server.block([(ping.corrId, .empty, .pong)]), now: 1).responses.first?.1, .success(.pong))

        var newer = try ServerEnd()
        newer.range = try VersionRange(min: 19, max: 20)
        var refused = SMPConnectionMachine(keyHash: newer.keyHash, facts: newer.facts(), now: 0)
        XCTAssertEqual(refused.receive(try newer.hello(), now: 0).failure, .transport(.version))
    }

    /// The server hello's checks (smp.md §2.3, §2.4): its session id, the identity certificate the address names,
    /// and the DH key signed by the TLS leaf.
    func testServerHelloChecks() throws {
        let server = try ServerEnd()
        let other = try ServerEnd()
        func failure(_ hello: [UInt8]) -> SMPClientError? {
            var machine = SMPConnectionMachine(keyHash: server.keyHash, facts: server.facts(), now: 0)
            return machine.receive(hello, now: 0).failure
        }
        XCTAssertNil(failure(try server.hello()))
        XCTAssertEqual(failure(try server.hello(sessionId: SessionId(SecureRandom.bytes(32)))), .transport(.session))
        XCTAssertEqual(failure(try server.hello(chain: other.leaf.chain)), .transport(.handshake(.identity)))
        XCTAssertEqual(failure(try server.hello(signedWith: Ed25519.PrivateKey())), .transport(.handshake(.badAuth)))
        XCTAssertEqual(failure([UInt8](repeating: 0xff, count: 16384)), .transport(.handshake(.parse)))
    }

    /// Timeouts and keep-alive (smp.md §2.7): a request times out; with a subscription an idle connection sends
    /// `PING`, whose `PONG` is not reported; consecutive timeouts drop the connection, failing what is pending.
    func testTimeoutsAndKeepAlive() throws {
        var (machine, server) = try established()
        let timing = machine.timing
        let get = SMPRequest(entityId: EntityId([1]), command: .get, key: Ed25519.PrivateKey())
        _ = try server.read(machine.send([get], now: 0).written)
        XCTAssertTrue(machine.tick(now: timing.responseTimeout - 1).isEmpty)
        let timedOut = machine.tick(now: timing.responseTimeout)
        XCTAssertEqual(timedOut.responses.first?.1, .failure(.timeout))
        XCTAssertNil(timedOut.failure)

        let queue = EntityId([2])
        let sub = SMPRequest(entityId: queue, command: .sub, key: Ed25519.PrivateKey())
        _ = try server.read(machine.send([sub], now: 20).written)
        _ = machine.receive(try server.block([(sub.corrId, queue, .sok(serviceId: nil))]), now: 20)
        XCTAssertTrue(machine.tick(now: 20 + timing.pingInterval - 1).isEmpty)
        let ping = try server.read(machine.tick(now: 20 + timing.pingInterval).written)
        XCTAssertEqual(try ping.first?.message.get().command, .ping)
        let pong = try XCTUnwrap(ping.first?.corrId)
        XCTAssertTrue(machine.receive(try server.block([(pong, .empty, .pong)]), now: 621).isEmpty)

        let late = SMPRequest(entityId: queue, command: .ack(MsgId([1])), key: Ed25519.PrivateKey())
        let more = SMPRequest(entityId: queue, command: .ack(MsgId([2])), key: Ed25519.PrivateKey())
        let third = SMPRequest(entityId: queue, command: .ack(MsgId([3])), key: Ed25519.PrivateKey())
        _ = machine.send([late, more, third], now: 700)
        let dropped = machine.tick(now: 700 + timing.responseTimeout)
        XCTAssertEqual(Set(dropped.responses.map(\.0)), [late.corrId, more.corrId, third.corrId])
        XCTAssertEqual(dropped.failure, .timeout)
        XCTAssertEqual(machine.send([late], now: 800).responses.first?.1, .failure(.connectionLost))
    }

    /// A block that does not decrypt closes the connection (smp.md §2.5), failing every pending request; a block
    /// delivered a byte at a time is read whole.
    func testBadBlockFailsPendingRequests() throws {
        var (machine, server) = try established()
        let get = SMPRequest(entityId: EntityId([1]), command: .get, key: Ed25519.PrivateKey())
        _ = try server.read(machine.send([get], now: 0).written)
        let ok = try server.block([(get.corrId, EntityId([1]), .ok)])
        var actions: [SMPConnectionMachine.Action] = []
        for b in ok { actions += machine.receive([b], now: 1) }
        XCTAssertEqual(actions.responses.first?.1, .success(.ok))

        _ = machine.send([get], now: 2)
        let garbage = machine.receive([UInt8](repeating: 0x42, count: 16384), now: 3)
        XCTAssertEqual(garbage.responses.first?.1, .failure(.transport(.largeMsg)))
        XCTAssertEqual(garbage.failure, .transport(.largeMsg))
        XCTAssertTrue(machine.receive(ok, now: 4).isEmpty)
    }

    /// `MSG` bodies opened with the queue's secret (smp.md §3.7): a message, the QUOTA marker, and one that does
    /// not open, which is still a message to acknowledge.
    func testMessagesOpenedWithTheQueueSecret() throws {
        let recipient = X25519.PrivateKey()
        let server = X25519.PrivateKey()
        let secret = try recipient.sharedSecret(with: server.publicKey)
        let id = MsgId(SecureRandom.bytes(24))
        let sent = ReceivedMessageContent.message(
            timestamp: 1_767_225_600, flags: MessageFlags(notification: true), body: [1, 2])
        let message = SMPMessage(try ReceivedMessage.seal(sent, msgId: id, secret: secret), secret: secret)
        XCTAssertEqual(message.msgId, id)
        XCTAssertEqual(message.content, .success(sent))
        XCTAssertEqual(message.body, [1, 2])
        XCTAssertFalse(message.isQuota)
        let quota = SMPMessage(try ReceivedMessage.seal(.quota(timestamp: 5), msgId: id, secret: secret), secret: secret)
        XCTAssertTrue(quota.isQuota)
        XCTAssertNil(quota.body)
        let other = try X25519.PrivateKey().sharedSecret(with: server.publicKey)
        let wrong = SMPMessage(try ReceivedMessage.seal(sent, msgId: id, secret: secret), secret: other)
        XCTAssertEqual(wrong.content, .failure(.decryption))
        XCTAssertEqual(wrong.msgId, id)
    }
}
