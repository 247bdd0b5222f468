/// A symmetric ratchet chain key (`SbChainKey`, xrcp.md §8.2–8.4). Each step yields the next chain key and
/// one box key with its nonce; every XRCP message takes two steps (body, then attachment).
public struct ChainKey: Sendable {
    public private(set) var rawRepresentation: [UInt8]

    public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
        try checkLength(raw, 32, "chain key")
        rawRepresentation = raw
    }

    init(validated raw: [UInt8]) { rawRepresentation = raw }

    /// The two chains of a session from its hybrid secret: the first 32 bytes of
    /// `HKDF512("", hybrid, "SimpleXSbChainInit", 64)` are the controller→host chain.
    public static func initialChains(from secret: HybridSecret) -> (controllerToHost: ChainKey, hostToController: ChainKey) {
        let out = HKDF.sha512(ikm: secret.rawRepresentation, info: Array("SimpleXSbChainInit".utf8), length: 64)
        return (ChainKey(validated: Array(out[0..<32])), ChainKey(validated: Array(out[32..<64])))
    }

    /// One step: `HKDF512("", ck, "SimpleXSbChain", 88)` = next chain key ‖ box key ‖ nonce.
    public mutating func next() -> MessageKey {
        let out = HKDF.sha512(ikm: rawRepresentation, info: Array("SimpleXSbChain".utf8), length: 88)
        rawRepresentation = Array(out[0..<32])
        return MessageKey(
            key: SecretBox.Key(validated: Array(out[32..<64])), nonce: SecretBox.Nonce(validated: Array(out[64..<88])))
    }
}

/// The box key and nonce of one chain step.
public struct MessageKey: Sendable, Equatable {
    public let key: SecretBox.Key
    public let nonce: SecretBox.Nonce
}

/// The session's hybrid secret, `SHA3-256(dhSecret ‖ kemShared)` (xrcp.md §8.1); made by
/// `init(dh:kem:)` beside the KEM.
public struct HybridSecret: Sendable, Equatable {
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
        try checkLength(raw, 32, "hybrid secret")
        rawRepresentation = raw
    }

    init(validated raw: [UInt8]) { rawRepresentation = raw }

    public static func == (a: Self, b: Self) -> Bool { constantTimeEqual(a.rawRepresentation, b.rawRepresentation) }
}
