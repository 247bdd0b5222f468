import Foundation
import SimplexEncoding
import XCTest

/// One of the committed vector files of smp.md §8 (Fixtures/README.md); a missing file fails the test.
func fixture(_ name: String) throws -> CanonicalJSON {
    let url = try XCTUnwrap(
        Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"),
        "Fixtures/\(name).json is missing: copy it from the spec's smp-vectors or run Tests/SMPTests/Vectors/gen_vectors.py")
    return try CanonicalJSON.parse(Array(try Data(contentsOf: url)))
}

extension CanonicalJSON {
    /// The value at a path of object keys, failing the test when absent.
    func at(_ path: String..., file: StaticString = #filePath, line: UInt = #line) throws -> CanonicalJSON {
        var node = self
        for key in path { node = try XCTUnwrap(node[key], "no \(path.joined(separator: "."))", file: file, line: line) }
        return node
    }

    func string(_ path: String..., file: StaticString = #filePath, line: UInt = #line) throws -> String {
        var node = self
        for key in path { node = try XCTUnwrap(node[key], "no \(path.joined(separator: "."))", file: file, line: line) }
        return try XCTUnwrap(node.stringValue, "\(path.joined(separator: ".")) is not a string", file: file, line: line)
    }

    func hex(_ path: String..., file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
        var node = self
        for key in path { node = try XCTUnwrap(node[key], "no \(path.joined(separator: "."))", file: file, line: line) }
        return try Hex.decode(try XCTUnwrap(node.stringValue, file: file, line: line))
    }

    func int(_ path: String..., file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        var node = self
        for key in path { node = try XCTUnwrap(node[key], "no \(path.joined(separator: "."))", file: file, line: line) }
        guard case .integer(let n) = node else {
            XCTFail("\(path.joined(separator: ".")) is not an integer", file: file, line: line)
            return -1
        }
        return Int(n)
    }

    var objectValue: [String: CanonicalJSON] {
        if case .object(let o) = self { return o }
        return [:]
    }
}
