import Foundation
public import SMP
public import SimplexCrypto
public import SimplexEncoding
public import SimplexNet
import SimplexTLS

/// The server's configuration from the command line.
public struct ServerConfiguration: Sendable {
    public var limits: ServerLimits
    /// Connections served at once; one more is closed as soon as it is accepted.
    public var maxConnections: Int
    /// Seconds a connection may take for its TLS and SMP handshake.
    public var handshakeTimeout: Double
    public var versions: VersionRange

    public init(
        limits: ServerLimits = ServerLimits(), maxConnections: Int = 256, handshakeTimeout: Double = 30,
        versions: VersionRange = SMPVersion.supported
    ) {
        self.limits = limits
        self.maxConnections = maxConnections
        self.handshakeTimeout = handshakeTimeout
        self.versions = versions
    }
}

/// The thin driver: a listener thread, one reader thread per connection (and a flusher while its socket is full); the protocol logic is in
/// `ServerConnection` (per connection) and `ServerState` (shared, behind one lock), the durable changes in the
/// `Journal`, written and synced before a block's responses go out.
public final class ServerDriver: @unchecked Sendable {
    public let credential: ServerCredential
    public let listener: TCPListener
    let configuration: ServerConfiguration
    let journal: Journal?
    let log: @Sendable (String) -> Void

    private let lock = NSLock()
    private var state: ServerState
    private var links: [ConnectionId: ConnectionLink] = [:]
    private var nextId: UInt64 = 1
    private var active = 0

    public init(
        listener: TCPListener, credential: ServerCredential, store: QueueStore, journal: Journal?,
        configuration: ServerConfiguration, log: @escaping @Sendable (String) -> Void
    ) {
        self.listener = listener
        self.credential = credential
        self.journal = journal
        self.configuration = configuration
        self.log = log
        state = ServerState(store: store, limits: configuration.limits)
    }

    /// Accepts connections until the process ends.
    public func run() -> Never {
        while true {
            let connection: TCPConnection
            do {
                guard let c = try listener.accept(timeout: nil) else { continue }
                connection = c
            } catch {
                log("{\"event\":\"acceptFailed\",\"reason\":\(jsonString("\(error)"))}")
                Thread.sleep(forTimeInterval: 0.05)
                continue
            }
            let id: ConnectionId? = lock.withLock {
                guard active < configuration.maxConnections else { return nil }
                active += 1
                defer { nextId += 1 }
                return ConnectionId(nextId)
            }
            guard let id else {
                log("{\"event\":\"refused\",\"reason\":\"connection limit \(configuration.maxConnections)\"}")
                connection.shutdown()
                continue
            }
            let thread = Thread { [self] in
                serve(connection, id)
                lock.withLock { active -= 1 }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    // MARK: One connection

    private func serve(_ socket: TCPConnection, _ id: ConnectionId) {
        let tls: SMPTLSConnection
        do { tls = try SMPTLSConnection(credential: credential) } catch {
            socket.shutdown()
            return
        }
        let link = ConnectionLink(socket: socket, tls: tls)
        var reason = "closed"
        var established = false
        var session: SMPTLSSession?
        let deadline = Date().addingTimeInterval(configuration.handshakeTimeout)
        reading: while true {
            let bytes: [UInt8]
            do {
                bytes = try socket.read(timeout: established ? nil : max(0.01, deadline.timeIntervalSinceNow))
                if bytes.isEmpty {
                    reason = "handshake timeout"
                    break
                }
            } catch {
                if error == .closed, let e = link.endOfStream() {
                    reason = Self.describe(e)
                } else {
                    reason = error == .closed ? "closed" : "\(error)"
                }
                break
            }
            let events: [SMPTLSEvent]
            do { events = try link.receive(bytes) } catch {
                reason = "TLS: \(error)"
                break
            }
            for event in events {
                switch event {
                case .handshakeCompleted(let tlsSession):
                    session = tlsSession
                    do {
                        try link.start(
                            ServerConnection(
                                sessionId: SessionId(tlsSession.sessionId),
                                negotiatedALPN: tlsSession.applicationProtocol != nil, credential: credential,
                                dhKey: X25519.PrivateKey(), versions: configuration.versions))
                    } catch {
                        reason = "hello: \(error)"
                        break reading
                    }
                case .applicationData(let data):
                    for e in link.receiveBlocks(data) {
                        switch e {
                        case .established(let p):
                            established = true
                            logConnection(id, p, session, encrypted: link.encryptsBlocks)
                            lock.withLock {
                                state.connect(id, parameters: p)
                                links[id] = link
                            }
                        case .transmissions(let ts):
                            process { s, now, entropy in s.receive(ts, from: id, now: now, entropy: &entropy) }
                        case .unparsableBatch:
                            process { s, _, _ in s.receiveUnparsableBatch(from: id) }
                        case .close(let r):
                            reason = Self.describe(r)
                            break reading
                        }
                    }
                case .closed:
                    reason = "closed"
                    break reading
                }
            }
        }
        lock.withLock {
            state.disconnect(id)
            links[id] = nil
        }
        link.close()
        log("{\"event\":\"closed\",\"connection\":\(id.raw),\"reason\":\(jsonString(reason))}")
    }

    /// The reference's transport error first (`VERSION`, `BLOCK`, `HANDSHAKE IDENTITY` …), then ours.
    static func describe(_ r: ConnectionCloseReason) -> String {
        "\(String(decoding: r.transportError.encoded(), as: UTF8.self)): \(r)"
    }

    /// One JSON line per established connection, with the same fields as the Python peer's server log.
    private func logConnection(_ id: ConnectionId, _ p: TransportParameters, _ s: SMPTLSSession?, encrypted: Bool) {
        func quoted(_ v: String?) -> String { v.map(jsonString) ?? "null" }
        let fields = [
            "\"event\":\"connection\"", "\"connection\":\(id.raw)", "\"alpn\":\(quoted(s?.applicationProtocol?.description))",
            "\"cipher\":\(quoted(s?.cipherSuite))", "\"tlsVersion\":\(quoted(s?.protocolVersion))",
            "\"sni\":\(quoted(s?.serverName))",
            "\"sessionId\":\"\(Hex.encode(p.sessionId.bytes))\"", "\"version\":\(p.version)", "\"blockEncryption\":\(encrypted)",
        ]
        log("{" + fields.joined(separator: ",") + "}")
    }

    /// Runs one step of the shared logic, journals its changes (synced) and queues its transmissions, all under the
    /// lock, so that what one connection's block caused reaches every connection in the order it happened; then
    /// writes them from this thread, the first delivery (a `MSG` to a subscriber before the sender's `OK`) first:
    /// a hand-off to another thread would cost every message a wake-up.
    private func process(_ step: (inout ServerState, Int64, inout SystemEntropy) -> ServerOutput) {
        let targets: [ConnectionLink] = lock.withLock {
            var entropy = SystemEntropy()
            let now = Int64(Date().timeIntervalSince1970)
            let out = step(&state, now, &entropy)
            if let journal, !out.records.isEmpty {
                do { try journal.append(out.records) } catch {
                    // Nothing that is not on disk may be answered: a store that cannot be written stops the server.
                    log("{\"event\":\"storeFailed\",\"reason\":\(jsonString("\(error)"))}")
                    exit(3)
                }
            }
            return out.deliveries.compactMap { d in
                let link = links[d.connection]
                link?.enqueue(d.transmissions)
                return link
            }
        }
        for link in targets { link.send() }
    }
}

/// A JSON string literal: quotes, backslashes and control characters escaped.
func jsonString(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case _ where u.value < 0x20:
            out += "\\u" + String(repeating: "0", count: 4 - String(u.value, radix: 16).count) + String(u.value, radix: 16)
        default: out.unicodeScalars.append(u)
        }
    }
    return out + "\""
}

/// A connection's TLS and block framing, shared by its reader thread and the threads of connections whose blocks
/// caused transmissions to it. Writes never wait for the socket: what it does not take at once stays in order in
/// `unsent`, and a flusher thread, started when first needed, waits for the socket and writes it, so that a slow
/// reader holds up nobody else. Everything is under one lock, so TLS records leave in the order they were made.
final class ConnectionLink: @unchecked Sendable {
    let socket: TCPConnection
    private let tls: SMPTLSConnection
    private let lock = NSCondition()
    private var machine: ServerConnection?
    /// Transmissions queued for this connection, not yet sealed into blocks.
    private var pending: [[UInt8]] = []
    /// TLS bytes the socket has not taken yet, from `unsentStart`.
    private var unsent: [UInt8] = []
    private var unsentStart = 0
    private var flusherStarted = false
    private var stopped = false

    init(socket: TCPConnection, tls: SMPTLSConnection) {
        self.socket = socket
        self.tls = tls
    }

    func receive(_ bytes: [UInt8]) throws -> [SMPTLSEvent] {
        try lock.withLock {
            defer { flush() }
            return try tls.receive(bytes)
        }
    }

    /// The TLS session is up: the SMP connection starts with its server hello.
    func start(_ m: ServerConnection) throws {
        try lock.withLock {
            machine = m
            try tls.send(m.serverHelloBlock)
            flush()
        }
    }

    func receiveBlocks(_ data: [UInt8]) -> [ConnectionEvent] {
        lock.withLock {
            guard var m = machine else { return [] }
            defer { machine = m }
            return m.receive(data)
        }
    }

    var encryptsBlocks: Bool { lock.withLock { machine?.encryptsBlocks ?? false } }

    func endOfStream() -> ConnectionCloseReason? {
        lock.withLock {
            guard var m = machine else { return nil }
            defer { machine = m }
            return m.endOfStream()
        }
    }

    /// Queues transmissions; called under the server's lock, so that every connection's queue is in the order
    /// its events happened. `send` seals and writes them.
    func enqueue(_ ts: [[UInt8]]) {
        guard !ts.isEmpty else { return }
        lock.withLock { pending += ts }
    }

    /// Seals what is queued into blocks and writes it, on the calling thread, outside the server's lock.
    func send() {
        lock.withLock {
            guard !pending.isEmpty, var m = machine, !stopped else { return }
            let ts = pending
            pending = []
            do {
                let blocks = try m.seal(ts)
                machine = m
                try tls.send(blocks)
            } catch {
                stopped = true
                socket.shutdown()
                return
            }
            flush()
        }
    }

    /// Ends the connection, after its last bytes (the TLS close) had a moment to leave.
    func close() {
        let deadline = Date().addingTimeInterval(1)
        lock.withLock {
            tls.close()
            flush()
            stopped = true
            lock.broadcast()
        }
        while lock.withLock({ unsentStart < unsent.count }), Date() < deadline {
            guard (try? socket.waitWritable(timeout: 0.1)) != nil else { break }
            lock.withLock { write() }
        }
        socket.shutdown()
    }

    /// Under the lock: the TLS output goes to the socket now, or behind what is already waiting.
    private func flush() {
        let out = tls.takeOutgoing()
        guard !out.isEmpty else { return }
        if unsentStart == unsent.count {
            unsent = out
            unsentStart = 0
        } else {
            unsent += out
        }
        write()
        if unsentStart < unsent.count && !stopped {
            if !flusherStarted {
                flusherStarted = true
                let t = Thread { [self] in flushLoop() }
                t.stackSize = 1 << 20
                t.start()
            }
            lock.signal()
        }
    }

    /// Under the lock: as much of `unsent` as the socket takes without waiting.
    private func write() {
        do {
            unsentStart += try socket.writeAvailable(unsent[unsentStart...])
        } catch {
            unsent = []
            unsentStart = 0
            stopped = true
            socket.shutdown()
            return
        }
        if unsentStart == unsent.count {
            unsent = []
            unsentStart = 0
        } else if unsentStart > 1 << 20 {
            unsent.removeFirst(unsentStart)
            unsentStart = 0
        }
    }

    private func flushLoop() {
        while true {
            let waiting: Bool = lock.withLock {
                while unsentStart == unsent.count && !stopped { lock.wait() }
                return !stopped
            }
            guard waiting else { return }
            // The wait for the socket is outside the lock: the other threads keep queueing behind it meanwhile.
            guard (try? socket.waitWritable(timeout: 1)) != nil else { return }
            lock.withLock { write() }
        }
    }
}
