internal import COpenSSL

/// The hashes SimpleX uses (xrcp.md §1.7): SHA-256 for certificate fingerprints, SHA-512 for command
/// and file digests, SHA3-256 for the hybrid secret. All through OpenSSL.
public enum Digest {
    public static func sha256<C: Collection<UInt8>>(_ data: C) -> [UInt8] { hash(data, EVP_sha256(), 32) }
    public static func sha512<C: Collection<UInt8>>(_ data: C) -> [UInt8] { hash(data, EVP_sha512(), 64) }
    public static func sha3_256<C: Collection<UInt8>>(_ data: C) -> [UInt8] { hash(data, EVP_sha3_256(), 32) }

    private static func hash<C: Collection<UInt8>>(_ data: C, _ md: OpaquePointer?, _ size: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size)
        let ok =
            data.withContiguousStorageIfAvailable { buf in
                EVP_Digest(buf.baseAddress, buf.count, &out, nil, md, nil)
            } ?? Array(data).withUnsafeBufferPointer { buf in EVP_Digest(buf.baseAddress, buf.count, &out, nil, md, nil) }
        // Only an allocation failure inside OpenSSL can make a digest fail.
        precondition(ok == 1, "EVP_Digest failed")
        return out
    }

    /// Incremental SHA-512, for files hashed while they stream.
    public final class SHA512Stream {
        private let ctx: OpaquePointer

        public init() {
            guard let c = EVP_MD_CTX_new(), EVP_DigestInit_ex(c, EVP_sha512(), nil) == 1 else {
                preconditionFailure("EVP_MD_CTX_new failed")
            }
            ctx = c
        }

        deinit { EVP_MD_CTX_free(ctx) }

        public func update(_ data: UnsafeRawBufferPointer) {
            precondition(EVP_DigestUpdate(ctx, data.baseAddress, data.count) == 1, "EVP_DigestUpdate failed")
        }

        public func update(_ data: [UInt8]) { data.withUnsafeBytes { update($0) } }

        public func finalize() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: 64)
            var n: UInt32 = 0
            precondition(EVP_DigestFinal_ex(ctx, &out, &n) == 1 && n == 64, "EVP_DigestFinal_ex failed")
            return out
        }
    }
}

/// HKDF (RFC 5869) with SHA-512, through OpenSSL's EVP_KDF (xrcp.md §1.7).
public enum HKDF {
    public static func sha512(salt: [UInt8] = [], ikm: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        let rc = simplex_hkdf_sha512(salt, salt.count, ikm, ikm.count, info, info.count, &out, length)
        // HKDF fails only for lengths above 255 × 64 bytes, which no caller asks for.
        precondition(rc == 1, "HKDF-SHA512 failed for length \(length): \(openSSLError("HKDF"))")
        return out
    }
}
