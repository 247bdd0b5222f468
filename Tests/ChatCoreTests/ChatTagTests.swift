import ChatCore
import SimplexEncoding
import XCTest

/// Chat tags, chat-api.md §4.6, through command lines.
final class ChatTagTests: XCTestCase {
    private func tagIds(_ r: CanonicalJSON) -> [Int64] {
        r["userTags"]?.arrayValue?.compactMap { $0["chatTagId"]?.integerValue } ?? []
    }

    func testCreateAnswersAllTagsInOrderWithTheCoreJSON() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.expect(
            #"/_create tag {"emoji":"💼","text":"Work"}"#,
            #"{"result":{"type":"chatTags","user":"# + UserCommandTests.alice
                + #","userTags":[{"chatTagId":1,"chatTagText":"Work","chatTagEmoji":"💼"}]}}"#)
        let r = await h.result(#"/_create tag {"text":"Family"}"#, "chatTags")
        XCTAssertEqual(tagIds(r), [1, 2])
        XCTAssertEqual(r["userTags"]?.arrayValue?.last?.keys, ["chatTagId", "chatTagText"])
        let got = await h.result("/_get tags 1", "chatTags")
        XCTAssertEqual(got["userTags"], r["userTags"])
        await h.chatError(#"/_create tag {"emoji":"🏠"}"#, "commandError")
    }

    /// A name or emoji the user's tags have is refused by the store's unique indexes, answered as the core answers
    /// the SQLite exception (`SEDBException`, direct-sqlite's `show`); tags without emoji do not clash.
    func testDuplicateNamesAndEmojiAreRefused() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.result(#"/_create tag {"emoji":"💼","text":"Work"}"#, "chatTags")
        await h.result(#"/_create tag {"text":"Family"}"#, "chatTags")
        await h.result(#"/_create tag {"text":"Friends"}"#, "chatTags")
        let failed =
            #"{"error":{"type":"errorStore","storeError":{"type":"dBException","message":"SQLite3 returned ErrorConstraint while attempting to perform step: UNIQUE constraint failed: "#
        await h.expect(#"/_create tag {"text":"Work"}"#, failed + #"chat_tags.user_id, chat_tags.chat_tag_text"}}}"#)
        await h.expect(
            #"/_create tag {"emoji":"💼","text":"Office"}"#, failed + #"chat_tags.user_id, chat_tags.chat_tag_emoji"}}}"#)
        await h.expect(#"/_update tag 2 {"text":"Friends"}"#, failed + #"chat_tags.user_id, chat_tags.chat_tag_text"}}}"#)
        let tags = await h.result("/_get tags 1", "chatTags")
        XCTAssertEqual(
            tags["userTags"]?.arrayValue?.compactMap { $0["chatTagText"]?.stringValue }, ["Work", "Family", "Friends"])
    }

    func testPreconditions() async throws {
        let h = try EngineHarness()
        await h.chatError(#"/_create tag {"text":"Work"}"#, "noActiveUser")
        await h.chatError("/_get tags 1", "noActiveUser")
        await h.createUser("alice")
        // Reading tags works before the chat starts; changing them does not.
        await h.result("/_get tags 1", "chatTags")
        await h.chatError(#"/_create tag {"text":"Work"}"#, "chatNotStarted")
        await h.chatError("/_reorder tags 1", "chatNotStarted")
        await h.result("/_start", "chatStarted")
        await h.chatError("/_get tags 2", "differentActiveUser")
    }

    func testSetTagsOnAGroup() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.result(#"/_group 1 {"displayName":"team","fullName":""}"#, "groupCreated")
        await h.result(#"/_create tag {"text":"Work"}"#, "chatTags")
        await h.result(#"/_create tag {"text":"Fun"}"#, "chatTags")
        let r = await h.result("/_tags #1 2,1,2", "tagsUpdated")
        XCTAssertEqual(r.keys, ["chatTags", "type", "user", "userTags"])
        XCTAssertEqual(r["chatTags"]?.arrayValue?.compactMap(\.integerValue), [1, 2])
        XCTAssertEqual(tagIds(r), [1, 2])
        let info = await h.result("/_info #1", "groupInfo")
        XCTAssertEqual(info["groupInfo"]?["chatTags"]?.arrayValue?.compactMap(\.integerValue), [1, 2])
        let none = await h.result("/_tags #1", "tagsUpdated")
        XCTAssertEqual(none["chatTags"]?.arrayValue?.count, 0)

        let unknown = await h.chatError("/_tags #1 7", "commandError")
        XCTAssertEqual(unknown["message"]?.stringValue, "chat tag not found: 7")
        await h.storeError("/_tags #5 1", "groupNotFound")
        await h.storeError("/_tags @5 1", "contactNotFound")
        let local = await h.chatError("/_tags *1 1", "commandError")
        XCTAssertEqual(local["message"]?.stringValue, "not supported")
        await h.chatError("/_tags #1(_support) 1", "commandError")
    }

    func testUpdateReorderAndDelete() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.result(#"/_group 1 {"displayName":"team","fullName":""}"#, "groupCreated")
        for text in ["A", "B", "C"] { await h.result(#"/_create tag {"text":"\#(text)"}"#, "chatTags") }
        await h.expect(
            #"/_update tag 2 {"emoji":"🏠","text":"Home"}"#, #"{"result":{"type":"cmdOk","user_":"# + UserCommandTests.alice + "}}"
        )
        var tags = await h.result("/_get tags 1", "chatTags")
        XCTAssertEqual(tags["userTags"]?.arrayValue?[1]["chatTagText"]?.stringValue, "Home")
        XCTAssertEqual(tags["userTags"]?.arrayValue?[1]["chatTagEmoji"]?.stringValue, "🏠")
        await h.result("/_reorder tags 3,1,2", "cmdOk")
        tags = await h.result("/_get tags 1", "chatTags")
        XCTAssertEqual(tagIds(tags), [3, 1, 2])
        // A new tag goes after the others.
        tags = await h.result(#"/_create tag {"text":"D"}"#, "chatTags")
        XCTAssertEqual(tagIds(tags), [3, 1, 2, 4])

        await h.result("/_tags #1 1,3", "tagsUpdated")
        await h.result("/_delete tag 3", "cmdOk")
        tags = await h.result("/_get tags 1", "chatTags")
        XCTAssertEqual(tagIds(tags), [1, 2, 4])
        let info = await h.result("/_info #1", "groupInfo")
        XCTAssertEqual(info["groupInfo"]?["chatTags"]?.arrayValue?.compactMap(\.integerValue), [1])
        // Ids that are not the user's change nothing.
        await h.result("/_delete tag 99", "cmdOk")
        await h.result(#"/_update tag 99 {"text":"X"}"#, "cmdOk")
        await h.chatError("/_update tag 1 {}", "commandError")
    }

    func testTagsBelongToTheirUser() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.result(#"/_create tag {"text":"Work"}"#, "chatTags")
        let bob = await h.createUser("bob")
        let tags = await h.result("/_get tags \(bob)", "chatTags")
        XCTAssertEqual(tagIds(tags), [])
        await h.result(#"/_group \#(bob) {"displayName":"team","fullName":""}"#, "groupCreated")
        await h.chatError("/_tags #1 1", "commandError")
        await h.result("/_delete tag 1", "cmdOk")
        await h.result("/_user 1", "activeUser")
        let alice = await h.result("/_get tags 1", "chatTags")
        XCTAssertEqual(tagIds(alice), [1])
    }
}
