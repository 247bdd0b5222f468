import Foundation
import SimplexCrypto
import SimplexEncoding
import XCTest

@testable import Ratchet

/// smp-vectors/ratchet.json (smp.md §8.2), made by Tests/SMPTests/Vectors/gen_vectors.py with `cryptography` and PyNaCl; a missing
/// file fails the test.
struct RatchetVectors {
    let root: [String: Any]

    static func load() throws -> RatchetVectors {
        let url = try XCTUnwrap(
            Bundle.module.url(forResource: "ratchet", withExtension: "json", subdirectory: "Fixtures"),
            "Fixtures/ratchet.json is missing: run Tests/SMPTests/Vectors/gen_vectors.py and copy it here")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        return RatchetVectors(root: try XCTUnwrap(json as? [String: Any]))
    }

    func string(_ path: String...) throws -> String {
        var node: Any = root
        for key in path { node = try XCTUnwrap((node as? [String: Any])?[key], "no \(path.joined(separator: "."))") }
        return try XCTUnwrap(node as? String, "\(path.joined(separator: ".")) is not a string")
    }

    func int(_ path: String...) throws -> Int {
        var node: Any = root
        for key in path { node = try XCTUnwrap((node as? [String: Any])?[key], "no \(path.joined(separator: "."))") }
        return try XCTUnwrap(node as? Int, "\(path.joined(separator: ".")) is not a number")
    }

    func bytes(_ path: String...) throws -> [UInt8] {
        var node: Any = root
        for key in path { node = try XCTUnwrap((node as? [String: Any])?[key], "no \(path.joined(separator: "."))") }
        return try Hex.decode(try XCTUnwrap(node as? String))
    }

    func privateKey(_ name: String) throws -> X448.PrivateKey {
        try X448.PrivateKey(rawRepresentation: bytes("keys_x448_priv", name))
    }
}

/// Keys handed out in order, so that a test decides every ratchet key; running out fails the test's expectations
/// through a fresh key, never a trap.
struct QueuedKeys: RatchetKeySource {
    var keys: [X448.PrivateKey]
    var handedOut = 0

    init(_ keys: [X448.PrivateKey]) { self.keys = keys }

    mutating func nextRatchetKey() -> X448.PrivateKey {
        defer { handedOut += 1 }
        return handedOut < keys.count ? keys[handedOut] : X448.PrivateKey()
    }
}

/// A deterministic generator (SplitMix64) for the simulations and for their ratchet keys.
struct SeededRandom: RandomNumberGenerator, RatchetKeySource {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }

    mutating func nextRatchetKey() -> X448.PrivateKey {
        // Any 56 bytes are an X448 private key (RFC 7748 clamps them).
        (try? X448.PrivateKey(rawRepresentation: bytes(56))) ?? X448.PrivateKey()
    }
}

extension RatchetState {
    /// A decryption that must succeed; applies the skipped-key change as the agent would.
    mutating func open(_ message: [UInt8], skipped: inout SkippedMessageKeys, keys: inout some RatchetKeySource)
        throws -> [UInt8]
    {
        let result = try decrypt(message, skipped: skipped, keys: &keys)
        self = result.state
        skipped.apply(result.skippedKeys)
        return try result.plaintext.get()
    }
}

func hex(_ s: String) throws -> [UInt8] { try Hex.decode(s) }
