import Foundation
import SimplexArchive
import TestSupport
import XCTest

/// Compatibility with an independent implementation, Python's `zipfile` (Tests/Peers/zip_peer.py): it reads what we
/// write, and we read what it writes, including streamed entries with data descriptors and forced ZIP64.
final class PythonZipTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("zip-peer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func peer(_ arguments: [String]) throws -> Any {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Python.interpreter())
        process.arguments = [Python.script("Tests/Peers/zip_peer.py")] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PeerFailure(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
        return try JSONSerialization.jsonObject(with: data)
    }

    func testPythonReadsOurArchives() throws {
        var forced = ZipWriter.Options()
        forced.forceZip64 = true
        let cases: [(String, ZipWriter.Method, ZipWriter.Options)] = [
            ("stored", .stored, .init()), ("deflated", .deflated, .init()), ("zip64", .deflated, forced),
        ]
        for (label, method, options) in cases {
            let path = folder.appendingPathComponent("\(label).zip").path
            try Data(try archive(sampleEntries, method: method, options: options)).write(to: URL(fileURLWithPath: path))
            let listed = try XCTUnwrap(try peer(["read", path]) as? [[String: Any]], label)
            XCTAssertEqual(listed.compactMap { $0["name"] as? String }, sampleEntries.map(\.0), label)
            XCTAssertEqual(listed.compactMap { $0["method"] as? Int }, Array(repeating: Int(method.rawValue), count: 4), label)
            XCTAssertEqual(listed.compactMap { ($0["data"] as? String).map(hexBytes) }, sampleEntries.map(\.1), label)
        }
    }

    func testWeReadPythonArchives() throws {
        let manifest = try XCTUnwrap(try peer(["write", folder.path]) as? [[String: Any]])
        let expected = try manifest.map { item -> (String, [UInt8]) in
            let name = try XCTUnwrap(item["name"] as? String)
            return (name, content(try XCTUnwrap(item["size"] as? Int), seed: try XCTUnwrap(item["seed"] as? Int)))
        }
        XCTAssertEqual(expected.count, 4)
        for label in ["stored", "deflated", "zip64", "streamed"] {
            let path = folder.appendingPathComponent("\(label).zip").path
            let reader = try ZipReader(source: FileZipSource(path: path))
            XCTAssertEqual(reader.entries.map(\.name), expected.map(\.0), label)
            for (entry, (_, data)) in zip(reader.entries, expected) {
                XCTAssertNoThrow(try entry.safePath())
                let out = MemoryZipSink()
                try reader.extract(entry, to: out)
                XCTAssertEqual(out.bytes, data, "\(label) \(entry.name)")
            }
        }
        let hostile = try ZipReader(source: FileZipSource(path: folder.appendingPathComponent("hostile.zip").path))
        let verdicts = hostile.entries.map { entry in (entry.name, thrown { try entry.safePath() } as? ZipError) }
        XCTAssertEqual(
            verdicts.map(\.0), ["../evil.txt", "/etc/evil.txt", "simplex_v1_files/../../evil.txt", "C:evil.txt", "ok.txt"])
        XCTAssertEqual(verdicts.map(\.1), verdicts.dropLast().map { .unsafeName($0.0) } + [nil])
    }
}

private func hexBytes(_ hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var high: UInt8?
    for c in hex.utf8 {
        let v = c <= 57 ? c - 48 : c - 87
        if let h = high {
            out.append(h << 4 | v)
            high = nil
        } else {
            high = v
        }
    }
    return out
}
