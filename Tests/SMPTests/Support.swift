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

/// A deterministic generator for the random-input tests (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255, using: &self) } }
}
