import ChatStore
import Foundation
import Ratchet
import SMP
import SMPAgent
import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

/// Restarts, rollbacks, migrations, a store of a thousand connections, and serialised access.
final class AgentStoreDurabilityTests: XCTestCase {
    private var folder: StoreFolder!

    override func setUpWithError() throws { folder = try StoreFolder() }
    override func tearDown() { folder = nil }

    private func count(_ db: SQLiteDatabase, _ table: String) throws -> Int64? {
        try db.query("SELECT count(*) FROM \(table)").first?.first?.integer
    }

    func testEverythingSurvivesClosingAndReopeningTheFiles() throws {
        let (joiner, _) = try Fixture.ratchetPair()
        var databases = try folder.open()
        var store = AgentStore(databases.agent)
        let invitation = try store.createConnection(
            .invitation(rcvQueue: Fixture.rcvQueue(), x3dhKeys: Fixture.x3dhKeys(), agentVersion: 7), now: Fixture.now)
        let duplex = try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(joiner)), now: Fixture.now)
        let address = try store.createConnection(
            .contactAddress(rcvQueue: Fixture.rcvQueue(server: 3, mode: .contact), agentVersion: 7), now: Fixture.now)
        let request = try store.createAddressRequest(
            address.id, invitationLink: "simplex:/invitation#/?v=2-7", connInfo: [1], now: Fixture.now)
        let sent = try store.enqueueSend(
            duplex.id, queue: duplex.sndQueues[0].id, kind: .message, notification: true, now: Fixture.now,
            prepare: Fixture.plain("hello"))
        let received = try store.receive(
            duplex.id, queue: duplex.rcvQueues[0].id, serverMsgId: MsgId([7]), serverTimestamp: 5,
            ciphertextHash: MessageHash(of: [7]), now: Fixture.now
        ) { _ in
            ProcessedReceive(kind: .message, sndMsgId: 1, hash: MessageHash(of: [1]), integrity: .ok, ratchet: nil)
        }
        let hk = try RatchetHeaderKey(rawRepresentation: SecureRandom.bytes(32))
        let skipped = SkippedMessageKey(
            headerKey: hk, number: 4, messageKey: try RatchetMessageKey(key: SecureRandom.bytes(32), iv: SecureRandom.bytes(16)))
        try store.updateRatchet(duplex.id, StoredRatchet(joiner), skipped: .added([skipped]))
        let before = try [invitation.id, duplex.id, address.id].map { try store.connection($0) }
        let subscriptions = try store.subscriptions()

        databases.close()
        XCTAssertNotNil(thrown { try store.connection(duplex.id) }, "a closed store fails instead of answering")
        databases = try folder.open()
        store = AgentStore(databases.agent)
        XCTAssertEqual(try [invitation.id, duplex.id, address.id].map { try store.connection($0) }, before)
        XCTAssertEqual(try store.subscriptions(), subscriptions)
        XCTAssertEqual(try store.addressRequest(request.invitationId), request)
        XCTAssertEqual(try store.nextPendingSend(duplex.sndQueues[0].id), sent)
        guard case .stored(let message) = received else { return XCTFail("stored") }
        XCTAssertEqual(try store.receivedMessage(duplex.id, message.internalId), message)
        XCTAssertEqual(try store.skippedKeys(duplex.id), SkippedMessageKeys([skipped]))
        XCTAssertEqual(try store.rcvQueue(duplex.rcvQueues[0].id).unackedMsgId, MsgId([7]))
        XCTAssertEqual(try store.ratchet(duplex.id)?.state().encoded(), joiner.encoded())
        databases.close()
    }

    // MARK: Rollback

    func testAFailureMidwayLeavesNothingBehind() throws {
        let databases = try folder.open()
        defer { databases.close() }
        let store = AgentStore(databases.agent)
        let conn = try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(bytes: [1])), now: Fixture.now)
        let before = try store.connection(conn.id)

        // The connection row is written before its queue, whose insert fails: no connection is left.
        let taken = Fixture.rcvQueue()
        try store.createConnection(.contactAddress(rcvQueue: taken, agentVersion: 7), now: Fixture.now)
        var clash = NewConnection.contactAddress(rcvQueue: taken, agentVersion: 7)
        clash.id = AgentConnId(Array("clash".utf8))
        XCTAssertNotNil(thrown { try store.createConnection(clash, now: Fixture.now) })
        XCTAssertEqual(thrown { try store.connection(clash.id!) } as? AgentStoreError, .connectionNotFound(clash.id!))

        // The counters, the hash and the ratchet are written before the message row, which names another
        // connection's queue and so is refused: all of it is rolled back.
        let stranger = try store.createConnection(
            Fixture.duplex(ratchet: StoredRatchet(bytes: [2]), sndServer: 3), now: Fixture.now)
        XCTAssertEqual(
            thrown {
                try store.enqueueSend(conn.id, queue: stranger.sndQueues[0].id, kind: .message, notification: true, now: 0) { _ in
                    PreparedSend(agentMessage: [1], encryptKey: [2], ratchet: StoredRatchet(bytes: [9]))
                }
            } as? AgentStoreError, .queueNotFound("send queue \(stranger.sndQueues[0].id.value) of connection \(conn.id)"))
        XCTAssertEqual(try store.connection(conn.id), before)

        // The caller's own step fails after its reads: nothing changes.
        XCTAssertEqual(
            thrown {
                try store.enqueueSend(conn.id, queue: conn.sndQueues[0].id, kind: .message, notification: true, now: 0) {
                    (_) throws(AgentStoreError) -> PreparedSend in throw .step("message too large")
                }
            } as? AgentStoreError, .step("message too large"))
        XCTAssertEqual(try store.connection(conn.id), before)

        // A receive whose queue belongs to another connection: the ids, the ratchet, the skipped keys and the
        // ciphertext hash written before the message row are rolled back.
        let hk = try RatchetHeaderKey(rawRepresentation: SecureRandom.bytes(32))
        let key = try RatchetMessageKey(key: SecureRandom.bytes(32), iv: SecureRandom.bytes(16))
        XCTAssertNotNil(
            thrown {
                try store.receive(
                    conn.id, queue: stranger.rcvQueues[0].id, serverMsgId: MsgId([1]), serverTimestamp: 0,
                    ciphertextHash: MessageHash(of: [1]), now: 0
                ) { _ in
                    ProcessedReceive(
                        kind: .message, sndMsgId: 1, hash: MessageHash(of: [1]), integrity: .ok,
                        ratchet: StoredRatchet(bytes: [8]),
                        skippedKeys: .added([SkippedMessageKey(headerKey: hk, number: 0, messageKey: key)]))
                }
            })
        XCTAssertEqual(try store.connection(conn.id), before)
        XCTAssertEqual(try store.skippedKeys(conn.id).count, 0)
        XCTAssertFalse(try store.isDuplicate(conn.id, ciphertextHash: MessageHash(of: [1])))

        // Several operations made one: a failure in the third undoes the first two.
        XCTAssertNotNil(
            thrown {
                try store.atomically { () throws(AgentStoreError) in
                    try store.setConnectionStatus(conn.id, .deleted, step: .connected)
                    try store.enqueueSend(
                        conn.id, queue: conn.sndQueues[0].id, kind: .message, notification: true, now: 0,
                        prepare: Fixture.plain("no"))
                    try store.setSndQueueStatus(SndQueueId(12345), .active)
                }
            })
        XCTAssertEqual(try store.connection(conn.id), before)
        XCTAssertNil(try store.nextPendingSend(conn.sndQueues[0].id))
        XCTAssertEqual(try count(databases.agent, "snd_messages"), 0)
    }

    func testASealedAgentStore() throws {
        let key = try XCTUnwrap(DatabaseKey("agent store passphrase", cost: .minimum))
        var databases = try ChatDatabases(prefix: folder.prefix, key: key, confirmation: .yesUp)
        let conn = try AgentStore(databases.agent).createConnection(
            Fixture.duplex(ratchet: StoredRatchet(bytes: [1])), now: Fixture.now)
        databases.close()
        let file = try Data(contentsOf: URL(fileURLWithPath: ChatDatabases.files(prefix: folder.prefix).agent))
        XCTAssertNil(file.range(of: Data(conn.rcvQueues[0].recipientAuthKey.seed)), "no key in the clear")
        XCTAssertNotNil(thrown { try ChatDatabases(prefix: self.folder.prefix, confirmation: .yesUp) })
        databases = try ChatDatabases(prefix: folder.prefix, key: key, confirmation: .yesUp)
        XCTAssertEqual(try AgentStore(databases.agent).connection(conn.id), conn)
        databases.close()
    }

    // MARK: Migrations

    func testMigrationsUpAndDown() throws {
        let path = folder.url.appendingPathComponent("agent.db").path
        let db = try SQLiteDatabase(path: path)
        XCTAssertEqual(try Migrator.migrate(db, to: Migration.agent, confirmation: .yesUp), Migration.agent.map(\.name))
        let tables = [
            "servers", "connections", "rcv_queues", "snd_queues", "skipped_message_keys", "snd_messages", "rcv_messages",
            "rcv_ciphertext_hashes", "address_requests",
        ]
        func present() throws -> [String] {
            try db.query("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0.first?.text }.filter {
                tables.contains($0)
            }.sorted()
        }
        XCTAssertEqual(try present(), tables.sorted())
        XCTAssertEqual(try db.query("PRAGMA foreign_key_check"), [])
        let store = AgentStore(db)
        try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(bytes: [1])), now: Fixture.now)

        // Back to the first agent migration: this store's tables go, the first migration's table stays.
        let initOnly = Array(Migration.agent.prefix(1))
        XCTAssertEqual(
            thrown { try Migrator.migrate(db, to: initOnly, confirmation: .yesUp) } as? MigrationError,
            .downgrade(Migration.agent.dropFirst().reversed().map(\.name)))
        XCTAssertEqual(
            try Migrator.migrate(db, to: initOnly, confirmation: .yesUpDown), Migration.agent.dropFirst().reversed().map(\.name))
        XCTAssertEqual(try present(), [])
        XCTAssertEqual(try db.query("SELECT count(*) FROM agent_info").first?.first, .integer(0))
        XCTAssertEqual(
            try Migrator.migrate(db, to: Migration.agent, confirmation: .yesUp), Migration.agent.dropFirst().map(\.name))
        XCTAssertEqual(try present(), tables.sorted())
        XCTAssertEqual(try AgentStore(db).connectionIds(), [])
    }

    func testStoredValuesThatDoNotDecodeAreErrorsNotTraps() throws {
        let databases = try folder.open()
        defer { databases.close() }
        let store = AgentStore(databases.agent)
        let conn = try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(bytes: [1])), now: Fixture.now)
        try databases.agent.run("UPDATE rcv_queues SET rcv_auth_key = x'0102'")
        XCTAssertEqual(
            thrown { try store.connection(conn.id) } as? AgentStoreError, .invalidStoredValue("Ed25519 seed of 2 bytes, not 32"))
        try databases.agent.execute("PRAGMA ignore_check_constraints = ON")
        try databases.agent.run("UPDATE connections SET status = 'lost'")
        XCTAssertEqual(
            thrown { try store.connection(conn.id) } as? AgentStoreError, .invalidStoredValue("status 'lost' is unknown"))
        try databases.agent.run("UPDATE connections SET status = 'duplex', agent_version = 70000")
        XCTAssertEqual(
            thrown { try store.connection(conn.id) } as? AgentStoreError,
            .invalidStoredValue("agent version 70000 is out of range"))
        try databases.agent.run(
            "UPDATE servers SET address = 'smp://nonsense' WHERE server_id = (SELECT min(server_id) FROM servers)")
        XCTAssertNotNil(thrown { try store.subscriptions() } as? AgentStoreError)
        for bytes: [UInt8] in [[], [1], [9, 9]] {
            guard case .invalidStoredValue = thrown({ try StoredRatchet(bytes: bytes).state() }) as? AgentStoreError else {
                return XCTFail("ratchet of \(bytes.count) bytes")
            }
        }
    }

    // MARK: Serialised access

    func testTheActorSerialisesConcurrentSends() async throws {
        let prefix = folder.prefix
        let actor = AgentStoreActor(try ChatDatabases(prefix: prefix, confirmation: .yesUp))
        let conn = try await actor.transaction { (store) throws(AgentStoreError) in
            try store.createConnection(Fixture.duplex(ratchet: StoredRatchet(bytes: [1])), now: Fixture.now)
        }
        let queue = conn.sndQueues[0].id
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<50 {
                group.addTask {
                    _ = try await actor.read { (store) throws(AgentStoreError) in
                        try store.enqueueSend(
                            conn.id, queue: queue, kind: .message, notification: true, now: Fixture.now,
                            prepare: Fixture.plain("m\(i)"))
                    }
                }
            }
            try await group.waitForAll()
        }
        let ids = try await actor.read { (store) throws(AgentStoreError) in
            var ids: [UInt64] = []
            while let m = try store.nextPendingSend(queue) {
                ids.append(m.sndMsgId)
                try store.markSent(conn.id, m.internalId)
            }
            return ids
        }
        XCTAssertEqual(ids, Array(1...50))
        await actor.close()
        do {
            _ = try await actor.read { (store) throws(AgentStoreError) in try store.connectionIds() }
            XCTFail("a closed store answers")
        } catch {}
        try await actor.reopen()
        let count = try await actor.read { (store) throws(AgentStoreError) in try store.connectionIds().count }
        XCTAssertEqual(count, 1)

        let path = folder.url.appendingPathComponent("alone_agent.db").path
        let alone = try AgentStoreActor(path: path)
        let none = try await alone.read { (store) throws(AgentStoreError) in try store.connectionIds() }
        XCTAssertEqual(none, [])
    }

    // MARK: Scale

    /// A thousand duplex connections: the file's size and the time `/_start` takes to load what it subscribes.
    func testAThousandConnections() throws {
        let (joiner, _) = try Fixture.ratchetPair()
        let ratchet = StoredRatchet(joiner)
        var databases = try folder.open()
        var store = AgentStore(databases.agent)
        let created = ContinuousClock.now
        try store.atomically { () throws(AgentStoreError) in
            for n in 0..<1000 {
                try store.createConnection(
                    Fixture.duplex(ratchet: ratchet, rcvServer: 1 + n % 4, sndServer: 5 + n % 4), now: Fixture.now)
            }
        }
        let creation = ContinuousClock.now - created
        databases.close()

        let opened = ContinuousClock.now
        databases = try folder.open()
        store = AgentStore(databases.agent)
        let subscriptions = try store.subscriptions()
        let loading = ContinuousClock.now - opened
        let ids = try store.connectionIds()
        let loadedAll = ContinuousClock.now
        let connections = try ids.map { try store.connection($0) }
        let fullLoad = ContinuousClock.now - loadedAll
        XCTAssertEqual(subscriptions.count, 4)
        XCTAssertEqual(subscriptions.map(\.queues.count), [250, 250, 250, 250])
        XCTAssertEqual(connections.count, 1000)
        XCTAssertTrue(connections.allSatisfy { $0.rcvQueues.count == 1 && $0.sndQueues.count == 1 })
        databases.close()
        let bytes = folder.agentFileBytes()
        print(
            """
            agent store, 1,000 duplex connections (2 queues and a \(ratchet.bytes.count)-byte ratchet each): \
            \(bytes / 1024) KiB on disk (\(bytes / 1000) bytes per connection); created in one transaction in \
            \(creation); open + load all subscriptions for /_start: \(loading); load every connection with its \
            queues one by one: \(fullLoad)
            """)
    }
}
