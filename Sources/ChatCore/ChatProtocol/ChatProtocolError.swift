/// Why a chat message body, or one message in it, was refused (smp.md §6.2–6.3). The core ACKs such a message
/// without a receipt and shows nothing; the reason is kept for the log.
public enum ChatProtocolError: Error, Hashable, Sendable {
    /// The body is empty.
    case emptyBody
    /// The first byte names a framing this core does not read (`F` legacy inline file chunks, newer binary batches).
    case unsupportedFraming(UInt8)
    /// The `X` compressed list is malformed: its count, an item's tag or length.
    case badCompressedList(String)
    /// A compressed item would not decompress, did not declare its size, or declared more than the limit.
    case badCompressedItem(String)
    /// The bytes are not JSON.
    case badJSON(String)
    /// The JSON is not a chat message: a missing or mistyped field, with its path.
    case badMessage(String)
    /// A chat version range that does not parse, or whose minimum exceeds its maximum.
    case badVersionRange(String)
    /// An encoded message is longer than the framing allows.
    case tooLarge(size: Int, limit: Int)
    /// The peer's chat versions and ours do not overlap.
    case incompatibleVersion(peer: ChatVersionRange)
}

extension ChatProtocolError {
    /// The failure of the shared JSON reader (`JSONInput`), whose messages name the path, as a message refusal.
    init(_ error: ChatError) {
        if case .error(let type) = error, let message = type.message {
            self = .badMessage(message)
        } else {
            self = .badMessage("\(error)")
        }
    }
}

/// Runs a reader written against `JSONInput`, turning its refusals into this layer's typed error.
func reading<T>(_ body: () throws(ChatError) -> T) throws(ChatProtocolError) -> T {
    do {
        return try body()
    } catch {
        throw ChatProtocolError(error)
    }
}
