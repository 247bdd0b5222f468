import ChatCore
import SimplexEncoding
import XCTest

/// The items a local group's events leave (chat-api.md §7.23, the official core's `APINewGroup`,
/// `runUpdateGroupProfile` and `APILeaveGroup`): their exact JSON, the `newChatItems` event each one comes with, and
/// what can be done with an item that is no message.
final class GroupEventItemTests: XCTestCase {
    static let t = "2025-06-01T09:30:12.123456Z"
    static let e2ee =
        "This conversation is protected by end-to-end encryption with perfect forward secrecy, repudiation and break-in recovery."

    /// An event item of the user's, exactly as the core writes it (no message, so neither deletable nor editable).
    static func item(_ id: Int, _ content: String, text: String, ts: String = t, shared: String? = nil) -> String {
        #"{"chatDir":{"type":"groupSnd"},"meta":{"itemId":\#(id),"itemTs":"\#(ts)","itemText":"\#(text)","itemStatus":{"type":"sndNew"}"#
            + (shared.map { #","itemSharedMsgId":"\#($0)""# } ?? "")
            + #","itemEdited":false,"userMention":false,"hasLink":false,"deletable":false,"editable":false,"showGroupAsSender":false,"createdAt":"\#(t)","updatedAt":"\#(t)"},"content":\#(content),"mentions":{},"reactions":[]}"#
    }

    /// The next `count` events, each a `newChatItems` with one item: the items' texts and the events' chat infos.
    private func newItemEvents(_ h: EngineHarness, _ count: Int, file: StaticString = #filePath, line: UInt = #line)
        async throws -> [(item: String, chatInfo: CanonicalJSON)]
    {
        var found: [(String, CanonicalJSON)] = []
        for _ in 0..<count {
            let next = await h.engine.nextEvent(waitMicroseconds: 200_000)
            let bytes = try XCTUnwrap(next, file: file, line: line)
            let text = String(decoding: bytes, as: UTF8.self)
            let result = try XCTUnwrap(CanonicalJSON.parse(text)["result"], file: file, line: line)
            XCTAssertEqual(result["type"]?.stringValue, "newChatItems", text, file: file, line: line)
            let items = try XCTUnwrap(result["chatItems"]?.arrayValue, file: file, line: line)
            XCTAssertEqual(items.count, 1, text, file: file, line: line)
            // The item's JSON as it is in the event's text: `"chatItem":` to the end of the one AChatItem.
            let start = try XCTUnwrap(text.range(of: #""chatItem":"#), file: file, line: line).upperBound
            found.append((String(text[start...].dropLast(4)), items[0]["chatInfo"] ?? .null))
        }
        let more = await h.engine.nextEvent(waitMicroseconds: 0)
        XCTAssertNil(more.map { String(decoding: $0, as: UTF8.self) }, file: file, line: line)
        return found
    }

    func testANewGroupStartsWithItsBannerEncryptionNoticeAndFeatures() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let created = await h.result(
            #"/_group 1 {"displayName":"team","fullName":"","groupPreferences":{"timedMessages":{"enable":"on","ttl":3600},"voice":{"enable":"on","role":"admin"}}}"#,
            "groupCreated")
        let events = try await newItemEvents(h, 11)
        for e in events { XCTAssertEqual(e.chatInfo, .object(["type": .string("group"), "groupInfo": created["groupInfo"]!])) }
        func feature(_ name: String, _ enable: String, _ extra: String = "") -> String {
            #"{"type":"sndGroupFeature","groupFeature":"\#(name)","preference":{"enable":"\#(enable)"}\#(extra)}"#
        }
        let expected = [
            Self.item(1, #"{"type":"chatBanner"}"#, text: "", ts: "1970-01-01T00:00:00Z"),
            Self.item(2, #"{"type":"sndGroupE2EEInfo","e2eeInfo":{"pqEnabled":false}}"#, text: Self.e2ee),
            Self.item(3, feature("timedMessages", "on", #","param":3600"#), text: "Disappearing messages: on (1 hour)"),
            Self.item(4, feature("directMessages", "off"), text: "Direct messages: off"),
            Self.item(5, feature("fullDelete", "off"), text: "Full deletion: off"),
            Self.item(6, feature("reactions", "on"), text: "Message reactions: on"),
            Self.item(7, feature("voice", "on", #","memberRole_":"admin""#), text: "Voice messages: on for admins"),
            Self.item(8, feature("files", "on"), text: "Files and media: on"),
            Self.item(9, feature("simplexLinks", "on"), text: "SimpleX links: on"),
            Self.item(10, feature("reports", "on"), text: "Member reports: on"),
            Self.item(11, feature("history", "off"), text: "Recent history: off"),
        ]
        XCTAssertEqual(events.map(\.item), expected)
        // A page reads them back as they were announced, the banner first; they have no message, so a content filter
        // and the content types skip them, while the search looks at their texts as at any item's.
        let page = await h.text("/_get chat #1 count=20")
        XCTAssertTrue(page.contains(#""chatItems":["# + expected.joined(separator: ",") + "]"), page)
        let texts = await h.result("/_get chat #1 content=text count=20", "apiChat")
        XCTAssertEqual(texts["chat"]?["chatItems"]?.arrayValue?.count, 0)
        let types = await h.result("/_get content types #1", "chatContentTypes")
        XCTAssertEqual(types["contentTypes"], .array([]))
        let found = await h.result("/_get chat #1 count=20 search=ENCRYPTION", "apiChat")
        XCTAssertEqual(found["chat"]?["chatItems"]?.arrayValue?.compactMap { $0["meta"]?["itemId"]?.integerValue }, [2])
        let info = await h.result("/_get item info #1 2", "chatItemInfo")
        XCTAssertEqual(info["chatItemInfo"], .object(["itemVersions": .array([])]))
    }

    func testAProfileUpdateAddsGroupUpdatedAndTheChangedFeatures() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.result(#"/_group 1 {"displayName":"team","fullName":""}"#, "groupCreated")
        _ = try await newItemEvents(h, 11)
        let profile =
            #"{"displayName":"team","fullName":"","description":"plans","groupPreferences":{"voice":{"enable":"off"},"reactions":{"enable":"on"}}}"#
        let updated = await h.result("/_group_profile #1 \(profile)", "groupUpdated")
        let events = try await newItemEvents(h, 2)
        let page = await h.result("/_get chat #1 count=2", "apiChat")
        let shared = try XCTUnwrap(
            page["chat"]?["chatItems"]?.arrayValue?.first?["meta"]?["itemSharedMsgId"]?.stringValue)
        XCTAssertEqual(shared.count, 24)
        XCTAssertEqual(
            events.map(\.item),
            [
                Self.item(
                    12,
                    #"{"type":"sndGroupEvent","sndGroupEvent":{"type":"groupUpdated","groupProfile":{"displayName":"team","fullName":"","description":"plans","groupPreferences":{"reactions":{"enable":"on"},"voice":{"enable":"off"}}}}}"#,
                    text: "group profile updated", shared: shared),
                Self.item(
                    13, #"{"type":"sndGroupFeature","groupFeature":"voice","preference":{"enable":"off"}}"#,
                    text: "Voice messages: off"),
            ])
        XCTAssertEqual(events[0].chatInfo["groupInfo"], updated["toGroup"])
        // The same profile again changes nothing and adds no item; preferences alone add only their items.
        await h.result("/_group_profile #1 \(profile)", "groupUpdated")
        _ = try await newItemEvents(h, 0)
        await h.result(
            #"/_group_profile #1 {"displayName":"team","fullName":"","description":"plans","groupPreferences":{"history":{"enable":"on"}}}"#,
            "groupUpdated")
        let prefs = try await newItemEvents(h, 2)
        XCTAssertEqual(
            prefs.map(\.item),
            [
                Self.item(
                    14, #"{"type":"sndGroupFeature","groupFeature":"voice","preference":{"enable":"on"}}"#,
                    text: "Voice messages: on"),
                Self.item(
                    15, #"{"type":"sndGroupFeature","groupFeature":"history","preference":{"enable":"on"}}"#,
                    text: "Recent history: on"),
            ])
    }

    func testLeavingAddsUserLeftWithTheGroupAsItWas() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.result(#"/_group 1 {"displayName":"team","fullName":""}"#, "groupCreated")
        _ = try await newItemEvents(h, 11)
        let before = await h.result("/_info #1", "groupInfo")
        let left = await h.result("/_leave #1", "leftMemberUser")
        XCTAssertEqual(left["groupInfo"]?["membership"]?["memberStatus"]?.stringValue, "left")
        let events = try await newItemEvents(h, 1)
        XCTAssertEqual(events[0].chatInfo["groupInfo"]?["membership"], before["groupInfo"]?["membership"])
        let page = await h.result("/_get chat #1 count=1", "apiChat")
        let shared = try XCTUnwrap(
            page["chat"]?["chatItems"]?.arrayValue?.first?["meta"]?["itemSharedMsgId"]?.stringValue)
        XCTAssertEqual(
            events[0].item,
            Self.item(12, #"{"type":"sndGroupEvent","sndGroupEvent":{"type":"userLeft"}}"#, text: "left", shared: shared))
    }

    func testAnEventItemIsNoMessage() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.result(#"/_group 1 {"displayName":"team","fullName":""}"#, "groupCreated")
        await h.result("/_send #1 text hello", "newChatItems")
        // Forwarding refuses the whole selection (`forwardMsgContent`), in the plan too.
        await h.chatError("/_forward *1 #1 2", "invalidForward")
        await h.chatError("/_forward *1 #1 12,2", "invalidForward")
        await h.chatError("/_forward plan #1 2", "invalidForward")
        await h.chatError("/_update item #1 2 text x", "invalidChatItemUpdate")
        await h.chatError("/_delete item #1 2 broadcast", "invalidChatItemDelete")
        await h.expect(
            #"/_reaction #1 2 on {"type":"emoji","emoji":"👍"}"#,
            #"{"error":{"type":"error","errorType":{"type":"commandError","message":"reaction not possible - no shared item ID"}}}"#
        )
        await h.expect(
            #"/_send #1 json [{"quotedItemId":2,"msgContent":{"type":"text","text":"x"}}]"#,
            #"{"error":{"type":"errorStore","storeError":{"type":"invalidQuote"}}}"#)
        // The user's own deletion takes it.
        let deleted = await h.result("/_delete item #1 2 internal", "chatItemsDeleted")
        XCTAssertEqual(
            deleted["chatItemDeletions"]?.arrayValue?.first?["deletedChatItem"]?["chatItem"]?["content"]?["type"]?
                .stringValue, "sndGroupE2EEInfo")
        let page = await h.result("/_get chat #1 count=20", "apiChat")
        XCTAssertEqual(page["chat"]?["chatItems"]?.arrayValue?.count, 11)
    }
}
