internal import ChatModel

/// ArchiveConfig (chat-api.md §7.30): where `/_db export` writes and `/_db import` reads an archive.
struct ArchiveConfig: Equatable, Sendable {
    var archivePath: String
    /// Entries stored instead of deflated.
    var disableCompression: Bool
    /// Where the temporary folder goes (the system's by default): the apps pick one on the same volume.
    var parentTempDirectory: String?

    init(_ raw: RawJSON) throws(ChatError) {
        let config = try JSONInput(parsing: raw).object()
        archivePath = try config.string("archivePath")
        disableCompression = try config.optionalBool("disableCompression") ?? false
        parentTempDirectory = try config.optionalString("parentTempDirectory")
    }
}

/// DBEncryptionConfig (chat-api.md §7.30): the keys of `/_db encryption`; an empty key is no encryption.
struct DBEncryptionConfig: Equatable, Sendable {
    var currentKey: String
    var newKey: String
    /// Whether the core keeps the new key for reopening the store (the official core forgets it otherwise). This
    /// core always keeps it: the connections it reopens need it, and the page key is in memory anyway while the
    /// store is open (docs/storage-encryption.md, threat model).
    var keepKey: Bool

    init(_ raw: RawJSON) throws(ChatError) {
        let config = try JSONInput(parsing: raw).object()
        currentKey = try config.string("currentKey")
        newKey = try config.string("newKey")
        keepKey = try config.optionalBool("keepKey") ?? false
    }
}

/// ArchiveError (chat-api.md §8.7): a problem with one file of an export or import, which does not stop the rest.
public enum ArchiveError: Hashable, Sendable, JSONEncodable {
    /// `{"type":"import","importError":…}`: a folder of the archive could not be put in place.
    case importError(String)
    /// `{"type":"fileError","file":…,"fileError":…}`: one file (its name) was left out.
    case fileError(file: String, fileError: String)

    public var json: JSONValue {
        switch self {
        case .importError(let message): .tagged("import", ["importError": .string(message)])
        case .fileError(let file, let message): .tagged("fileError", ["file": .string(file), "fileError": .string(message)])
        }
    }
}
