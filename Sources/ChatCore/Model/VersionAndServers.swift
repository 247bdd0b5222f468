public import ChatStore

/// CoreVersionInfo (chat-api.md §7.35).
public struct CoreVersionInfo: Hashable, Sendable {
    public var version: String
    public var simplexmqVersion: String
    public var simplexmqCommit: String

    public init(version: String, simplexmqVersion: String, simplexmqCommit: String) {
        self.version = version
        self.simplexmqVersion = simplexmqVersion
        self.simplexmqCommit = simplexmqCommit
    }

    public var json: JSONValue {
        .record([
            "version": .string(version), "simplexmqVersion": .string(simplexmqVersion),
            "simplexmqCommit": .string(simplexmqCommit),
        ])
    }
}

extension UpMigration {
    /// `{"upName": …, "withDown": …}` (chat-api.md §7.35).
    public var json: JSONValue { .record(["upName": .string(upName), "withDown": .bool(withDown)]) }
}

/// `subsTotal` of `agentSubsTotal` (SMPServerSubs).
public struct SMPServerSubs: Hashable, Sendable {
    public var ssActive: Int64
    public var ssPending: Int64

    public var json: JSONValue { .record(["ssActive": .integer(ssActive), "ssPending": .integer(ssPending)]) }
}

/// PresentedServersSummary as the core's `Simplex.Chat.Stats` defines it: totals and the servers in use, by protocol,
/// for all users and for the current one. The embedded core talks to no servers, so every list is empty and every
/// total zero — the shape of a core that has not connected yet.
public struct PresentedServersSummary: Hashable, Sendable {
    public var statsStartedAt: UTCTime

    /// ServerSessions.
    private static let sessions: JSONValue = .record([
        "ssConnected": .integer(0), "ssErrors": .integer(0), "ssConnecting": .integer(0),
    ])

    /// `AgentSMPServerStatsData`, `AgentXFTPServerStatsData`, `AgentNtfServerStatsData`: simplexmq's counters, whose
    /// JSON keys keep the Haskell fields' leading underscore.
    private static func counters(_ names: [String]) -> JSONValue {
        .object(names.map { JSONField("_" + $0, .integer(0)) })
    }

    private static let smpCounters = counters([
        "sentDirect", "sentViaProxy", "sentProxied", "sentDirectAttempts", "sentViaProxyAttempts", "sentProxiedAttempts",
        "sentAuthErrs", "sentQuotaErrs", "sentExpiredErrs", "sentOtherErrs", "recvMsgs", "recvDuplicates", "recvCryptoErrs",
        "recvErrs", "ackMsgs", "ackAttempts", "ackNoMsgErrs", "ackOtherErrs", "connCreated", "connSecured", "connCompleted",
        "connDeleted", "connDelAttempts", "connDelErrs", "connSubscribed", "connSubAttempts", "connSubIgnored",
        "connSubErrs", "ntfKey", "ntfKeyAttempts", "ntfKeyDeleted", "ntfKeyDeleteAttempts",
    ])
    private static let xftpCounters = counters([
        "uploads", "uploadsSize", "uploadAttempts", "uploadErrs", "downloads", "downloadsSize", "downloadAttempts",
        "downloadAuthErrs", "downloadErrs", "deletions", "deleteAttempts", "deleteErrs",
    ])
    private static let ntfCounters = counters([
        "ntfCreated", "ntfCreateAttempts", "ntfChecked", "ntfCheckAttempts", "ntfDeleted", "ntfDelAttempts",
    ])

    private static let smp: JSONValue = .record([
        "smpTotals": .record([
            "sessions": sessions, "subs": SMPServerSubs(ssActive: 0, ssPending: 0).json, "stats": smpCounters,
        ]),
        "currentlyUsedSMPServers": .array([]), "previouslyUsedSMPServers": .array([]), "onlyProxiedSMPServers": .array([]),
    ])
    private static let xftp: JSONValue = .record([
        "xftpTotals": .record(["sessions": sessions, "stats": xftpCounters]),
        "currentlyUsedXFTPServers": .array([]), "previouslyUsedXFTPServers": .array([]),
    ])
    private static let ntf: JSONValue = .record([
        "ntfTotals": .record(["sessions": sessions, "stats": ntfCounters]),
        "currentlyUsedNtfServers": .array([]), "previouslyUsedNtfServers": .array([]),
    ])

    public var json: JSONValue {
        .record([
            "statsStartedAt": statsStartedAt.json, "allUsersSMP": Self.smp, "allUsersXFTP": Self.xftp,
            "allUsersNtf": Self.ntf, "currentUserSMP": Self.smp, "currentUserXFTP": Self.xftp, "currentUserNtf": Self.ntf,
        ])
    }
}
