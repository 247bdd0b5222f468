internal import CSodium

/// Cryptographically secure random bytes (libsodium `randombytes_buf`).
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        requireSodium()
        var out = [UInt8](repeating: 0, count: count)
        randombytes_buf(&out, count)
        return out
    }

    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        requireSodium()
        if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
    }
}
