import ChatCore
import ChatStore
import Foundation
import SimplexArchive
import SimplexEncoding
import XCTest

/// The store's key, chat-api.md §4.11: `/_db encryption` (and `/db encrypt`, `/db key`, `/db decrypt`), `/db test key`,
/// their `errorDatabase` errors (§8.5), the refusal while the chat runs, and archives of a sealed store.
final class StorageEncryptionCommandTests: XCTestCase {
    private let fm = FileManager.default
    private static let marker = "MARKER-5d1e-written-as-a-note"

    private func files(_ h: EngineHarness) -> (chat: String, agent: String) { ChatDatabases.files(prefix: h.prefix) }

    private func states(_ h: EngineHarness) -> [StorageState] {
        [SQLiteDatabase.storageState(ofFile: files(h).chat), SQLiteDatabase.storageState(ofFile: files(h).agent)]
    }

    /// A new engine on the harness's files, as after a restart; the open error when the key does not open them.
    private func reopened(_ h: EngineHarness, key: String?) -> Result<ChatEngine, ChatDatabases.OpenError> {
        do throws(ChatDatabases.OpenError) {
            return .success(
                try ChatEngine(
                    prefix: h.prefix, key: key.flatMap(EngineHarness.databaseKey), configuration: EngineHarness.configuration))
        } catch {
            return .failure(error)
        }
    }

    private func notes(_ engine: ChatEngine) async -> String { await engine.execute("/_get chat *1 count=100").text }

    /// Starts a reopened engine and reads its notes.
    private func startAndReadNotes(_ engine: ChatEngine) async -> String {
        let started = await engine.execute("/_start").text
        XCTAssertEqual(started, #"{"result":{"type":"chatStarted"}}"#)
        return await notes(engine)
    }

    /// A store with a user and a note holding the marker, stopped, as a key change needs it; its notes.
    private func storeWithANote(_ h: EngineHarness) async -> String {
        await h.startWithUser()
        await h.result("/_create *1 text \(Self.marker)", "newChatItems")
        let listed = await notes(h.engine)
        XCTAssertTrue(listed.contains(Self.marker), listed)
        await h.result("/_stop", "chatStopped")
        return listed
    }

    /// Every file under the harness's folder that holds the marker, by path inside it.
    private func filesHoldingMarker(_ h: EngineHarness) throws -> [String] {
        let marker = Data(Self.marker.utf8)
        var found: [String] = []
        let root = h.folder.path
        for case let name as String in fm.enumerator(atPath: root) ?? FileManager.DirectoryEnumerator() {
            var isFolder: ObjCBool = false
            let path = root + "/" + name
            guard fm.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            if try Data(contentsOf: URL(fileURLWithPath: path)).range(of: marker) != nil { found.append(name) }
        }
        return found.sorted()
    }

    private func databaseError(_ type: String, _ fields: String = "") -> String {
        #"{"error":{"type":"errorDatabase","databaseError":{"type":"\#(type)"\#(fields)}}}"#
    }

    private var wrongKeyError: String { databaseError("errorOpen", #","sqliteError":{"type":"errorNotADatabase"}"#) }

    func testEncryptingAPlaintextStoreSealsItAndThePlainStoreIsRefused() async throws {
        let h = try EngineHarness()
        let before = await storeWithANote(h)
        XCTAssertEqual(try filesHoldingMarker(h), ["simplex_v1_chat.db-wal"], "the scan finds plaintext")

        await h.expect(#"/_db encryption {"currentKey":"","newKey":"k3y"}"#, #"{"result":{"type":"cmdOk"}}"#)
        XCTAssertEqual(states(h), [.encrypted, .encrypted])
        XCTAssertEqual(try filesHoldingMarker(h), [])
        // The engine reopened its connections under the new key and reads on; a start needs a new engine.
        await h.result("/users", "usersList")
        await h.chatError("/_start", "chatStoreChanged")
        await h.expect("/db test key k3y", #"{"result":{"type":"cmdOk"}}"#)

        guard case .failure(let plain) = reopened(h, key: nil) else { return XCTFail("the plain store opened") }
        XCTAssertEqual(plain, .errorNotADatabase(dbFile: files(h).chat))
        let after = await startAndReadNotes(try reopened(h, key: "k3y").get())
        XCTAssertEqual(after, before)
    }

    func testAfterAKeyChangeTheOldKeyIsRefusedAndTheNewOneOpensTheData() async throws {
        let h = try EngineHarness(key: "old-key")
        let before = await storeWithANote(h)

        await h.expect("/db key old-key n3w-key", #"{"result":{"type":"cmdOk"}}"#)
        await h.expect("/db test key old-key", wrongKeyError)
        await h.expect("/db test key n3w-key", #"{"result":{"type":"cmdOk"}}"#)
        XCTAssertEqual(try filesHoldingMarker(h), [])
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: h.folder.path).filter { $0.hasSuffix("-rekey") }, [])

        guard case .failure(let old) = reopened(h, key: "old-key") else { return XCTFail("the old key opened the store") }
        XCTAssertEqual(old, .errorNotADatabase(dbFile: files(h).chat))
        let after = await startAndReadNotes(try reopened(h, key: "n3w-key").get())
        XCTAssertEqual(after, before)
    }

    func testDecryptingGivesPlaintextFilesWithEveryNote() async throws {
        let h = try EngineHarness(key: "k3y")
        let before = await storeWithANote(h)

        await h.expect(#"/_db encryption {"currentKey":"k3y","newKey":"","keepKey":true}"#, #"{"result":{"type":"cmdOk"}}"#)
        XCTAssertEqual(states(h), [.plaintext, .plaintext])
        // The core opens the file under the key and reads it as not a database (`sqlCipherTestKey`).
        await h.expect("/db test key k3y", wrongKeyError)
        guard case .failure(let keyed) = reopened(h, key: "k3y") else { return XCTFail("a key opened plaintext files") }
        XCTAssertEqual(keyed, .errorNotADatabase(dbFile: files(h).chat))
        let after = await startAndReadNotes(try reopened(h, key: nil).get())
        XCTAssertEqual(after, before)
    }

    func testTestingAKey() async throws {
        let h = try EngineHarness(key: "right")
        await h.startWithUser()
        // A second connection while the chat runs: allowed, nothing written.
        await h.expect("/db test key right", #"{"result":{"type":"cmdOk"}}"#)
        await h.expect("/db test key wrong", wrongKeyError)
        await h.result("/_create *1 text still writable", "newChatItems")

        let plain = try EngineHarness()
        await plain.expect("/db test key any", wrongKeyError)
    }

    func testRefusalsLeaveTheStoreAsItWas() async throws {
        let h = try EngineHarness(key: "k3y")
        await h.startWithUser()
        await h.result("/_create *1 text \(Self.marker)", "newChatItems")
        await h.chatError(#"/_db encryption {"currentKey":"k3y","newKey":"n3w"}"#, "chatNotStopped")
        await h.chatError("/db key k3y n3w", "chatNotStopped")
        await h.chatError("/db decrypt k3y", "chatNotStopped")
        await h.result("/_stop", "chatStopped")

        await h.expect(#"/_db encryption {"currentKey":"","newKey":"n3w"}"#, databaseError("errorEncrypted"))
        await h.expect(#"/_db encryption {"currentKey":"wrong","newKey":"n3w"}"#, wrongKeyError)
        await h.chatError(#"/_db encryption {"newKey":"n3w"}"#, "commandError")
        await h.chatError(#"/_db encryption {"currentKey":1,"newKey":"n3w"}"#, "commandError")
        XCTAssertEqual(states(h), [.encrypted, .encrypted])
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: h.folder.path).filter { $0.hasSuffix("-rekey") }, [])

        // Nothing changed: the store is open under its key, and the chat starts again.
        await h.result("/_start", "chatStarted")
        let listed = await notes(h.engine)
        XCTAssertTrue(listed.contains(Self.marker), listed)
        await h.expect("/db test key k3y", #"{"result":{"type":"cmdOk"}}"#)

        let plain = try EngineHarness()
        await plain.expect(#"/_db encryption {"currentKey":"x","newKey":"n3w"}"#, databaseError("errorPlaintext"))
        // Equal keys change nothing (the official core's `when (key /= key')`).
        await plain.expect(#"/_db encryption {"currentKey":"","newKey":""}"#, #"{"result":{"type":"cmdOk"}}"#)
        XCTAssertEqual(states(plain), [.plaintext, .plaintext])
    }

    func testNoFileHoldsANoteWhileASealedChatRuns() async throws {
        let h = try EngineHarness(key: "k3y")
        await h.startWithUser()
        for i in 0..<200 { await h.result("/_create *1 text \(i) \(Self.marker)", "newChatItems") }
        let names = try fm.contentsOfDirectory(atPath: h.folder.path)
        XCTAssertTrue(names.contains("simplex_v1_chat.db-wal"), "\(names)")
        XCTAssertEqual(try filesHoldingMarker(h), [])
        await h.result("/_stop", "chatStopped")
        await h.engine.closeStore()
        XCTAssertEqual(try filesHoldingMarker(h), [])
    }

    /// As the apps do, an export of a sealed store holds its files sealed, under the same passphrase: the importer
    /// needs that key.
    func testArchivesOfASealedStoreStaySealedAndNeedTheKey() async throws {
        let h = try EngineHarness(key: "k3y")
        let before = await storeWithANote(h)
        let archive = h.folder.appendingPathComponent("export.zip").path
        await h.expect(
            #"/_db export {"archivePath":"\#(archive)"}"#, #"{"result":{"type":"archiveExported","archiveErrors":[]}}"#)

        let reader = try ZipReader(source: FileZipSource(path: archive))
        var databases = 0
        for entry in reader.entries {
            let sink = MemoryZipSink()
            try reader.extract(entry, to: sink)
            XCTAssertNil(Data(sink.bytes).range(of: Data(Self.marker.utf8)), entry.name)
            if entry.name.hasSuffix(".db") {
                XCTAssertEqual(Array(sink.bytes.prefix(16)), Array("SimpleX-SealedDB".utf8), entry.name)
                databases += 1
            }
        }
        XCTAssertEqual(databases, 2)

        await h.expect("/_db delete", #"{"result":{"type":"cmdOk"}}"#)
        await h.expect(
            #"/_db import {"archivePath":"\#(archive)"}"#, #"{"result":{"type":"archiveImported","archiveErrors":[]}}"#)
        guard case .failure(let plain) = reopened(h, key: nil) else { return XCTFail("the imported files opened plain") }
        XCTAssertEqual(plain, .errorNotADatabase(dbFile: files(h).chat))
        let after = await startAndReadNotes(try reopened(h, key: "k3y").get())
        XCTAssertEqual(after, before)
    }
}
