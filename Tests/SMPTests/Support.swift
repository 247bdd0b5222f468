import Foundation
import SimplexEncoding
import XCTest

/// One of the committed vector files of smp.md §8 (made by Vectors/gen_vectors.py); a missing or unreadable file
/// fails the test instead of skipping it.
func vectors(_ name: String) throws -> CanonicalJSON {
    let url = try XCTUnwrap(
        Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Vectors"),
        "Vectors/\(name).json is missing: copy it from the spec's smp-vectors or run Vectors/gen_vectors.py")
    return try CanonicalJSON.parse(Array(try Data(contentsOf: url)))
}

extension CanonicalJSON {
    /// A string field, failing the test when absent.
    func string(_ key: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try XCTUnwrap(self[key]?.stringValue, "no \(key)", file: file, line: line)
    }

    func hex(_ key: String, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
        try Hex.decode(try string(key, file: file, line: line))
    }

    func field(_ key: String, file: StaticString = #filePath, line: UInt = #line) throws -> CanonicalJSON {
        try XCTUnwrap(self[key], "no \(key)", file: file, line: line)
    }
}
