// The store side of chat item expiry: which chats a pass visits, their cutoffs, and one batch at a time. The engine calls
// these between commands; each batch is one short transaction.
//
// As in the official core (`expireChatItems`), a pass visits the user's groups; note folders are never expired, and
// nothing is reported: items go without a `chatItemsDeleted` event (that event's `timed` is for disappearing
// messages), and only a failure goes out, as an asynchronous error.
internal import ChatModel

extension ChatController {
    /// Whether a pass may go on: the chat started and active and, for a periodic pass, the user's switch on (the core's
    /// `waitChatStartedAndActivated` and expire flag).
    func expiryAllowed(userId: Int64, periodic: Bool) -> Bool {
        running && activated && (!periodic || expiry.isEnabled(userId))
    }

    /// A new pass over the chats of `scope` that have a TTL; their TTLs are read again as each is reached, so a change
    /// made meanwhile counts.
    func beginExpiryPass(_ scope: ExpiryScope, periodic: Bool) throws(ChatError) -> ExpiryPass {
        let groupIds: [Int64]
        switch scope {
        case .user(let userId):
            groupIds = try groupStore.groupIdsToExpire(userId: userId, globalTTL: try store.chatItemTTL(userId: userId))
        case .group(_, let groupId):
            groupIds = [groupId]
        }
        return ExpiryPass(scope: scope, periodic: periodic, groupIds: groupIds, current: nil)
    }

    /// One step of a pass: the next chat's cutoffs, or one batch of the current chat's due items deleted in one
    /// transaction, their files removed once the rows are gone. A batch smaller than asked for ends the chat.
    func expiryStep(_ pass: inout ExpiryPass, batchSize: Int) throws(ChatError) {
        let userId = pass.scope.userId
        guard let cutoff = pass.current else {
            guard !pass.groupIds.isEmpty else { return }
            pass.current = try expiryCutoff(userId: userId, groupId: pass.groupIds.removeFirst())
            return
        }
        let (count, paths) = try store.write { () throws(ChatError) in
            let (ids, paths) = try store.expiredItems(userId: userId, cutoff, limit: batchSize)
            try store.deleteItems(ids: ids)
            return (ids.count, paths)
        }
        if count < batchSize { pass.current = nil }
        removeFiles(paths)
    }

    /// The cutoffs of a group as of now, or nil when it has no TTL (its own, else the user's; 0 is never) or is gone.
    private func expiryCutoff(userId: Int64, groupId: Int64) throws(ChatError) -> ExpiryPass.Cutoff? {
        let (exists, own) = try groupStore.chatItemTTL(userId: userId, groupId: groupId)
        guard exists else { return nil }
        let ttl: Int64
        if let own { ttl = own } else { ttl = try store.chatItemTTL(userId: userId) }
        guard ttl > 0 else { return nil }
        let t = now
        return ExpiryPass.Cutoff(
            groupId: groupId, itemTs: t.adding(seconds: -ttl).nanosecondsSinceEpoch,
            createdAt: t.adding(seconds: -ItemExpiryConfiguration.recentGroupItems))
    }

    // MARK: Switches set by commands

    /// `/_start`: every user with a TTL, of the user or of a chat, gets a running expiry (`startExpireCIs`).
    func startExpiry() {
        for user in (try? store.users()) ?? [] where userHasTTL(user.userId) {
            expiry.start(user.userId)
            expiry.set(user.userId, true)
        }
    }

    private func userHasTTL(_ userId: Int64) -> Bool {
        let ttl = (try? store.chatItemTTL(userId: userId)) ?? 0
        let count = (try? groupStore.chatTTLCount(userId: userId)) ?? 0
        return ttl > 0 || count > 0
    }

    /// After a TTL change (`setChatItemsExpiration`): a user with any TTL has a running expiry, switched on when the
    /// chat is started; a user without one is switched off.
    func updateExpiry(userId: Int64, globalTTL: Int64, chatTTLCount: Int64) {
        if globalTTL > 0 || chatTTLCount > 0 {
            expiry.start(userId)
            if running { expiry.set(userId, true) }
        } else {
            expiry.set(userId, false)
        }
    }

    /// Whether going from `old` to `new` shortens what is kept, so that expiring at once is due (0 is never).
    static func ttlLowered(from old: Int64, to new: Int64) -> Bool {
        new > 0 && (new < old || old == 0)
    }
}
