internal import CSodium

/// The tail-tag box over data that arrives in pieces (file attachments, xrcp.md §10.1): the first 32 bytes of
/// XSalsa20 keystream block 0 are the Poly1305 key, the data is XORed with the keystream from byte 32 on,
/// and the tag over all ciphertext comes last. Same bytes as `SecretBox.sealTailTag` over the whole file.
public final class SecretBoxStream {
    public enum Direction: Sendable { case seal, open }

    private let direction: Direction
    private let subkey: [UInt8]
    private let nonce: [UInt8]
    private var auth = crypto_onetimeauth_state()
    /// Keystream bytes generated but not used yet, and the next 64-byte block to generate.
    private var leftover: [UInt8] = []
    private var nextBlock: UInt64 = 1
    private var finished = false

    public init(_ direction: Direction, key: SecretBox.Key, nonce: SecretBox.Nonce) {
        requireSodium()
        self.direction = direction
        subkey = key.derivedKey
        self.nonce = nonce.rawRepresentation
        var block0 = [UInt8](repeating: 0, count: 64)
        _ = crypto_stream_xsalsa20_xor_ic(&block0, block0, 64, self.nonce, 0, subkey)
        _ = crypto_onetimeauth_init(&auth, Array(block0[0..<32]))
        leftover = Array(block0[32..<64])
    }

    /// Encrypts (or decrypts) the next piece of data.
    public func update(_ input: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: input.count)
        if direction == .open { _ = crypto_onetimeauth_update(&auth, input, UInt64(input.count)) }
        var i = 0
        // Keystream left from the previous piece.
        let fromLeftover = min(leftover.count, input.count)
        for j in 0..<fromLeftover { out[j] = input[j] ^ leftover[j] }
        leftover.removeFirst(fromLeftover)
        i = fromLeftover
        // Whole blocks straight through libsodium.
        let whole = (input.count - i) / 64 * 64
        if whole > 0 {
            input.withUnsafeBufferPointer { inp in
                out.withUnsafeMutableBufferPointer { o in
                    _ = crypto_stream_xsalsa20_xor_ic(
                        o.baseAddress! + i, inp.baseAddress! + i, UInt64(whole), nonce, nextBlock, subkey)
                }
            }
            nextBlock += UInt64(whole / 64)
            i += whole
        }
        // A partial block: keep the rest of its keystream for the next piece.
        if i < input.count {
            var block = [UInt8](repeating: 0, count: 64)
            _ = crypto_stream_xsalsa20_xor_ic(&block, block, 64, nonce, nextBlock, subkey)
            nextBlock += 1
            let n = input.count - i
            for j in 0..<n { out[i + j] = input[i + j] ^ block[j] }
            leftover = Array(block[n...])
        }
        if direction == .seal { _ = crypto_onetimeauth_update(&auth, out, UInt64(out.count)) }
        return out
    }

    /// The 16-byte tag to append after the ciphertext (sealing).
    public func finalizeTag() -> [UInt8] {
        precondition(!finished, "a box stream is finalised once")
        finished = true
        var tag = [UInt8](repeating: 0, count: 16)
        _ = crypto_onetimeauth_final(&auth, &tag)
        return tag
    }

    /// Checks the received tag in constant time (opening).
    public func verify(tag: [UInt8]) throws(CryptoError) {
        guard !finished else { throw .decryptionFailed }
        finished = true
        var expected = [UInt8](repeating: 0, count: 16)
        _ = crypto_onetimeauth_final(&auth, &expected)
        guard constantTimeEqual(expected, tag) else { throw .decryptionFailed }
    }
}
