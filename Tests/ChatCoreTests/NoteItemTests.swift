import ChatCore
import ChatStore
import Foundation
import SimplexEncoding
import XCTest

/// The notes folder as a chat (chat-api.md §4.3, §4.4 `/_clear chat`, `/_delete`; types §7.16–7.26): items of every
/// content type, files, pagination, search, edits, deletions, forwarding, read state, and the chat list's previews.
final class NoteItemTests: XCTestCase {
    static let t = "2025-06-01T09:30:12.123456Z"
    static let folder =
        #"{"type":"local","noteFolder":{"noteFolderId":1,"userId":1,"createdAt":"2025-06-01T09:30:12.123456Z","updatedAt":"2025-06-01T09:30:12.123456Z","chatTs":"2025-06-01T09:30:12.123456Z","favorite":false,"unread":false}}"#

    /// A sent note's ChatItem exactly as the core writes it (§7.19, §7.20: omitted optionals, field order).
    static func note(
        _ id: Int, _ msgContent: String, text: String, edited: Bool = false, updatedAt: String = t, file: String? = nil
    ) -> String {
        #"{"chatDir":{"type":"localSnd"},"meta":{"itemId":\#(id),"itemTs":"\#(t)","itemText":"\#(text)","itemStatus":{"type":"sndNew"},"itemEdited":\#(edited),"userMention":false,"hasLink":false,"deletable":true,"editable":true,"showGroupAsSender":false,"createdAt":"\#(t)","updatedAt":"\#(updatedAt)"},"content":{"type":"sndMsgContent","msgContent":\#(msgContent)},"mentions":{},"reactions":[]"#
            + (file.map { #","file":"# + $0 } ?? "") + "}"
    }

    private func ids(_ chat: CanonicalJSON) -> [Int64] {
        chat["chat"]?["chatItems"]?.arrayValue?.compactMap { $0["meta"]?["itemId"]?.integerValue } ?? []
    }

    private func database(_ h: EngineHarness) throws -> SQLiteDatabase {
        try SQLiteDatabase(path: h.folder.appendingPathComponent("simplex_v1_chat.db").path)
    }

    private func nextEvent(_ h: EngineHarness) async -> String? {
        await h.engine.nextEvent(waitMicroseconds: 200_000).map { String(decoding: $0, as: UTF8.self) }
    }

    private func setFilesFolder(_ h: EngineHarness, _ files: URL) async {
        let temp = h.folder.appendingPathComponent("temp").path
        await h.result(
            #"/set file paths {"appFilesFolder":"\#(files.path)","appTempFolder":"\#(temp)","appAssetsFolder":"\#(temp)"}"#,
            "cmdOk")
    }

    // MARK: Creating

    func testCreateTextNoteAnswersNewChatItemsWithTheCoreJSON() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.expect(
            "/_create *1 text hello",
            #"{"result":{"type":"newChatItems","user":"# + UserCommandTests.alice + #","chatItems":[{"chatInfo":"#
                + Self.folder + #","chatItem":"# + Self.note(1, #"{"type":"text","text":"hello"}"#, text: "hello") + "}]}}")
        // The folder's chat time follows its newest item.
        h.clock.set(secondsAfterStart: 60)
        let r = await h.result(#"/_create *1 json [{"msgContent":{"type":"text","text":"later"},"mentions":{}}]"#, "newChatItems")
        XCTAssertEqual(
            r["chatItems"]?.arrayValue?.first?["chatInfo"]?["noteFolder"]?["chatTs"]?.stringValue,
            "2025-06-01T09:31:12.123456Z")
        XCTAssertEqual(r["chatItems"]?.arrayValue?.first?["chatItem"]?["meta"]?["itemId"]?.integerValue, 2)
    }

    func testEveryContentTypeKeepsItsFieldsAndText() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let contents: [(String, String, String)] = [
            (#"{"type":"text","text":"plain"}"#, #"{"type":"text","text":"plain"}"#, "plain"),
            (
                #"{"type":"text","text":"say \"hi\"\n\\ \u0001é"}"#, #"{"type":"text","text":"say \"hi\"\n\\ \u0001é"}"#,
                "say \"hi\"\n\\ \u{1}é"
            ),
            (#"{"type":"text","text":""}"#, #"{"type":"text","text":""}"#, ""),
            (
                #"{"text":"see","type":"link","preview":{"title":"T","uri":"https://simplex.chat","description":"D","image":"data:image/jpg;base64,AA==","content":{"type":"page"}}}"#,
                #"{"type":"link","text":"see","preview":{"uri":"https://simplex.chat","title":"T","description":"D","image":"data:image/jpg;base64,AA==","content":{"type":"page"}}}"#,
                "see"
            ),
            (
                #"{"type":"image","image":"data:image/jpg;base64,AA==","text":""}"#,
                #"{"type":"image","text":"","image":"data:image/jpg;base64,AA=="}"#, ""
            ),
            (
                #"{"type":"video","text":"trip","image":"data:x","duration":37}"#,
                #"{"type":"video","text":"trip","image":"data:x","duration":37}"#, "trip"
            ),
            (#"{"type":"voice","text":"","duration":72}"#, #"{"type":"voice","text":"","duration":72}"#, "voice message (01:12)"),
            (
                #"{"type":"voice","text":"hi","duration":5}"#, #"{"type":"voice","text":"hi","duration":5}"#,
                "voice message (00:05); hi"
            ),
            (#"{"type":"file","text":"doc"}"#, #"{"type":"file","text":"doc"}"#, "doc"),
            (
                #"{"type":"chat","text":"","chatLink":{"type":"group","connLink":"https://smp8.simplex.im/g#x","groupProfile":{"displayName":"team","fullName":""}}}"#,
                #"{"type":"chat","text":"","chatLink":{"connLink":"https://smp8.simplex.im/g#x","groupProfile":{"displayName":"team","fullName":""},"type":"group"}}"#,
                "group team"
            ),
            (#"{"type":"poll","question":"?","text":"vote"}"#, #"{"question":"?","text":"vote","type":"poll"}"#, "vote"),
            (#"{"type":"sticker"}"#, #"{"type":"sticker"}"#, "unknown message type"),
        ]
        for (i, (input, output, text)) in contents.enumerated() {
            // The envelope's own text: the core's field order, not a re-rendering.
            let envelope = await h.text(#"/_create *1 json [{"msgContent":"# + input + "}]")
            XCTAssertTrue(envelope.contains(#""msgContent":"# + output + "}"), envelope)
            let r = try XCTUnwrap(CanonicalJSON.parse(envelope)["result"])
            let item = try XCTUnwrap(r["chatItems"]?.arrayValue?.first?["chatItem"])
            XCTAssertEqual(item["meta"]?["itemText"]?.stringValue, text, input)
            XCTAssertEqual(item["meta"]?["itemId"]?.integerValue, Int64(i + 1))
        }
        // Stored content reads back the same, in order.
        let page = await h.text("/_get chat *1 count=100")
        var rest = page[...]
        for (_, output, _) in contents {
            let found = rest.range(of: #""msgContent":"# + output + "}")
            XCTAssertNotNil(found, output)
            if let found { rest = rest[found.upperBound...] }
        }
        let types = await h.text("/_get content types *1")
        XCTAssertEqual(
            types,
            #"{"result":{"type":"chatContentTypes","contentTypes":["text","link","image","video","voice","file","chat","poll","sticker"]}}"#
        )
    }

    func testRefusals() async throws {
        let h = try EngineHarness()
        await h.createUser("alice")
        await h.chatError("/_create *1 text hi", "chatNotStarted")
        await h.result("/_start", "chatStarted")
        await h.expect(
            "/_create *9 text hi", #"{"error":{"type":"errorStore","storeError":{"type":"noteFolderNotFound","noteFolderId":9}}}"#
        )
        let quote = await h.chatError(
            #"/_create *1 json [{"quotedItemId":1,"msgContent":{"type":"text","text":"re"}}]"#, "commandError")
        XCTAssertEqual(quote["message"]?.stringValue, "createNoteFolderContentItems: quotes not supported")
        let mention = await h.chatError(
            #"/_create *1 json [{"msgContent":{"type":"text","text":"@bob"},"mentions":{"bob":4}}]"#, "commandError")
        XCTAssertEqual(mention["message"]?.stringValue, "mentions are not supported in this chat")
        await h.chatError(#"/_create *1 json [{"msgContent":{"type":"report","text":"","reason":"spam"}}]"#, "commandError")
        await h.chatError(#"/_update item *1 1 json {"msgContent":{"type":"report","text":"","reason":"spam"}}"#, "commandError")
        await h.chatError(#"/_create *1 json [{"msgContent":{"type":"image","text":""}}]"#, "commandError")
        await h.chatError(#"/_create *1 json [{"msgContent":{"type":"text"}}]"#, "commandError")
        await h.chatError(#"/_create *1 json []"#, "commandError")
        // Nothing was stored by a refused command.
        let page = await h.result("/_get chat *1 count=10", "apiChat")
        XCTAssertEqual(ids(page), [])
        await h.expect(
            "/_get chat @3 count=10", #"{"error":{"type":"errorStore","storeError":{"type":"contactNotFound","contactId":3}}}"#)
        await h.expect(
            "/_get chat #4 count=10", #"{"error":{"type":"errorStore","storeError":{"type":"groupNotFound","groupId":4}}}"#)
        await h.chatError("/_get chat :5 count=10", "commandError")
        await h.storeError("/_get chat *2 count=10", "noteFolderNotFound")
    }

    func testFilesComeFromTheFilesFolder() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let files = h.folder.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        await setFilesFolder(h, files)
        try Data("hello".utf8).write(to: files.appendingPathComponent("a.txt"))
        let r = await h.text(#"/_create *1 json [{"fileSource":{"filePath":"a.txt"},"msgContent":{"type":"file","text":""}}]"#)
        let file =
            #"{"fileId":1,"fileName":"a.txt","fileSize":5,"fileSource":{"filePath":"a.txt"},"fileStatus":{"type":"sndStored"},"fileProtocol":"local"}"#
        XCTAssertEqual(
            r,
            #"{"result":{"type":"newChatItems","user":"# + UserCommandTests.alice + #","chatItems":[{"chatInfo":"# + Self.folder
                + #","chatItem":"# + Self.note(1, #"{"type":"file","text":""}"#, text: "", file: file) + "}]}}")
        // The legacy `filePath` key, and an encrypted file whose size is the content's.
        try Data(repeating: 7, count: 48).write(to: files.appendingPathComponent("b.bin"))
        let legacy = await h.result(
            #"/_create *1 json [{"filePath":"b.bin","msgContent":{"type":"file","text":"b"}}]"#, "newChatItems")
        XCTAssertEqual(legacy["chatItems"]?.arrayValue?.first?["chatItem"]?["file"]?["fileSize"]?.integerValue, 48)
        let encrypted = await h.result(
            #"/_create *1 json [{"fileSource":{"filePath":"b.bin","cryptoArgs":{"fileKey":"a2V5","fileNonce":"bm9uY2U="}},"msgContent":{"type":"file","text":""}}]"#,
            "newChatItems")
        let source = encrypted["chatItems"]?.arrayValue?.first?["chatItem"]?["file"]
        XCTAssertEqual(source?["fileSize"]?.integerValue, 32)
        XCTAssertEqual(
            source?["fileSource"]?.rendered, #"{"cryptoArgs":{"fileKey":"a2V5","fileNonce":"bm9uY2U="},"filePath":"b.bin"}"#)
        await h.expect(
            #"/_create *1 json [{"fileSource":{"filePath":"missing.txt"},"msgContent":{"type":"file","text":""}}]"#,
            #"{"error":{"type":"error","errorType":{"type":"fileNotFound","message":"missing.txt"}}}"#)
        await h.chatError(
            #"/_create *1 json [{"fileSource":{"filePath":"."},"msgContent":{"type":"file","text":""}}]"#, "fileNotFound")
        // Deleting the note deletes its file; the item read back still names it until then.
        let page = await h.result("/_get chat *1 content=file count=1", "apiChat")
        XCTAssertEqual(ids(page), [3])
        await h.result("/_delete item *1 1 broadcast", "chatItemsDeleted")
        XCTAssertFalse(FileManager.default.fileExists(atPath: files.appendingPathComponent("a.txt").path))
        // Clearing the chat deletes the rest.
        let cleared = await h.text("/_clear chat *1")
        XCTAssertEqual(
            cleared, #"{"result":{"type":"chatCleared","user":"# + UserCommandTests.alice + #","chatInfo":"# + Self.folder + "}}")
        XCTAssertFalse(FileManager.default.fileExists(atPath: files.appendingPathComponent("b.bin").path))
        let empty = await h.result("/_get chat *1 count=10", "apiChat")
        XCTAssertEqual(ids(empty), [])
    }

    // MARK: Pages

    func testPaginationForms() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        for n in 1...10 {
            h.clock.set(secondsAfterStart: Int64(n))
            await h.result("/_create *1 text note \(n)", "newChatItems")
        }
        func page(_ p: String) async -> [Int64] { ids(await h.result("/_get chat *1 \(p)", "apiChat")) }
        var p = await page("count=3")
        XCTAssertEqual(p, [8, 9, 10])
        p = await page("count=0")
        XCTAssertEqual(p, [])
        p = await page("count=100")
        XCTAssertEqual(p, Array(1...10))
        p = await page("after=3 count=2")
        XCTAssertEqual(p, [4, 5])
        p = await page("after=10 count=2")
        XCTAssertEqual(p, [])
        p = await page("before=3 count=5")
        XCTAssertEqual(p, [1, 2])
        p = await page("before=8 count=2")
        XCTAssertEqual(p, [6, 7])
        p = await page("around=1 count=2")
        XCTAssertEqual(p, [1, 2, 3])
        // `around=` carries the chat's stats and what follows the page.
        let around = await h.text("/_get chat *1 around=5 count=2")
        XCTAssertTrue(
            around.hasSuffix(
                #""chatStats":{"unreadCount":0,"unreadMentions":0,"reportsCount":0,"minUnreadItemId":0,"unreadChat":false}},"navInfo":{"afterUnread":0,"afterTotal":3}}}"#
            ), around)
        let aroundJSON = try CanonicalJSON.parse(around)
        XCTAssertEqual(ids(try XCTUnwrap(aroundJSON["result"])), [3, 4, 5, 6, 7])
        // `initial=` without unread items is the last page, with an empty NavigationInfo.
        let initial = await h.result("/_get chat *1 initial=3", "apiChat")
        XCTAssertEqual(ids(initial), [8, 9, 10])
        XCTAssertEqual(initial["navInfo"]?.rendered, #"{"afterTotal":0,"afterUnread":0}"#)
        // `count=` has no navInfo.
        let last = await h.result("/_get chat *1 count=1", "apiChat")
        XCTAssertNil(last["navInfo"])
        await h.expect(
            "/_get chat *1 after=99 count=2",
            #"{"error":{"type":"errorStore","storeError":{"type":"chatItemNotFound","itemId":99}}}"#)
        await h.storeError("/_get chat *1 around=0 count=2", "chatItemNotFound")
        await h.storeError("/_get chat *1 initial=3 search=note", "internalError")
    }

    func testPagesFollowItemTimeThenId() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        // Times with and without fractions, and a clock that went back: the order is time, then id.
        h.clock.set(secondsAfterStart: 10)
        await h.result("/_create *1 text a", "newChatItems")
        h.clock.set(secondsAfterStart: 5)
        await h.result("/_create *1 text b", "newChatItems")
        await h.result("/_create *1 text c", "newChatItems")
        h.clock.set(secondsAfterStart: 100)
        await h.result("/_create *1 text d", "newChatItems")
        var p = ids(await h.result("/_get chat *1 count=10", "apiChat"))
        XCTAssertEqual(p, [2, 3, 1, 4])
        p = ids(await h.result("/_get chat *1 after=2 count=10", "apiChat"))
        XCTAssertEqual(p, [3, 1, 4])
        p = ids(await h.result("/_get chat *1 before=1 count=10", "apiChat"))
        XCTAssertEqual(p, [2, 3])
        // The chat list shows the newest by time, not the last created.
        let chats = await h.result("/_get chats 1", "apiChats")
        XCTAssertEqual(chats["chats"]?.arrayValue?.first?["chatItems"]?.arrayValue?.first?["meta"]?["itemText"]?.stringValue, "d")
    }

    func testSearchAndContentFilters() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.result("/_create *1 text Apples and pears", "newChatItems")
        await h.result(#"/_create *1 json [{"msgContent":{"type":"voice","text":"pear song","duration":3}}]"#, "newChatItems")
        await h.result("/_create *1 text plums", "newChatItems")
        await h.result(#"/_create *1 json [{"msgContent":{"type":"file","text":"PEAR list"}}]"#, "newChatItems")
        func page(_ p: String) async -> [Int64] { ids(await h.result("/_get chat *1 \(p)", "apiChat")) }
        var p = await page("count=10 search=pear")
        XCTAssertEqual(p, [1, 2, 4])
        p = await page("count=10 search=and pears")
        XCTAssertEqual(p, [1])
        p = await page("content=voice count=10")
        XCTAssertEqual(p, [2])
        p = await page("content=text count=10 search=pear")
        XCTAssertEqual(p, [1])
        p = await page("content=image count=10")
        XCTAssertEqual(p, [])
        p = await page("count=1 search=pear")
        XCTAssertEqual(p, [4])
        p = await page("before=4 count=1 search=pear")
        XCTAssertEqual(p, [2])
        // `around=` searches on both sides; what follows the page counts every item, the search aside.
        let around = await h.result("/_get chat *1 around=1 count=1 search=pear", "apiChat")
        XCTAssertEqual(ids(around), [1, 2])
        XCTAssertEqual(around["navInfo"]?["afterTotal"]?.integerValue, 2)
        // The item text of a voice message includes its description, and search sees it.
        p = await page("count=10 search=voice message")
        XCTAssertEqual(p, [2])
        // The chat list's search matches item text.
        func chats(_ query: String) async -> Int? {
            await h.result("/_get chats 1 \(query)", "apiChats")["chats"]?.arrayValue?.count
        }
        var n = await chats(#"{"type":"search","search":"plum"}"#)
        XCTAssertEqual(n, 1)
        n = await chats(#"{"type":"search","search":"cherries"}"#)
        XCTAssertEqual(n, 0)
    }

    /// A search longer than SQLite's LIKE pattern limit answers a page (the official core's query fails on it), finding
    /// a note that holds it, ignoring ASCII case as the shorter searches do.
    func testSearchPastTheLikeLimit() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let long = String(repeating: "ab", count: 30_000)
        await h.result("/_create *1 text x" + long.uppercased() + "y", "newChatItems")
        await h.result("/_create *1 text plums", "newChatItems")
        let found = await h.result("/_get chat *1 count=10 search=" + long, "apiChat")
        XCTAssertEqual(ids(found), [1])
        let longer = await h.result("/_get chat *1 count=10 search=" + long + "c", "apiChat")
        XCTAssertEqual(ids(longer), [])
        let all = await h.result("/_get items count=10 search=" + long, "chatItems")
        XCTAssertEqual(all["chatItems"]?.arrayValue?.count, 1)
        let chats = await h.result(#"/_get chats 1 {"type":"search","search":"\#(long)"}"#, "apiChats")
        XCTAssertEqual(chats["chats"]?.arrayValue?.count, 1)
    }

    // MARK: Changing

    func testUpdateKeepsVersions() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.result("/_create *1 text first", "newChatItems")
        await h.expect(
            "/_update item *1 1 text first",
            #"{"result":{"type":"chatItemNotChanged","user":"# + UserCommandTests.alice + #","chatItem":{"chatInfo":"#
                + Self.folder + #","chatItem":"# + Self.note(1, #"{"type":"text","text":"first"}"#, text: "first") + "}}}")
        h.clock.set(secondsAfterStart: 30)
        await h.expect(
            #"/_update item *1 1 live=off json {"msgContent":{"type":"text","text":"second"},"mentions":{}}"#,
            #"{"result":{"type":"chatItemUpdated","user":"# + UserCommandTests.alice + #","chatItem":{"chatInfo":"#
                + Self.folder + #","chatItem":"#
                + Self.note(
                    1, #"{"type":"text","text":"second"}"#, text: "second", edited: true, updatedAt: "2025-06-01T09:30:42.123456Z"
                )
                + "}}}")
        h.clock.set(secondsAfterStart: 40)
        await h.result("/_update item *1 1 text third", "chatItemUpdated")
        let infoText = await h.text("/_get item info *1 1")
        let info = try XCTUnwrap(CanonicalJSON.parse(infoText)["result"])
        XCTAssertEqual(info["chatItem"]?["chatItem"]?["meta"]?["itemText"]?.stringValue, "third")
        XCTAssertEqual(
            infoText.range(of: #","chatItemInfo":"#).map { String(infoText[$0.upperBound...].dropLast(2)) },
            #"{"itemVersions":[{"chatItemVersionId":3,"msgContent":{"type":"text","text":"third"},"itemVersionTs":"2025-06-01T09:30:52.123456Z","createdAt":"2025-06-01T09:30:52.123456Z"},{"chatItemVersionId":2,"msgContent":{"type":"text","text":"second"},"itemVersionTs":"2025-06-01T09:30:42.123456Z","createdAt":"2025-06-01T09:30:42.123456Z"},{"chatItemVersionId":1,"msgContent":{"type":"text","text":"first"},"itemVersionTs":"2025-06-01T09:30:12.123456Z","createdAt":"2025-06-01T09:30:42.123456Z"}]}"#
        )
        let fresh = await h.result("/_create *1 text new", "newChatItems")
        XCTAssertNotNil(fresh)
        // An item never edited has its content as its one version, numbered with the item's id.
        let never = await h.text("/_get item info *1 2")
        XCTAssertTrue(
            never.hasSuffix(
                #","chatItemInfo":{"itemVersions":[{"chatItemVersionId":2,"msgContent":{"type":"text","text":"new"},"itemVersionTs":"2025-06-01T09:30:52.123456Z","createdAt":"2025-06-01T09:30:52.123456Z"}]}}}"#
            ), never)
        await h.storeError("/_get item info *1 9", "chatItemNotFound")
        await h.storeError("/_update item *1 9 text x", "chatItemNotFound")
        let mention = await h.chatError(
            #"/_update item *1 1 json {"msgContent":{"type":"text","text":"@a"},"mentions":{"a":1}}"#, "commandError")
        XCTAssertEqual(mention["message"]?.stringValue, "mentions are not supported in this chat")
        // A received item (saved from elsewhere) is not the user's to edit.
        let db = try database(h)
        try db.run("UPDATE chat_items SET item_sent = 0, item_status = 'rcv_read' WHERE chat_item_id = 2")
        await h.chatError("/_update item *1 2 text mine", "invalidChatItemUpdate")
        let received = await h.result("/_get chat *1 count=1", "apiChat")
        let item = try XCTUnwrap(received["chat"]?["chatItems"]?.arrayValue?.first)
        XCTAssertEqual(item["chatDir"]?.rendered, #"{"type":"localRcv"}"#)
        XCTAssertEqual(item["content"]?["type"]?.stringValue, "rcvMsgContent")
        XCTAssertEqual(item["meta"]?["itemStatus"]?.rendered, #"{"type":"rcvRead"}"#)
        XCTAssertEqual(item["meta"]?["deletable"]?.boolValue, false)
        XCTAssertEqual(item["meta"]?["editable"]?.boolValue, false)
    }

    func testDeleteInEveryModeAndReportMissingItems() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        for n in 1...5 { await h.result("/_create *1 text n\(n)", "newChatItems") }
        await h.expect(
            "/_delete item *1 1,9,1 internal",
            #"{"result":{"type":"chatItemsDeleted","user":"# + UserCommandTests.alice
                + #","chatItemDeletions":[{"deletedChatItem":{"chatInfo":"#
                + Self.folder + #","chatItem":"# + Self.note(1, #"{"type":"text","text":"n1"}"#, text: "n1")
                + #"}}],"byUser":true,"timed":false}}"#)
        let event = await nextEvent(h)
        XCTAssertEqual(
            event,
            #"{"result":{"type":"chatErrors","chatErrors":[{"type":"errorStore","storeError":{"type":"chatItemNotFound","itemId":9}}]}}"#
        )
        for mode in ["broadcast", "internalMark", "history"] {
            let r = await h.result(
                "/_delete item *1 \(mode == "broadcast" ? 2 : mode == "history" ? 3 : 4) \(mode)", "chatItemsDeleted")
            XCTAssertNil(r["chatItemDeletions"]?.arrayValue?.first?["toChatItem"])
        }
        let p = ids(await h.result("/_get chat *1 count=10", "apiChat"))
        XCTAssertEqual(p, [5])
        await h.storeError("/_delete item *2 5 internal", "noteFolderNotFound")
        await h.storeError("/_delete item @2 5 internal", "contactNotFound")
    }

    func testReactionsAndItemReadsAreNotForNotes() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.result("/_create *1 text hi", "newChatItems")
        await h.expect(
            #"/_reaction *1 1 on {"type":"emoji","emoji":"👍"}"#,
            #"{"error":{"type":"error","errorType":{"type":"commandError","message":"not supported"}}}"#)
        await h.expect(
            "/_read chat items *1 1",
            #"{"error":{"type":"error","errorType":{"type":"commandError","message":"not supported"}}}"#)
        await h.expect(
            "/_delete *1", #"{"error":{"type":"error","errorType":{"type":"commandError","message":"not supported"}}}"#)
        await h.expect(
            "/_delete *1 messages", #"{"error":{"type":"error","errorType":{"type":"commandError","message":"not supported"}}}"#)
        // There are no contacts: a contact's item is the store's not-found error.
        await h.expect(
            #"/_reaction @1 1 on {"type":"emoji","emoji":"👍"}"#,
            #"{"error":{"type":"errorStore","storeError":{"type":"contactNotFound","contactId":1}}}"#)
    }

    func testUnreadStatsReadAndUnreadMark() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        for n in 1...6 { await h.result("/_create *1 text n\(n)", "newChatItems") }
        // Items saved from other chats arrive unread; none of the served commands makes them yet.
        let db = try database(h)
        try db.run("UPDATE chat_items SET item_sent = 0, item_status = 'rcv_new' WHERE chat_item_id IN (3, 5)")
        let chats = await h.result("/_get chats 1", "apiChats")
        let chat = try XCTUnwrap(chats["chats"]?.arrayValue?.first)
        XCTAssertEqual(
            chat["chatStats"]?.rendered,
            #"{"minUnreadItemId":3,"reportsCount":0,"unreadChat":false,"unreadCount":2,"unreadMentions":0}"#)
        XCTAssertEqual(chat["chatItems"]?.arrayValue?.map { $0["meta"]?["itemId"]?.integerValue }, [6])
        let unreadOnly = await h.result(#"/_get chats 1 {"type":"filters","favorite":false,"unread":true}"#, "apiChats")
        XCTAssertEqual(unreadOnly["chats"]?.arrayValue?.count, 1)
        // `initial=` centres on the first unread item.
        let initial = await h.result("/_get chat *1 initial=1", "apiChat")
        XCTAssertEqual(ids(initial), [2, 3, 4])
        XCTAssertEqual(initial["navInfo"]?.rendered, #"{"afterTotal":2,"afterUnread":1}"#)
        XCTAssertEqual(initial["chat"]?["chatStats"]?["unreadCount"]?.integerValue, 2)
        XCTAssertEqual(initial["chat"]?["chatStats"]?["minUnreadItemId"]?.integerValue, 3)
        await h.expect("/_read chat *1", #"{"result":{"type":"cmdOk","user_":"# + UserCommandTests.alice + "}}")
        let read = await h.result("/_get chats 1", "apiChats")
        XCTAssertEqual(read["chats"]?.arrayValue?.first?["chatStats"]?["unreadCount"]?.integerValue, 0)
        let none = await h.result(#"/_get chats 1 {"type":"filters","favorite":false,"unread":true}"#, "apiChats")
        XCTAssertEqual(none["chats"]?.arrayValue?.count, 0)
        // The chat's own unread mark.
        await h.result("/_unread chat *1 on", "cmdOk")
        let marked = await h.result(#"/_get chats 1 {"type":"filters","favorite":false,"unread":true}"#, "apiChats")
        let markedChat = try XCTUnwrap(marked["chats"]?.arrayValue?.first)
        XCTAssertEqual(markedChat["chatInfo"]?["noteFolder"]?["unread"]?.boolValue, true)
        XCTAssertEqual(markedChat["chatStats"]?["unreadChat"]?.boolValue, true)
        await h.result("/_unread chat *1 off", "cmdOk")
        await h.storeError("/_unread chat *7 on", "noteFolderNotFound")
    }

    // MARK: Forwarding

    func testForwardNotesIntoNotes() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let files = h.folder.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        await setFilesFolder(h, files)
        try Data("photo".utf8).write(to: files.appendingPathComponent("p.jpg"))
        try Data("gone".utf8).write(to: files.appendingPathComponent("gone.txt"))
        await h.result("/_create *1 text one", "newChatItems")
        await h.result(
            #"/_create *1 json [{"fileSource":{"filePath":"p.jpg"},"msgContent":{"type":"image","text":"pic","image":"data:x"}}]"#,
            "newChatItems")
        await h.result(
            #"/_create *1 json [{"fileSource":{"filePath":"gone.txt"},"msgContent":{"type":"file","text":""}}]"#, "newChatItems")
        try Data("doc".utf8).write(to: files.appendingPathComponent("doc.tar.gz"))
        await h.result(
            #"/_create *1 json [{"fileSource":{"filePath":"doc.tar.gz"},"msgContent":{"type":"file","text":"d"}}]"#,
            "newChatItems")
        try FileManager.default.removeItem(at: files.appendingPathComponent("gone.txt"))
        // The count is of the ids asked for; an attachment without its file and without text is left out.
        await h.expect(
            "/_forward plan *1 1,2,3,9",
            #"{"result":{"type":"forwardPlan","user":"# + UserCommandTests.alice
                + #","itemsCount":4,"chatItemIds":[1,2],"forwardConfirmation":{"type":"filesMissing","filesCount":1}}}"#)
        let planErrors = await nextEvent(h)
        XCTAssertTrue(planErrors?.contains("chatItemNotFound") ?? false, planErrors ?? "no event")
        await h.expect(
            "/_forward plan *1 1",
            #"{"result":{"type":"forwardPlan","user":"# + UserCommandTests.alice + #","itemsCount":1,"chatItemIds":[1]}}"#)
        let r = await h.result("/_forward *1 *1 1,2,3,4 ttl=default", "newChatItems")
        let items = try XCTUnwrap(r["chatItems"]?.arrayValue)
        // The file note without its file would go as its item text, "", so it is left out.
        XCTAssertEqual(items.compactMap { $0["chatItem"]?["meta"]?["itemId"]?.integerValue }, [5, 6, 7])
        XCTAssertNil(items.first?["chatItem"]?["meta"]?["itemForwarded"])
        // A forwarded image is renamed as the apps name images; other files keep their name, made free.
        XCTAssertEqual(
            items[1]["chatItem"]?["file"]?.rendered,
            #"{"fileId":4,"fileName":"IMG_20250601_093012.jpg","fileProtocol":"local","fileSize":5,"fileSource":{"filePath":"IMG_20250601_093012.jpg"},"fileStatus":{"type":"sndStored"}}"#
        )
        XCTAssertEqual(items[2]["chatItem"]?["file"]?["fileName"]?.stringValue, "doc_1.tar.gz")
        XCTAssertTrue(FileManager.default.fileExists(atPath: files.appendingPathComponent("IMG_20250601_093012.jpg").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: files.appendingPathComponent("doc_1.tar.gz").path))
        // Nothing to forward is an empty list, whatever the target.
        let nothing = await h.result("/_forward @1 *1 3", "newChatItems")
        XCTAssertEqual(nothing["chatItems"]?.arrayValue?.count, 0)
        await h.storeError("/_forward @1 *1 1", "contactNotFound")
        await h.storeError("/_forward *1 #2 1", "groupNotFound")
        await h.storeError("/_forward plan *4 1", "noteFolderNotFound")
    }

    // MARK: The chat list

    func testChatListPreviewIsTheLastItem() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.result("/_create *1 text older", "newChatItems")
        h.clock.set(secondsAfterStart: 1)
        await h.result("/_create *1 text newest", "newChatItems")
        let text = await h.text("/_get chats 1 pcc=on")
        let folder = Self.folder.replacingOccurrences(
            of: #""chatTs":"2025-06-01T09:30:12.123456Z""#, with: #""chatTs":"2025-06-01T09:30:13.123456Z""#)
        let item = Self.note(2, #"{"type":"text","text":"newest"}"#, text: "newest")
            .replacingOccurrences(of: "09:30:12.", with: "09:30:13.")
        XCTAssertEqual(
            text,
            #"{"result":{"type":"apiChats","user":"# + UserCommandTests.alice + #","chats":[{"chatInfo":"# + folder
                + #","chatItems":["# + item
                + #"],"chatStats":{"unreadCount":0,"unreadMentions":0,"reportsCount":0,"minUnreadItemId":0,"unreadChat":false}}]}}"#
        )
    }
}
