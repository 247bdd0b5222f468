public import SimplexCrypto
public import SimplexNet
public import XRCP

/// Why announcing could not start.
public enum AnnouncerError: Error, Equatable, Sendable {
    /// The socket could not be made or bound to the interface address.
    case net(NetError)
    /// The signed invitation does not fit in an announcement (xrcp.md §20.22), or the host key is unusable.
    case xrcp(XRCPError)
}

/// The controller's multicast announcer for a known host (xrcp.md §6.1): the signed invitation, sealed to the host's
/// last DH key with a fresh nonce per packet, sent `count` times `interval` seconds apart from the invitation's
/// address (reference hosts check the source, §20.21). Stops early with `stop()`, e.g. once the session is established.
public final class Announcer: Sendable {
    /// The reference's values: 60 packets, one a second, to 224.0.0.251:5227.
    public static let defaultCount = 60
    public static let defaultInterval: Double = 1
    public static let defaultGroup = "224.0.0.251"
    public static let defaultPort: UInt16 = 5227

    private let task: Task<Void, Never>

    /// Checks that the packet can be sealed, opens the socket, and starts sending at once. `failed` hears send
    /// errors (the announcer keeps going, as the reference does).
    public init(
        invitation: SignedInvitation, controllerKey: X25519.PrivateKey, hostKey: X25519.PublicKey, group: IPv4Endpoint,
        interfaceAddress: String?, count: Int = Announcer.defaultCount, interval: Double = Announcer.defaultInterval,
        failed: @escaping @Sendable (NetError) -> Void = { _ in }
    ) throws(AnnouncerError) {
        do { _ = try Announcement.seal(invitation, controllerKey: controllerKey, hostKey: hostKey) } catch { throw .xrcp(error) }
        let sender: MulticastSender
        do { sender = try MulticastSender(group: group, interfaceAddress: interfaceAddress) } catch { throw .net(error) }
        task = Task.detached {
            for i in 0..<count {
                guard !Task.isCancelled else { return }
                if let packet = try? Announcement.seal(invitation, controllerKey: controllerKey, hostKey: hostKey) {
                    do throws(NetError) { try sender.send(packet) } catch { failed(error) }
                }
                guard i + 1 < count else { return }
                do { try await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000)) } catch { return }
            }
        }
    }

    deinit { task.cancel() }

    /// Stops sending: at most the packet being sent right now still leaves.
    public func stop() { task.cancel() }

    /// Waits until the last packet was sent or the announcer was stopped.
    public func finished() async { await task.value }
}
