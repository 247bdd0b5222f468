internal import COpenSSL

/// AES-256-GCM with a 12-byte IV, no associated data and a 16-byte tag (simplexmq's `encryptAESNoPad`), as the core
/// encrypts WebRTC media frames (chat-api.md §9.2, `chat_encrypt_media`). Works in place on a caller's buffer.
/// The double ratchet's variant, with a 16-byte IV and associated data, works on arrays.
public enum AESGCM {
    public static let keySize = 32
    public static let ivSize = 12
    public static let tagSize = 16

    /// Encrypts `buffer` in place and returns the tag.
    public static func seal(_ buffer: UnsafeMutableRawBufferPointer, key: [UInt8], iv: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkLength(key, keySize, "AES-256 key")
        try checkLength(iv, ivSize, "GCM IV")
        var tag = [UInt8](repeating: 0, count: tagSize)
        try run(encrypt: true, buffer, key: key, iv: iv, aad: [], tag: &tag)
        return tag
    }

    /// Decrypts `buffer` in place after checking `tag`; on a wrong tag the buffer is left as it was.
    public static func open(_ buffer: UnsafeMutableRawBufferPointer, key: [UInt8], iv: [UInt8], tag: [UInt8]) throws(CryptoError)
    {
        try checkLength(key, keySize, "AES-256 key")
        try checkLength(iv, ivSize, "GCM IV")
        try checkLength(tag, tagSize, "GCM tag")
        // Decrypt a copy so that a forged frame leaves the caller's bytes untouched.
        var copy = Array(buffer)
        var expected = tag
        let outcome = copy.withUnsafeMutableBytes { b in
            Result { () throws(CryptoError) in try run(encrypt: false, b, key: key, iv: iv, aad: [], tag: &expected) }
        }
        try outcome.get()
        copy.withUnsafeBytes { buffer.copyMemory(from: $0) }
    }

    /// The IV length of the double ratchet's AES-256-GCM (simplexmq's `encryptAEAD`, smp.md §5.4): a 16-byte IV, from
    /// which GCM derives its counter block by GHASH (NIST SP 800-38D), as Python's `AESGCM` does for a 16-byte nonce.
    public static let ratchetIVSize = 16

    /// Encrypts `plaintext` with a 16-byte IV and associated data; returns the tag and the ciphertext.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8], associatedData: [UInt8]) throws(CryptoError)
        -> (tag: [UInt8], ciphertext: [UInt8])
    {
        try checkLength(key, keySize, "AES-256 key")
        try checkLength(iv, ratchetIVSize, "GCM IV")
        var out = plaintext
        var tag = [UInt8](repeating: 0, count: tagSize)
        let outcome = out.withUnsafeMutableBytes { b in
            Result { () throws(CryptoError) in try run(encrypt: true, b, key: key, iv: iv, aad: associatedData, tag: &tag) }
        }
        try outcome.get()
        return (tag, out)
    }

    /// Decrypts what `seal(_:key:iv:associatedData:)` made, after checking the tag against the associated data.
    public static func open(_ ciphertext: [UInt8], key: [UInt8], iv: [UInt8], associatedData: [UInt8], tag: [UInt8])
        throws(CryptoError) -> [UInt8]
    {
        try checkLength(key, keySize, "AES-256 key")
        try checkLength(iv, ratchetIVSize, "GCM IV")
        try checkLength(tag, tagSize, "GCM tag")
        var out = ciphertext
        var expected = tag
        let outcome = out.withUnsafeMutableBytes { b in
            Result { () throws(CryptoError) in
                try run(encrypt: false, b, key: key, iv: iv, aad: associatedData, tag: &expected)
            }
        }
        try outcome.get()
        return out
    }

    private static func run(
        encrypt: Bool, _ buffer: UnsafeMutableRawBufferPointer, key: [UInt8], iv: [UInt8], aad: [UInt8],
        tag: inout [UInt8]
    ) throws(CryptoError) {
        let operation = encrypt ? "AES-GCM encrypt" : "AES-GCM decrypt"
        guard let ctx = EVP_CIPHER_CTX_new() else { throw openSSLError(operation) }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let enc: Int32 = encrypt ? 1 : 0
        guard EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil, enc) == 1,
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, Int32(iv.count), nil) == 1,
            EVP_CipherInit_ex(ctx, nil, nil, key, iv, enc) == 1
        else { throw openSSLError(operation) }
        var outLength: Int32 = 0
        if !aad.isEmpty {
            guard EVP_CipherUpdate(ctx, nil, &outLength, aad, Int32(aad.count)) == 1 else { throw openSSLError(operation) }
        }
        if let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count > 0 {
            guard EVP_CipherUpdate(ctx, base, &outLength, base, Int32(buffer.count)) == 1 else { throw openSSLError(operation) }
        }
        if !encrypt {
            guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(tagSize), &tag) == 1 else { throw openSSLError(operation) }
        }
        var final = [UInt8](repeating: 0, count: 16)
        guard EVP_CipherFinal_ex(ctx, &final, &outLength) == 1 else {
            if encrypt { throw openSSLError(operation) }
            ERR_clear_error()
            throw .decryptionFailed
        }
        if encrypt {
            guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(tagSize), &tag) == 1 else { throw openSSLError(operation) }
        }
    }
}
