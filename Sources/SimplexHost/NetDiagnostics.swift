internal import SimplexNet

/// Words for network faults (the text of an `exception`, so the JSON stays what controllers expect).
enum NetDiagnostics {
    static func describe(_ error: NetError) -> String {
        switch error {
        case .connectionRefused:
            return "connection refused: nothing listens at the invitation's address (wrong port, or the controller stopped)"
        case .timedOut:
            return "connection timed out: the controller's address may be outside every local network, or a firewall drops it"
        case .unreachable(let s): return "no route to the controller: \(s)"
        case .invalidAddress(let a): return "invalid controller address \(a)"
        case .closed: return "the controller closed the connection"
        case .system(let op, _, let message): return "\(op): \(message)"
        }
    }
}
