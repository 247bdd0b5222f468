internal import ChatModel

/// NetworkConfig (chat-api.md §7.27): how the agent would reach servers. The embedded core has no agent, so it keeps the
/// configuration for `/network` and uses none of it. A missing field takes its default, as the core's decoder fills it.
public struct NetworkConfig: Hashable, Sendable, JSONEncodable {
    public enum SocksMode: String, Sendable { case always, onion }
    public enum HostMode: String, Sendable { case onionViaSocks, onion, `public` }
    public enum SessionMode: String, Sendable { case user, session, server, entity }
    public enum SMPProxyMode: String, Sendable { case always, unknown, unprotected, never }
    public enum SMPProxyFallback: String, Sendable { case allow, allowProtected, prohibit }
    public enum SMPWebPortServers: String, Sendable { case all, preset, off }

    /// A timeout in microseconds: one value (older cores), or one for background and one for interactive work.
    public enum NetworkTimeout: Hashable, Sendable {
        case single(Int64)
        case split(backgroundTimeout: Int64, interactiveTimeout: Int64)

        init(_ input: JSONInput) throws(ChatError) {
            if case .integer(let n) = input.value {
                self = .single(try Self.positive(n, input))
            } else {
                _ = try input.object()
                self = .split(
                    backgroundTimeout: try Self.positive(try input.required("backgroundTimeout").integer(), input),
                    interactiveTimeout: try Self.positive(try input.required("interactiveTimeout").integer(), input))
            }
        }

        private static func positive(_ n: Int64, _ input: JSONInput) throws(ChatError) -> Int64 {
            guard n > 0 else { throw input.fail("a timeout must be positive") }
            return n
        }

        var json: JSONValue {
            switch self {
            case .single(let n): .integer(n)
            case .split(let b, let i): .record(["backgroundTimeout": .integer(b), "interactiveTimeout": .integer(i)])
            }
        }
    }

    /// TCP keep-alive: seconds idle before probing, seconds between probes, probes before giving up.
    public struct KeepAlive: Hashable, Sendable {
        public var keepIdle: Int64
        public var keepIntvl: Int64
        public var keepCnt: Int64

        var json: JSONValue {
            .record(["keepIdle": .integer(keepIdle), "keepIntvl": .integer(keepIntvl), "keepCnt": .integer(keepCnt)])
        }
    }

    public var socksProxy: String?
    public var socksMode = SocksMode.always
    public var hostMode = HostMode.onionViaSocks
    public var requiredHostMode = false
    public var sessionMode = SessionMode.user
    public var smpProxyMode = SMPProxyMode.always
    public var smpProxyFallback = SMPProxyFallback.allowProtected
    public var smpWebPortServers = SMPWebPortServers.preset
    public var tcpConnectTimeout = NetworkTimeout.split(backgroundTimeout: 45_000_000, interactiveTimeout: 15_000_000)
    public var tcpTimeout = NetworkTimeout.split(backgroundTimeout: 30_000_000, interactiveTimeout: 10_000_000)
    public var tcpTimeoutPerKb: Int64 = 10_000
    public var rcvConcurrency: Int64 = 12
    public var tcpKeepAlive: KeepAlive? = KeepAlive(keepIdle: 30, keepIntvl: 15, keepCnt: 4)
    public var smpPingInterval: Int64 = 1_200_000_000
    public var smpPingCount: Int64 = 3
    public var logTLSErrors = false

    /// The defaults of chat-api.md §7.27, what `/network` answers before any `/_network`.
    public init() {}

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        if let p = try input.member("socksProxy") { socksProxy = try Self.socksProxy(p) }
        if let v = try input.member("socksMode") { socksMode = try v.enumeration(SocksMode.self) }
        if let v = try input.member("hostMode") { hostMode = try v.enumeration(HostMode.self) }
        if let v = try input.optionalBool("requiredHostMode") { requiredHostMode = v }
        if let v = try input.member("sessionMode") { sessionMode = try v.enumeration(SessionMode.self) }
        if let v = try input.member("smpProxyMode") { smpProxyMode = try v.enumeration(SMPProxyMode.self) }
        if let v = try input.member("smpProxyFallback") { smpProxyFallback = try v.enumeration(SMPProxyFallback.self) }
        if let v = try input.member("smpWebPortServers") { smpWebPortServers = try v.enumeration(SMPWebPortServers.self) }
        if let v = try input.member("tcpConnectTimeout") { tcpConnectTimeout = try NetworkTimeout(v) }
        if let v = try input.member("tcpTimeout") { tcpTimeout = try NetworkTimeout(v) }
        if let v = try input.member("tcpTimeoutPerKb") { tcpTimeoutPerKb = try Self.nonNegative(v) }
        if let v = try input.member("rcvConcurrency") { rcvConcurrency = try Self.nonNegative(v) }
        // An optional field: absent means no keep-alive, as the core's decoder reads it.
        tcpKeepAlive = try input.member("tcpKeepAlive").map { (k) throws(ChatError) in
            _ = try k.object()
            return KeepAlive(
                keepIdle: try Self.nonNegative(try k.required("keepIdle")),
                keepIntvl: try Self.nonNegative(try k.required("keepIntvl")),
                keepCnt: try Self.nonNegative(try k.required("keepCnt")))
        }
        if let v = try input.member("smpPingInterval") { smpPingInterval = try Self.nonNegative(v) }
        if let v = try input.member("smpPingCount") { smpPingCount = try Self.nonNegative(v) }
        if let v = try input.optionalBool("logTLSErrors") { logTLSErrors = v }
    }

    private static func nonNegative(_ input: JSONInput) throws(ChatError) -> Int64 {
        let n = try input.integer()
        guard n >= 0 else { throw input.fail("expected a non-negative number") }
        return n
    }

    /// `[user:password@]host:port`: a port from 1 to 65535 after the last colon and a host before it.
    private static func socksProxy(_ input: JSONInput) throws(ChatError) -> String {
        let text = try input.string()
        guard let valid = validSocksProxy(text) else {
            throw input.fail("expected a SOCKS proxy as [user:password@]host:port, got \"\(text)\"")
        }
        return valid
    }

    static func validSocksProxy(_ text: String) -> String? {
        let hostPort = text.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        guard let colon = hostPort.lastIndex(of: ":"), colon > hostPort.startIndex,
            let port = Int(hostPort[hostPort.index(after: colon)...]), (1...65535).contains(port)
        else { return nil }
        return text
    }

    public var json: JSONValue {
        .record([
            "socksProxy": socksProxy?.json, "socksMode": .string(socksMode.rawValue), "hostMode": .string(hostMode.rawValue),
            "requiredHostMode": .bool(requiredHostMode), "sessionMode": .string(sessionMode.rawValue),
            "smpProxyMode": .string(smpProxyMode.rawValue), "smpProxyFallback": .string(smpProxyFallback.rawValue),
            "smpWebPortServers": .string(smpWebPortServers.rawValue), "tcpConnectTimeout": tcpConnectTimeout.json,
            "tcpTimeout": tcpTimeout.json, "tcpTimeoutPerKb": .integer(tcpTimeoutPerKb),
            "rcvConcurrency": .integer(rcvConcurrency), "tcpKeepAlive": tcpKeepAlive?.json,
            "smpPingInterval": .integer(smpPingInterval), "smpPingCount": .integer(smpPingCount),
            "logTLSErrors": .bool(logTLSErrors),
        ])
    }
}

extension NetworkConfig {
    /// The SOCKS proxy `socks=on` means: Tor's default port on this machine.
    static let defaultSocksProxy = "127.0.0.1:9050"

    /// `/network` (the core's `SimpleNetCfg` over its configuration): the proxy, its modes, the host mode and TLS
    /// logging are set from the command, each with its default when left out; the SMP proxy settings and the timeout
    /// only when given. A timeout of `t` seconds is `t` for interactive work and `3t` in the background; connecting
    /// may take half as long again.
    func merging(_ s: HumanCommand.NetworkSettings) throws(ChatError) -> NetworkConfig {
        var c = self
        switch s.socksProxy {
        case "off": c.socksProxy = nil
        case "on": c.socksProxy = Self.defaultSocksProxy
        case let proxy:
            guard let valid = Self.validSocksProxy(proxy) else {
                throw .error(.commandError("expected socks=on|off|[user:password@]host:port, got \(proxy)"))
            }
            c.socksProxy = valid
        }
        c.socksMode = try Self.word(s.socksMode, default: .always, "socks-mode")
        // With a proxy that isolates by credentials (no user and password of its own), onion hosts are reached
        // through it; otherwise hosts are public.
        let isolating = c.socksProxy.map { !$0.contains("@") } ?? false
        c.hostMode = try Self.word(s.hostMode, default: isolating ? .onionViaSocks : .public, "host-mode")
        c.requiredHostMode = s.requiredHostMode
        if let mode = s.smpProxyMode { c.smpProxyMode = try Self.word(mode, default: .always, "smp-proxy") }
        if let fallback = s.smpProxyFallback {
            c.smpProxyFallback = try Self.word(fallback, default: .allowProtected, "smp-proxy-fallback")
        }
        c.smpWebPortServers =
            s.allWebPortServers ? .all : try Self.word(s.smpWebPortServers, default: .preset, "smp-web-port-servers")
        if let seconds = s.tcpTimeout {
            guard seconds > 0, seconds <= Int64.max / 4_500_000 else {
                throw .error(.commandError("timeout must be a positive number of seconds, got \(seconds)"))
            }
            let t = seconds * 1_000_000
            c.tcpTimeout = .split(backgroundTimeout: t * 3, interactiveTimeout: t)
            let connect = t * 3 / 2
            c.tcpConnectTimeout = .split(backgroundTimeout: connect * 3, interactiveTimeout: connect)
        }
        c.logTLSErrors = s.logTLSErrors
        return c
    }

    private static func word<T: RawRepresentable<String>>(_ text: String?, default value: T, _ name: String)
        throws(ChatError) -> T
    {
        guard let text else { return value }
        guard let parsed = T(rawValue: text) else { throw .error(.commandError("unexpected \(name)=\(text)")) }
        return parsed
    }
}
