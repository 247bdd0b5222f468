import SimplexEncoding
import XCTest

@testable import ChatCore

/// Where the official core's encoders (custom `ToJSON` instances) write other JSON than its generated types describe:
/// the exact bytes, each with the Haskell instance that writes them.
final class OfficialEncoderTests: XCTestCase {
    /// `FileProtocol`'s `toJSON = J.String . textEncode` (Messages.hs): `smp`, `xftp`, `local`.
    func testFileProtocolIsWrittenInLowerCase() {
        XCTAssertEqual(FileProtocol.allCases.map(\.rawValue), ["smp", "xftp", "local"])
        let file = CIFile(
            fileId: 1, fileName: "a.txt", fileSize: 5, fileSource: CryptoFile(filePath: "a.txt", cryptoArgs: nil),
            fileStatus: "sndStored", fileProtocol: .local)
        XCTAssertEqual(
            String(decoding: file.jsonBytes, as: UTF8.self),
            #"{"fileId":1,"fileName":"a.txt","fileSize":5,"fileSource":{"filePath":"a.txt"},"fileStatus":{"type":"sndStored"},"fileProtocol":"local"}"#
        )
        // The store keeps its own upper-case spelling.
        XCTAssertEqual(FileProtocol(storeTag: "LOCAL"), .local)
        XCTAssertEqual(FileProtocol(storeTag: "XFTP"), .xftp)
        XCTAssertNil(FileProtocol(storeTag: "ftp"))
    }

    /// `AgentUserId`'s `toJSON = strToJSON` and `parseJSON = strParseJSON "AgentUserId"` (Types.hs): a string of
    /// decimal digits (`A.decimal`), never a number.
    func testAgentUserIdIsItsDecimalText() throws {
        XCTAssertEqual(String(decoding: AgentUserId(1).jsonBytes, as: UTF8.self), #""1""#)
        XCTAssertEqual(
            String(decoding: AgentUserId(9_223_372_036_854_775_807).jsonBytes, as: UTF8.self), #""9223372036854775807""#)
        XCTAssertEqual(try AgentUserId(json: .string("42")).value, 42)
        XCTAssertThrowsError(try AgentUserId(json: .integer(1))) { XCTAssertEqual($0 as? AgentUserId.ParseError, .notAString) }
        for text in ["", "-1", "+1", " 1", "1 ", "0x1", "١", "9223372036854775808"] {
            XCTAssertThrowsError(try AgentUserId(json: .string(text)), text) {
                XCTAssertEqual($0 as? AgentUserId.ParseError, .notDecimal(text))
            }
        }
    }

    /// `SharedMsgId` and `MemberId`: `encodedRandomBytes gVar 12` (Store/Shared.hs, `B64.encode`: the standard
    /// alphabet) makes the id, `strToJSON` (`strEncode` of a ByteString: `U.encode`, base64url with padding) writes it.
    func testRandomIdsAreEncodedTwice() throws {
        // The example the official core wrote.
        let seen = SharedMsgId(bytes: Array("0B5CLrOIlU7dK6ic".utf8))
        XCTAssertEqual(String(decoding: seen.jsonBytes, as: UTF8.self), #""MEI1Q0xyT0lsVTdkSzZpYw==""#)
        // 12 random bytes whose base64 has the standard alphabet's own characters.
        let random: [UInt8] = [0xfb, 0xef, 0xff, 0, 1, 2, 3, 4, 5, 6, 7, 8]
        let made = SharedMsgId(random: random)
        XCTAssertEqual(made.bytes, Array("++//AAECAwQFBgcI".utf8))
        XCTAssertEqual(made.jsonText, "KysvL0FBRUNBd1FGQmdjSQ==")
        XCTAssertEqual(MemberId(random: random).jsonText, "KysvL0FBRUNBd1FGQmdjSQ==")
        XCTAssertEqual(MemberId(random: random).storeText, "++//AAECAwQFBgcI")
        // The parser is `base64urlP`: padded or not, the URL alphabet only.
        XCTAssertEqual(try SharedMsgId(jsonText: "MEI1Q0xyT0lsVTdkSzZpYw=="), seen)
        XCTAssertEqual(try SharedMsgId(jsonText: "MEI1Q0xyT0lsVTdkSzZpYw"), seen)
        XCTAssertEqual(try MemberId(json: .string("MEI1Q0xyT0lsVTdkSzZpYw==")).bytes, seen.bytes)
        XCTAssertEqual(try SharedMsgId(jsonText: "-_8="), SharedMsgId(bytes: [0xfb, 0xff]))
        for text in ["", "==", "+/8=", "MEI1 Q0xy", "MEI1Q0xyT0lsVTdkSzZpYw=x"] {
            XCTAssertThrowsError(try SharedMsgId(jsonText: text), text) {
                XCTAssertEqual($0 as? EncodedRandomIdError, .notBase64URL(text))
            }
        }
        XCTAssertThrowsError(try MemberId(json: .integer(1))) { XCTAssertEqual($0 as? EncodedRandomIdError, .notAString) }
    }

    /// `ChatItemVersion` (Messages.hs) has `formattedText = parseMaybeMarkdownList $ msgContentText mc`, left out when
    /// the text has no markdown.
    func testItemVersionsCarryTheMarkdownOfTheirText() {
        let t = UTCTime(seconds: 1_748_770_212)
        let marked = ChatItemVersion(chatItemVersionId: 2, msgContent: .text("hi *you*"), itemVersionTs: t, createdAt: t)
        XCTAssertEqual(
            marked.json.rendered,
            #"{"chatItemVersionId":2,"msgContent":{"type":"text","text":"hi *you*"},"formattedText":[{"text":"hi "},{"format":{"type":"bold"},"text":"you"}],"itemVersionTs":"2025-06-01T09:30:12Z","createdAt":"2025-06-01T09:30:12Z"}"#
        )
        let plain = ChatItemVersion(chatItemVersionId: 1, msgContent: .text("hi"), itemVersionTs: t, createdAt: t)
        XCTAssertEqual(
            plain.json.rendered,
            #"{"chatItemVersionId":1,"msgContent":{"type":"text","text":"hi"},"itemVersionTs":"2025-06-01T09:30:12Z","createdAt":"2025-06-01T09:30:12Z"}"#
        )
    }

    /// `CIQuote` (Messages.hs) has the quoted text's markdown as `formattedText`, left out for plain text; an unknown
    /// sender is `"chatDir":null` (`CIQDirection`'s encoder).
    func testQuotesCarryTheMarkdownOfTheQuotedText() {
        let t = UTCTime(seconds: 1_748_770_212)
        let quote = CIQuote(
            chatDir: nil, itemId: 1, sharedMsgId: SharedMsgId(bytes: Array("0B5CLrOIlU7dK6ic".utf8)), sentAt: t,
            content: .text("hi *you*"))
        XCTAssertEqual(
            String(decoding: quote.jsonBytes, as: UTF8.self),
            #"{"chatDir":null,"itemId":1,"sharedMsgId":"MEI1Q0xyT0lsVTdkSzZpYw==","sentAt":"2025-06-01T09:30:12Z","content":{"type":"text","text":"hi *you*"},"formattedText":[{"text":"hi "},{"format":{"type":"bold"},"text":"you"}]}"#
        )
        var plain = quote
        plain.content = .text("hi")
        XCTAssertFalse(String(decoding: plain.jsonBytes, as: UTF8.self).contains("formattedText"))
    }
}
