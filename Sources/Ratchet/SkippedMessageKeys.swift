/// One skipped message's key, filed under its chain's header key and its number in that chain (a row of the agent's
/// `skipped_messages` table).
public struct SkippedMessageKey: Sendable, Equatable {
    public let headerKey: RatchetHeaderKey
    public let number: UInt32
    public let messageKey: RatchetMessageKey

    public init(headerKey: RatchetHeaderKey, number: UInt32, messageKey: RatchetMessageKey) {
        self.headerKey = headerKey
        self.number = number
        self.messageKey = messageKey
    }
}

/// The keys of messages that were skipped over and may still arrive (`SkippedMsgKeys`, smp.md §5.6): header key →
/// message number → message key. The ratchet never holds them; the agent loads them for each decryption.
public struct SkippedMessageKeys: Sendable, Equatable {
    public private(set) var byHeaderKey: [RatchetHeaderKey: [UInt32: RatchetMessageKey]]

    public init() { byHeaderKey = [:] }

    public init(_ keys: [SkippedMessageKey]) {
        byHeaderKey = [:]
        for k in keys { byHeaderKey[k.headerKey, default: [:]][k.number] = k.messageKey }
    }

    public var count: Int { byHeaderKey.values.reduce(0) { $0 + $1.count } }
    public var isEmpty: Bool { byHeaderKey.isEmpty }

    /// Every key, as rows to store.
    public var keys: [SkippedMessageKey] {
        byHeaderKey.flatMap { hk, keys in keys.map { SkippedMessageKey(headerKey: hk, number: $0.key, messageKey: $0.value) } }
    }

    /// Applies a decryption's change, as the agent applies it to its table (`applySMDiff`).
    public mutating func apply(_ change: SkippedKeysChange) {
        switch change {
        case .used(let headerKey, let number):
            byHeaderKey[headerKey]?[number] = nil
            if byHeaderKey[headerKey]?.isEmpty == true { byHeaderKey[headerKey] = nil }
        case .added(let keys):
            for k in keys { byHeaderKey[k.headerKey, default: [:]][k.number] = k.messageKey }
        }
    }
}

/// How one decryption changed the skipped keys (`SkippedMsgDiff`): exactly what the agent must delete or insert.
public enum SkippedKeysChange: Sendable, Equatable {
    /// The message was decrypted with this stored key, which is now spent (deleted even when the body fails, as in the
    /// reference).
    case used(headerKey: RatchetHeaderKey, number: UInt32)
    /// Keys passed over to reach the message; empty when none were.
    case added([SkippedMessageKey])

    public static let unchanged = SkippedKeysChange.added([])
}
