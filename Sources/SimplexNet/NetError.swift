#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Why a network operation failed, in terms a person can act on (connection refused, no route, timeout …).
public enum NetError: Error, Equatable, Sendable {
    /// Nothing listens there: wrong port, or the other side is not waiting for us.
    case connectionRefused
    /// No answer in time: often a firewall, or an address outside every local network.
    case timedOut
    /// No route to that network or host.
    case unreachable(String)
    case invalidAddress(String)
    /// The name did not resolve to an IPv4 address, with the resolver's reason.
    case unresolved(host: String, reason: String)
    /// The peer closed the connection.
    case closed
    /// Any other system error, with its `strerror` text.
    case system(operation: String, errno: Int32, message: String)

    static func fromErrno(_ operation: String, _ code: Int32 = errno) -> NetError {
        switch code {
        case ECONNREFUSED: return .connectionRefused
        case ETIMEDOUT: return .timedOut
        case ENETUNREACH, EHOSTUNREACH: return .unreachable(String(cString: strerror(code)))
        default: return .system(operation: operation, errno: code, message: String(cString: strerror(code)))
        }
    }
}
