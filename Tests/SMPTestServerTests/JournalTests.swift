import Foundation
import SMP
import SMPTestServer
import SimplexCrypto
import SimplexEncoding
import XCTest

/// The store file's framing: records survive a round trip, a torn last append is dropped, damage is a typed error.
final class JournalTests: XCTestCase {
    func records() throws -> [StoreRecord] {
        let rid = EntityId([UInt8](repeating: 1, count: 24))
        let key = AuthPublicKey.ed25519(Ed25519.PrivateKey().publicKey)
        let secret = try X25519.PrivateKey().sharedSecret(with: X25519.PrivateKey().publicKey)
        let message = StoredMessage(
            msgId: MsgId([UInt8](repeating: 3, count: 24)),
            content: .message(timestamp: 1_800_000_000, flags: MessageFlags(notification: false), body: Array("hi".utf8)))
        return [
            .queueCreated(
                recipientId: rid, senderId: EntityId([UInt8](repeating: 2, count: 24)), recipientKey: key, dhSecret: secret,
                mode: .messaging),
            .queueSecured(recipientId: rid, senderKey: key),
            .messageAdded(recipientId: rid, message),
            .messageAdded(
                recipientId: rid, StoredMessage(msgId: MsgId([4]), content: .quota(timestamp: 1_800_000_001))),
            .messageRemoved(recipientId: rid, msgId: message.msgId),
            .queueSuspended(recipientId: rid),
            .queueDeleted(recipientId: rid),
        ]
    }

    func testRecordsRoundTripAndATornTailIsDropped() throws {
        let rs = try records()
        var bytes = JournalFormat.magic
        for r in rs { bytes += try JournalFormat.frame(r) }
        let parsed = try JournalFormat.parse(bytes, path: "t")
        XCTAssertEqual(parsed.records.count, rs.count)
        XCTAssertEqual(parsed.intact, bytes.count)
        for (a, b) in zip(parsed.records, rs) { XCTAssertEqual(try a.encoded(), try b.encoded()) }
        // Every cut inside the last record leaves the ones before it.
        let last = try JournalFormat.frame(rs[rs.count - 1]).count
        for cut in 1..<last {
            let torn = try JournalFormat.parse(Array(bytes.dropLast(cut)), path: "t")
            XCTAssertEqual(torn.records.count, rs.count - 1)
        }
        // A flipped byte in a record's check drops it and what follows.
        var flipped = bytes
        flipped[flipped.count - 1] ^= 1
        XCTAssertEqual(try JournalFormat.parse(flipped, path: "t").records.count, rs.count - 1)
        XCTAssertEqual(
            thrown { try JournalFormat.parse(Array("not a journal".utf8), path: "t") } as? JournalError, .notAJournal("t"))
        // A record with a valid check but an unknown tag is an error, not a trap.
        var w = ByteWriter()
        w.writeUInt32(1)
        w.writeByte(99)
        w.writeBytes(Digest.sha256([99]).prefix(4))
        XCTAssertEqual(
            thrown { try JournalFormat.parse(JournalFormat.magic + w.bytes, path: "t") } as? JournalError,
            .record(offset: 8, .unknownTag(99)))
        XCTAssertThrowsError(try StoreRecord(decoding: [2, 24]))
        XCTAssertThrowsError(try StoreRecord(decoding: try rs[0].encoded() + [0]))
    }

    func testFileKeepsWhatWasAppendedAcrossReopening() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("smp-journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("store").path
        let rs = try records()
        do {
            let (journal, existing) = try Journal.open(path: path)
            XCTAssertTrue(existing.isEmpty)
            try journal.rewrite(Array(rs.prefix(2)))
            try journal.append(Array(rs[2...]))
        }
        let (journal, existing) = try Journal.open(path: path)
        XCTAssertEqual(existing.count, rs.count)
        var store = QueueStore()
        for r in existing { store.apply(r) }
        XCTAssertEqual(store.count, 0, "the last record deletes the queue")
        try journal.rewrite(store.snapshot)
        XCTAssertEqual(try Journal.open(path: path).1.count, 0)
    }
}

func thrown<T>(_ body: () throws -> T) -> (any Error)? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
