public import SimplexCrypto

/// The root key `RK` of the double ratchet (`rcRK`, smp.md §5.3); the X3DH step's `SK` is the first one.
public struct RatchetRootKey: Sendable, Equatable {
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation raw: [UInt8]) throws(RatchetError) {
        rawRepresentation = try checked(raw, 32, "root key")
    }

    init(validated raw: ArraySlice<UInt8>) { rawRepresentation = Array(raw) }

    public static func == (a: Self, b: Self) -> Bool { constantTimeEqual(a.rawRepresentation, b.rawRepresentation) }
}

/// A sending or receiving chain key, `CKs`/`CKr` (smp.md §5.3).
public struct RatchetChainKey: Sendable, Equatable {
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation raw: [UInt8]) throws(RatchetError) {
        rawRepresentation = try checked(raw, 32, "chain key")
    }

    init(validated raw: ArraySlice<UInt8>) { rawRepresentation = Array(raw) }

    public static func == (a: Self, b: Self) -> Bool { constantTimeEqual(a.rawRepresentation, b.rawRepresentation) }
}

/// A header key, `HKs`/`HKr`/`NHKs`/`NHKr` (smp.md §5.3–§5.4); skipped message keys are filed under the header key of
/// their chain.
public struct RatchetHeaderKey: Sendable, Hashable {
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation raw: [UInt8]) throws(RatchetError) {
        rawRepresentation = try checked(raw, 32, "header key")
    }

    init(validated raw: ArraySlice<UInt8>) { rawRepresentation = Array(raw) }

    public static func == (a: Self, b: Self) -> Bool { constantTimeEqual(a.rawRepresentation, b.rawRepresentation) }
    public func hash(into h: inout Hasher) { h.combine(rawRepresentation) }
}

/// One message's key and body IV (`MessageKey`, smp.md §5.3); the third and second parts of a chain step.
/// Stored for skipped messages as `len1(key) ‖ len1(iv)`, as the reference stores them.
public struct RatchetMessageKey: Sendable, Equatable {
    public let key: [UInt8]
    public let iv: [UInt8]

    public init(key: [UInt8], iv: [UInt8]) throws(RatchetError) {
        self.key = try checked(key, 32, "message key")
        self.iv = try checked(iv, 16, "message IV")
    }

    init(validatedKey key: ArraySlice<UInt8>, iv: ArraySlice<UInt8>) {
        self.key = Array(key)
        self.iv = Array(iv)
    }

    public static func == (a: Self, b: Self) -> Bool {
        constantTimeEqual(a.key, b.key) && constantTimeEqual(a.iv, b.iv)
    }
}

/// The associated data both ratchets share: `raw(joiner's k1) ‖ raw(initiator's k1)`, 112 bytes (smp.md §5.2).
public struct RatchetAssociatedData: Sendable, Equatable {
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation raw: [UInt8]) throws(RatchetError) {
        rawRepresentation = try checked(raw, 112, "associated data")
    }

    init(validated raw: [UInt8]) { rawRepresentation = raw }
}

func checked(_ bytes: [UInt8], _ size: Int, _ what: String) throws(RatchetError) -> [UInt8] {
    guard bytes.count == size else { throw .storedState("\(what): \(bytes.count) bytes, expected \(size)") }
    return bytes
}

/// The ratchet's two KDFs and the X3DH step (smp.md §5.2–§5.3), all HKDF-SHA512 with 96 bytes of output.
public enum RatchetKDF {
    /// `rootKdf`: `HKDF(salt = RK, ikm = X448(pub, priv), "SimpleXRootRatchet")` → `RK'`, `CK`, `NHK`.
    public static func root(_ rootKey: RatchetRootKey, peer: X448.PublicKey, own: X448.PrivateKey) throws(RatchetError)
        -> (rootKey: RatchetRootKey, chainKey: RatchetChainKey, nextHeaderKey: RatchetHeaderKey)
    {
        let dh = try agree(own, peer)
        let out = HKDF.sha512(salt: rootKey.rawRepresentation, ikm: dh, info: Array("SimpleXRootRatchet".utf8), length: 96)
        return (
            RatchetRootKey(validated: out[0..<32]), RatchetChainKey(validated: out[32..<64]),
            RatchetHeaderKey(validated: out[64..<96])
        )
    }

    /// `chainKdf`: `HKDF(salt = "", ikm = CK, "SimpleXChainRatchet")` → `CK'`, message key, body IV (`[64:80]`), header IV
    /// (`[80:96]`) — the order of the code, not of SimpleGo's notes (smp.md §9.2).
    public static func chain(_ chainKey: RatchetChainKey)
        -> (chainKey: RatchetChainKey, messageKey: RatchetMessageKey, headerIV: [UInt8])
    {
        let out = HKDF.sha512(ikm: chainKey.rawRepresentation, info: Array("SimpleXChainRatchet".utf8), length: 96)
        return (
            RatchetChainKey(validated: out[0..<32]), RatchetMessageKey(validatedKey: out[32..<64], iv: out[64..<80]),
            Array(out[80..<96])
        )
    }

    /// The X3DH output: `HKDF(salt = 64 zero bytes, dh1 ‖ dh2 ‖ dh3, "SimpleXX3DH")` → `HK`, `NHK`, `SK`.
    static func x3dh(_ dh1: [UInt8], _ dh2: [UInt8], _ dh3: [UInt8], associatedData: [UInt8]) -> RatchetInitParams {
        let salt = [UInt8](repeating: 0, count: 64)
        let out = HKDF.sha512(salt: salt, ikm: dh1 + dh2 + dh3, info: Array("SimpleXX3DH".utf8), length: 96)
        return RatchetInitParams(
            associatedData: RatchetAssociatedData(validated: associatedData),
            sendingHeaderKey: RatchetHeaderKey(validated: out[0..<32]),
            receivingNextHeaderKey: RatchetHeaderKey(validated: out[32..<64]), rootKey: RatchetRootKey(validated: out[64..<96]))
    }

    static func agree(_ own: X448.PrivateKey, _ peer: X448.PublicKey) throws(RatchetError) -> [UInt8] {
        do {
            return try own.sharedSecret(with: peer).rawRepresentation
        } catch {
            throw .invalidPublicKey
        }
    }
}

/// What the X3DH step gives both parties (`RatchetInitParams`, smp.md §5.2): the associated data, the joiner's first
/// sending header key `HK`, the joiner's next receiving header key `NHK` and the first root key `SK`.
public struct RatchetInitParams: Sendable, Equatable {
    public let associatedData: RatchetAssociatedData
    public let sendingHeaderKey: RatchetHeaderKey
    public let receivingNextHeaderKey: RatchetHeaderKey
    public let rootKey: RatchetRootKey

    /// The joiner's side (`pqX3dhSnd`): own `b1, b2`, the initiator's `a1, a2` from the link.
    public static func joiner(own: E2EPrivateKeys, peer: E2ERatchetParams) throws(RatchetError) -> RatchetInitParams {
        let dh1 = try RatchetKDF.agree(own.key2, peer.key1)
        let dh2 = try RatchetKDF.agree(own.key1, peer.key2)
        let dh3 = try RatchetKDF.agree(own.key2, peer.key2)
        return RatchetKDF.x3dh(
            dh1, dh2, dh3, associatedData: own.key1.publicKey.rawRepresentation + peer.key1.rawRepresentation)
    }

    /// The initiator's side (`pqX3dhRcv`): own `a1, a2` (published in the link), the joiner's `b1, b2` from its
    /// confirmation.
    public static func initiator(own: E2EPrivateKeys, peer: E2ERatchetParams) throws(RatchetError) -> RatchetInitParams {
        let dh1 = try RatchetKDF.agree(own.key1, peer.key2)
        let dh2 = try RatchetKDF.agree(own.key2, peer.key1)
        let dh3 = try RatchetKDF.agree(own.key2, peer.key2)
        return RatchetKDF.x3dh(
            dh1, dh2, dh3, associatedData: peer.key1.rawRepresentation + own.key1.publicKey.rawRepresentation)
    }
}
