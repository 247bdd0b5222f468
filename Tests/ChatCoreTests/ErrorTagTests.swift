import ChatCore
import XCTest

/// The committed error tags (`ErrorTags.swift`) against the tables of chat-api.md §8, copied into
/// `Fixtures/ChatAPIErrorsSection.swift`.
final class ErrorTagTests: XCTestCase {
    /// The first-column values of the table that follows `heading` (a `###` line) and, if given, a header row whose
    /// first cell is `column`.
    private func tags(under heading: String, column: String? = nil) throws -> [String] {
        let lines = chatAPIErrorsSection.components(separatedBy: "\n")
        var i = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("### ") && $0.contains(heading) }, "no section \(heading)")
        if let column {
            i = try XCTUnwrap(lines[i...].firstIndex { $0.hasPrefix("| \(column) ") || $0.hasPrefix("| `\(column)` ") })
        } else {
            i = try XCTUnwrap(lines[i...].firstIndex { $0.hasPrefix("|") })
        }
        var out: [String] = []
        for line in lines[(i + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cell = line.dropFirst().components(separatedBy: "|")[0].trimmingCharacters(in: .whitespaces)
            var tag = cell.replacingOccurrences(of: "`", with: "")
            if let space = tag.firstIndex(of: " ") { tag = String(tag[..<space]) }  // "contactNotFound (C)"
            out.append(tag)
        }
        XCTAssertFalse(out.isEmpty, heading)
        return out
    }

    private func assertSame(_ committed: [String], _ spec: [String], _ what: String) {
        XCTAssertEqual(committed.count, Set(committed).count, "\(what): duplicate tags")
        XCTAssertEqual(Set(committed).subtracting(spec).sorted(), [], "\(what): committed tags missing from the spec")
        XCTAssertEqual(Set(spec).subtracting(committed).sorted(), [], "\(what): spec tags missing from the list")
        XCTAssertEqual(committed, spec, "\(what): order differs from the spec")
    }

    func testChatErrorKinds() throws {
        assertSame(ChatErrorKind.allCases.map(\.rawValue), try tags(under: "8.1 "), "ChatError")
    }

    func testChatErrorTypeTags() throws {
        assertSame(ChatErrorTag.allCases.map(\.rawValue), try tags(under: "8.2 "), "ChatErrorType")
    }

    func testStoreErrorTags() throws {
        assertSame(StoreErrorTag.allCases.map(\.rawValue), try tags(under: "8.3 "), "StoreError")
    }

    func testAgentErrorTags() throws {
        assertSame(AgentErrorTag.allCases.map(\.rawValue), try tags(under: "8.4 "), "AgentErrorType")
    }

    func testDatabaseErrorTags() throws {
        assertSame(DatabaseErrorTag.allCases.map(\.rawValue), try tags(under: "8.5 ", column: "DatabaseError"), "DatabaseError")
        let sqlite = try XCTUnwrap(chatAPIErrorsSection.components(separatedBy: "\n").first { $0.hasPrefix("SQLiteError:") })
        let spelled = sqlite.components(separatedBy: "\"type\":\"").dropFirst().map { $0.components(separatedBy: "\"")[0] }
        assertSame(SQLiteErrorTag.allCases.map(\.rawValue), spelled, "SQLiteError")
    }

    func testRemoteCtrlErrorTags() throws {
        assertSame(
            RemoteCtrlErrorTag.allCases.map(\.rawValue), try tags(under: "8.6 ", column: "RemoteCtrlError"), "RemoteCtrlError")
    }

    func testArchiveErrorTags() throws {
        let line = try XCTUnwrap(
            chatAPIErrorsSection.components(separatedBy: "\n").first { $0.hasPrefix("`{\"type\":\"import\"") })
        let spelled = line.components(separatedBy: "\"type\":\"").dropFirst().map { $0.components(separatedBy: "\"")[0] }
        assertSame(ArchiveErrorTag.allCases.map(\.rawValue), spelled, "ArchiveError")
    }

    /// The errors the engine raises encode with their committed tags, in the envelope shape of §1.2.
    func testErrorEnvelopes() async throws {
        let h = try EngineHarness()
        await h.expect("/u", #"{"error":{"type":"error","errorType":{"type":"noActiveUser"}}}"#)
        await h.startWithUser()
        await h.createUser("bob")
        await h.expect(
            "/_ttl 1",
            #"{"error":{"type":"error","errorType":{"type":"differentActiveUser","commandUserId":1,"activeUserId":2}}}"#)
        await h.expect("/_show_address 2", #"{"error":{"type":"errorStore","storeError":{"type":"userContactLinkNotFound"}}}"#)
    }
}
