import XCTest

@testable import SimplexMarkdown

/// Removing tracking parameters from web links, with cases taken as facts from the official core's tests; nil means
/// nothing to remove.
final class SanitizeTests: XCTestCase {
    func sanitized(_ uri: String, safe: Bool) throws -> String? {
        try WebURI(parsing: uri).sanitized(safe: safe)
    }

    func testFirstParameterAndWhitelistedOnPageNames() throws {
        let cases: [(String, String?)] = [
            ("https://example.com/page?ref=123", "https://example.com/page"),
            ("https://example.com/page?name", nil),
            ("https://example.com/page?name=abc", nil),
            ("https://example.com/page?name=abc&ref=123", "https://example.com/page?name=abc"),
            ("https://example.com/page?search=query", nil),
            ("https://example.com/page?q=query", nil),
            ("https://example.com/page?ref=123&q=query", "https://example.com/page?q=query"),
            ("https://youtube.com/watch?v=abc&t=123", nil),
            ("https://www.youtube.com/watch?v=abc", nil),
            ("https://www.youtube.com/watch?v=abc&t=123", nil),
            ("https://www.youtube.com/watch?ref=456&v=abc&t=123", "https://www.youtube.com/watch?v=abc&t=123"),
            ("https://youtu.be/a123?si=456", "https://youtu.be/a123"),
            ("https://youtu.be/a123?t=456", nil),
            ("https://youtu.be/a123?si=456&t=789", "https://youtu.be/a123?t=789"),
            ("https://example.com/page", nil),
            ("https://example.com/page?utm_source=x#top", "https://example.com/page#top"),
        ]
        for (uri, expected) in cases {
            XCTAssertEqual(try sanitized(uri, safe: false), expected, uri)
            XCTAssertEqual(try sanitized(uri, safe: true), expected, uri)
        }
    }

    func testSafeModeKeepsWhatIsNotKnownToTrack() throws {
        XCTAssertEqual(try sanitized("https://example.com/page/a123?source=abc", safe: false), "https://example.com/page/a123")
        XCTAssertNil(try sanitized("https://example.com/page/a123?source=abc", safe: true))
        XCTAssertEqual(try sanitized("https://example.com/page/a123?name=abc", safe: false), "https://example.com/page/a123")
        XCTAssertNil(try sanitized("https://example.com/page/a123?name=abc", safe: true))
    }

    func testWebLinksTheCoreRefuses() {
        for uri in ["ftp://example.com", "https://localhost", "https://", "example.com", "https://example.com/a b", "https//x.y"]
        {
            XCTAssertThrowsError(try WebURI(parsing: uri), uri)
        }
        XCTAssertEqual(try WebURI(parsing: "https://user@example.com:8443/a/b?c=d#e").host, "example.com")
    }
}
