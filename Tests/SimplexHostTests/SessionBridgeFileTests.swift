import Foundation
import RemoteChat
import SimplexCrypto
import SimplexEncoding
import SimplexHost
import XCTest
import XRCP

/// A core whose file records are given by the test: the path it records for any request, or an error.
struct RecordingBackend: ChatBackend {
    let recorded: Result<String, ChatErrorEnvelope>
    func execute(_ line: String) async -> [UInt8] { Array(#"{"result":{"type":"cmdOk"}}"#.utf8) }
    func nextEvent(waitMicroseconds: Int64) async -> [UInt8]? { nil }
    func recordedFilePath(userId: Int64, fileId: Int64, sent: Bool, fileSource: CanonicalJSON) async -> Result<
        String, ChatErrorEnvelope
    > { recorded }
}

/// `getFile` on the host (xrcp.md §11.3): served against the core's file records, and only from the files folder.
final class SessionBridgeFileTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("files"), withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func bridge(_ recorded: Result<String, ChatErrorEnvelope>) -> SessionBridge {
        let backend = RecordingBackend(recorded: recorded)
        let router = EventRouter(backend: backend, isRemoteConnected: { false }, endRemoteSession: {}, local: { _ in })
        return SessionBridge(backend: backend, events: router, filesFolder: folder.appendingPathComponent("files"))
    }

    private let request = RemoteFile(
        userId: 1, fileId: 7, sent: true, fileSource: .object(["filePath": .string("report.txt")]))

    /// The chat error a refused download answers with, as text.
    private func refusal(_ recorded: Result<String, ChatErrorEnvelope>) async -> String? {
        do {
            _ = try await bridge(recorded).openFile(request)
            return nil
        } catch {
            guard case .chat(let bytes) = error else { return "\(error)" }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    func testARecordedFileIsStreamedWithItsHash() async throws {
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: folder.appendingPathComponent("files/report.txt"))
        let source = try await bridge(.success("report.txt")).openFile(request)
        XCTAssertEqual(source.size, 200_000)
        XCTAssertEqual(source.digest, Digest.sha512(bytes))
        var read: [UInt8] = []
        while let piece = try await source.read(max: 65_536) { read += piece }
        XCTAssertEqual(read, bytes)
    }

    /// `storeFile` with a name no file system takes is refused with the reason before anything is written, and
    /// leaves no `.upload-` file (a 5,000-character name used to answer "cannot store the file" at the end and leave
    /// its temporary file); a name near the limit still gets a unique name that fits.
    func testUploadNamesTooLongAreRefusedWithTheReason() async throws {
        let files = folder.appendingPathComponent("files")
        let long = String(repeating: "n", count: 5_000) + ".jpg"
        do {
            _ = try await bridge(.success("")).beginStoring(fileName: long, fileSize: 3)
            XCTFail("a 5,004-byte name was taken")
        } catch {
            XCTAssertEqual(
                error, .invalidBody("cannot store the file: its name is 5004 bytes long, and a file name may have at most 255"))
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: files.path), [])

        let nearLimit = String(repeating: "é", count: 125) + ".jpg"
        XCTAssertEqual(nearLimit.utf8.count, 254)
        var stored: [String] = []
        for _ in 0..<2 {
            let sink = try await bridge(.success("")).beginStoring(fileName: nearLimit, fileSize: 3)
            try await sink.write([1, 2, 3])
            stored.append(try await sink.commit())
        }
        XCTAssertEqual(stored[0], nearLimit)
        XCTAssertTrue(stored[1].hasSuffix("_1.jpg") && stored[1].utf8.count <= 255, stored[1])
        XCTAssertEqual(
            Set(try FileManager.default.contentsOfDirectory(atPath: files.path)), Set(stored), "no .upload- file is left")
    }

    func testTheCoresErrorIsTheAnswer() async {
        let error = Array(#"{"error":{"type":"error","errorType":{"type":"noActiveUser"}}}"#.utf8)
        let answer = await refusal(.failure(ChatErrorEnvelope(bytes: error)))
        XCTAssertEqual(answer, String(decoding: error, as: UTF8.self))
    }

    func testNothingOutsideTheFilesFolderIsServed() async throws {
        try Data("secret".utf8).write(to: folder.appendingPathComponent("outside.txt"))
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("files/link.txt"), withDestinationURL: folder.appendingPathComponent("outside.txt"))
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("files/sub"), withIntermediateDirectories: true)
        let notFound = #"{"error":{"type":"errorStore","storeError":{"type":"fileNotFound","fileId":7}}}"#
        for path in [
            "../outside.txt", "sub/../../outside.txt", folder.appendingPathComponent("outside.txt").path, "link.txt", "sub",
            "", ".", "missing.txt",
        ] {
            let answer = await refusal(.success(path))
            XCTAssertEqual(answer.map { try? CanonicalJSON.parse($0) }, try CanonicalJSON.parse(notFound), path)
        }
    }
}
