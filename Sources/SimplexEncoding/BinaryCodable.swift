/// A value with SimpleX's binary ("smp") encoding, xrcp.md §1.2.
public protocol BinaryCodable: Sendable {
    func encode(to writer: inout ByteWriter) throws(BinaryEncodingError)
    init(from reader: inout ByteReader) throws(BinaryDecodingError)
}

extension BinaryCodable {
    /// The value's encoding as bytes.
    public func encoded() throws(BinaryEncodingError) -> [UInt8] {
        var w = ByteWriter()
        try encode(to: &w)
        return w.bytes
    }

    /// Decodes a value that must occupy all of `bytes`.
    public init(decoding bytes: [UInt8]) throws(BinaryDecodingError) {
        var r = ByteReader(bytes)
        self = try Self(from: &r)
        try r.expectEnd()
    }
}

extension Bool: BinaryCodable {
    public func encode(to writer: inout ByteWriter) { writer.writeByte(self ? UInt8(ascii: "T") : UInt8(ascii: "F")) }
    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        switch try reader.readByte() {
        case UInt8(ascii: "T"): self = true
        case UInt8(ascii: "F"): self = false
        case let b: throw .invalidTag(b, expected: "T or F")
        }
    }
}

extension UInt16: BinaryCodable {
    public func encode(to writer: inout ByteWriter) { writer.writeUInt16(self) }
    public init(from reader: inout ByteReader) throws(BinaryDecodingError) { self = try reader.readUInt16() }
}

extension UInt32: BinaryCodable {
    public func encode(to writer: inout ByteWriter) { writer.writeUInt32(self) }
    public init(from reader: inout ByteReader) throws(BinaryDecodingError) { self = try reader.readUInt32() }
}

extension Int64: BinaryCodable {
    public func encode(to writer: inout ByteWriter) { writer.writeInt64(self) }
    public init(from reader: inout ByteReader) throws(BinaryDecodingError) { self = try reader.readInt64() }
}

/// `Maybe x`: `"0"` for none, `"1" || x` for some.
extension Optional: BinaryCodable where Wrapped: BinaryCodable {
    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) {
        switch self {
        case .none: writer.writeByte(UInt8(ascii: "0"))
        case .some(let v):
            writer.writeByte(UInt8(ascii: "1"))
            try v.encode(to: &writer)
        }
    }
    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        switch try reader.readByte() {
        case UInt8(ascii: "0"): self = .none
        case UInt8(ascii: "1"): self = .some(try Wrapped(from: &reader))
        case let b: throw .invalidTag(b, expected: "0 or 1")
        }
    }
}

/// A list: a one-byte count, then the elements.
extension Array: BinaryCodable where Element: BinaryCodable {
    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) {
        guard count <= 255 else { throw .tooLong(length: count, limit: 255) }
        writer.writeByte(UInt8(count))
        for e in self { try e.encode(to: &writer) }
    }
    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        let n = Int(try reader.readByte())
        var out: [Element] = []
        out.reserveCapacity(n)
        for _ in 0..<n { out.append(try Element(from: &reader)) }
        self = out
    }
}

/// Short byte string, `len1(x)`.
public struct ShortBytes: BinaryCodable, Hashable {
    public var bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) { try writer.writeShortBytes(bytes) }
    public init(from reader: inout ByteReader) throws(BinaryDecodingError) { bytes = try reader.readShortBytes() }
}

/// Large byte string, `len2(x)`.
public struct LargeBytes: BinaryCodable, Hashable {
    public var bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) { try writer.writeLargeBytes(bytes) }
    public init(from reader: inout ByteReader) throws(BinaryDecodingError) { bytes = try reader.readLargeBytes() }
}

/// The remaining bytes, no length ("tail").
public struct TailBytes: BinaryCodable, Hashable {
    public var bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public func encode(to writer: inout ByteWriter) { writer.writeBytes(bytes) }
    public init(from reader: inout ByteReader) { bytes = reader.readRest() }
}
