import Foundation
import SimplexEncoding
import XCTest
import XRCP

final class SwiftEncodingTests: XCTestCase {
    func testReferencePairs() throws {
        let url = try XCTUnwrap(
            Bundle.module.url(forResource: "swift-tagged-pairs", withExtension: "json", subdirectory: "Fixtures"))
        guard case .array(let pairs) = try CanonicalJSON.parse(Array(try Data(contentsOf: url))) else {
            return XCTFail("not a list")
        }
        XCTAssertGreaterThanOrEqual(pairs.count, 7)
        for pair in pairs {
            let swift = try XCTUnwrap(pair["swift"])
            let tagged = try XCTUnwrap(pair["tagged"])
            XCTAssertEqual(SwiftEncoding.toTagged(swift), tagged)
            // Tagged JSON is left as it is.
            XCTAssertEqual(SwiftEncoding.toTagged(tagged), tagged)
        }
    }

    func testUnnamedArgumentBecomesData() throws {
        let swift = try CanonicalJSON.parse(#"{"_owsf":true,"protocolError":{"_owsf":true,"pRESessionCode":{}}}"#)
        XCTAssertEqual(SwiftEncoding.toTagged(swift).rendered, #"{"data":{"type":"pRESessionCode"},"type":"protocolError"}"#)
        let scalar = try CanonicalJSON.parse(#"{"_owsf":true,"manySkippedIds":300}"#)
        XCTAssertEqual(SwiftEncoding.toTagged(scalar).rendered, #"{"data":300,"type":"manySkippedIds"}"#)
        // `_owsf` false or a third key: not a single-field value.
        let plain = try CanonicalJSON.parse(#"{"_owsf":false,"x":{}}"#)
        XCTAssertEqual(SwiftEncoding.toTagged(plain), plain)
    }
}
