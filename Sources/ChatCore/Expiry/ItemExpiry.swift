// Chat item expiry by TTL (chat-api.md §4.10: `/_ttl`), as the official core's expiry threads run it: per user, on an
// interval, while the chat is started and active. What is decided here is plain state; the engine owns the tasks that
// act on it, so a command only changes switches and asks for passes, and the passes run between commands.

/// The timing of the background expiry and the size of its transactions.
public struct ItemExpiryConfiguration: Sendable {
    /// How long a user's expiry waits before its first pass (the core's `initialCleanupManagerDelay`).
    public var initialDelay: Duration = .seconds(30)
    /// The time between passes (the core's `ciExpirationInterval`).
    public var interval: Duration = .seconds(30 * 60)
    /// Items deleted per transaction: a pass of any size never holds the store, or the engine, longer than one batch.
    public var batchSize = 500

    public init() {}
}

/// Which chats a pass goes through: all of a user's chats that have a TTL, or one whose TTL was just lowered.
enum ExpiryScope: Hashable, Sendable {
    case user(userId: Int64)
    case group(userId: Int64, groupId: Int64)

    var userId: Int64 {
        switch self {
        case .user(let id), .group(let id, _): id
        }
    }
}

/// The per-user switches of the expiry (the core's `expireCIFlags` and `expireCIThreads`), and the requests a command
/// leaves for the engine: periodic expiries to start and passes to run at once.
struct ItemExpirySwitches {
    /// A user's switch; a user without one is off.
    private var enabled: [Int64: Bool] = [:]
    /// Users whose periodic expiry was asked for (it runs until the engine goes).
    private var started: Set<Int64> = []
    private var newlyStarted: [Int64] = []
    private var immediate: [ExpiryScope] = []

    func isEnabled(_ userId: Int64) -> Bool { enabled[userId] == true }

    mutating func set(_ userId: Int64, _ on: Bool) { enabled[userId] = on }

    /// Every known switch to `on` (`/_stop`, suspension, restoring activation), as `setAllExpireCIFlags` does.
    mutating func setAll(_ on: Bool) {
        for userId in enabled.keys { enabled[userId] = on }
    }

    /// Asks for the user's periodic expiry, once (`startExpireCIThread`).
    mutating func start(_ userId: Int64) {
        if started.insert(userId).inserted { newlyStarted.append(userId) }
    }

    /// Asks for a pass now, after a TTL was lowered.
    mutating func expireNow(_ scope: ExpiryScope) { immediate.append(scope) }

    /// The requests since the last call.
    mutating func takeRequests() -> (start: [Int64], immediate: [ExpiryScope]) {
        defer {
            newlyStarted = []
            immediate = []
        }
        return (newlyStarted, immediate)
    }
}

/// A pass in progress: the chats left, and the one being emptied with its cutoffs.
struct ExpiryPass: Sendable {
    let scope: ExpiryScope
    /// A periodic pass stops when the user's switch goes off; one asked for by a command only needs an active chat.
    let periodic: Bool
    var groupIds: [Int64]
    var current: Cutoff?

    /// Items of one chat that are due: older than its TTL and, in groups, not created in the last 12 hours (the core
    /// keeps those whatever their `item_ts` says).
    struct Cutoff: Sendable {
        var groupId: Int64
        /// `item_ts` at or before this (nanoseconds since the epoch) is expired.
        var itemTs: Int64
        /// `created_at` at or before this is old enough.
        var createdAt: UTCTime
    }

    var isFinished: Bool { current == nil && groupIds.isEmpty }
}

extension ItemExpiryConfiguration {
    /// How long the core keeps group items created recently even when their time is past the TTL.
    static let recentGroupItems: Int64 = 12 * 60 * 60
}
