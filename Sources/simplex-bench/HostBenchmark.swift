import ChatCore
import Foundation
import RemoteChat
import SimplexCrypto
import SimplexHost
import SimplexNet
import XRCP

/// The session manager under load, on loopback: how many events a second reach a controller through the event router
/// and the long poll, and what a remote `/_get chats` costs beside the same command run locally on the embedded core.
enum HostBenchmark {
    /// The embedded core, plus events made on demand: the core itself raises few, and the delivery path is measured.
    actor Backend: ChatBackend {
        let engine: ChatEngine
        private var eventsLeft = 0
        private let event: [UInt8]

        init(engine: ChatEngine, eventSize: Int) {
            self.engine = engine
            let text = String(repeating: "x", count: max(0, eventSize - 80))
            event = Array(#"{"result":{"type":"chatInfoUpdated","user":{"userId":1},"text":"\#(text)"}}"#.utf8)
        }

        func produce(_ n: Int) { eventsLeft += n }

        func execute(_ line: String) async -> [UInt8] { await engine.execute(line).bytes }

        func nextEvent(waitMicroseconds: Int64) async -> [UInt8]? {
            guard eventsLeft > 0 else {
                try? await Task.sleep(nanoseconds: UInt64(min(waitMicroseconds, 1000)) * 1000)
                return nil
            }
            eventsLeft -= 1
            return event
        }
    }

    static func run(events: Int, requests: Int) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simplex-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = try ChatEngine(prefix: folder.appendingPathComponent("bench").path, confirmation: .yesUp)
        _ = await engine.execute("/create user bench")
        _ = await engine.execute("/_start")
        let backend = Backend(engine: engine, eventSize: 1024)
        let router = EventRouter(
            backend: backend, remoteBound: Int.max, remoteBoundBytes: Int.max, isRemoteConnected: { true },
            endRemoteSession: {}, local: { _ in })
        let routerTask = Task.detached { await router.run() }
        defer { routerTask.cancel() }
        let bridge = SessionBridge(backend: backend, events: router, filesFolder: folder.appendingPathComponent("files"))

        let now = Int64(Date().timeIntervalSince1970)
        let listener = try TCPListener(address: "127.0.0.1")
        let controller = try ControllerSession(
            ControllerSessionSetup(
                authority: try CertificateAuthority.generate(now: now, hoursBefore: 25), identityKey: Ed25519.PrivateKey(),
                app: ControllerAppInfo(deviceName: "bench"), host: "127.0.0.1", port: listener.endpoint.port, now: now))
        let codes = SessionBenchmark.CodeBox()
        let connection = try HostConnection(
            setup: HostSessionSetup(
                invitation: try controller.invitation.verified(),
                authority: try CertificateAuthority.generate(now: now, hoursBefore: 1),
                app: HostAppInfo(appVersion: .current, deviceName: "bench"), now: now),
            handler: bridge
        ) { if case .sessionCode(let c) = $0 { codes.set(c) } }
        guard let socket = try listener.accept(timeout: 5) else { throw NetError.timedOut }
        await connection.run()
        func pumpUntil(_ done: ([ControllerSessionEvent]) -> Bool) throws -> [ControllerSessionEvent] {
            var all: [ControllerSessionEvent] = []
            while true {
                let out = controller.takeOutgoing()
                if !out.isEmpty { try socket.write(out) }
                all += try controller.receive(try socket.read(timeout: 5))
                if done(all) { return all }
            }
        }
        func answer(_ command: RemoteCommand) throws {
            let stream = try controller.request(command)
            _ = try pumpUntil { $0.contains { if case .response(let s, _) = $0 { s == stream } else { false } } }
        }
        _ = try pumpUntil { $0.contains { if case .sessionCode = $0 { true } else { false } } }
        while codes.value == nil { try await Task.sleep(nanoseconds: 1_000_000) }
        try await connection.verify(code: codes.value ?? "")
        _ = try pumpUntil { $0.contains { if case .established = $0 { true } else { false } } }

        // Events: one long poll at a time, as SimpleX Desktop polls.
        await backend.produce(events)
        let t0 = SessionBenchmark.clock()
        for _ in 0..<events { try answer(.recv(wait: 1_000_000)) }
        let eventSeconds = SessionBenchmark.clock() - t0

        // `/_get chats 1 pcc=on`: through the session, and on the core directly.
        var remote: [Double] = []
        var local: [Double] = []
        for _ in 0..<requests {
            var t = SessionBenchmark.clock()
            try answer(.send(command: "/_get chats 1 pcc=on", retryNumber: 0))
            remote.append(SessionBenchmark.clock() - t)
            t = SessionBenchmark.clock()
            _ = await backend.execute("/_get chats 1 pcc=on")
            local.append(SessionBenchmark.clock() - t)
        }
        await connection.stop()
        print("events to the controller, \(events) of 1 KiB through the event router and the long poll (loopback TCP):")
        print(String(format: "  %10.0f events/s", Double(events) / eventSeconds))
        let r = SessionBenchmark.median(remote)
        let l = SessionBenchmark.median(local)
        print("`/_get chats 1 pcc=on`, median of \(requests):")
        print(
            "  remote through the session \(SessionBenchmark.ms(r))   local on the core \(SessionBenchmark.ms(l))   remote costs \(SessionBenchmark.ms(r - l)) more"
        )
    }
}
