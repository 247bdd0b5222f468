// The zip format's fixed parts (PKWARE APPNOTE 6.3.x): signatures, the little-endian fields of its records, DOS
// timestamps and the rules for entry names that are safe to extract.
internal import SimplexEncoding

enum Signature {
    static let localHeader: UInt32 = 0x0403_4b50
    static let centralHeader: UInt32 = 0x0201_4b50
    static let endOfCentralDirectory: UInt32 = 0x0605_4b50
    static let zip64EndOfCentralDirectory: UInt32 = 0x0606_4b50
    static let zip64Locator: UInt32 = 0x0706_4b50
}

enum Layout {
    static let localHeaderSize = 30
    static let centralHeaderSize = 46
    static let endOfCentralDirectorySize = 22
    static let zip64EndOfCentralDirectorySize = 56
    static let zip64LocatorSize = 20
    /// The ZIP64 extended information extra field (APPNOTE 4.5.3).
    static let zip64ExtraID: UInt16 = 0x0001
    /// A 32-bit field that says "see the ZIP64 record".
    static let escaped32: UInt32 = 0xFFFF_FFFF
    static let escaped16: UInt16 = 0xFFFF
    /// General purpose flags: bit 0 encrypted, bit 11 the name is UTF-8.
    static let flagEncrypted: UInt16 = 1 << 0
    static let flagUTF8: UInt16 = 1 << 11
    /// Version needed to extract: 2.0 for deflate, 4.5 for ZIP64.
    static let version20: UInt16 = 20
    static let version45: UInt16 = 45
    /// Version made by: Unix (3), so external attributes carry a mode.
    static let madeByUnix: UInt16 = 3 << 8
    /// A regular file, rw-r--r--, in the high half of the external attributes.
    static let regularFileAttributes: UInt32 = 0o100644 << 16
}

/// Little-endian fields appended to a buffer.
struct LittleEndianWriter {
    var bytes: [UInt8] = []

    mutating func u16(_ v: UInt16) { bytes += [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
    mutating func u32(_ v: UInt32) { for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
    mutating func u64(_ v: UInt64) { for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
    mutating func append(_ b: [UInt8]) { bytes += b }
}

/// A defensive cursor over one record: every read checks the length and names the record when it runs out.
struct LittleEndianReader {
    private let bytes: [UInt8]
    private(set) var position: Int
    let record: String

    init(_ bytes: [UInt8], at position: Int = 0, record: String) {
        self.bytes = bytes
        self.position = position
        self.record = record
    }

    var remaining: Int { bytes.count - position }

    mutating func take(_ n: Int) throws(ZipError) -> ArraySlice<UInt8> {
        guard n >= 0, remaining >= n else { throw .truncated(record) }
        defer { position += n }
        return bytes[position..<position + n]
    }

    mutating func skip(_ n: Int) throws(ZipError) { _ = try take(n) }

    mutating func u16() throws(ZipError) -> UInt16 { UInt16(truncatingIfNeeded: try integer(2)) }
    mutating func u32() throws(ZipError) -> UInt32 { UInt32(truncatingIfNeeded: try integer(4)) }
    mutating func u64() throws(ZipError) -> UInt64 { try integer(8) }

    private mutating func integer(_ size: Int) throws(ZipError) -> UInt64 {
        try take(size).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}

/// An MS-DOS date and time as zip headers keep them: two-second resolution, years 1980–2107, no time zone (we write
/// UTC).
public struct DOSTimestamp: Equatable, Sendable {
    public let time: UInt16
    public let date: UInt16

    public init(time: UInt16, date: UInt16) {
        self.time = time
        self.date = date
    }

    /// 1980-01-01 00:00, the earliest a DOS date can say.
    public static let earliest = DOSTimestamp(time: 0, date: 1 << 5 | 1)

    /// The UTC calendar time of a Unix timestamp, clamped to what a DOS date can say.
    public init(secondsSince1970 seconds: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondsOfDay = seconds - days * 86_400
        let (year, month, day) = CivilCalendar.date(daysSince1970: days)
        guard year >= 1980 else {
            self = .earliest
            return
        }
        guard year <= 2107 else {
            self.init(time: 23 << 11 | 59 << 5 | 29, date: 127 << 9 | 12 << 5 | 31)
            return
        }
        let hour = secondsOfDay / 3600
        let minute = secondsOfDay / 60 % 60
        let second = secondsOfDay % 60
        self.init(
            time: UInt16(hour << 11 | minute << 5 | second / 2),
            date: UInt16((year - 1980) << 9 | month << 5 | day))
    }
}

/// Entry names: `/`-separated, relative, never climbing out of the folder they are extracted into.
enum EntryName {
    /// The path's components, or `unsafeName` for a name that is absolute, has a drive (`C:`), a backslash (a
    /// separator on Windows, where the archive may have been made), NUL, or a `..` component. `.` and empty
    /// components (`a//b`) say nothing and are dropped.
    static func components(_ name: String) throws(ZipError) -> [String] {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\\"), !name.contains("\0") else {
            throw .unsafeName(name)
        }
        let scalars = Array(name.unicodeScalars.prefix(2))
        if scalars.count == 2, scalars[1] == ":", scalars[0].isASCIILetter {
            throw .unsafeName(name)
        }
        let parts = name.split(separator: "/", omittingEmptySubsequences: true).map(String.init).filter { $0 != "." }
        guard !parts.isEmpty, !parts.contains("..") else { throw .unsafeName(name) }
        return parts
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
