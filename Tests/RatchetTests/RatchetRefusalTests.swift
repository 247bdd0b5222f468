import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

@testable import Ratchet

/// Skipped-key limits, tampering, PQ headers from peers, and the stored forms' decoders.
final class RatchetRefusalTests: XCTestCase {
    typealias Party = RatchetConversationTests.Party

    private func pair(_ seed: UInt64) throws -> (alice: Party, bob: Party) { try RatchetConversationTests.pair(seed: seed) }

    private func send(_ party: inout Party, _ text: String) throws -> [UInt8] {
        try party.state.encrypt(Array(text.utf8), as: .agentMessage)
    }

    private func failure(_ result: RatchetDecryption) -> RatchetError? {
        if case .failure(let e) = result.plaintext { return e }
        return nil
    }

    func testSkippingUpToTheLimitAndNoFurther() throws {
        var (alice, bob) = try pair(1)
        _ = try alice.state.open(try send(&bob, "0"), skipped: &alice.skipped, keys: &alice.keys)
        var messages: [[UInt8]] = []
        for n in 1...514 { messages.append(try send(&bob, "\(n)")) }
        // Nr = 1: message 513 skips 512 keys (the limit), message 514 would skip 513.
        let atLimit = try alice.state.decrypt(messages[512], skipped: alice.skipped, keys: &alice.keys)
        XCTAssertEqual(try atLimit.plaintext.get(), Array("513".utf8))
        guard case .added(let added) = atLimit.skippedKeys else { return XCTFail("no keys added") }
        XCTAssertEqual(added.count, 512)
        XCTAssertEqual(added.map(\.number), Array(1...512))

        let over = try alice.state.decrypt(messages[513], skipped: alice.skipped, keys: &alice.keys)
        XCTAssertEqual(failure(over), .tooManySkipped(count: 514))
        XCTAssertEqual(over.skippedKeys, .unchanged)
        XCTAssertEqual(over.state.receivedCount, 1, "the chain did not move")

        // Through the skipped keys the rest still opens, in any order.
        var state = atLimit.state
        var skipped = alice.skipped
        skipped.apply(atLimit.skippedKeys)
        for n in [5, 1, 512, 300] {
            XCTAssertEqual(try state.open(messages[n - 1], skipped: &skipped, keys: &alice.keys), Array("\(n)".utf8))
        }
        XCTAssertEqual(skipped.count, 508)
        // A spent skipped key: the message is earlier than the chain and no longer stored.
        let again = try state.decrypt(messages[4], skipped: skipped, keys: &alice.keys)
        XCTAssertEqual(failure(again), .earlierMessage(behind: 508))
        let last = try state.decrypt(messages[512], skipped: skipped, keys: &alice.keys)
        XCTAssertEqual(failure(last), .duplicateMessage)
    }

    func testPreviousChainBeyondTheLimitIsRefusedWithoutChange() throws {
        var (alice, bob) = try pair(2)
        _ = try alice.state.open(try send(&bob, "0"), skipped: &alice.skipped, keys: &alice.keys)
        for n in 1...600 { _ = try send(&bob, "\(n)") }  // all lost
        _ = try bob.state.open(try send(&alice, "reply"), skipped: &bob.skipped, keys: &bob.keys)
        let newChain = try send(&bob, "new chain, PN = 601")
        let before = alice.state.encoded()
        XCTAssertEqual(
            thrown { try alice.state.decrypt(newChain, skipped: alice.skipped, keys: &alice.keys) } as? RatchetError,
            .tooManySkipped(count: 601))
        XCTAssertEqual(alice.state.encoded(), before)
    }

    func testTamperedHeaderAndBody() throws {
        var (alice, bob) = try pair(3)
        let message = try send(&bob, "first")
        let headerLength = 2 + 124
        // A flipped bit in the encrypted header: no key opens it; nothing changes.
        var header = message
        header[headerLength - 1] ^= 1
        XCTAssertEqual(thrown { try alice.state.decrypt(header, skipped: alice.skipped) } as? RatchetError, .header)
        // The header's version and IV are authenticated too (the IV through GCM, the version as the body's AD).
        var iv = message
        iv[2 + 2] ^= 1
        XCTAssertEqual(thrown { try alice.state.decrypt(iv, skipped: alice.skipped) } as? RatchetError, .header)
        // A flipped bit in the body or its tag: the header opens, the chain moves, the body is refused.
        for offset in [headerLength + 3, headerLength + 16 + 100, message.count - 1] {
            var body = message
            body[offset] ^= 0x80
            let result = try alice.state.decrypt(body, skipped: alice.skipped, keys: &alice.keys)
            XCTAssertEqual(failure(result), .decryption)
            XCTAssertEqual(result.state.receivedCount, 1)
        }
        // A truncated message or header does not parse; nor does an empty one.
        for cut in [0, 1, 2, 60, headerLength, headerLength + 15] {
            XCTAssertEqual(
                (thrown { try alice.state.decrypt(Array(message.prefix(cut)), skipped: alice.skipped) } as? RatchetError)
                    .map { if case .headerSyntax = $0 { true } else { false } }, true, "cut at \(cut)")
        }
        // A message of another conversation.
        var (_, other) = try pair(4)
        XCTAssertEqual(
            thrown { try alice.state.decrypt(try send(&other, "x"), skipped: alice.skipped) } as? RatchetError, .header)
        // The untouched message still opens.
        XCTAssertEqual(try alice.state.open(message, skipped: &alice.skipped, keys: &alice.keys), Array("first".utf8))
    }

    func testEveryPrefixIsRefusedWithoutTrapping() throws {
        var (alice, bob) = try pair(6)
        let message = try send(&bob, "prefixes")
        for n in stride(from: 0, to: message.count, by: 97) {
            let result = try? alice.state.decrypt(Array(message.prefix(n)), skipped: alice.skipped, keys: &alice.keys)
            if let result { XCTAssertNotNil(failure(result), "prefix of \(n) bytes") }
        }
    }

    func testMessageTooLargeIsRefusedBeforeTheChainMoves() throws {
        var (_, bob) = try pair(8)
        XCTAssertEqual(
            thrown { try bob.state.encrypt([UInt8](repeating: 0, count: 15_839), as: .agentMessage) } as? RatchetError,
            .messageTooLarge(length: 15_839, limit: 15_838))
        XCTAssertEqual(bob.state.sentCount, 0)
        XCTAssertEqual(try bob.state.encrypt([UInt8](repeating: 0, count: 15_838), as: .agentMessage).count, 15_982)
        var (alice, _) = try pair(9)
        XCTAssertEqual(thrown { try alice.state.encrypt([1], as: .agentMessage) } as? RatchetError, .state)
    }

    /// A header in the layout of a peer with PQ on: padded to 2,310 bytes, with a KEM field (smp.md §5.7).
    private func pqMessage(_ party: inout Party, kem: RatchetKEMParams, _ text: String) throws -> [UInt8] {
        var chain = try XCTUnwrap(party.state.sending)
        let (next, messageKey, headerIV) = RatchetKDF.chain(chain.chainKey)
        let header = RatchetHeader(
            maxVersion: 3, ratchetKey: party.state.ratchetKey.publicKey, kem: kem,
            previousCount: party.state.previousSentCount, number: party.state.sentCount)
        let padded = try Padding.pad(header.encoded(version: 3), to: 2310)
        let (tag, body) = try AESGCM.seal(
            padded, key: chain.headerKey.rawRepresentation, iv: headerIV,
            associatedData: party.state.associatedData.rawRepresentation)
        let encrypted = try EncMessageHeader(version: 3, iv: headerIV, authTag: tag, body: body).encoded()
        chain.chainKey = next
        party.state.sending = chain
        party.state.sentCount += 1
        return try MessageEncryptKey(
            version: 3, associatedData: party.state.associatedData, messageKey: messageKey, encryptedHeader: encrypted
        ).encrypt(Array(text.utf8), as: .agentMessage)
    }

    func testPQHeadersOfPeersAreReadAndNotAnswered() throws {
        var (alice, bob) = try pair(10)
        let proposal = RatchetKEMParams.proposed(publicKey: [UInt8](repeating: 0x5a, count: 1158))
        let first = try pqMessage(&bob, kem: proposal, "pq peer")
        XCTAssertEqual(try EncMessageHeader(decoding: EncRatchetMessage(decoding: first).header).body.count, 2310)
        XCTAssertEqual(try alice.state.open(first, skipped: &alice.skipped, keys: &alice.keys), Array("pq peer".utf8))
        // Proposals are ignored: our answer has an 88-byte header without a KEM.
        let reply = try send(&alice, "no pq here")
        XCTAssertEqual(try EncMessageHeader(decoding: EncRatchetMessage(decoding: reply).header).body.count, 88)
        XCTAssertEqual(try bob.state.open(reply, skipped: &bob.skipped, keys: &bob.keys), Array("no pq here".utf8))

        // In a new chain, another proposal is ignored again; an acceptance of a proposal we never made is refused.
        var accepting = bob
        let accepted = try pqMessage(
            &accepting,
            kem: .accepted(ciphertext: [UInt8](repeating: 1, count: 1039), publicKey: [UInt8](repeating: 2, count: 1158)),
            "accept")
        let before = alice.state.encoded()
        XCTAssertEqual(thrown { try alice.state.decrypt(accepted, skipped: alice.skipped) } as? RatchetError, .kemState)
        XCTAssertEqual(alice.state.encoded(), before)
        let proposedAgain = try pqMessage(&bob, kem: proposal, "propose again")
        XCTAssertEqual(
            try alice.state.open(proposedAgain, skipped: &alice.skipped, keys: &alice.keys), Array("propose again".utf8))
    }

    func testHeaderCodecs() throws {
        let key = X448.PrivateKey().publicKey
        let plain = RatchetHeader(maxVersion: 3, ratchetKey: key, kem: nil, previousCount: 7, number: 0x0102_0304)
        XCTAssertEqual(try plain.encoded(version: 3).count, 80)
        XCTAssertEqual(try plain.encoded(version: 2).count, 79)
        XCTAssertEqual(try RatchetHeader(decoding: plain.encoded(version: 3), version: 3), plain)
        XCTAssertEqual(try RatchetHeader(decoding: plain.encoded(version: 2), version: 2), plain)
        for kem in [
            RatchetKEMParams.proposed(publicKey: [UInt8](repeating: 3, count: 1158)),
            .accepted(ciphertext: [UInt8](repeating: 4, count: 1039), publicKey: [UInt8](repeating: 5, count: 1158)),
        ] {
            let h = RatchetHeader(maxVersion: 3, ratchetKey: key, kem: kem, previousCount: 1, number: 2)
            XCTAssertEqual(try RatchetHeader(decoding: h.encoded(version: 3), version: 3), h)
        }
        // An Ed448 or X25519 key where the X448 key belongs is refused, as is every truncation.
        var wrong = try plain.encoded(version: 3)
        wrong[2 + 1 + 8] = 0x71
        XCTAssertThrowsError(try RatchetHeader(decoding: wrong, version: 3))
        let bytes = try plain.encoded(version: 3)
        for n in 0..<bytes.count { XCTAssertThrowsError(try RatchetHeader(decoding: Array(bytes.prefix(n)), version: 3)) }
        // The encrypted header takes either length width and nothing after it.
        let eh = EncMessageHeader(
            version: 3, iv: [UInt8](repeating: 1, count: 16), authTag: [UInt8](repeating: 2, count: 16),
            body: [UInt8](repeating: 3, count: 88))
        XCTAssertEqual(try eh.encoded().count, 124)
        XCTAssertEqual(try EncMessageHeader(decoding: eh.encoded()), eh)
        XCTAssertThrowsError(try EncMessageHeader(decoding: eh.encoded() + [0]))
        let old = EncMessageHeader(version: 2, iv: eh.iv, authTag: eh.authTag, body: eh.body)
        XCTAssertEqual(try old.encoded().count, 123)
        XCTAssertEqual(try EncMessageHeader(decoding: old.encoded()), old)
    }

    func testStoredFormsRefuseDamage() throws {
        var (alice, bob) = try pair(11)
        _ = try alice.state.open(try send(&bob, "0"), skipped: &alice.skipped, keys: &alice.keys)
        for state in [alice.state, bob.state] {
            let bytes = state.encoded()
            XCTAssertEqual(try RatchetState(decoding: bytes).encoded(), bytes)
            for n in 0..<bytes.count {
                XCTAssertThrowsError(try RatchetState(decoding: Array(bytes.prefix(n))), "prefix \(n)")
            }
            XCTAssertThrowsError(try RatchetState(decoding: bytes + [0]))
            var format = bytes
            format[0] = 2
            XCTAssertThrowsError(try RatchetState(decoding: format))
            var flag = bytes
            flag[1 + 4 + 112 + 56 + 32] = UInt8(ascii: "2")
            XCTAssertThrowsError(try RatchetState(decoding: flag))
        }
        let key = try bob.state.encryptHeader()
        let stored = key.encoded()
        for n in 0..<stored.count { XCTAssertThrowsError(try MessageEncryptKey(decoding: Array(stored.prefix(n)))) }
        XCTAssertThrowsError(try MessageEncryptKey(decoding: stored + [0]))
        let mk = key.messageKey.encoded()
        XCTAssertEqual(mk.count, 50)
        XCTAssertEqual(try RatchetMessageKey(decoding: mk), key.messageKey)
        for n in 0..<mk.count { XCTAssertThrowsError(try RatchetMessageKey(decoding: Array(mk.prefix(n)))) }
    }
}
