import Foundation
import XCTest

@testable import SimplexMarkdown

/// Markdown parses in time linear in the text: a long line of one marker, or of a piece that starts a fragment and
/// fails, took time quadratic in its length (400 KB of `*` took 3.9 s, 1.6 MB 67 s, while plain text of that size
/// took 0.12 s). Here 256 KB of each must parse well within a bound that the quadratic parser missed by far, even
/// in a debug build, and the runs must still give back the text.
final class LinearTimeTests: XCTestCase {
    static let size = 256 * 1024

    /// Each marker and fragment start alone, and the mixes that made each fragment look far ahead and fail.
    static let units = [
        "*", "_", "~", "`", "#", "!", "[", "@", "/", "'", "+", "7", " ", "a", "1 ", "+1 ", "[ ", "[a](x ", "[[]() ", "!1 ",
        "!1 a ", "@'a", "/'. ", "*a ", "#a ", "[a](https://x ", "a.b ", "x@y ", "é ",
    ]

    func testLongLinesOfOnePieceParseInLinearTime() {
        for unit in Self.units {
            let text = String(repeating: unit, count: Self.size / unit.utf8.count)
            let start = Date()
            let spans = Markdown.spans(text)
            let elapsed = Date().timeIntervalSince(start)
            XCTAssertLessThan(elapsed, 3, "\(unit.debugDescription): \(elapsed) s")
            if let spans { XCTAssertEqual(spans.map(\.source).joined(), text, unit.debugDescription) }
        }
    }

    /// Many lines at once, each with the pieces above.
    func testManyShortLinesParseInLinearTime() {
        let text = Self.units.joined(separator: "\n") + "\n"
        let many = String(repeating: text, count: Self.size / text.utf8.count)
        let start = Date()
        let spans = Markdown.spans(many)
        XCTAssertLessThan(Date().timeIntervalSince(start), 3)
        XCTAssertEqual(spans?.map(\.source).joined(), String(many.dropLast()))
    }

    /// What long lines parse to is what short ones show: a phone number is found at the end of `1 1 1 …`, where it
    /// is short enough, and a line of `*` is plain.
    func testLongLinesKeepTheirMeaning() {
        XCTAssertNil(Markdown.parse(String(repeating: "*", count: 100_001)))
        XCTAssertNil(Markdown.parse(String(repeating: "!", count: 100_000)))
        let digits = String(repeating: "1 ", count: 50_000)
        let runs = Markdown.parse(digits)
        XCTAssertEqual(runs?.count, 3)
        XCTAssertEqual(runs?.dropFirst().first, FormattedText("1 1 1 1 1 1 1 1 1 1 1", .phone))
        let bold = String(repeating: "*b* ", count: 30_000)
        XCTAssertEqual(Markdown.parse(bold)?.filter { $0.format == .bold }.count, 30_000)
        let link = String(repeating: "[ ", count: 30_000) + "[a](https://simplex.chat)"
        XCTAssertEqual(
            Markdown.parse(link)?.last,
            FormattedText("[a](https://simplex.chat)", .hyperLink(showText: "a", linkUri: "https://simplex.chat")))
    }

    /// The ASCII shortcut of the punctuation class agrees with the Unicode categories it stands for.
    func testASCIIPunctuationIsUnicodePunctuation() {
        for value in 0..<128 {
            guard let c = Unicode.Scalar(value) else { continue }
            let unicode: Bool =
                switch c.properties.generalCategory {
                case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
                    .finalPunctuation, .otherPunctuation:
                    true
                default: false
                }
            XCTAssertEqual(Chars.isPunctuation(c), unicode, "\(value)")
        }
    }
}
