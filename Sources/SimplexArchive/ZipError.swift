/// Why an archive could not be written or read. Each case names the entry or structure it is about, so a caller can
/// report one bad entry and go on with the others.
public enum ZipError: Error, Equatable, Sendable {
    /// No end of central directory record, or one that points outside the file.
    case notAnArchive(String)
    /// A structure ends before its declared length, or lies where it cannot (data overlapping the directory).
    case truncated(String)
    /// An entry name that would land outside the folder it is extracted into: `..`, absolute, a drive, a backslash
    /// or NUL.
    case unsafeName(String)
    /// A compression method other than stored (0) and deflate (8).
    case unsupportedMethod(name: String, method: UInt16)
    /// The entry is encrypted (general purpose flag bit 0).
    case encrypted(String)
    /// The entry's data does not inflate, or does not match its CRC-32 or declared size.
    case corrupt(name: String, reason: String)
    /// An entry grew past 4 GiB without room for ZIP64 sizes in its local header (its size hint was too small).
    case entryTooLarge(String)
    /// A read or write of the underlying file failed: the call and the system's message.
    case io(String)

    /// One line for people.
    public var message: String {
        switch self {
        case .notAnArchive(let why): "not a zip archive: \(why)"
        case .truncated(let what): "truncated archive: \(what)"
        case .unsafeName(let name): "unsafe entry name \(name.debugDescription): it would be written outside the folder"
        case .unsupportedMethod(let name, let method): "\(name): unsupported compression method \(method)"
        case .encrypted(let name): "\(name): encrypted entries are not supported"
        case .corrupt(let name, let reason): "\(name): \(reason)"
        case .entryTooLarge(let name): "\(name): grew past 4 GiB while being written"
        case .io(let message): message
        }
    }
}
