import ChatCore
import SimplexEncoding
import XCTest

/// Items carry the markdown of their text (chat-api.md §7.19 `formattedText`, §7.20 `hasLink`).
final class ItemMarkdownTests: XCTestCase {
    static let t = NoteItemTests.t

    static func note(_ id: Int, _ text: String, hasLink: Bool, formattedText: String) -> String {
        #"{"chatDir":{"type":"localSnd"},"meta":{"itemId":\#(id),"itemTs":"\#(t)","itemText":"\#(text)","itemStatus":{"type":"sndNew"},"itemEdited":false,"userMention":false,"hasLink":\#(hasLink),"deletable":true,"editable":true,"showGroupAsSender":false,"createdAt":"\#(t)","updatedAt":"\#(t)"},"content":{"type":"sndMsgContent","msgContent":{"type":"text","text":"\#(text)"}},"mentions":{},"formattedText":\#(formattedText),"reactions":[]}"#
    }

    func testAnItemWithMarkdownCarriesItsFormattedText() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.expect(
            "/_create *1 text hi *you*",
            #"{"result":{"type":"newChatItems","user":"# + UserCommandTests.alice + #","chatItems":[{"chatInfo":"#
                + NoteItemTests.folder + #","chatItem":"#
                + Self.note(
                    1, "hi *you*", hasLink: false, formattedText: #"[{"text":"hi "},{"format":{"type":"bold"},"text":"you"}]"#)
                + "}]}}")
    }

    func testAnItemWithALinkHasLink() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let r = await h.result("/_create *1 text see https://simplex.chat", "newChatItems")
        let item = r["chatItems"]?.arrayValue?.first?["chatItem"]
        XCTAssertEqual(item?["meta"]?["hasLink"]?.boolValue, true)
        XCTAssertEqual(item?["formattedText"]?.arrayValue?.last?["format"]?["type"]?.stringValue, "uri")
        // Plain text: no formattedText, no link.
        let plain = await h.result("/_create *1 text just words", "newChatItems")
        let plainItem = plain["chatItems"]?.arrayValue?.first?["chatItem"]
        XCTAssertNil(plainItem?["formattedText"])
        XCTAssertEqual(plainItem?["meta"]?["hasLink"]?.boolValue, false)
    }
}
