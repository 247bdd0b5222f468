public import ChatStore
public import Ratchet
public import SMP
public import SimplexCrypto
internal import SimplexEncoding

/// The agent's persistence over the agent database (`<prefix>_agent.db`, migrations `Migration.agent`): connections,
/// their queues and keys, the ratchet and its skipped keys, sent and received messages, address requests.
///
/// Every operation is one transaction: it happens whole or not at all, however many tables it changes. Operations
/// nest (as savepoints), so `atomically` makes one transaction of several. Not thread-safe: `AgentStoreActor`
/// serialises access.
public struct AgentStore {
    let db: SQLiteDatabase

    public init(_ db: SQLiteDatabase) { self.db = db }

    // MARK: Transactions

    /// Runs `body` as one transaction, or as a savepoint inside the caller's: rolled back when it throws.
    @discardableResult
    public func atomically<T>(_ body: () throws(AgentStoreError) -> T) throws(AgentStoreError) -> T {
        try execute("SAVEPOINT agent_store")
        do {
            let result = try body()
            try execute("RELEASE agent_store")
            return result
        } catch {
            try? db.execute("ROLLBACK TO agent_store")
            try? db.execute("RELEASE agent_store")
            throw error
        }
    }

    private func execute(_ sql: String) throws(AgentStoreError) {
        do { try db.execute(sql) } catch { throw .sqlite(error) }
    }

    @discardableResult
    private func run(_ sql: String, _ values: [SQLValue] = []) throws(AgentStoreError) -> Int {
        do { return try db.run(sql, values) } catch { throw .sqlite(error) }
    }

    private func query(_ sql: String, _ values: [SQLValue] = []) throws(AgentStoreError) -> [[SQLValue]] {
        do { return try db.query(sql, values) } catch { throw .sqlite(error) }
    }

    /// Runs an insert whose constraint failure means `duplicate`.
    private func insert(_ sql: String, _ values: [SQLValue], duplicate: AgentStoreError) throws(AgentStoreError) -> Int64 {
        do {
            try db.run(sql, values)
        } catch {
            throw error.isConstraint ? duplicate : .sqlite(error)
        }
        return db.lastInsertRowID
    }

    // MARK: Connections

    /// Creates a connection with its first queue, keys and ratchet.
    @discardableResult
    public func createConnection(_ new: NewConnection, now: Int64) throws(AgentStoreError) -> AgentConnection {
        let id = new.id ?? AgentConnId.random()
        return try atomically { () throws(AgentStoreError) in
            _ = try insert(
                """
                INSERT INTO connections (conn_id, mode, status, handshake_step, agent_version, x3dh_key_1, x3dh_key_2,
                  ratchet, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .blob(id.bytes), .text(new.mode.rawValue), .text(new.status.rawValue), .text(new.step.rawValue),
                    .integer(Int64(new.agentVersion)), .optionalBlob(new.x3dhKeys?.key1.rawRepresentation),
                    .optionalBlob(new.x3dhKeys?.key2.rawRepresentation), .optionalBlob(new.ratchet?.bytes), .integer(now),
                ], duplicate: .connectionExists(id))
            if let q = new.rcvQueue { try insertRcvQueue(id, q) }
            if let q = new.sndQueue { try insertSndQueue(id, q) }
            return try connection(id)
        }
    }

    /// A connection with its queues.
    public func connection(_ id: AgentConnId) throws(AgentStoreError) -> AgentConnection {
        try atomically { () throws(AgentStoreError) in try loadConnection(id) }
    }

    private func loadConnection(_ id: AgentConnId) throws(AgentStoreError) -> AgentConnection {
        let rows = try query(
            """
            SELECT mode, status, handshake_step, agent_version, x3dh_key_1, x3dh_key_2, ratchet, last_internal_id,
              last_snd_id, last_snd_hash, last_external_snd_id, last_rcv_hash
            FROM connections WHERE conn_id = ?
            """, [.blob(id.bytes)])
        guard let row = rows.first else { throw .connectionNotFound(id) }
        var r = RowReader(row)
        var servers = ServerCache()
        let mode = try r.tag(ConnectionMode.self, "mode")
        let status = try r.tag(ConnectionStatus.self, "status")
        let step = try r.tag(HandshakeStep.self, "handshake step")
        let version = try r.version("agent version")
        let key1 = try r.optionalBlob("X3DH key 1")
        let key2 = try r.optionalBlob("X3DH key 2")
        var x3dh: StoredX3DHKeys?
        if let key1, let key2 {
            x3dh = StoredX3DHKeys(
                key1: try StoredX448Key(rawRepresentation: key1), key2: try StoredX448Key(rawRepresentation: key2))
        }
        let ratchet = try r.optionalBlob("ratchet").map(StoredRatchet.init(bytes:))
        return AgentConnection(
            id: id, mode: mode, status: status, step: step, agentVersion: version, x3dhKeys: x3dh, ratchet: ratchet,
            lastInternalId: InternalMessageId(try r.integer("last internal id")), lastSndId: try r.counter("last snd id"),
            lastSndHash: try r.blob("last snd hash"), lastExternalSndId: try r.counter("last external snd id"),
            lastRcvHash: try r.blob("last rcv hash"),
            rcvQueues: try rcvQueues(where: "q.conn_id = ?", [.blob(id.bytes)], &servers),
            sndQueues: try sndQueues(where: "q.conn_id = ?", [.blob(id.bytes)], &servers))
    }

    /// Every connection's id, oldest first.
    public func connectionIds() throws(AgentStoreError) -> [AgentConnId] {
        var ids: [AgentConnId] = []
        for row in try query("SELECT conn_id FROM connections ORDER BY created_at, rowid") {
            var r = RowReader(row)
            ids.append(AgentConnId(try r.blob("conn id")))
        }
        return ids
    }

    private func requireConnection(_ id: AgentConnId, changed: Int) throws(AgentStoreError) {
        if changed == 0 { throw .connectionNotFound(id) }
    }

    public func setConnectionStatus(_ id: AgentConnId, _ status: ConnectionStatus, step: HandshakeStep)
        throws(AgentStoreError)
    {
        try requireConnection(
            id,
            changed: try run(
                "UPDATE connections SET status = ?, handshake_step = ? WHERE conn_id = ?",
                [.text(status.rawValue), .text(step.rawValue), .blob(id.bytes)]))
    }

    /// Records the agreed agent version, or a higher one a peer's message announced.
    public func setAgentVersion(_ id: AgentConnId, _ version: UInt16) throws(AgentStoreError) {
        try requireConnection(
            id,
            changed: try run(
                "UPDATE connections SET agent_version = ? WHERE conn_id = ?", [.integer(Int64(version)), .blob(id.bytes)]))
    }

    /// Stores the connection's ratchet; `clearingX3DHKeys` drops the initiator's X3DH keys, which made it.
    public func setRatchet(_ id: AgentConnId, _ ratchet: StoredRatchet, clearingX3DHKeys: Bool) throws(AgentStoreError) {
        let sql =
            clearingX3DHKeys
            ? "UPDATE connections SET ratchet = ?, x3dh_key_1 = NULL, x3dh_key_2 = NULL WHERE conn_id = ?"
            : "UPDATE connections SET ratchet = ? WHERE conn_id = ?"
        try requireConnection(id, changed: try run(sql, [.blob(ratchet.bytes), .blob(id.bytes)]))
    }

    /// Marks a connection deleted: it is no longer subscribed and its pending sends stop, while its queues are
    /// deleted on the servers.
    public func markConnectionDeleted(_ id: AgentConnId) throws(AgentStoreError) {
        try requireConnection(
            id, changed: try run("UPDATE connections SET status = 'deleted' WHERE conn_id = ?", [.blob(id.bytes)]))
    }

    /// Removes a connection with everything it has.
    public func deleteConnection(_ id: AgentConnId) throws(AgentStoreError) {
        try requireConnection(id, changed: try run("DELETE FROM connections WHERE conn_id = ?", [.blob(id.bytes)]))
    }

    // MARK: Queues

    private func serverId(_ server: SMPServer) throws(AgentStoreError) -> Int64 {
        let address = server.text
        if let row = try query("SELECT server_id FROM servers WHERE address = ?", [.text(address)]).first {
            var r = RowReader(row)
            return try r.integer("server id")
        }
        try run("INSERT INTO servers (address) VALUES (?)", [.text(address)])
        return db.lastInsertRowID
    }

    private static func queueName(_ server: SMPServer, _ id: EntityId) -> String {
        "\(server.host.text) \(Base64.encode(id.bytes))"
    }

    @discardableResult
    private func insertRcvQueue(_ conn: AgentConnId, _ q: NewRcvQueue) throws(AgentStoreError) -> RcvQueueId {
        let rowId = try insert(
            """
            INSERT INTO rcv_queues (conn_id, server_id, rcv_id, snd_id, queue_mode, rcv_auth_key, rcv_dh_key,
              rcv_dh_secret, e2e_dh_key, status, subscribe_mode)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .blob(conn.bytes), .integer(try serverId(q.server)), .blob(q.recipientId.bytes), .blob(q.senderId.bytes),
                .text(q.mode.storedTag), .blob(q.recipientAuthKey.seed), .blob(q.recipientDHKey.rawRepresentation),
                .blob(q.serverDHSecret.rawRepresentation), .blob(q.e2eDHKey.rawRepresentation), .text(q.status.rawValue),
                .text(q.subscribeMode.storedTag),
            ], duplicate: .queueExists(Self.queueName(q.server, q.recipientId)))
        return RcvQueueId(rowId)
    }

    @discardableResult
    private func insertSndQueue(_ conn: AgentConnId, _ q: NewSndQueue) throws(AgentStoreError) -> SndQueueId {
        let rowId = try insert(
            """
            INSERT INTO snd_queues (conn_id, server_id, snd_id, queue_mode, snd_auth_key, e2e_key, e2e_public_key,
              e2e_dh_secret, status, smp_client_version)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .blob(conn.bytes), .integer(try serverId(q.server)), .blob(q.senderId.bytes), .text(q.mode.storedTag),
                .optionalBlob(q.senderAuthKey?.seed), .blob(q.e2eKey.rawRepresentation),
                .blob(q.e2ePublicKey.rawRepresentation), .blob(q.e2eDHSecret.rawRepresentation), .text(q.status.rawValue),
                .integer(Int64(q.smpClientVersion)),
            ], duplicate: .queueExists(Self.queueName(q.server, q.senderId)))
        return SndQueueId(rowId)
    }

    /// Adds a receive queue to a connection (the joiner's reply queue).
    public func addRcvQueue(_ conn: AgentConnId, _ q: NewRcvQueue) throws(AgentStoreError) -> RcvQueue {
        try atomically { () throws(AgentStoreError) in
            _ = try requireConnectionExists(conn)
            let id = try insertRcvQueue(conn, q)
            return try rcvQueue(id)
        }
    }

    /// Adds a send queue to a connection (the initiator's, to the joiner's reply queue).
    public func addSndQueue(_ conn: AgentConnId, _ q: NewSndQueue) throws(AgentStoreError) -> SndQueue {
        try atomically { () throws(AgentStoreError) in
            _ = try requireConnectionExists(conn)
            let id = try insertSndQueue(conn, q)
            return try sndQueue(id)
        }
    }

    private func requireConnectionExists(_ id: AgentConnId) throws(AgentStoreError) -> ConnectionStatus {
        guard let row = try query("SELECT status FROM connections WHERE conn_id = ?", [.blob(id.bytes)]).first else {
            throw .connectionNotFound(id)
        }
        var r = RowReader(row)
        return try r.tag(ConnectionStatus.self, "status")
    }

    private static let rcvQueueColumns = """
        SELECT q.rcv_queue_id, q.conn_id, s.address, q.rcv_id, q.snd_id, q.queue_mode, q.rcv_auth_key, q.rcv_dh_key,
          q.rcv_dh_secret, q.e2e_dh_key, q.e2e_dh_secret, q.smp_client_version, q.status, q.subscribe_mode,
          q.unacked_msg_id
        FROM rcv_queues q JOIN servers s ON s.server_id = q.server_id
        """

    private func rcvQueues(where condition: String, _ values: [SQLValue], _ servers: inout ServerCache)
        throws(AgentStoreError) -> [RcvQueue]
    {
        var queues: [RcvQueue] = []
        for row in try query(Self.rcvQueueColumns + " WHERE " + condition + " ORDER BY q.rcv_queue_id", values) {
            var r = RowReader(row)
            queues.append(
                RcvQueue(
                    id: RcvQueueId(try r.integer("queue id")), connId: AgentConnId(try r.blob("conn id")),
                    server: try servers.server(try r.text("server")), recipientId: EntityId(try r.blob("recipient id")),
                    senderId: EntityId(try r.blob("sender id")), mode: try QueueMode(storedTag: try r.text("queue mode")),
                    recipientAuthKey: try StoredEd25519Key(seed: try r.blob("recipient auth key")),
                    recipientDHKey: try StoredX25519Key(rawRepresentation: try r.blob("recipient DH key")),
                    serverDHSecret: try r.dhSecret("server DH secret"),
                    e2eDHKey: try StoredX25519Key(rawRepresentation: try r.blob("e2e DH key")),
                    e2eDHSecret: try r.optionalBlob("e2e DH secret").map { (b) throws(AgentStoreError) in
                        try storedValue("e2e DH secret") { () throws(CryptoError) in try X25519.SharedSecret(rawRepresentation: b)
                        }
                    },
                    smpClientVersion: try r.optionalVersion("SMP client version"),
                    status: try r.tag(QueueStatus.self, "queue status"),
                    subscribeMode: try SubscriptionMode(storedTag: try r.text("subscription mode")),
                    unackedMsgId: try r.optionalBlob("unacked msg id").map(MsgId.init)))
        }
        return queues
    }

    private static let sndQueueColumns = """
        SELECT q.snd_queue_id, q.conn_id, s.address, q.snd_id, q.queue_mode, q.snd_auth_key, q.e2e_key,
          q.e2e_public_key, q.e2e_dh_secret, q.status, q.smp_client_version
        FROM snd_queues q JOIN servers s ON s.server_id = q.server_id
        """

    private func sndQueues(where condition: String, _ values: [SQLValue], _ servers: inout ServerCache)
        throws(AgentStoreError) -> [SndQueue]
    {
        var queues: [SndQueue] = []
        for row in try query(Self.sndQueueColumns + " WHERE " + condition + " ORDER BY q.snd_queue_id", values) {
            var r = RowReader(row)
            queues.append(
                SndQueue(
                    id: SndQueueId(try r.integer("queue id")), connId: AgentConnId(try r.blob("conn id")),
                    server: try servers.server(try r.text("server")), senderId: EntityId(try r.blob("sender id")),
                    mode: try QueueMode(storedTag: try r.text("queue mode")),
                    senderAuthKey: try r.optionalBlob("sender auth key").map { (b) throws(AgentStoreError) in
                        try StoredEd25519Key(seed: b)
                    },
                    e2eKey: try StoredX25519Key(rawRepresentation: try r.blob("e2e key")),
                    e2ePublicKey: try r.x25519PublicKey("e2e public key"),
                    e2eDHSecret: try r.dhSecret("e2e DH secret"),
                    status: try r.tag(QueueStatus.self, "queue status"),
                    smpClientVersion: try r.version("SMP client version")))
        }
        return queues
    }

    public func rcvQueue(_ id: RcvQueueId) throws(AgentStoreError) -> RcvQueue {
        var servers = ServerCache()
        guard let q = try rcvQueues(where: "q.rcv_queue_id = ?", [.integer(id.value)], &servers).first else {
            throw .queueNotFound("receive queue \(id.value)")
        }
        return q
    }

    public func sndQueue(_ id: SndQueueId) throws(AgentStoreError) -> SndQueue {
        var servers = ServerCache()
        guard let q = try sndQueues(where: "q.snd_queue_id = ?", [.integer(id.value)], &servers).first else {
            throw .queueNotFound("send queue \(id.value)")
        }
        return q
    }

    /// The receive queue a server's `MSG` is for, by the server and the recipient id.
    public func rcvQueue(server: SMPServer, recipientId: EntityId) throws(AgentStoreError) -> RcvQueue {
        var servers = ServerCache()
        guard
            let q = try rcvQueues(
                where: "s.address = ? AND q.rcv_id = ?", [.text(server.text), .blob(recipientId.bytes)], &servers
            ).first
        else { throw .queueNotFound(Self.queueName(server, recipientId)) }
        return q
    }

    public func setRcvQueueStatus(_ id: RcvQueueId, _ status: QueueStatus) throws(AgentStoreError) {
        let n = try run("UPDATE rcv_queues SET status = ? WHERE rcv_queue_id = ?", [.text(status.rawValue), .integer(id.value)])
        if n == 0 { throw .queueNotFound("receive queue \(id.value)") }
    }

    /// Records the per-queue secret with the sender and its SMP client version, from its first confirmation; the
    /// queue becomes confirmed.
    public func setRcvQueueConfirmed(_ id: RcvQueueId, e2eDHSecret: X25519.SharedSecret, smpClientVersion: UInt16)
        throws(AgentStoreError)
    {
        let n = try run(
            "UPDATE rcv_queues SET e2e_dh_secret = ?, smp_client_version = ?, status = 'confirmed' WHERE rcv_queue_id = ?",
            [.blob(e2eDHSecret.rawRepresentation), .integer(Int64(smpClientVersion)), .integer(id.value)])
        if n == 0 { throw .queueNotFound("receive queue \(id.value)") }
    }

    public func setSndQueueStatus(_ id: SndQueueId, _ status: QueueStatus) throws(AgentStoreError) {
        let n = try run("UPDATE snd_queues SET status = ? WHERE snd_queue_id = ?", [.text(status.rawValue), .integer(id.value)])
        if n == 0 { throw .queueNotFound("send queue \(id.value)") }
    }

    /// Every receive queue to subscribe at start (`/_start`), by server: those of connections not deleted, except
    /// disabled queues.
    public func subscriptions() throws(AgentStoreError) -> [ServerSubscriptions] {
        let rows = try query(
            """
            SELECT s.address, q.conn_id, q.rcv_queue_id, q.rcv_id, q.rcv_auth_key, q.status
            FROM rcv_queues q
            JOIN connections c ON c.conn_id = q.conn_id
            JOIN servers s ON s.server_id = q.server_id
            WHERE c.status != 'deleted' AND q.status != 'disabled'
            ORDER BY q.server_id, q.rcv_queue_id
            """)
        var servers = ServerCache()
        var result: [ServerSubscriptions] = []
        var lastAddress: String?
        for row in rows {
            var r = RowReader(row)
            let address = try r.text("server")
            let subscription = QueueSubscription(
                connId: AgentConnId(try r.blob("conn id")), queueId: RcvQueueId(try r.integer("queue id")),
                recipientId: EntityId(try r.blob("recipient id")),
                recipientAuthKey: try StoredEd25519Key(seed: try r.blob("recipient auth key")),
                status: try r.tag(QueueStatus.self, "queue status"))
            if address == lastAddress, !result.isEmpty {
                result[result.count - 1].queues.append(subscription)
            } else {
                result.append(ServerSubscriptions(server: try servers.server(address), queues: [subscription]))
                lastAddress = address
            }
        }
        return result
    }

    // MARK: Ratchet

    public func ratchet(_ conn: AgentConnId) throws(AgentStoreError) -> StoredRatchet? {
        guard let row = try query("SELECT ratchet FROM connections WHERE conn_id = ?", [.blob(conn.bytes)]).first else {
            throw .connectionNotFound(conn)
        }
        var r = RowReader(row)
        return try r.optionalBlob("ratchet").map(StoredRatchet.init(bytes:))
    }

    /// The connection's skipped message keys, for the next decryption.
    public func skippedKeys(_ conn: AgentConnId) throws(AgentStoreError) -> SkippedMessageKeys {
        var keys: [SkippedMessageKey] = []
        for row in try query(
            "SELECT header_key, msg_n, msg_key FROM skipped_message_keys WHERE conn_id = ?", [.blob(conn.bytes)])
        {
            var r = RowReader(row)
            let headerKey = try r.blob("header key")
            let n = try r.integer("message number")
            let messageKey = try r.blob("message key")
            guard let number = UInt32(exactly: n) else { throw .invalidStoredValue("skipped message number \(n)") }
            do {
                keys.append(
                    SkippedMessageKey(
                        headerKey: try RatchetHeaderKey(rawRepresentation: headerKey), number: number,
                        messageKey: try RatchetMessageKey(decoding: messageKey)))
            } catch { throw .invalidStoredValue("skipped message key: \(error)") }
        }
        return SkippedMessageKeys(keys)
    }

    /// Stores a decryption's result: the new ratchet and the skipped keys it used or added.
    public func updateRatchet(_ conn: AgentConnId, _ ratchet: StoredRatchet, skipped change: SkippedKeysChange)
        throws(AgentStoreError)
    {
        try atomically { () throws(AgentStoreError) in
            try setRatchet(conn, ratchet, clearingX3DHKeys: false)
            try applySkipped(conn, change)
        }
    }

    private func applySkipped(_ conn: AgentConnId, _ change: SkippedKeysChange) throws(AgentStoreError) {
        switch change {
        case .used(let headerKey, let number):
            try run(
                "DELETE FROM skipped_message_keys WHERE conn_id = ? AND header_key = ? AND msg_n = ?",
                [.blob(conn.bytes), .blob(headerKey.rawRepresentation), .integer(Int64(number))])
        case .added(let keys):
            for k in keys {
                try run(
                    "INSERT OR REPLACE INTO skipped_message_keys (conn_id, header_key, msg_n, msg_key) VALUES (?, ?, ?, ?)",
                    [
                        .blob(conn.bytes), .blob(k.headerKey.rawRepresentation), .integer(Int64(k.number)),
                        .blob(k.messageKey.encoded()),
                    ])
            }
        }
    }

    // MARK: Sent messages

    /// Queues a message on a send queue, durably: allocates its ids, lets `prepare` build the plaintext (which
    /// carries the `sndMsgId` and `prevMsgHash`) and encrypt the ratchet header, then stores the message, its hash
    /// as the next message's `prevMsgHash`, and the advanced ratchet, all in one transaction.
    @discardableResult
    public func enqueueSend(
        _ conn: AgentConnId, queue: SndQueueId, kind: AgentMessageKind, notification: Bool, now: Int64,
        prepare: (SendSlot) throws(AgentStoreError) -> PreparedSend
    ) throws(AgentStoreError) -> SentMessage {
        try atomically { () throws(AgentStoreError) in
            guard
                let row = try query(
                    "SELECT status, last_internal_id, last_snd_id, last_snd_hash, ratchet FROM connections WHERE conn_id = ?",
                    [.blob(conn.bytes)]
                ).first
            else { throw .connectionNotFound(conn) }
            var r = RowReader(row)
            let status = try r.tag(ConnectionStatus.self, "status")
            guard status != .deleted else { throw .badConnectionState("connection \(conn) is deleted") }
            let slot = SendSlot(
                internalId: InternalMessageId(try r.integer("last internal id") + 1), sndMsgId: try r.counter("last snd id") + 1,
                prevMsgHash: try r.blob("last snd hash"), ratchet: try r.optionalBlob("ratchet").map(StoredRatchet.init(bytes:)))
            let prepared = try prepare(slot)
            let hash = MessageHash(of: prepared.agentMessage)
            try run(
                "UPDATE connections SET last_internal_id = ?, last_snd_id = ?, last_snd_hash = ? WHERE conn_id = ?",
                [.integer(slot.internalId.value), .counter(slot.sndMsgId), .blob(hash.bytes), .blob(conn.bytes)])
            if let ratchet = prepared.ratchet { try setRatchet(conn, ratchet, clearingX3DHKeys: false) }
            let inserted: Int
            do throws(SQLiteError) {
                inserted = try db.run(
                    """
                    INSERT INTO snd_messages (conn_id, internal_id, snd_id, snd_queue_id, kind, hash, notification,
                      agent_message, encrypt_key, ratchet_params, delivery, next_attempt_at, created_at)
                    SELECT ?, ?, ?, snd_queue_id, ?, ?, ?, ?, ?, ?, 'pending', ?, ? FROM snd_queues
                    WHERE snd_queue_id = ? AND conn_id = ?
                    """,
                    [
                        .blob(conn.bytes), .integer(slot.internalId.value), .counter(slot.sndMsgId), .text(kind.rawValue),
                        .blob(hash.bytes), .integer(notification ? 1 : 0), .blob(prepared.agentMessage),
                        .optionalBlob(prepared.encryptKey), .optionalBlob(prepared.ratchetParams), .integer(now), .integer(now),
                        .integer(queue.value), .blob(conn.bytes),
                    ])
            } catch { throw .sqlite(error) }
            guard inserted > 0 else { throw .queueNotFound("send queue \(queue.value) of connection \(conn)") }
            return try sentMessage(conn, internalId: slot.internalId)
        }
    }

    private static let sentColumns = """
        SELECT conn_id, internal_id, snd_id, snd_queue_id, kind, hash, notification, agent_message, encrypt_key,
          ratchet_params, delivery, delivery_error, retries, next_attempt_at, receipt_status
        FROM snd_messages
        """

    private func sentMessages(where condition: String, _ values: [SQLValue]) throws(AgentStoreError) -> [SentMessage] {
        var messages: [SentMessage] = []
        for row in try query(Self.sentColumns + " WHERE " + condition, values) {
            var r = RowReader(row)
            let connId = AgentConnId(try r.blob("conn id"))
            let internalId = InternalMessageId(try r.integer("internal id"))
            let sndMsgId = try r.counter("snd id")
            let queueId = SndQueueId(try r.integer("queue id"))
            let kind = try r.tag(AgentMessageKind.self, "kind")
            let hash = try MessageHash(bytes: try r.blob("hash"))
            let notification = try r.bool("notification")
            let body = try r.optionalBlob("agent message")
            let key = try r.optionalBlob("encrypt key")
            let params = try r.optionalBlob("ratchet params")
            let delivery = try DeliveryState(tag: try r.text("delivery"), error: try r.optionalText("delivery error"))
            messages.append(
                SentMessage(
                    connId: connId, internalId: internalId, sndMsgId: sndMsgId, queueId: queueId, kind: kind, hash: hash,
                    notification: notification, agentMessage: body, encryptKey: key, ratchetParams: params,
                    delivery: delivery, retries: Int(clamping: try r.integer("retries")),
                    nextAttemptAt: try r.integer("next attempt"), receipt: try r.optionalTag(ReceiptStatus.self, "receipt")))
        }
        return messages
    }

    public func sentMessage(_ conn: AgentConnId, internalId: InternalMessageId) throws(AgentStoreError) -> SentMessage {
        guard
            let m = try sentMessages(where: "conn_id = ? AND internal_id = ?", [.blob(conn.bytes), .integer(internalId.value)])
                .first
        else { throw .messageNotFound("message \(internalId.value) of \(conn)") }
        return m
    }

    /// The sent message a receipt names by its `sndMsgId`.
    public func sentMessage(_ conn: AgentConnId, sndMsgId: UInt64) throws(AgentStoreError) -> SentMessage {
        guard let m = try sentMessages(where: "conn_id = ? AND snd_id = ?", [.blob(conn.bytes), .counter(sndMsgId)]).first
        else { throw .messageNotFound("sndMsgId \(sndMsgId) of \(conn)") }
        return m
    }

    /// The queue's first pending send, the one its delivery worker must deliver before any later one (it waits
    /// until `nextAttemptAt` itself); nil when none is pending or the connection is deleted.
    public func nextPendingSend(_ queue: SndQueueId) throws(AgentStoreError) -> SentMessage? {
        try sentMessages(
            where: """
                snd_queue_id = ? AND delivery = 'pending'
                  AND conn_id NOT IN (SELECT conn_id FROM connections WHERE status = 'deleted')
                ORDER BY internal_id LIMIT 1
                """, [.integer(queue.value)]
        ).first
    }

    /// Every send queue with pending sends, for starting their delivery workers.
    public func sndQueuesWithPendingSends() throws(AgentStoreError) -> [SndQueueId] {
        try query(
            """
            SELECT DISTINCT m.snd_queue_id FROM snd_messages m JOIN connections c ON c.conn_id = m.conn_id
            WHERE m.delivery = 'pending' AND c.status != 'deleted' ORDER BY m.snd_queue_id
            """
        ).map { (row) throws(AgentStoreError) in
            var r = RowReader(row)
            return SndQueueId(try r.integer("queue id"))
        }
    }

    private func updateSent(_ conn: AgentConnId, _ id: InternalMessageId, _ sql: String, _ values: [SQLValue])
        throws(AgentStoreError)
    {
        let n = try run(sql + " WHERE conn_id = ? AND internal_id = ?", values + [.blob(conn.bytes), .integer(id.value)])
        if n == 0 { throw .messageNotFound("message \(id.value) of \(conn)") }
    }

    /// The server accepted the message: what was kept to seal it is dropped, its hash stays for receipts.
    public func markSent(_ conn: AgentConnId, _ id: InternalMessageId) throws(AgentStoreError) {
        try updateSent(
            conn, id,
            "UPDATE snd_messages SET delivery = 'sent', delivery_error = NULL, agent_message = NULL, encrypt_key = NULL, ratchet_params = NULL",
            [])
    }

    /// An attempt failed temporarily: the next one is due at `nextAttemptAt` (milliseconds since 1970).
    public func scheduleRetry(_ conn: AgentConnId, _ id: InternalMessageId, nextAttemptAt: Int64) throws(AgentStoreError) {
        try updateSent(
            conn, id, "UPDATE snd_messages SET retries = retries + 1, next_attempt_at = ?", [.integer(nextAttemptAt)])
    }

    /// Delivery gave up (`MERR`); the body is dropped.
    public func markFailed(_ conn: AgentConnId, _ id: InternalMessageId, error: String) throws(AgentStoreError) {
        try updateSent(
            conn, id,
            "UPDATE snd_messages SET delivery = 'failed', delivery_error = ?, agent_message = NULL, encrypt_key = NULL, ratchet_params = NULL",
            [.text(error)])
    }

    /// Records what a delivery receipt said about a sent message.
    public func setReceipt(_ conn: AgentConnId, sndMsgId: UInt64, _ status: ReceiptStatus) throws(AgentStoreError) {
        let n = try run(
            "UPDATE snd_messages SET receipt_status = ? WHERE conn_id = ? AND snd_id = ?",
            [.text(status.rawValue), .blob(conn.bytes), .counter(sndMsgId)])
        if n == 0 { throw .messageNotFound("sndMsgId \(sndMsgId) of \(conn)") }
    }

    // MARK: Received messages

    /// Whether a ratchet ciphertext with this hash was received on the connection before.
    public func isDuplicate(_ conn: AgentConnId, ciphertextHash: MessageHash) throws(AgentStoreError) -> Bool {
        !(try query(
            "SELECT 1 FROM rcv_ciphertext_hashes WHERE conn_id = ? AND hash = ?",
            [.blob(conn.bytes), .blob(ciphertextHash.bytes)]
        ).isEmpty)
    }

    /// Records a message received on a queue, unless its ciphertext was received before (`duplicate`, and nothing
    /// is changed). Otherwise `process` decrypts and checks it with what the store holds, and everything it
    /// produced is stored in one transaction: the message with its integrity and ACK state, the ciphertext hash,
    /// the peer's last `sndMsgId` and hash, the ratchet and skipped keys, and the queue's un-ACKed server msgId.
    public func receive(
        _ conn: AgentConnId, queue: RcvQueueId, serverMsgId: MsgId, serverTimestamp: Int64, ciphertextHash: MessageHash,
        now: Int64, process: (ReceiveSlot) throws(AgentStoreError) -> ProcessedReceive
    ) throws(AgentStoreError) -> ReceiveOutcome {
        try atomically { () throws(AgentStoreError) in
            guard
                let row = try query(
                    """
                    SELECT last_internal_id, last_external_snd_id, last_rcv_hash, ratchet, x3dh_key_1, x3dh_key_2
                    FROM connections WHERE conn_id = ?
                    """,
                    [.blob(conn.bytes)]
                ).first
            else { throw .connectionNotFound(conn) }
            if let earlier = try query(
                "SELECT internal_id FROM rcv_ciphertext_hashes WHERE conn_id = ? AND hash = ?",
                [.blob(conn.bytes), .blob(ciphertextHash.bytes)]
            ).first {
                var e = RowReader(earlier)
                let id = InternalMessageId(try e.integer("internal id"))
                let counted = try run(
                    "UPDATE rcv_messages SET receive_attempts = receive_attempts + 1 WHERE conn_id = ? AND internal_id = ?",
                    [.blob(conn.bytes), .integer(id.value)])
                return .duplicate(of: counted == 0 ? nil : try receivedMessage(conn, id))
            }
            var r = RowReader(row)
            let internalId = InternalMessageId(try r.integer("last internal id") + 1)
            let lastExternalSndId = try r.counter("last external snd id")
            let lastRcvHash = try r.blob("last rcv hash")
            let ratchet = try r.optionalBlob("ratchet").map(StoredRatchet.init(bytes:))
            var x3dhKeys: StoredX3DHKeys?
            if let key1 = try r.optionalBlob("X3DH key 1"), let key2 = try r.optionalBlob("X3DH key 2") {
                x3dhKeys = StoredX3DHKeys(
                    key1: try StoredX448Key(rawRepresentation: key1), key2: try StoredX448Key(rawRepresentation: key2))
            }
            let slot = ReceiveSlot(
                internalId: internalId, lastExternalSndId: lastExternalSndId, lastRcvHash: lastRcvHash, ratchet: ratchet,
                skippedKeys: try skippedKeys(conn), x3dhKeys: x3dhKeys)
            let processed = try process(slot)
            try run(
                "UPDATE connections SET last_internal_id = ?, last_external_snd_id = ?, last_rcv_hash = ? WHERE conn_id = ?",
                [
                    .integer(slot.internalId.value), .counter(processed.sndMsgId), .blob(processed.hash.bytes),
                    .blob(conn.bytes),
                ])
            if let ratchet = processed.ratchet {
                try setRatchet(conn, ratchet, clearingX3DHKeys: processed.clearsX3DHKeys)
            }
            try applySkipped(conn, processed.skippedKeys)
            try run(
                "INSERT INTO rcv_ciphertext_hashes (conn_id, hash, internal_id, created_at) VALUES (?, ?, ?, ?)",
                [.blob(conn.bytes), .blob(ciphertextHash.bytes), .integer(slot.internalId.value), .integer(now)])
            let ack = processed.ack == .serverAcked ? AckState.acknowledged : processed.ack
            let inserted: Int
            do throws(SQLiteError) {
                inserted = try db.run(
                    """
                    INSERT INTO rcv_messages (conn_id, internal_id, rcv_queue_id, kind, external_snd_id, server_msg_id,
                      server_ts, hash, integrity, ack, body, created_at)
                    SELECT ?, ?, rcv_queue_id, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM rcv_queues WHERE rcv_queue_id = ? AND conn_id = ?
                    """,
                    [
                        .blob(conn.bytes), .integer(slot.internalId.value), .text(processed.kind.rawValue),
                        .counter(processed.sndMsgId), .blob(serverMsgId.bytes), .integer(serverTimestamp),
                        .blob(processed.hash.bytes), .text(processed.integrity.stored), .text(ack.rawValue),
                        .optionalBlob(ack == .pending ? processed.body : nil), .integer(now),
                        .integer(queue.value), .blob(conn.bytes),
                    ])
            } catch { throw .sqlite(error) }
            guard inserted > 0 else { throw .queueNotFound("receive queue \(queue.value) of connection \(conn)") }
            try run(
                "UPDATE rcv_queues SET unacked_msg_id = ? WHERE rcv_queue_id = ?",
                [.blob(serverMsgId.bytes), .integer(queue.value)])
            return .stored(try receivedMessage(conn, slot.internalId))
        }
    }

    public func receivedMessage(_ conn: AgentConnId, _ id: InternalMessageId) throws(AgentStoreError) -> RcvMessage {
        guard
            let row = try query(
                """
                SELECT rcv_queue_id, kind, external_snd_id, server_msg_id, server_ts, hash, integrity, ack, receive_attempts
                FROM rcv_messages WHERE conn_id = ? AND internal_id = ?
                """, [.blob(conn.bytes), .integer(id.value)]
            ).first
        else { throw .messageNotFound("received message \(id.value) of \(conn)") }
        var r = RowReader(row)
        return RcvMessage(
            connId: conn, internalId: id, queueId: RcvQueueId(try r.integer("queue id")),
            kind: try r.tag(AgentMessageKind.self, "kind"), externalSndId: try r.counter("external snd id"),
            serverMsgId: MsgId(try r.blob("server msg id")), serverTimestamp: try r.integer("server timestamp"),
            hash: try MessageHash(bytes: try r.blob("hash")), integrity: try MessageIntegrity(stored: try r.text("integrity")),
            ack: try r.tag(AckState.self, "ack"), receiveAttempts: Int(clamping: try r.integer("receive attempts")))
    }

    /// The body of a received message the chat layer has not acknowledged yet, kept to give it again when the server
    /// delivers it again; nil once acknowledged, or when it had none.
    public func pendingBody(_ conn: AgentConnId, _ id: InternalMessageId) throws(AgentStoreError) -> [UInt8]? {
        guard
            let row = try query(
                "SELECT body FROM rcv_messages WHERE conn_id = ? AND internal_id = ? AND ack = 'pending'",
                [.blob(conn.bytes), .integer(id.value)]
            ).first
        else { return nil }
        var r = RowReader(row)
        return try r.optionalBlob("body")
    }

    /// The chat layer acknowledged a received message (`ackMessage`): its SMP `ACK` is due. Returns the message,
    /// whose queue and server msgId the `ACK` names.
    public func acknowledge(_ conn: AgentConnId, _ id: InternalMessageId) throws(AgentStoreError) -> RcvMessage {
        try atomically { () throws(AgentStoreError) in
            let message = try receivedMessage(conn, id)
            guard message.ack == .pending else { return message }
            try run(
                "UPDATE rcv_messages SET ack = 'acknowledged' WHERE conn_id = ? AND internal_id = ?",
                [.blob(conn.bytes), .integer(id.value)])
            return try receivedMessage(conn, id)
        }
    }

    /// The server has the `ACK`: the queue has no un-ACKed message unless a later one was delivered meanwhile.
    public func markServerAcked(_ conn: AgentConnId, _ id: InternalMessageId) throws(AgentStoreError) {
        try atomically { () throws(AgentStoreError) in
            let message = try receivedMessage(conn, id)
            try run(
                "UPDATE rcv_messages SET ack = 'serverAcked', body = NULL WHERE conn_id = ? AND internal_id = ?",
                [.blob(conn.bytes), .integer(id.value)])
            try run(
                "UPDATE rcv_queues SET unacked_msg_id = NULL WHERE rcv_queue_id = ? AND unacked_msg_id = ?",
                [.integer(message.queueId.value), .blob(message.serverMsgId.bytes)])
        }
    }

    /// Clears a queue's un-ACKed msgId after an `ACK` of a message that was never stored (a duplicate, a
    /// decryption failure).
    public func clearUnackedMsgId(_ queue: RcvQueueId, _ msgId: MsgId) throws(AgentStoreError) {
        try run(
            "UPDATE rcv_queues SET unacked_msg_id = NULL WHERE rcv_queue_id = ? AND unacked_msg_id = ?",
            [.integer(queue.value), .blob(msgId.bytes)])
    }

    /// Records a delivered message that is not stored (it failed to decrypt, or is a duplicate) as the queue's
    /// un-ACKed one.
    public func setUnackedMsgId(_ queue: RcvQueueId, _ msgId: MsgId) throws(AgentStoreError) {
        let n = try run(
            "UPDATE rcv_queues SET unacked_msg_id = ? WHERE rcv_queue_id = ?", [.blob(msgId.bytes), .integer(queue.value)])
        if n == 0 { throw .queueNotFound("receive queue \(queue.value)") }
    }

    /// Drops messages made before `before` (milliseconds since 1970) that nothing waits for any more: received ones
    /// the server has the `ACK` of, sent ones delivered or given up on. Their ids and hashes stay with the connection,
    /// and received ciphertext hashes stay until `pruneCiphertextHashes`. Returns how many of each went.
    @discardableResult
    public func pruneMessages(before: Int64) throws(AgentStoreError) -> (received: Int, sent: Int) {
        try atomically { () throws(AgentStoreError) in
            let received = try run(
                "DELETE FROM rcv_messages WHERE ack = 'serverAcked' AND created_at < ?", [.integer(before)])
            let sent = try run("DELETE FROM snd_messages WHERE delivery != 'pending' AND created_at < ?", [.integer(before)])
            return (received, sent)
        }
    }

    /// Forgets ciphertext hashes recorded before `before` (milliseconds since 1970); returns how many.
    @discardableResult
    public func pruneCiphertextHashes(before: Int64) throws(AgentStoreError) -> Int {
        try run("DELETE FROM rcv_ciphertext_hashes WHERE created_at < ?", [.integer(before)])
    }

    // MARK: Address requests

    /// Stores a request that arrived on a contact address, under a new invitation id.
    public func createAddressRequest(_ conn: AgentConnId, invitationLink: String, connInfo: [UInt8], now: Int64)
        throws(AgentStoreError) -> AddressRequest
    {
        try atomically { () throws(AgentStoreError) in
            guard try connection(conn).mode == .contact else {
                throw .badConnectionState("connection \(conn) is not a contact address")
            }
            let id = AgentConnId.random().bytes
            try run(
                """
                INSERT INTO address_requests (invitation_id, conn_id, invitation_link, conn_info, created_at)
                VALUES (?, ?, ?, ?, ?)
                """, [.blob(id), .blob(conn.bytes), .text(invitationLink), .blob(connInfo), .integer(now)])
            return try addressRequest(id)
        }
    }

    private static let requestColumns = """
        SELECT invitation_id, conn_id, invitation_link, conn_info, accepted, own_conn_info, joined_conn_id
        FROM address_requests
        """

    private func addressRequests(where condition: String, _ values: [SQLValue]) throws(AgentStoreError) -> [AddressRequest] {
        try query(Self.requestColumns + " WHERE " + condition, values).map { (row) throws(AgentStoreError) in
            var r = RowReader(row)
            return AddressRequest(
                invitationId: try r.blob("invitation id"), connId: AgentConnId(try r.blob("conn id")),
                invitationLink: try r.text("invitation link"), connInfo: try r.blob("conn info"),
                accepted: try r.bool("accepted"), ownConnInfo: try r.optionalBlob("own conn info"),
                joinedConnId: try r.optionalBlob("joined conn id").map(AgentConnId.init))
        }
    }

    public func addressRequest(_ invitationId: [UInt8]) throws(AgentStoreError) -> AddressRequest {
        guard let request = try addressRequests(where: "invitation_id = ?", [.blob(invitationId)]).first else {
            throw .requestNotFound(String(decoding: invitationId, as: UTF8.self))
        }
        return request
    }

    /// The requests an address holds, oldest first.
    public func addressRequests(_ conn: AgentConnId) throws(AgentStoreError) -> [AddressRequest] {
        try addressRequests(where: "conn_id = ? ORDER BY created_at, rowid", [.blob(conn.bytes)])
    }

    /// Accepts a request: the owner's conn info and the connection that joins the requester's link.
    public func acceptAddressRequest(_ invitationId: [UInt8], ownConnInfo: [UInt8], joinedConnection: AgentConnId)
        throws(AgentStoreError)
    {
        let n = try run(
            "UPDATE address_requests SET accepted = 1, own_conn_info = ?, joined_conn_id = ? WHERE invitation_id = ?",
            [.blob(ownConnInfo), .blob(joinedConnection.bytes), .blob(invitationId)])
        if n == 0 { throw .requestNotFound(String(decoding: invitationId, as: UTF8.self)) }
    }

    /// Removes a request: rejected, or done with after its connection was made.
    public func deleteAddressRequest(_ invitationId: [UInt8]) throws(AgentStoreError) {
        let n = try run("DELETE FROM address_requests WHERE invitation_id = ?", [.blob(invitationId)])
        if n == 0 { throw .requestNotFound(String(decoding: invitationId, as: UTF8.self)) }
    }
}

/// The receive queues of one server to subscribe.
public struct ServerSubscriptions: Sendable, Equatable {
    public let server: SMPServer
    public var queues: [QueueSubscription]
}
