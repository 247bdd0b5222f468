import SimplexCrypto
import SimplexEncoding
import XCTest

@testable import Ratchet

/// Two ratchets talking through a lossy, reordering, duplicating channel, deterministically.
final class RatchetConversationTests: XCTestCase {
    struct Party {
        var state: RatchetState
        var skipped = SkippedMessageKeys()
        var keys: SeededRandom
    }

    struct Sent {
        let id: Int
        let bytes: [UInt8]
        let plaintext: [UInt8]
    }

    struct Outcome {
        var ciphertexts: [[UInt8]] = []
        var delivered = 0
        var lost = 0
        var duplicatesRefused = 0
        var skippedUsed = 0
        var maxStoredSkipped = 0
        var dhSteps = 0
    }

    /// Alice initiates, Bob joins; each gets its own seeded key source.
    static func pair(seed: UInt64, version: UInt16 = 3) throws -> (alice: Party, bob: Party) {
        var setup = SeededRandom(seed: seed)
        let a = E2EPrivateKeys(key1: setup.nextRatchetKey(), key2: setup.nextRatchetKey())
        let b = E2EPrivateKeys(key1: setup.nextRatchetKey(), key2: setup.nextRatchetKey())
        let versions = RatchetVersions(current: version)
        let bob = try RatchetState(joining: a.params(), own: b, ratchetKey: setup.nextRatchetKey(), versions: versions)
        let alice = try RatchetState(initiating: a, peer: b.params(), versions: versions)
        return (
            Party(state: alice, keys: SeededRandom(seed: seed &+ 1)), Party(state: bob, keys: SeededRandom(seed: seed &+ 2))
        )
    }

    /// Sends `total` messages in random bursts from either side; delivers one of the first 8 waiting (reordering),
    /// loses 1 in 20 and delivers 1 in 25 a second time. With `roundTrip`, both states and their skipped keys go
    /// through their stored forms before every action.
    func converse(seed: UInt64, total: Int, roundTrip: Bool) throws -> Outcome {
        let (alice, bob) = try Self.pair(seed: seed)
        var parties = [alice, bob]
        var rng = SeededRandom(seed: seed &+ 3)
        var waiting: [[Sent]] = [[], []]
        var deliveredTo: [[Sent]] = [[], []]
        var out = Outcome()
        var sent = 0

        func redeliver(to i: Int) throws {
            let m = deliveredTo[i][Int(rng.next() % UInt64(deliveredTo[i].count))]
            var keys = parties[i].keys
            defer { parties[i].keys = keys }
            do {
                let result = try parties[i].state.decrypt(m.bytes, skipped: parties[i].skipped, keys: &keys)
                switch result.plaintext {
                case .success: XCTFail("message \(m.id) decrypted twice")
                case .failure(let e):
                    XCTAssertTrue(e == .duplicateMessage || isEarlier(e), "\(e)")
                }
                XCTAssertEqual(result.skippedKeys, .unchanged)
                parties[i].state = result.state
            } catch {
                XCTAssertEqual(error, .header, "a spent key of an older chain: no header key opens it")
            }
            out.duplicatesRefused += 1
        }

        func deliver(to i: Int) throws {
            guard !waiting[i].isEmpty else { return }
            let m = waiting[i].remove(at: Int(rng.next() % UInt64(min(8, waiting[i].count))))
            if rng.next() % 20 == 0 {
                out.lost += 1
                return
            }
            let peerKey = parties[i].state.sending?.peerKey
            var keys = parties[i].keys
            let result = try parties[i].state.decrypt(m.bytes, skipped: parties[i].skipped, keys: &keys)
            parties[i].keys = keys
            if case .used = result.skippedKeys { out.skippedUsed += 1 }
            parties[i].state = result.state
            parties[i].skipped.apply(result.skippedKeys)
            XCTAssertEqual(try result.plaintext.get(), m.plaintext, "message \(m.id)")
            if parties[i].state.sending?.peerKey != peerKey { out.dhSteps += 1 }
            out.delivered += 1
            out.maxStoredSkipped = max(out.maxStoredSkipped, parties[i].skipped.count)
            deliveredTo[i].append(m)
            if rng.next() % 25 == 0 { try redeliver(to: i) }
        }

        func roundTripStates() throws {
            for i in 0..<2 {
                parties[i].state = try RatchetState(decoding: parties[i].state.encoded())
                parties[i].skipped = SkippedMessageKeys(
                    try parties[i].skipped.keys.map { k in
                        SkippedMessageKey(
                            headerKey: try RatchetHeaderKey(rawRepresentation: k.headerKey.rawRepresentation),
                            number: k.number, messageKey: try RatchetMessageKey(decoding: k.messageKey.encoded()))
                    })
            }
        }

        while sent < total {
            if roundTrip { try roundTripStates() }
            if rng.next() % 4 == 0 {
                let from = Int(rng.next() % 2)
                guard parties[from].state.canEncrypt else { continue }
                for _ in 0...(rng.next() % 4) where sent < total {
                    let plaintext = rng.bytes(Int(rng.next() % 300))
                    let bytes = try parties[from].state.encrypt(plaintext, as: .agentMessage)
                    XCTAssertEqual(bytes.count, 15_982)
                    out.ciphertexts.append(bytes)
                    waiting[1 - from].append(Sent(id: sent, bytes: bytes, plaintext: plaintext))
                    sent += 1
                }
            } else {
                try deliver(to: Int(rng.next() % 2))
            }
        }
        while !waiting[0].isEmpty || !waiting[1].isEmpty {
            try deliver(to: 0)
            try deliver(to: 1)
        }
        XCTAssertEqual(out.delivered + out.lost, total)
        // Every key still stored is a lost message's (the last lost ones of a chain were never derived).
        XCTAssertLessThanOrEqual(parties[0].skipped.count + parties[1].skipped.count, out.lost)
        return out
    }

    private func isEarlier(_ e: RatchetError) -> Bool {
        if case .earlierMessage = e { return true }
        return false
    }

    func testThousandMessagesWithLossReorderingAndDuplicates() throws {
        let out = try converse(seed: 17, total: 1000, roundTrip: false)
        XCTAssertGreaterThan(out.lost, 20)
        XCTAssertGreaterThan(out.skippedUsed, 100, "reordering makes messages arrive through skipped keys")
        XCTAssertGreaterThan(out.duplicatesRefused, 10)
        XCTAssertGreaterThan(out.dhSteps, 20)
    }

    func testStoredStatesContinueWithTheSameCiphertexts() throws {
        let plain = try converse(seed: 99, total: 300, roundTrip: false)
        let stored = try converse(seed: 99, total: 300, roundTrip: true)
        XCTAssertEqual(plain.ciphertexts.count, 300)
        XCTAssertEqual(plain.ciphertexts, stored.ciphertexts)
        XCTAssertEqual(plain.lost, stored.lost)
    }

    func testStoredEncryptKeyEncryptsTheSame() throws {
        var (_, bob) = try Self.pair(seed: 5)
        var copy = bob.state
        let key = try bob.state.encryptHeader()
        let restored = try MessageEncryptKey(decoding: key.encoded())
        XCTAssertEqual(restored, key)
        XCTAssertEqual(
            try restored.encrypt(Array("hello".utf8), as: .agentMessage), try copy.encrypt(Array("hello".utf8), as: .agentMessage)
        )
    }

    func testOldVersionPeersUpgradeOnTheFirstHeader() throws {
        var (alice, bob) = try Self.pair(seed: 7, version: 2)
        let first = try bob.state.encrypt(Array("v2".utf8), as: .connectionInfo)
        // e2e v2: a 123-byte header with a 1-byte length and no KEM field (smp.md §5.4, §9.1 item 19).
        XCTAssertEqual(first.count, 1 + 123 + 16 + 14_832)
        XCTAssertEqual(first[0], 123)
        XCTAssertEqual(try alice.state.open(first, skipped: &alice.skipped, keys: &alice.keys), Array("v2".utf8))
        XCTAssertEqual(alice.state.versions.current, 3, "the header's maxSupported 3 upgrades the agreed 2")
        let reply = try alice.state.encrypt(Array("v3".utf8), as: .connectionInfo)
        XCTAssertEqual(reply.count, 2 + 124 + 16 + 14_832)
        XCTAssertEqual(try bob.state.open(reply, skipped: &bob.skipped, keys: &bob.keys), Array("v3".utf8))
        XCTAssertEqual(bob.state.versions.current, 3)
    }
}
