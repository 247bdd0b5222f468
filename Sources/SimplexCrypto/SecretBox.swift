internal import CSodium
public import SimplexEncoding

/// SimpleX's box (`sx_box`, xrcp.md §1.6): XSalsa20-Poly1305 under `HSalsa20(K, 0^16)`, for DH secrets and
/// chain keys alike. A plain `crypto_secretbox` under K would be wrong. HELLO blocks and announcements carry
/// the tag first; request/response bodies and files carry it last ("tail tag").
public enum SecretBox {
    public static let tagSize = 16

    /// A 32-byte box key before the HSalsa20 step.
    public struct Key: Sendable, Equatable {
        public let rawRepresentation: [UInt8]

        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, 32, "box key")
            rawRepresentation = raw
        }

        init(validated raw: [UInt8]) { rawRepresentation = raw }

        public static func == (a: Self, b: Self) -> Bool { constantTimeEqual(a.rawRepresentation, b.rawRepresentation) }

        /// `HSalsa20(K, 0^16)`, the key the XSalsa20-Poly1305 actually runs under.
        public var derivedKey: [UInt8] {
            requireSodium()
            var out = [UInt8](repeating: 0, count: 32)
            let zero = [UInt8](repeating: 0, count: 16)
            _ = crypto_core_hsalsa20(&out, zero, rawRepresentation, nil)
            return out
        }
    }

    /// A 24-byte nonce (on the wire as 24 raw bytes, no length prefix).
    public struct Nonce: Sendable, Equatable {
        public let rawRepresentation: [UInt8]

        public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
            try checkLength(raw, 24, "nonce")
            rawRepresentation = raw
        }

        init(validated raw: [UInt8]) { rawRepresentation = raw }

        public static func random() -> Nonce { Nonce(validated: SecureRandom.bytes(24)) }
    }

    /// `sx_box(K, n, m)` = tag || ciphertext.
    public static func seal(_ message: [UInt8], key: Key, nonce: Nonce) -> [UInt8] {
        let (ct, tag) = sealDetached(message, key: key, nonce: nonce)
        return tag + ct
    }

    /// `sx_box_tt(K, n, m)` = ciphertext || tag.
    public static func sealTailTag(_ message: [UInt8], key: Key, nonce: Nonce) -> [UInt8] {
        let (ct, tag) = sealDetached(message, key: key, nonce: nonce)
        return ct + tag
    }

    /// Opens `tag || ciphertext`.
    public static func open(_ box: [UInt8], key: Key, nonce: Nonce) throws(CryptoError) -> [UInt8] {
        guard box.count >= tagSize else { throw .decryptionFailed }
        return try openDetached(ciphertext: Array(box[tagSize...]), tag: Array(box[..<tagSize]), key: key, nonce: nonce)
    }

    /// Opens `ciphertext || tag`.
    public static func openTailTag(_ box: [UInt8], key: Key, nonce: Nonce) throws(CryptoError) -> [UInt8] {
        guard box.count >= tagSize else { throw .decryptionFailed }
        let split = box.count - tagSize
        return try openDetached(ciphertext: Array(box[..<split]), tag: Array(box[split...]), key: key, nonce: nonce)
    }

    /// `cbEncrypt`/`sbEncrypt`: `sx_box(K, n, pad(m, size))`, `size + 16` bytes.
    public static func sealPadded(_ message: [UInt8], to size: Int, key: Key, nonce: Nonce) throws(Padding.Error) -> [UInt8] {
        seal(try Padding.pad(message, to: size), key: key, nonce: nonce)
    }

    public enum OpenPaddedError: Error, Equatable, Sendable {
        case decryption
        case padding(Padding.Error)
    }

    /// The inverse of `sealPadded`.
    public static func openPadded(_ box: [UInt8], key: Key, nonce: Nonce) throws(OpenPaddedError) -> [UInt8] {
        let padded: [UInt8]
        do { padded = try open(box, key: key, nonce: nonce) } catch { throw .decryption }
        do { return try Padding.unpad(padded) } catch { throw .padding(error) }
    }

    static func sealDetached(_ message: [UInt8], key: Key, nonce: Nonce) -> (ciphertext: [UInt8], tag: [UInt8]) {
        requireSodium()
        var ct = [UInt8](repeating: 0, count: message.count)
        var tag = [UInt8](repeating: 0, count: tagSize)
        let k = key.derivedKey
        let rc = crypto_secretbox_detached(&ct, &tag, message, UInt64(message.count), nonce.rawRepresentation, k)
        precondition(rc == 0, "crypto_secretbox_detached failed")
        return (ct, tag)
    }

    static func openDetached(ciphertext: [UInt8], tag: [UInt8], key: Key, nonce: Nonce) throws(CryptoError) -> [UInt8] {
        requireSodium()
        var out = [UInt8](repeating: 0, count: ciphertext.count)
        let k = key.derivedKey
        let rc = crypto_secretbox_open_detached(&out, ciphertext, tag, UInt64(ciphertext.count), nonce.rawRepresentation, k)
        guard rc == 0 else { throw .decryptionFailed }
        return out
    }
}
