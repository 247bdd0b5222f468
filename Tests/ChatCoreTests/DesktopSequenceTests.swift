import ChatCore
import SimplexEncoding
import XCTest

/// SimpleX Desktop's first commands after connecting to a host (`/u`, `/users`, `/_show_address 1`, `/_ttl 1`,
/// `/_get chats 1 pcc=on`, `/_get tags 1`, then `/get subs total 1` every second): it stops at the first unexpected
/// answer, so each must be what the real core answers for a fresh user (chat-api.md §1.2, §5, §7, §8).
final class DesktopSequenceTests: XCTestCase {
    func testDesktopFirstCommands() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let user = UserCommandTests.alice
        await h.expect("/u", #"{"result":{"type":"activeUser","user":"# + user + "}}")
        await h.expect("/users", #"{"result":{"type":"usersList","users":[{"user":"# + user + #","unreadCount":0}]}}"#)
        await h.expect(
            "/_show_address 1",
            #"{"error":{"type":"errorStore","storeError":{"type":"userContactLinkNotFound"}}}"#)
        await h.expect("/_ttl 1", #"{"result":{"type":"chatItemTTL","user":"# + user + #","chatItemTTL":0}}"#)
        let noteFolder =
            #"{"chatInfo":{"type":"local","noteFolder":{"noteFolderId":1,"userId":1,"createdAt":"2025-06-01T09:30:12.123456Z","updatedAt":"2025-06-01T09:30:12.123456Z","chatTs":"2025-06-01T09:30:12.123456Z","favorite":false,"unread":false}},"chatItems":[],"chatStats":{"unreadCount":0,"unreadMentions":0,"reportsCount":0,"minUnreadItemId":0,"unreadChat":false}}"#
        await h.expect(
            "/_get chats 1 pcc=on", #"{"result":{"type":"apiChats","user":"# + user + #","chats":["# + noteFolder + "]}}")
        await h.expect("/_get tags 1", #"{"result":{"type":"chatTags","user":"# + user + #","userTags":[]}}"#)
        for _ in 0..<3 {
            await h.expect(
                "/get subs total 1",
                #"{"result":{"type":"agentSubsTotal","user":"# + user
                    + #","subsTotal":{"ssActive":0,"ssPending":0},"hasSession":false}}"#)
        }
    }

    func testOtherEmptyReads() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.expect(
            "/_contacts 1", #"{"result":{"type":"contactsList","user":"# + UserCommandTests.alice + #","contacts":[]}}"#)
        await h.expect("/_call get", #"{"result":{"type":"callInvitations","callInvitations":[]}}"#)
        let summary = await h.result("/get servers summary 1", "agentServersSummary")
        let s = try XCTUnwrap(summary["serversSummary"])
        XCTAssertEqual(s["statsStartedAt"]?.stringValue, "2025-06-01T09:30:12.123456Z")
        XCTAssertEqual(
            s.keys.sorted(),
            [
                "allUsersNtf", "allUsersSMP", "allUsersXFTP", "currentUserNtf", "currentUserSMP", "currentUserXFTP",
                "statsStartedAt",
            ])
        XCTAssertEqual(s["currentUserSMP"]?["currentlyUsedSMPServers"]?.arrayValue?.count, 0)
        XCTAssertEqual(s["allUsersSMP"]?["smpTotals"]?["subs"]?.rendered, #"{"ssActive":0,"ssPending":0}"#)
        XCTAssertEqual(s["allUsersSMP"]?["smpTotals"]?["stats"]?["_sentDirect"]?.integerValue, 0)
        XCTAssertEqual(s["allUsersXFTP"]?["xftpTotals"]?["stats"]?["_uploadsSize"]?.integerValue, 0)
        XCTAssertEqual(s["currentUserNtf"]?["previouslyUsedNtfServers"]?.arrayValue?.count, 0)
        await h.result("/reset servers stats", "cmdOk")
    }

    func testChatListFiltersAndPagination() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        func count(_ line: String) async -> Int? { await h.result(line, "apiChats")["chats"]?.arrayValue?.count }
        let n0 = await count("/_get chats 1")
        XCTAssertEqual(n0, 1)
        let n1 = await count(#"/_get chats 1 pcc=on count=10 {"type":"filters","favorite":true,"unread":false}"#)
        XCTAssertEqual(n1, 0)
        let n2 = await count(#"/_get chats 1 count=10 {"type":"search","search":""}"#)
        XCTAssertEqual(n2, 1)
        let n3 = await count(#"/_get chats 1 count=10 {"type":"search","search":"x"}"#)
        XCTAssertEqual(n3, 0)
        let n4 = await count("/_get chats 1 count=0")
        XCTAssertEqual(n4, 0)
        let n5 = await count("/_get chats 1 before=2025-06-01T09:30:13Z count=5")
        XCTAssertEqual(n5, 1)
        let n6 = await count("/_get chats 1 after=2025-06-01T09:30:13Z count=5")
        XCTAssertEqual(n6, 0)
    }
}
