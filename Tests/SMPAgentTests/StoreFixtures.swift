import ChatStore
import Foundation
import Ratchet
import SMP
import SMPAgent
import SimplexCrypto
import SimplexEncoding
import XCTest

/// A temporary folder with an agent store in it, reopened as a restart would.
final class StoreFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("agent-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    var prefix: String { url.appendingPathComponent("simplex_v1").path }

    /// Opens (creating and migrating) both files of the store, as the core does at start.
    func open() throws -> ChatDatabases { try ChatDatabases(prefix: prefix, confirmation: .yesUp) }

    /// The agent file's size with its WAL, in bytes.
    func agentFileBytes() -> Int {
        let file = ChatDatabases.files(prefix: prefix).agent
        return ([file] + SQLiteDatabase.companionFiles(of: file)).reduce(0) { total, path in
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            return total + ((attributes?[.size] as? Int) ?? 0)
        }
    }
}

enum Fixture {
    static let now: Int64 = 1_764_633_600_000

    static func server(_ n: Int) -> SMPServer {
        // Fixed key hashes, one per server.
        try! SMPServer(parsing: "smp://\(Base64.encode([UInt8](repeating: UInt8(n), count: 32)))@smp\(n).example.com:5223")
    }

    static func ed25519() -> StoredEd25519Key { StoredEd25519Key(Ed25519.PrivateKey()) }
    static func x25519() -> StoredX25519Key { StoredX25519Key(X25519.PrivateKey()) }

    static func secret() -> X25519.SharedSecret {
        try! X25519.SharedSecret(rawRepresentation: SecureRandom.bytes(32))
    }

    static func rcvQueue(server: Int = 1, mode: QueueMode = .messaging) -> NewRcvQueue {
        NewRcvQueue(
            server: Self.server(server), recipientId: EntityId(SecureRandom.bytes(24)),
            senderId: EntityId(SecureRandom.bytes(24)),
            mode: mode, recipientAuthKey: ed25519(), recipientDHKey: x25519(), serverDHSecret: secret(), e2eDHKey: x25519())
    }

    static func sndQueue(server: Int = 2, mode: QueueMode = .messaging) -> NewSndQueue {
        let e2e = X25519.PrivateKey()
        return NewSndQueue(
            server: Self.server(server), senderId: EntityId(SecureRandom.bytes(24)), mode: mode,
            senderAuthKey: mode == .messaging ? ed25519() : nil, e2eKey: StoredX25519Key(e2e),
            e2ePublicKey: e2e.publicKey, e2eDHSecret: secret(), smpClientVersion: 4)
    }

    static func x3dhKeys() -> StoredX3DHKeys {
        StoredX3DHKeys(key1: StoredX448Key(X448.PrivateKey()), key2: StoredX448Key(X448.PrivateKey()))
    }

    /// A joiner's and an initiator's ratchets that talk to each other: the joiner can send at once, the initiator
    /// once it decrypted the joiner's first message.
    static func ratchetPair() throws -> (joiner: RatchetState, initiator: RatchetState) {
        let a = E2EPrivateKeys(key1: X448.PrivateKey(), key2: X448.PrivateKey())
        let b = E2EPrivateKeys(key1: X448.PrivateKey(), key2: X448.PrivateKey())
        let versions = RatchetVersions(current: 3)
        let joiner = try RatchetState(joining: a.params(), own: b, ratchetKey: X448.PrivateKey(), versions: versions)
        let initiator = try RatchetState(initiating: a, peer: b.params(), versions: versions)
        return (joiner, initiator)
    }

    /// A connection with both queues and a ratchet, as a duplex one is after the handshake.
    static func duplex(ratchet: StoredRatchet, rcvServer: Int = 1, sndServer: Int = 2) -> NewConnection {
        NewConnection(
            mode: .invitation, status: .duplex, step: .connected, agentVersion: 7, ratchet: ratchet,
            rcvQueue: rcvQueue(server: rcvServer), sndQueue: sndQueue(server: sndServer))
    }

    /// A send of `text` as its plaintext with no ratchet: what tests of ordering and bookkeeping need.
    static func plain(_ text: String) -> (SendSlot) -> PreparedSend {
        { slot in PreparedSend(agentMessage: Array("\(slot.sndMsgId) \(text)".utf8), encryptKey: nil, ratchet: nil) }
    }
}
