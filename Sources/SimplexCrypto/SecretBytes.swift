internal import CSodium

/// A private key's raw bytes in one allocation, wiped when the last copy of the key goes. Keys that libsodium uses
/// keep these instead of an OpenSSL `EVP_PKEY`, which costs about 600 bytes a key: a client holds two private keys
/// for every queue it reads.
final class SecretBytes: @unchecked Sendable {
    // Written once in init; only read afterwards.
    let pointer: UnsafeMutablePointer<UInt8>
    let count: Int

    /// `count` bytes that `fill` writes.
    init(count: Int, _ fill: (UnsafeMutablePointer<UInt8>) -> Void) {
        requireSodium()
        self.count = count
        pointer = .allocate(capacity: count)
        pointer.initialize(repeating: 0, count: count)
        fill(pointer)
    }

    /// A copy of `bytes`.
    convenience init(copying bytes: [UInt8]) {
        self.init(count: bytes.count) { p in
            for (i, b) in bytes.enumerated() { p[i] = b }
        }
    }

    deinit {
        sodium_memzero(pointer, count)
        pointer.deallocate()
    }

    /// A copy of `range`.
    subscript(range: Range<Int>) -> [UInt8] { Array(UnsafeBufferPointer(start: pointer + range.lowerBound, count: range.count)) }
}
