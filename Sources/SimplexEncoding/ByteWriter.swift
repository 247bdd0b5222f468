/// Why a value could not be encoded (a length that does not fit its prefix).
public enum BinaryEncodingError: Error, Equatable, Sendable {
    case tooLong(length: Int, limit: Int)
}

/// Accumulates the binary ("smp") encoding of values (xrcp.md §1.2).
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func writeByte(_ b: UInt8) { bytes.append(b) }

    public mutating func writeBytes<S: Sequence<UInt8>>(_ b: S) { bytes.append(contentsOf: b) }

    public mutating func writeUInt16(_ v: UInt16) {
        bytes.append(UInt8(v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    public mutating func writeUInt32(_ v: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
    }

    public mutating func writeInt64(_ v: Int64) {
        let u = UInt64(bitPattern: v)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: u >> UInt64(shift))) }
    }

    /// `len1(x)`; at most 255 bytes.
    public mutating func writeShortBytes(_ b: [UInt8]) throws(BinaryEncodingError) {
        guard b.count <= 255 else { throw .tooLong(length: b.count, limit: 255) }
        bytes.append(UInt8(b.count))
        bytes.append(contentsOf: b)
    }

    /// `len2(x)`; at most 65535 bytes.
    public mutating func writeLargeBytes(_ b: [UInt8]) throws(BinaryEncodingError) {
        guard b.count <= 65535 else { throw .tooLong(length: b.count, limit: 65535) }
        writeUInt16(UInt16(b.count))
        bytes.append(contentsOf: b)
    }
}
