internal import Glibc

/// The C side of every call: the caller's NUL-terminated inputs, read during the call only, and the answers, each one
/// new `malloc` allocation that the caller frees (chat-api.md §9.1).
enum CBuffer {
    /// A NUL-terminated copy of `bytes`.
    static func string(_ bytes: some Collection<UInt8>) -> UnsafeMutablePointer<CChar> {
        let out = allocate(bytes.count + 1)
        let copied: Void? = bytes.withContiguousStorageIfAvailable { source in
            if let base = source.baseAddress { out.update(from: base, count: source.count) }
        }
        if copied == nil { _ = UnsafeMutableBufferPointer(start: out, count: bytes.count).initialize(from: bytes) }
        out[bytes.count] = 0
        return UnsafeMutableRawPointer(out).assumingMemoryBound(to: CChar.self)
    }

    static func string(_ text: String) -> UnsafeMutablePointer<CChar> {
        var text = text
        return text.withUTF8 { string($0) }
    }

    /// `count` uninitialised bytes. Running out of memory ends the process, as it does in the official core: every
    /// answer is promised non-NULL.
    static func allocate(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        guard let p = malloc(max(count, 1)) else { fatalError("libsimplex: out of memory") }
        return p.assumingMemoryBound(to: UInt8.self)
    }
}

/// A NUL-terminated input string.
struct CInput {
    let bytes: [UInt8]

    /// Nil for NULL.
    init?(_ pointer: UnsafePointer<CChar>?) {
        guard let pointer else { return nil }
        let count = strlen(pointer)
        bytes = pointer.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
    }

    /// The bytes NUL-terminated again, for a C call (paths are bytes on Linux, passed on as given).
    var cString: [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }

    /// The text when the bytes are valid UTF-8.
    var strictText: String? { String(validating: bytes, as: UTF8.self) }

    /// The text with each invalid UTF-8 sequence read as `?` (the core's `safeDecodeUtf8`).
    var lenientText: String {
        if let text = strictText { return text }
        var out = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var it = bytes.makeIterator()
        loop: while true {
            switch parser.parseScalar(from: &it) {
            case .valid(let encoded): out.append(Unicode.UTF8.decode(encoded))
            case .error: out.append("?")
            case .emptyInput: break loop
            }
        }
        return String(out)
    }
}
