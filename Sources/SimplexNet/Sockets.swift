#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An IPv4 socket address.
public struct IPv4Endpoint: Hashable, Sendable, CustomStringConvertible {
    public let address: String
    public let port: UInt16

    public init(_ address: String, _ port: UInt16) throws(NetError) {
        var a = in_addr()
        guard inet_pton(AF_INET, address, &a) == 1 else { throw .invalidAddress(address) }
        self.address = address
        self.port = port
    }

    init(_ sin: sockaddr_in) {
        var a = sin.sin_addr
        var buf = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        inet_ntop(AF_INET, &a, &buf, socklen_t(buf.count))
        address = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        port = UInt16(bigEndian: sin.sin_port)
    }

    var sockaddr: sockaddr_in {
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = port.bigEndian
        inet_pton(AF_INET, address, &sin.sin_addr)
        return sin
    }

    public var description: String { "\(address):\(port)" }
}

/// Owns one socket descriptor; closed when released.
final class Socket {
    let fd: Int32

    init(type: Int32) throws(NetError) {
        let fd = socket(AF_INET, type | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .fromErrno("socket") }
        self.fd = fd
    }

    init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }

    func setOption(_ level: Int32, _ name: Int32, _ value: Int32) throws(NetError) {
        var v = value
        guard setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size)) == 0 else { throw .fromErrno("setsockopt") }
    }

    func bind(_ endpoint: IPv4Endpoint) throws(NetError) {
        var sin = endpoint.sockaddr
        let rc = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw .fromErrno("bind") }
    }

    var localEndpoint: IPv4Endpoint? {
        var sin = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let rc = withUnsafeMutablePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return rc == 0 ? IPv4Endpoint(sin) : nil
    }

    /// Waits until the socket is readable (or writable); false on timeout.
    func wait(for events: Int16, timeoutMilliseconds: Int32) throws(NetError) -> Bool {
        var p = pollfd(fd: fd, events: events, revents: 0)
        while true {
            let rc = poll(&p, 1, timeoutMilliseconds)
            if rc < 0 && errno == EINTR { continue }
            guard rc >= 0 else { throw .fromErrno("poll") }
            return rc > 0
        }
    }
}
