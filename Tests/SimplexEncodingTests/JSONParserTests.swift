import SimplexEncoding
import XCTest

final class JSONParserTests: XCTestCase {
    func testParsesAndRendersCanonically() throws {
        let text = """
            {
              "z": [1, -2, 3.5, 1e3, true, false, null],
              "a": {"s": "x\\"y\\\\\\n\\u00e9\\ud83d\\ude00\\/"}
            }
            """
        let v = try CanonicalJSON.parse(text)
        XCTAssertEqual(v.rendered, #"{"a":{"s":"x\"y\\\né😀/"},"z":[1,-2,3.5,1e3,true,false,null]}"#)
        XCTAssertEqual(v["a"]?["s"]?.stringValue, "x\"y\\\né😀/")
        XCTAssertEqual(try CanonicalJSON.parse(#"{"k":1,"k":2}"#)["k"], .integer(2))
        XCTAssertEqual(try CanonicalJSON.parse("9223372036854775808"), .number("9223372036854775808"))
    }

    func testRefusesMalformedJSON() {
        let bad = [
            "", "{", "[1,]", "{\"a\"}", "{\"a\":}", "01", "1.", "-", "tru", "\"\\x\"", "\"\u{01}\"", "\"\\ud800\"",
            "[] []", "{'a':1}", "\"abc", "1e",
        ]
        for text in bad {
            XCTAssertThrowsError(try CanonicalJSON.parse(text), text)
        }
        XCTAssertThrowsError(try CanonicalJSON.parse([0x22, 0xff, 0x22]))  // invalid UTF-8
        XCTAssertThrowsError(try CanonicalJSON.parse(String(repeating: "[", count: 100) + String(repeating: "]", count: 100)))
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let bytes = (0..<Int.random(in: 0..<24, using: &rng)).map { _ in
                Array("{}[]\",:0-1e.tfn\\u ".utf8).randomElement(using: &rng)!
            }
            _ = try? CanonicalJSON.parse(bytes)
        }
    }

    /// An object's members keep the order and the bytes they were written with, so a value can be passed on as is.
    func testObjectMembersKeepTheirWrittenBytes() throws {
        let text = Array(#" {"result" : {"type":"cmdOk","user_":{"b":1,"a":[2, 3]}} ,"z":null}"#.utf8)
        let members = try CanonicalJSON.members(ofObject: text)
        XCTAssertEqual(members.map(\.key), ["result", "z"])
        XCTAssertEqual(String(decoding: text[members[0].value], as: UTF8.self), #"{"type":"cmdOk","user_":{"b":1,"a":[2, 3]}}"#)
        XCTAssertEqual(String(decoding: text[members[1].value], as: UTF8.self), "null")
        XCTAssertTrue(try CanonicalJSON.members(ofObject: Array("{}".utf8)).isEmpty)
        for bad in ["[]", "{\"a\":1} x", "{\"a\":[1,}", "{\"a\" 1}", "", "{", "{\"a\":1,}"] {
            XCTAssertThrowsError(try CanonicalJSON.members(ofObject: Array(bad.utf8)), bad)
        }
    }
}
