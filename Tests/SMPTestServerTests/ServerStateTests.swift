import SMP
import SMPTestServer
import SimplexCrypto
import SimplexEncoding
import XCTest

/// The server behaviour of smp.md §3.8 with bytes: transmissions in as a client encodes them, responses out as a
/// client decodes them.
final class ServerStateTests: XCTestCase {
    let flags = MessageFlags(notification: true)

    func testKeyThenSendGetAckAndEmptyGet() throws {
        var h = Harness()
        let c = h.connect(1)
        let q = try h.create(c, subscribe: false)
        let sender = Ed25519.PrivateKey()
        XCTAssertEqual(try h.request(c, q.recipientId, .key(.ed25519(sender.publicKey)), q.recipientKey), .ok)
        XCTAssertEqual(try h.request(c, q.senderId, .send(flags: flags, body: Array("hi".utf8)), sender), .ok)
        let (id, content) = try open(h.request(c, q.recipientId, .get, q.recipientKey), q)
        XCTAssertEqual(content, .message(timestamp: h.now, flags: flags, body: Array("hi".utf8)))
        // The message stays until ACK: a second GET returns it again.
        XCTAssertEqual(try open(h.request(c, q.recipientId, .get, q.recipientKey), q).0, id)
        XCTAssertEqual(try h.request(c, q.recipientId, .ack(id), q.recipientKey), .ok)
        XCTAssertEqual(try h.request(c, q.recipientId, .get, q.recipientKey), .ok)
        XCTAssertEqual(try h.request(c, q.recipientId, .ack(id), q.recipientKey), .err(.noMsg))
    }

    func testSubscriberGetsOneMessageAtATimeAndAckAnswersWithTheNext() throws {
        var h = Harness()
        let r = h.connect(1)
        let s = h.connect(2)
        let q = try h.create(r)
        let sender = Ed25519.PrivateKey()
        XCTAssertEqual(try h.request(s, q.senderId, .skey(.ed25519(sender.publicKey)), sender), .ok)
        // The first SEND is pushed to the idle subscriber as an event; the second waits for the ACK.
        let first = try h.block(s, [(q.senderId, .send(flags: flags, body: [1]), sender)])
        XCTAssertEqual(first[s.id]?.map(\.response), [.ok])
        let event = try XCTUnwrap(first[r.id]?.first)
        XCTAssertEqual(event.corrId, .empty)
        XCTAssertEqual(event.entityId, q.recipientId)
        let (m1, c1) = try open(event.response, q)
        XCTAssertEqual(body(c1), [1])
        let second = try h.block(s, [(q.senderId, .send(flags: flags, body: [2]), sender)])
        XCTAssertNil(second[r.id], "one message in flight")
        // ACK's response is the next message, with the ACK's correlation id.
        let ack = try h.block(r, [(q.recipientId, .ack(m1), q.recipientKey)])
        let next = try XCTUnwrap(ack[r.id]?.first)
        XCTAssertFalse(next.corrId.isEmpty)
        let (m2, c2) = try open(next.response, q)
        XCTAssertEqual(body(c2), [2])
        XCTAssertEqual(try h.request(r, q.recipientId, .ack(m2), q.recipientKey), .ok)
    }

    func testSecondSubscriberTakesOverAndTheFirstGetsEnd() throws {
        var h = Harness()
        let a = h.connect(1)
        let b = h.connect(2)
        let q = try h.create(a, subscribe: false)
        XCTAssertEqual(try h.request(a, q.senderId, .send(flags: flags, body: [7]), nil), .ok)
        XCTAssertEqual(try h.block(a, [(q.recipientId, .sub, q.recipientKey)])[a.id]?.count, 2, "SOK, MSG")
        // SUB and PING in one block: the responses, then the MSG event, in one delivery (SOK, PONG, MSG).
        let out = try h.block(b, [(q.recipientId, .sub, q.recipientKey), (.empty, .ping, nil)])
        let mine = try XCTUnwrap(out[b.id])
        XCTAssertEqual(mine.count, 3)
        XCTAssertEqual(mine[0].response, .sok(serviceId: nil))
        XCTAssertEqual(mine[1].response, .pong)
        XCTAssertEqual(body(try open(mine[2].response, q).1), [7])
        XCTAssertEqual(out[a.id]?.map(\.response), [.end])
        XCTAssertEqual(out[a.id]?.first?.entityId, q.recipientId)
        // The replaced connection's ACK finds nothing delivered to it.
        XCTAssertEqual(try h.request(a, q.recipientId, .ack(MsgId([])), q.recipientKey), .err(.noMsg))
        // A repeated SUB on the same connection delivers the un-ACKed message again, and sends no END.
        let again = try h.block(b, [(q.recipientId, .sub, q.recipientKey)])
        XCTAssertEqual(again.count, 1)
        XCTAssertEqual(again[b.id]?.count, 2)
    }

    func testSubscribeOkBelowVersion16AndEndForDeletionBelowVersion10() throws {
        var h = Harness()
        let old = h.connect(1, version: 9)
        let new = h.connect(2)
        let q = try h.create(new, subscribe: false)
        XCTAssertEqual(try h.request(old, q.recipientId, .sub, q.recipientKey), .ok)
        let out = try h.block(new, [(q.recipientId, .del, q.recipientKey)])
        XCTAssertEqual(out[new.id]?.map(\.response), [.ok])
        XCTAssertEqual(out[old.id]?.map(\.response), [.end])
        let q2 = try h.create(h.connect(3), subscribe: true)
        let deleter = h.connect(4)
        XCTAssertEqual(try h.block(deleter, [(q2.recipientId, .del, q2.recipientKey)])[ConnectionId(3)]?.map(\.response), [.deld])
    }

    func testGetAndSubscribeDoNotMixOnOneConnection() throws {
        var h = Harness()
        let c = h.connect(1)
        let q = try h.create(c, subscribe: false)
        XCTAssertEqual(try h.request(c, q.recipientId, .get, q.recipientKey), .ok)
        XCTAssertEqual(try h.request(c, q.recipientId, .sub, q.recipientKey), .err(.cmd(.prohibited)))
        let q2 = try h.create(c, subscribe: true)
        XCTAssertEqual(try h.request(c, q2.recipientId, .get, q2.recipientKey), .err(.cmd(.prohibited)))
    }

    func testQuotaMarkerStopsSendingUntilTheQueueIsEmpty() throws {
        var h = Harness(limits: ServerLimits(quota: 2))
        let c = h.connect(1)
        let q = try h.create(c, subscribe: false)
        for b in [UInt8(1), 2] { XCTAssertEqual(try h.request(c, q.senderId, .send(flags: flags, body: [b]), nil), .ok) }
        XCTAssertEqual(try h.request(c, q.senderId, .send(flags: flags, body: [3]), nil), .err(.quota))
        XCTAssertEqual(try h.request(c, q.senderId, .send(flags: flags, body: [4]), nil), .err(.quota))
        XCTAssertEqual(h.state.store.queue(recipientId: q.recipientId)?.messages.count, 3)
        var seen: [ReceivedMessageContent] = []
        while case .msg = try h.request(c, q.recipientId, .get, q.recipientKey) {
            let (id, content) = try open(h.request(c, q.recipientId, .get, q.recipientKey), q)
            seen.append(content)
            XCTAssertEqual(try h.request(c, q.recipientId, .ack(id), q.recipientKey), .ok)
            if seen.count < 3 {
                XCTAssertEqual(try h.request(c, q.senderId, .send(flags: flags, body: [9]), nil), .err(.quota))
            }
        }
        XCTAssertEqual(seen.map(body), [[1], [2], nil])
        XCTAssertEqual(seen.last, .quota(timestamp: h.now))
        XCTAssertEqual(try h.request(c, q.senderId, .send(flags: flags, body: [5]), nil), .ok)
    }

    func testErrorCodesAndWhenEachIsSent() throws {
        var h = Harness()
        let c = h.connect(1)
        let q = try h.create(c, subscribe: false)
        let contact = try h.create(c, subscribe: false, mode: .contact(nil))
        let sender = Ed25519.PrivateKey()
        let stranger = Ed25519.PrivateKey()
        // Credentials (checkCredentials, §3.2).
        XCTAssertEqual(try h.request(c, q.recipientId, .sub, nil), .err(.cmd(.noAuth)))
        XCTAssertEqual(try h.request(c, .empty, .send(flags: flags, body: []), nil), .err(.cmd(.noEntity)))
        XCTAssertEqual(try h.request(c, q.recipientId, .ping, nil), .err(.cmd(.hasAuth)))
        // Keys and queues.
        XCTAssertEqual(try h.request(c, q.recipientId, .sub, stranger), .err(.auth))
        XCTAssertEqual(try h.request(c, EntityId([9, 9]), .sub, q.recipientKey), .err(.auth))
        XCTAssertEqual(try h.request(c, q.senderId, .send(flags: flags, body: [1]), sender), .err(.auth))
        XCTAssertEqual(try h.request(c, contact.senderId, .skey(.ed25519(sender.publicKey)), sender), .err(.auth))
        XCTAssertEqual(try h.request(c, q.senderId, .skey(.ed25519(sender.publicKey)), sender), .ok)
        XCTAssertEqual(try h.request(c, q.senderId, .skey(.ed25519(sender.publicKey)), sender), .ok, "idempotent")
        XCTAssertEqual(try h.request(c, q.recipientId, .key(.ed25519(stranger.publicKey)), q.recipientKey), .err(.auth))
        XCTAssertEqual(try h.request(c, q.senderId, .send(flags: flags, body: [1]), nil), .err(.auth))
        XCTAssertEqual(try h.request(c, q.senderId, .send(flags: flags, body: [1]), stranger), .err(.auth))
        let large = [UInt8](repeating: 0, count: SMPVersion.maxMessageLength(SMPVersion.current) + 1)
        XCTAssertEqual(try h.request(c, q.senderId, .send(flags: flags, body: large), sender), .err(.largeMsg))
        XCTAssertEqual(try h.request(c, q.recipientId, .ack(MsgId([1])), q.recipientKey), .err(.noMsg))
        XCTAssertEqual(try h.request(c, q.recipientId, .lget, nil), .err(.cmd(.prohibited)))
        XCTAssertEqual(try h.request(c, q.recipientId, .off, q.recipientKey), .ok)
        XCTAssertEqual(try h.request(c, q.senderId, .send(flags: flags, body: [1]), sender), .err(.auth))
        // Unknown command and unparsable transmission.
        XCTAssertEqual(try h.request(c, .empty, .ping, nil), .pong)
        let unknown = try h.raw(c, [[0, 1, 7, 0] + Array("HELLO".utf8)])[c.id]?.first
        XCTAssertEqual(unknown?.response, .err(.cmd(.unknown)))
        XCTAssertEqual(unknown?.corrId, CorrId([7]))
        let garbage = try h.raw(c, [[5, 0x61, 0x62]])[c.id]?.first
        XCTAssertEqual(garbage?.response, .err(.block))
        XCTAssertEqual(garbage?.corrId, .empty)
        XCTAssertEqual(try h.deliver(h.state.receiveUnparsableBatch(from: c.id))[c.id]?.first?.response, .err(.block))
        // A deleted queue is unknown.
        XCTAssertEqual(try h.request(c, q.recipientId, .del, q.recipientKey), .ok)
        XCTAssertEqual(try h.request(c, q.recipientId, .del, q.recipientKey), .err(.auth))
    }

    func testBasicAuthAndQueueLimitRefuseNew() throws {
        let password = try BasicAuth("secret")
        var h = Harness(limits: ServerLimits(maxQueues: 1, password: password))
        let c = h.connect(1)
        XCTAssertThrowsError(try h.create(c))
        XCTAssertThrowsError(try h.create(c, password: try BasicAuth("wrong")))
        _ = try h.create(c, password: password)
        let key = Ed25519.PrivateKey()
        let request = NewQueueRequest(
            recipientAuthKey: .ed25519(key.publicKey), recipientDhKey: X25519.PrivateKey().publicKey, basicAuth: password,
            queueRequestData: .messaging(nil))
        XCTAssertEqual(try h.request(c, .empty, .new(request), key), .err(.store("queue limit")))
        // NEW signed by another key than the one it carries.
        var h2 = Harness()
        let c2 = h2.connect(1)
        let r2 = NewQueueRequest(
            recipientAuthKey: .ed25519(key.publicKey), recipientDhKey: X25519.PrivateKey().publicKey,
            queueRequestData: .messaging(nil))
        XCTAssertEqual(try h2.request(c2, .empty, .new(r2), Ed25519.PrivateKey()), .err(.auth))
    }

    func testClosedConnectionEndsItsSubscriptionsSilently() throws {
        var h = Harness()
        let a = h.connect(1)
        let q = try h.create(a)
        h.state.disconnect(a.id)
        let b = h.connect(2)
        let out = try h.block(b, [(q.recipientId, .sub, q.recipientKey)])
        XCTAssertEqual(Array(out.keys), [b.id])
        XCTAssertEqual(h.state.connectionCount, 1)
    }

    func testRecordsReplayedGiveTheSameStore() throws {
        var h = Harness(limits: ServerLimits(quota: 1))
        let c = h.connect(1)
        let q = try h.create(c, subscribe: false)
        let sender = Ed25519.PrivateKey()
        XCTAssertEqual(try h.request(c, q.recipientId, .key(.ed25519(sender.publicKey)), q.recipientKey), .ok)
        for b in [UInt8(1), 2] { _ = try h.request(c, q.senderId, .send(flags: flags, body: [b]), sender) }
        let (id, _) = try open(h.request(c, q.recipientId, .get, q.recipientKey), q)
        XCTAssertEqual(try h.request(c, q.recipientId, .ack(id), q.recipientKey), .ok)
        let gone = try h.create(c)
        XCTAssertEqual(try h.request(c, gone.recipientId, .del, gone.recipientKey), .ok)
        var replayed = QueueStore()
        for r in h.records { replayed.apply(try StoreRecord(decoding: r.encoded())) }
        var fromSnapshot = QueueStore()
        for r in h.state.store.snapshot { fromSnapshot.apply(r) }
        for store in [replayed, fromSnapshot] {
            XCTAssertEqual(store.count, 1)
            let r = try XCTUnwrap(store.queue(recipientId: q.recipientId))
            XCTAssertEqual(r.senderKey, .ed25519(sender.publicKey))
            XCTAssertEqual(r.messages, h.state.store.queue(recipientId: q.recipientId)?.messages)
            XCTAssertEqual(r.messages.count, 1, "the quota marker is left")
            XCTAssertFalse(r.acceptsMessages)
            XCTAssertEqual(store.queue(senderId: q.senderId)?.recipientId, q.recipientId)
        }
        // A server restarted from those records still serves the queue.
        var restarted = ServerState(store: replayed)
        restarted.connect(ConnectionId(5), parameters: h.connect(5).parameters)
        var entropy = CountingEntropy(counter: 200)
        let t = try Transmissions.encodeCommand(
            corrId: CorrId([1]), entityId: q.recipientId, command: .get, parameters: h.connect(5).parameters,
            signedWith: q.recipientKey)
        let out = restarted.receive([t], from: ConnectionId(5), now: 0, entropy: &entropy)
        let got = Transmissions.decodeResponse(out.deliveries[0].transmissions[0], parameters: h.connect(5).parameters)
        XCTAssertEqual(try open(got.response, q).1, .quota(timestamp: h.now))
    }
}
