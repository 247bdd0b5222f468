#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An IPv4 address of a local interface.
public struct LocalAddress: Hashable, Sendable {
    public let interface: String
    public let address: String
    /// The network prefix length, for "is the peer on this subnet" diagnostics.
    public let prefixLength: Int

    public init(interface: String, address: String, prefixLength: Int) {
        self.interface = interface
        self.address = address
        self.prefixLength = prefixLength
    }

    /// Whether `other` is on this address's subnet.
    public func contains(_ other: String) -> Bool {
        guard let a = ipv4Value(address), let b = ipv4Value(other) else { return false }
        let mask: UInt32 = prefixLength == 0 ? 0 : ~UInt32(0) << UInt32(32 - prefixLength)
        return a & mask == b & mask
    }
}

func ipv4Value(_ text: String) -> UInt32? {
    var a = in_addr()
    guard inet_pton(AF_INET, text, &a) == 1 else { return nil }
    return UInt32(bigEndian: a.s_addr)
}

/// The machine's IPv4 addresses, in the order an invitation offers them (xrcp.md §5.3).
public enum LocalAddresses {
    /// Every interface's IPv4 address, as the system lists them.
    public static func system() -> [LocalAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var out: [LocalAddress] = []
        var p = list
        while let entry = p {
            defer { p = entry.pointee.ifa_next }
            guard let addr = entry.pointee.ifa_addr, addr.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            let sin = UnsafeRawPointer(addr).load(as: sockaddr_in.self)
            var prefix = 0
            if let mask = entry.pointee.ifa_netmask {
                prefix = UnsafeRawPointer(mask).load(as: sockaddr_in.self).sin_addr.s_addr.nonzeroBitCount
            }
            out.append(
                LocalAddress(
                    interface: String(cString: entry.pointee.ifa_name), address: IPv4Endpoint(sin).address, prefixLength: prefix))
        }
        return out
    }

    /// Drops unusable addresses, moves loopback last, and puts the preferred address (or else the preferred
    /// interface's first address) first.
    public static func ordered(_ addresses: [LocalAddress], preferredAddress: String? = nil, preferredInterface: String? = nil)
        -> [LocalAddress]
    {
        let usable = addresses.filter { a in
            guard let v = ipv4Value(a.address) else { return false }
            return v != 0 && v != 0xffff_ffff && v & 0xffff_0000 != 0xa9fe_0000
        }
        var list =
            usable.filter { ipv4Value($0.address).map { $0 >> 24 != 127 } ?? false }
            + usable.filter { ipv4Value($0.address).map { $0 >> 24 == 127 } ?? false }
        let preferred =
            list.firstIndex { $0.address == preferredAddress } ?? list.firstIndex { $0.interface == preferredInterface }
        if let i = preferred { list.insert(list.remove(at: i), at: 0) }
        return list
    }
}
