import SimplexZstd
import XCTest

final class ZstdTests: XCTestCase {
    func testRoundTripAndDeclaredContentSize() throws {
        for json in ["", "{}", String(repeating: #"{"type":"chatItems","chatItems":[]}"#, count: 200)] {
            let frame = Zstd.compress(Array(json.utf8))
            // Frame header descriptor: a Frame_Content_Size field must be present (flag bits 6–7 or single segment).
            XCTAssertEqual(Array(frame.prefix(4)), [0x28, 0xb5, 0x2f, 0xfd])
            let descriptor = frame[4]
            XCTAssertTrue(descriptor & 0xc0 != 0 || descriptor & 0x20 != 0, "frame must declare its size")
            XCTAssertEqual(try Zstd.decompress(frame), Array(json.utf8))
        }
    }

    func testRefusals() throws {
        XCTAssertThrowsError(try Zstd.decompress([]))
        XCTAssertThrowsError(try Zstd.decompress([1, 2, 3, 4, 5, 6]))
        let frame = Zstd.compress([UInt8](repeating: 65, count: 100_000))
        XCTAssertThrowsError(try Zstd.decompress(frame, limit: 1000)) { error in
            XCTAssertEqual(error as? Zstd.Error, .contentSize("declared 100000 bytes, limit 1000"))
        }
        for n in 0..<frame.count { _ = try? Zstd.decompress(Array(frame.prefix(n))) }
        var corrupted = frame
        corrupted[corrupted.count - 3] ^= 0xff
        _ = try? Zstd.decompress(corrupted)
    }
}
