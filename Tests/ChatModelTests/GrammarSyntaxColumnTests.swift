import Foundation
import XCTest

@testable import ChatModel

/// Every hand-written grammar against its row's syntax column in `Resources/commands.tsv`: each line the grammar
/// writes must be one the column's notation (chat-api.md §0.2) describes, so a grammar whose literals, order or
/// optional parts drift from the table fails here.
final class GrammarSyntaxColumnTests: XCTestCase {
    /// Rows whose grammar also takes a part the syntax column leaves out but the row's notes name, with the syntax
    /// checked instead. The column stays a copy of the reference's table.
    static let syntaxFromNotes: [CommandName: String] = [
        // Notes: "DOCS (newer) add [ service_requests=on]".
        .startChat: "/_start main=on|off[ snd_files=on|off][ service_requests=on|off] or bare /_start"
    ]

    func testEveryWrittenLineFitsTheSyntaxColumn() throws {
        var checked = 0
        for name in CommandName.allCases where name.row.servedBy != .untyped {
            let grammar = try XCTUnwrap(ChatCommand.grammar(for: name), name.rawValue)
            let syntax = Self.syntaxFromNotes[name] ?? name.row.syntax
            let pattern = SyntaxColumnPattern.regex(syntax)
            let regex = try NSRegularExpression(pattern: "^(?:" + pattern + ")$")
            var lines = Set<String>()
            for sample in grammar.samples() {
                if sample.canonical { lines.insert(sample.text) }
                if let command = try? ChatCommand(parsing: sample.text), command.name == name { lines.insert(command.text) }
            }
            XCTAssertFalse(lines.isEmpty, "\(name.rawValue): no line to check")
            for line in lines.sorted() {
                let range = NSRange(line.startIndex..., in: line)
                XCTAssertNotNil(
                    regex.firstMatch(in: line, range: range),
                    "\(name.rawValue): \(line.debugDescription) does not fit \(syntax.debugDescription) (\(pattern))")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 2 * CommandName.allCases.count)
    }

    /// The notation's reading, checked on rows whose reading is not obvious.
    func testThePatternReadsTheNotation() throws {
        func fits(_ line: String, _ syntax: String) throws -> Bool {
            let regex = try NSRegularExpression(pattern: "^(?:" + SyntaxColumnPattern.regex(syntax) + ")$")
            return regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
        }
        XCTAssertTrue(try fits("/_user 1", "/_user <userId>[ <json(string)>]"))
        XCTAssertTrue(try fits("/_user 1 \"pw\"", "/_user <userId>[ <json(string)>]"))
        XCTAssertFalse(try fits("/_usr 1", "/_user <userId>[ <json(string)>]"))
        XCTAssertTrue(try fits("/_ttl 1 @2 default", "/_ttl <userId> <chatRef> <seconds>|default"))
        XCTAssertTrue(try fits("/_delete item @1 2 internal", "/_delete item <chatRef> <ids> broadcast|internal|history"))
        XCTAssertFalse(try fits("/_delete item @1 2 external", "/_delete item <chatRef> <ids> broadcast|internal|history"))
        XCTAssertTrue(try fits("/_x 1 json {}", "/_x <id>[ text <text>|json <json(MsgContent)>]"))
        XCTAssertTrue(try fits("/_x 1 text hi there", "/_x <id>[ text <text>|json <json(MsgContent)>]"))
        XCTAssertTrue(try fits("/_x 1 entity notify=off", "/_x <id>[ full[ notify=on|off]| entity[ notify=on|off]]"))
        XCTAssertTrue(try fits("/_start", "/_start main=on|off[ snd_files=on|off] or bare /_start"))
        XCTAssertTrue(
            try fits("/_send @1 text hi", "/_send <sendRef>[ live=on|off] json <json(X)> or /_send <sendRef>[…] text <text>"))
        XCTAssertTrue(try fits("/connect incognito", "/connect[ incognito][ <linkOrName>] (alias /c; incognito may be i)"))
    }
}

/// The syntax column's notation as a regular expression: `<name>` a value (JSON and free text may hold spaces, other
/// values not), `[…]` optional, `a|b` alternatives (of words or values; within brackets, of what the brackets hold when
/// a side is not a word), `X or Y` two forms (`…` standing for what the other form says), a closing `(…)` a remark.
enum SyntaxColumnPattern {
    private enum Token: Equatable {
        case character(Character)
        case value(String)
        case open, close, bar, ellipsis
    }

    /// Values whose text may hold spaces.
    private static let spacedValues: Set<String> = [
        "text", "search", "alias", "name", "filePath", "linkOrName", "pagination", "CryptoFile", "sessionCode", "code",
    ]

    static func regex(_ syntax: String) -> String {
        var text = syntax
        if text.hasSuffix(")"), let open = text.range(of: " (", options: .backwards) {
            text = String(text[..<open.lowerBound])
        }
        let forms = text.components(separatedBy: " or ").map { form in
            form.hasPrefix("bare ") ? String(form.dropFirst("bare ".count)) : form
        }
        return forms.map { form in
            var tokens = tokenize(form)[...]
            return sequence(&tokens, depth: 0)
        }.joined(separator: "|")
    }

    private static func tokenize(_ form: String) -> [Token] {
        var tokens: [Token] = []
        var rest = Substring(form)
        while let c = rest.first {
            rest = rest.dropFirst()
            switch c {
            case "<":
                if let end = rest.firstIndex(of: ">") {
                    tokens.append(.value(String(rest[..<end])))
                    rest = rest[rest.index(after: end)...]
                } else {
                    tokens.append(.character(c))
                }
            case "[": tokens.append(.open)
            case "]": tokens.append(.close)
            case "|": tokens.append(.bar)
            case "…": tokens.append(.ellipsis)
            default: tokens.append(.character(c))
            }
        }
        return tokens
    }

    private struct Atom {
        var regex: String
        /// A word character, which joins its neighbours into a word for `a|b`.
        var word: Bool
    }

    private static func isWord(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }

    private static func atom(_ token: Token) -> Atom? {
        switch token {
        case .character(let c): Atom(regex: NSRegularExpression.escapedPattern(for: String(c)), word: isWord(c))
        case .value(let name):
            Atom(
                regex: name.hasPrefix("json") ? "[\\s\\S]+?" : spacedValues.contains(name) ? ".+?" : "\\S+?",
                word: false)
        case .ellipsis: Atom(regex: "[\\s\\S]*?", word: false)
        case .open, .close, .bar: nil
        }
    }

    /// Reads tokens up to the closing bracket of `depth` (consumed) or the end.
    private static func sequence(_ tokens: inout ArraySlice<Token>, depth: Int) -> String {
        var alternatives: [[Atom]] = []
        var current: [Atom] = []
        while let token = tokens.first {
            tokens = tokens.dropFirst()
            switch token {
            case .close where depth > 0:
                alternatives.append(current)
                return group(alternatives) + "?"
            case .open:
                current.append(Atom(regex: sequence(&tokens, depth: depth + 1), word: false))
            case .bar:
                let leftIsWord = current.last?.word ?? false
                let next = tokens.first
                let rightIsWord = next.flatMap(atom)?.word ?? false
                let rightIsValue = if case .value = next { true } else { false }
                if depth > 0, !(leftIsWord && rightIsWord) {
                    alternatives.append(current)
                    current = []
                    continue
                }
                // `a|b` between two words (or at the top, values): the word before against the word after.
                var left: [Atom] = []
                if leftIsWord {
                    while let last = current.last, last.word { left.insert(current.removeLast(), at: 0) }
                } else if let last = current.popLast() {
                    left = [last]
                }
                var right: [Atom] = []
                if rightIsValue || !rightIsWord, let first = tokens.first, let a = atom(first) {
                    right = [a]
                    tokens = tokens.dropFirst()
                } else {
                    while let first = tokens.first, let a = atom(first), a.word {
                        right.append(a)
                        tokens = tokens.dropFirst()
                    }
                }
                let joined = "(?:" + left.map(\.regex).joined() + "|" + right.map(\.regex).joined() + ")"
                // The alternation stays one word, so that a further `|c` takes it whole.
                current.append(Atom(regex: joined, word: false))
                if tokens.first == .bar { current[current.count - 1].word = true }
            default:
                if let a = atom(token) { current.append(a) }
            }
        }
        alternatives.append(current)
        return depth > 0 ? group(alternatives) + "?" : group(alternatives)
    }

    /// Alternatives in one group; a space the first starts with is shared by those that lack it (`[ a|b]`).
    private static func group(_ alternatives: [[Atom]]) -> String {
        let space = NSRegularExpression.escapedPattern(for: " ")
        let shared = alternatives.count > 1 && alternatives[0].first?.regex == space
        let texts = alternatives.enumerated().map { index, atoms in
            let text = atoms.map(\.regex).joined()
            return shared && index > 0 && atoms.first?.regex != space ? space + text : text
        }
        return "(?:" + texts.joined(separator: "|") + ")"
    }
}
