internal import CZstd

/// zstd for remote-control bodies (xrcp.md §9.6): single frames that declare their content size.
public enum Zstd {
    public enum Error: Swift.Error, Equatable, Sendable {
        /// The frame does not declare its content size, or declares more than allowed.
        case contentSize(String)
        /// libzstd's own error name.
        case zstd(String)
    }

    /// The level SimpleX uses.
    public static let defaultLevel: Int32 = 3

    /// One frame at `level`, with the content size in its header (the one-shot API always writes it).
    public static func compress(_ input: [UInt8], level: Int32 = defaultLevel) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: ZSTD_compressBound(input.count))
        let n = out.withUnsafeMutableBytes { o in
            input.withUnsafeBytes { i in ZSTD_compress(o.baseAddress, o.count, i.baseAddress, i.count, level) }
        }
        // Compression into a buffer of compressBound bytes cannot fail but for allocation.
        precondition(ZSTD_isError(n) == 0, "ZSTD_compress: \(errorName(n))")
        out.removeSubrange(n...)
        return out
    }

    /// Decompresses one frame whose header declares its size, refusing sizes above `limit`.
    /// A declared size of 0 yields an empty result, as the reference decoder does.
    public static func decompress(_ frame: [UInt8], limit: Int = 64 << 20) throws(Error) -> [UInt8] {
        let size = frame.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
        // ZSTD_CONTENTSIZE_UNKNOWN and ZSTD_CONTENTSIZE_ERROR are the two largest values.
        if size == UInt64.max - 1 { throw .contentSize("frame does not declare its content size") }
        if size == UInt64.max { throw .zstd("not a zstd frame") }
        guard size <= UInt64(limit) else { throw .contentSize("declared \(size) bytes, limit \(limit)") }
        if size == 0 { return [] }
        var out = [UInt8](repeating: 0, count: Int(size))
        let n = out.withUnsafeMutableBytes { o in
            frame.withUnsafeBytes { i in ZSTD_decompress(o.baseAddress, o.count, i.baseAddress, i.count) }
        }
        guard ZSTD_isError(n) == 0 else { throw .zstd(errorName(n)) }
        guard n == Int(size) else { throw .contentSize("frame declared \(size) bytes but held \(n)") }
        return out
    }

    private static func errorName(_ code: Int) -> String { String(cString: ZSTD_getErrorName(code)) }
}
