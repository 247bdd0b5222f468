internal import COpenSSL

/// AES-256-GCM with a 12-byte IV, no associated data and a 16-byte tag (simplexmq's `encryptAESNoPad`), as the core
/// encrypts WebRTC media frames (chat-api.md §9.2, `chat_encrypt_media`). Works in place on a caller's buffer.
public enum AESGCM {
    public static let keySize = 32
    public static let ivSize = 12
    public static let tagSize = 16

    /// Encrypts `buffer` in place and returns the tag.
    public static func seal(_ buffer: UnsafeMutableRawBufferPointer, key: [UInt8], iv: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkLength(key, keySize, "AES-256 key")
        try checkLength(iv, ivSize, "GCM IV")
        var tag = [UInt8](repeating: 0, count: tagSize)
        try run(encrypt: true, buffer, key: key, iv: iv, tag: &tag)
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
            Result { () throws(CryptoError) in try run(encrypt: false, b, key: key, iv: iv, tag: &expected) }
        }
        try outcome.get()
        copy.withUnsafeBytes { buffer.copyMemory(from: $0) }
    }

    private static func run(
        encrypt: Bool, _ buffer: UnsafeMutableRawBufferPointer, key: [UInt8], iv: [UInt8], tag: inout [UInt8]
    ) throws(CryptoError) {
        let operation = encrypt ? "AES-GCM encrypt" : "AES-GCM decrypt"
        guard let ctx = EVP_CIPHER_CTX_new() else { throw openSSLError(operation) }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let enc: Int32 = encrypt ? 1 : 0
        guard EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil, enc) == 1,
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, Int32(ivSize), nil) == 1,
            EVP_CipherInit_ex(ctx, nil, nil, key, iv, enc) == 1
        else { throw openSSLError(operation) }
        var outLength: Int32 = 0
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
