internal import Foundation
internal import SMP
internal import SMPClient
internal import SimplexCrypto

/// A step of a server test (`ProtocolTestStep`, chat-api.md §8; simplexmq's `enumJSON` with `TS` dropped: a bare
/// string). Only the SMP steps are taken here; XFTP's are not served yet.
public enum ProtocolTestStep: String, Sendable, CaseIterable {
    case connect
    case disconnect
    case createQueue
    case secureQueue
    case deleteQueue
}

/// Where a server test failed and why (`ProtocolTestFailure`, chat-api.md §8): `{testStep, testError}`.
public struct ProtocolTestFailure: Equatable, Sendable {
    public var testStep: ProtocolTestStep
    public var testError: AgentError

    public init(testStep: ProtocolTestStep, testError: AgentError) {
        self.testStep = testStep
        self.testError = testError
    }

    public var json: JSONValue { .record(["testStep": .string(testStep.rawValue), "testError": testError.json]) }
}

/// `/_server test` on an SMP server (the agent's `runSMPServerTest`): a connection of its own, `NEW` with a
/// subscription, the queue secured (`SKEY` by the sender when the server made a messaging queue the sender secures,
/// else `KEY`), `DEL`, and the connection closed within the response timeout. The first step that fails is the
/// answer; none is success.
struct SMPServerTest: Sendable {
    var server: SMPServerWithAuth
    /// The interactive `tcpConnectTimeout` and `tcpTimeout` of the network configuration, in seconds.
    var connectTimeout: Double
    var responseTimeout: Double
    var webPort: WebPortServers

    func run() async -> ProtocolTestFailure? {
        let srv = server.server
        let timing = SMPConnectionTiming(responseTimeout: responseTimeout)
        // A client of the test's own, as the agent makes a protocol client outside its pool for it; no reconnects.
        let client = SMPClient(
            configuration: SMPClientConfiguration(connectTimeout: connectTimeout, timing: timing, webPort: webPort))
        do throws(SMPClientError) {
            _ = try await client.connect(to: srv)
        } catch {
            await client.close()
            return ProtocolTestFailure(testStep: .connect, testError: AgentError(connecting: error, server: srv))
        }
        let failure = await queueSteps(client)
        let closed = await withTimeout(responseTimeout) { await client.close() }
        if let failure { return failure }
        if !closed {
            return ProtocolTestFailure(testStep: .disconnect, testError: .broker(brokerAddress: srv.text, .timeout))
        }
        return nil
    }

    private func queueSteps(_ client: SMPClient) async -> ProtocolTestFailure? {
        let srv = server.server
        var step = ProtocolTestStep.createQueue
        do throws(SMPClientError) {
            let queue = try await client.createQueue(on: srv, basicAuth: server.basicAuth, subscribe: true)
            step = .secureQueue
            let senderKey = Ed25519.PrivateKey()
            if queue.queueMode == .messaging {
                try await client.secure(queue.senderQueue, senderKey: senderKey)
            } else {
                try await client.secure(queue, senderKey: senderKey.publicKey)
            }
            step = .deleteQueue
            try await client.delete(queue)
            return nil
        } catch {
            return ProtocolTestFailure(testStep: step, testError: AgentError(error, server: srv))
        }
    }

    /// Whether `body` finished within `seconds`.
    private func withTimeout(_ seconds: Double, _ body: @escaping @Sendable () async -> Void) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await body()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
