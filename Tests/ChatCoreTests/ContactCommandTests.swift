import ChatCore
import XCTest

/// Contacts, contact requests, pending connections and addresses (chat-api.md §4.4, §4.16, §4.17, §4.19–4.20), through
/// command lines. The embedded core has none of them, so each command answers the store's not-found error the
/// official core gives for an unknown id, after the same preconditions.
final class ContactCommandTests: XCTestCase {
    static func storeError(_ fields: String) -> String { #"{"error":{"type":"errorStore","storeError":{"# + fields + "}}}" }

    func testContactCommandsAnswerContactNotFound() async throws {
        let h = try EngineHarness()
        let lines = [
            "/_set prefs @5 {}", "/_set alias @5 friend", "/_set alias @5", "/_info @5", #"/_set custom @5 {"bot":"x"}"#,
            "/_set custom @5", "/_set contact user @5 1", "/_get code @5", "/_verify code @5 12345 67890",
            "/_verify code @5", "/_enable @5",
        ]
        for line in lines { await h.chatError(line, "noActiveUser") }
        await h.createUser("alice")
        for line in lines { await h.chatError(line, "chatNotStarted") }
        await h.result("/_start", "chatStarted")
        for line in lines { await h.expect(line, Self.storeError(#""type":"contactNotFound","contactId":5"#)) }
        // The arguments are read as the core's parser reads them before anything is looked up.
        let prefs = await h.chatError(#"/_set prefs @5 {"calls":{"allow":"maybe"}}"#, "commandError")
        XCTAssertEqual(prefs["message"]?.stringValue, #"Error in $.calls.allow: unexpected value "maybe""#)
        // Human forms name contacts, and find none.
        for line in ["/info @bob", "/code @bob", "/verify @bob"] {
            let e = await h.storeError(line, "contactNotFoundByName")
            XCTAssertEqual(e["contactName"]?.stringValue, "bob", line)
        }
    }

    func testRequestsAndPendingConnectionsAreNotFound() async throws {
        let h = try EngineHarness()
        await h.chatError("/_reject 3", "noActiveUser")
        await h.createUser("alice")
        await h.chatError("/_set alias :4 work", "chatNotStarted")
        await h.result("/_start", "chatStarted")
        await h.expect("/_reject 3", Self.storeError(#""type":"contactRequestNotFound","contactRequestId":3"#))
        for line in ["/_set alias :4 work", "/_set alias :4", "/_set incognito :4 on", "/_set incognito :4 off"] {
            await h.expect(line, Self.storeError(#""type":"pendingConnectionNotFound","connId":4"#))
        }
    }

    func testAUserHasNoAddress() async throws {
        let h = try EngineHarness()
        await h.chatError("/_delete_address 1", "noActiveUser")
        await h.createUser("alice")
        await h.chatError("/_delete_address 1", "chatNotStarted")
        await h.chatError("/_share address #1", "chatNotStarted")
        await h.result("/_start", "chatStarted")
        let other = await h.chatError("/_delete_address 2", "differentActiveUser")
        XCTAssertEqual(other["commandUserId"]?.integerValue, 2)
        let notFound = Self.storeError(#""type":"userContactLinkNotFound""#)
        for line in ["/_delete_address 1", "/delete_address", "/da", "/_share address @1", "/_share address #1"] {
            await h.expect(line, notFound)
        }
    }
}
