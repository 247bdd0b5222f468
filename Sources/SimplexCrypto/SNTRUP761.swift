internal import CSNTRUP761

/// Streamlined NTRU Prime sntrup761 (xrcp.md §1.8), the post-quantum half of the session secret.
/// Our own C implementation; randomness comes from libsodium.
public enum SNTRUP761 {
    public static let publicKeySize = 1158
    public static let secretKeySize = 1763
    public static let ciphertextSize = 1039
    public static let sharedSecretSize = 32

    public struct PublicKey: Sendable, Hashable {
        public let rawRepresentation: [UInt8]
        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, publicKeySize, "sntrup761 public key")
            rawRepresentation = raw
        }
        init(validated raw: [UInt8]) { rawRepresentation = raw }

        /// Encapsulation: a fresh shared secret and the ciphertext that carries it to the key's owner.
        public func encapsulate() -> (ciphertext: Ciphertext, sharedSecret: SharedSecret) {
            var ct = [UInt8](repeating: 0, count: ciphertextSize)
            var ss = [UInt8](repeating: 0, count: sharedSecretSize)
            let rc = sntrup761_enc(&ct, &ss, rawRepresentation, sodiumRandom, nil)
            precondition(rc == 0, "sntrup761_enc failed")
            return (Ciphertext(validated: ct), SharedSecret(validated: ss))
        }
    }

    public struct SecretKey: Sendable {
        public let rawRepresentation: [UInt8]
        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, secretKeySize, "sntrup761 secret key")
            rawRepresentation = raw
        }
        init(validated raw: [UInt8]) { rawRepresentation = raw }

        /// Decapsulation with implicit rejection: a forged ciphertext yields an unrelated secret, never an error.
        public func decapsulate(_ ciphertext: Ciphertext) -> SharedSecret {
            var ss = [UInt8](repeating: 0, count: sharedSecretSize)
            let rc = sntrup761_dec(&ss, ciphertext.rawRepresentation, rawRepresentation)
            precondition(rc == 0, "sntrup761_dec failed")
            return SharedSecret(validated: ss)
        }
    }

    public struct KeyPair: Sendable {
        public let publicKey: PublicKey
        public let secretKey: SecretKey

        public init() {
            var pk = [UInt8](repeating: 0, count: publicKeySize)
            var sk = [UInt8](repeating: 0, count: secretKeySize)
            let rc = sntrup761_keypair(&pk, &sk, sodiumRandom, nil)
            precondition(rc == 0, "sntrup761_keypair failed")
            publicKey = PublicKey(validated: pk)
            secretKey = SecretKey(validated: sk)
        }
    }

    public struct Ciphertext: Sendable, Hashable {
        public let rawRepresentation: [UInt8]
        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, ciphertextSize, "sntrup761 ciphertext")
            rawRepresentation = raw
        }
        init(validated raw: [UInt8]) { rawRepresentation = raw }
    }

    public struct SharedSecret: Sendable, Equatable {
        public let rawRepresentation: [UInt8]
        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, sharedSecretSize, "sntrup761 shared secret")
            rawRepresentation = raw
        }
        init(validated raw: [UInt8]) { rawRepresentation = raw }
        public static func == (a: Self, b: Self) -> Bool { constantTimeEqual(a.rawRepresentation, b.rawRepresentation) }
    }
}

/// The C implementation's randomness callback.
private let sodiumRandom: sntrup761_random_fn = { _, out, len in
    if let out { SecureRandom.fill(UnsafeMutableRawBufferPointer(start: out, count: len)) }
}

extension HybridSecret {
    /// `SHA3-256(dh ‖ kem)`.
    public init(dh: X25519.SharedSecret, kem: SNTRUP761.SharedSecret) {
        self.init(validated: Digest.sha3_256(dh.rawRepresentation + kem.rawRepresentation))
    }
}
