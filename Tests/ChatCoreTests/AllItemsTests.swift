import ChatCore
import SimplexEncoding
import XCTest

/// `/_get items` (chat-api.md §4.20, `getAllChatItems`): the user's items across note folders and local groups in
/// one order, and `/_read user`, which makes all the user's chats read.
final class AllItemsTests: XCTestCase {
    private func ids(_ r: CanonicalJSON) -> [Int64] {
        r["chatItems"]?.arrayValue?.compactMap { $0["chatItem"]?["meta"]?["itemId"]?.integerValue } ?? []
    }

    /// Sends a `/_get items` line and checks the ids of the items it answers.
    private func expectIds(
        _ h: EngineHarness, _ line: String, _ expected: [Int64], file: StaticString = #filePath, line l: UInt = #line
    ) async {
        let r = await h.result(line, "chatItems", file: file, line: l)
        XCTAssertEqual(ids(r), expected, line, file: file, line: l)
    }

    /// After the group's 11 event items (1–11): notes 12 and 14, group items 13, 15 and 16, one second apart; item 13
    /// says "Hello".
    private func itemsInTwoChats() async throws -> EngineHarness {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.result(#"/_group 1 {"displayName":"team","fullName":""}"#, "groupCreated")
        let lines = [
            "/_create *1 text n1", "/_send #1 text Hello", "/_create *1 text n3", "/_send #1 text g4", "/_send #1 text g5",
        ]
        for (n, line) in lines.enumerated() {
            h.clock.set(secondsAfterStart: Int64(n))
            await h.result(line, "newChatItems")
        }
        return h
    }

    func testPagesAcrossChats() async throws {
        let h = try await itemsInTwoChats()
        let all = await h.result("/_get items count=5", "chatItems")
        XCTAssertEqual(ids(all), [12, 13, 14, 15, 16])
        XCTAssertEqual(all.keys, ["chatItems", "type", "user"])
        let chats = all["chatItems"]?.arrayValue?.compactMap { $0["chatInfo"]?["type"]?.stringValue }
        XCTAssertEqual(chats, ["local", "group", "local", "group", "group"])
        XCTAssertEqual(all["chatItems"]?.arrayValue?[1]["chatInfo"]?["groupInfo"]?["groupId"]?.integerValue, 1)
        await expectIds(h, "/_get items count=2", [15, 16])
        // The search ignores case, in every chat, and looks at every item's text: the event items' too, as the core's
        // `item_text` search does.
        await expectIds(h, "/_get items count=10 search=hello", [13])
        await expectIds(h, "/_get items count=10 search=N", [3, 5, 6, 7, 8, 9, 10, 11, 12, 14])
        await expectIds(h, "/_get items count=10 search=end-to-end", [2])
        // A page anchored on a group item; its neighbours come from every chat.
        await expectIds(h, "/_get items after=13 count=2", [14, 15])
        await expectIds(h, "/_get items before=15 count=2", [13, 14])
        await expectIds(h, "/_get items around=15 count=1", [14, 15, 16])
        await expectIds(h, "/_get items around=15 count=5 search=g", [3, 4, 6, 7, 15, 16])
        // The user's own items are never unread, so `initial=` is the last page.
        await expectIds(h, "/_get items initial=2", [15, 16])
        await h.expect(
            "/_get items initial=2 search=x",
            #"{"error":{"type":"errorStore","storeError":{"type":"internalError","message":"initial chat pagination doesn't support search"}}}"#
        )
    }

    func testAnchorsAreFoundThroughTheirGroup() async throws {
        let h = try await itemsInTwoChats()
        // The core finds an anchor through its contact or group only: a note there is a bad item.
        await h.expect(
            "/_get items after=12 count=2", #"{"error":{"type":"errorStore","storeError":{"type":"badChatItem","itemId":12}}}"#)
        await h.expect(
            "/_get items around=99 count=2",
            #"{"error":{"type":"errorStore","storeError":{"type":"chatItemNotFound","itemId":99}}}"#)
        // Another user has no items of alice's.
        await h.createUser("bob")
        await expectIds(h, "/_get items count=10", [])
        await h.storeError("/_get items before=15 count=2", "chatItemNotFound")
    }

    func testPreconditions() async throws {
        let h = try EngineHarness()
        await h.chatError("/_get items count=10", "noActiveUser")
        await h.chatError("/_read user 1", "noActiveUser")
        await h.createUser("alice")
        await h.chatError("/_get items count=10", "chatNotStarted")
        await h.chatError("/_read user 1", "chatNotStarted")
    }

    func testReadUserClearsEveryUnreadMark() async throws {
        let h = try await itemsInTwoChats()
        await h.result("/_unread chat #1 on", "cmdOk")
        await h.result("/_unread chat *1 on", "cmdOk")
        let ok = await h.result("/_read user 1", "cmdOk")
        XCTAssertEqual(ok["user_"]?["userId"]?.integerValue, 1)
        let list = await h.result("/_get chats 1 pcc=on", "apiChats")
        for chat in list["chats"]?.arrayValue ?? [] {
            XCTAssertEqual(chat["chatStats"]?["unreadChat"]?.boolValue ?? false, false, chat.rendered)
            XCTAssertEqual(chat["chatInfo"]?["noteFolder"]?["unread"]?.boolValue ?? false, false)
        }
        await h.chatError("/_read user 2", "differentActiveUser")
    }
}
