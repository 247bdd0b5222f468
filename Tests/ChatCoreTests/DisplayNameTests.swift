import XCTest

@testable import ChatCore

/// Display-name validation (chat-api.md §7.1, `invalidDisplayName.validName`).
final class DisplayNameTests: XCTestCase {
    func testValidNames() {
        let cases: [(String, String)] = [
            ("alice", "alice"), ("Алиса", "Алиса"), ("Jo Doe", "Jo Doe"), ("#bob", "bob"), ("@bob", "bob"),
            ("'bob'", "bob"), ("  bob  ", "bob"), ("a  b", "a b"), ("a\tb", "a b"), ("x .... y", "x ... y"),
            ("x . . y", "x . y"), ("👍 ok", "👍 ok"), ("1st", "1st"), (">x", ">x"), ("x!!!!", "x!!!"),
            (String(repeating: "a", count: 60), String(repeating: "a", count: 50)),
        ]
        for (input, valid) in cases {
            XCTAssertEqual(DisplayName.valid(input), valid, input)
        }
    }
}
