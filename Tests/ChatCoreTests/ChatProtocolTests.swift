import Foundation
import SimplexEncoding
import TestSupport
import XCTest

@testable import ChatCore

/// The direct-chat protocol (smp.md §6): the message container, events and body framings, bytes in and bytes out.
final class ChatProtocolTests: XCTestCase {
    private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    private func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(i, offsetBy: 2)
            out.append(UInt8(s[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    private func hexText(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }

    private func one(_ body: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> ChatMessage {
        let results = MessageBody.parse(body)
        XCTAssertEqual(results.count, 1, file: file, line: line)
        return try XCTUnwrap(results.first).get()
    }

    private func canonical(_ b: [UInt8]) throws -> CanonicalJSON { try CanonicalJSON.parse(b) }

    // MARK: chat.json

    func testSingleObjectVector() throws {
        let m = try one(bytes(ChatVectors.singleObject))
        XCTAssertEqual(m.chatVRange, ChatVersionRange(minVersion: 1, maxVersion: 16))
        XCTAssertEqual(m.msgId?.jsonText, "bGZZOEt1VnNlOHpEMks5Yg==")
        XCTAssertEqual(m.msgId.map { String(decoding: $0.bytes, as: UTF8.self) }, "lfY8KuVse8zD2K9b")
        XCTAssertEqual(m.event, .msgNew(MsgContainer(content: .text("hello"))))
        XCTAssertEqual(String(decoding: try MessageBody.encode(m), as: UTF8.self), ChatVectors.singleObject)
    }

    func testJSONArrayBatchVector() throws {
        let results = MessageBody.parse(bytes(ChatVectors.jsonArrayBatch))
        XCTAssertEqual(results.count, 2)
        let messages = try results.map { try $0.get() }
        let (bodies, failures) = MessageBody.bodies(messages, peerVersion: 16)
        XCTAssertTrue(failures.isEmpty)
        XCTAssertEqual(bodies.map(\.messages), [[0, 1]])
        XCTAssertEqual(String(decoding: bodies[0].bytes, as: UTF8.self), ChatVectors.jsonArrayBatch)
    }

    func testCompressedFrameVector() throws {
        let m = try one(hex(ChatVectors.compressedFrameHex))
        guard case .info(let profile) = m.event else { return XCTFail("expected x.info, got \(m.event)") }
        XCTAssertEqual(profile.displayName, "xxxxxxxxxx")
        XCTAssertNil(m.msgId)
        XCTAssertEqual(String(decoding: m.encoded, as: UTF8.self), ChatVectors.compressedUncompressed)
        // Our frame of the same body reads back to the same message.
        let ours = try MessageBody.compressed(bytes(ChatVectors.compressedUncompressed))
        XCTAssertEqual(Array(ours.prefix(3)), [UInt8(ascii: "X"), 1, UInt8(ascii: "1")])
        XCTAssertEqual(try one(ours), m)
    }

    func testPassthroughFrameVector() throws {
        let m = try one(hex(ChatVectors.passthroughFrameHex))
        XCTAssertEqual(m, try one(bytes(ChatVectors.singleObject)))
        XCTAssertEqual(hexText(try MessageBody.compressed(bytes(ChatVectors.singleObject))), ChatVectors.passthroughFrameHex)
    }

    // MARK: ProtocolTests.hs

    func testHaskellMessagesBothWays() throws {
        for (name, text) in haskellChatMessages {
            let m: ChatMessage
            do { m = try one(bytes(text)) } catch {
                XCTFail("\(name): \(error)")
                continue
            }
            XCTAssertEqual(try canonical(m.encoded), try canonical(bytes(text)), name)
            // What we wrote reads back to the same value.
            XCTAssertEqual(try one(m.encoded), m, name)
        }
    }

    func testHaskellParseOnlyMessages() throws {
        for (name, text) in haskellParseOnlyChatMessages {
            let m = try one(bytes(text))
            guard case .contact(let request) = m.event else {
                XCTFail("\(name): \(m.event)")
                continue
            }
            XCTAssertNil(request.requestMsg, name)
            XCTAssertNil(request.contactReqId, name)
            XCTAssertEqual(request.profile.displayName, "alice", name)
        }
    }

    func testHaskellValuesDecoded() throws {
        let quote = try one(bytes(haskellChatMessages.first { $0.0 == "x.msg.new quote - timed message TTL" }!.1))
        XCTAssertEqual(quote.msgId?.bytes, [1, 2, 3, 4])
        XCTAssertEqual(quote.chatVRange, .initial)
        guard case .msgNew(let c) = quote.event, case .quote(let q) = c.kind else { return XCTFail("\(quote.event)") }
        XCTAssertEqual(c.ttl, 3600)
        XCTAssertEqual(c.content, .text("hello to you too"))
        XCTAssertEqual(
            q.msgRef, MsgRef(msgId: SharedMsgId(bytes: [5, 6, 7, 8]), sentAt: UTCTime(seconds: 1, nanoseconds: 1), sent: true))
        XCTAssertEqual(q.content, .text("hello there!"))

        let range = try one(bytes(haskellChatMessages.first { $0.0 == "x.msg.new chat message with chat version range" }!.1))
        XCTAssertEqual(range.chatVRange, ChatVersionRange(minVersion: 1, maxVersion: 5))

        let forward = try one(bytes(haskellChatMessages.first { $0.0 == "x.msg.new forward - live message" }!.1))
        guard case .msgNew(let f) = forward.event else { return XCTFail() }
        XCTAssertEqual(f.kind, .forward)
        XCTAssertEqual(f.live, true)

        let probe = try one(bytes(#"{"v":"1","event":"x.info.probe.check","params":{"probeHash":"AQIDBA=="}}"#))
        XCTAssertEqual(probe.event, .infoProbeCheck(WireBytes(bytes: [1, 2, 3, 4])))
        let del = try one(bytes(#"{"v":"1","event":"x.msg.del","params":{"msgId":"AQIDBA=="}}"#))
        XCTAssertEqual(del.event, .msgDel(msgId: SharedMsgId(bytes: [1, 2, 3, 4]), memberId: nil, scope: nil))
        let unknown = try one(bytes(#"{"v":"1","event":"x.grp.leave","params":{}}"#))
        XCTAssertEqual(unknown.event, .unknown(event: "x.grp.leave", params: .object([:])))
    }

    // MARK: Field order and omitted fields

    /// The container in its record order; params with aeson's sorted keys at every depth, absent fields left out.
    func testOfficialFieldOrder() throws {
        var container = MsgContainer(
            content: .link(
                text: "see",
                preview: try LinkPreview(JSONInput(canonical(bytes(#"{"uri":"u","title":"t","description":"d","image":"i"}"#))))),
            kind: .quote(
                QuotedMsg(
                    msgRef: MsgRef(
                        msgId: SharedMsgId(bytes: [5, 6, 7, 8]), sentAt: UTCTime(seconds: 1, nanoseconds: 1), sent: false),
                    content: .text("q"))),
            ttl: 60, live: true)
        container.mentions = ["bob": MemberId(bytes: [1])]
        let m = ChatMessage(msgId: SharedMsgId(bytes: [1, 2, 3, 4]), event: .msgNew(container))
        XCTAssertEqual(
            String(decoding: m.encoded, as: UTF8.self),
            #"{"v":"1-9","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"preview":{"description":"d","image":"i","title":"t","uri":"u"},"text":"see","type":"link"},"live":true,"mentions":{"bob":{"memberId":"AQ=="}},"quote":{"content":{"text":"q","type":"text"},"msgRef":{"msgId":"BQYHCA==","sent":false,"sentAt":"1970-01-01T00:00:01.000000001Z"}},"ttl":60}}"#
        )
        let react = ChatMessage(
            chatVRange: .initial, event: .msgReact(MsgReact(msgId: SharedMsgId(bytes: [1]), reaction: .emoji("👍"), add: true)))
        XCTAssertEqual(
            String(decoding: react.encoded, as: UTF8.self),
            #"{"v":"1","event":"x.msg.react","params":{"add":true,"msgId":"AQ==","reaction":{"emoji":"👍","type":"emoji"}}}"#)
        var request = ContactRequest(profile: Profile(displayName: "bob"), contactReqId: WireBytes(bytes: [9]))
        request.requestMsg = (SharedMsgId(bytes: [2]), .text("hi"))
        XCTAssertEqual(
            String(decoding: ChatMessage(event: .contact(request)).encoded, as: UTF8.self),
            #"{"v":"1-9","event":"x.contact","params":{"contactReqId":"CQ==","content":{"text":"hi","type":"text"},"msgId":"Ag==","profile":{"displayName":"bob","fullName":""}}}"#
        )
        XCTAssertEqual(
            String(decoding: ChatMessage(event: .directDel).encoded, as: UTF8.self),
            #"{"v":"1-9","event":"x.direct.del","params":{}}"#)
    }

    func testUnknownContentAndEventsKept() throws {
        let text =
            #"{"v":"1-16","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"type":"poll","text":"pick","options":["a","b"]}}}"#
        let m = try one(bytes(text))
        guard case .msgNew(let c) = m.event, case .unknown(let tag, let t, _) = c.content else { return XCTFail("\(m.event)") }
        XCTAssertEqual(tag, "poll")
        XCTAssertEqual(t, "pick")
        XCTAssertEqual(try canonical(m.encoded), try canonical(bytes(text)))

        let future = #"{"v":"1-20","event":"x.future.thing","params":{"z":1,"a":{"y":2,"b":3}}}"#
        let f = try one(bytes(future))
        XCTAssertEqual(f.event.tag, "x.future.thing")
        XCTAssertEqual(
            String(decoding: f.encoded, as: UTF8.self),
            #"{"v":"1-20","event":"x.future.thing","params":{"a":{"b":3,"y":2},"z":1}}"#)
    }

    func testReactionsOutsideTheAllowedEmojiAreUnknown() throws {
        func reaction(_ json: String) throws -> MsgReaction {
            let m = try one(
                bytes(#"{"v":"1","event":"x.msg.react","params":{"msgId":"AQ==","add":true,"reaction":"# + json + "}}"))
            guard case .msgReact(let r) = m.event else { throw PeerFailure("not a reaction") }
            return r.reaction
        }
        XCTAssertEqual(try reaction(#"{"type":"emoji","emoji":"🚀"}"#), .emoji("🚀"))
        XCTAssertEqual(try reaction(#"{"type":"emoji","emoji":"❤"}"#), .emoji("❤"))
        guard case .unknown(let tag, _) = try reaction(#"{"type":"emoji","emoji":"🦄"}"#) else { return XCTFail() }
        XCTAssertEqual(tag, "emoji")
        guard case .unknown = try reaction(#"{"type":"emoji","emoji":"👍👍"}"#) else { return XCTFail() }
        guard case .unknown("sticker", _) = try reaction(#"{"type":"sticker","id":7}"#) else { return XCTFail() }
    }

    func testNotificationAndReceiptFlags() {
        XCTAssertTrue(ChatMsgEvent.hasNotification("x.msg.new"))
        XCTAssertTrue(ChatMsgEvent.hasNotification("x.contact"))
        XCTAssertFalse(ChatMsgEvent.hasNotification("x.msg.update"))
        XCTAssertTrue(ChatMsgEvent.hasDeliveryReceipt("x.msg.new"))
        XCTAssertFalse(ChatMsgEvent.hasDeliveryReceipt("x.msg.react"))
    }

    // MARK: Versions

    func testVersionRanges() throws {
        XCTAssertEqual(try ChatVersionRange(parsing: "1-16"), ChatVersionRange(minVersion: 1, maxVersion: 16))
        XCTAssertEqual(try ChatVersionRange(parsing: "3"), ChatVersionRange(minVersion: 3, maxVersion: 3))
        XCTAssertEqual(ChatVersionRange(minVersion: 2, maxVersion: 2).text, "2")
        XCTAssertEqual(ChatVersionRange.advertised.text, "1-9")
        for bad in ["", "-", "1-", "-3", "16-1", "a", "1-2-3", "70000", " 1", "1 "] {
            XCTAssertEqual(thrown { try ChatVersionRange(parsing: bad) } as? ChatProtocolError, .badVersionRange(bad), bad)
        }
        let ours = ChatVersionRange.advertised
        XCTAssertEqual(ours.agreedVersion(with: ChatVersionRange(minVersion: 1, maxVersion: 16)), 9)
        XCTAssertEqual(ours.agreedVersion(with: ChatVersionRange(minVersion: 1, maxVersion: 5)), 5)
        XCTAssertNil(ours.agreedVersion(with: ChatVersionRange(minVersion: 10, maxVersion: 16)))
        // No `v`, or `null`: the initial range.
        XCTAssertEqual(try one(bytes(#"{"event":"x.ok","params":{}}"#)).chatVRange, .initial)
        XCTAssertEqual(try one(bytes(#"{"v":null,"event":"x.ok","params":{}}"#)).chatVRange, .initial)
    }

    // MARK: Sending

    func text(_ n: Int, _ i: Int = 0) -> ChatMessage {
        ChatMessage(
            msgId: SharedMsgId(random: Array(repeating: UInt8(i & 0xFF), count: 12)),
            event: .msgNew(MsgContainer(content: .text(String(repeating: "a", count: n)))))
    }

    func testBatchesFollowThePeersVersion() throws {
        let messages = (0..<3).map { text(10, $0) }
        let old = MessageBody.bodies(messages, peerVersion: 8)
        XCTAssertEqual(old.bodies.map(\.messages), [[0], [1], [2]])
        XCTAssertEqual(old.bodies[0].bytes.first, UInt8(ascii: "{"))
        let new = MessageBody.bodies(messages, peerVersion: 9)
        XCTAssertEqual(new.bodies.map(\.messages), [[0, 1, 2]])
        XCTAssertEqual(try MessageBody.parse(new.bodies[0].bytes).map { try $0.get() }, messages)
    }

    func testBatchesSplitAtTheLimitAndRefuseOversizedMessages() throws {
        let messages = (0..<6).map { text(5_000, $0) } + [text(16_000, 6), text(10, 7)]
        let (bodies, failures) = MessageBody.bodies(messages, peerVersion: 16)
        XCTAssertEqual(failures.map(\.index), [6])
        guard case .tooLarge(let size, MessageBody.maxEncodedMsgLength) = failures[0].error else { return XCTFail() }
        XCTAssertGreaterThan(size, 16_000)
        XCTAssertEqual(bodies.flatMap(\.messages), [0, 1, 2, 3, 4, 5, 7])
        for body in bodies { XCTAssertLessThanOrEqual(body.bytes.count, MessageBody.maxEncodedMsgLength) }
        // No array spans the refused message; the last ones fill an array first.
        XCTAssertEqual(bodies.map(\.messages), [[0, 1, 2], [3, 4, 5], [7]])
        let read = try bodies.flatMap { try MessageBody.parse($0.bytes).map { try $0.get() } }
        XCTAssertEqual(read, [0, 1, 2, 3, 4, 5, 7].map { messages[$0] })
    }

    func testCompressionOnlyOnPostQuantumConnectionsAndLargeBodies() throws {
        let big = text(14_000)
        XCTAssertEqual(MessageBody.bodies([big], peerVersion: 16).bodies[0].bytes.first, UInt8(ascii: "{"))
        let pq = MessageBody.bodies([big], peerVersion: 16, pqEncrypted: true).bodies[0].bytes
        XCTAssertEqual(pq.first, UInt8(ascii: "X"))
        XCTAssertLessThan(pq.count, 1_000)
        XCTAssertEqual(try one(pq), big)
        XCTAssertEqual(MessageBody.bodies([big], peerVersion: 7, pqEncrypted: true).bodies[0].bytes.first, UInt8(ascii: "{"))
        XCTAssertEqual(
            MessageBody.bodies([text(100)], peerVersion: 16, pqEncrypted: true).bodies[0].bytes.first, UInt8(ascii: "{"))

        let info = ChatMessage(event: .info(Profile(displayName: "alice", fullName: String(repeating: "A", count: 11_000))))
        XCTAssertEqual(try MessageBody.connInfo(info, pqEncrypted: false).first, UInt8(ascii: "{"))
        XCTAssertEqual(try MessageBody.connInfo(info, pqEncrypted: true).first, UInt8(ascii: "X"))
        let huge = ChatMessage(event: .info(Profile(displayName: "alice", fullName: String(repeating: "A", count: 15_000))))
        guard
            case .tooLarge(_, MessageBody.maxEncodedInfoLength)? = thrown({ try MessageBody.connInfo(huge, pqEncrypted: false) })
                as? ChatProtocolError
        else { return XCTFail() }
    }

    // MARK: Bad input

    func testTypedErrors() throws {
        func failure(_ body: [UInt8]) -> ChatProtocolError? {
            let r = MessageBody.parse(body)
            guard r.count == 1, case .failure(let e) = r[0] else { return nil }
            return e
        }
        XCTAssertEqual(failure([]), .emptyBody)
        XCTAssertEqual(failure(bytes("F\u{1}abc")), .unsupportedFraming(UInt8(ascii: "F")))
        XCTAssertEqual(failure(bytes("=\u{1}")), .unsupportedFraming(UInt8(ascii: "=")))
        XCTAssertEqual(failure(bytes("X")), .badCompressedList("no item count"))
        XCTAssertEqual(failure([UInt8(ascii: "X"), 0]), .badCompressedList("empty list"))
        XCTAssertEqual(failure([UInt8(ascii: "X"), 1, UInt8(ascii: "2")]), .badCompressedList("bad item tag 50"))
        XCTAssertEqual(
            failure([UInt8(ascii: "X"), 1, UInt8(ascii: "0"), 5, 1]), .badCompressedList("item shorter than its length"))
        XCTAssertEqual(
            failure([UInt8(ascii: "X"), 1, UInt8(ascii: "0"), 0, 1]), .badCompressedList("1 bytes after the last item"))
        XCTAssertEqual(failure([UInt8(ascii: "X"), 1, UInt8(ascii: "0"), 0]), .emptyBody)
        XCTAssertEqual(
            failure([UInt8(ascii: "X"), 1, UInt8(ascii: "0"), 2] + bytes("X1")), .unsupportedFraming(UInt8(ascii: "X")))
        guard case .badCompressedItem? = failure([UInt8(ascii: "X"), 1, UInt8(ascii: "1"), 0, 3, 1, 2, 3]) else {
            return XCTFail()
        }
        guard case .badJSON? = failure(bytes("{\"v\":")) else { return XCTFail() }
        guard case .badJSON? = failure(bytes("[1,")) else { return XCTFail() }
        guard case .badMessage? = failure(bytes(#"{"v":"1","params":{}}"#)) else { return XCTFail() }
        guard case .badMessage? = failure(bytes(#"{"v":"1","event":"x.ok","params":[]}"#)) else { return XCTFail() }
        guard case .badMessage? = failure(bytes(#"{"v":"1","event":"x.msg.del","params":{"msgId":"!!"}}"#)) else {
            return XCTFail()
        }
        guard case .badMessage? = failure(bytes(#"{"v":"1","event":"x.msg.new","params":{"content":{"type":"text"}}}"#))
        else { return XCTFail() }
        XCTAssertEqual(failure(bytes(#"{"v":"2-1","event":"x.ok","params":{}}"#)), .badVersionRange("2-1"))
        // A zstd frame that declares more than 64 KiB.
        let bomb = try MessageBody.compressed(Array(repeating: UInt8(ascii: "{"), count: 70_000))
        guard case .badCompressedItem? = failure(bomb) else { return XCTFail() }
        // One bad element of a batch does not lose the others.
        let mixed = MessageBody.parse(
            bytes(#"[{"v":"1","event":"x.ok","params":{}},{"event":3},{"v":"1","event":"x.direct.del","params":{}}]"#))
        XCTAssertEqual(mixed.count, 3)
        XCTAssertEqual(try mixed[0].get().event, .ok)
        XCTAssertThrowsError(try mixed[1].get())
        XCTAssertEqual(try mixed[2].get().event, .directDel)
    }

    /// 1,000 random corruptions of valid bodies of each framing: every one is read or refused, none traps.
    func testRandomCorruptionsNeverTrap() throws {
        var rng = SeededGenerator(seed: 17)
        let seeds: [[UInt8]] = [
            bytes(ChatVectors.singleObject), bytes(ChatVectors.jsonArrayBatch), hex(ChatVectors.compressedFrameHex),
            hex(ChatVectors.passthroughFrameHex), bytes(haskellChatMessages[8].1), bytes(haskellChatMessages[23].1),
        ]
        var read = 0
        for i in 0..<1_000 {
            var body = seeds[i % seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: body[Int.random(in: 0..<body.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                case 1: body = Array(body.prefix(Int.random(in: 0...body.count, using: &rng)))
                case 2: body.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...body.count, using: &rng))
                default: if !body.isEmpty { body.remove(at: Int.random(in: 0..<body.count, using: &rng)) }
                }
                if body.isEmpty { break }
            }
            for case .success(let m) in MessageBody.parse(body) {
                read += 1
                _ = MessageBody.parse(m.encoded)
            }
        }
        XCTAssertGreaterThan(read, 0)
    }

    // MARK: Independent check of the compressed framing

    private func peer(_ args: [String]) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Python.interpreter())
        process.arguments = [Python.script("Tests/Peers/chat_body_peer.py")] + args
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PeerFailure("chat_body_peer.py failed: " + String(decoding: errors, as: UTF8.self))
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Python's zstandard, from the spec: it unpacks our `X` bodies, and packs ones that we read.
    func testPythonZstandardReadsAndWritesOurFraming() throws {
        let big = text(14_000, 1)
        let small = text(10, 2)
        let ours = MessageBody.bodies([big], peerVersion: 16, pqEncrypted: true).bodies[0].bytes
        XCTAssertEqual(try peer(["unpack", hexText(ours)]), [hexText(big.encoded)])
        let passthrough = try MessageBody.compressed(small.encoded)
        XCTAssertEqual(try peer(["unpack", hexText(passthrough)]), [hexText(small.encoded)])

        let batch = MessageBody.bodies([small, text(20, 3)], peerVersion: 16).bodies[0].bytes
        let theirs = try peer(["pack", hexText(big.encoded), hexText(batch), hexText(small.encoded)])
        XCTAssertEqual(theirs.count, 1)
        let read = try MessageBody.parse(hex(theirs[0])).map { try $0.get() }
        XCTAssertEqual(read, [big, small, text(20, 3), small])
    }
}

extension ChatProtocolTests {
    func testThePeersRangeDecidesWhatWeSend() throws {
        let messages = (0..<2).map { text(10, $0) }
        XCTAssertEqual(try MessageBody.bodies(messages, peer: ChatVersionRange(minVersion: 1, maxVersion: 16)).bodies.count, 1)
        XCTAssertEqual(try MessageBody.bodies(messages, peer: ChatVersionRange(minVersion: 1, maxVersion: 8)).bodies.count, 2)
        let far = ChatVersionRange(minVersion: 12, maxVersion: 20)
        XCTAssertEqual(
            thrown { try MessageBody.bodies(messages, peer: far) } as? ChatProtocolError, .incompatibleVersion(peer: far))
    }

    func testReceiptsAndProbes() throws {
        XCTAssertTrue(MessageBody.wantsReceipt(MessageBody.parse(Array(ChatVectors.jsonArrayBatch.utf8))))
        XCTAssertFalse(MessageBody.wantsReceipt(MessageBody.parse(Array(#"{"v":"1","event":"x.ok","params":{}}"#.utf8))))
        let probe = WireBytes.newProbe(random: Array(repeating: 7, count: 32))
        XCTAssertEqual(probe.bytes.count, 44)
        XCTAssertEqual(probe.jsonText.count, 60)
        XCTAssertEqual(probe.probeHash.bytes.count, 32)
        let check = ChatMessage(event: .infoProbeCheck(probe.probeHash))
        XCTAssertEqual(try MessageBody.parse(check.encoded).first?.get(), check)
    }
}

extension ChatProtocolTests {
    /// As the reference's alternatives read it: a bad quote or forward mark leaves a plain message, bad content
    /// refuses it.
    func testContainerFallbacks() throws {
        func kind(_ params: String) throws -> MsgContainer.Kind {
            let m = try XCTUnwrap(
                MessageBody.parse(Array((#"{"v":"1","event":"x.msg.new","params":"# + params + "}").utf8)).first
            ).get()
            guard case .msgNew(let c) = m.event else { throw PeerFailure("not x.msg.new") }
            return c.kind
        }
        let content = #""content":{"type":"text","text":"hi"}"#
        XCTAssertEqual(try kind("{" + content + #","quote":{"msgRef":7}}"#), .simple)
        XCTAssertEqual(try kind("{" + content + #","forward":"yes"}"#), .simple)
        XCTAssertEqual(try kind("{" + content + #","forward":false}"#), .simple)
        XCTAssertEqual(try kind("{" + content + #","forward":{"groupLink":"x"}}"#), .forward)
        XCTAssertThrowsError(try kind(#"{"content":{"type":"text"},"forward":true}"#))
    }
}

extension ChatProtocolTests {
    /// `batchMessages` folds from the right: the tail fills whole arrays, the head takes the remainder.
    func testBatchesFillFromTheEnd() {
        let messages = (0..<4).map { text(5_000, $0) }
        XCTAssertEqual(MessageBody.bodies(messages, peerVersion: 9).bodies.map(\.messages), [[0], [1, 2, 3]])
    }

    /// Random text compresses little: conn info still above the threshold after compression is refused, as the
    /// reference refuses it ("large compressed info"). (A message body within its limit always compresses under
    /// its threshold, so the same guard on messages cannot be reached with valid JSON.)
    func testIncompressibleLargeConnInfoIsRefusedOnPostQuantumConnections() throws {
        var rng = SeededGenerator(seed: 3)
        let printable = (0x23...0x7E).filter { $0 != 0x5C }.map(UInt8.init)
        let noise = String(decoding: (0..<14_500).map { _ in printable.randomElement(using: &rng) ?? 0x41 }, as: UTF8.self)
        let info = ChatMessage(event: .info(Profile(displayName: "alice", fullName: noise)))
        XCTAssertEqual(try MessageBody.connInfo(info, pqEncrypted: false).first, UInt8(ascii: "{"))
        guard
            case .tooLarge(_, MessageBody.maxCompressedInfoLength)? = thrown({ try MessageBody.connInfo(info, pqEncrypted: true) }
            ) as? ChatProtocolError
        else { return XCTFail() }
    }
}
