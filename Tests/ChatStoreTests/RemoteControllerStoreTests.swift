import ChatStore
import Foundation
import SimplexCrypto
import TestSupport
import XCTest

final class RemoteControllerStoreTests: XCTestCase {
    func testPairingLifecycle() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pairings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let prefix = folder.appendingPathComponent("simplex_v1").path
        var store = RemoteControllerStore(try ChatDatabases(prefix: prefix, confirmation: .yesUp).chat)

        let ca = try CertificateAuthority.generate(now: 1_780_000_000, hoursBefore: 1)
        let fingerprint = try CertificateFingerprint(rawRepresentation: SecureRandom.bytes(32))
        let identity = Ed25519.PrivateKey().publicKey
        let firstDH = X25519.PrivateKey()
        let record = try store.insert(
            deviceName: "Desktop", authority: ca, controllerFingerprint: fingerprint, identityKey: identity, dhKey: firstDH)
        XCTAssertNil(record.previousDHKey)
        // The fingerprint is unique.
        XCTAssertThrowsError(
            try store.insert(
                deviceName: "Again", authority: ca, controllerFingerprint: fingerprint, identityKey: identity, dhKey: firstDH))

        let secondDH = X25519.PrivateKey()
        try store.recordSession(id: record.id, deviceName: "Desktop 2", dhKey: secondDH)
        // Reopen: everything decodes back from the file.
        store = RemoteControllerStore(try ChatDatabases(prefix: prefix, confirmation: .error).chat)
        let found = try XCTUnwrap(try store.find(fingerprint: fingerprint))
        XCTAssertEqual(found.id, record.id)
        XCTAssertEqual(found.deviceName, "Desktop 2")
        XCTAssertEqual(found.dhKey.publicKey, secondDH.publicKey)
        XCTAssertEqual(found.previousDHKey?.publicKey, firstDH.publicKey)
        XCTAssertEqual(found.identityKey, identity)
        XCTAssertEqual(found.authority.certificate, ca.certificate)
        XCTAssertEqual(found.authority.key.publicKey, ca.key.publicKey)
        XCTAssertEqual(try store.all().map(\.id), [record.id])

        try store.delete(id: record.id)
        XCTAssertNil(try store.find(id: record.id))
        XCTAssertEqual(thrown { try store.delete(id: record.id) } as? PairingStoreError, .notFound(record.id))
        XCTAssertEqual(
            thrown { try store.recordSession(id: 99, deviceName: "x", dhKey: secondDH) } as? PairingStoreError, .notFound(99))
    }
}
