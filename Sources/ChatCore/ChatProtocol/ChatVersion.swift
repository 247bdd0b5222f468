/// Chat protocol versions that change what is sent to a direct contact (smp.md §6.1).
public enum ChatVersion {
    /// Compressed bodies (`X`) and PQ encryption.
    public static let compression: Int64 = 8
    /// JSON-array batches in direct connections.
    public static let directBatches: Int64 = 9
}

extension ChatVersionRange {
    /// What a message without `v` speaks.
    public static let initial = ChatVersionRange(minVersion: 1, maxVersion: 1)

    /// What this core advertises to peers: only versions whose direct-chat behaviour it implements. 9 brings batches
    /// to direct connections and 8 compressed bodies, both read and written here; 10 (business chats), 12 (reports)
    /// and later versions change group and short-link behaviour that is not served yet, so a peer must not assume
    /// them of us.
    public static let advertised = ChatVersionRange(minVersion: 1, maxVersion: ChatVersion.directBatches)

    /// `"1-9"`, or `"3"` when both ends are one version.
    public var text: String { minVersion == maxVersion ? String(minVersion) : "\(minVersion)-\(maxVersion)" }

    /// Parses the text form; versions are 16-bit, the minimum at most the maximum.
    public init(parsing text: String) throws(ChatProtocolError) {
        func number(_ part: Substring) -> Int64? {
            guard !part.isEmpty, part.utf8.count <= 5, part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let n = UInt16(part)
            else { return nil }
            return Int64(n)
        }
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard let lo = number(parts[0]) else { throw .badVersionRange(text) }
        let hi: Int64
        if parts.count == 2 {
            guard let h = number(parts[1]) else { throw .badVersionRange(text) }
            hi = h
        } else {
            hi = lo
        }
        guard lo <= hi else { throw .badVersionRange(text) }
        self.init(minVersion: lo, maxVersion: hi)
    }

    /// The version both sides speak, the higher end of the overlap (`peerConnChatVersion`); nil when the ranges do
    /// not meet.
    public func agreedVersion(with peer: ChatVersionRange) -> Int64? {
        guard minVersion <= peer.maxVersion, peer.minVersion <= maxVersion else { return nil }
        return Swift.min(maxVersion, peer.maxVersion)
    }
}
