import SimplexEncoding
import TestSupport
import XCTest

final class BinaryCodingTests: XCTestCase {
    private struct Sample: BinaryCodable, Equatable {
        var flag: Bool
        var word: UInt16
        var counter: UInt32
        var time: Int64
        var short: ShortBytes
        var large: LargeBytes
        var maybe: UInt16?
        var list: [ShortBytes]
        var versions: VersionRange

        func encode(to w: inout ByteWriter) throws(BinaryEncodingError) {
            flag.encode(to: &w)
            word.encode(to: &w)
            counter.encode(to: &w)
            time.encode(to: &w)
            try short.encode(to: &w)
            try large.encode(to: &w)
            try maybe.encode(to: &w)
            try list.encode(to: &w)
            versions.encode(to: &w)
        }

        init(
            flag: Bool, word: UInt16, counter: UInt32, time: Int64, short: ShortBytes, large: LargeBytes,
            maybe: UInt16?, list: [ShortBytes], versions: VersionRange
        ) {
            (self.flag, self.word, self.counter, self.time) = (flag, word, counter, time)
            (self.short, self.large, self.maybe, self.list, self.versions) = (short, large, maybe, list, versions)
        }

        init(from r: inout ByteReader) throws(BinaryDecodingError) {
            flag = try Bool(from: &r)
            word = try UInt16(from: &r)
            counter = try UInt32(from: &r)
            time = try Int64(from: &r)
            short = try ShortBytes(from: &r)
            large = try LargeBytes(from: &r)
            maybe = try UInt16?(from: &r)
            list = try [ShortBytes](from: &r)
            versions = try VersionRange(from: &r)
        }
    }

    private let sample = Sample(
        flag: true, word: 0x0102, counter: 0x0304_0506, time: -2, short: ShortBytes([0xaa]),
        large: LargeBytes([0xbb, 0xcc]), maybe: 7, list: [ShortBytes([1]), ShortBytes([])],
        versions: try! VersionRange(min: 1, max: 2))

    private let sampleBytes: [UInt8] = [
        0x54,  // Bool: "T"
        0x01, 0x02,  // Word16, big-endian
        0x03, 0x04, 0x05, 0x06,  // Word32
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,  // Int64 -2, two's complement
        0x01, 0xaa,  // len1 bytes
        0x00, 0x02, 0xbb, 0xcc,  // len2 bytes
        0x31, 0x00, 0x07,  // Maybe: "1" then Word16
        0x02, 0x01, 0x01, 0x00,  // list of 2: len1 [1], len1 []
        0x00, 0x01, 0x00, 0x02,  // version range 1-2
    ]

    func testEncodesFieldByField() throws {
        XCTAssertEqual(try sample.encoded(), sampleBytes)
        XCTAssertEqual(try Sample(decoding: sampleBytes), sample)
    }

    func testEveryTruncationIsATypedError() {
        for n in 0..<sampleBytes.count {
            XCTAssertThrowsError(try Sample(decoding: Array(sampleBytes.prefix(n)))) { error in
                guard case .truncated = error as? BinaryDecodingError else {
                    return XCTFail("prefix \(n): \(error)")
                }
            }
        }
    }

    func testTrailingBytesAreRefused() {
        XCTAssertEqual(thrown { try Sample(decoding: sampleBytes + [0]) } as? BinaryDecodingError, .trailingBytes(count: 1))
    }

    func testInvalidTags() {
        XCTAssertEqual(thrown { try Bool(decoding: [0x58]) } as? BinaryDecodingError, .invalidTag(0x58, expected: "T or F"))
        XCTAssertEqual(
            thrown { try UInt16?(decoding: [0x32, 0, 0]) } as? BinaryDecodingError, .invalidTag(0x32, expected: "0 or 1"))
        XCTAssertNil(try UInt16?(decoding: [0x30]))
        XCTAssertEqual(
            thrown { try VersionRange(decoding: [0, 2, 0, 1]) } as? BinaryDecodingError,
            .malformed("version range 2-1 is inverted"))
    }

    func testLengthsThatDoNotFitAreRefused() {
        var w = ByteWriter()
        XCTAssertThrowsError(try w.writeShortBytes([UInt8](repeating: 0, count: 256)))
        XCTAssertThrowsError(try w.writeLargeBytes([UInt8](repeating: 0, count: 65536)))
        XCTAssertThrowsError(try [ShortBytes](repeating: ShortBytes([]), count: 256).encoded())
        XCTAssertNoThrow(try w.writeShortBytes([UInt8](repeating: 0, count: 255)))
    }

    func testRandomInputNeverTraps() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0..<48, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = try? Sample(decoding: bytes)
        }
    }

    func testVersionRangeText() throws {
        XCTAssertEqual(VersionRange(1).description, "1")
        XCTAssertEqual(try VersionRange(min: 1, max: 2).description, "1-2")
        XCTAssertEqual(try VersionRange(text: "1-2"), try VersionRange(min: 1, max: 2))
        XCTAssertEqual(try VersionRange(text: "3"), VersionRange(3))
        for bad in ["", "-", "1-", "-1", "a", "1-2-3", "2-1", "+1", "70000"] {
            XCTAssertThrowsError(try VersionRange(text: bad), bad)
        }
        XCTAssertEqual(
            try VersionRange(min: 1, max: 3).intersection(try VersionRange(min: 2, max: 5)), try VersionRange(min: 2, max: 3))
        XCTAssertNil(VersionRange(1).intersection(VersionRange(2)))
    }
}
