import XCTest

@testable import SimplexMarkdown

/// Random text, heavy in markers, spaces and link pieces: the parser must never trap, and the source of its runs must
/// give back the input.
final class RandomInputTests: XCTestCase {
    static let pieces: [String] = [
        "*", "_", "~", "`", "#", "##", "!", "!1 ", "!r", "@", "@'", "'", "/", "[", "]", "(", ")", "+", "+44", "(0)", " ", "  ",
        "\n", "\t", ".", ",", "-", "a", "bc", "Привет", "👍🏽", "é", "\u{301}", "0", "7777", "https://", "http://x.y",
        "simplex:/", "simplex:/a#", "lrdvu2d8A1GumSmoKb2krQmtKhWXq-tyGpHuM7aMwsw", "?h=", "smp6.simplex.im", "example.com",
        "@b.c", "/contact#/?v=2&smp=", "smp%3A%2F%2F", "%", "%2", "=", "&", "?", ":", "\u{0}", "\u{A0}", "\u{2028}",
    ]

    func testRandomInputNeverTrapsAndKeepsItsText() {
        var rng = SplitMix64(seed: 0x5EED_1234)
        for _ in 0..<20_000 {
            let count = Int(rng.next() % 24)
            var input = ""
            for _ in 0..<count {
                if rng.next() % 5 == 0 {
                    input.unicodeScalars.append(Unicode.Scalar(UInt8(truncatingIfNeeded: rng.next() % 128)))
                } else {
                    input += Self.pieces[Int(rng.next() % UInt64(Self.pieces.count))]
                }
            }
            check(input)
        }
    }

    func testRandomBytesNeverTrap() {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<5_000 {
            let bytes = (0..<Int(rng.next() % 64)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            check(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The shortcut for plain text never hides markdown: whatever it calls plain, the parser finds nothing in. The
    /// pieces are its own alphabet with the near misses (digit runs, separators, letters next to them).
    func testTextCalledPlainHasNoMarkdown() {
        let pieces = [
            "a", "bc", "note", " ", "  ", "0", "12", "123", "4567", "-", "(", ")", "(1)", ",", ";", "?", "'", "\"", "%", "&",
            "=", "x1", "1x", "+", ".", "@", "\n",
        ]
        var rng = SplitMix64(seed: 0x9_1A1B)
        var plain = 0
        for _ in 0..<50_000 {
            var input = ""
            for _ in 0..<Int(rng.next() % 16) { input += pieces[Int(rng.next() % UInt64(pieces.count))] }
            guard Markdown.isCertainlyPlain(input) else { continue }
            plain += 1
            XCTAssertNil(Markdown.parsedSpans(input), input.debugDescription)
        }
        XCTAssertGreaterThan(plain, 5_000)
        XCTAssertTrue(Markdown.isCertainlyPlain("note 123456 needle"))
        XCTAssertFalse(Markdown.isCertainlyPlain("note 1234567"))
        XCTAssertNotNil(Markdown.parse("call 123-4567"))
    }

    private func check(_ input: String) {
        guard let spans = Markdown.spans(input) else {
            XCTAssertNil(Markdown.parse(input))
            return
        }
        // As in the core, a final newline is not kept.
        let expected = input.hasSuffix("\n") ? String(input.unicodeScalars.dropLast()) : input
        XCTAssertEqual(spans.map(\.source).joined(), expected, input.debugDescription)
        XCTAssertTrue(spans.contains { $0.format != nil }, input.debugDescription)
        for span in spans where span.format == nil {
            XCTAssertEqual(span.text, span.source, input.debugDescription)
        }
        for span in spans {
            XCTAssertFalse(span.source.isEmpty, input.debugDescription)
        }
    }
}

/// A small seeded generator, so that a failure can be replayed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
