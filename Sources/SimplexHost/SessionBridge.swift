public import Foundation
public import RemoteChat
internal import SimplexCrypto
public import XRCP

/// What a connected controller gets (xrcp.md §11.3): commands run on the core unless they must stay local, events
/// from the router, uploads into the files folder.
public struct SessionBridge: RemoteHostHandler {
    let backend: any ChatBackend
    let events: EventRouter
    /// Where uploads go and downloads come from: the core's files folder, as it is when a request comes.
    let filesFolder: @Sendable () async -> URL?

    public init(backend: any ChatBackend, events: EventRouter, filesFolder: URL) {
        self.init(backend: backend, events: events, filesFolder: { filesFolder })
    }

    /// For a core whose files folder its user sets (`/set file paths`): nil while none is set, when files are refused.
    public init(backend: any ChatBackend, events: EventRouter, filesFolder: @escaping @Sendable () async -> URL?) {
        self.backend = backend
        self.events = events
        self.filesFolder = filesFolder
    }

    public func execute(command: String, retryNumber: Int64) async -> [UInt8] {
        if let refused = RemotePolicy.refusal(command) {
            return Envelope.error(.commandError("\(refused) is not allowed remotely"))
        }
        return await backend.execute(command)
    }

    public func nextEvent(waitMicroseconds: Int64) async -> [UInt8]? {
        await events.nextRemoteEvent(waitMicroseconds: waitMicroseconds)
    }

    public func beginStoring(fileName: String, fileSize: UInt32) async throws(RemoteProtocolError) -> any RemoteFileSink {
        guard let filesFolder = await filesFolder() else {
            throw .invalidBody("cannot store the file: the host has no files folder (/set file paths)")
        }
        do { return try FolderFileSink(folder: filesFolder, requestedName: fileName) } catch let error as UploadRefusal {
            throw .invalidBody("cannot store the file: \(error.reason)")
        } catch {
            throw .invalidBody("cannot store the file: \(error.localizedDescription)")
        }
    }

    /// `getFile`: only a file the core has a record of, as the request describes it, and only inside the files folder —
    /// a recorded path that leads out of it (`..`, an absolute path, a symbolic link) is not served.
    public func openFile(_ file: RemoteFile) async throws(RemoteFileError) -> any RemoteFileSource {
        let recorded = await backend.recordedFilePath(
            userId: file.userId, fileId: file.fileId, sent: file.sent, fileSource: file.fileSource)
        let notFound = RemoteFileError.chat(
            Envelope.error(.store(type: "fileNotFound", fields: ["fileId": .integer(file.fileId)])))
        let path: String
        switch recorded {
        case .success(let p): path = p
        case .failure(let e): throw .chat(e.bytes)
        }
        guard let filesFolder = await filesFolder() else { throw notFound }
        let folder = filesFolder.standardizedFileURL.resolvingSymlinksInPath()
        let url = folder.appendingPathComponent(path).standardizedFileURL.resolvingSymlinksInPath()
        guard !path.hasPrefix("/"), url.pathComponents.count > folder.pathComponents.count,
            Array(url.pathComponents.prefix(folder.pathComponents.count)) == folder.pathComponents
        else { throw notFound }
        do { return try FolderFileSource(url: url) } catch { throw notFound }
    }
}

/// A file of the files folder, hashed (SHA-512) before it is streamed; it must fit the protocol's 32-bit size.
final class FolderFileSource: RemoteFileSource, @unchecked Sendable {
    // Read by one session stream at a time.
    let size: UInt32
    let digest: [UInt8]
    private let handle: FileHandle

    init(url: URL) throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw CocoaError(.fileReadNoSuchFile) }
        let hash = Digest.SHA512Stream()
        var total: UInt64 = 0
        let reader = try FileHandle(forReadingFrom: url)
        defer { try? reader.close() }
        while let data = try reader.read(upToCount: 1 << 16), !data.isEmpty {
            hash.update(Array(data))
            total += UInt64(data.count)
        }
        guard let size = UInt32(exactly: total) else { throw CocoaError(.fileReadTooLarge) }
        self.size = size
        digest = hash.finalize()
        handle = try FileHandle(forReadingFrom: url)
    }

    func read(max: Int) async throws(RemoteProtocolError) -> [UInt8]? {
        guard let data = try? handle.read(upToCount: max), !data.isEmpty else {
            try? handle.close()
            return nil
        }
        return Array(data)
    }
}

/// Why an upload is refused before anything is written.
enum UploadRefusal: Error {
    case nameTooLong(bytes: Int)

    var reason: String {
        switch self {
        case .nameTooLong(let bytes):
            "its name is \(bytes) bytes long, and a file name may have at most \(FolderFileSink.maxNameBytes)"
        }
    }
}

/// An upload written to a temporary name in the files folder and moved to a unique base name when complete.
final class FolderFileSink: RemoteFileSink, @unchecked Sendable {
    // Used by one session stream at a time.
    private let folder: URL
    private let name: String
    private let temporary: URL
    private let handle: FileHandle

    /// The longest file name the folder's file system takes (`NAME_MAX`), in UTF-8 bytes.
    static let maxNameBytes = 255

    init(folder: URL, requestedName: String) throws {
        name = Self.baseName(requestedName)
        guard name.utf8.count <= Self.maxNameBytes else { throw UploadRefusal.nameTooLong(bytes: name.utf8.count) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.folder = folder
        temporary = folder.appendingPathComponent(".upload-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        handle = try FileHandle(forWritingTo: temporary)
    }

    /// The last path component, without control characters, never empty, never a dot file.
    static func baseName(_ requested: String) -> String {
        let last = requested.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let cleaned = String(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.map(Character.init))
        let trimmed = cleaned.drop { $0 == "." }
        return trimmed.isEmpty ? "file" : String(trimmed)
    }

    func write(_ bytes: [UInt8]) async throws(RemoteProtocolError) {
        do { try handle.write(contentsOf: bytes) } catch { throw .invalidBody("cannot write the file") }
    }

    func commit() async throws(RemoteProtocolError) -> String {
        try? handle.close()
        let (stem, ext) = Self.split(name)
        var candidate = name
        var n = 0
        while FileManager.default.fileExists(atPath: folder.appendingPathComponent(candidate).path) {
            n += 1
            let suffix = ext.isEmpty ? "_\(n)" : "_\(n).\(ext)"
            // A name near the limit gives up the end of its stem to the number, rather than fail.
            candidate = Self.prefix(of: stem, bytes: Self.maxNameBytes - suffix.utf8.count) + suffix
        }
        do { try FileManager.default.moveItem(at: temporary, to: folder.appendingPathComponent(candidate)) } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw .invalidBody("cannot store the file: \(error.localizedDescription)")
        }
        return candidate
    }

    func discard() async {
        try? handle.close()
        try? FileManager.default.removeItem(at: temporary)
    }

    /// The longest start of `text` of at most `bytes` UTF-8 bytes, whole characters only.
    static func prefix(of text: String, bytes: Int) -> String {
        var out = ""
        var count = 0
        for c in text {
            count += c.utf8.count
            if count > bytes { break }
            out.append(c)
        }
        return out
    }

    static func split(_ name: String) -> (String, String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }
}
