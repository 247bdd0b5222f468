import ChatStore
import Ratchet
import SMP
import SMPAgent
import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

final class AgentStoreTests: XCTestCase {
    private var folder: StoreFolder!
    private var databases: ChatDatabases!
    private var store: AgentStore!

    override func setUpWithError() throws {
        folder = try StoreFolder()
        databases = try folder.open()
        store = AgentStore(databases.agent)
    }

    override func tearDown() {
        databases?.close()
        folder = nil
    }

    private func restart() throws {
        databases.close()
        databases = try folder.open()
        store = AgentStore(databases.agent)
    }

    // MARK: Connections

    func testInvitationConnectionKeepsItsKeysUntilTheRatchetIsMade() throws {
        let queue = Fixture.rcvQueue()
        let keys = Fixture.x3dhKeys()
        let made = try store.createConnection(.invitation(rcvQueue: queue, x3dhKeys: keys, agentVersion: 7), now: Fixture.now)
        XCTAssertEqual(made.id.bytes.count, 16, "base64url of 12 random bytes")
        XCTAssertEqual(made.mode, .invitation)
        XCTAssertEqual(made.status, .new)
        XCTAssertEqual(made.step, .invitationCreated)
        XCTAssertEqual(made.agentVersion, 7)
        XCTAssertEqual(made.x3dhKeys, keys)
        XCTAssertNil(made.ratchet)
        XCTAssertEqual(made.sndQueues, [])
        let q = try XCTUnwrap(made.rcvQueues.first)
        XCTAssertEqual(q.server, queue.server)
        XCTAssertEqual(q.recipientId, queue.recipientId)
        XCTAssertEqual(q.senderId, queue.senderId)
        XCTAssertEqual(q.recipientAuthKey, queue.recipientAuthKey)
        XCTAssertEqual(q.recipientDHKey, queue.recipientDHKey)
        XCTAssertEqual(q.serverDHSecret, queue.serverDHSecret)
        XCTAssertEqual(q.e2eDHKey, queue.e2eDHKey)
        XCTAssertNil(q.e2eDHSecret)
        XCTAssertEqual(q.status, .new)
        XCTAssertEqual(q.subscribeMode, .subscribe)
        // The stored keys make working keys again.
        XCTAssertEqual(try q.recipientAuthKey.privateKey().publicKey, try queue.recipientAuthKey.privateKey().publicKey)
        XCTAssertEqual(try keys.key1.privateKey().publicKey, try made.x3dhKeys?.key1.privateKey().publicKey)

        let (_, initiator) = try Fixture.ratchetPair()
        try store.setRatchet(made.id, StoredRatchet(initiator), clearingX3DHKeys: true)
        try store.setConnectionStatus(made.id, .confirmed, step: .confirmationReceived)
        try store.setAgentVersion(made.id, 6)
        let after = try store.connection(made.id)
        XCTAssertNil(after.x3dhKeys)
        XCTAssertEqual(after.ratchet, StoredRatchet(initiator))
        XCTAssertEqual(try after.ratchet?.state().encoded(), initiator.encoded())
        XCTAssertEqual(after.status, .confirmed)
        XCTAssertEqual(after.step, .confirmationReceived)
        XCTAssertEqual(after.agentVersion, 6)
        XCTAssertEqual(try store.connectionIds(), [made.id])
    }

    func testJoiningConnectionThenItsReplyQueue() throws {
        let (joiner, _) = try Fixture.ratchetPair()
        let snd = Fixture.sndQueue()
        let conn = try store.createConnection(
            .joining(sndQueue: snd, ratchet: StoredRatchet(joiner), agentVersion: 7), now: Fixture.now)
        XCTAssertEqual(conn.status, .joined)
        XCTAssertEqual(conn.step, .joinStarted)
        let s = try XCTUnwrap(conn.sndQueues.first)
        XCTAssertEqual(s.senderId, snd.senderId)
        XCTAssertEqual(s.senderAuthKey, snd.senderAuthKey)
        XCTAssertEqual(s.e2eKey, snd.e2eKey)
        XCTAssertEqual(s.e2ePublicKey, snd.e2ePublicKey)
        XCTAssertEqual(s.e2eDHSecret, snd.e2eDHSecret)
        XCTAssertEqual(s.smpClientVersion, 4)
        XCTAssertEqual(s.status, .new)

        try store.setSndQueueStatus(s.id, .secured)
        let reply = try store.addRcvQueue(conn.id, Fixture.rcvQueue(server: 3))
        let secret = Fixture.secret()
        try store.setRcvQueueConfirmed(reply.id, e2eDHSecret: secret, smpClientVersion: 4)
        try store.setRcvQueueStatus(reply.id, .active)
        let after = try store.connection(conn.id)
        XCTAssertEqual(after.sndQueues.map(\.status), [.secured])
        XCTAssertEqual(after.rcvQueues.map(\.e2eDHSecret), [secret])
        XCTAssertEqual(after.rcvQueues.map(\.smpClientVersion), [4])
        XCTAssertEqual(after.rcvQueues.map(\.status), [.active])
        XCTAssertEqual(try store.rcvQueue(server: Fixture.server(3), recipientId: reply.recipientId), after.rcvQueues[0])

        // The initiator adds its send queue when it allows the connection.
        let other = try store.createConnection(
            .invitation(rcvQueue: Fixture.rcvQueue(), x3dhKeys: Fixture.x3dhKeys(), agentVersion: 7), now: Fixture.now)
        let added = try store.addSndQueue(other.id, Fixture.sndQueue(server: 3))
        XCTAssertEqual(try store.sndQueue(added.id), added)
        XCTAssertEqual(try store.connection(other.id).sndQueues, [added])
    }

    func testMissingThingsAreTypedErrors() throws {
        let ghost = AgentConnId(Array("no-such-conn".utf8))
        XCTAssertEqual(thrown { try self.store.connection(ghost) } as? AgentStoreError, .connectionNotFound(ghost))
        XCTAssertEqual(
            thrown { try self.store.setConnectionStatus(ghost, .duplex, step: .connected) } as? AgentStoreError,
            .connectionNotFound(ghost))
        XCTAssertEqual(
            thrown { try self.store.addRcvQueue(ghost, Fixture.rcvQueue()) } as? AgentStoreError, .connectionNotFound(ghost))
        XCTAssertEqual(thrown { try self.store.ratchet(ghost) } as? AgentStoreError, .connectionNotFound(ghost))
        XCTAssertEqual(thrown { try self.store.deleteConnection(ghost) } as? AgentStoreError, .connectionNotFound(ghost))
        XCTAssertEqual(thrown { try self.store.rcvQueue(RcvQueueId(99)) } as? AgentStoreError, .queueNotFound("receive queue 99"))
        XCTAssertEqual(
            thrown { try self.store.setSndQueueStatus(SndQueueId(9), .active) } as? AgentStoreError,
            .queueNotFound("send queue 9"))
        XCTAssertNotNil(
            thrown { try self.store.rcvQueue(server: Fixture.server(1), recipientId: EntityId([1, 2, 3])) } as? AgentStoreError)
        XCTAssertEqual(
            thrown { try self.store.addressRequest(Array("nope".utf8)) } as? AgentStoreError, .requestNotFound("nope"))
        XCTAssertEqual(
            thrown { try StoredEd25519Key(seed: [1, 2, 3]) } as? AgentStoreError,
            .invalidStoredValue("Ed25519 seed of 3 bytes, not 32"))
        XCTAssertNotNil(thrown { try StoredX448Key(rawRepresentation: [UInt8](repeating: 0, count: 32)) })
        XCTAssertNotNil(thrown { try MessageHash(bytes: []) })
    }

    func testDuplicateIdsAndQueuesAreRefused() throws {
        let id = AgentConnId(Array("conn-1".utf8))
        let queue = Fixture.rcvQueue()
        var new = NewConnection.contactAddress(rcvQueue: queue, agentVersion: 7)
        new.id = id
        try store.createConnection(new, now: Fixture.now)
        var again = NewConnection.contactAddress(rcvQueue: Fixture.rcvQueue(), agentVersion: 7)
        again.id = id
        XCTAssertEqual(
            thrown { try self.store.createConnection(again, now: Fixture.now) } as? AgentStoreError, .connectionExists(id))

        let snd = Fixture.sndQueue()
        let joined = try store.createConnection(
            .joining(sndQueue: snd, ratchet: StoredRatchet(bytes: [1]), agentVersion: 7), now: Fixture.now)
        // Joining the same link twice makes a second send queue to the same queue.
        guard
            case .queueExists = thrown({
                try self.store.createConnection(
                    .joining(sndQueue: snd, ratchet: StoredRatchet(bytes: [1]), agentVersion: 7), now: Fixture.now)
            }) as? AgentStoreError
        else { return XCTFail("a second send queue to the same queue") }
        XCTAssertEqual(try store.connectionIds(), [id, joined.id], "the refused connection left nothing")
    }

    func testDeletedConnectionsLeaveSubscriptionsAndDeliveryAndDeleteEverything() throws {
        let (joiner, _) = try Fixture.ratchetPair()
        let conn = try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(joiner)), now: Fixture.now)
        let queue = conn.sndQueues[0].id
        try store.enqueueSend(
            conn.id, queue: queue, kind: .message, notification: true, now: Fixture.now, prepare: Fixture.plain("a"))
        XCTAssertEqual(try store.subscriptions().flatMap(\.queues).count, 1)
        XCTAssertEqual(try store.sndQueuesWithPendingSends(), [queue])

        try store.markConnectionDeleted(conn.id)
        XCTAssertEqual(try store.connection(conn.id).status, .deleted)
        XCTAssertEqual(try store.subscriptions(), [])
        XCTAssertEqual(try store.sndQueuesWithPendingSends(), [])
        XCTAssertNil(try store.nextPendingSend(queue))
        XCTAssertEqual(
            thrown {
                try self.store.enqueueSend(
                    conn.id, queue: queue, kind: .message, notification: true, now: Fixture.now, prepare: Fixture.plain("b"))
            } as? AgentStoreError, .badConnectionState("connection \(conn.id) is deleted"))

        try store.deleteConnection(conn.id)
        XCTAssertEqual(try store.connectionIds(), [])
        for table in ["rcv_queues", "snd_queues", "snd_messages", "skipped_message_keys"] {
            XCTAssertEqual(try databases.agent.query("SELECT count(*) FROM \(table)").first?.first, .integer(0), table)
        }
    }

    // MARK: Subscriptions

    func testSubscriptionsByServerWithoutDisabledQueues() throws {
        var expected: [SMPServer: [EntityId]] = [:]
        for n in 0..<9 {
            let q = Fixture.rcvQueue(server: 1 + n % 3)
            let conn = try store.createConnection(.contactAddress(rcvQueue: q, agentVersion: 7), now: Fixture.now)
            if n == 4 {
                try store.setRcvQueueStatus(conn.rcvQueues[0].id, .disabled)
            } else {
                expected[q.server, default: []].append(q.recipientId)
            }
        }
        let subscriptions = try store.subscriptions()
        XCTAssertEqual(subscriptions.map(\.server), [Fixture.server(1), Fixture.server(2), Fixture.server(3)])
        for s in subscriptions {
            XCTAssertEqual(s.queues.map(\.recipientId), expected[s.server])
            XCTAssertTrue(s.queues.allSatisfy { $0.status == .new })
        }
    }

    // MARK: Sending

    func testPendingSendsAreDeliveredInOrderPerQueue() throws {
        let (joiner, _) = try Fixture.ratchetPair()
        let a = try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(joiner)), now: Fixture.now)
        let b = try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(joiner), sndServer: 3), now: Fixture.now)
        let qa = a.sndQueues[0].id
        let qb = b.sndQueues[0].id
        var sentA: [SentMessage] = []
        for i in 0..<5 {
            sentA.append(
                try store.enqueueSend(
                    a.id, queue: qa, kind: .message, notification: i % 2 == 0, now: Fixture.now + Int64(i),
                    prepare: Fixture.plain("a\(i)")))
            try store.enqueueSend(
                b.id, queue: qb, kind: .message, notification: false, now: Fixture.now, prepare: Fixture.plain("b\(i)"))
        }
        // Ids count up, and each message's prevMsgHash is the previous one's hash.
        XCTAssertEqual(sentA.map(\.sndMsgId), [1, 2, 3, 4, 5])
        XCTAssertEqual(sentA.map(\.internalId.value), [1, 2, 3, 4, 5])
        XCTAssertEqual(sentA[2].hash, MessageHash(of: Array("3 a2".utf8)))
        XCTAssertEqual(sentA.map(\.notification), [true, false, true, false, true])
        XCTAssertEqual(try store.connection(a.id).lastSndHash, sentA[4].hash.bytes)
        var slots: [SendSlot] = []
        try store.enqueueSend(a.id, queue: qa, kind: .receipt, notification: false, now: Fixture.now) { slot in
            slots.append(slot)
            return PreparedSend(agentMessage: [1], encryptKey: nil, ratchet: nil)
        }
        XCTAssertEqual(slots.first?.prevMsgHash, sentA[4].hash.bytes)
        XCTAssertEqual(slots.first?.sndMsgId, 6)
        XCTAssertEqual(try store.sndQueuesWithPendingSends(), [qa, qb])

        // The worker takes the first pending send; a retry keeps it first; a later one waits for it.
        XCTAssertEqual(try store.nextPendingSend(qa)?.agentMessage, Array("1 a0".utf8))
        try store.scheduleRetry(a.id, sentA[0].internalId, nextAttemptAt: Fixture.now + 5000)
        let retried = try XCTUnwrap(try store.nextPendingSend(qa))
        XCTAssertEqual(retried.internalId, sentA[0].internalId)
        XCTAssertEqual(retried.retries, 1)
        XCTAssertEqual(retried.nextAttemptAt, Fixture.now + 5000)
        var delivered: [String] = []
        while let next = try store.nextPendingSend(qa) {
            delivered.append(String(decoding: next.agentMessage ?? [], as: UTF8.self))
            if next.sndMsgId == 3 {
                try store.markFailed(a.id, next.internalId, error: "AUTH")
            } else {
                try store.markSent(a.id, next.internalId)
            }
        }
        XCTAssertEqual(delivered, ["1 a0", "2 a1", "3 a2", "4 a3", "5 a4", "\u{1}"])
        XCTAssertEqual(try store.nextPendingSend(qb)?.agentMessage, Array("1 b0".utf8), "the other queue is untouched")
        let sent = try store.sentMessage(a.id, sndMsgId: 2)
        XCTAssertEqual(sent.delivery, .sent)
        XCTAssertNil(sent.agentMessage, "the body is dropped once the server has it")
        XCTAssertEqual(sent.hash, sentA[1].hash, "the hash stays for the receipt")
        XCTAssertEqual(try store.sentMessage(a.id, sndMsgId: 3).delivery, .failed("AUTH"))
        XCTAssertEqual(try store.sndQueuesWithPendingSends(), [qb])
    }

    func testPruningDropsOnlyMessagesNothingWaitsFor() throws {
        let conn = try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(bytes: [0])), now: Fixture.now)
        let queue = conn.sndQueues[0].id
        let sent = try (0..<3).map { i in
            try store.enqueueSend(
                conn.id, queue: queue, kind: .message, notification: true, now: Fixture.now + Int64(i),
                prepare: Fixture.plain("\(i)"))
        }
        try store.markSent(conn.id, sent[0].internalId)
        try store.markFailed(conn.id, sent[1].internalId, error: "AUTH")
        for n in 0..<2 {
            _ = try store.receive(
                conn.id, queue: conn.rcvQueues[0].id, serverMsgId: MsgId([UInt8(n)]), serverTimestamp: 0,
                ciphertextHash: MessageHash(of: [UInt8(n)]), now: Fixture.now
            ) { slot in
                ProcessedReceive(
                    kind: .message, sndMsgId: slot.lastExternalSndId + 1, hash: MessageHash(of: [UInt8(n)]), integrity: .ok,
                    ratchet: nil)
            }
        }
        try store.markServerAcked(conn.id, InternalMessageId(4))
        let before = try store.connection(conn.id)
        XCTAssertTrue(try store.pruneMessages(before: Fixture.now) == (0, 0))
        XCTAssertTrue(try store.pruneMessages(before: Fixture.now + 10) == (1, 2))
        XCTAssertEqual(try store.nextPendingSend(queue)?.internalId, sent[2].internalId, "a pending send stays")
        XCTAssertEqual(try store.receivedMessage(conn.id, InternalMessageId(5)).ack, .pending, "an un-ACKed one stays")
        XCTAssertNotNil(thrown { try self.store.receivedMessage(conn.id, InternalMessageId(4)) })
        XCTAssertEqual(try store.connection(conn.id), before, "the ids and hashes stay with the connection")
    }

    func testReceiptsAreRecordedOnTheSentMessage() throws {
        let conn = try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(bytes: [0])), now: Fixture.now)
        let m = try store.enqueueSend(
            conn.id, queue: conn.sndQueues[0].id, kind: .message, notification: true, now: Fixture.now,
            prepare: Fixture.plain("x"))
        XCTAssertNil(m.receipt)
        try store.setReceipt(conn.id, sndMsgId: m.sndMsgId, .ok)
        XCTAssertEqual(try store.sentMessage(conn.id, internalId: m.internalId).receipt, .ok)
        try store.setReceipt(conn.id, sndMsgId: m.sndMsgId, .badMsgHash)
        XCTAssertEqual(try store.sentMessage(conn.id, sndMsgId: m.sndMsgId).receipt, .badMsgHash)
        XCTAssertEqual(
            thrown { try self.store.setReceipt(conn.id, sndMsgId: 42, .ok) } as? AgentStoreError,
            .messageNotFound("sndMsgId 42 of \(conn.id)"))
    }

    // MARK: Ratchet through the store

    /// The joiner queues two messages (the ratchet moves and is stored when each is queued), they are sealed at
    /// delivery with the stored key, and the initiator receives the second one first: its skipped key is stored, then
    /// used by the first.
    func testSendsSealedAtDeliveryDecryptThroughTheStore() throws {
        var (joiner, initiator) = try Fixture.ratchetPair()
        let b = try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(joiner)), now: Fixture.now)
        let a = try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(initiator)), now: Fixture.now)
        let queue = b.sndQueues[0].id
        for text in ["first", "second"] {
            try store.enqueueSend(b.id, queue: queue, kind: .message, notification: true, now: Fixture.now) {
                (slot) throws(AgentStoreError) -> PreparedSend in
                guard var state = try slot.ratchet?.state() else { throw .step("no ratchet") }
                let key: MessageEncryptKey
                do { key = try state.encryptHeader() } catch { throw .step("\(error)") }
                return PreparedSend(
                    agentMessage: Array(text.utf8), encryptKey: key.encoded(), ratchet: StoredRatchet(state))
            }
        }
        // What a restart would load and seal.
        try restart()
        var wire: [[UInt8]] = []
        while let pending = try store.nextPendingSend(queue) {
            let key = try MessageEncryptKey(decoding: try XCTUnwrap(pending.encryptKey))
            wire.append(try key.encrypt(try XCTUnwrap(pending.agentMessage), as: .agentMessage))
            try store.markSent(b.id, pending.internalId)
        }
        XCTAssertEqual(wire.count, 2)
        let queued = try store.sentMessage(b.id, sndMsgId: 1)
        XCTAssertNil(queued.encryptKey, "dropped once sent")
        let keyBytes = try MessageEncryptKey(decoding: try joinerKeyForSize()).encoded().count
        print(
            "a pending send keeps its plaintext and a \(keyBytes)-byte message key with its encrypted header; "
                + "sealed, a message is \(wire[0].count) bytes")
        joiner = try XCTUnwrap(try store.ratchet(b.id)).state()

        let rcvQueue = a.rcvQueues[0].id
        func deliver(_ message: [UInt8], serverMsgId: [UInt8]) throws -> ReceiveOutcome {
            try store.receive(
                a.id, queue: rcvQueue, serverMsgId: MsgId(serverMsgId), serverTimestamp: 1_764_633_600,
                ciphertextHash: MessageHash(of: message), now: Fixture.now
            ) { (slot) throws(AgentStoreError) -> ProcessedReceive in
                guard let state = try slot.ratchet?.state() else { throw .step("no ratchet") }
                let decryption: RatchetDecryption
                do { decryption = try state.decrypt(message, skipped: slot.skippedKeys) } catch { throw .step("\(error)") }
                let plaintext = (try? decryption.plaintext.get()) ?? []
                return ProcessedReceive(
                    kind: .message, sndMsgId: slot.lastExternalSndId + 1, hash: MessageHash(of: plaintext), integrity: .ok,
                    ratchet: StoredRatchet(decryption.state), skippedKeys: decryption.skippedKeys)
            }
        }
        guard case .stored(let second) = try deliver(wire[1], serverMsgId: [2]) else { return XCTFail("stored") }
        XCTAssertEqual(second.hash, MessageHash(of: Array("second".utf8)))
        XCTAssertEqual(try store.skippedKeys(a.id).count, 1)
        try restart()
        guard case .stored(let first) = try deliver(wire[0], serverMsgId: [1]) else { return XCTFail("stored") }
        XCTAssertEqual(first.hash, MessageHash(of: Array("first".utf8)))
        XCTAssertEqual(try store.skippedKeys(a.id).count, 0, "the skipped key was used and deleted")
        // The same ciphertext again is a duplicate before any decryption.
        var called = false
        let again = try store.receive(
            a.id, queue: rcvQueue, serverMsgId: MsgId([1]), serverTimestamp: 0, ciphertextHash: MessageHash(of: wire[0]),
            now: Fixture.now
        ) { (_) throws(AgentStoreError) -> ProcessedReceive in
            called = true
            throw .step("not reached")
        }
        guard case .duplicate(let earlier) = again else { return XCTFail("a duplicate") }
        XCTAssertEqual(earlier?.internalId, first.internalId)
        XCTAssertEqual(earlier?.receiveAttempts, 2)
        XCTAssertEqual(earlier?.ack, .pending, "not acknowledged yet: the agent gives it to the chat layer again")
        XCTAssertFalse(called)
        initiator = try XCTUnwrap(try store.ratchet(a.id)).state()
        XCTAssertTrue(initiator.canEncrypt, "the initiator's ratchet stepped and can reply")
        XCTAssertEqual(joiner.sentCount, 2)
    }

    /// The fast duplex handshake's first half as the store sees it (smp.md §4.5): the joiner queues its confirmation
    /// with the ratchet parameters its envelope carries; the initiator makes its ratchet from its stored X3DH keys,
    /// decrypts the confirmation, confirms its queue and moves its step, all in one transaction.
    func testTheInitiatorsConfirmationStepIsOneTransaction() throws {
        let a = E2EPrivateKeys(key1: X448.PrivateKey(), key2: X448.PrivateKey())
        let b = E2EPrivateKeys(key1: X448.PrivateKey(), key2: X448.PrivateKey())
        let versions = RatchetVersions(current: 3)
        let initiator = try store.createConnection(
            .invitation(
                rcvQueue: Fixture.rcvQueue(),
                x3dhKeys: StoredX3DHKeys(key1: StoredX448Key(a.key1), key2: StoredX448Key(a.key2)), agentVersion: 7),
            now: Fixture.now)
        let joinerRatchet = try RatchetState(joining: a.params(), own: b, ratchetKey: X448.PrivateKey(), versions: versions)
        let joiner = try store.createConnection(
            .joining(sndQueue: Fixture.sndQueue(), ratchet: StoredRatchet(joinerRatchet), agentVersion: 7), now: Fixture.now)
        let connInfo = Array("D…x.info".utf8)
        let params = b.key1.publicKey.rawRepresentation + b.key2.publicKey.rawRepresentation
        let confirmation = try store.enqueueSend(
            joiner.id, queue: joiner.sndQueues[0].id, kind: .confirmation, notification: true, now: Fixture.now
        ) { (slot) throws(AgentStoreError) -> PreparedSend in
            XCTAssertEqual(slot.sndMsgId, 1)
            XCTAssertEqual(slot.prevMsgHash, [])
            guard var state = try slot.ratchet?.state() else { throw .step("no ratchet") }
            do {
                let key = try state.encryptHeader()
                return PreparedSend(
                    agentMessage: connInfo, encryptKey: key.encoded(), ratchetParams: params, ratchet: StoredRatchet(state))
            } catch { throw .step("\(error)") }
        }
        let wire = try MessageEncryptKey(decoding: try XCTUnwrap(confirmation.encryptKey)).encrypt(
            try XCTUnwrap(confirmation.agentMessage), as: .connectionInfo)
        let sentParams = try XCTUnwrap(confirmation.ratchetParams)
        try store.markSent(joiner.id, confirmation.internalId)
        try store.setConnectionStatus(joiner.id, .joined, step: .confirmationSent)

        let queue = initiator.rcvQueues[0].id
        let perQueueSecret = Fixture.secret()
        var decrypted: [UInt8]?
        try store.atomically { () throws(AgentStoreError) in
            let outcome = try store.receive(
                initiator.id, queue: queue, serverMsgId: MsgId([1]), serverTimestamp: 0, ciphertextHash: MessageHash(of: wire),
                now: Fixture.now
            ) { (slot) throws(AgentStoreError) -> ProcessedReceive in
                guard slot.ratchet == nil, let keys = slot.x3dhKeys else { throw .step("no X3DH keys") }
                do {
                    let peer = E2ERatchetParams(
                        version: 3, key1: try X448.PublicKey(rawRepresentation: Array(sentParams.prefix(56))),
                        key2: try X448.PublicKey(rawRepresentation: Array(sentParams.suffix(56))))
                    let own = E2EPrivateKeys(key1: try keys.key1.privateKey(), key2: try keys.key2.privateKey())
                    let state = try RatchetState(initiating: own, peer: peer, versions: versions)
                    let decryption = try state.decrypt(wire, skipped: slot.skippedKeys)
                    let plaintext = try decryption.plaintext.get()
                    decrypted = plaintext
                    return ProcessedReceive(
                        kind: .confirmation, sndMsgId: 1, hash: MessageHash(of: plaintext), integrity: .ok,
                        ratchet: StoredRatchet(decryption.state), skippedKeys: decryption.skippedKeys, clearsX3DHKeys: true,
                        ack: .acknowledged)
                } catch { throw .step("\(error)") }
            }
            guard case .stored = outcome else { throw .step("not stored") }
            try store.setRcvQueueConfirmed(queue, e2eDHSecret: perQueueSecret, smpClientVersion: 4)
            try store.setConnectionStatus(initiator.id, .confirmed, step: .confirmationReceived)
        }
        XCTAssertEqual(decrypted, connInfo)
        try restart()
        let after = try store.connection(initiator.id)
        XCTAssertNil(after.x3dhKeys, "the X3DH keys went when the ratchet came")
        XCTAssertTrue(try XCTUnwrap(after.ratchet).state().canEncrypt)
        XCTAssertEqual(after.status, .confirmed)
        XCTAssertEqual(after.step, .confirmationReceived)
        XCTAssertEqual(after.lastExternalSndId, 1)
        XCTAssertEqual(after.lastRcvHash, MessageHash(of: connInfo).bytes)
        XCTAssertEqual(after.rcvQueues[0].status, .confirmed)
        XCTAssertEqual(after.rcvQueues[0].e2eDHSecret, perQueueSecret)
        XCTAssertEqual(try store.connection(joiner.id).lastSndHash, MessageHash(of: connInfo).bytes, "message 2's prevMsgHash")
    }

    private func joinerKeyForSize() throws -> [UInt8] {
        var (joiner, _) = try Fixture.ratchetPair()
        return try joiner.encryptHeader().encoded()
    }

    func testSkippedKeysFollowTheRatchetsChanges() throws {
        let conn = try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(bytes: [0])), now: Fixture.now)
        let hk1 = try RatchetHeaderKey(rawRepresentation: SecureRandom.bytes(32))
        let hk2 = try RatchetHeaderKey(rawRepresentation: SecureRandom.bytes(32))
        let keys = try (0..<3).map { n in
            SkippedMessageKey(
                headerKey: n < 2 ? hk1 : hk2, number: UInt32(n),
                messageKey: try RatchetMessageKey(key: SecureRandom.bytes(32), iv: SecureRandom.bytes(16)))
        }
        try store.updateRatchet(conn.id, StoredRatchet(bytes: [1]), skipped: .added(keys))
        XCTAssertEqual(try store.skippedKeys(conn.id), SkippedMessageKeys(keys))
        try store.updateRatchet(conn.id, StoredRatchet(bytes: [2]), skipped: .used(headerKey: hk1, number: 1))
        var expected = SkippedMessageKeys(keys)
        expected.apply(.used(headerKey: hk1, number: 1))
        XCTAssertEqual(try store.skippedKeys(conn.id), expected)
        XCTAssertEqual(try store.ratchet(conn.id), StoredRatchet(bytes: [2]))
        try store.updateRatchet(conn.id, StoredRatchet(bytes: [3]), skipped: .unchanged)
        XCTAssertEqual(try store.skippedKeys(conn.id).count, 2)
    }

    // MARK: Receiving

    func testReceivedMessagesAckStatesAndUnackedMsgId() throws {
        let conn = try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(bytes: [0])), now: Fixture.now)
        let queue = conn.rcvQueues[0].id
        var slots: [ReceiveSlot] = []
        func receive(_ n: UInt64, integrity: MessageIntegrity = .ok, ack: AckState = .pending) throws -> RcvMessage {
            let outcome = try store.receive(
                conn.id, queue: queue, serverMsgId: MsgId([UInt8(n)]), serverTimestamp: 1000 + Int64(n),
                ciphertextHash: MessageHash(of: [UInt8(n), 0xee]), now: Fixture.now
            ) { slot in
                slots.append(slot)
                return ProcessedReceive(
                    kind: .message, sndMsgId: n, hash: MessageHash(of: [UInt8(n)]), integrity: integrity,
                    ratchet: StoredRatchet(bytes: [UInt8(n)]), ack: ack)
            }
            guard case .stored(let m) = outcome else { throw AgentStoreError.step("duplicate") }
            return m
        }
        let m1 = try receive(1)
        XCTAssertEqual(m1.externalSndId, 1)
        XCTAssertEqual(m1.serverMsgId, MsgId([1]))
        XCTAssertEqual(m1.serverTimestamp, 1001)
        XCTAssertEqual(m1.ack, .pending)
        XCTAssertEqual(try store.rcvQueue(queue).unackedMsgId, MsgId([1]))
        let m3 = try receive(3, integrity: .skipped(from: 2, to: 2))
        XCTAssertEqual(slots.map(\.lastExternalSndId), [0, 1])
        XCTAssertEqual(slots[1].lastRcvHash, MessageHash(of: [1]).bytes)
        XCTAssertEqual(m3.integrity, .skipped(from: 2, to: 2))
        XCTAssertEqual(m3.internalId.value, 2)
        let conn2 = try store.connection(conn.id)
        XCTAssertEqual(conn2.lastExternalSndId, 3)
        XCTAssertEqual(conn2.lastRcvHash, MessageHash(of: [3]).bytes)
        XCTAssertEqual(conn2.ratchet, StoredRatchet(bytes: [3]))

        // Sent and received messages share the connection's internal ids.
        let sent = try store.enqueueSend(
            conn.id, queue: conn.sndQueues[0].id, kind: .receipt, notification: false, now: Fixture.now,
            prepare: Fixture.plain("r"))
        XCTAssertEqual(sent.internalId.value, 3)
        XCTAssertEqual(try receive(4, integrity: .badId(2), ack: .acknowledged).ack, .acknowledged)
        XCTAssertEqual(try store.receivedMessage(conn.id, InternalMessageId(4)).integrity, .badId(2))

        // The chat layer ACKs the first message; the server's ACK clears only its own msgId.
        XCTAssertEqual(try store.acknowledge(conn.id, m1.internalId).ack, .acknowledged)
        try store.markServerAcked(conn.id, m1.internalId)
        XCTAssertEqual(try store.receivedMessage(conn.id, m1.internalId).ack, .serverAcked)
        XCTAssertEqual(try store.rcvQueue(queue).unackedMsgId, MsgId([4]), "a later delivery is still un-ACKed")
        try store.markServerAcked(conn.id, InternalMessageId(4))
        XCTAssertNil(try store.rcvQueue(queue).unackedMsgId)
        XCTAssertEqual(try store.acknowledge(conn.id, m1.internalId).ack, .serverAcked, "acknowledging again changes nothing")
        try store.setUnackedMsgId(queue, MsgId([9]))
        try store.clearUnackedMsgId(queue, MsgId([8]))
        XCTAssertEqual(try store.rcvQueue(queue).unackedMsgId, MsgId([9]))
        try store.clearUnackedMsgId(queue, MsgId([9]))
        XCTAssertNil(try store.rcvQueue(queue).unackedMsgId)
        for integrity: MessageIntegrity in [.ok, .badHash, .duplicate, .badId(7), .skipped(from: 1, to: 9)] {
            let n = UInt64(10 + slots.count)
            XCTAssertEqual(try receive(n, integrity: integrity).integrity, integrity)
        }
    }

    func testDuplicatesAreRecognisedByTheirCiphertextUntilTheirHashesArePruned() throws {
        let conn = try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(bytes: [0])), now: Fixture.now)
        let hash = MessageHash(of: [1, 2, 3])
        XCTAssertFalse(try store.isDuplicate(conn.id, ciphertextHash: hash))
        func deliver() throws -> ReceiveOutcome {
            try store.receive(
                conn.id, queue: conn.rcvQueues[0].id, serverMsgId: MsgId([1]), serverTimestamp: 0, ciphertextHash: hash,
                now: Fixture.now
            ) { slot in
                ProcessedReceive(
                    kind: .hello, sndMsgId: slot.lastExternalSndId + 1, hash: MessageHash(of: [1]), integrity: .ok,
                    ratchet: nil, ack: .acknowledged)
            }
        }
        guard case .stored(let message) = try deliver() else { return XCTFail("stored") }
        XCTAssertEqual(message.receiveAttempts, 1)
        XCTAssertTrue(try store.isDuplicate(conn.id, ciphertextHash: hash))
        try restart()
        XCTAssertTrue(try store.isDuplicate(conn.id, ciphertextHash: hash), "after a restart too")
        guard case .duplicate(let earlier) = try deliver() else { return XCTFail("a duplicate") }
        XCTAssertEqual(earlier?.receiveAttempts, 2)
        XCTAssertEqual(try store.connection(conn.id).lastExternalSndId, 1, "a duplicate changes no ids")

        // Once the message is pruned its hash still recognises it, until the hash is pruned too.
        try store.markServerAcked(conn.id, message.internalId)
        XCTAssertEqual(try store.pruneMessages(before: Fixture.now + 1).received, 1)
        XCTAssertEqual(try deliver(), .duplicate(of: nil))
        let other = try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(bytes: [0])), now: Fixture.now)
        XCTAssertFalse(try store.isDuplicate(other.id, ciphertextHash: hash), "per connection")
        XCTAssertEqual(try store.pruneCiphertextHashes(before: Fixture.now), 0)
        XCTAssertEqual(try store.pruneCiphertextHashes(before: Fixture.now + 1), 1)
        XCTAssertFalse(try store.isDuplicate(conn.id, ciphertextHash: hash))
    }

    // MARK: Address requests

    func testAddressRequestsUntilAcceptedOrRejected() throws {
        let address = try store.createConnection(
            .contactAddress(rcvQueue: Fixture.rcvQueue(mode: .contact), agentVersion: 7), now: Fixture.now)
        let link = "simplex:/invitation#/?v=2-7&smp=..."
        let r1 = try store.createAddressRequest(
            address.id, invitationLink: link, connInfo: Array("{\"v\":1}".utf8), now: Fixture.now)
        let r2 = try store.createAddressRequest(address.id, invitationLink: link + "2", connInfo: [2], now: Fixture.now + 1)
        XCTAssertEqual(try store.addressRequests(address.id), [r1, r2])
        XCTAssertFalse(r1.accepted)
        XCTAssertEqual(r1.invitationLink, link)
        XCTAssertNotEqual(r1.invitationId, r2.invitationId)

        let joining = try store.createConnection(
            .joining(sndQueue: Fixture.sndQueue(), ratchet: StoredRatchet(bytes: [0]), agentVersion: 7), now: Fixture.now)
        try store.acceptAddressRequest(r1.invitationId, ownConnInfo: [7], joinedConnection: joining.id)
        let accepted = try store.addressRequest(r1.invitationId)
        XCTAssertTrue(accepted.accepted)
        XCTAssertEqual(accepted.ownConnInfo, [7])
        XCTAssertEqual(accepted.joinedConnId, joining.id)
        try store.deleteAddressRequest(r2.invitationId)
        XCTAssertEqual(try store.addressRequests(address.id).map(\.invitationId), [r1.invitationId])
        XCTAssertNotNil(thrown { try self.store.deleteAddressRequest(r2.invitationId) } as? AgentStoreError)

        XCTAssertEqual(
            thrown { try self.store.createAddressRequest(joining.id, invitationLink: link, connInfo: [], now: 0) }
                as? AgentStoreError,
            .badConnectionState("connection \(joining.id) is not a contact address"))
        // Deleting the joined connection keeps the request; deleting the address drops it.
        try store.deleteConnection(joining.id)
        XCTAssertNil(try store.addressRequest(r1.invitationId).joinedConnId)
        try store.deleteConnection(address.id)
        XCTAssertEqual(try store.addressRequests(address.id), [])
    }
}
