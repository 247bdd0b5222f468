import ChatCore
import Foundation
import SimplexEncoding
import XCTest

/// Moderation, reports, reaction members and group cards in local groups (chat-api.md §4.3, §4.19–4.20; types
/// §7.20–7.26), through command lines. Every item of a local group is the user's own and the user is its owner, so the
/// user moderates their own items, receives no reports, and is the only one who reacts.
final class GroupModerationTests: XCTestCase {
    static let t = "2025-06-01T09:30:12.123456Z"

    private func nextEvent(_ h: EngineHarness) async -> String? {
        await h.engine.nextEvent(waitMicroseconds: 200_000).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A started chat with the group `team` (made with `profile`); answers the group's membership as the core writes it.
    private func team(_ h: EngineHarness, _ profile: String = #"{"displayName":"team","fullName":""}"#) async throws
        -> CanonicalJSON
    {
        await h.startWithUser()
        let created = await h.result("/_group 1 \(profile)", "groupCreated")
        // The group's 11 event items came as events; the tests look at the events after them.
        for _ in 0..<11 { _ = await nextEvent(h) }
        return try XCTUnwrap(created["groupInfo"]?["membership"])
    }

    // MARK: Moderation

    func testTheModeratorMarksTheUsersItemsDeleted() async throws {
        let h = try EngineHarness()
        let membership = try await team(h)
        for n in 1...3 { await h.result("/_send #1 text n\(n)", "newChatItems") }
        await h.result("/_update item #1 13 text n2 edited", "chatItemUpdated")
        let r = await h.result("/_delete member item #1 13,99", "chatItemsDeleted")
        XCTAssertEqual(r["byUser"], .bool(true))
        XCTAssertEqual(r["timed"], .bool(false))
        let deletion = try XCTUnwrap(r["chatItemDeletions"]?.arrayValue?.first)
        XCTAssertEqual(r["chatItemDeletions"]?.arrayValue?.count, 1)
        XCTAssertNil(deletion["deletedChatItem"]?["chatItem"]?["meta"]?["itemDeleted"])
        let marked = try XCTUnwrap(deletion["toChatItem"]?["chatItem"])
        // Without full deletion in the group the item is kept, its content too, marked deleted by the moderator.
        XCTAssertEqual(
            marked["meta"]?["itemDeleted"],
            .object(["type": .string("moderated"), "deletedTs": .string(Self.t), "byGroupMember": membership]))
        XCTAssertEqual(marked["meta"]?["deletable"], .bool(false))
        XCTAssertEqual(marked["meta"]?["editable"], .bool(false))
        XCTAssertEqual(marked["content"]?["msgContent"]?["text"]?.stringValue, "n2 edited")
        let event = await nextEvent(h)
        XCTAssertEqual(
            event,
            #"{"result":{"type":"chatErrors","chatErrors":[{"type":"errorStore","storeError":{"type":"chatItemNotFound","itemId":99}}]}}"#
        )
        // The store keeps it so, and the edit history stays.
        let page = await h.result("/_get chat #1 count=3", "apiChat")
        XCTAssertEqual(page["chat"]?["chatItems"]?.arrayValue?[1], marked)
        let info = await h.result("/_get item info #1 13", "chatItemInfo")
        XCTAssertEqual(info["chatItemInfo"]?["itemVersions"]?.arrayValue?.count, 2)
        // A moderated item can be moderated again, and is not edited any more; the user's own deletion takes the
        // moderator's place.
        await h.result("/_delete member item #1 13", "chatItemsDeleted")
        await h.chatError("/_update item #1 13 text again", "invalidChatItemUpdate")
        let own = await h.result("/_delete item #1 13 internalMark", "chatItemsDeleted")
        XCTAssertEqual(
            own["chatItemDeletions"]?.arrayValue?.first?["toChatItem"]?["chatItem"]?["meta"]?["itemDeleted"]?["type"],
            .string("deleted"))
    }

    func testWithFullDeletionTheContentGoes() async throws {
        let h = try EngineHarness()
        let membership = try await team(
            h, #"{"displayName":"team","fullName":"","groupPreferences":{"fullDelete":{"enable":"on"}}}"#)
        let files = h.folder.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        let temp = h.folder.appendingPathComponent("temp").path
        await h.result(
            #"/set file paths {"appFilesFolder":"\#(files.path)","appTempFolder":"\#(temp)","appAssetsFolder":"\#(temp)"}"#,
            "cmdOk")
        try Data("bytes".utf8).write(to: files.appendingPathComponent("a.txt"))
        await h.result(
            #"/_send #1 json [{"fileSource":{"filePath":"a.txt"},"msgContent":{"type":"file","text":"*see* this"}}]"#,
            "newChatItems")
        await h.result("/_update item #1 12 text *see* that", "chatItemUpdated")
        let r = await h.result("/_delete member item #1 12", "chatItemsDeleted")
        let item = try XCTUnwrap(r["chatItemDeletions"]?.arrayValue?.first?["toChatItem"]?["chatItem"])
        XCTAssertEqual(item["content"], .object(["type": .string("sndModerated")]))
        XCTAssertEqual(item["meta"]?["itemText"]?.stringValue, "moderated")
        XCTAssertEqual(item["meta"]?["itemDeleted"]?["byGroupMember"], membership)
        XCTAssertNil(item["formattedText"])
        // The item keeps its file record; the file itself is gone from the files folder, and so is the edit history.
        XCTAssertEqual(item["file"]?["fileName"]?.stringValue, "a.txt")
        XCTAssertFalse(FileManager.default.fileExists(atPath: files.appendingPathComponent("a.txt").path))
        let info = await h.result("/_get item info #1 12", "chatItemInfo")
        XCTAssertEqual(info["chatItemInfo"]?["itemVersions"]?.arrayValue?.count, 0)
        let page = await h.result("/_get chat #1 count=10", "apiChat")
        XCTAssertEqual(page["chat"]?["chatItems"]?.arrayValue?.last, item)
        let list = await h.result("/_get chats 1 pcc=on", "apiChats")
        let preview = list["chats"]?.arrayValue?.first { $0["chatInfo"]?["type"]?.stringValue == "group" }
        XCTAssertEqual(preview?["chatItems"]?.arrayValue?.first, item)
    }

    func testModerationNeedsTheGroupAndAModerator() async throws {
        let h = try EngineHarness()
        await h.chatError("/_delete member item #1 1", "noActiveUser")
        _ = try await team(h)
        await h.storeError("/_delete member item #2 1", "groupNotFound")
        await h.result("/_send #1 text n1", "newChatItems")
        await h.result("/_leave #1", "leftMemberUser")
        await h.chatError("/_delete member item #1 12", "groupMemberUserRemoved")
    }

    // MARK: Reports

    func testReportsGoToASupportChatAndNoneAreReceived() async throws {
        let h = try EngineHarness()
        let membership = try await team(h)
        await h.result("/_send #1 text n1", "newChatItems")
        await h.storeError("/_report #2 12 reason=spam", "groupNotFound")
        let report = await h.chatError("/_report #1 12 reason=spam why", "commandError")
        XCTAssertEqual(report["message"]?.stringValue, "not supported")
        let info = await h.result("/_info #1", "groupInfo")
        let archived = await h.result("/_archive reports #1", "groupChatItemsDeleted")
        XCTAssertEqual(archived["groupInfo"], info["groupInfo"])
        XCTAssertEqual(archived["chatItemIDs"], .array([]))
        XCTAssertEqual(archived["byUser"], .bool(true))
        XCTAssertEqual(archived["member_"], membership)
        await h.storeError("/_archive reports #2", "groupNotFound")
        let notReports = await h.chatError("/_delete reports #1 12 internal", "commandError")
        XCTAssertEqual(notReports["message"]?.stringValue, "some items are not received reports")
        for mode in ["internal", "internalMark", "broadcast"] {
            let r = await h.result("/_delete reports #1 99 \(mode)", "chatItemsDeleted")
            XCTAssertEqual(r["chatItemDeletions"], .array([]), mode)
            let event = await nextEvent(h)
            XCTAssertNotNil(event, mode)
        }
        await h.chatError("/_delete reports #1 99 history", "invalidChatItemDelete")
        // The item is still there.
        let page = await h.result("/_get chat #1 count=20", "apiChat")
        XCTAssertEqual(page["chat"]?["chatItems"]?.arrayValue?.count, 12)
    }

    // MARK: Reaction members

    func testReactionMembersAreTheUser() async throws {
        let h = try EngineHarness()
        let membership = try await team(h)
        await h.result("/_send #1 text n1", "newChatItems")
        let thumbs = #"{"type":"emoji","emoji":"👍"}"#
        await h.expect(
            "/_reaction members 1 #1 12 \(thumbs)",
            #"{"result":{"type":"reactionMembers","user":"# + UserCommandTests.alice + #","memberReactions":[]}}"#)
        h.clock.set(secondsAfterStart: 5)
        await h.result("/_reaction #1 12 on \(thumbs)", "chatItemReaction")
        await h.result(#"/_reaction #1 12 on {"type":"emoji","emoji":"❤️"}"#, "chatItemReaction")
        let r = await h.result("/_reaction members 1 #1 12 \(thumbs)", "reactionMembers")
        XCTAssertEqual(
            r["memberReactions"],
            .array([.object(["groupMember": membership, "reactionTs": .string("2025-06-01T09:30:17.123456Z")])]))
        await h.storeError("/_reaction members 1 #1 99 \(thumbs)", "chatItemNotFound")
        await h.storeError("/_reaction members 1 #2 12 \(thumbs)", "chatItemNotFound")
        await h.chatError("/_reaction members 2 #1 12 \(thumbs)", "differentActiveUser")
        await h.chatError(#"/_reaction members 1 #1 12 {"type":"emoji"}"#, "commandError")
    }

    // MARK: Cards

    func testOnlyPublicGroupsHaveACard() async throws {
        let h = try EngineHarness()
        _ = try await team(h)
        let notPublic = await h.chatError("/_share chat content #1 @2", "commandError")
        XCTAssertEqual(notPublic["message"]?.stringValue, "not a public group")
        let notGroup = await h.chatError("/_share chat content *1 #1", "commandError")
        XCTAssertEqual(notGroup["message"]?.stringValue, "sharing is only supported for public groups")
        await h.storeError("/_share chat content #5 #1", "groupNotFound")
        // A group whose profile is public has a card, unsigned: a local group has no owner keys to sign with.
        let link = "https://simplex.chat/c#abc"
        let created = await h.result(
            #"/_group 1 {"displayName":"news","fullName":"","publicGroup":{"groupType":"channel","groupLink":"\#(link)","publicGroupId":"aWQ="}}"#,
            "groupCreated")
        let r = await h.result("/_share chat content #2 #1", "chatMsgContent")
        XCTAssertEqual(
            r["msgContent"],
            .object([
                "type": .string("chat"), "text": .string(link),
                "chatLink": .object([
                    "type": .string("group"), "connLink": .string(link),
                    "groupProfile": try XCTUnwrap(created["groupInfo"]?["groupProfile"]),
                ]),
            ]))
    }
}
