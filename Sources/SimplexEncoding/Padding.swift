/// SimpleX's strict padding, xrcp.md §1.5: `u16be(len) || msg || "#"…` to exactly `size` bytes.
public enum Padding {
    public enum Error: Swift.Error, Equatable, Sendable {
        /// The message does not fit: it may be at most `min(65533, size - 2)` bytes.
        case messageTooLong(length: Int, limit: Int)
        /// The padded block is shorter than its own length prefix says.
        case invalidLength(declared: Int, available: Int)
        /// Fewer than the two bytes of the length prefix.
        case truncated
    }

    /// The filler byte, `#`.
    public static let filler: UInt8 = 0x23

    public static func pad(_ message: [UInt8], to size: Int) throws(Error) -> [UInt8] {
        let limit = Swift.min(65533, size - 2)
        guard message.count <= limit else { throw .messageTooLong(length: message.count, limit: Swift.max(limit, 0)) }
        var out = [UInt8]()
        out.reserveCapacity(size)
        out.append(UInt8(message.count >> 8))
        out.append(UInt8(message.count & 0xff))
        out.append(contentsOf: message)
        // An array, not `repeatElement`: appending a generic sequence runs element by element in debug builds,
        // which made each 16 KiB block cost milliseconds.
        out.append(contentsOf: [UInt8](repeating: filler, count: size - 2 - message.count))
        return out
    }

    /// The message inside a padded block. The filler is not checked, as in the reference.
    public static func unpad(_ padded: [UInt8]) throws(Error) -> [UInt8] {
        guard padded.count >= 2 else { throw .truncated }
        let n = Int(padded[0]) << 8 | Int(padded[1])
        guard n <= padded.count - 2 else { throw .invalidLength(declared: n, available: padded.count - 2) }
        return Array(padded[2..<2 + n])
    }
}
