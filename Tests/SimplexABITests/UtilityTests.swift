import Foundation
import SimplexABI
import XCTest

/// The functions without a controller (chat-api.md §9.2): password hash, display names, JSON length, media frames.
final class UtilityTests: XCTestCase {
    func testPasswordHash() {
        // base64url(SHA-512(password ‖ salt)), computed with Python's hashlib.
        XCTAssertEqual(
            C.take(chat_password_hash("pass word", "c2FsdA==")),
            "_gOOYeOM-bPtbv5kRoqkO3ZcCKuuecTjj40rM4Yo0pPMkQxI9a-grI_MKelHvt047O__hilUV_CWDSjc9wZM9A==")
        XCTAssertEqual(
            C.take(chat_password_hash("пароль", "")),
            "8dSx7gR-whcmRUd2PvsnwXwGnqvJ8jEkoiOhqFnKXO_hEqPjzv4c3EMx7LcPmYLxbcZ-JQFCR2ra5s6bxE86CA==")
        XCTAssertEqual(C.take(chat_password_hash("pass", "not base64!")), "")
        XCTAssertEqual(C.take(chat_password_hash(nil, "c2FsdA==")), "")
        XCTAssertEqual(C.take(chat_password_hash("pass", nil)), "")
    }

    func testValidName() {
        XCTAssertEqual(C.take(chat_valid_name("alice")), "alice")
        XCTAssertEqual(C.take(chat_valid_name("@bob  the  'builder'")), "bob the builder")
        XCTAssertEqual(C.take(chat_valid_name(nil)), "")
        let invalid: [CChar] = [0x61, CChar(bitPattern: 0xc3), 0]
        XCTAssertEqual(C.take(chat_valid_name(invalid)), "a?")
    }

    func testJSONLength() {
        XCTAssertEqual(chat_json_length("hello"), 5)
        XCTAssertEqual(chat_json_length("a\"b\\c\n"), 9)
        XCTAssertEqual(chat_json_length("\u{1}"), 6)
        XCTAssertEqual(chat_json_length("é"), 2)
        XCTAssertEqual(chat_json_length(nil), 0)
    }

    func testMediaFramesRoundTripInPlace() throws {
        let key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
        let (_, ctrl) = C.open(C.folder() + "/db")
        let body: [UInt8] = Array("a media frame".utf8)
        var frame = body + [UInt8](repeating: 0, count: 28)
        XCTAssertEqual(C.take(chat_encrypt_media(ctrl, key, &frame, Int32(frame.count))), "")
        XCTAssertNotEqual(Array(frame.prefix(body.count)), body)
        var tampered = frame
        tampered[0] ^= 1
        XCTAssertNotEqual(C.take(chat_decrypt_media(key, &tampered, Int32(tampered.count))), "")
        XCTAssertEqual(tampered[0], frame[0] ^ 1, "a forged frame is left as it was")
        XCTAssertEqual(C.take(chat_decrypt_media(key, &frame, Int32(frame.count))), "")
        XCTAssertEqual(frame, body + [UInt8](repeating: 0, count: 28))

        var short = [UInt8](repeating: 0, count: 27)
        XCTAssertEqual(
            C.take(chat_decrypt_media(key, &short, 27)), "frame has no [reserved space for] IV and/or auth tag")
        XCTAssertTrue(C.take(chat_encrypt_media(ctrl, "short", &frame, Int32(frame.count))).hasPrefix("invalid key"))
        XCTAssertEqual(C.take(chat_encrypt_media(nil, key, &frame, Int32(frame.count))), "chat controller is NULL")
        XCTAssertFalse(C.take(chat_decrypt_media(key, nil, 100)).isEmpty)
    }

    func testParseMarkdown() {
        XCTAssertEqual(
            C.take(chat_parse_markdown("hi *bold*")),
            #"{"formattedText":[{"text":"hi "},{"format":{"type":"bold"},"text":"bold"}]}"#)
        XCTAssertEqual(C.take(chat_parse_markdown("plain text")), "{}")
        XCTAssertEqual(C.take(chat_parse_markdown(nil)), "{}")
    }

    func testParseServer() {
        XCTAssertEqual(
            C.take(chat_parse_server("smp://0YuTwO05YJWS8rkjn9eLJDjQhFKvIYd8d4xG8X1blIU=@smp8.simplex.im")),
            #"{"serverAddress":{"serverProtocol":"smp","hostnames":["smp8.simplex.im"],"port":"","keyHash":"0YuTwO05YJWS8rkjn9eLJDjQhFKvIYd8d4xG8X1blIU=","basicAuth":""},"parseError":""}"#
        )
        XCTAssertEqual(
            C.take(chat_parse_server("xftp://0YuTwO05YJWS8rkjn9eLJDjQhFKvIYd8d4xG8X1blIU=:pass@a.example,b.example:443")),
            #"{"serverAddress":{"serverProtocol":"xftp","hostnames":["a.example","b.example"],"port":"443","keyHash":"0YuTwO05YJWS8rkjn9eLJDjQhFKvIYd8d4xG8X1blIU=","basicAuth":"pass"},"parseError":""}"#
        )
        let bad = C.json(chat_parse_server("smp://a@b"))
        XCTAssertNil(bad["serverAddress"])
        XCTAssertFalse((bad["parseError"] as? String ?? "").isEmpty)
    }

    func testParseURI() {
        XCTAssertEqual(
            C.take(chat_parse_uri("https://example.com/page?ref=123", 0)),
            #"{"uriInfo":{"scheme":"https","sanitized":"https://example.com/page"},"parseError":""}"#)
        XCTAssertEqual(
            C.take(chat_parse_uri("https://example.com/page?q=query", 1)), #"{"uriInfo":{"scheme":"https"},"parseError":""}"#)
        XCTAssertEqual(
            C.take(chat_parse_uri("https://example.com/page/a123?source=abc", 0)),
            #"{"uriInfo":{"scheme":"https","sanitized":"https://example.com/page/a123"},"parseError":""}"#)
        XCTAssertEqual(
            C.take(chat_parse_uri("https://example.com/page/a123?source=abc", 1)),
            #"{"uriInfo":{"scheme":"https"},"parseError":""}"#)
        XCTAssertEqual(C.take(chat_parse_uri("ftp://example.com", 0)), #"{"parseError":"Unsupported URI scheme: ftp"}"#)
        XCTAssertFalse((C.json(chat_parse_uri("not a link", 0))["parseError"] as? String ?? "").isEmpty)
    }
}
