import Foundation
import SimplexEncoding
import TestSupport
import XCTest

/// The committed fixtures made by scripts/fixtures/generate.py with PyNaCl, cryptography and pqcrypto.
struct CryptoFixtures: Decodable {
    struct Ed25519Case: Decodable { let seed, pkcs8, spki, message, signature: String }
    struct X25519Case: Decodable {
        let `private`, pkcs8, publicSpki, peerPublic, shared, beforenm, nonce, message, box: String
    }
    struct SecretBoxCase: Decodable { let key, nonce, message, hsalsa, box, boxTailTag, boxPadded1024: String }
    struct HashCase: Decodable { let message, sha256, sha512, sha3_256: String }
    struct HKDFCase: Decodable {
        let ikm, info, okm: String
        let length: Int
    }
    struct ChainStep: Decodable { let chainKey, key, nonce: String }
    struct ChainCase: Decodable {
        let hybrid, controllerToHost, hostToController: String
        let controllerToHostSteps, hostToControllerSteps: [ChainStep]
    }
    struct KEMCase: Decodable {
        let publicKey, secretKey, ciphertext, sharedSecret, tamperedCiphertext, tamperedSharedSecret: String
    }
    struct CertificateCase: Decodable {
        let ca, caFingerprint, caPublicSpki, leaf, leafFingerprint, leafPublicSpki, unrelatedCa: String
        let now: Int64
    }

    let ed25519: [Ed25519Case]
    let x25519: [X25519Case]
    let secretbox: [SecretBoxCase]
    let hashes: [HashCase]
    let hkdf: [HKDFCase]
    let chains: [ChainCase]
    let sntrup761: [KEMCase]
    let certificates: [CertificateCase]

    /// Loads the fixtures; a missing or unreadable file fails the test instead of skipping it.
    static func load() throws -> CryptoFixtures {
        let url = try XCTUnwrap(
            Bundle.module.url(forResource: "crypto", withExtension: "json", subdirectory: "Fixtures"),
            "Fixtures/crypto.json is missing: run scripts/fixtures/generate.py")
        return try JSONDecoder().decode(CryptoFixtures.self, from: Data(contentsOf: url))
    }
}

func hex(_ s: String) throws -> [UInt8] { try Hex.decode(s) }

/// Runs scripts/fixtures/interop.py (independent implementations) on a JSON request.
enum Interop {
    static func run(_ request: [String: Any]) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Python.interpreter())
        process.arguments = [Python.script("scripts/fixtures/interop.py")]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let body = try JSONSerialization.data(withJSONObject: request)
        // Write on another thread so a large answer cannot dead-lock the pipes.
        let writer = Thread {
            input.fileHandleForWriting.write(body)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let answer = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PeerFailure("interop.py failed: " + String(decoding: stderr, as: UTF8.self))
        }
        return try XCTUnwrap(JSONSerialization.jsonObject(with: answer) as? [String: Any])
    }
}
