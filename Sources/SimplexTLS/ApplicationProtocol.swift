/// An ALPN protocol name (RFC 7301): `smp/1` on SMP ports, `http/1.1` when an SMP client uses a preset server's
/// web port (smp.md §2.1).
public struct ApplicationProtocol: Hashable, Sendable, CustomStringConvertible {
    /// The name's bytes as on the wire (1–255).
    public let wire: [UInt8]

    /// A protocol name of 1–255 bytes; nil otherwise.
    public init?(_ name: String) {
        let bytes = Array(name.utf8)
        guard (1...255).contains(bytes.count) else { return nil }
        wire = bytes
    }

    init(wire: [UInt8]) { self.wire = wire }

    public var description: String { String(decoding: wire, as: UTF8.self) }

    /// The SMP transport (MQ `alpnSupportedSMPHandshakes`).
    public static let smp1 = ApplicationProtocol(wire: Array("smp/1".utf8))
    /// What a client offers on a preset server's web port, and servers accept for SMP on shared ports.
    public static let http11 = ApplicationProtocol(wire: Array("http/1.1".utf8))

    /// What an SMP client offers (smp.md §2.1): `http/1.1` instead of `smp/1` when it connects to a preset
    /// server's web port (443), as the reference client does (MQ `Client.hs`, `useALPN`).
    public static func smpClientOffer(webPort: Bool) -> [ApplicationProtocol] { webPort ? [.http11] : [.smp1] }

    /// The protocol-name list of the ALPN extension: each name after its length byte.
    static func wireList(_ protocols: [ApplicationProtocol]) -> [UInt8] {
        protocols.flatMap { [UInt8($0.wire.count)] + $0.wire }
    }
}
