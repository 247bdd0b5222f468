import SimplexEncoding
import TestSupport
import XCTest

final class PaddingTests: XCTestCase {
    func testVectorTVPAD() throws {
        // xrcp.md §19.2 TV-PAD
        XCTAssertEqual(Hex.encode(try Padding.pad(Array("hello".utf8), to: 16)), "000568656c6c6f232323232323232323")
    }

    func testSizesXRCPUses() throws {
        for size in [16384, 12288, 900] {
            let msg = [UInt8](repeating: 7, count: size - 2)
            let padded = try Padding.pad(msg, to: size)
            XCTAssertEqual(padded.count, size)
            XCTAssertEqual(try Padding.unpad(padded), msg)
            XCTAssertEqual(
                thrown { try Padding.pad(msg + [1], to: size) } as? Padding.Error,
                .messageTooLong(length: size - 1, limit: size - 2))
        }
        // The two-byte prefix caps messages at 65533 bytes even in larger blocks.
        XCTAssertThrowsError(try Padding.pad([UInt8](repeating: 0, count: 65534), to: 70000))
        XCTAssertEqual(thrown { try Padding.pad([], to: 1) } as? Padding.Error, .messageTooLong(length: 0, limit: 0))
    }

    func testUnpadRefusesBadLengths() {
        XCTAssertEqual(thrown { try Padding.unpad([]) } as? Padding.Error, .truncated)
        XCTAssertEqual(thrown { try Padding.unpad([0]) } as? Padding.Error, .truncated)
        XCTAssertEqual(thrown { try Padding.unpad([0, 3, 1, 2]) } as? Padding.Error, .invalidLength(declared: 3, available: 2))
        XCTAssertEqual(try Padding.unpad([0, 0]), [])
        // Filler is not checked, as in the reference.
        XCTAssertEqual(try Padding.unpad([0, 1, 9, 0, 0]), [9])
    }
}

final class Base64Tests: XCTestCase {
    func testRFC4648Vectors() throws {
        let vectors = [
            "": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy",
        ]
        for (plain, encoded) in vectors {
            XCTAssertEqual(Base64.encode(Array(plain.utf8)), encoded)
            if !plain.isEmpty { XCTAssertEqual(try Base64.decode(encoded), Array(plain.utf8)) }
        }
    }

    func testAlphabetsAndSimpleXLengths() throws {
        let bytes: [UInt8] = [0xfb, 0xff, 0xbf]
        XCTAssertEqual(Base64.encode(bytes), "-_-_")
        XCTAssertEqual(Base64.encode(bytes, alphabet: .standard), "+/+/")
        XCTAssertEqual(Base64.encode([UInt8](repeating: 1, count: 32)).count, 44)
        XCTAssertTrue(Base64.encode([UInt8](repeating: 1, count: 32)).hasSuffix("="))
        XCTAssertTrue(Base64.encode([UInt8](repeating: 1, count: 64)).hasSuffix("=="))
        XCTAssertEqual(Base64.encode([UInt8](repeating: 1, count: 44)).count, 60)
        XCTAssertEqual(Base64.encode([UInt8](repeating: 1, count: 1158)).count, 1544)
    }

    func testDecodeAcceptsMissingPadding() throws {
        XCTAssertEqual(try Base64.decode("Zg"), Array("f".utf8))
        XCTAssertEqual(try Base64.decode("Zm8"), Array("fo".utf8))
    }

    func testDecodeErrors() {
        XCTAssertEqual(thrown { try Base64.decode("") } as? Base64.Error, .empty)
        XCTAssertEqual(thrown { try Base64.decode("==") } as? Base64.Error, .empty)
        XCTAssertEqual(thrown { try Base64.decode("Zm+v") } as? Base64.Error, .invalidCharacter(offset: 2))
        XCTAssertEqual(thrown { try Base64.decode("Z") } as? Base64.Error, .invalidLength(1))
        XCTAssertEqual(thrown { try Base64.decode("Zh==") } as? Base64.Error, .nonCanonical)
        XCTAssertEqual(thrown { try Base64.decode("Zg=") } as? Base64.Error, .nonCanonical)
        XCTAssertEqual(thrown { try Base64.decode("Zg===") } as? Base64.Error, .nonCanonical)
        XCTAssertEqual(thrown { try Base64.decode("Zm9v=") } as? Base64.Error, .nonCanonical)
        XCTAssertEqual(thrown { try Base64.decode("Zm 9v") } as? Base64.Error, .invalidCharacter(offset: 2))
    }

    func testRoundTripAllLengths() throws {
        for n in 1...100 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ n) }
            XCTAssertEqual(try Base64.decode(Base64.encode(bytes)), bytes)
            XCTAssertEqual(try Base64.decode(Base64.encode(bytes, alphabet: .standard), alphabet: .standard), bytes)
        }
    }
}

final class QueryEncodingTests: XCTestCase {
    func testEncode() {
        XCTAssertEqual(QueryEncoding.encode("My Desktop"), "My%20Desktop")
        XCTAssertEqual(QueryEncoding.encode("a=b&c"), "a%3Db%26c")
        XCTAssertEqual(QueryEncoding.encode("{\"k\":1,}"), "%7B%22k%22%3A1%2C%7D")
        XCTAssertEqual(QueryEncoding.encode("AZaz09-_.~"), "AZaz09-_.~")
        XCTAssertEqual(QueryEncoding.encode("é+/"), "%C3%A9%2B%2F")
    }

    func testDecode() {
        XCTAssertEqual(QueryEncoding.decode("a+b%20c%3d"), Array("a b c=".utf8))
        // Invalid escapes stay as they are.
        XCTAssertEqual(QueryEncoding.decode("%zz%4"), Array("%zz%4".utf8))
        XCTAssertEqual(QueryEncoding.decode("%"), Array("%".utf8))
        XCTAssertEqual(QueryEncoding.decode("%C3%A9"), [0xc3, 0xa9])
    }
}

final class CanonicalJSONTests: XCTestCase {
    func testControllerAppInfoOfTheSpecExample() {
        // xrcp.md §5.7: the app parameter of the example invitation.
        let app = CanonicalJSON.object([
            "deviceName": .string("My Desktop"),
            "compression": .bool(true),
            "appVersionRange": .object(["minVersion": .string("6.5.0.12"), "maxVersion": .string("6.5.0.13")]),
        ])
        XCTAssertEqual(
            QueryEncoding.encode(app.rendered),
            "%7B%22appVersionRange%22%3A%7B%22maxVersion%22%3A%226.5.0.13%22%2C%22minVersion%22%3A%226.5.0.12%22%7D%2C%22compression%22%3Atrue%2C%22deviceName%22%3A%22My%20Desktop%22%7D"
        )
    }

    func testAesonEscaping() {
        XCTAssertEqual(
            CanonicalJSON.quoted("a\"b\\c\nd\re\tf\u{01}\u{1f}/<\u{7f}é"), "\"a\\\"b\\\\c\\nd\\re\\tf\\u0001\\u001f/<\u{7f}é\"")
        XCTAssertEqual(CanonicalJSON.array([.null, .integer(-5), .bool(false)]).rendered, "[null,-5,false]")
        // Keys sort by bytes: upper case before lower case.
        XCTAssertEqual(CanonicalJSON.object(["b": .null, "B": .null, "a": .null]).rendered, "{\"B\":null,\"a\":null,\"b\":null}")
    }
}

final class SessionCodeTests: XCTestCase {
    func testVectorsTVCODE() {
        // xrcp.md §19.2 TV-CODE
        XCTAssertEqual(
            SessionCode.render(Array(0...31)),
            "17807 31860 62770 00449 60722 56837 65922 00742 32963 73031 99754 54759 83699 79440 671")
        XCTAssertEqual(
            SessionCode.render([0, 0] + Array(2...31)),
            "13884 79584 93157 15377 42506 76336 73684 91484 57404 27580 79642 59921 68686 82089 5")
    }

    func testSmallValuesAndMatching() {
        XCTAssertEqual(SessionCode.render([]), "0")
        XCTAssertEqual(SessionCode.render([0, 0]), "0")
        XCTAssertEqual(SessionCode.render([0x01, 0x00]), "256")
        XCTAssertEqual(SessionCode.render([0xff, 0xff, 0xff, 0xff]), "42949 67295")
        XCTAssertTrue(SessionCode.matches("4294967295", "42949 67295"))
        XCTAssertFalse(SessionCode.matches("4294967296", "42949 67295"))
    }
}

final class HexTests: XCTestCase {
    func testHex() throws {
        XCTAssertEqual(Hex.encode([0, 0xab, 0xff]), "00abff")
        XCTAssertEqual(try Hex.decode("00AB ff"), [0, 0xab, 0xff])
        XCTAssertEqual(thrown { try Hex.decode("abc") } as? Hex.Error, .oddLength(3))
        XCTAssertEqual(thrown { try Hex.decode("zz") } as? Hex.Error, .invalidCharacter(offset: 0))
    }
}
