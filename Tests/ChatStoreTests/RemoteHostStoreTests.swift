import ChatStore
import Foundation
import SimplexCrypto
import TestSupport
import XCTest

final class RemoteHostStoreTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("hosts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: folder) }

    private var prefix: String { folder.appendingPathComponent("simplex_v1").path }

    func testPairingLifecycle() throws {
        var store = RemoteHostStore(try ChatDatabases(prefix: prefix, confirmation: .yesUp).chat)
        let ca = try CertificateAuthority.generate(now: 1_780_000_000, hoursBefore: 1)
        let identity = Ed25519.PrivateKey()
        let fingerprint = try CertificateFingerprint(rawRepresentation: SecureRandom.bytes(32))
        let firstDH = X25519.PrivateKey().publicKey
        let record = try store.insert(
            hostDeviceName: "Pixel", authority: ca, identityKey: identity, hostFingerprint: fingerprint, hostDHKey: firstDH)
        XCTAssertEqual(record.storePath.count, 16)
        XCTAssertEqual(record.binding, RemoteHostBinding())
        // The fingerprint is unique.
        XCTAssertThrowsError(
            try store.insert(
                hostDeviceName: "Again", authority: ca, identityKey: identity, hostFingerprint: fingerprint, hostDHKey: firstDH))

        let secondDH = X25519.PrivateKey().publicKey
        let binding = RemoteHostBinding(address: "192.168.1.10", interface: "wlan0", port: 41000)
        try store.recordSession(id: record.id, hostDeviceName: "Pixel 9", hostDHKey: secondDH, binding: binding)

        // Reopen: everything decodes back from the file.
        store = RemoteHostStore(try ChatDatabases(prefix: prefix, confirmation: .error).chat)
        let found = try XCTUnwrap(try store.find(fingerprint: fingerprint))
        XCTAssertEqual(found.id, record.id)
        XCTAssertEqual(found.hostDeviceName, "Pixel 9")
        XCTAssertEqual(found.storePath, record.storePath)
        XCTAssertEqual(found.hostDHKey, secondDH)
        XCTAssertEqual(found.binding, binding)
        XCTAssertEqual(found.hostFingerprint, fingerprint)
        XCTAssertEqual(found.identityKey.publicKey, identity.publicKey)
        XCTAssertEqual(found.authority.certificate, ca.certificate)
        XCTAssertEqual(found.authority.key.publicKey, ca.key.publicKey)
        XCTAssertEqual(try store.find(id: record.id)?.hostDeviceName, "Pixel 9")
        XCTAssertEqual(try store.all().map(\.id), [record.id])

        // A later session may clear the binding.
        try store.recordSession(id: record.id, hostDeviceName: "Pixel 9", hostDHKey: secondDH, binding: RemoteHostBinding())
        XCTAssertEqual(try store.find(id: record.id)?.binding, RemoteHostBinding())

        try store.delete(id: record.id)
        XCTAssertNil(try store.find(id: record.id))
        XCTAssertEqual(try store.all().count, 0)
        XCTAssertEqual(thrown { try store.delete(id: record.id) } as? PairingStoreError, .notFound(record.id))
        XCTAssertEqual(
            thrown {
                try store.recordSession(id: 99, hostDeviceName: "x", hostDHKey: secondDH, binding: RemoteHostBinding())
            } as? PairingStoreError, .notFound(99))
    }

    /// The fingerprint is kept as the reference keeps it: base64url text inside the BLOB (xrcp.md §20.30).
    func testFingerprintIsStoredAsText() throws {
        let db = try ChatDatabases(prefix: prefix, confirmation: .yesUp).chat
        let fingerprint = try CertificateFingerprint(rawRepresentation: SecureRandom.bytes(32))
        _ = try RemoteHostStore(db).insert(
            hostDeviceName: "Pixel", authority: try CertificateAuthority.generate(now: 1_780_000_000, hoursBefore: 1),
            identityKey: Ed25519.PrivateKey(), hostFingerprint: fingerprint, hostDHKey: X25519.PrivateKey().publicKey)
        let rows = try db.query("SELECT host_fingerprint, typeof(host_fingerprint) FROM remote_hosts")
        XCTAssertEqual(rows.first?[1], .text("blob"))
        let text = String(decoding: try XCTUnwrap(rows.first?[0].blob), as: UTF8.self)
        XCTAssertEqual(text.count, 44)
        XCTAssertTrue(text.hasSuffix("="))
    }

    func testActorRecordsFirstAndLaterSessions() async throws {
        let actor = try ChatStoreActor(prefix: prefix, confirmation: .yesUp)
        let ca = try CertificateAuthority.generate(now: 1_780_000_000, hoursBefore: 1)
        let identity = Ed25519.PrivateKey()
        let fingerprint = try CertificateFingerprint(rawRepresentation: SecureRandom.bytes(32))
        let first = try await actor.recordHostSession(
            existing: nil, hostDeviceName: "Pixel", authority: ca, identityKey: identity, hostFingerprint: fingerprint,
            hostDHKey: X25519.PrivateKey().publicKey, binding: RemoteHostBinding(port: 5000))
        let newDH = X25519.PrivateKey().publicKey
        let second = try await actor.recordHostSession(
            existing: first.id, hostDeviceName: "Pixel 2", authority: ca, identityKey: identity, hostFingerprint: fingerprint,
            hostDHKey: newDH, binding: RemoteHostBinding())
        XCTAssertEqual(second.id, first.id)
        XCTAssertEqual(second.hostDHKey, newDH)
        XCTAssertEqual(second.storePath, first.storePath)
        let names = try await actor.remoteHosts { (store) throws(PairingStoreError) in try store.all().map(\.hostDeviceName) }
        XCTAssertEqual(names, ["Pixel 2"])
        do {
            _ = try await actor.recordHostSession(
                existing: 42, hostDeviceName: "x", authority: ca, identityKey: identity, hostFingerprint: fingerprint,
                hostDHKey: newDH, binding: RemoteHostBinding())
            XCTFail("updated a missing host")
        } catch {
            XCTAssertEqual(error, .notFound(42))
        }
    }
}
