public import Ratchet
public import SMP
public import SimplexEncoding

/// SMP agent versions and what each one changed (smp.md §4.1).
public enum AgentVersion {
    /// The reply queue travels inside the joiner's confirmation; the lowest version an agent supports.
    public static let duplexHandshake: UInt16 = 2
    /// Ratchet re-synchronisation (`AgentRatchetKey`, `EREADY`).
    public static let ratchetSync: UInt16 = 3
    /// Delivery receipts (`A_RCVD`).
    public static let deliveryReceipts: UInt16 = 4
    /// The PQ double ratchet may be used.
    public static let pqEncryption: UInt16 = 5
    /// Reply queues are secured by their sender with `SKEY`, without a `HELLO` round trip.
    public static let senderSecuresReply: UInt16 = 6
    /// The initiator makes its ratchet when it processes the joiner's confirmation.
    public static let ratchetOnConfirmation: UInt16 = 7
    public static let current: UInt16 = 7
    public static let supported: VersionRange = (try? VersionRange(min: duplexHandshake, max: current)) ?? VersionRange(current)
}

/// Version agreement (smp.md §4.1, §4.5 B.1): the highest version both ranges contain.
public enum VersionAgreement {
    /// The agreed version of two ranges, or `A_VERSION` when they do not intersect.
    public static func agree(_ ours: VersionRange, _ theirs: VersionRange) throws(AgentProtocolError) -> UInt16 {
        guard let common = ours.intersection(theirs) else { throw .version }
        return common.max
    }

    /// Whether a version a peer used may be accepted: one we support, or one not above the version agreed before,
    /// so that a connection survives a downgrade of either side (the reference's checks on received envelopes).
    public static func accepts(_ version: UInt16, supported: VersionRange, agreed: UInt16) -> Bool {
        supported.contains(version) || version <= agreed
    }
}

extension AgentVersion {
    /// The connection's agent version after an `"M"` envelope of `received` (`updateConnVersion`, smp.md §4.1): a
    /// higher version the peer supports and we do too, never above our highest; nil when it stays `current`.
    public static func upgrade(current: UInt16, received: UInt16, supported: VersionRange = AgentVersion.supported)
        -> UInt16?
    {
        let offered = (try? VersionRange(min: supported.min, max: received)) ?? VersionRange(received)
        guard let common = offered.intersection(supported), common.max > current else { return nil }
        return common.max
    }
}

/// The versions a joiner agrees for an invitation link (smp.md §4.5 B.1): agent, SMP client (of the link's first
/// queue) and e2e, each the highest both sides support.
public struct JoinVersions: Equatable, Sendable {
    public var agent: UInt16
    public var smpClient: UInt16
    /// The e2e (ratchet) version; nil for a contact address, which has no e2e parameters.
    public var e2e: UInt16?

    public init(agent: UInt16, smpClient: UInt16, e2e: UInt16?) {
        self.agent = agent
        self.smpClient = smpClient
        self.e2e = e2e
    }
}

extension ConnectionRequest {
    /// The versions to join this link with, or `A_VERSION` when any of its ranges misses ours.
    public func agreeVersions(
        agent: VersionRange = AgentVersion.supported, smpClient: VersionRange = SMPClientVersion.supported,
        e2e: VersionRange = E2EVersion.supported
    ) throws(AgentProtocolError) -> JoinVersions {
        let agentVersion = try VersionAgreement.agree(agent, data.agentVersions)
        let clientVersion = try VersionAgreement.agree(smpClient, data.queues[0].clientVersions)
        switch self {
        case .invitation(_, let params):
            return JoinVersions(
                agent: agentVersion, smpClient: clientVersion, e2e: try VersionAgreement.agree(e2e, params.versions))
        case .contact:
            return JoinVersions(agent: agentVersion, smpClient: clientVersion, e2e: nil)
        }
    }
}
