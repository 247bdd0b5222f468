import Foundation
import SMP
import SMPClient
import SimplexCrypto
import SimplexNet
import SimplexTLS

/// The SMP client through our test server on loopback (smp.md §2, §3), beside its floors measured in the same run:
/// SEND→MSG latency and pipelined messages per second beside a bare TLS echo of 16 KiB blocks with the same TLS
/// profile plus the per-message crypto (the SEND's signature, the §3.7 box both ends, block encryption both ways);
/// and the client's memory per subscribed queue. The server runs as a separate process (`smp-test-server` beside
/// this program), so that its memory is not counted and its scheduling is its own, as with a real relay.
/// glibc's `malloc_trim` (malloc.h, which the Glibc module does not export).
@_silgen_name("malloc_trim") func mallocTrim(_ pad: Int) -> Int32

enum SMPBenchmark {
    static let body = [UInt8](repeating: 0x61, count: 16_000)

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    static func clock() -> Double { SessionBenchmark.clock() }
    static func ms(_ s: Double) -> String { String(format: "%8.3f ms", s * 1000) }
    static func quantile(_ xs: [Double], _ q: Double) -> Double {
        let s = xs.sorted()
        return s[min(s.count - 1, Int(Double(s.count) * q))]
    }

    /// The server process, killed when the benchmark ends.
    final class ServerProcess {
        let process = Process()
        let server: SMPServer

        init() throws {
            let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            let binary = here.appendingPathComponent("smp-test-server").path
            guard FileManager.default.isExecutableFile(atPath: binary) else {
                throw Failure("\(binary) not found: build the smp-test-server product in the same configuration")
            }
            process.executableURL = URL(fileURLWithPath: binary)
            // A quota above the messages in flight: the throughput run queues messages faster than one recipient drains.
            process.arguments = ["--listen", "127.0.0.1", "--quota", "1000000", "--quiet"]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            var line: [UInt8] = []
            while true {
                let chunk = out.fileHandleForReading.readData(ofLength: 1)
                guard let byte = chunk.first else { throw Failure("smp-test-server exited before its address") }
                if byte == UInt8(ascii: "\n") { break }
                line.append(byte)
            }
            guard let json = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                let address = json["address"] as? String
            else { throw Failure("smp-test-server printed no address") }
            server = try SMPServer(parsing: address)
        }

        var rss: Int { SMPBenchmark.rss(pid: process.processIdentifier) }

        func stop() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// VmRSS in bytes from /proc (self when pid is nil).
    static func rss(pid: Int32? = nil) -> Int {
        let path = pid.map { "/proc/\($0)/status" } ?? "/proc/self/status"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kb = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return kb * 1024
        }
        return 0
    }

    /// Freed memory returned to the system first, so that RSS counts what is held.
    static func heldRSS() -> Int {
        _ = mallocTrim(0)
        return rss()
    }

    static func run(messages: Int, queues: Int) async throws {
        let server = try ServerProcess()
        defer { server.stop() }
        print("SMP through smp-test-server (a separate process) on 127.0.0.1, \(body.count)-byte bodies, \(messages) messages:")

        // (1) SEND→MSG, one message in flight, between two connections.
        let senderClient = SMPClient()
        let recipientClient = SMPClient()
        let queue = try await recipientClient.createQueue(on: server.server)
        let senderKey = Ed25519.PrivateKey()
        try await senderClient.secure(queue.senderQueue, senderKey: senderKey)
        let stream = try await recipientClient.subscribe(queue)
        // The recipient reads its stream in a task of its own, as an application does, and notes when each message
        // reached it; the sender awaits its SEND's `OK` meanwhile. The clock runs from the call to `send` to the
        // message in the recipient's hands, with no task made per message to wait for both at once.
        let (arrivals, arrived) = AsyncStream.makeStream(of: Result<Double, Failure>.self)
        let reader = Task { await readArrivals(stream, client: recipientClient, queue: queue, into: arrived) }
        var arrivalTimes = arrivals.makeAsyncIterator()
        func nextArrival() async throws -> Double {
            switch await arrivalTimes.next() {
            case .success(let at): return at
            case .failure(let e): throw e
            case nil: throw Failure("the subscription ended")
            }
        }
        // The latency and its floors take turns in short rounds, so that a load that comes and goes on a shared
        // machine falls on all of them alike.
        let echo = try TLSEcho()
        var latencies: [Double] = []
        var echoes: [Double] = []
        var pings: [Double] = []
        var cryptoSamples = CryptoSamples()
        let rounds = 10
        for round in 0...rounds {
            // Round 0 warms up and is not counted.
            let n = round == 0 ? min(100, messages) : max(1, messages / rounds)
            var times: [Double] = []
            for _ in 0..<n {
                let t = clock()
                try await senderClient.send(to: queue.senderQueue, senderKey: senderKey, body: body)
                times.append(try await nextArrival() - t)
            }
            // PING→PONG on the sender's connection: a round trip whose only crypto is its two blocks, to tell the
            // stack's own cost from the crypto's.
            var pingTimes: [Double] = []
            for _ in 0..<n {
                let t = clock()
                try await senderClient.ping(server.server)
                pingTimes.append(clock() - t)
            }
            let echoTimes = try echo.roundTrips(n)
            var cryptoTimes = CryptoSamples()
            try cryptoTimes.measure(n)
            if round > 0 {
                latencies += times
                echoes += echoTimes
                pings += pingTimes
                cryptoSamples.append(cryptoTimes)
            }
        }
        echo.close()

        // Pipelined: every message sent at once from one connection, received and acknowledged on the other.
        let t0 = clock()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for _ in 0..<messages {
                    try await senderClient.send(to: queue.senderQueue, senderKey: senderKey, body: body)
                }
            }
            for _ in 0..<messages { _ = try await nextArrival() }
            try await group.waitForAll()
        }
        let perSecond = Double(messages) / (clock() - t0)
        await senderClient.close()
        await recipientClient.close()
        await reader.value

        let crypto = cryptoSamples.medians
        let floor = quantile(echoes, 0.5) + crypto.total
        let latency = quantile(latencies, 0.5)
        let floorRate = 1 / crypto.total
        print("  SEND→MSG latency         median \(ms(latency))   p99 \(ms(quantile(latencies, 0.99)))")
        print("  PING→PONG                median \(ms(quantile(pings, 0.5)))   p99 \(ms(quantile(pings, 0.99)))")
        print("  TLS echo, 16 KiB block   median \(ms(quantile(echoes, 0.5)))   p99 \(ms(quantile(echoes, 0.99)))")
        print(
            "  crypto floor per message       \(ms(crypto.total))   (sign \(ms(crypto.sign)), verify \(ms(crypto.verify)), §3.7 box \(ms(crypto.box)), blocks \(ms(crypto.blocks)))"
        )
        print("  pipelined                \(String(format: "%8.0f", perSecond)) messages/s")

        // (4) The client's memory for `queues` subscribed queues, the server's excluded.
        let memory = try await queueMemory(server: server, count: queues)

        let latencyRatio = latency / floor
        let perQueue = Double(memory.total) / Double(queues)
        print("\ngoals, one run:")
        let rows: [(String, String, String, Bool?)] = [
            (
                "SEND→MSG / (TLS echo + crypto)", String(format: "%6.2fx", latencyRatio), "≤ 1.50x", latencyRatio <= 1.5
            ),
            (
                "p99 SEND→MSG / (TLS echo + crypto)", String(format: "%6.2fx", quantile(latencies, 0.99) / floor), "—",
                nil
            ),
            (
                "messages/s / (1 / crypto floor)", String(format: "%6.2fx", perSecond / floorRate), "—", nil
            ),
            ("client memory per subscribed queue", String(format: "%6.0f B", perQueue), "≤ 1024 B", perQueue <= 1024),
        ]
        for (name, value, goal, met) in rows {
            print(
                "  " + name.padding(toLength: 40, withPad: " ", startingAt: 0)
                    + value.padding(toLength: 10, withPad: " ", startingAt: 0)
                    + "goal " + goal + (met.map { $0 ? "   met" : "   not met" } ?? ""))
        }
        print("    (1 / crypto floor: \(String(format: "%.0f", floorRate)) messages/s, the crypto of one message on one core)")
    }

    /// The recipient's loop: when each message arrived, after checking and acknowledging it.
    static func readArrivals(
        _ stream: AsyncStream<SMPQueueEvent>, client: SMPClient, queue: RecipientQueue,
        into arrived: AsyncStream<Result<Double, Failure>>.Continuation
    ) async {
        defer { arrived.finish() }
        for await event in stream {
            let at = clock()
            guard case .message(let m) = event else { return }
            guard case .success(.message(_, _, let got)) = m.content, got == body else {
                arrived.yield(.failure(Failure("message altered")))
                return
            }
            do { try await client.ack(queue, msgId: m.msgId) } catch {
                arrived.yield(.failure(Failure("ACK: \(error)")))
                return
            }
            arrived.yield(.success(at))
        }
    }

    /// Round trips of one 16,384-byte block through `SMPTLSConnection` at both ends over SimplexNet TCP.
    final class TLSEcho {
        let client: SMPTLSConnection
        let socket: TCPConnection
        let block = SecureRandom.bytes(SMPLimits.blockSize)

        init() throws {
            let now = Int64(time(nil))
            let credential = try ServerCredential.generate(algorithm: .ed25519, length: .two, now: now)
            let listener = try TCPListener(address: "127.0.0.1")
            let server = try SMPTLSConnection(credential: credential)
            client = try SMPTLSConnection(serverIdentity: credential.fingerprint, webPort: false, now: now)
            socket = try TCPConnection.connect(to: listener.endpoint, timeout: 2)
            guard let serverSocket = try listener.accept(timeout: 2) else { throw NetError.timedOut }
            let owned = SessionBenchmark.OwnedByThread(server)
            Thread {
                let server = owned.value
                while let bytes = try? serverSocket.read() {
                    guard let events = try? server.receive(bytes) else { return }
                    for case .applicationData(let d) in events { try? server.send(d) }
                    try? serverSocket.write(server.takeOutgoing())
                }
            }.start()
            try client.start()
            while !client.isEstablished {
                try socket.write(client.takeOutgoing())
                _ = try client.receive(try socket.read(timeout: 5))
            }
            try socket.write(client.takeOutgoing())
        }

        func roundTrips(_ n: Int) throws -> [Double] {
            var times: [Double] = []
            for _ in 0..<n {
                let t = clock()
                try client.send(block)
                try socket.write(client.takeOutgoing())
                var got = 0
                while got < block.count {
                    for case .applicationData(let d) in try client.receive(try socket.read(timeout: 5)) { got += d.count }
                }
                times.append(clock() - t)
            }
            return times
        }

        func close() { socket.shutdown() }
    }

    /// The crypto of one message on its way, each step timed alone: the sender signs SEND and the server verifies
    /// it, the server boxes the body for the recipient and the recipient opens it (§3.7), and the SEND and MSG blocks
    /// are each sealed and opened (§2.6).
    struct CryptoSamples {
        var sign: [Double] = []
        var verify: [Double] = []
        var box: [Double] = []
        var blocks: [Double] = []

        mutating func append(_ other: CryptoSamples) {
            sign += other.sign
            verify += other.verify
            box += other.box
            blocks += other.blocks
        }

        var medians: (sign: Double, verify: Double, box: Double, blocks: Double, total: Double) {
            let m = { (xs: [Double]) in SMPBenchmark.quantile(xs, 0.5) }
            return (m(sign), m(verify), m(box), m(blocks), m(sign) + m(verify) + m(box) + m(blocks))
        }

        mutating func measure(_ rounds: Int) throws {
            let parameters = TransportParameters(version: SMPVersion.current, sessionId: SessionId(SecureRandom.bytes(32)))
            let senderId = EntityId(SecureRandom.bytes(24))
            let key = Ed25519.PrivateKey()
            let secret = try X25519.PrivateKey().sharedSecret(with: X25519.PrivateKey().publicKey)
            var clientBlocks = BlockEncryption.client(sessionId: parameters.sessionId, secret: secret)
            var serverBlocks = BlockEncryption.server(sessionId: parameters.sessionId, secret: secret)
            let flags = MessageFlags(notification: false)
            let content = ReceivedMessageContent.message(timestamp: 1_780_000_000, flags: flags, body: body)
            for _ in 0..<rounds {
                var t = clock()
                let transmission = try Transmissions.encodeCommand(
                    corrId: .random(), entityId: senderId, command: .send(flags: flags, body: body),
                    parameters: parameters, signedWith: key)
                sign.append(clock() - t)
                let forAuth = try Transmissions.bytesForAuthorization(
                    corrId: .random(), entityId: senderId, command: .send(flags: flags, body: body), parameters: parameters)
                let signature = key.signature(for: forAuth)
                t = clock()
                guard key.publicKey.isValidSignature(signature, for: forAuth) else { throw Failure("signature") }
                verify.append(clock() - t)
                let msgId = MsgId(SecureRandom.bytes(24))
                t = clock()
                let sealed = try ReceivedMessage.seal(content, msgId: msgId, secret: secret)
                _ = try sealed.open(secret: secret)
                box.append(clock() - t)
                let msg = try Transmissions.encodeResponse(
                    corrId: CorrId([]), entityId: EntityId(SecureRandom.bytes(24)), message: .msg(sealed),
                    parameters: parameters)
                t = clock()
                _ = try serverBlocks.open(try clientBlocks.seal(TransmissionBatch.encode([transmission])))
                _ = try clientBlocks.open(try serverBlocks.seal(TransmissionBatch.encode([msg])))
                blocks.append(clock() - t)
            }
        }
    }

    /// RSS growth of this process from one connected client to `count` queues created and subscribed on it.
    static func queueMemory(server: ServerProcess, count: Int) async throws -> (total: Int, subscriptions: Int) {
        let client = SMPClient()
        let address = server.server
        _ = try await client.connect(to: address)
        let before = heldRSS()
        let serverBefore = server.rss
        var created: [RecipientQueue] = []
        created.reserveCapacity(count)
        let window = 64
        let started = clock()
        for start in stride(from: 0, to: count, by: window) {
            try await withThrowingTaskGroup(of: RecipientQueue.self) { group in
                for _ in start..<min(count, start + window) {
                    group.addTask { try await client.createQueue(on: address) }
                }
                for try await q in group { created.append(q) }
            }
        }
        let afterCreate = heldRSS()
        var streams: [AsyncStream<SMPQueueEvent>] = []
        streams.reserveCapacity(count)
        for start in stride(from: 0, to: count, by: window) {
            try await withThrowingTaskGroup(of: AsyncStream<SMPQueueEvent>.self) { group in
                for q in created[start..<min(count, start + window)] {
                    group.addTask { try await client.subscribe(q) }
                }
                for try await s in group { streams.append(s) }
            }
        }
        let after = heldRSS()
        let elapsed = clock() - started
        let perQueue = { (bytes: Int) in String(format: "%.0f B/queue", Double(bytes) / Double(count)) }
        print("\nclient memory, \(count) queues created and subscribed on one connection (\(String(format: "%.1f", elapsed)) s):")
        print("  RSS connected            \(before / 1024) KiB")
        print(
            "  after NEW ×\(count)        +\((afterCreate - before) / 1024) KiB   \(perQueue(afterCreate - before))  (queue keys and ids)"
        )
        print(
            "  after SUB ×\(count)        +\((after - afterCreate) / 1024) KiB   \(perQueue(after - afterCreate))  (subscription table, streams)"
        )
        print("  total                    +\((after - before) / 1024) KiB   \(perQueue(after - before))")
        print("  (server process, not counted: +\((server.rss - serverBefore) / 1024) KiB)")
        withExtendedLifetime((created, streams)) {}
        // Where the queues' memory goes: their key objects alone, as many again.
        let keysBefore = heldRSS()
        let keys = (0..<count).map { _ in (Ed25519.PrivateKey(), X25519.PrivateKey()) }
        let keysAfter = heldRSS()
        print("  of which key objects: \(count) × (Ed25519 + X25519 private key) alone \(perQueue(keysAfter - keysBefore))")
        withExtendedLifetime(keys) {}
        await client.close()
        return (after - before, after - afterCreate)
    }
}
