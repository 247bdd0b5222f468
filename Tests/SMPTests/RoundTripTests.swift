import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

@testable import SMP

/// parse ∘ encode = identity for every command, response and error at every version, every truncation a typed
/// error, and random input never a trap (smp.md §3.3–§3.5).
final class RoundTripTests: XCTestCase {
    private let versions: [UInt16] = Array(6...18)
    private let ed = AuthPublicKey.ed25519(Ed25519.PrivateKey().publicKey)
    private let dh = X25519.PrivateKey().publicKey
    private let link = QueueLinkData(fixedData: [1, 2, 3], userData: [UInt8](repeating: 9, count: 300))

    private var commands: [SMPCommand] {
        [
            .new(NewQueueRequest(recipientAuthKey: ed, recipientDhKey: dh, queueRequestData: .messaging(nil))),
            .new(
                NewQueueRequest(
                    recipientAuthKey: ed, recipientDhKey: dh, basicAuth: try? BasicAuth("pass"), subscriptionMode: .onlyCreate,
                    queueRequestData: .contact(.init(linkId: EntityId([7]), senderId: EntityId([8]), data: link)),
                    notifierCredentials: NewNotifierCredentials(notifierKey: ed, dhKey: dh))),
            .new(
                NewQueueRequest(
                    recipientAuthKey: .x25519(dh), recipientDhKey: dh,
                    queueRequestData: .messaging(.init(senderId: EntityId([1, 2]), data: link)))),
            .new(NewQueueRequest(recipientAuthKey: ed, recipientDhKey: dh, queueRequestData: nil)),
            .sub, .key(ed), .skey(ed), .send(flags: MessageFlags(notification: false), body: []),
            .send(flags: MessageFlags(notification: true), body: Array("body with spaces".utf8)), .ack(MsgId([1, 2, 3])), .get,
            .off,
            .del, .ping, .lset(linkId: EntityId([5, 5]), data: link), .ldel, .lkey(ed), .lget,
        ]
    }

    private var errors: [SMPErrorType] {
        var out: [SMPErrorType] = [.block, .session, .auth, .service, .crypto, .quota, .store("disk full"), .expired, .noMsg]
        out += [.largeMsg, .internal, .duplicate, .blocked(BlockingInfo(reason: .spam))]
        out.append(.blocked(BlockingInfo(reason: .content, notice: Array(#"{"ttl":60}"#.utf8))))
        out += [.proxy(.basicAuth), .proxy(.noSession), .proxy(.protocol(.auth)), .proxy(.broker(.timeout))]
        out += [.proxy(.broker(.response("bad"))), .proxy(.broker(.transport(.handshake(.identity)))), .proxy(.broker(.host))]
        out += CommandError.allCases.map { SMPErrorType.cmd($0) }
        return out
    }

    private var responses: [SMPBrokerMessage] {
        [
            .ids(QueueIdsKeys(recipientId: EntityId([1]), senderId: EntityId([2]), serverDhKey: dh, queueMode: .messaging)),
            .ids(
                QueueIdsKeys(
                    recipientId: EntityId([1]), senderId: EntityId([2]), serverDhKey: dh, queueMode: .contact,
                    linkId: EntityId([3]),
                    serviceId: EntityId([4]), notifierCredentials: ServerNotifierCredentials(notifierId: EntityId([5]), dhKey: dh)
                )),
            .lnk(senderId: EntityId([9]), data: link), .sok(serviceId: nil), .sok(serviceId: EntityId([1])), .ok,
            .msg(ReceivedMessage(msgId: MsgId([1, 2]), encryptedBody: [UInt8](repeating: 3, count: 100))), .end, .deld, .pong,
        ] + errors.map { .err($0) }
    }

    func testCommandsAtEveryVersion() throws {
        for v in versions {
            for c in commands {
                let bytes = try c.encoded(version: v)
                let parsed = try SMPCommand(parsing: bytes, version: v)
                XCTAssertEqual(try parsed.encoded(version: v), bytes, "\(c.tag) v\(v)")
                if v >= 17 { XCTAssertEqual(parsed, c, "v\(v)") }
                for n in 0..<bytes.count { _ = try? SMPCommand(parsing: Array(bytes.prefix(n)), version: v) }
                // Trailing bytes are a syntax error, except in SEND's tail.
                if case .send = c {
                } else {
                    XCTAssertEqual(
                        thrown { try SMPCommand(parsing: bytes + [0x20], version: v) } as? CommandParseError,
                        .syntax(tag: c.tag, .trailingBytes(count: 1)))
                }
            }
        }
        // Per-version NEW layouts (smp.md §3.3).
        let new = commands[1]
        XCTAssertEqual(
            Array(try new.encoded(version: 8).suffix(7)), [UInt8(ascii: "A"), 4] + Array("pass".utf8) + [UInt8(ascii: "C")])
        XCTAssertEqual(try new.encoded(version: 12).last, UInt8(ascii: "F"))
        XCTAssertEqual(try commands[0].encoded(version: 12).last, UInt8(ascii: "T"))
        XCTAssertEqual(Array(try commands[0].encoded(version: 16).suffix(5)), Array("0S1M0".utf8))
        XCTAssertEqual(Array(try commands[0].encoded(version: 18).suffix(6)), Array("0S1M00".utf8))
        XCTAssertEqual(try SMPCommand(parsing: try commands[0].encoded(version: 12), version: 12), commands[0])

        XCTAssertEqual(
            thrown { try SMPCommand(parsing: Array("NSUB".utf8), version: 18) } as? CommandParseError, .unknownTag("NSUB"))
        XCTAssertEqual(CommandParseError.unknownTag("X").errorType, .cmd(.unknown))
        XCTAssertEqual(
            thrown { try SMPCommand(parsing: Array("ACK".utf8), version: 18) } as? CommandParseError,
            .syntax(tag: "ACK", .truncated(needed: 1)))
        XCTAssertEqual(
            try SMPCommand(parsing: Array("SEND Tx body".utf8), version: 18),
            .send(flags: MessageFlags(notification: true), body: Array("body".utf8)))
        // A DH field refuses a signing key.
        XCTAssertThrowsError(
            try SMPCommand(parsing: Array("NEW ".utf8) + [44] + ed.spki + [44] + ed.spki + Array("0S1M00".utf8), version: 18))
    }

    func testResponsesAtEveryVersion() throws {
        for v in versions {
            for m in responses {
                let bytes = try m.encoded(version: v)
                let parsed = try SMPBrokerMessage(parsing: bytes, version: v)
                XCTAssertEqual(try parsed.encoded(version: v), bytes, "\(m.tag) v\(v)")
                if v >= 18 { XCTAssertEqual(parsed, m) }
                for n in 0..<bytes.count { _ = try? SMPBrokerMessage(parsing: Array(bytes.prefix(n)), version: v) }
            }
        }
        // Values a version cannot carry are sent as the reference sends them.
        XCTAssertEqual(try SMPBrokerMessage.sok(serviceId: nil).encoded(version: 18), Array("SOK 0".utf8))
        XCTAssertEqual(try SMPBrokerMessage.sok(serviceId: nil).encoded(version: 15), Array("OK".utf8))
        XCTAssertEqual(try SMPBrokerMessage.deld.encoded(version: 9), Array("END".utf8))
        let blocked = SMPBrokerMessage.err(.blocked(BlockingInfo(reason: .content, notice: Array(#"{"ttl":60}"#.utf8))))
        XCTAssertEqual(try blocked.encoded(version: 18), Array(#"ERR BLOCKED reason=content,notice={"ttl":60}"#.utf8))
        XCTAssertEqual(try blocked.encoded(version: 17), Array("ERR BLOCKED reason=content".utf8))
        XCTAssertEqual(try blocked.encoded(version: 11), Array("ERR AUTH".utf8))
        XCTAssertEqual(try SMPBrokerMessage(parsing: Array("ERR CMD NO_QUEUE".utf8), version: 18), .err(.cmd(.noEntity)))
        XCTAssertEqual(try SMPErrorType.proxy(.broker(.network(.timeout))).encoded(), Array("PROXY BROKER NETWORK".utf8))
        XCTAssertEqual(try SMPErrorType(decoding: Array("PROXY BROKER NETWORK".utf8)), .proxy(.broker(.network(.failed))))
        XCTAssertEqual(
            try SMPErrorType(decoding: Array("PROXY BROKER NETWORK CONNECT ".utf8) + [3] + Array("abc".utf8)),
            .proxy(.broker(.network(.connect("abc")))))
        XCTAssertThrowsError(try SMPErrorType(decoding: Array("BLOCKED reason=content,notice={".utf8)))
        XCTAssertThrowsError(try SMPErrorType(decoding: Array("AUTH ".utf8)))
        // IDS at the versions of §3.4.
        let ids = responses[1]
        let v6 = try ids.encoded(version: 8)
        XCTAssertEqual(v6.count, 4 + 2 + 2 + 45)
        XCTAssertEqual(try ids.encoded(version: 14).count, v6.count + 1)
        XCTAssertEqual(Array(try ids.encoded(version: 15).suffix(5)), Array("1C1".utf8) + [1, 3])
        XCTAssertEqual(try ids.encoded(version: 16).count, v6.count + 5 + 3)
        XCTAssertEqual(try ids.encoded(version: 17).count, v6.count + 8 + 1 + 2 + 45)
    }

    func testTransmissionsAtEveryVersion() throws {
        let key = Ed25519.PrivateKey()
        let sessionId = SessionId(SecureRandom.bytes(32))
        for v in versions {
            let p = TransportParameters(version: v, sessionId: sessionId)
            for c in commands {
                let entity = c == .ping || c.tag == "NEW" ? EntityId.empty : EntityId([1, 2, 3])
                let signer: Ed25519.PrivateKey? = c == .ping || c == .lget ? nil : key
                let t = try Transmissions.encodeCommand(
                    corrId: .random(), entityId: entity, command: c, parameters: p, signedWith: signer)
                let read = Transmissions.decodeCommand(t, parameters: p)
                XCTAssertEqual(try read.message.get().command.encoded(version: v), try c.encoded(version: v), "\(c.tag) v\(v)")
                if signer != nil {
                    XCTAssertTrue(try read.message.get().isAuthorized(by: .ed25519(key.publicKey)), "\(c.tag) v\(v)")
                }
                for n in 0..<t.count { _ = Transmissions.decodeCommand(Array(t.prefix(n)), parameters: p) }
            }
            for m in responses {
                let corrId = CorrId.random()
                let entity = m == .pong ? EntityId.empty : EntityId([4, 5])
                let t = try Transmissions.encodeResponse(corrId: corrId, entityId: entity, message: m, parameters: p)
                let read = Transmissions.decodeResponse(t, parameters: p)
                XCTAssertEqual(read.corrId, corrId)
                XCTAssertEqual(try read.message.get().encoded(version: v), try m.encoded(version: v), "\(m.tag) v\(v)")
                for n in 0..<t.count { _ = Transmissions.decodeResponse(Array(t.prefix(n)), parameters: p) }
            }
        }
        // Below v7 the session id is sent and checked.
        let p6 = TransportParameters(version: 6, sessionId: sessionId)
        let t6 = try Transmissions.encodeResponse(corrId: CorrId([1]), entityId: .empty, message: .pong, parameters: p6)
        XCTAssertEqual(Array(t6.prefix(2)), [0, 32])
        let other = TransportParameters(version: 6, sessionId: SessionId(SecureRandom.bytes(32)))
        XCTAssertEqual(Transmissions.decodeResponse(t6, parameters: other).message, .failure(.session))
        // Credentials (smp.md §3.2).
        let p = TransportParameters(version: 18, sessionId: sessionId)
        func error(_ c: SMPCommand, _ entity: EntityId, _ signer: Ed25519.PrivateKey?) throws -> SMPErrorType? {
            let t = try Transmissions.encodeCommand(
                corrId: CorrId([1]), entityId: entity, command: c, parameters: p, signedWith: signer)
            if case .failure(let e) = Transmissions.decodeCommand(t, parameters: p).message { return e }
            return nil
        }
        XCTAssertEqual(try error(commands[0], .empty, nil), .cmd(.noAuth))
        XCTAssertEqual(try error(commands[0], EntityId([1]), key), .cmd(.hasAuth))
        XCTAssertEqual(try error(.send(flags: MessageFlags(notification: false), body: []), .empty, nil), .cmd(.noEntity))
        XCTAssertNil(try error(.send(flags: MessageFlags(notification: false), body: []), EntityId([1]), nil))
        XCTAssertEqual(try error(.ping, .empty, key), .cmd(.hasAuth))
        XCTAssertEqual(try error(.sub, EntityId([1]), nil), .cmd(.noAuth))
        XCTAssertEqual(try error(.lget, EntityId([1]), key), .cmd(.hasAuth))
        XCTAssertNil(try error(.lget, EntityId([1]), nil))
        XCTAssertEqual(Transmissions.decodeCommand([], parameters: p).message, .failure(.block))
        // A wrong signature size is BLOCK; the 80-byte authenticator is read as one.
        XCTAssertEqual(
            Transmissions.decodeCommand([3, 1, 2, 3, 0x30, 1, 9, 0] + Array("SUB".utf8), parameters: p).message, .failure(.block))
        let withAuthenticator = Transmissions.decodeCommand(
            [80] + [UInt8](repeating: 1, count: 80) + [0x30, 1, 9, 1, 1] + Array("SUB".utf8), parameters: p)
        XCTAssertEqual(
            try withAuthenticator.message.get().authorizations?.authorization, .authenticator([UInt8](repeating: 1, count: 80)))
        // A response with the wrong entity is an error for the client.
        let okNoEntity = try Transmissions.encodeResponse(corrId: CorrId([1]), entityId: .empty, message: .ok, parameters: p)
        XCTAssertEqual(Transmissions.decodeResponse(okNoEntity, parameters: p).message, .failure(.cmd(.noEntity)))
    }

    /// Random bytes into every decoder: errors, never traps.
    func testRandomInput() throws {
        var g = SeededGenerator(seed: 16)
        let p = TransportParameters(version: 18, sessionId: SessionId(g.bytes(32)))
        var framing = BlockFraming(
            encryption: .client(sessionId: p.sessionId, secret: try X25519.PrivateKey().sharedSecret(with: dh)))
        var plain = BlockFraming(encryption: nil)
        let tags = ["NEW ", "SEND ", "IDS ", "MSG ", "ERR ", "LSET ", "ERR PROXY BROKER ", "ERR BLOCKED ", ""]
        for i in 0..<3000 {
            let n = Int.random(in: 0...300, using: &g)
            let prefix = Array(tags[i % tags.count].utf8)
            let bytes = prefix + g.bytes(n)
            _ = try? SMPCommand(parsing: bytes, version: UInt16(6 + i % 13))
            _ = try? SMPBrokerMessage(parsing: bytes, version: UInt16(6 + i % 13))
            _ = Transmissions.decodeCommand(bytes, parameters: p)
            _ = Transmissions.decodeResponse(bytes, parameters: p)
            _ = try? TransmissionBatch.parse(bytes)
            _ = try? ServerHello(decoding: bytes)
            _ = try? ClientHello(decoding: bytes)
            _ = try? SignedServerKey(der: [0x30] + bytes)
            _ = try? ReceivedMessageContent(decoding: bytes)
            _ = try? SMPQueueInfo(decoding: bytes)
            _ = try? SMPQueueURI(decoding: bytes)
            _ = try? SMPQueueURI(parsing: "smp://1234-w==@h/" + String(decoding: bytes, as: UTF8.self))
            _ = try? SMPServer(parsing: "smp://" + String(decoding: bytes, as: UTF8.self))
        }
        for _ in 0..<20 {
            XCTAssertThrowsError(try framing.open(g.bytes(16384)))
            _ = try? plain.openTransmissions(g.bytes(16384))
        }
    }
}
