import XCTest

@testable import ChatModel

/// The command catalog against its table, and every row's grammar against samples made from the grammar.
final class CommandCatalogTests: XCTestCase {
    /// Rows that have no grammar yet: each must be named here, and a row named here must not have one, so
    /// the list shrinks as grammars are written and no row is silently forgotten.
    static let rowsWithoutGrammar: Set<CommandName> = []

    /// The catch-alls are no typed commands: raw console text and `//…`.
    static let catchAlls: Set<CommandName> = [.string, .customChatCommand]

    func testCatalogIsTheCommittedTable() throws {
        let tsv = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Resources/commands.tsv")
        let text = try String(contentsOf: tsv, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).dropFirst()
        XCTAssertEqual(lines.count, CommandName.allCases.count)
        XCTAssertEqual(CommandCatalog.rows.count, CommandName.allCases.count)
        for (line, name) in zip(lines, CommandName.allCases) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            XCTAssertEqual(fields[0], name.rawValue, "table order")
            let row = try XCTUnwrap(CommandCatalog.rows[name], name.rawValue)
            XCTAssertEqual(row.section, fields[1], name.rawValue)
            XCTAssertEqual(row.syntax, fields[2], name.rawValue)
            XCTAssertEqual(row.responseTypes.joined(separator: ","), fields[3], name.rawValue)
            XCTAssertEqual(row.network.rawValue, fields[4], name.rawValue)
        }
        XCTAssertEqual(CommandCatalog.rows.values.filter { $0.section != "extra" }.count, 161, "the seed's commands")
        XCTAssertEqual(CommandName(rawValue: "APIListGroups"), .apiListGroups)
        XCTAssertEqual(CommandName.apiGetChats.row.network, NetworkUse.no)
        XCTAssertEqual(CommandName.connectRemoteCtrl.row.section, "2.14")
        XCTAssertEqual(CommandCatalog.rows[.apiUpdateProfile]?.responseTypes, ["userProfileUpdated", "userProfileNoChange"])
    }

    func testEveryRowHasAGrammar() {
        var missing: [String] = []
        for name in CommandName.allCases where !Self.catchAlls.contains(name) {
            let grammar = ChatCommand.grammar(for: name)
            if Self.rowsWithoutGrammar.contains(name) {
                XCTAssertNil(grammar, "\(name.rawValue) has a grammar now: remove it from rowsWithoutGrammar")
            } else if grammar == nil {
                missing.append(name.rawValue)
            } else {
                XCTAssertEqual(grammar?.name, name)
            }
        }
        XCTAssertEqual(missing, [], "rows without a grammar (write one, or list them in rowsWithoutGrammar)")
        for name in Self.catchAlls {
            XCTAssertNil(ChatCommand.grammar(for: name))
        }
    }

    /// Every row's sample lines (made from its grammar: optional parts present and absent, every alternative,
    /// other whitespace, aliases, pretty-printed multi-line JSON) parse into that row's command, and the
    /// command prints back to the same text when the sample is canonical.
    func testEverySampleParsesAndPrintsBack() throws {
        var checked = 0
        for grammar in ChatCommand.grammars {
            let name = grammar.name.rawValue
            for sample in grammar.samples() {
                let command: ChatCommand
                do {
                    command = try ChatCommand(parsing: sample.text)
                } catch {
                    XCTFail("\(name): \(sample.text.debugDescription) does not parse: \(error)")
                    continue
                }
                XCTAssertEqual(command.name, grammar.name, "\(sample.text.debugDescription) parsed as another command")
                let text = command.text
                if sample.canonical {
                    XCTAssertEqual(text, sample.text, "\(name) does not print back")
                }
                XCTAssertEqual(try ChatCommand(parsing: text), command, "\(name): \(text.debugDescription)")
                XCTAssertEqual(try ChatCommand(parsing: text).text, text, name)
                XCTAssertEqual(
                    try ChatCommand(parsing: sample.alternate), command,
                    "\(name): \(sample.alternate.debugDescription) is another spelling of \(sample.text.debugDescription)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 2 * ChatCommand.grammars.count)
    }

    /// Every typed case has a name, and names and grammars agree (the `name` switch and the grammar table).
    func testNamesOfParsedCommands() throws {
        var seen = Set<CommandName>()
        for grammar in ChatCommand.grammars {
            for sample in grammar.samples() {
                seen.insert(try ChatCommand(parsing: sample.text).name)
            }
        }
        XCTAssertEqual(seen, Set(CommandName.allCases).subtracting(Self.catchAlls).subtracting(Self.rowsWithoutGrammar))
    }
}
