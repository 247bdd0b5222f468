/// One entry of an archive's central directory.
public struct ZipEntry: Equatable, Sendable {
    /// The name as stored; bytes that are not UTF-8 are shown as U+FFFD.
    public let name: String
    public let method: UInt16
    public let flags: UInt16
    public let crc32: UInt32
    public let compressedSize: UInt64
    public let uncompressedSize: UInt64
    public let localHeaderOffset: UInt64
    public let modified: DOSTimestamp
    /// The name's bytes were valid UTF-8.
    let nameIsUTF8: Bool
    /// The system the entry was made on (the high byte of "version made by"): 3 is Unix.
    let madeBySystem: UInt8
    /// The external attributes: on Unix, the file's mode in the high 16 bits.
    let externalAttributes: UInt32

    /// A folder entry (`name/`), which holds no data.
    public var isDirectory: Bool { name.hasSuffix("/") }

    /// A symbolic link stored as its target's path (a Unix mode of `S_IFLNK`): not a file to extract.
    public var isSymbolicLink: Bool { madeBySystem == 3 && (externalAttributes >> 16) & 0o170000 == 0o120000 }

    /// The path's components, or `unsafeName` when extracting the entry would write outside the target folder (or
    /// its name is not UTF-8, which cannot be checked).
    public func safePath() throws(ZipError) -> [String] {
        guard nameIsUTF8 else { throw .unsafeName(name) }
        return try EntryName.components(name)
    }
}

/// Reads an archive: the central directory at once, each entry's data streamed on demand (stored or deflate),
/// checked against its CRC-32 and sizes. A structure that lies (sizes past the directory, lengths past the end) is an
/// error, never a trap.
public final class ZipReader {
    public let entries: [ZipEntry]
    private let source: any ZipSource
    /// Where the central directory starts: every entry's data lies before it.
    private let directoryOffset: UInt64

    /// A directory larger than this is refused rather than read into memory (about two million entries).
    static let maxDirectorySize: UInt64 = 256 << 20

    public init(source: any ZipSource) throws(ZipError) {
        self.source = source
        let end = try Self.findEnd(source)
        var count = end.count
        var size = end.directorySize
        var offset = end.directoryOffset
        var directoryLimit = end.offset
        if end.needsZip64 {
            let z = try Self.readZip64End(source, endOffset: end.offset)
            count = z.count
            size = z.directorySize
            offset = z.directoryOffset
            directoryLimit = z.offset
        }
        guard offset <= directoryLimit, size <= directoryLimit - offset else {
            throw .notAnArchive("the central directory lies outside the file")
        }
        guard size <= Self.maxDirectorySize else { throw .notAnArchive("central directory of \(size) bytes") }
        let directory = try source.read(at: offset, count: Int(size))
        var reader = LittleEndianReader(directory, record: "central directory")
        var entries: [ZipEntry] = []
        // Each entry takes at least a fixed header, so a count that cannot fit is a lie caught before the loop.
        guard count <= UInt64(directory.count / Layout.centralHeaderSize) else {
            throw .truncated("central directory of \(count) entries in \(size) bytes")
        }
        for _ in 0..<count {
            entries.append(try Self.centralEntry(&reader))
        }
        self.entries = entries
        directoryOffset = offset
    }

    // MARK: End records

    private struct End {
        let offset: UInt64
        let count: UInt64
        let directorySize: UInt64
        let directoryOffset: UInt64
        let needsZip64: Bool
    }

    /// The end of central directory record: the last one in the final 64 KiB + 22 bytes (a comment may follow it).
    private static func findEnd(_ source: any ZipSource) throws(ZipError) -> End {
        let size = source.size
        guard size >= UInt64(Layout.endOfCentralDirectorySize) else { throw .notAnArchive("\(size) bytes") }
        let tailSize = min(size, UInt64(Layout.endOfCentralDirectorySize + Int(UInt16.max)))
        let tail = try source.read(at: size - tailSize, count: Int(tailSize))
        var i = tail.count - Layout.endOfCentralDirectorySize
        while i >= 0 {
            if tail[i] == 0x50, tail[i + 1] == 0x4b, tail[i + 2] == 0x05, tail[i + 3] == 0x06 {
                var r = LittleEndianReader(tail, at: i + 4, record: "end of central directory")
                let disk = try r.u16()
                let directoryDisk = try r.u16()
                let countOnDisk = try r.u16()
                let count = try r.u16()
                let directorySize = try r.u32()
                let directoryOffset = try r.u32()
                let commentLength = try r.u16()
                if Int(commentLength) <= r.remaining {
                    guard disk == 0 || disk == Layout.escaped16, directoryDisk == 0 || directoryDisk == Layout.escaped16,
                        countOnDisk == count
                    else { throw .notAnArchive("archives split over several disks are not supported") }
                    let offset = size - tailSize + UInt64(i)
                    let escaped =
                        count == Layout.escaped16 || directorySize == Layout.escaped32 || directoryOffset == Layout.escaped32
                    var hasLocator = false
                    if offset >= UInt64(Layout.zip64LocatorSize) {
                        hasLocator = try readU32(source, at: offset - 20) == Signature.zip64Locator
                    }
                    return End(
                        offset: offset, count: UInt64(count), directorySize: UInt64(directorySize),
                        directoryOffset: UInt64(directoryOffset), needsZip64: escaped || hasLocator)
                }
            }
            i -= 1
        }
        throw .notAnArchive("no end of central directory record")
    }

    private static func readU32(_ source: any ZipSource, at offset: UInt64) throws(ZipError) -> UInt32 {
        var r = LittleEndianReader(try source.read(at: offset, count: 4), record: "signature")
        return try r.u32()
    }

    /// The ZIP64 end record, through the locator just before the classic end record.
    private static func readZip64End(_ source: any ZipSource, endOffset: UInt64) throws(ZipError) -> End {
        guard endOffset >= UInt64(Layout.zip64LocatorSize) else { throw .notAnArchive("no ZIP64 locator") }
        var locator = LittleEndianReader(
            try source.read(at: endOffset - UInt64(Layout.zip64LocatorSize), count: Layout.zip64LocatorSize),
            record: "ZIP64 locator")
        guard try locator.u32() == Signature.zip64Locator else { throw .notAnArchive("no ZIP64 locator") }
        _ = try locator.u32()
        let recordOffset = try locator.u64()
        let locatorOffset = endOffset - UInt64(Layout.zip64LocatorSize)
        guard locatorOffset >= UInt64(Layout.zip64EndOfCentralDirectorySize),
            recordOffset <= locatorOffset - UInt64(Layout.zip64EndOfCentralDirectorySize)
        else { throw .notAnArchive("the ZIP64 end record lies outside the file") }
        var r = LittleEndianReader(
            try source.read(at: recordOffset, count: Layout.zip64EndOfCentralDirectorySize), record: "ZIP64 end record")
        guard try r.u32() == Signature.zip64EndOfCentralDirectory else { throw .notAnArchive("no ZIP64 end record") }
        try r.skip(8 + 2 + 2 + 4 + 4)
        let countOnDisk = try r.u64()
        let count = try r.u64()
        guard countOnDisk == count else { throw .notAnArchive("archives split over several disks are not supported") }
        let directorySize = try r.u64()
        let directoryOffset = try r.u64()
        return End(
            offset: recordOffset, count: count, directorySize: directorySize, directoryOffset: directoryOffset,
            needsZip64: true)
    }

    // MARK: Central directory

    private static func centralEntry(_ r: inout LittleEndianReader) throws(ZipError) -> ZipEntry {
        guard try r.u32() == Signature.centralHeader else { throw .notAnArchive("bad central directory header") }
        let madeBy = try r.u16()
        try r.skip(2)  // version needed
        let flags = try r.u16()
        let method = try r.u16()
        let time = try r.u16()
        let date = try r.u16()
        let crc = try r.u32()
        var compressed = UInt64(try r.u32())
        var uncompressed = UInt64(try r.u32())
        let nameLength = Int(try r.u16())
        let extraLength = Int(try r.u16())
        let commentLength = Int(try r.u16())
        try r.skip(2 + 2)  // disk, internal attributes
        let external = try r.u32()
        var offset = UInt64(try r.u32())
        let nameBytes = Array(try r.take(nameLength))
        var extra = LittleEndianReader(Array(try r.take(extraLength)), record: "extra field")
        try r.skip(commentLength)
        // The ZIP64 field holds, in this order, only the values escaped in the fixed header.
        while extra.remaining >= 4 {
            let id = try extra.u16()
            let length = Int(try extra.u16())
            var field = LittleEndianReader(Array(try extra.take(length)), record: "ZIP64 extra field")
            guard id == Layout.zip64ExtraID else { continue }
            if uncompressed == UInt64(Layout.escaped32) { uncompressed = try field.u64() }
            if compressed == UInt64(Layout.escaped32) { compressed = try field.u64() }
            if offset == UInt64(Layout.escaped32) { offset = try field.u64() }
        }
        let decoded = String(validating: nameBytes, as: UTF8.self)
        return ZipEntry(
            name: decoded ?? String(decoding: nameBytes, as: UTF8.self), method: method, flags: flags, crc32: crc,
            compressedSize: compressed, uncompressedSize: uncompressed, localHeaderOffset: offset,
            modified: DOSTimestamp(time: time, date: date), nameIsUTF8: decoded != nil,
            madeBySystem: UInt8(truncatingIfNeeded: madeBy >> 8), externalAttributes: external)
    }

    // MARK: Data

    /// Streams the entry's data, decompressed, into `sink`, then checks its size and CRC-32. On an error the sink may
    /// hold part of the data: the caller discards it.
    public func extract(_ entry: ZipEntry, to sink: any ZipSink) throws(ZipError) {
        guard entry.flags & Layout.flagEncrypted == 0 else { throw .encrypted(entry.name) }
        guard entry.method == ZipWriter.Method.stored.rawValue || entry.method == ZipWriter.Method.deflated.rawValue else {
            throw .unsupportedMethod(name: entry.name, method: entry.method)
        }
        let start = try dataStart(entry)
        let inflater = entry.method == ZipWriter.Method.deflated.rawValue ? Inflater(entry: entry.name) : nil
        var crc = CRC32()
        var produced: UInt64 = 0
        let emit = { (bytes: UnsafeRawBufferPointer) throws(ZipError) in
            produced += UInt64(bytes.count)
            // A bomb stops at its declared size instead of filling the disk.
            guard produced <= entry.uncompressedSize else {
                throw .corrupt(name: entry.name, reason: "more data than the declared \(entry.uncompressedSize) bytes")
            }
            crc.update(bytes)
            try sink.write(bytes)
        }
        var position: UInt64 = 0
        while position < entry.compressedSize {
            let n = Int(min(UInt64(chunkSize), entry.compressedSize - position))
            let chunk = try source.read(at: start + position, count: n)
            position += UInt64(n)
            try chunk.withBytes { (b) throws(ZipError) in
                if let inflater { try inflater.inflate(b, emit: emit) } else { try emit(b) }
            }
        }
        if let inflater, !inflater.ended, entry.compressedSize > 0 || entry.uncompressedSize > 0 {
            throw .corrupt(name: entry.name, reason: "the deflate stream ends early")
        }
        guard produced == entry.uncompressedSize else {
            throw .corrupt(name: entry.name, reason: "\(produced) bytes where \(entry.uncompressedSize) were declared")
        }
        guard crc.value == entry.crc32 else { throw .corrupt(name: entry.name, reason: "CRC-32 mismatch") }
    }

    /// Where the entry's data starts: after its local header, whose name and extra field lengths may differ from the
    /// central directory's.
    private func dataStart(_ entry: ZipEntry) throws(ZipError) -> UInt64 {
        let headerEnd = entry.localHeaderOffset.addingReportingOverflow(UInt64(Layout.localHeaderSize))
        guard !headerEnd.overflow, headerEnd.partialValue <= directoryOffset else {
            throw .truncated("\(entry.name): local header outside the file")
        }
        var r = LittleEndianReader(
            try source.read(at: entry.localHeaderOffset, count: Layout.localHeaderSize), record: "local header")
        guard try r.u32() == Signature.localHeader else { throw .corrupt(name: entry.name, reason: "bad local header") }
        try r.skip(22)
        let nameLength = UInt64(try r.u16())
        let extraLength = UInt64(try r.u16())
        let start = headerEnd.partialValue + nameLength + extraLength
        guard start <= directoryOffset, entry.compressedSize <= directoryOffset - start else {
            throw .truncated("\(entry.name): data overlaps the central directory")
        }
        return start
    }
}
