import ChatModel
import ChatStore
import Foundation
import SimplexHost
import XCTest

/// The host's pairing-store connections around the core's key changes (`HostStoreFiles`): closed before, reopened
/// under the key the files have after; the host's own files follow a loaded library's key change.
final class HostStoreFilesTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func prefix(_ name: String) -> String { folder.appendingPathComponent(name).path }
    private let ok = Array(#"{"result":{"type":"cmdOk"}}"#.utf8)
    private let refused = Array(#"{"error":{"type":"error","errorType":{"type":"chatNotStopped"}}}"#.utf8)

    /// Whether the host's connections read: the number of known controllers, nil when they fail.
    private func pairings(_ store: ChatStoreActor) async -> Int? {
        try? await store.remoteControllers { (table) throws(PairingStoreError) in try table.all().count }
    }

    func testSharedFilesReopenUnderTheKeyTheCoreGaveThem() async throws {
        let store = try ChatStoreActor(prefix: prefix("simplex_v1"), key: DatabaseKey("a"), confirmation: .yesUp)
        let core = try ChatDatabases(prefix: prefix("simplex_v1"), key: DatabaseKey("a"), confirmation: .yesUp)
        let files = HostStoreFiles(store: store, sharedWithCore: true)

        let answer = await files.around(try ChatCommand(parsing: "/db key a b")) {
            do { try core.changeKey(current: DatabaseKey("a"), new: DatabaseKey("b")) } catch { return [] }
            return ok
        }
        XCTAssertEqual(answer, ok)
        let read0 = await pairings(store)
        XCTAssertEqual(read0, 0)
        XCTAssertNoThrow(try ChatDatabases.testKey(prefix: prefix("simplex_v1"), key: DatabaseKey("b")))

        // A refused change: the files keep their key, and so do the host's connections.
        let kept = await files.around(try ChatCommand(parsing: "/db key b c")) { refused }
        XCTAssertEqual(kept, refused)
        let read1 = await pairings(store)
        XCTAssertEqual(read1, 0)
        XCTAssertNoThrow(try ChatDatabases.testKey(prefix: prefix("simplex_v1"), key: DatabaseKey("b")))
    }

    func testTheHostsOwnFilesFollowALibrarysKeyChange() async throws {
        let store = try ChatStoreActor(prefix: prefix("simplex_host"), key: DatabaseKey("a"), confirmation: .yesUp)
        let files = HostStoreFiles(store: store, sharedWithCore: false)

        let answer = await files.around(try ChatCommand(parsing: "/db key a b")) { ok }
        XCTAssertEqual(answer, ok)
        let read2 = await pairings(store)
        XCTAssertEqual(read2, 0)
        XCTAssertNoThrow(try ChatDatabases.testKey(prefix: prefix("simplex_host"), key: DatabaseKey("b")))

        _ = await files.around(try ChatCommand(parsing: "/db decrypt b")) { ok }
        XCTAssertEqual(SQLiteDatabase.storageState(ofFile: ChatDatabases.files(prefix: prefix("simplex_host")).chat), .plaintext)
        let read3 = await pairings(store)
        XCTAssertEqual(read3, 0)

        // Commands that leave the files' keys alone: closed and reopened as they were.
        for line in ["/db key x x", #"/_db import {"archivePath":"/nowhere.zip"}"#] {
            _ = await files.around(try ChatCommand(parsing: line)) { ok }
            let read4 = await pairings(store)
            XCTAssertEqual(read4, 0, line)
        }
    }

    func testOnlyCommandsThatReplaceOrRekeyTheFilesAreGuarded() throws {
        for line in ["/db key a b", "/db encrypt a", "/db decrypt a", "/_db delete", #"/_db import {"archivePath":"x"}"#] {
            XCTAssertTrue(HostStoreFiles.changesFiles(try ChatCommand(parsing: line)), line)
        }
        for line in [#"/_db export {"archivePath":"x"}"#, "/db test key a", "/users"] {
            XCTAssertFalse(HostStoreFiles.changesFiles(try ChatCommand(parsing: line)), line)
        }
    }
}
