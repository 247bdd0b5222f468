/// A protocol version range `min…max` (xrcp.md §1.2, §1.3): two Word16 in binary,
/// `"1"` when min = max and `"1-2"` otherwise in text.
public struct VersionRange: Hashable, Sendable, BinaryCodable, CustomStringConvertible {
    public let min: UInt16
    public let max: UInt16

    public enum Error: Swift.Error, Equatable, Sendable {
        case inverted(min: UInt16, max: UInt16)
        case syntax(String)
    }

    public init(min: UInt16, max: UInt16) throws(Error) {
        guard min <= max else { throw .inverted(min: min, max: max) }
        self.min = min
        self.max = max
    }

    public init(_ only: UInt16) {
        min = only
        max = only
    }

    public func contains(_ v: UInt16) -> Bool { min <= v && v <= max }

    /// The overlap of two ranges, or nil when they are disjoint.
    public func intersection(_ other: VersionRange) -> VersionRange? {
        let lo = Swift.max(min, other.min)
        let hi = Swift.min(max, other.max)
        return lo <= hi ? try? VersionRange(min: lo, max: hi) : nil
    }

    public var description: String { min == max ? "\(min)" : "\(min)-\(max)" }

    /// Parses the text form.
    public init(text: String) throws(Error) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        func num(_ s: Substring) throws(Error) -> UInt16 {
            guard !s.isEmpty, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let v = UInt16(s) else {
                throw .syntax(text)
            }
            return v
        }
        switch parts.count {
        case 1: self.init(try num(parts[0]))
        case 2: try self.init(min: try num(parts[0]), max: try num(parts[1]))
        default: throw .syntax(text)
        }
    }

    public func encode(to writer: inout ByteWriter) {
        writer.writeUInt16(min)
        writer.writeUInt16(max)
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        let lo = try reader.readUInt16()
        let hi = try reader.readUInt16()
        guard lo <= hi else { throw .malformed("version range \(lo)-\(hi) is inverted") }
        min = lo
        max = hi
    }
}
