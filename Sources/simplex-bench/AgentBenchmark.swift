import Foundation
import SMP
import SMPAgent
import SMPClient
import SimplexCrypto

/// Two SMP agents through our test server on loopback (smp.md §4.5–§4.9), beside the SMP-level floor measured in the
/// same run (bare SEND→MSG through the same server, the same TLS connections' worth of work without the agent):
/// `sendMessage`→`MSG` latency with one message in flight, and messages per second one way and both ways at once,
/// the receiver acknowledging each message as the layer above would (no receipts, then with receipts).
enum AgentBenchmark {
    typealias Failure = SMPBenchmark.Failure

    static func ms(_ s: Double) -> String { SMPBenchmark.ms(s) }
    static func quantile(_ xs: [Double], _ q: Double) -> Double { SMPBenchmark.quantile(xs, q) }

    /// An agent over a store file in memory (/dev/shm when there is one), acknowledging what it receives.
    final class Party: @unchecked Sendable {
        let path: String
        let store: AgentStoreActor
        let agent: Agent
        private let lock = NSLock()
        private var received: [AgentConnId: Int] = [:]
        private var lastArrivalTime: Double = 0
        var receipts = false
        private var pump: Task<Void, Never>?

        init(server: SMPServer, name: String) async throws {
            let shm = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
            path = "\(shm)/simplex-bench-agent-\(name)-\(getpid())"
            try? FileManager.default.removeItem(atPath: path)
            store = try AgentStoreActor(path: path)
            agent = Agent(
                store: store, configuration: AgentConfiguration(server: server, retryInterval: 0.05, quotaRetryInterval: 0.5))
            try await agent.start()
            let agent = agent
            pump = Task { [weak self] in
                for await event in agent.events {
                    switch event {
                    case .msg(let conn, let meta, _):
                        let t = SMPBenchmark.clock()
                        self?.arrived(conn, at: t)
                        try? await agent.ackMessage(conn, meta.msgId, receipt: self?.receipts ?? false)
                    case .rcvd(let conn, let meta, _): try? await agent.ackMessage(conn, meta.msgId)
                    // Only the handshake's events are waited for; the rest (SENT for every message) are dropped.
                    case .conf, .con: self?.other(event)
                    default: break
                    }
                }
            }
        }

        private var others: [AgentEvent] = []
        private func other(_ e: AgentEvent) {
            lock.lock()
            others.append(e)
            lock.unlock()
        }

        private func arrived(_ conn: AgentConnId, at t: Double) {
            lock.lock()
            received[conn, default: 0] += 1
            lastArrivalTime = t
            lock.unlock()
        }

        func count(_ conn: AgentConnId) -> Int {
            lock.lock()
            defer { lock.unlock() }
            return received[conn, default: 0]
        }

        func lastArrival() -> Double {
            lock.lock()
            defer { lock.unlock() }
            return lastArrivalTime
        }

        func take(_ match: (AgentEvent) -> Bool) async throws -> AgentEvent {
            let deadline = SMPBenchmark.clock() + 30
            while SMPBenchmark.clock() < deadline {
                if let e = removeFirst(match) { return e }
                try await Task.sleep(for: .milliseconds(1))
            }
            throw Failure("an expected agent event did not come")
        }

        private func removeFirst(_ match: (AgentEvent) -> Bool) -> AgentEvent? {
            lock.withLock {
                guard let i = others.firstIndex(where: match) else { return nil }
                return others.remove(at: i)
            }
        }

        func waitFor(_ conn: AgentConnId, count: Int) async throws {
            let deadline = SMPBenchmark.clock() + 300
            while self.count(conn) < count {
                if SMPBenchmark.clock() > deadline { throw Failure("\(self.count(conn)) of \(count) messages arrived") }
                try await Task.sleep(for: .microseconds(200))
            }
        }

        func close() async {
            await agent.close()
            await pump?.value
            await store.close()
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
    }

    static func run(messages: Int) async throws {
        let server = try SMPBenchmark.ServerProcess()
        defer { server.stop() }
        print("SMP agents through smp-test-server (a separate process) on 127.0.0.1, \(messages) messages:")

        // The SMP floor: SEND→MSG and pipelined SEND/MSG/ACK with bare clients, 16,043-byte bodies as the agent's.
        let body = [UInt8](repeating: 0x61, count: 16_043)
        let sender = SMPClient()
        let recipient = SMPClient()
        let queue = try await recipient.createQueue(on: server.server)
        let key = Ed25519.PrivateKey()
        try await sender.secure(queue.senderQueue, senderKey: key)
        var events = try await recipient.subscribe(queue).makeAsyncIterator()
        var floor: [Double] = []
        for i in 0..<(200 + 20) {
            let t = SMPBenchmark.clock()
            async let sent: Void = sender.send(to: queue.senderQueue, senderKey: key, body: body)
            guard case .message(let m) = await events.next() else { throw Failure("the subscription ended") }
            let elapsed = SMPBenchmark.clock() - t
            try await sent
            try await recipient.ack(queue, msgId: m.msgId)
            if i >= 20 { floor.append(elapsed) }
        }
        let t0 = SMPBenchmark.clock()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for _ in 0..<messages { try await sender.send(to: queue.senderQueue, senderKey: key, body: body) }
            }
            for _ in 0..<messages {
                guard case .message(let m) = await events.next() else { throw Failure("the subscription ended") }
                try await recipient.ack(queue, msgId: m.msgId)
            }
            try await group.waitForAll()
        }
        let floorRate = Double(messages) / (SMPBenchmark.clock() - t0)
        await sender.close()
        await recipient.close()

        // The agents.
        let alice = try await Party(server: server.server, name: "alice")
        let bob = try await Party(server: server.server, name: "bob")
        let (aConn, link) = try await alice.agent.createConnection()
        let bConn = try await bob.agent.joinConnection(link, connInfo: Array("bob".utf8))
        guard case .conf(_, let confirmationId, _, _) = try await alice.take({ if case .conf = $0 { true } else { false } })
        else { throw Failure("no CONF") }
        try await alice.agent.allowConnection(aConn, confirmationId: confirmationId, connInfo: Array("alice".utf8))
        _ = try await alice.take { $0 == .con(aConn) }
        _ = try await bob.take { $0 == .con(bConn) }

        let chatBody = [UInt8](repeating: 0x61, count: 15_000)
        var latencies: [Double] = []
        for i in 0..<(200 + 20) {
            let before = bob.count(bConn)
            let t = SMPBenchmark.clock()
            _ = try await alice.agent.sendMessage(aConn, body: chatBody)
            try await bob.waitFor(bConn, count: before + 1)
            if i >= 20 { latencies.append(bob.lastArrival() - t) }
        }

        func oneWay(_ from: Party, _ fromConn: AgentConnId, _ to: Party, _ toConn: AgentConnId) async throws -> Double {
            let before = to.count(toConn)
            let t = SMPBenchmark.clock()
            for _ in 0..<messages { _ = try await from.agent.sendMessage(fromConn, body: chatBody) }
            try await to.waitFor(toConn, count: before + messages)
            return Double(messages) / (SMPBenchmark.clock() - t)
        }
        let rate = try await oneWay(alice, aConn, bob, bConn)
        let t1 = SMPBenchmark.clock()
        async let ab = oneWay(alice, aConn, bob, bConn)
        async let ba = oneWay(bob, bConn, alice, aConn)
        _ = try await (ab, ba)
        let bothWays = Double(messages) / (SMPBenchmark.clock() - t1)
        alice.receipts = true
        bob.receipts = true
        let withReceipts = try await oneWay(alice, aConn, bob, bConn)
        await alice.close()
        await bob.close()

        let floorLatency = quantile(floor, 0.5)
        let latency = quantile(latencies, 0.5)
        print("  SMP floor SEND→MSG           median \(ms(floorLatency))   p99 \(ms(quantile(floor, 0.99)))")
        print("  agent sendMessage→MSG        median \(ms(latency))   p99 \(ms(quantile(latencies, 0.99)))")
        print(String(format: "  latency / floor              %8.2f×", latency / floorLatency))
        print(String(format: "  SMP floor pipelined          %8.0f messages/s", floorRate))
        print(String(format: "  agent one way                %8.0f messages/s  (%.2f of the floor)", rate, rate / floorRate))
        print(String(format: "  agent both ways at once      %8.0f messages/s each way", bothWays))
        print(String(format: "  agent one way with receipts  %8.0f messages/s", withReceipts))
    }
}
