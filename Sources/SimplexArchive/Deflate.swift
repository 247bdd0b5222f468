internal import CZlib

// zlib's raw deflate (no zlib or gzip wrapper: window bits -15), the form zip entries hold, and its CRC-32.

/// The size of the buffers data is streamed through.
let chunkSize = 64 * 1024

/// CRC-32 (ISO-HDLC, the zip and gzip one), continued over chunks.
public struct CRC32: Equatable, Sendable {
    public private(set) var value: UInt32 = 0

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        value = UInt32(truncatingIfNeeded: crc32(UInt(value), base.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
    }

    public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body with typed throws (the standard one rethrows untyped).
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(ZipError) -> R) throws(ZipError) -> R {
        let result = withUnsafeBytes { b in Result { () throws(ZipError) -> R in try body(b) } }
        return try result.get()
    }
}

/// One zlib stream. zlib keeps a pointer back to its `z_stream`, so the struct lives at a fixed address for the
/// stream's whole life.
private final class ZStream {
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    var output = [UInt8](repeating: 0, count: chunkSize)

    init() { stream.initialize(to: z_stream()) }

    deinit {
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    static var structSize: Int32 { Int32(MemoryLayout<z_stream>.size) }
}

/// Raw deflate, fed in chunks; the compressed bytes go to `emit` as they come.
final class Deflater {
    private let z = ZStream()

    init(level: Int32) {
        let rc = deflateInit2_(z.stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), ZStream.structSize)
        // Only a bad parameter or no memory fail here, both our own bugs or fatal.
        precondition(rc == Z_OK, "deflateInit2: \(rc)")
    }

    deinit { deflateEnd(z.stream) }

    /// Compresses `input`; with `finish`, also ends the stream.
    func compress(
        _ input: UnsafeRawBufferPointer, finish: Bool, emit: (UnsafeRawBufferPointer) throws(ZipError) -> Void
    ) throws(ZipError) {
        z.stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        z.stream.pointee.avail_in = uInt(input.count)
        while true {
            let rc = z.output.withUnsafeMutableBytes { out in
                z.stream.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
                z.stream.pointee.avail_out = uInt(out.count)
                return deflate(z.stream, finish ? Z_FINISH : Z_NO_FLUSH)
            }
            precondition(rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR, "deflate: \(rc)")
            let produced = chunkSize - Int(z.stream.pointee.avail_out)
            if produced > 0 {
                try z.output.withBytes { (out) throws(ZipError) in try emit(UnsafeRawBufferPointer(rebasing: out[..<produced])) }
            }
            if finish ? rc == Z_STREAM_END : z.stream.pointee.avail_out != 0 { break }
        }
    }
}

/// Raw inflate, fed in chunks; refuses data that is not deflate or that goes on after the stream's end.
final class Inflater {
    private let z = ZStream()
    private(set) var ended = false
    private let name: String

    init(entry name: String) {
        self.name = name
        let rc = inflateInit2_(z.stream, -15, zlibVersion(), ZStream.structSize)
        precondition(rc == Z_OK, "inflateInit2: \(rc)")
    }

    deinit { inflateEnd(z.stream) }

    func inflate(_ input: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) throws(ZipError) -> Void) throws(ZipError) {
        guard !input.isEmpty else { return }
        guard !ended else { throw .corrupt(name: name, reason: "data after the end of the deflate stream") }
        z.stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        z.stream.pointee.avail_in = uInt(input.count)
        while true {
            let rc = z.output.withUnsafeMutableBytes { out in
                z.stream.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
                z.stream.pointee.avail_out = uInt(out.count)
                return CZlib.inflate(z.stream, Z_NO_FLUSH)
            }
            guard rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR else {
                let message = z.stream.pointee.msg.map { String(cString: $0) } ?? "error \(rc)"
                throw .corrupt(name: name, reason: "inflate: \(message)")
            }
            let produced = chunkSize - Int(z.stream.pointee.avail_out)
            if produced > 0 {
                try z.output.withBytes { (out) throws(ZipError) in try emit(UnsafeRawBufferPointer(rebasing: out[..<produced])) }
            }
            if rc == Z_STREAM_END {
                ended = true
                if z.stream.pointee.avail_in != 0 {
                    throw .corrupt(name: name, reason: "data after the end of the deflate stream")
                }
                return
            }
            if z.stream.pointee.avail_out != 0 { return }
        }
    }
}
