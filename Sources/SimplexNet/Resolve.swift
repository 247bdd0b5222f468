#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension IPv4Endpoint {
    /// The IPv4 endpoints of `host` (a name or a dotted quad) at `port`, in the system resolver's order, without
    /// repeats. Blocks the calling thread while the resolver works (run it off the cooperative pool).
    public static func resolve(_ host: String, port: UInt16) throws(NetError) -> [IPv4Endpoint] {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &result)
        guard rc == 0, let first = result else { throw .unresolved(host: host, reason: String(cString: gai_strerror(rc))) }
        defer { freeaddrinfo(first) }
        var out: [IPv4Endpoint] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let info = next {
            if info.pointee.ai_family == AF_INET, let address = info.pointee.ai_addr {
                var sin = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
                sin.sin_port = port.bigEndian
                let endpoint = IPv4Endpoint(sin)
                if !out.contains(endpoint) { out.append(endpoint) }
            }
            next = info.pointee.ai_next
        }
        guard !out.isEmpty else { throw .unresolved(host: host, reason: "no IPv4 address") }
        return out
    }
}
