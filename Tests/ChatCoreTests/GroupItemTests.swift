import ChatCore
import Foundation
import SimplexEncoding
import XCTest

/// Items of local groups (chat-api.md §4.3; types §7.19–7.26): sending with the group's preferences, quotes, edits,
/// the deletion modes, reactions, read marks and forwarding between notes and groups. The user is the only member, so
/// every item is `groupSnd` and reaches nobody.
final class GroupItemTests: XCTestCase {
    static let t = "2025-06-01T09:30:12.123456Z"
    static let sendError = #"{"error":{"type":"error","errorType":{"type":"commandError","message":"# + "\""

    /// A group made with `profile` (a GroupProfile's JSON), and its GroupInfo exactly as the core writes it now.
    private func newGroup(_ h: EngineHarness, _ profile: String = #"{"displayName":"team","fullName":""}"#) async throws
        -> String
    {
        let created = await h.result("/_group 1 \(profile)", "groupCreated")
        let id = try XCTUnwrap(created["groupInfo"]?["groupId"]?.integerValue)
        return try await groupInfo(h, id)
    }

    private func groupInfo(_ h: EngineHarness, _ id: Int64) async throws -> String {
        let text = await h.text("/_info #\(id)")
        let prefix = #"{"result":{"type":"groupInfo","user":"# + UserCommandTests.alice + #","groupInfo":"#
        XCTAssertTrue(text.hasPrefix(prefix), text)
        return String(text.dropFirst(prefix.count).dropLast(2))
    }

    /// The user's item in a group exactly as the core writes it (§7.19–7.21).
    static func item(
        _ id: Int, _ msgContent: String, text: String, shared: String, edited: Bool = false, deleted: String? = nil,
        quote: String? = nil, reactions: String = "[]", forwarded: String? = nil, file: String? = nil
    ) -> String {
        let mayChange = deleted == nil
        return
            #"{"chatDir":{"type":"groupSnd"},"meta":{"itemId":\#(id),"itemTs":"\#(t)","itemText":"\#(text)","itemStatus":{"type":"sndNew"},"itemSharedMsgId":"\#(shared)""#
            + (forwarded.map { #","itemForwarded":"# + $0 } ?? "") + (deleted.map { #","itemDeleted":"# + $0 } ?? "")
            + #","itemEdited":\#(edited),"userMention":false,"hasLink":false,"deletable":\#(mayChange),"editable":\#(mayChange && forwarded == nil),"showGroupAsSender":false,"createdAt":"\#(t)","updatedAt":"\#(t)"},"content":{"type":"sndMsgContent","msgContent":\#(msgContent)},"mentions":{}"#
            + (quote.map { #","quotedItem":"# + $0 } ?? "") + #","reactions":\#(reactions)"#
            + (file.map { #","file":"# + $0 } ?? "") + "}"
    }

    private func shared(_ r: CanonicalJSON, _ n: Int = 0) throws -> String {
        let id = try XCTUnwrap(r["chatItems"]?.arrayValue?[n]["chatItem"]?["meta"]?["itemSharedMsgId"]?.stringValue)
        // The base64 text of 12 random bytes, base64url-encoded again (`SharedMsgId`'s `strToJSON`).
        XCTAssertEqual(id.count, 24)
        XCTAssertEqual(try Base64.decode(String(decoding: Base64.decode(id), as: UTF8.self), alphabet: .standard).count, 12)
        return id
    }

    private func sharedOf(_ h: EngineHarness, _ itemId: Int) async throws -> String {
        let r = await h.result("/_get item info #1 \(itemId)", "chatItemInfo")
        return try XCTUnwrap(r["chatItem"]?["chatItem"]?["meta"]?["itemSharedMsgId"]?.stringValue)
    }

    // MARK: Sending

    func testSendTextAnswersNewChatItemsWithTheCoreJSON() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let info = try await newGroup(h)
        let text = await h.text("/_send #1 text hello")
        let r = try XCTUnwrap(CanonicalJSON.parse(text)["result"])
        let id = try shared(r)
        XCTAssertEqual(
            text,
            #"{"result":{"type":"newChatItems","user":"# + UserCommandTests.alice
                + #","chatItems":[{"chatInfo":{"type":"group","groupInfo":"#
                + info + #"},"chatItem":"# + Self.item(12, #"{"type":"text","text":"hello"}"#, text: "hello", shared: id)
                + "}]}}")
        // The JSON form with every flag the API allows, several messages in one command, and the human form.
        let many = await h.result(
            #"/_send #1 live=off ttl=default sign=on json [{"msgContent":{"type":"text","text":"a"},"mentions":{}},{"msgContent":{"type":"text","text":"b"}}]"#,
            "newChatItems")
        XCTAssertEqual(many["chatItems"]?.arrayValue?.count, 2)
        XCTAssertNotEqual(try shared(many, 0), try shared(many, 1))
        let human = await h.result("#team from the terminal", "newChatItems")
        XCTAssertEqual(human["chatItems"]?.arrayValue?.first?["chatItem"]?["meta"]?["itemText"]?.stringValue, "from the terminal")
        // The group's chat moves up the list with its new items.
        h.clock.set(secondsAfterStart: 60)
        let later = await h.result("/_send #1 text later", "newChatItems")
        XCTAssertEqual(
            later["chatItems"]?.arrayValue?.first?["chatInfo"]?["groupInfo"]?["chatTs"]?.stringValue,
            "2025-06-01T09:31:12.123456Z")
        // After the group's 11 event items.
        let page = await h.result("/_get chat #1 count=20", "apiChat")
        XCTAssertEqual(page["chat"]?["chatItems"]?.arrayValue?.count, 16)
    }

    func testWhatCannotBeSent() async throws {
        let h = try EngineHarness()
        await h.chatError("/_send #1 text hi", "noActiveUser")
        await h.startWithUser()
        await h.storeError("/_send #1 text hi", "groupNotFound")
        _ = try await newGroup(h)
        // There are no contacts; a local group has no support chats and is no channel to send as.
        await h.expect(
            "/_send @2 text hi", #"{"error":{"type":"errorStore","storeError":{"type":"contactNotFound","contactId":2}}}"#)
        await h.expect("/_send #1(_support) text hi", Self.sendError + #"not supported"}}}"#)
        await h.expect("/_send #1(as_group=on) text hi", Self.sendError + #"not supported"}}}"#)
        await h.expect(
            #"/_send #1 json [{"msgContent":{"type":"report","text":"x","reason":"spam"}}]"#,
            Self.sendError + #"sending reports via this API is not supported"}}}"#)
        await h.expect(
            #"/_send #1 live=on json [{"msgContent":{"type":"text","text":"a"}},{"msgContent":{"type":"text","text":"b"}}]"#,
            Self.sendError + #"invalid multi send: live and more than one quote not supported"}}}"#)
        // Only members can be mentioned: the user's own membership is one, any other id is not.
        let missing = await h.storeError(
            #"/_send #1 json [{"msgContent":{"type":"text","text":"@bob hi"},"mentions":{"bob":7}}]"#, "groupMemberNotFound")
        XCTAssertEqual(missing["groupMemberId"]?.integerValue, 7)
        await h.result(
            #"/_send #1 json [{"msgContent":{"type":"text","text":"@alice hi"},"mentions":{"alice":1}}]"#, "newChatItems")
        // Nothing was stored by the refused commands.
        let page = await h.result("/_get chat #1 count=20", "apiChat")
        XCTAssertEqual(page["chat"]?["chatItems"]?.arrayValue?.count, 12)
    }

    func testTheGroupsPreferencesApply() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let files = h.folder.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        let temp = h.folder.appendingPathComponent("temp").path
        await h.result(
            #"/set file paths {"appFilesFolder":"\#(files.path)","appTempFolder":"\#(temp)","appAssetsFolder":"\#(temp)"}"#,
            "cmdOk")
        try Data("hello".utf8).write(to: files.appendingPathComponent("a.txt"))
        _ = try await newGroup(
            h,
            #"{"displayName":"quiet","fullName":"","groupPreferences":{"voice":{"enable":"off"},"files":{"enable":"off"},"reactions":{"enable":"off"}}}"#
        )
        await h.expect(
            #"/_send #1 json [{"msgContent":{"type":"voice","text":"","duration":3}}]"#,
            Self.sendError + #"feature not allowed Voice messages"}}}"#)
        await h.expect(
            #"/_send #1 json [{"fileSource":{"filePath":"a.txt"},"msgContent":{"type":"file","text":""}}]"#,
            Self.sendError + #"feature not allowed Files and media"}}}"#)
        await h.expect(
            #"/_send #1 json [{"msgContent":{"type":"image","text":"","image":"data:image/jpg;base64,AA=="}}]"#,
            Self.sendError + #"feature not allowed Files and media"}}}"#)
        await h.result("/_send #1 text words are fine", "newChatItems")
        await h.expect(
            #"/_reaction #1 12 on {"type":"emoji","emoji":"👍"}"#, Self.sendError + #"feature not allowed Message reactions"}}}"#)
        // A group with files on takes a file from the files folder, recorded as notes record theirs.
        _ = try await newGroup(h)
        let sent = await h.text(#"/_send #2 json [{"fileSource":{"filePath":"a.txt"},"msgContent":{"type":"file","text":""}}]"#)
        XCTAssertTrue(
            sent.contains(
                #""file":{"fileId":1,"fileName":"a.txt","fileSize":5,"fileSource":{"filePath":"a.txt"},"fileStatus":{"type":"sndStored"},"fileProtocol":"local"}"#
            ), sent)
        await h.chatError(
            #"/_send #2 json [{"fileSource":{"filePath":"missing.txt"},"msgContent":{"type":"file","text":""}}]"#,
            "fileNotFound")
    }

    func testQuotesOfTheGroupsOwnItems() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        _ = try await newGroup(h)
        let first = await h.result("/_send #1 text the question", "newChatItems")
        let id = try shared(first)
        let reply = await h.text(#"/_send #1 json [{"quotedItemId":12,"msgContent":{"type":"text","text":"the answer"}}]"#)
        let quote =
            #"{"chatDir":{"type":"groupSnd"},"itemId":12,"sharedMsgId":"\#(id)","sentAt":"\#(Self.t)","content":{"type":"text","text":"the question"}}"#
        let replyShared = try shared(XCTUnwrap(CanonicalJSON.parse(reply)["result"]))
        XCTAssertTrue(
            reply.contains(
                Self.item(13, #"{"type":"text","text":"the answer"}"#, text: "the answer", shared: replyShared, quote: quote)),
            reply)
        // A large reply (a link) quotes the text alone; at most one quote per command.
        await h.storeError(#"/_send #1 json [{"quotedItemId":99,"msgContent":{"type":"text","text":"x"}}]"#, "chatItemNotFound")
        await h.expect(
            #"/_send #1 json [{"quotedItemId":12,"msgContent":{"type":"text","text":"a"}},{"quotedItemId":13,"msgContent":{"type":"text","text":"b"}}]"#,
            Self.sendError + #"invalid multi send: live and more than one quote not supported"}}}"#)
        // The quote outlives the quoted item, which then has no id; an item marked deleted cannot be quoted.
        await h.result("/_delete item #1 12 internal", "chatItemsDeleted")
        let page = await h.result("/_get chat #1 count=10", "apiChat")
        XCTAssertEqual(page["chat"]?["chatItems"]?.arrayValue?.last?["quotedItem"]?["itemId"], nil)
        XCTAssertEqual(
            page["chat"]?["chatItems"]?.arrayValue?.last?["quotedItem"]?["content"]?["text"]?.stringValue, "the question")
        await h.result("/_delete item #1 13 internalMark", "chatItemsDeleted")
        await h.storeError(#"/_send #1 json [{"quotedItemId":13,"msgContent":{"type":"text","text":"x"}}]"#, "invalidQuote")
    }

    // MARK: Changing

    func testEditsKeepVersions() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let info = try await newGroup(h)
        let id = try shared(await h.result("/_send #1 text first", "newChatItems"))
        await h.expect(
            "/_update item #1 12 text second",
            #"{"result":{"type":"chatItemUpdated","user":"# + UserCommandTests.alice
                + #","chatItem":{"chatInfo":{"type":"group","groupInfo":"#
                + info + #"},"chatItem":"#
                + Self.item(12, #"{"type":"text","text":"second"}"#, text: "second", shared: id, edited: true) + "}}}")
        await h.result("/_update item #1 12 live=off text second", "chatItemNotChanged")
        let versions = await h.result("/_get item info #1 12", "chatItemInfo")
        XCTAssertEqual(
            versions["chatItemInfo"]?["itemVersions"]?.arrayValue?.compactMap { $0["msgContent"]?["text"]?.stringValue },
            ["second", "first"])
        await h.storeError(
            #"/_update item #1 12 json {"msgContent":{"type":"text","text":"x"},"mentions":{"x":5}}"#, "groupMemberNotFound")
        await h.storeError("/_update item #1 99 text x", "chatItemNotFound")
        // A deleted item is no longer edited.
        await h.result("/_delete item #1 12 internalMark", "chatItemsDeleted")
        await h.chatError("/_update item #1 12 text third", "invalidChatItemUpdate")
    }

    func testDeletionModes() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let info = try await newGroup(h)
        for n in 1...4 { await h.result("/_send #1 text n\(n)", "newChatItems") }
        let s2 = try await sharedOf(h, 13)
        let chatInfo = #"{"type":"group","groupInfo":"# + info + "}"
        // internalMark keeps the item, marked deleted.
        let marked = Self.item(
            13, #"{"type":"text","text":"n2"}"#, text: "n2", shared: s2,
            deleted: #"{"type":"deleted","deletedTs":"\#(Self.t)","chatType":"group"}"#)
        await h.expect(
            "/_delete item #1 13 internalMark",
            #"{"result":{"type":"chatItemsDeleted","user":"# + UserCommandTests.alice
                + #","chatItemDeletions":[{"deletedChatItem":{"chatInfo":"#
                + chatInfo + #","chatItem":"# + Self.item(13, #"{"type":"text","text":"n2"}"#, text: "n2", shared: s2)
                + #"},"toChatItem":{"chatInfo":"# + chatInfo + #","chatItem":"# + marked
                + #"}}],"byUser":true,"timed":false}}"#)
        // broadcast: only items still deletable; without full deletion in the group the members would keep them marked.
        await h.chatError("/_delete item #1 13,14 broadcast", "invalidChatItemDelete")
        let broadcast = await h.result("/_delete item #1 14 broadcast", "chatItemsDeleted")
        XCTAssertEqual(
            broadcast["chatItemDeletions"]?.arrayValue?.first?["toChatItem"]?["chatItem"]?["meta"]?["itemDeleted"]?["type"]?
                .stringValue, "deleted")
        // internal removes; so does broadcast in a group with full deletion on.
        let removed = await h.result("/_delete item #1 15 internal", "chatItemsDeleted")
        XCTAssertEqual(removed["chatItemDeletions"]?.arrayValue?.first?["toChatItem"], nil)
        let page = await h.result("/_get chat #1 count=20", "apiChat")
        XCTAssertEqual(page["chat"]?["chatItems"]?.arrayValue?.count, 14)
        _ = try await newGroup(h, #"{"displayName":"open","fullName":"","groupPreferences":{"fullDelete":{"enable":"on"}}}"#)
        await h.result("/_send #2 text gone", "newChatItems")
        let full = await h.result("/_delete item #2 27 broadcast", "chatItemsDeleted")
        XCTAssertEqual(full["chatItemDeletions"]?.arrayValue?.first?["toChatItem"], nil)
        await h.expect("/_delete item #1 12 history", Self.sendError + #"not supported"}}}"#)
    }

    // MARK: Reactions and reads

    func testReactionsAreStoredAndCounted() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let info = try await newGroup(h)
        let id = try shared(await h.result("/_send #1 text react", "newChatItems"))
        let thumbs = #"{"type":"emoji","emoji":"👍"}"#
        let counted = #"[{"reaction":\#(thumbs),"userReacted":true,"totalReacted":1}]"#
        await h.expect(
            "/_reaction #1 12 on \(thumbs)",
            #"{"result":{"type":"chatItemReaction","user":"# + UserCommandTests.alice
                + #","added":true,"reaction":{"chatInfo":{"type":"group","groupInfo":"# + info
                + #"},"chatReaction":{"chatDir":{"type":"groupSnd"},"chatItem":"#
                + Self.item(12, #"{"type":"text","text":"react"}"#, text: "react", shared: id, reactions: counted)
                + #","sentAt":"\#(Self.t)","reaction":\#(thumbs)}}}}"#)
        await h.expect("/_reaction #1 12 on \(thumbs)", Self.sendError + #"reaction already added"}}}"#)
        for e in ["❤️", "🚀"] { await h.result(#"/_reaction #1 12 on {"type":"emoji","emoji":"\#(e)"}"#, "chatItemReaction") }
        await h.expect(#"/_reaction #1 12 on {"type":"emoji","emoji":"😂"}"#, Self.sendError + #"too many reactions"}}}"#)
        let page = await h.result("/_get chat #1 count=1", "apiChat")
        XCTAssertEqual(page["chat"]?["chatItems"]?.arrayValue?.first?["reactions"]?.arrayValue?.count, 3)
        let off = await h.result("/_reaction #1 12 off \(thumbs)", "chatItemReaction")
        XCTAssertEqual(off["added"], .bool(false))
        XCTAssertEqual(off["reaction"]?["chatReaction"]?["chatItem"]?["reactions"]?.arrayValue?.count, 2)
        await h.expect("/_reaction #1 12 off \(thumbs)", Self.sendError + #"reaction already removed"}}}"#)
        await h.storeError("/_reaction #1 99 on \(thumbs)", "chatItemNotFound")
        await h.result("/_delete item #1 12 internalMark", "chatItemsDeleted")
        await h.expect(
            "/_reaction #1 12 on \(thumbs)", Self.sendError + #"reaction not allowed - chat item has no content"}}}"#)
    }

    func testReadChatItems() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let info = try await newGroup(h)
        await h.result("/_send #1 text mine", "newChatItems")
        await h.expect(
            "/_read chat items #1 1,2",
            #"{"result":{"type":"itemsReadForChat","user":"# + UserCommandTests.alice
                + #","chatInfo":{"type":"group","groupInfo":"#
                + info + "}}}")
        await h.storeError("/_read chat items #9 1", "groupNotFound")
    }

    // MARK: Forwarding

    func testForwardingBetweenNotesAndGroups() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        _ = try await newGroup(h)
        await h.result("/_create *1 text a note", "newChatItems")
        let toGroup = await h.result("/_forward #1 *1 12", "newChatItems")
        let item = toGroup["chatItems"]?.arrayValue?.first?["chatItem"]
        XCTAssertEqual(item?["chatDir"]?["type"]?.stringValue, "groupSnd")
        XCTAssertEqual(item?["meta"]?["itemForwarded"], nil)
        XCTAssertNotNil(item?["meta"]?["itemSharedMsgId"])
        let back = await h.text("/_forward *1 #1 13")
        XCTAssertTrue(
            back.contains(#""itemForwarded":{"type":"group","chatName":"team","msgDir":"snd","groupId":1,"chatItemId":13}"#),
            back)
        let plan = await h.result("/_forward plan #1 13,99", "forwardPlan")
        XCTAssertEqual(plan["chatItemIds"]?.arrayValue?.compactMap(\.integerValue), [13])
        // Group to group keeps the first origin, and a deleted item is not forwarded.
        let again = await h.text("/_forward #1 #1 13")
        XCTAssertTrue(
            again.contains(#""itemForwarded":{"type":"group","chatName":"team","msgDir":"snd","groupId":1,"chatItemId":13}"#))
        await h.result("/_delete item #1 13 internalMark", "chatItemsDeleted")
        let none = await h.result("/_forward *1 #1 13", "newChatItems")
        XCTAssertEqual(none["chatItems"]?.arrayValue?.count, 0)
    }
}

/// The file records a remote controller's `getFile` is checked against (xrcp.md §11.3).
final class RecordedFileTests: XCTestCase {
    func testOnlyTheActiveUsersRecordsAsStored() async throws {
        let h = try EngineHarness()
        let source = try CanonicalJSON.parse(#"{"filePath":"a.txt"}"#)
        func recorded(_ userId: Int64 = 1, _ fileId: Int64 = 1, sent: Bool = true, _ s: CanonicalJSON? = nil) async
            -> String
        {
            switch await h.engine.recordedFilePath(userId: userId, fileId: fileId, sent: sent, fileSource: s ?? source) {
            case .success(let path): return path
            case .failure(let e): return EnvelopeJSON.error(e).text
            }
        }
        let none = await recorded()
        XCTAssertEqual(none, #"{"error":{"type":"error","errorType":{"type":"noActiveUser"}}}"#)
        await h.startWithUser()
        let files = h.folder.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        await h.result("/_files_folder \(files.path)", "cmdOk")
        try Data("hello".utf8).write(to: files.appendingPathComponent("a.txt"))
        try Data("world".utf8).write(to: files.appendingPathComponent("b.txt"))
        await h.result(
            #"/_create *1 json [{"fileSource":{"filePath":"a.txt"},"msgContent":{"type":"file","text":""}}]"#, "newChatItems")
        await h.result(#"/_group 1 {"displayName":"team","fullName":""}"#, "groupCreated")
        await h.result(
            #"/_send #1 json [{"fileSource":{"filePath":"b.txt","cryptoArgs":{"fileKey":"a2V5","fileNonce":"bm9uY2U="}},"msgContent":{"type":"file","text":""}}]"#,
            "newChatItems")
        let note = await recorded()
        XCTAssertEqual(note, "a.txt")
        let group = await recorded(
            1, 2, try CanonicalJSON.parse(#"{"filePath":"b.txt","cryptoArgs":{"fileKey":"a2V5","fileNonce":"bm9uY2U="}}"#))
        XCTAssertEqual(group, "b.txt")
        let notFound = { (id: Int) in #"{"error":{"type":"errorStore","storeError":{"type":"fileNotFound","fileId":\#(id)}}}"# }
        // Another path, missing crypto arguments, a received file, an unknown id: all the store's fileNotFound.
        let otherPath = await recorded(1, 1, try CanonicalJSON.parse(#"{"filePath":"../a.txt"}"#))
        XCTAssertEqual(otherPath, notFound(1))
        let noArgs = await recorded(1, 2, try CanonicalJSON.parse(#"{"filePath":"b.txt"}"#))
        XCTAssertEqual(noArgs, notFound(2))
        let received = await recorded(1, 1, sent: false)
        XCTAssertEqual(received, notFound(1))
        let unknown = await recorded(1, 9)
        XCTAssertEqual(unknown, notFound(9))
        let other = await recorded(2)
        XCTAssertEqual(
            other, #"{"error":{"type":"error","errorType":{"type":"differentActiveUser","commandUserId":2,"activeUserId":1}}}"#)
    }
}
