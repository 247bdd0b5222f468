import XCTest

@testable import ChatModel

/// The syntax description language on a small grammar of its own: one description reads and writes.
final class SyntaxTests: XCTestCase {
    private struct Example: Hashable, Sendable {
        var id: Int64 = 0
        var live = false
        var ttl: Int64?
        var force = false
        var note: String?
        var body = TextOrJSON.text("")

        static let syntax: Syntax<Example> = [
            .literal("/_ex ", aliases: ["/x "]), .param(\.id), .flag(" live=", \.live, default: false),
            .flag(" ttl=", \.ttl, .secondsOrDefault, default: nil), .marker(" force=on", \.force),
            .optional(" note=", \.note, .word),
            .oneOf([[" json", .blank, .param(\.body, .jsonCase(.object))], [" text ", .param(\.body, .textCase)]]),
        ]
    }

    private func read(_ line: String) -> Example? {
        var scanner = CommandScanner(line)
        var value = Example()
        return Example.syntax.parse(&scanner, into: &value) ? value : nil
    }

    func testReadsAndWritesWithOneDescription() throws {
        let value = try XCTUnwrap(read("/_ex 7 live=on ttl=30 force=on note=n json {\"a\" : 1}"))
        XCTAssertEqual(value.id, 7)
        XCTAssertTrue(value.live)
        XCTAssertEqual(value.ttl, 30)
        XCTAssertTrue(value.force)
        XCTAssertEqual(value.note, "n")
        XCTAssertEqual(value.body, .json(try RawJSON(parsing: #"{"a":1}"#)))
        XCTAssertEqual(Example.syntax.text(value), #"/_ex 7 live=on ttl=30 force=on note=n json {"a":1}"#)

        // Defaults and absent parts are left out; aliases are read, not written; "json" needs no space.
        let plain = try XCTUnwrap(read("/x 7 live=off ttl=default json{}"))
        XCTAssertEqual(plain, Example(id: 7, body: .json(.emptyObject)))
        XCTAssertEqual(Example.syntax.text(plain), "/_ex 7 json {}")

        // The first alternative that can write the value is used.
        XCTAssertEqual(Example.syntax.text(Example(id: 1, body: .text("hi there"))), "/_ex 1 text hi there")
        XCTAssertNil(Example.syntax.text(Example(id: 1, body: .text(""))), "an empty text has no line")
        XCTAssertNil(Example.syntax.text(Example(id: -1, body: .text("x"))), "ids are unsigned")
    }

    /// Greedy optional parts do not backtrack once they matched (like attoparsec): `force=on` then
    /// something else fails the line rather than reading the marker as absent.
    func testPEGSemantics() {
        XCTAssertNil(read("/_ex 7 force=onx text a"))
        XCTAssertNil(read("/_ex 7 live=on live=on text a"), "each optional part once, in order")
        XCTAssertNil(read("/_ex 7 ttl=30 live=on text a"), "in order")
        XCTAssertEqual(read("/_ex 7 note=a text b")?.note, "a")
        XCTAssertEqual(read("/_ex 7 text note=a")?.body, .text("note=a"))
        XCTAssertNil(read("/_ex 7"))
        XCTAssertNil(read("/_EX 7 text a"), "case-sensitive")
    }

    func testSamplesCoverEveryPiece() {
        let samples = Example.syntax.samples()
        XCTAssertTrue(samples.contains { $0.text.contains(" force=on") && $0.text.contains(" json ") })
        XCTAssertTrue(samples.contains { $0.text.hasSuffix(" text some text, with spaces") })
        XCTAssertTrue(samples.contains { $0.alternate.hasPrefix("/x ") })
        XCTAssertTrue(samples.contains { !$0.canonical && $0.text.contains("ttl=default") })
        XCTAssertEqual(Example.syntax.minimal().text, #"/_ex 42 json {"a":[1,-2.5e3,true,null],"b":{"c":"d\u00e9"}}"#)
        for sample in samples + [Example.syntax.minimal()] {
            let value = read(sample.text)
            XCTAssertNotNil(value, sample.text)
            XCTAssertEqual(read(sample.alternate), value, sample.alternate)
            if sample.canonical, let value {
                XCTAssertEqual(Example.syntax.text(value), sample.text)
            }
        }
    }
}
