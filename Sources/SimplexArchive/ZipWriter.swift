/// Writes a zip archive entry by entry, streaming each entry's data: a local header with the sizes left blank, the
/// data (stored or deflated) as it comes, then the header filled in; the central directory and its end record at
/// `finish`. ZIP64 records are written where sizes, offsets or the entry count need them.
///
/// Entries: `beginEntry`, any number of `write`, then `endEntry` (or `abandonEntry`, which takes the entry back out).
public final class ZipWriter {
    public enum Method: UInt16, Sendable {
        case stored = 0
        case deflated = 8
    }

    public struct Options: Sendable {
        /// ZIP64 fields for every entry and the end records even when nothing needs them (tests, other readers).
        public var forceZip64 = false
        /// zlib's level, 1 (fast) to 9 (small).
        public var deflateLevel: Int32 = 6

        public init() {}
    }

    /// An entry being written.
    private final class OpenEntry {
        let name: [UInt8]
        let method: Method
        let modified: DOSTimestamp
        let headerOffset: UInt64
        /// The local header has a ZIP64 extra field for the sizes.
        let zip64Local: Bool
        let deflater: Deflater?
        var crc = CRC32()
        var uncompressed: UInt64 = 0
        var compressed: UInt64 = 0

        init(name: [UInt8], method: Method, modified: DOSTimestamp, headerOffset: UInt64, zip64Local: Bool, level: Int32) {
            self.name = name
            self.method = method
            self.modified = modified
            self.headerOffset = headerOffset
            self.zip64Local = zip64Local
            deflater = method == .deflated ? Deflater(level: level) : nil
        }
    }

    /// What the central directory says of a finished entry.
    private struct CentralRecord {
        let name: [UInt8]
        let method: Method
        let modified: DOSTimestamp
        let crc: UInt32
        let compressed: UInt64
        let uncompressed: UInt64
        let headerOffset: UInt64
    }

    private let sink: any ZipSink
    private let options: Options
    private var current: OpenEntry?
    private var records: [CentralRecord] = []
    private var finished = false

    public init(sink: any ZipSink, options: Options = Options()) {
        self.sink = sink
        self.options = options
    }

    /// Deflate output can exceed its input slightly; an entry expected this close to 4 GiB gets ZIP64 sizes in its
    /// local header so that it may end up either side of the limit.
    private static let localZip64Margin: UInt64 = 0xFF00_0000

    /// Starts an entry. `expectedSize` (the file's size when it is known) decides whether the local header has room
    /// for ZIP64 sizes; nil means "unknown", which reserves the room.
    public func beginEntry(name: String, method: Method, modified: DOSTimestamp, expectedSize: UInt64?) throws(ZipError) {
        precondition(current == nil && !finished, "ZipWriter: beginEntry while an entry is open or after finish")
        _ = try EntryName.components(name)
        let nameBytes = Array(name.utf8)
        guard nameBytes.count <= Int(UInt16.max) else { throw .unsafeName(name) }
        let zip64Local = options.forceZip64 || (expectedSize ?? .max) >= Self.localZip64Margin
        let entry = OpenEntry(
            name: nameBytes, method: method, modified: modified, headerOffset: sink.offset, zip64Local: zip64Local,
            level: options.deflateLevel)
        var h = LittleEndianWriter()
        h.u32(Signature.localHeader)
        h.u16(zip64Local ? Layout.version45 : Layout.version20)
        h.u16(Self.flags(nameBytes))
        h.u16(method.rawValue)
        h.u16(modified.time)
        h.u16(modified.date)
        h.u32(0)  // CRC-32, filled in by endEntry
        h.u32(zip64Local ? Layout.escaped32 : 0)  // compressed size
        h.u32(zip64Local ? Layout.escaped32 : 0)  // uncompressed size
        h.u16(UInt16(nameBytes.count))
        h.u16(zip64Local ? 20 : 0)
        h.append(nameBytes)
        if zip64Local {
            h.u16(Layout.zip64ExtraID)
            h.u16(16)
            h.u64(0)  // uncompressed size, filled in by endEntry
            h.u64(0)  // compressed size
        }
        try sink.write(h.bytes)
        current = entry
    }

    /// Appends data to the open entry.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(ZipError) {
        guard let entry = current else { preconditionFailure("ZipWriter: write without an open entry") }
        entry.crc.update(bytes)
        entry.uncompressed += UInt64(bytes.count)
        if let deflater = entry.deflater {
            try deflater.compress(bytes, finish: false) { (out) throws(ZipError) in
                try sink.write(out)
                entry.compressed += UInt64(out.count)
            }
        } else {
            try sink.write(bytes)
            entry.compressed += UInt64(bytes.count)
        }
    }

    public func write(_ bytes: [UInt8]) throws(ZipError) {
        try bytes.withBytes { (b) throws(ZipError) in try write(b) }
    }

    /// Ends the open entry and fills in its local header.
    public func endEntry() throws(ZipError) {
        guard let entry = current else { preconditionFailure("ZipWriter: endEntry without an open entry") }
        if let deflater = entry.deflater {
            try deflater.compress(UnsafeRawBufferPointer(start: nil, count: 0), finish: true) { (out) throws(ZipError) in
                try sink.write(out)
                entry.compressed += UInt64(out.count)
            }
        }
        let large = entry.uncompressed >= UInt64(Layout.escaped32) || entry.compressed >= UInt64(Layout.escaped32)
        if large && !entry.zip64Local {
            try abandonEntry()
            throw .entryTooLarge(String(decoding: entry.name, as: UTF8.self))
        }
        var fixed = LittleEndianWriter()
        fixed.u32(entry.crc.value)
        if entry.zip64Local {
            fixed.u32(Layout.escaped32)
            fixed.u32(Layout.escaped32)
        } else {
            fixed.u32(UInt32(entry.compressed))
            fixed.u32(UInt32(entry.uncompressed))
        }
        try sink.overwrite(at: entry.headerOffset + 14, with: fixed.bytes)
        if entry.zip64Local {
            var sizes = LittleEndianWriter()
            sizes.u64(entry.uncompressed)
            sizes.u64(entry.compressed)
            try sink.overwrite(at: entry.headerOffset + UInt64(Layout.localHeaderSize + entry.name.count + 4), with: sizes.bytes)
        }
        records.append(
            CentralRecord(
                name: entry.name, method: entry.method, modified: entry.modified, crc: entry.crc.value,
                compressed: entry.compressed, uncompressed: entry.uncompressed, headerOffset: entry.headerOffset))
        current = nil
    }

    /// Takes the open entry back out, as if it had never begun (its source failed half way).
    public func abandonEntry() throws(ZipError) {
        guard let entry = current else { return }
        current = nil
        try sink.truncate(to: entry.headerOffset)
    }

    /// Writes the central directory and the end records. The archive is complete after this.
    public func finish() throws(ZipError) {
        precondition(current == nil && !finished, "ZipWriter: finish while an entry is open or twice")
        finished = true
        let directoryOffset = sink.offset
        for record in records {
            try sink.write(centralHeader(record))
        }
        let directorySize = sink.offset - directoryOffset
        let count = UInt64(records.count)
        let zip64End =
            options.forceZip64 || count >= UInt64(Layout.escaped16) || directorySize >= UInt64(Layout.escaped32)
            || directoryOffset >= UInt64(Layout.escaped32)
        var end = LittleEndianWriter()
        if zip64End {
            let recordOffset = sink.offset
            end.u32(Signature.zip64EndOfCentralDirectory)
            end.u64(UInt64(Layout.zip64EndOfCentralDirectorySize - 12))  // the record's size after this field
            end.u16(Layout.madeByUnix | Layout.version45)
            end.u16(Layout.version45)
            end.u32(0)  // this disk
            end.u32(0)  // the disk the directory starts on
            end.u64(count)
            end.u64(count)
            end.u64(directorySize)
            end.u64(directoryOffset)
            end.u32(Signature.zip64Locator)
            end.u32(0)  // the disk the ZIP64 end record is on
            end.u64(recordOffset)
            end.u32(1)  // disks in all
        }
        end.u32(Signature.endOfCentralDirectory)
        end.u16(0)
        end.u16(0)
        end.u16(zip64End ? Layout.escaped16 : UInt16(count))
        end.u16(zip64End ? Layout.escaped16 : UInt16(count))
        end.u32(zip64End ? Layout.escaped32 : UInt32(directorySize))
        end.u32(zip64End ? Layout.escaped32 : UInt32(directoryOffset))
        end.u16(0)  // no comment
        try sink.write(end.bytes)
    }

    private func centralHeader(_ r: CentralRecord) -> [UInt8] {
        let force = options.forceZip64
        let bigUncompressed = force || r.uncompressed >= UInt64(Layout.escaped32)
        let bigCompressed = force || r.compressed >= UInt64(Layout.escaped32)
        let bigOffset = force || r.headerOffset >= UInt64(Layout.escaped32)
        var extra = LittleEndianWriter()
        if bigUncompressed { extra.u64(r.uncompressed) }
        if bigCompressed { extra.u64(r.compressed) }
        if bigOffset { extra.u64(r.headerOffset) }
        var extraField = LittleEndianWriter()
        if !extra.bytes.isEmpty {
            extraField.u16(Layout.zip64ExtraID)
            extraField.u16(UInt16(extra.bytes.count))
            extraField.append(extra.bytes)
        }
        let version = extraField.bytes.isEmpty ? Layout.version20 : Layout.version45
        var h = LittleEndianWriter()
        h.u32(Signature.centralHeader)
        h.u16(Layout.madeByUnix | version)
        h.u16(version)
        h.u16(Self.flags(r.name))
        h.u16(r.method.rawValue)
        h.u16(r.modified.time)
        h.u16(r.modified.date)
        h.u32(r.crc)
        h.u32(bigCompressed ? Layout.escaped32 : UInt32(r.compressed))
        h.u32(bigUncompressed ? Layout.escaped32 : UInt32(r.uncompressed))
        h.u16(UInt16(r.name.count))
        h.u16(UInt16(extraField.bytes.count))
        h.u16(0)  // no comment
        h.u16(0)  // disk
        h.u16(0)  // internal attributes
        h.u32(Layout.regularFileAttributes)
        h.u32(bigOffset ? Layout.escaped32 : UInt32(r.headerOffset))
        h.append(r.name)
        h.append(extraField.bytes)
        return h.bytes
    }

    /// Bit 11 says the name is UTF-8; plain ASCII names go without it, as most writers do.
    private static func flags(_ name: [UInt8]) -> UInt16 { name.allSatisfy { $0 < 0x80 } ? 0 : Layout.flagUTF8 }
}
