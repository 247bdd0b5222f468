import SimplexArchive
import TestSupport
import XCTest

/// The same deterministic bytes as `content` in Tests/Peers/zip_peer.py: half text, half a linear congruential
/// sequence.
func content(_ n: Int, seed: Int) -> [UInt8] {
    let text = Array(String(repeating: "entry \(seed) ", count: n / 16 + 1).utf8.prefix(n / 2))
    var x = UInt64(seed)
    var noise: [UInt8] = []
    noise.reserveCapacity(n - text.count)
    for _ in 0..<(n - text.count) {
        x = (x &* 1_103_515_245 &+ 12345) % (1 << 31)
        noise.append(UInt8(truncatingIfNeeded: x >> 16))
    }
    return text + noise
}

/// Everything an entry holds, read back.
func readAll(_ bytes: [UInt8]) throws -> [(name: String, data: [UInt8])] {
    let reader = try ZipReader(source: MemoryZipSource(bytes))
    return try reader.entries.map { entry in
        let out = MemoryZipSink()
        try reader.extract(entry, to: out)
        return (entry.name, out.bytes)
    }
}

func archive(_ entries: [(String, [UInt8])], method: ZipWriter.Method, options: ZipWriter.Options = .init()) throws -> [UInt8] {
    let sink = MemoryZipSink()
    let writer = ZipWriter(sink: sink, options: options)
    for (name, data) in entries {
        try writer.beginEntry(name: name, method: method, modified: .earliest, expectedSize: UInt64(data.count))
        // Odd-sized pieces, so chunk boundaries fall anywhere.
        var i = 0
        while i < data.count {
            let n = min(7919, data.count - i)
            try writer.write(Array(data[i..<i + n]))
            i += n
        }
        try writer.endEntry()
    }
    try writer.finish()
    return sink.bytes
}

let sampleEntries: [(String, [UInt8])] = [
    ("simplex_v1_chat.db", content(5000, seed: 1)),
    ("simplex_v1_files/photo.jpg", content(200_000, seed: 2)),
    ("simplex_v1_files/empty.txt", []),
    ("simplex_v1_files/naïve café.txt", content(300, seed: 4)),
]

final class ZipTests: XCTestCase {
    func testCRC32CheckValue() {
        var crc = CRC32()
        crc.update(Array("123456789".utf8))
        XCTAssertEqual(crc.value, 0xCBF4_3926)
        var pieces = CRC32()
        pieces.update(Array("1234".utf8))
        pieces.update(Array("56789".utf8))
        XCTAssertEqual(pieces, crc)
    }

    func testDOSTimestamps() {
        // 2025-06-02 10:30:14 UTC.
        let t = DOSTimestamp(secondsSince1970: 1_748_860_214)
        XCTAssertEqual(t.date, (2025 - 1980) << 9 | 6 << 5 | 2)
        XCTAssertEqual(t.time, 10 << 11 | 30 << 5 | 7)
        XCTAssertEqual(DOSTimestamp(secondsSince1970: 0), .earliest)
        XCTAssertEqual(DOSTimestamp(secondsSince1970: -86_400 * 400), .earliest)
        // 2000-02-29 23:59:59.
        let leap = DOSTimestamp(secondsSince1970: 951_868_799)
        XCTAssertEqual(leap.date, 20 << 9 | 2 << 5 | 29)
        XCTAssertEqual(leap.time, 23 << 11 | 59 << 5 | 29)
    }

    /// A stored entry, field by field.
    func testStoredEntryBytes() throws {
        let bytes = try archive([("a", Array("hi".utf8))], method: .stored)
        var crc = CRC32()
        crc.update(Array("hi".utf8))
        let le32 = { (v: UInt32) in (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let local: [UInt8] =
            [0x50, 0x4b, 0x03, 0x04]  // local file header signature
            + [20, 0]  // version needed: 2.0
            + [0, 0]  // flags: an ASCII name
            + [0, 0]  // method: stored
            + [0, 0, 0x21, 0]  // time 00:00:00, date 1980-01-01
            + le32(crc.value)  // CRC-32
            + [2, 0, 0, 0, 2, 0, 0, 0]  // compressed and uncompressed sizes
            + [1, 0, 0, 0]  // name length 1, no extra field
            + Array("a".utf8) + Array("hi".utf8)
        XCTAssertEqual(Array(bytes.prefix(local.count)), local)
        let end = Array(bytes.suffix(22))
        XCTAssertEqual(
            end,
            [0x50, 0x4b, 0x05, 0x06]  // end of central directory signature
                + [0, 0, 0, 0]  // disk numbers
                + [1, 0, 1, 0]  // one entry on this disk, one in all
                + le32(47)  // the directory's size: one header of 46 bytes and the name
                + le32(UInt32(local.count))  // the directory's offset
                + [0, 0])  // no comment
        XCTAssertEqual(bytes.count, local.count + 47 + 22)
    }

    func testRoundTrips() throws {
        var forced = ZipWriter.Options()
        forced.forceZip64 = true
        for (method, options) in [(ZipWriter.Method.stored, ZipWriter.Options()), (.deflated, .init()), (.deflated, forced)] {
            let bytes = try archive(sampleEntries, method: method, options: options)
            let back = try readAll(bytes)
            XCTAssertEqual(back.map(\.name), sampleEntries.map(\.0))
            XCTAssertEqual(back.map(\.data), sampleEntries.map(\.1))
        }
        XCTAssertEqual(try readAll(try archive([], method: .deflated)).count, 0)
    }

    func testAbandonedEntryLeavesNoTrace() throws {
        let sink = MemoryZipSink()
        let writer = ZipWriter(sink: sink)
        try writer.beginEntry(name: "kept", method: .deflated, modified: .earliest, expectedSize: 3)
        try writer.write([1, 2, 3])
        try writer.endEntry()
        try writer.beginEntry(name: "dropped", method: .deflated, modified: .earliest, expectedSize: 100_000)
        try writer.write(content(100_000, seed: 9))
        try writer.abandonEntry()
        try writer.finish()
        let back = try readAll(sink.bytes)
        XCTAssertEqual(back.map(\.name), ["kept"])
        XCTAssertEqual(back.first?.data, [1, 2, 3])
    }

    func testUnsafeNames() throws {
        for name in ["../evil", "/etc/passwd", "a/../../b", "a\\b", "C:evil", "", "a\0b", "./..", "x/.."] {
            let writer = ZipWriter(sink: MemoryZipSink())
            XCTAssertEqual(
                thrown { try writer.beginEntry(name: name, method: .stored, modified: .earliest, expectedSize: 0) } as? ZipError,
                .unsafeName(name), name)
        }
        // Harmless spellings are accepted and normalised.
        let bytes = try archive([("simplex_v1_files/./a//b.txt", [1])], method: .stored)
        let entry = try XCTUnwrap(try ZipReader(source: MemoryZipSource(bytes)).entries.first)
        XCTAssertEqual(try entry.safePath(), ["simplex_v1_files", "a", "b.txt"])
    }

    /// Every truncation and every single-byte corruption of an archive yields an error or checked data, never a trap.
    func testDamagedArchives() throws {
        let bytes = try archive([("a.txt", content(3000, seed: 5)), ("b.txt", content(100, seed: 6))], method: .deflated)
        for n in 0..<bytes.count {
            XCTAssertNotNil(thrown { try readAll(Array(bytes.prefix(n))) }, "prefix \(n)")
        }
        for i in stride(from: 0, to: bytes.count, by: 3) {
            var damaged = bytes
            damaged[i] ^= 0x5a
            if let back = try? readAll(damaged) {
                // A change that still reads (a timestamp, attributes) must not have changed the data.
                XCTAssertEqual(back.map(\.data), [content(3000, seed: 5), content(100, seed: 6)], "byte \(i)")
            }
        }
    }

    func testCRCAndSizeChecks() throws {
        var bytes = try archive([("a.txt", Array("hello".utf8))], method: .stored)
        bytes[30 + 5] = UInt8(ascii: "j")  // the data's first byte, after the header and the name
        XCTAssertEqual(thrown { try readAll(bytes) } as? ZipError, .corrupt(name: "a.txt", reason: "CRC-32 mismatch"))
        // A central directory that understates the size stops the inflation there (a zip bomb).
        var bomb = try archive([("a.txt", [UInt8](repeating: 0, count: 100_000))], method: .deflated)
        let directory = bomb.count - 22 - 51  // one central header: 46 bytes and the name
        bomb[directory + 24] = 10  // uncompressed size: 10
        bomb[directory + 25] = 0
        bomb[directory + 26] = 0
        bomb[directory + 27] = 0
        XCTAssertEqual(
            thrown { try readAll(bomb) } as? ZipError,
            .corrupt(name: "a.txt", reason: "more data than the declared 10 bytes"))
    }

    func testFilesStreamThrough() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("a.zip").path
        let sink = try FileZipSink(creating: path)
        let writer = ZipWriter(sink: sink)
        for (name, data) in sampleEntries {
            try writer.beginEntry(name: name, method: .deflated, modified: .earliest, expectedSize: nil)
            try writer.write(data)
            try writer.endEntry()
        }
        try writer.finish()
        try sink.close()
        let reader = try ZipReader(source: FileZipSource(path: path))
        for (entry, expected) in zip(reader.entries, sampleEntries) {
            let out = try FileZipSink(creating: folder.appendingPathComponent("out").path)
            try reader.extract(entry, to: out)
            try out.close()
            XCTAssertEqual(Array(try Data(contentsOf: folder.appendingPathComponent("out"))), expected.1)
        }
    }
}
