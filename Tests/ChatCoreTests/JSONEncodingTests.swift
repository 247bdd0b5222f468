import ChatCore
import SimplexEncoding
import XCTest

/// The JSON conventions of chat-api.md §2 and the envelopes of §1.2.
final class JSONEncodingTests: XCTestCase {
    func testUTCTimeFormat() {
        XCTAssertEqual(UTCTime(seconds: 1_748_770_212, nanoseconds: 123_456_000).iso8601, "2025-06-01T09:30:12.123456Z")
        XCTAssertEqual(UTCTime(seconds: 1_748_770_212).iso8601, "2025-06-01T09:30:12Z")
        XCTAssertEqual(UTCTime(seconds: 1_748_770_212, nanoseconds: 500_000_000).iso8601, "2025-06-01T09:30:12.5Z")
        XCTAssertEqual(UTCTime(seconds: 0, nanoseconds: 1).iso8601, "1970-01-01T00:00:00.000000001Z")
        XCTAssertEqual(UTCTime(seconds: 951_782_400).iso8601, "2000-02-29T00:00:00Z")
        XCTAssertEqual(UTCTime(seconds: -1).iso8601, "1969-12-31T23:59:59Z")
        XCTAssertEqual(UTCTime(seconds: 0, nanoseconds: 120_000_000).iso8601, "1970-01-01T00:00:00.12Z")
        XCTAssertEqual(UTCTime(seconds: 253_402_300_799, nanoseconds: 999_999_999).iso8601, "9999-12-31T23:59:59.999999999Z")
        // Past four digits of year, the year takes the digits it needs.
        XCTAssertEqual(UTCTime(seconds: 253_402_300_800).iso8601, "10000-01-01T00:00:00Z")
    }

    /// Values that write their own JSON give the text their tree would, nested in trees or not.
    func testWrittenJSONMatchesTheTreeForm() {
        for time in [
            UTCTime(seconds: 1_748_770_212, nanoseconds: 123_456_000), UTCTime(seconds: -1),
            UTCTime(seconds: 253_402_300_800),
        ] {
            XCTAssertEqual(String(decoding: time.jsonBytes, as: UTF8.self), "\"\(time.iso8601)\"")
        }
        // A time written again is copied from its first writing, whatever came between.
        let (t1, t2) = (UTCTime(seconds: 1_748_770_212, nanoseconds: 5), UTCTime(seconds: 1_748_770_213))
        var w = JSONWriter(capacity: 8)
        w.beginArray()
        for t in [t1, t1, t2, t1, t1] { w.value(t) }
        w.endArray()
        let (s1, s2) = ("\"\(t1.iso8601)\"", "\"\(t2.iso8601)\"")
        XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), "[\(s1),\(s1),\(s2),\(s1),\(s1)]")
        let content = CIContent.sndMsgContent(.text("say \"hi\"\n"))
        let expected = #"{"type":"sndMsgContent","msgContent":{"type":"text","text":"say \"hi\"\n"}}"#
        XCTAssertEqual(String(decoding: content.jsonBytes, as: UTF8.self), expected)
        let tree = JSONValue.array([.integer(1), content.json, .object([JSONField("a", content.json)]), .null])
        XCTAssertEqual(tree.rendered, "[1,\(expected),{\"a\":\(expected)},null]")
        XCTAssertEqual(content.json["msgContent"]?["text"]?.stringValue, "say \"hi\"\n")
        XCTAssertEqual(content.json, CIContent.sndMsgContent(.text("say \"hi\"\n")).json)
        XCTAssertNotEqual(content.json, CIContent.rcvMsgContent(.text("say \"hi\"\n")).json)
        var stats = ChatStats.none
        stats.unreadCount = 2
        stats.minUnreadItemId = -3
        stats.unreadChat = true
        XCTAssertEqual(
            stats.json.rendered,
            #"{"unreadCount":2,"unreadMentions":0,"reportsCount":0,"minUnreadItemId":-3,"unreadChat":true}"#)
    }

    func testIntegersRenderInDecimal() {
        let values: [Int64] = [0, 7, -7, 10, 1_000_000, .max, .min]
        XCTAssertEqual(
            JSONValue.array(values.map(JSONValue.integer)).rendered,
            "[0,7,-7,10,1000000,9223372036854775807,-9223372036854775808]")
    }

    func testUTCTimeParsing() {
        for text in ["2025-06-01T09:30:12.123456Z", "2025-06-01T09:30:12Z", "2000-02-29T00:00:00Z", "2025-06-01T09:30:12.5Z"] {
            XCTAssertEqual(UTCTime(iso8601: text)?.iso8601, text)
        }
        XCTAssertEqual(UTCTime(iso8601: "2025-06-01T11:30:12+02:00")?.iso8601, "2025-06-01T09:30:12Z")
        XCTAssertEqual(UTCTime(iso8601: "2025-06-01 09:30:12")?.iso8601, "2025-06-01T09:30:12Z")
        for bad in ["", "2025-06-01", "2025-13-01T00:00:00Z", "2025-06-01T09:30:12.Z", "2025-06-01T09:30:12Zx"] {
            XCTAssertNil(UTCTime(iso8601: bad), bad)
        }
    }

    func testRecordsKeepFieldOrderAndOmitAbsentOptionals() {
        var profile = Profile(displayName: "alice", fullName: "Alice \"A\"\n")
        profile.image = "data:image/png;base64,AA=="
        XCTAssertEqual(
            profile.json.rendered, #"{"displayName":"alice","fullName":"Alice \"A\"\n","image":"data:image/png;base64,AA=="}"#)
        XCTAssertEqual(
            ChatStats.none.json.rendered,
            #"{"unreadCount":0,"unreadMentions":0,"reportsCount":0,"minUnreadItemId":0,"unreadChat":false}"#)
    }

    func testTaggedObjectsAndEnvelopes() {
        XCTAssertEqual(EnvelopeJSON(.success(.chatStarted)).text, #"{"result":{"type":"chatStarted"}}"#)
        XCTAssertEqual(EnvelopeJSON(.success(.cmdOk(user: nil))).text, #"{"result":{"type":"cmdOk"}}"#)
        XCTAssertEqual(ChatEvent.chatSuspended.json.rendered, #"{"type":"chatSuspended"}"#)
        XCTAssertEqual(
            EnvelopeJSON(.failure(NetworkRefusal.notServed(.apiGetChat))).text,
            #"{"error":{"type":"error","errorType":{"type":"commandError","message":"not served by the embedded core yet: apiGetChat"}}}"#
        )
    }

    func testClientObjectsKeepAesonKeyOrder() throws {
        let value = JSONValue.object([JSONField("z", .integer(1)), JSONField("a", .string("é\u{1}"))])
        XCTAssertEqual(value.rendered, "{\"z\":1,\"a\":\"é\\u0001\"}")
        XCTAssertEqual(value["a"]?.stringValue, "é\u{1}")
        XCTAssertEqual(value.keys, ["z", "a"])
    }

    func testInt64IdsAreJSONNumbers() {
        XCTAssertEqual(JSONValue.integer(Int64.max).rendered, "9223372036854775807")
    }
}
