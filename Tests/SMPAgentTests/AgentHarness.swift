import Foundation
import SMP
import SMPAgent
import SMPClient
import TestSupport
import XCTest

/// A file in memory when the machine has /dev/shm (each synced write costs less there).
func temporaryPath(_ name: String) -> String {
    let shm = URL(fileURLWithPath: "/dev/shm")
    let folder = FileManager.default.fileExists(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
    return folder.appendingPathComponent("\(name)-\(UUID().uuidString)").path
}

/// The events an agent emitted, kept until a test takes them.
actor EventInbox {
    private var events: [AgentEvent] = []

    func add(_ event: AgentEvent) { events.append(event) }

    /// The first event `match` accepts (removed from the inbox), waiting up to `timeout` seconds for it.
    func take<T: Sendable>(
        _ what: String, timeout: Double = 20, _ match: @Sendable (AgentEvent) -> T?
    ) async throws -> T {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let i = events.firstIndex(where: { match($0) != nil }), let value = match(events.remove(at: i)) {
                return value
            }
            if Date() > deadline { throw PeerFailure("no \(what) within \(timeout) s; events: \(events.prefix(20))") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until an event `match` accepts is in the inbox, leaving it there.
    func waitFor(_ what: String, timeout: Double = 20, _ match: @Sendable (AgentEvent) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !events.contains(where: match) {
            if Date() > deadline { throw PeerFailure("no \(what) within \(timeout) s") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func count(_ match: @Sendable (AgentEvent) -> Bool) -> Int { events.filter(match).count }

    func removeAll(_ match: @Sendable (AgentEvent) -> Bool) { events.removeAll(where: match) }

    var all: [AgentEvent] { events }
}

/// One agent over its own store file, as the layer above uses it: every `MSG` is acknowledged once it is "stored"
/// (here: put in the inbox), with a receipt when `receipts`; every `RCVD` is acknowledged.
final class TestAgent: @unchecked Sendable {
    let path: String
    let server: SMPServer
    let receipts: Bool
    private(set) var store: AgentStoreActor
    private(set) var agent: Agent
    let inbox = EventInbox()
    private var pump: Task<Void, Never>?

    static let fast = SMPClientConfiguration(
        connectTimeout: 5, timing: SMPConnectionTiming(responseTimeout: 5), reconnectDelay: 0.1, maxReconnectDelay: 0.5)

    init(server: SMPServer, receipts: Bool = true, path: String = temporaryPath("agent")) async throws {
        self.path = path
        self.server = server
        self.receipts = receipts
        store = try AgentStoreActor(path: path)
        agent = Agent(store: store, configuration: Self.configuration(server))
        startPump()
        try await agent.start()
    }

    static func configuration(_ server: SMPServer) -> AgentConfiguration {
        AgentConfiguration(
            server: server, client: fast, retryInterval: 0.05, maxRetryInterval: 0.5, quotaRetryInterval: 0.5)
    }

    private func startPump() {
        let (agent, inbox, receipts) = (agent, inbox, receipts)
        pump = Task {
            for await event in agent.events {
                await inbox.add(event)
                switch event {
                case .msg(let conn, let meta, _): try? await agent.ackMessage(conn, meta.msgId, receipt: receipts)
                case .rcvd(let conn, let meta, _): try? await agent.ackMessage(conn, meta.msgId)
                default: break
                }
            }
        }
    }

    /// Stops the agent as a crash would leave it, then starts a new one over the same file.
    func restart() async throws {
        await stop()
        try await startAgain()
    }

    /// Closes the agent and its store file, as a process that ends.
    func stop() async {
        await agent.close()
        await pump?.value
        await store.close()
    }

    func startAgain() async throws {
        store = try AgentStoreActor(path: path)
        agent = Agent(store: store, configuration: Self.configuration(server))
        startPump()
        try await agent.start()
    }

    func close() async {
        await agent.close()
        await pump?.value
        await store.close()
        try? FileManager.default.removeItem(atPath: path)
    }
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
