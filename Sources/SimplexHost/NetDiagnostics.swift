internal import SimplexNet

/// Words for network faults, carried as the text of an `exception` so the JSON stays what controllers expect, and
/// printed as a one-line hint by the command line (issue: most failed pairings are network faults).
enum NetDiagnostics {
    static func describe(
        _ error: NetError, controller address: String, local: [LocalAddress] = LocalAddresses.system(),
        routes: [Routes.Route] = Routes.system()
    ) -> String {
        let onLocalNetwork = local.contains { $0.contains(address) && !$0.address.hasPrefix("127.") }
        let routeInterface = Routes.interface(for: address, in: routes)
        var where_ = ""
        if let routeInterface, Routes.looksLikeVPN(routeInterface) {
            where_ =
                "; the route to \(address) goes through \(routeInterface), which looks like a VPN: turn it off or allow local traffic"
        } else if !onLocalNetwork && !address.hasPrefix("127.") {
            let nets = local.filter { !$0.address.hasPrefix("127.") }.map { "\($0.address)/\($0.prefixLength)" }
            where_ =
                "; \(address) is outside every local network (\(nets.isEmpty ? "none" : nets.joined(separator: ", "))): are both devices on the same network?"
        }
        switch error {
        case .connectionRefused:
            return "connection refused by \(address): nothing listens there (wrong port, or the controller is no longer waiting)"
        case .timedOut: return "connection to \(address) timed out" + (where_.isEmpty ? ": a firewall may drop it" : where_)
        case .unreachable(let s): return "no route to \(address) (\(s))" + where_
        case .invalidAddress(let a): return "invalid controller address \(a)"
        case .unresolved(let host, let reason): return "cannot resolve \(host): \(reason)"
        case .closed: return "the controller closed the connection"
        case .system(let op, _, let message): return "\(op): \(message)" + where_
        }
    }

    /// A certificate that is not valid yet usually means the clocks differ.
    static func clockHint(invitationTime: Int64, now: Int64) -> String? {
        let skew = invitationTime - now
        guard abs(skew) > 3600 else { return nil }
        let hours = Double(abs(skew)) / 3600
        return String(
            format: "the controller's clock is %.1f hours %@ this machine's: set both clocks right", hours,
            skew > 0 ? "ahead of" : "behind")
    }
}
