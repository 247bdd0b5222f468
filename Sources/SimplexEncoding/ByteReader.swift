/// Why a binary ("smp") decoder refused its input (xrcp.md §1.2).
public enum BinaryDecodingError: Error, Equatable, Sendable {
    /// The input ended `needed` bytes before the value did.
    case truncated(needed: Int)
    /// Bytes were left after a value that must fill its input.
    case trailingBytes(count: Int)
    /// A length prefix exceeds what this value may hold.
    case lengthTooLarge(length: Int, limit: Int)
    /// A tag byte (Bool, Maybe, …) with no meaning here.
    case invalidTag(UInt8, expected: String)
    /// Bytes that are well framed but do not form a valid value.
    case malformed(String)
}

/// A defensive cursor over bytes: every read is bounds-checked and throws, nothing traps.
public struct ByteReader: Sendable {
    private let bytes: [UInt8]
    public private(set) var offset: Int

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.offset = 0
    }

    public init<S: Sequence<UInt8>>(_ bytes: S) {
        self.init(Array(bytes))
    }

    public var remaining: Int { bytes.count - offset }
    public var isAtEnd: Bool { remaining == 0 }

    public mutating func readByte() throws(BinaryDecodingError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated(needed: 1) }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func readBytes(_ count: Int) throws(BinaryDecodingError) -> [UInt8] {
        guard count >= 0 else { throw .malformed("negative length") }
        guard remaining >= count else { throw .truncated(needed: count - remaining) }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// The bytes left, consuming them ("tail" encoding).
    public mutating func readRest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    public func peekByte() -> UInt8? { isAtEnd ? nil : bytes[offset] }

    public mutating func readUInt16() throws(BinaryDecodingError) -> UInt16 {
        let b = try readBytes(2)
        return UInt16(b[0]) << 8 | UInt16(b[1])
    }

    public mutating func readUInt32() throws(BinaryDecodingError) -> UInt32 {
        let b = try readBytes(4)
        return b.reduce(0) { $0 << 8 | UInt32($1) }
    }

    public mutating func readInt64() throws(BinaryDecodingError) -> Int64 {
        let b = try readBytes(8)
        return Int64(bitPattern: b.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    /// `len1(x)`: one length byte, then that many bytes.
    public mutating func readShortBytes() throws(BinaryDecodingError) -> [UInt8] {
        try readBytes(Int(readByte()))
    }

    /// `len2(x)`: a big-endian Word16 length, then that many bytes.
    public mutating func readLargeBytes() throws(BinaryDecodingError) -> [UInt8] {
        try readBytes(Int(readUInt16()))
    }

    /// Throws unless every byte was consumed.
    public func expectEnd() throws(BinaryDecodingError) {
        guard isAtEnd else { throw .trailingBytes(count: remaining) }
    }
}
