// §4.12 server tests: `/_server test <userId> <server>` and `/smp test <server>`. The checks are the controller's,
// on its state; the test itself is network work that the engine runs outside the command's turn
// (`ChatEngine.execute`), since it waits for a server for seconds.
internal import ChatModel
internal import SMP

/// A server test the engine is to run, and what it answers with.
struct ServerTestRequest: Sendable {
    var user: User
    /// The server as given, with its password (`testServer` of `serverTestResult`).
    var testServer: String
    var test: SMPServerTest

    func run() async -> ChatResponse {
        .serverTestResult(user: user, testServer: testServer, testFailure: await test.run())
    }
}

extension ChatController {
    /// The server test a command asks for, checked as the core checks it (`withUserId` for the API form, `withUser`
    /// for the human one); nil for every other command. XFTP and notification servers are not served yet.
    func serverTestRequest(_ command: ChatCommand) throws(ChatError) -> ServerTestRequest? {
        switch command {
        case .apiTestProtoServer(let a): return try serverTestRequest(user: try requireStartedUser(a.userId), a.server)
        case .human(.testProtoServer(let a)): return try serverTestRequest(user: try requireStartedUser(), a.server)
        default: return nil
        }
    }

    private func serverTestRequest(user: User, _ text: String) throws(ChatError) -> ServerTestRequest {
        for scheme in ["xftp://", "ntf://"] where text.hasPrefix(scheme) {
            throw .error(.commandError("\(scheme.dropLast(3)) server tests are not served by the embedded core yet"))
        }
        let server: SMPServerWithAuth
        do {
            server = try SMPServerWithAuth(parsing: text)
        } catch {
            throw .error(.commandError("invalid server address: \(error.reason)"))
        }
        let test = SMPServerTest(
            server: server, connectTimeout: Self.seconds(networkConfig.tcpConnectTimeout),
            responseTimeout: Self.seconds(networkConfig.tcpTimeout), webPort: Self.webPort(networkConfig.smpWebPortServers))
        return ServerTestRequest(user: user, testServer: server.text, test: test)
    }

    /// A command's interactive timeout (`netTimeoutInt … NRMInteractive`) in seconds.
    private static func seconds(_ t: NetworkConfig.NetworkTimeout) -> Double {
        switch t {
        case .single(let us): Double(us) / 1_000_000
        case .split(_, let us): Double(us) / 1_000_000
        }
    }

    private static func webPort(_ w: NetworkConfig.SMPWebPortServers) -> WebPortServers {
        switch w {
        case .all: .all
        case .preset: .preset
        case .off: .off
        }
    }
}
