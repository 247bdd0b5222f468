import Foundation
import SimplexEncoding
import SimplexHost
import XCTest

/// `--core-lib`: a libsimplex loaded at run time, and each way loading it fails.
final class LibraryCoreTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("library-core-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try FileManager.default.removeItem(at: folder) }

    private func loadError(_ path: String, prefix: String? = nil) async -> LibraryCore.LoadError? {
        do {
            _ = try await LibraryCore.load(path: path, prefix: prefix ?? folder.appendingPathComponent("simplex_v1").path)
            return nil
        } catch {
            return error
        }
    }

    func testAMissingFileIsNotLoadable() async {
        let path = folder.appendingPathComponent("libsimplex.so").path
        guard case .notLoadable(let reported, let reason) = await loadError(path) else { return XCTFail("loaded") }
        XCTAssertEqual(reported, path)
        XCTAssertTrue(reason.contains("No such file"), reason)
        XCTAssertFalse(reason.contains(path), "the path is said once: \(reason)")
    }

    func testAFileThatIsNoLibraryIsNotLoadable() async throws {
        let path = folder.appendingPathComponent("libsimplex.so").path
        try Data("not a library".utf8).write(to: URL(fileURLWithPath: path))
        guard case .notLoadable = await loadError(path) else { return XCTFail("loaded") }
    }

    func testALibraryWithoutTheFunctionsIsNoLibsimplex() async throws {
        // The C library this process already runs: a real shared library, with no chat_* function.
        // Read to the end: /proc files report no size, and one read may return only a part.
        let maps = String(
            decoding: try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd() ?? Data(), as: UTF8.self
        )
        let libc = try XCTUnwrap(
            maps.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
                .first { $0.hasSuffix("/libc.so.6") })
        let error = await loadError(libc)
        XCTAssertEqual(error, .missingFunction(path: libc, name: "hs_init_with_rtsopts"))
        XCTAssertEqual(error?.description, "\(libc) is not a libsimplex: it has no hs_init_with_rtsopts")
    }

    /// The libsimplex.so built beside this test, or a skip when only the tests were built.
    private func builtLibrary() throws -> String {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let path = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("libsimplex.so").path
        guard FileManager.default.fileExists(atPath: path) else { throw XCTSkip("\(path) is not built") }
        return path
    }

    func testAMigrationThatFailsGivesItsResultType() async throws {
        let library = try builtLibrary()
        let prefix = folder.appendingPathComponent("simplex_v1").path
        try Data(repeating: 0x5a, count: 4096).write(to: URL(fileURLWithPath: prefix + "_chat.db"))
        guard case .migration(let type, let result) = await loadError(library, prefix: prefix) else {
            return XCTFail("opened")
        }
        XCTAssertEqual(type, "errorNotADatabase")
        XCTAssertTrue(result.contains(#""dbFile":"\#(prefix)_chat.db""#), result)
    }

    /// Our own libsimplex in this process, which links the same core's modules: a second copy, kept apart by
    /// RTLD_LOCAL, serving commands and events on its own store.
    func testCommandsAndEventsThroughTheLibrary() async throws {
        let library = try builtLibrary()
        let prefix = folder.appendingPathComponent("simplex_v1").path
        let core = try await LibraryCore.load(path: library, prefix: prefix)
        XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + "_chat.db"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + "_agent.db"))
        func type(_ line: String) async -> String? {
            let envelope = try? CanonicalJSON.parse(await core.execute(line))
            return (envelope?["result"] ?? envelope?["error"])?["type"]?.stringValue
        }
        let user = await type("/user")
        XCTAssertEqual(user, "error")
        let created = await type("/create user alice")
        XCTAssertEqual(created, "activeUser")
        let started = await type("/_start")
        XCTAssertEqual(started, "chatStarted")
        let nothing = await core.nextEvent(waitMicroseconds: 10_000)
        XCTAssertNil(nothing)
        let suspended = await type("/_app suspend 0")
        XCTAssertEqual(suspended, "cmdOk")
        let event = await core.nextEvent(waitMicroseconds: 1_000_000)
        XCTAssertEqual(event.map { String(decoding: $0, as: UTF8.self) }, #"{"result":{"type":"chatSuspended"}}"#)
        // Commands from several tasks at once, each answered.
        let answers = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<16 { group.addTask { await type("/users") } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        XCTAssertEqual(answers, Array(repeating: "usersList", count: 16))
    }
    /// `getFile` on a loaded library: the file record is the library's, found through its command API, and served
    /// only as the reference serves it (the active user, the record's direction and source).
    func testRecordedFilesAreResolvedThroughTheLibrary() async throws {
        let library = try builtLibrary()
        let prefix = folder.appendingPathComponent("simplex_v1").path
        let core = try await LibraryCore.load(path: library, prefix: prefix)
        func result(_ line: String) async -> CanonicalJSON? { (try? CanonicalJSON.parse(await core.execute(line)))?["result"] }
        let files = folder.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        let paths = #"{"appFilesFolder":"\#(files.path)","appTempFolder":"\#(folder.path)","appAssetsFolder":"\#(folder.path)"}"#
        _ = await result("/set file paths " + paths)
        let createdUser = await result("/create user alice")
        let user = try XCTUnwrap(createdUser?["user"]?["userId"]?.integerValue)
        _ = await result("/_start")
        try Data("recorded".utf8).write(to: files.appendingPathComponent("photo.jpg"))
        // Older notes first, so that the file's item is not on the newest page.
        for i in 0..<7 { _ = await result("/_create *1 text note \(i)") }
        let note = #"[{"fileSource":{"filePath":"photo.jpg"},"msgContent":{"type":"file","text":"f"}}]"#
        let created = await result("/_create *1 json " + note)
        guard case .array(let items)? = created?["chatItems"], let file = items.first?["chatItem"]?["file"] else {
            return XCTFail("no file item: \(created?.rendered ?? "nil")")
        }
        let fileId = try XCTUnwrap(file["fileId"]?.integerValue)
        for i in 0..<7 { _ = await result("/_create *1 text later \(i)") }
        let source = CanonicalJSON.object(["filePath": .string("photo.jpg")])
        var lookup = RecordedFiles(execute: { await core.execute($0) })
        lookup.pageSize = 3
        let found = await lookup.path(userId: user, fileId: fileId, sent: true, fileSource: source)
        XCTAssertEqual(try found.get(), "photo.jpg")
        let direct = await core.recordedFilePath(userId: user, fileId: fileId, sent: true, fileSource: source)
        XCTAssertEqual(try direct.get(), "photo.jpg")

        func error(_ r: Result<String, ChatErrorEnvelope>) -> CanonicalJSON? {
            guard case .failure(let e) = r else { return nil }
            return (try? CanonicalJSON.parse(e.bytes))?["error"]
        }
        let notFound = ChatError.store(type: "fileNotFound", fields: ["fileId": .integer(fileId)]).json
        let asReceived = await lookup.path(userId: user, fileId: fileId, sent: false, fileSource: source)
        XCTAssertEqual(error(asReceived), notFound)
        let otherSource = await lookup.path(
            userId: user, fileId: fileId, sent: true, fileSource: .object(["filePath": .string("other.jpg")]))
        XCTAssertEqual(error(otherSource), notFound)
        let encrypted = await lookup.path(
            userId: user, fileId: fileId, sent: true,
            fileSource: .object([
                "filePath": .string("photo.jpg"),
                "cryptoArgs": .object(["fileKey": .string("a"), "fileNonce": .string("b")]),
            ]))
        XCTAssertEqual(error(encrypted), notFound)
        let missing = await lookup.path(userId: user, fileId: fileId + 100, sent: true, fileSource: source)
        XCTAssertEqual(
            error(missing), ChatError.store(type: "fileNotFound", fields: ["fileId": .integer(fileId + 100)]).json)
        let otherUser = await lookup.path(userId: user + 1, fileId: fileId, sent: true, fileSource: source)
        XCTAssertEqual(error(otherUser)?["errorType"]?["type"], .string("differentActiveUser"))
    }
}
