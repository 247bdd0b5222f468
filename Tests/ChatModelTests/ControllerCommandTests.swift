import XCTest

@testable import ChatModel

/// The controller commands (xrcp.md §15.1) against their table, and their grammars against samples and the spec's
/// examples.
final class ControllerCommandTests: XCTestCase {
    private struct Row {
        let name: String
        let examples: [String]
    }

    private func rows() throws -> [Row] {
        let tsv = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Resources/controller-commands.tsv")
        let text = try String(contentsOf: tsv, encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Row(name: fields[0], examples: fields[2].components(separatedBy: " ; "))
        }
    }

    func testTableNamesEveryCommandInOrder() throws {
        XCTAssertEqual(try rows().map(\.name), ControllerCommandName.allCases.map(\.rawValue))
        XCTAssertEqual(ControllerCommand.grammars.map(\.name), ControllerCommandName.allCases)
    }

    func testEveryExampleParsesAndPrintsBack() throws {
        for row in try rows() {
            for example in row.examples {
                let command = try ControllerCommand(parsing: example)
                XCTAssertEqual(command.name.rawValue, row.name, example)
                XCTAssertEqual(command.text, example, "\(row.name) does not print back")
            }
        }
    }

    func testEverySampleParsesAndPrintsBack() throws {
        var checked = 0
        for grammar in ControllerCommand.grammars {
            for sample in grammar.samples() {
                let command = try ControllerCommand(parsing: sample.text)
                XCTAssertEqual(command.name, grammar.name, sample.text)
                if sample.canonical { XCTAssertEqual(command.text, sample.text) }
                XCTAssertEqual(try ControllerCommand(parsing: command.text), command, sample.text)
                XCTAssertEqual(try ControllerCommand(parsing: sample.alternate), command, sample.alternate)
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, ControllerCommand.grammars.count)
    }

    func testValues() throws {
        XCTAssertEqual(
            try ControllerCommand(parsing: "/start remote host 3 multicast=on addr=192.168.1.10 iface=wlan0 port=41000"),
            .startRemoteHost(
                .init(
                    remoteHostId: 3, multicast: true, address: .init(address: "192.168.1.10", interface: "wlan0"), port: 41000)))
        XCTAssertEqual(try ControllerCommand(parsing: "/start remote host new  "), .startRemoteHost(.init()))
        XCTAssertEqual(try ControllerCommand(parsing: "/switch remote host local"), .switchRemoteHost(nil))
        XCTAssertEqual(try ControllerCommand(parsing: "/stop remote host 7"), .stopRemoteHost(.id(7)))
        XCTAssertEqual(
            try ControllerCommand(parsing: "/store remote file 2 encrypt=off a b.txt"),
            .storeRemoteFile(.init(remoteHostId: 2, encrypt: false, localPath: "a b.txt")))
        XCTAssertEqual(
            try ControllerCommand(parsing: "/store remote file 2 encrypt=on"),
            .storeRemoteFile(.init(remoteHostId: 2, localPath: "encrypt=on")), "no path after the flag: the flag is the path")
        XCTAssertEqual(try ControllerCommand(parsing: "/remote_hosts_folder /srv/remote"), .setRemoteHostsFolder("/srv/remote"))
    }

    /// The desktop quotes the interface as JSON; with `port=` after it the quotes stay (the reference's quirk).
    func testQuotedInterface() throws {
        XCTAssertEqual(
            try ControllerCommand(parsing: #"/start remote host new addr=10.0.0.2 iface="wlan 0""#),
            .startRemoteHost(.init(address: .init(address: "10.0.0.2", interface: "wlan 0"))))
        XCTAssertEqual(
            try ControllerCommand(parsing: #"/start remote host new addr=10.0.0.2 iface="wlan0" port=5"#),
            .startRemoteHost(.init(address: .init(address: "10.0.0.2", interface: #""wlan0""#), port: 5)))
    }

    func testRefusals() {
        for line in [
            "/start remote host new multicast=on", "/start remote host", "/start remote host 3 addr=1.2.3 iface=x",
            "/start remote host 3 addr=1.2.3.4", "/start remote host 3 port=x", "/switch remote host", "/stop remote host x",
            "/delete remote host new", "/get remote file 3 [1]", "/get remote file 3", "/list remote hosts now",
            "/remote_hosts_folder", "/List remote hosts", "/connect remote ctrl xrcp:/x",
        ] {
            XCTAssertThrowsError(try ControllerCommand(parsing: line), line)
        }
    }
}
