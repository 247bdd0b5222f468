#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Receives datagrams sent to a multicast group (the host's discovery listener, xrcp.md §6.3).
public final class MulticastReceiver: @unchecked Sendable {
    let socket: Socket
    public let group: IPv4Endpoint

    /// Binds to `group` itself (not the wildcard) and joins it on `interfaceAddress` (nil: the system's choice).
    public init(group: IPv4Endpoint, interfaceAddress: String? = nil) throws(NetError) {
        let s = try Socket(type: Int32(SOCK_DGRAM.rawValue))
        try s.setOption(SOL_SOCKET, SO_REUSEADDR, 1)
        try s.bind(group)
        var request = ip_mreq()
        inet_pton(AF_INET, group.address, &request.imr_multiaddr)
        if let interfaceAddress {
            guard inet_pton(AF_INET, interfaceAddress, &request.imr_interface) == 1 else {
                throw .invalidAddress(interfaceAddress)
            }
        }
        guard setsockopt(s.fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &request, socklen_t(MemoryLayout<ip_mreq>.size)) == 0 else {
            throw .fromErrno("IP_ADD_MEMBERSHIP")
        }
        socket = s
        self.group = group
    }

    /// The next datagram and its source, or nil after `timeout` seconds.
    public func receive(timeout: Double) throws(NetError) -> (bytes: [UInt8], source: IPv4Endpoint)? {
        guard try socket.wait(for: Int16(POLLIN), timeoutMilliseconds: Int32(timeout * 1000)) else { return nil }
        var buf = [UInt8](repeating: 0, count: 2048)
        var sin = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let n = withUnsafeMutablePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(socket.fd, &buf, buf.count, 0, $0, &len) }
        }
        guard n >= 0 else { throw .fromErrno("recvfrom") }
        return (Array(buf[0..<n]), IPv4Endpoint(sin))
    }
}

/// Sends datagrams to a multicast group from a chosen interface address (the controller's announcer, §6.1).
public final class MulticastSender: @unchecked Sendable {
    let socket: Socket
    public let group: IPv4Endpoint

    /// `interfaceAddress` should be the invitation's host address: reference hosts check the source (xrcp.md §20.21).
    public init(group: IPv4Endpoint, interfaceAddress: String?) throws(NetError) {
        let s = try Socket(type: Int32(SOCK_DGRAM.rawValue))
        if let interfaceAddress {
            var a = in_addr()
            guard inet_pton(AF_INET, interfaceAddress, &a) == 1 else { throw .invalidAddress(interfaceAddress) }
            guard setsockopt(s.fd, Int32(IPPROTO_IP), IP_MULTICAST_IF, &a, socklen_t(MemoryLayout<in_addr>.size)) == 0 else {
                throw .fromErrno("IP_MULTICAST_IF")
            }
            try s.bind(try IPv4Endpoint(interfaceAddress, 0))
        }
        try s.setOption(Int32(IPPROTO_IP), IP_MULTICAST_LOOP, 1)
        socket = s
        self.group = group
    }

    public func send(_ bytes: [UInt8]) throws(NetError) {
        var sin = group.sockaddr
        let n = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(socket.fd, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard n == bytes.count else { throw .fromErrno("sendto") }
    }
}
