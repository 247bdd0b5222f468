#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A connected TCP stream. Reads and writes block the calling thread (run them off the cooperative pool).
public final class TCPConnection: @unchecked Sendable {
    // One reader and one writer may use it at once: the kernel serialises each direction.
    let socket: Socket
    public let peer: IPv4Endpoint

    init(socket: Socket, peer: IPv4Endpoint) {
        self.socket = socket
        self.peer = peer
        try? socket.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, 1)
    }

    /// TCP keep-alive, so a controller that vanished is noticed (xrcp.md §17: idle 30 s, then every 15 s, 4 probes).
    /// Unacknowledged data is given up on after the same time (`TCP_USER_TIMEOUT`): probes are only sent on an idle
    /// connection, and a long-poll answer written to a dead peer would otherwise be retried for many minutes.
    public func enableKeepAlive(idle: Int32 = 30, interval: Int32 = 15, probes: Int32 = 4) throws(NetError) {
        try socket.setOption(SOL_SOCKET, SO_KEEPALIVE, 1)
        try socket.setOption(Int32(IPPROTO_TCP), TCP_KEEPIDLE, idle)
        try socket.setOption(Int32(IPPROTO_TCP), TCP_KEEPINTVL, interval)
        try socket.setOption(Int32(IPPROTO_TCP), TCP_KEEPCNT, probes)
        let milliseconds = (Int64(idle) + Int64(interval) * Int64(probes)) * 1000
        try socket.setOption(Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, Int32(clamping: milliseconds))
    }

    /// Connects within `timeout` seconds; the error says why it failed (refused, timed out, unreachable …).
    public static func connect(to endpoint: IPv4Endpoint, timeout: Double) throws(NetError) -> TCPConnection {
        let s = try Socket(type: Int32(SOCK_STREAM.rawValue))
        let flags = fcntl(s.fd, F_GETFL, 0)
        _ = fcntl(s.fd, F_SETFL, flags | O_NONBLOCK)
        var sin = endpoint.sockaddr
        let rc = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(s.fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if rc != 0 {
            guard errno == EINPROGRESS else { throw .fromErrno("connect") }
            guard try s.wait(for: Int16(POLLOUT), timeoutMilliseconds: Int32(timeout * 1000)) else { throw .timedOut }
            var err: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len)
            guard err == 0 else { throw .fromErrno("connect", err) }
        }
        _ = fcntl(s.fd, F_SETFL, flags)
        return TCPConnection(socket: s, peer: endpoint)
    }

    public var localEndpoint: IPv4Endpoint? { socket.localEndpoint }

    /// Up to `max` bytes; waits at most `timeout` seconds (nil: forever). Empty on timeout; `closed` at end of stream.
    public func read(max: Int = 65536, timeout: Double? = nil) throws(NetError) -> [UInt8] {
        if let timeout, !(try socket.wait(for: Int16(POLLIN), timeoutMilliseconds: Int32(timeout * 1000))) { return [] }
        // Received into uninitialised space and copied out at its length: clearing `max` bytes for every read of a
        // stream of 16 KiB blocks cost more than the copy. No lock: a reader waiting in `recv` holds up no other.
        let space = try [UInt8](unsafeUninitializedCapacity: max) { (buffer, count) throws(NetError) in
            count = 0
            while true {
                let n = recv(socket.fd, buffer.baseAddress, max, 0)
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else { throw .fromErrno("recv") }
                guard n > 0 else { throw .closed }
                count = n
                return
            }
        }
        return space.count == max ? space : Array(space)
    }

    /// As much of `bytes` as the socket takes now without waiting (0 when its buffer is full).
    public func writeAvailable(_ bytes: ArraySlice<UInt8>) throws(NetError) -> Int {
        guard !bytes.isEmpty else { return 0 }
        while true {
            let n = bytes.withUnsafeBytes { send(socket.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n >= 0 { return n }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: throw .fromErrno("send")
            }
        }
    }

    /// Waits until a write would make progress (or the connection failed, which the write then reports); false
    /// after `timeout` seconds.
    public func waitWritable(timeout: Double) throws(NetError) -> Bool {
        try socket.wait(for: Int16(POLLOUT), timeoutMilliseconds: Int32(timeout * 1000))
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: [UInt8]) throws(NetError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(socket.fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .fromErrno("send") }
            offset += n
        }
    }

    /// Ends both directions now (the reader sees `closed`).
    public func shutdown() { _ = Glibc.shutdown(socket.fd, Int32(SHUT_RDWR)) }
}

/// A listening TCP socket (the controller role's TLS server).
public final class TCPListener: @unchecked Sendable {
    let socket: Socket
    public let endpoint: IPv4Endpoint

    /// Listens on `address:port`; port 0 picks a free one.
    public init(address: String, port: UInt16 = 0) throws(NetError) {
        let s = try Socket(type: Int32(SOCK_STREAM.rawValue))
        try s.setOption(SOL_SOCKET, SO_REUSEADDR, 1)
        try s.bind(try IPv4Endpoint(address, port))
        guard listen(s.fd, 4) == 0 else { throw .fromErrno("listen") }
        socket = s
        let requested = try IPv4Endpoint(address, port)
        endpoint = s.localEndpoint ?? requested
    }

    /// The next connection, or nil after `timeout` seconds.
    public func accept(timeout: Double?) throws(NetError) -> TCPConnection? {
        if let timeout, !(try socket.wait(for: Int16(POLLIN), timeoutMilliseconds: Int32(timeout * 1000))) { return nil }
        var sin = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = withUnsafeMutablePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(socket.fd, $0, &len) }
        }
        guard fd >= 0 else { throw .fromErrno("accept") }
        return TCPConnection(socket: Socket(fd: fd), peer: IPv4Endpoint(sin))
    }
}
