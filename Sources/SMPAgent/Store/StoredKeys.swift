public import SimplexCrypto

// Private keys as the agent store keeps them: raw bytes of a checked length, compared in constant time, so that
// records are Equatable; the agent makes the key it needs when it signs, agrees or decrypts. Public keys and DH
// secrets are SimplexCrypto's own raw-byte types (`X25519.PublicKey`, `X25519.SharedSecret`).

/// An Ed25519 private key as its 32-byte seed (RFC 8032): a queue's recipient or sender authorization key.
public struct StoredEd25519Key: Sendable, Equatable {
    public let seed: [UInt8]

    public init(seed: [UInt8]) throws(AgentStoreError) {
        try checkSize(seed, 32, "Ed25519 seed")
        self.seed = seed
    }

    public init(_ key: Ed25519.PrivateKey) { seed = key.seed }

    public func privateKey() throws(AgentStoreError) -> Ed25519.PrivateKey {
        do { return try Ed25519.PrivateKey(seed: seed) } catch { throw .invalidStoredValue("Ed25519 seed: \(error)") }
    }

    public static func == (a: Self, b: Self) -> Bool { constantTimeEqual(a.seed, b.seed) }
}

/// An X25519 private key, 32 raw bytes: a queue's DH keys.
public struct StoredX25519Key: Sendable, Equatable {
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation raw: [UInt8]) throws(AgentStoreError) {
        try checkSize(raw, 32, "X25519 private key")
        rawRepresentation = raw
    }

    public init(_ key: X25519.PrivateKey) { rawRepresentation = key.rawRepresentation }

    public func privateKey() throws(AgentStoreError) -> X25519.PrivateKey {
        do { return try X25519.PrivateKey(rawRepresentation: rawRepresentation) } catch {
            throw .invalidStoredValue("X25519 private key: \(error)")
        }
    }

    public static func == (a: Self, b: Self) -> Bool { constantTimeEqual(a.rawRepresentation, b.rawRepresentation) }
}

/// An X448 private key, 56 raw bytes: one of an invitation's two X3DH keys (smp.md §5.2).
public struct StoredX448Key: Sendable, Equatable {
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation raw: [UInt8]) throws(AgentStoreError) {
        try checkSize(raw, 56, "X448 private key")
        rawRepresentation = raw
    }

    public init(_ key: X448.PrivateKey) { rawRepresentation = key.rawRepresentation }

    public func privateKey() throws(AgentStoreError) -> X448.PrivateKey {
        do { return try X448.PrivateKey(rawRepresentation: rawRepresentation) } catch {
            throw .invalidStoredValue("X448 private key: \(error)")
        }
    }

    public static func == (a: Self, b: Self) -> Bool { constantTimeEqual(a.rawRepresentation, b.rawRepresentation) }
}

/// The initiator's two X3DH private keys, kept from the link until the joiner's confirmation arrives.
public struct StoredX3DHKeys: Sendable, Equatable {
    public let key1: StoredX448Key
    public let key2: StoredX448Key

    public init(key1: StoredX448Key, key2: StoredX448Key) {
        self.key1 = key1
        self.key2 = key2
    }
}

/// A SHA-256 digest: a message's plaintext hash, or its ciphertext's for duplicate detection.
public struct MessageHash: Sendable, Hashable {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws(AgentStoreError) {
        try checkSize(bytes, 32, "SHA-256 hash")
        self.bytes = bytes
    }

    /// The SHA-256 of `data`.
    public init(of data: [UInt8]) { bytes = Digest.sha256(data) }
}

func checkSize(_ bytes: [UInt8], _ size: Int, _ what: String) throws(AgentStoreError) {
    guard bytes.count == size else { throw .invalidStoredValue("\(what) of \(bytes.count) bytes, not \(size)") }
}

/// A stored value made through SimplexCrypto, its refusal typed as the store's.
func storedValue<T>(_ what: String, _ make: () throws(CryptoError) -> T) throws(AgentStoreError) -> T {
    do { return try make() } catch { throw .invalidStoredValue("\(what): \(error)") }
}
