import ChatModel
import TestSupport
import XCTest

/// JSON arguments: validated, kept compact in their original key order and spelling.
final class RawJSONTests: XCTestCase {
    func testCompactsAndKeepsSpelling() throws {
        let json = try RawJSON(
            parsing:
                " {\n  \"z\" : [ 1 , -0.5e+3 , 1E2, true , false , null ],\r\n\t\"a\" : \"x\\\"\\u00e9\\ud83d\\ude00\\/ y\" } ")
        XCTAssertEqual(json.text, #"{"z":[1,-0.5e+3,1E2,true,false,null],"a":"x\"\u00e9\ud83d\ude00\/ y"}"#)
        XCTAssertEqual(json.kind, .object)
        XCTAssertEqual(try RawJSON(parsing: "[]").kind, .array)
        XCTAssertEqual(try RawJSON(parsing: "\"a\\nb\\u00e9\\ud83d\\ude00\"").stringValue, "a\nbé😀")
        XCTAssertEqual(try RawJSON(parsing: "1").stringValue, nil)
        XCTAssertEqual(RawJSON(string: "a\"b\n\u{1}").text, #""a\"b\n\u0001""#)
        XCTAssertEqual(RawJSON(string: "a\"b\n\u{1}").stringValue, "a\"b\n\u{1}")
    }

    func testRefusesMalformedJSON() {
        let bad = [
            "", " ", "{", "[1,]", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "01", "1.", "-", ".5", "tru", "nul", "\"\\x\"",
            "\"\u{01}\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\u12\"", "[] []", "{'a':1}", "\"abc", "1e",
            "[1 2]", "{\"a\" 1}", "{1:2}", "\u{A0}{}",
        ]
        for text in bad {
            XCTAssertThrowsError(try RawJSON(parsing: text), text.debugDescription)
        }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        XCTAssertThrowsError(try RawJSON(parsing: deep)) { error in
            XCTAssertTrue("\(error)".contains("nested at most 512"), "\(error)")
        }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        XCTAssertNoThrow(try RawJSON(parsing: fine))
    }

    func testRandomInputNeverTraps() {
        var generator = SeededGenerator(seed: 0x5EED)
        let alphabet = Array("{}[]\",:0-1e.tfnrulas\\u \n".unicodeScalars)
        for _ in 0..<5000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0..<24, using: &generator) {
                text.append(alphabet.randomElement(using: &generator)!)
            }
            if let json = try? RawJSON(parsing: String(text)) {
                XCTAssertEqual(try? RawJSON(parsing: json.text), json)
            }
        }
    }
}
