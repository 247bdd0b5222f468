// swift-format-ignore-file
// Known answers of the chat protocol, copied into the repository (tests do not read outside it):
// `chatVectors` from the generated smp-vectors/chat.json; `haskellChatMessages` from simplex-chat tests/ProtocolTests.hs
// (decodeChatMessageTest: each string both decodes to its value and is what the encoder makes, compared as JSON values).

enum ChatVectors {
    static let singleObject = #"{"v":"1-16","msgId":"bGZZOEt1VnNlOHpEMks5Yg==","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"}}}"#
    static let jsonArrayBatch = #"[{"v":"1-16","msgId":"bGZZOEt1VnNlOHpEMks5Yg==","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"}}},{"v":"1-16","msgId":"bGZZOEt1VnNlOHpEMks5Yg==","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"}}}]"#
    static let compressedUncompressed = #"{"v":"1-16","event":"x.info","params":{"profile":{"displayName":"xxxxxxxxxx","fullName":"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"}}}"#
    static let compressedFrameHex = "580131005b28b52ffd60ed008d020062c40f1790a51a035c800d28bb96099b5076e6e2288bf966e73f9731c6dfaec03c5694c5cb5ded00748f516c0dcb0d25cbf558997486c1e54052a78f092290cb6e1805008c3825763ac32978cafc6d9532"
    static let passthroughFrameHex = "580130777b2276223a22312d3136222c226d73674964223a2262475a5a4f457431566e4e6c4f4870454d6b733559673d3d222c226576656e74223a22782e6d73672e6e6577222c22706172616d73223a7b22636f6e74656e74223a7b2274657874223a2268656c6c6f222c2274797065223a2274657874227d7d7d"
}

/// (test name, message): decoded and encoded both ways.
let haskellChatMessages: [(String, String)] = [
    ("x.msg.new simple text", #"{"v":"1","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"}}}"#),
    ("x.msg.new simple text - timed message TTL", #"{"v":"1","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"},"ttl":3600}}"#),
    ("x.msg.new simple text - live message", #"{"v":"1","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"},"live":true}}"#),
    ("x.msg.new simple link", #"{"v":"1","event":"x.msg.new","params":{"content":{"text":"https://simplex.chat","type":"link","preview":{"description":"SimpleX Chat","image":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgA","title":"SimpleX Chat","uri":"https://simplex.chat"}}}}"#),
    ("x.msg.new simple image", #"{"v":"1","event":"x.msg.new","params":{"content":{"text":"","type":"image","image":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAIAQMAAAD+wSzIAAAABlBMVEX///+/v7+jQ3Y5AAAADklEQVQI12P4AIX8EAgALgAD/aNpbtEAAAAASUVORK5CYII="}}}"#),
    ("x.msg.new simple image with text", #"{"v":"1","event":"x.msg.new","params":{"content":{"text":"here's an image","type":"image","image":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAIAQMAAAD+wSzIAAAABlBMVEX///+/v7+jQ3Y5AAAADklEQVQI12P4AIX8EAgALgAD/aNpbtEAAAAASUVORK5CYII="}}}"#),
    ("x.msg.new chat message", #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"}}}"#),
    ("x.msg.new chat message with chat version range", #"{"v":"1-5","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"}}}"#),
    ("x.msg.new quote", #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello to you too","type":"text"},"quote":{"content":{"text":"hello there!","type":"text"},"msgRef":{"msgId":"BQYHCA==","sent":true,"sentAt":"1970-01-01T00:00:01.000000001Z"}}}}"#),
    ("x.msg.new quote - timed message TTL", #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello to you too","type":"text"},"quote":{"content":{"text":"hello there!","type":"text"},"msgRef":{"msgId":"BQYHCA==","sent":true,"sentAt":"1970-01-01T00:00:01.000000001Z"}},"ttl":3600}}"#),
    ("x.msg.new quote - live message", #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello to you too","type":"text"},"quote":{"content":{"text":"hello there!","type":"text"},"msgRef":{"msgId":"BQYHCA==","sent":true,"sentAt":"1970-01-01T00:00:01.000000001Z"}},"live":true}}"#),
    ("x.msg.new forward", #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"},"forward":true}}"#),
    ("x.msg.new forward - timed message TTL", #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"},"forward":true,"ttl":3600}}"#),
    ("x.msg.new forward - live message", #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"},"forward":true,"live":true}}"#),
    ("x.msg.new simple text with file", #"{"v":"1","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"},"file":{"fileSize":12345,"fileName":"photo.jpg"}}}"#),
    ("x.msg.new simple file with file", #"{"v":"1","event":"x.msg.new","params":{"content":{"text":"","type":"file"},"file":{"fileSize":12345,"fileName":"file.txt"}}}"#),
    ("x.msg.new quote with file", #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello to you too","type":"text"},"quote":{"content":{"text":"hello there!","type":"text"},"msgRef":{"msgId":"BQYHCA==","sent":true,"sentAt":"1970-01-01T00:00:01.000000001Z"}},"file":{"fileSize":12345,"fileName":"photo.jpg"}}}"#),
    ("x.msg.new forward with file", #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"},"forward":true,"file":{"fileSize":12345,"fileName":"photo.jpg"}}}"#),
    ("x.msg.update", #"{"v":"1","event":"x.msg.update","params":{"msgId":"AQIDBA==", "content":{"text":"hello","type":"text"}}}"#),
    ("x.msg.del", #"{"v":"1","event":"x.msg.del","params":{"msgId":"AQIDBA=="}}"#),
    ("x.msg.deleted", #"{"v":"1","event":"x.msg.deleted","params":{}}"#),
    ("x.file.acpt", #"{"v":"1","event":"x.file.acpt","params":{"fileName":"photo.jpg"}}"#),
    ("x.file.cancel", #"{"v":"1","event":"x.file.cancel","params":{"msgId":"AQIDBA=="}}"#),
    ("x.info", #"{"v":"1","event":"x.info","params":{"profile":{"fullName":"Alice","displayName":"alice","image":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAIAQMAAAD+wSzIAAAABlBMVEX///+/v7+jQ3Y5AAAADklEQVQI12P4AIX8EAgALgAD/aNpbtEAAAAASUVORK5CYII=","preferences":{"reactions":{"allow":"yes"},"voice":{"allow":"yes"}}}}}"#),
    ("x.info with empty full name", #"{"v":"1","event":"x.info","params":{"profile":{"fullName":"","displayName":"alice","preferences":{"reactions":{"allow":"yes"},"voice":{"allow":"yes"}}}}}"#),
    ("x.contact with xContactId", #"{"v":"1","event":"x.contact","params":{"contactReqId":"AQIDBA==","profile":{"fullName":"Alice","displayName":"alice","image":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAIAQMAAAD+wSzIAAAABlBMVEX///+/v7+jQ3Y5AAAADklEQVQI12P4AIX8EAgALgAD/aNpbtEAAAAASUVORK5CYII=","preferences":{"reactions":{"allow":"yes"},"voice":{"allow":"yes"}}}}}"#),
    ("x.contact without XContactId", #"{"v":"1","event":"x.contact","params":{"profile":{"fullName":"Alice","displayName":"alice","image":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAIAQMAAAD+wSzIAAAABlBMVEX///+/v7+jQ3Y5AAAADklEQVQI12P4AIX8EAgALgAD/aNpbtEAAAAASUVORK5CYII=","preferences":{"reactions":{"allow":"yes"},"voice":{"allow":"yes"}}}}}"#),
    ("x.grp.acpt without incognito profile", #"{"v":"1","event":"x.grp.acpt","params":{"memberId":"AQIDBA=="}}"#),
    ("x.grp.mem.con", #"{"v":"1","event":"x.grp.mem.con","params":{"memberId":"AQIDBA=="}}"#),
    ("x.grp.leave", #"{"v":"1","event":"x.grp.leave","params":{}}"#),
    ("x.info.probe", #"{"v":"1","event":"x.info.probe","params":{"probe":"AQIDBA=="}}"#),
    ("x.info.probe.check", #"{"v":"1","event":"x.info.probe.check","params":{"probeHash":"AQIDBA=="}}"#),
    ("x.info.probe.ok", #"{"v":"1","event":"x.info.probe.ok","params":{"probe":"AQIDBA=="}}"#),
    ("x.ok", #"{"v":"1","event":"x.ok","params":{}}"#),
]

/// (test name, message): only decoded (`==#`).
let haskellParseOnlyChatMessages: [(String, String)] = [
    ("x.contact with content null", #"{"v":"1","event":"x.contact","params":{"content":null,"profile":{"fullName":"Alice","displayName":"alice","image":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAIAQMAAAD+wSzIAAAABlBMVEX///+/v7+jQ3Y5AAAADklEQVQI12P4AIX8EAgALgAD/aNpbtEAAAAASUVORK5CYII=","preferences":{"reactions":{"allow":"yes"},"voice":{"allow":"yes"}}}}}"#),
    ("x.contact with content (ignored)", #"{"v":"1","event":"x.contact","params":{"content":{"text":"hello","type":"text"},"profile":{"fullName":"Alice","displayName":"alice","image":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAIAQMAAAD+wSzIAAAABlBMVEX///+/v7+jQ3Y5AAAADklEQVQI12P4AIX8EAgALgAD/aNpbtEAAAAASUVORK5CYII=","preferences":{"reactions":{"allow":"yes"},"voice":{"allow":"yes"}}}}}"#),
]
