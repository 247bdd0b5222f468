public import SMP
public import SMPClient
internal import SimplexEncoding
internal import SimplexNet
internal import SimplexTLS

/// The agent's error (`AgentErrorType`, chat-api.md §8.4) for what the SMP client reports: the kinds a server test
/// can meet. simplexmq's UPPER_CASE tags and field names are kept as its JSON instances write them.
public enum AgentError: Equatable, Sendable {
    /// `SMP {serverAddress, smpErr}`: the server answered `ERR`.
    case smp(serverAddress: String, SMPErrorType)
    /// `BROKER {brokerAddress, brokerErr}`: the network, TLS, the transport or the server's answers failed.
    case broker(brokerAddress: String, BrokerErrorType)
    /// `INTERNAL {internalErr}`: our own side could not make the request.
    case `internal`(String)

    /// The agent error for an SMP client failure on `server`, as simplexmq's `protocolClientError` maps its client's
    /// errors. The one place an `SMPClientError` becomes an agent error.
    public init(_ error: SMPClientError, server: SMPServer) {
        let address = server.text
        switch error {
        case .connect(let e): self = .broker(brokerAddress: address, .network(Self.networkError(e)))
        // An onion or IPv6 host this client cannot reach is the agent's incompatible host (`PCEIncompatibleHost`).
        case .hostNotServed: self = .broker(brokerAddress: address, .host)
        case .tls(let e): self = .broker(brokerAddress: address, .network(Self.networkError(e)))
        case .transport(let e): self = .broker(brokerAddress: address, .transport(e))
        case .server(let e): self = .smp(serverAddress: address, e)
        case .unexpectedResponse(let tag): self = .broker(brokerAddress: address, .unexpected(tag))
        case .invalidCommand(let reason): self = .internal(reason)
        case .timeout: self = .broker(brokerAddress: address, .timeout)
        // The connection ended under the request: the agent's client thread ended (`NEFailedError`).
        case .connectionLost, .closed: self = .broker(brokerAddress: address, .network(.failed))
        }
    }

    /// The failure of connecting (the test's `connect` step): the same, but a timeout there is the connection's
    /// (`NETimeoutError`), not a response's — the agent's connect waits under `tcpConnectTimeout`.
    public init(connecting error: SMPClientError, server: SMPServer) {
        if case .timeout = error {
            self = .broker(brokerAddress: server.text, .network(.timeout))
        } else {
            self.init(error, server: server)
        }
    }

    private static func networkError(_ e: NetError) -> NetworkError {
        switch e {
        case .timedOut: .timeout
        case .connectionRefused: .connect("connection refused")
        case .unreachable(let reason): .connect("unreachable: \(reason)")
        case .invalidAddress(let a): .connect("invalid address: \(a)")
        case .unresolved(let host, let reason): .connect("\(host) did not resolve: \(reason)")
        case .closed: .failed
        case .system(let operation, _, let message): .connect("\(operation): \(message)")
        }
    }

    /// A server whose identity certificate is not the address's is rejected as an unknown CA, as the agent's
    /// certificate check answers `UnknownCA` (`NEUnknownCAError`); every other TLS failure is `NETLSError`.
    private static func networkError(_ e: TLSError) -> NetworkError {
        switch e {
        case .identity: .unknownCA
        case .certificateChain(let failure): .tls("certificate chain: \(failure)")
        case .noSharedApplicationProtocol(let offered): .tls("no shared application protocol: \(offered)")
        case .alertReceived(let alert): .tls("alert received: \(alert)")
        case .handshake(let reason): .tls(reason)
        case .connection(let reason): .tls(reason)
        case .configuration(let reason): .tls(reason)
        case .invalidState(let reason): .tls(reason)
        }
    }

    public var json: JSONValue {
        switch self {
        case .smp(let address, let e):
            .tagged(AgentErrorTag.smp.rawValue, ["serverAddress": .string(address), "smpErr": Self.json(e)])
        case .broker(let address, let e):
            .tagged(AgentErrorTag.broker.rawValue, ["brokerAddress": .string(address), "brokerErr": Self.json(e)])
        case .internal(let reason): .tagged(AgentErrorTag.internal.rawValue, ["internalErr": .string(reason)])
        }
    }

    // MARK: simplexmq's JSON of the protocol's errors (sumTypeJSON: every constructor an object with `type`)

    static func json(_ e: SMPErrorType) -> JSONValue {
        switch e {
        case .block: .tagged("BLOCK")
        case .session: .tagged("SESSION")
        case .cmd(let c): .tagged("CMD", ["cmdErr": .tagged(c.rawValue)])
        case .proxy(let p): .tagged("PROXY", ["proxyErr": json(p)])
        case .auth: .tagged("AUTH")
        case .blocked(let info): .tagged("BLOCKED", ["blockInfo": json(info)])
        case .service: .tagged("SERVICE")
        case .crypto: .tagged("CRYPTO")
        case .quota: .tagged("QUOTA")
        case .store(let s): .tagged("STORE", ["storeErr": .string(s)])
        case .expired: .tagged("EXPIRED")
        case .noMsg: .tagged("NO_MSG")
        case .largeMsg: .tagged("LARGE_MSG")
        case .internal: .tagged("INTERNAL")
        case .duplicate: .tagged("DUPLICATE_")
        }
    }

    static func json(_ e: ProxyError) -> JSONValue {
        switch e {
        case .protocol(let p): .tagged("PROTOCOL", ["protocolErr": json(p)])
        case .broker(let b): .tagged("BROKER", ["brokerErr": json(b)])
        case .basicAuth: .tagged("BASIC_AUTH")
        case .noSession: .tagged("NO_SESSION")
        }
    }

    static func json(_ info: BlockingInfo) -> JSONValue {
        let notice = info.notice.flatMap { try? CanonicalJSON.parse($0) }.map { JSONValue($0) }
        return .record(["reason": .string(info.reason.rawValue), "notice": notice])
    }

    static func json(_ e: BrokerErrorType) -> JSONValue {
        switch e {
        case .response(let s): .tagged("RESPONSE", ["respErr": .string(s)])
        case .unexpected(let s): .tagged("UNEXPECTED", ["respErr": .string(s)])
        case .transport(let t): .tagged("TRANSPORT", ["transportErr": json(t)])
        case .network(let n): .tagged("NETWORK", ["networkError": json(n)])
        case .timeout: .tagged("TIMEOUT")
        case .host: .tagged("HOST")
        case .noService: .tagged("NO_SERVICE")
        }
    }

    /// `NetworkError` with simplexmq's `NE` prefix dropped: `connectError`, `tLSError`, `unknownCAError`, ….
    static func json(_ e: NetworkError) -> JSONValue {
        switch e {
        case .connect(let s): .tagged("connectError", ["connectError": .string(s)])
        case .tls(let s): .tagged("tLSError", ["tlsError": .string(s)])
        case .unknownCA: .tagged("unknownCAError")
        case .failed: .tagged("failedError")
        case .timeout: .tagged("timeoutError")
        case .subscribe(let s): .tagged("subscribeError", ["subscribeError": .string(s)])
        }
    }

    /// `TransportError` with the `TE` prefix dropped: `badBlock`, `version`, `largeMsg`, `badSession`, `noServerAuth`,
    /// `handshake {handshakeErr}`.
    static func json(_ e: TransportError) -> JSONValue {
        switch e {
        case .block: .tagged("badBlock")
        case .version: .tagged("version")
        case .largeMsg: .tagged("largeMsg")
        case .session: .tagged("badSession")
        case .noAuth: .tagged("noServerAuth")
        case .handshake(let h): .tagged("handshake", ["handshakeErr": .tagged(h.rawValue)])
        }
    }
}
