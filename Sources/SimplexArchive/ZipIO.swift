#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where an archive (or an extracted entry) is written. The writer appends, then goes back to fill in each local
/// header's CRC and sizes once the entry's data is through, so an entry is streamed without being held in memory.
public protocol ZipSink: AnyObject {
    /// The number of bytes written so far; the next write lands here.
    var offset: UInt64 { get }
    func write(_ bytes: UnsafeRawBufferPointer) throws(ZipError)
    /// Replaces bytes already written.
    func overwrite(at offset: UInt64, with bytes: [UInt8]) throws(ZipError)
    /// Drops everything from `offset` on (an entry given up half way).
    func truncate(to offset: UInt64) throws(ZipError)
}

extension ZipSink {
    public func write(_ bytes: [UInt8]) throws(ZipError) {
        try bytes.withBytes { (b) throws(ZipError) in try write(b) }
    }
}

/// Where an archive is read from: random access, as the central directory sits at the end.
public protocol ZipSource: AnyObject {
    var size: UInt64 { get }
    /// Exactly `count` bytes at `offset`, or `truncated` when the source ends first.
    func read(at offset: UInt64, count: Int) throws(ZipError) -> [UInt8]
}

/// An archive in memory (tests, small archives).
public final class MemoryZipSink: ZipSink {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public var offset: UInt64 { UInt64(bytes.count) }

    public func write(_ b: UnsafeRawBufferPointer) throws(ZipError) { bytes += b }

    public func overwrite(at offset: UInt64, with b: [UInt8]) throws(ZipError) {
        guard offset + UInt64(b.count) <= self.offset else { throw .io("overwrite past the end") }
        bytes.replaceSubrange(Int(offset)..<Int(offset) + b.count, with: b)
    }

    public func truncate(to offset: UInt64) throws(ZipError) {
        guard offset <= self.offset else { throw .io("truncate past the end") }
        bytes.removeSubrange(Int(offset)...)
    }
}

public final class MemoryZipSource: ZipSource {
    private let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var size: UInt64 { UInt64(bytes.count) }

    public func read(at offset: UInt64, count: Int) throws(ZipError) -> [UInt8] {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else { throw .truncated("read past the end") }
        return Array(bytes[Int(offset)..<Int(offset) + count])
    }
}

/// A file created (or replaced) for writing.
public final class FileZipSink: ZipSink {
    private var fd: Int32
    private let path: String
    public private(set) var offset: UInt64 = 0

    public init(creating path: String) throws(ZipError) {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw .io(systemError("open", path)) }
    }

    deinit { if fd >= 0 { closeDescriptor(fd) } }

    public func write(_ b: UnsafeRawBufferPointer) throws(ZipError) {
        var done = 0
        while done < b.count {
            let n = pwrite(fd, b.baseAddress.map { $0 + done }, b.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(systemError("write", path))
            }
            done += n
        }
        offset += UInt64(b.count)
    }

    public func overwrite(at position: UInt64, with b: [UInt8]) throws(ZipError) {
        guard position + UInt64(b.count) <= offset else { throw .io("\(path): overwrite past the end") }
        let n = b.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(position)) }
        guard n == b.count else { throw .io(systemError("write", path)) }
    }

    public func truncate(to position: UInt64) throws(ZipError) {
        guard position <= offset else { throw .io("\(path): truncate past the end") }
        guard ftruncate(fd, off_t(position)) == 0 else { throw .io(systemError("truncate", path)) }
        offset = position
    }

    /// Flushes to the disk and closes; the file is complete only after this.
    public func close() throws(ZipError) {
        guard fd >= 0 else { return }
        defer {
            closeDescriptor(fd)
            fd = -1
        }
        guard fsync(fd) == 0 else { throw .io(systemError("fsync", path)) }
    }
}

/// A file opened for reading.
public final class FileZipSource: ZipSource {
    private let fd: Int32
    private let path: String
    public let size: UInt64

    public init(path: String) throws(ZipError) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(systemError("open", path)) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let message = systemError("stat", path)
            closeDescriptor(fd)
            throw .io(message)
        }
        size = UInt64(max(0, info.st_size))
    }

    deinit { closeDescriptor(fd) }

    public func read(at offset: UInt64, count: Int) throws(ZipError) -> [UInt8] {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else { throw .truncated("read past the end") }
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress.map { $0 + done }, count - done, off_t(offset) + off_t(done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(systemError("read", path))
            }
            if n == 0 { throw .truncated("\(path) ended early") }
            done += n
        }
        return out
    }
}

private func closeDescriptor(_ fd: Int32) { _ = close(fd) }

/// `call path: message` from errno, taken before anything else can change it.
func systemError(_ call: String, _ path: String) -> String {
    let code = errno
    return "\(call) \(path): \(String(cString: strerror(code)))"
}
