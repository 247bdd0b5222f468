internal import SimplexEncoding
internal import SimplexZstd

/// The bodies chat messages travel in (smp.md §6.3): one JSON object, a JSON array of them, or the `X` list of
/// compressed items, dispatched on the first byte.
public enum MessageBody {
    /// The longest message or batch body (`maxEncodedMsgLength`): room is kept for group forwarding overhead.
    public static let maxEncodedMsgLength = 15_602
    /// The longest conn info (`maxEncodedInfoLength`).
    public static let maxEncodedInfoLength = 14_694
    /// Message bodies longer than this are compressed where the connection allows (`maxCompressedMsgLength`).
    public static let maxCompressedMsgLength = 13_380
    /// Conn info longer than this is compressed where the connection allows (`maxCompressedInfoLength`).
    public static let maxCompressedInfoLength = 10_968
    /// The most one compressed item may declare (`maxDecompressedMsgLength`).
    public static let maxDecompressedLength = 65_536
    /// Items up to this length travel uncompressed inside an `X` list (`compress1`).
    public static let maxPassthroughLength = 180

    // MARK: Reading

    /// Every message in a body, each read on its own as the reference does: one bad element of a batch does not
    /// lose the others, and a body that cannot be framed is one failure.
    public static func parse(_ body: [UInt8]) -> [Result<ChatMessage, ChatProtocolError>] {
        guard let first = body.first else { return [.failure(.emptyBody)] }
        if first == UInt8(ascii: "X") { return parseCompressed(body.dropFirst()) }
        return parseUncompressed(body[...])
    }

    private static func parseUncompressed(_ body: ArraySlice<UInt8>) -> [Result<ChatMessage, ChatProtocolError>] {
        guard let first = body.first else { return [.failure(.emptyBody)] }
        switch first {
        case UInt8(ascii: "{"):
            return [Result { () throws(ChatProtocolError) in try ChatMessage(json(body)) }]
        case UInt8(ascii: "["):
            let value: CanonicalJSON
            do { value = try json(body) } catch { return [.failure(error)] }
            guard case .array(let items) = value else { return [.failure(.badJSON("expected an array"))] }
            return items.map { item in Result { () throws(ChatProtocolError) in try ChatMessage(item) } }
        default:
            return [.failure(.unsupportedFraming(first))]
        }
    }

    private static func json(_ bytes: ArraySlice<UInt8>) throws(ChatProtocolError) -> CanonicalJSON {
        do {
            return try CanonicalJSON.parse(Array(bytes))
        } catch {
            throw .badJSON(error.description)
        }
    }

    /// `NonEmpty Compressed`: a count byte, then per item `"0" ‖ len1(raw)` or `"1" ‖ len2(zstd frame)`, and nothing
    /// after. Each item holds a JSON object or array; compressed lists do not nest.
    private static func parseCompressed(_ s: ArraySlice<UInt8>) -> [Result<ChatMessage, ChatProtocolError>] {
        let items: [ArraySlice<UInt8>]
        do { items = try compressedItems(s) } catch { return [.failure(error)] }
        var results: [Result<ChatMessage, ChatProtocolError>] = []
        for item in items {
            switch decompressItem(item) {
            case .success(let plain):
                if plain.first == UInt8(ascii: "X") {
                    results.append(.failure(.unsupportedFraming(UInt8(ascii: "X"))))
                } else {
                    results += parseUncompressed(plain[...])
                }
            case .failure(let e): results.append(.failure(e))
            }
        }
        return results
    }

    /// The items of an `X` list, still in their `0`/`1` framing.
    static func compressedItems(_ s: ArraySlice<UInt8>) throws(ChatProtocolError) -> [ArraySlice<UInt8>] {
        var cursor = s
        guard let count = cursor.popFirst() else { throw .badCompressedList("no item count") }
        guard count > 0 else { throw .badCompressedList("empty list") }
        var items: [ArraySlice<UInt8>] = []
        for _ in 0..<count {
            let start = cursor.startIndex
            guard let tag = cursor.popFirst() else { throw .badCompressedList("missing item") }
            let length: Int
            switch tag {
            case UInt8(ascii: "0"):
                guard let n = cursor.popFirst() else { throw .badCompressedList("missing length") }
                length = Int(n)
            case UInt8(ascii: "1"):
                guard cursor.count >= 2 else { throw .badCompressedList("missing length") }
                length = Int(cursor[cursor.startIndex]) << 8 | Int(cursor[cursor.startIndex + 1])
                cursor = cursor.dropFirst(2)
            default:
                throw .badCompressedList("bad item tag \(tag)")
            }
            guard cursor.count >= length else { throw .badCompressedList("item shorter than its length") }
            cursor = cursor.dropFirst(length)
            items.append(s[start..<cursor.startIndex])
        }
        guard cursor.isEmpty else { throw .badCompressedList("\(cursor.count) bytes after the last item") }
        return items
    }

    /// One item's plain bytes (`decompress1`), capped at `maxDecompressedLength`.
    private static func decompressItem(_ item: ArraySlice<UInt8>) -> Result<[UInt8], ChatProtocolError> {
        guard let tag = item.first else { return .failure(.badCompressedList("missing item")) }
        if tag == UInt8(ascii: "0") { return .success(Array(item.dropFirst(2))) }
        do {
            return .success(try Zstd.decompress(Array(item.dropFirst(3)), limit: maxDecompressedLength))
        } catch {
            switch error {
            case .contentSize(let m), .zstd(let m): return .failure(.badCompressedItem(m))
            }
        }
    }

    // MARK: Writing

    /// One message alone, refused above `limit` (`encodeChatMessage`).
    public static func encode(_ message: ChatMessage, limit: Int = maxEncodedMsgLength) throws(ChatProtocolError)
        -> [UInt8]
    {
        let body = message.encoded
        guard body.count <= limit else { throw .tooLarge(size: body.count, limit: limit) }
        return body
    }

    /// The conn info of a confirmation or request (`x.info`, `x.contact`, `x.ok`), compressed when large and the
    /// connection is post-quantum, which only chat version 8 and later can be (`encodeConnInfoPQ`); refused if
    /// still too long compressed.
    public static func connInfo(_ message: ChatMessage, pqEncrypted: Bool) throws(ChatProtocolError) -> [UInt8] {
        let body = try encode(message, limit: maxEncodedInfoLength)
        guard pqEncrypted && body.count > maxCompressedInfoLength else { return body }
        let packed = try compressed(body)
        guard packed.count <= maxCompressedInfoLength else {
            throw .tooLarge(size: packed.count, limit: maxCompressedInfoLength)
        }
        return packed
    }

    /// One body sent: its bytes and which of the messages given it carries.
    public struct Outgoing: Hashable, Sendable {
        public let bytes: [UInt8]
        public let messages: [Int]
    }

    /// Messages to one peer as bodies, in order (`batchSndMessagesJSON`, `deliverMessagesB`): with chat version 9 or
    /// later as many as fit in one JSON array of at most `maxEncodedMsgLength`, else one per body; one message alone
    /// is sent as itself. As the reference folds from the right, the last messages fill whole arrays and the first
    /// body takes what is left. A message too large alone fails at its index and no array spans it. A body goes
    /// compressed only on a post-quantum connection (chat version 8 or later) above `maxCompressedMsgLength`, and
    /// fails for all its messages if it is still longer after compression.
    public static func bodies(_ messages: [ChatMessage], peerVersion: Int64, pqEncrypted: Bool = false)
        -> (bodies: [Outgoing], failures: [(index: Int, error: ChatProtocolError)])
    {
        let compress = pqEncrypted && peerVersion >= ChatVersion.compression
        let batching = peerVersion >= ChatVersion.directBatches
        // Built back to front, as `foldr` builds them.
        var groups: [BatchGroup] = []
        var batch: [(index: Int, bytes: [UInt8])] = []
        var length = 0

        func close() {
            if !batch.isEmpty { groups.append(.batch(batch.reversed())) }
            batch = []
            length = 0
        }

        for (index, message) in messages.enumerated().reversed() {
            let encoded = message.encoded
            // Brackets and a comma for each element added to a batch that has one.
            let batchLength = batch.isEmpty ? encoded.count : length + 1 + encoded.count + 2
            if batching && batchLength <= maxEncodedMsgLength {
                length = batch.isEmpty ? encoded.count : length + 1 + encoded.count
                batch.append((index, encoded))
            } else if encoded.count <= maxEncodedMsgLength {
                close()
                batch = [(index, encoded)]
                length = encoded.count
            } else {
                close()
                groups.append(.refused(index, .tooLarge(size: encoded.count, limit: maxEncodedMsgLength)))
            }
        }
        close()

        var bodies: [Outgoing] = []
        var failures: [(index: Int, error: ChatProtocolError)] = []
        for group in groups.reversed() {
            switch group {
            case .refused(let index, let error): failures.append((index, error))
            case .batch(let items):
                var bytes: [UInt8]
                if items.count == 1 {
                    bytes = items[0].bytes
                } else {
                    bytes = [UInt8(ascii: "[")]
                    for (i, item) in items.enumerated() {
                        if i > 0 { bytes.append(UInt8(ascii: ",")) }
                        bytes += item.bytes
                    }
                    bytes.append(UInt8(ascii: "]"))
                }
                if compress && bytes.count > maxCompressedMsgLength {
                    let packed = (try? compressed(bytes)) ?? bytes
                    guard packed.count <= maxCompressedMsgLength else {
                        let error = ChatProtocolError.tooLarge(size: packed.count, limit: maxCompressedMsgLength)
                        failures += items.map { ($0.index, error) }
                        continue
                    }
                    bytes = packed
                }
                bodies.append(Outgoing(bytes: bytes, messages: items.map(\.index)))
            }
        }
        return (bodies, failures)
    }

    private enum BatchGroup {
        case batch([(index: Int, bytes: [UInt8])])
        case refused(Int, ChatProtocolError)
    }

    /// The bodies for a peer that advertised `peer`: what we send is decided by the version both speak.
    public static func bodies(_ messages: [ChatMessage], peer: ChatVersionRange, pqEncrypted: Bool = false)
        throws(ChatProtocolError) -> (bodies: [Outgoing], failures: [(index: Int, error: ChatProtocolError)])
    {
        guard let version = ChatVersionRange.advertised.agreedVersion(with: peer) else {
            throw .incompatibleVersion(peer: peer)
        }
        return bodies(messages, peerVersion: version, pqEncrypted: pqEncrypted)
    }

    /// Whether a received body asks for a delivery receipt (smp.md §6.6): it carries an event that has one. The
    /// contact's receipt setting is the caller's to apply.
    public static func wantsReceipt(_ messages: [Result<ChatMessage, ChatProtocolError>]) -> Bool {
        messages.contains { result in
            if case .success(let m) = result { return ChatMsgEvent.hasDeliveryReceipt(m.event.tag) }
            return false
        }
    }

    /// `"X" ‖ 01 ‖ item` with the body as the one item (`compressedBatchMsgBody_`): short bodies pass through, the
    /// rest as a zstd frame of level 3 that declares its size.
    public static func compressed(_ body: [UInt8]) throws(ChatProtocolError) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "X"), 1]
        if body.count <= maxPassthroughLength {
            out += [UInt8(ascii: "0"), UInt8(body.count)]
            out += body
        } else {
            let frame = Zstd.compress(body)
            guard frame.count <= 0xFFFF else { throw .tooLarge(size: frame.count, limit: 0xFFFF) }
            out += [UInt8(ascii: "1"), UInt8(truncatingIfNeeded: frame.count >> 8), UInt8(truncatingIfNeeded: frame.count)]
            out += frame
        }
        return out
    }
}
