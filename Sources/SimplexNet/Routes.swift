#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The kernel's IPv4 routes (`/proc/net/route`), to say which interface traffic to an address would take.
public enum Routes {
    public struct Route: Equatable, Sendable {
        public let interface: String
        public let destination: UInt32
        public let mask: UInt32
        public let metric: Int
    }

    /// Parses the `/proc/net/route` table (addresses in host byte order of the kernel's hex, little-endian here).
    public static func parse(_ text: String) -> [Route] {
        var out: [Route] = []
        for line in text.split(separator: "\n").dropFirst() {
            let cols = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard cols.count >= 8, let dest = UInt32(cols[1], radix: 16), let mask = UInt32(cols[7], radix: 16),
                let metric = Int(cols[6])
            else { continue }
            out.append(Route(interface: String(cols[0]), destination: dest.byteSwapped, mask: mask.byteSwapped, metric: metric))
        }
        return out
    }

    public static func system() -> [Route] {
        guard let f = fopen("/proc/net/route", "r") else { return [] }
        defer { fclose(f) }
        var text = ""
        var buf = [CChar](repeating: 0, count: 512)
        while fgets(&buf, Int32(buf.count), f) != nil {
            text += String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return parse(text)
    }

    /// The interface of the most specific route to `address`, or nil when there is none.
    public static func interface(for address: String, in routes: [Route]) -> String? {
        guard let a = ipv4Value(address) else { return nil }
        return routes.filter { a & $0.mask == $0.destination & $0.mask }
            .max { ($0.mask.nonzeroBitCount, -$0.metric) < ($1.mask.nonzeroBitCount, -$1.metric) }?.interface
    }

    /// Interface names VPN software uses (WireGuard, OpenVPN, IPsec, PPP, tun/tap).
    public static func looksLikeVPN(_ interface: String) -> Bool {
        ["tun", "tap", "wg", "ppp", "ipsec", "vpn", "utun", "tailscale", "zt"].contains { interface.hasPrefix($0) }
    }
}
