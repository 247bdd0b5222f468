public import SimplexEncoding

/// SMP transport ("relay") versions and what each one changed (smp.md §0.3; simplexmq `Transport.hs`).
/// A version is a `Word16` on the wire; these constants name the thresholds the encodings test.
public enum SMPVersion {
    /// The lowest version this module speaks.
    public static let minimum: UInt16 = 6
    /// Signatures cover an implied session id, and handshakes carry X25519 keys.
    public static let authCommands: UInt16 = 7
    /// Sending through proxies; the SEND limit drops to 16,064.
    public static let sendingProxy: UInt16 = 8
    /// `NEW`/`IDS` carry whether the sender may secure the queue (`SKEY`).
    public static let senderAuthKey: UInt16 = 9
    /// `DELD` is sent to the subscriber of a deleted queue (`END` before).
    public static let deletedEvent: UInt16 = 10
    /// Blocks are encrypted with chain keys (§2.6); the SEND limit drops to 16,048.
    public static let encryptedBlock: UInt16 = 11
    /// `ERR BLOCKED` (servers send `AUTH` to older clients).
    public static let blockedEntity: UInt16 = 12
    /// The client hello says whether the client is a proxy.
    public static let proxyServerHandshake: UInt16 = 14
    /// Queue link data and queue modes in `NEW`/`IDS`.
    public static let shortLinks: UInt16 = 15
    /// The service-signature slot, `SOK`, service ids in `IDS` and the client hello.
    public static let serviceCerts: UInt16 = 16
    /// Notifier credentials in `NEW`/`IDS`.
    public static let newNotifierCredentials: UInt16 = 17
    /// Notices in `ERR BLOCKED`.
    public static let clientNotices: UInt16 = 18
    /// The highest version this module speaks.
    public static let current: UInt16 = 18

    /// The range a client offers and a server accepts (§0.3).
    public static let supported = VersionRange(unchecked: minimum, current)
    /// What a server offers when TLS negotiated no ALPN (§2.4).
    public static let legacyServerRange = VersionRange(minimum)

    /// The largest `SEND` body at `version` (`maxMessageLength`, §3.6).
    public static func maxMessageLength(_ version: UInt16) -> Int {
        if version >= encryptedBlock { return 16048 }
        if version >= sendingProxy { return 16064 }
        return 16088
    }
}

/// SMP client versions: the queue address format in links (smp.md §0.3, §1.9).
public enum SMPClientVersion {
    public static let initial: UInt16 = 1
    /// Queue URIs list all hosts in the server part.
    public static let serverHostnames: UInt16 = 2
    /// Queue infos say whether the sender secures the queue.
    public static let senderAuthKey: UInt16 = 3
    /// Queue modes replace the sender-secures flag.
    public static let shortLinks: UInt16 = 4
    public static let current: UInt16 = 4
    public static let supported = VersionRange(unchecked: initial, current)
}

/// Block and message sizes (smp.md §2.5, §3.6).
public enum SMPLimits {
    /// Every block on the TLS stream.
    public static let blockSize = 16384
    /// The padded size of a server→recipient message body before encryption (`MaxRcvMessageLen` + 2).
    public static let paddedReceivedMessageLength = 16106
    /// A batch's encoded transmissions fit in a block less the pad prefix, the count byte and the block's tag.
    public static let batchCapacity = blockSize - 19
}

extension VersionRange {
    /// A range from constants known to be ordered.
    init(unchecked min: UInt16, _ max: UInt16) {
        // The constants above are ordered; a failure here is a bug in this file.
        guard let r = try? VersionRange(min: min, max: max) else { preconditionFailure("inverted constant range") }
        self = r
    }
}
