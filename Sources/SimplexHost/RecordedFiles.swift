public import SimplexEncoding

/// A controller's `getFile` (xrcp.md §11.3) on a core seen only through its command API, as a loaded libsimplex is:
/// the file record is found where the API shows it, on the chat item that carries it, and checked as the reference's
/// `handleGetFile` checks it — the active user, the record `(userId, fileId, sent)`, the same `fileSource`.
///
/// The API has no command that reads a file record by id for the user's own local files (`/fs` refuses them), so the
/// user's chats are read page by page, newest first, until an item with the file turns up; a store of N items costs
/// about N / `pageSize` commands for a file that is not there.
public struct RecordedFiles: Sendable {
    let execute: @Sendable (String) async -> [UInt8]
    /// Items read per command.
    public var pageSize = 200

    /// `execute` runs a command line on the core and returns its FFI envelope.
    public init(execute: @escaping @Sendable (String) async -> [UInt8]) { self.execute = execute }

    public func path(userId: Int64, fileId: Int64, sent: Bool, fileSource: CanonicalJSON) async -> Result<
        String, ChatErrorEnvelope
    > {
        let notFound = ChatErrorEnvelope(
            bytes: Envelope.error(.store(type: "fileNotFound", fields: ["fileId": .integer(fileId)])))
        let active = await execute("/user")
        guard let user = result(active, "activeUser")?["user"]?["userId"]?.integerValue else {
            return .failure(ChatErrorEnvelope(bytes: active))
        }
        guard user == userId else {
            return .failure(
                ChatErrorEnvelope(
                    bytes: Envelope.error(
                        .error(
                            type: "differentActiveUser",
                            fields: ["commandUserId": .integer(userId), "activeUserId": .integer(user)]))))
        }
        guard let chats = Self.array(result(await execute("/_get chats \(userId) pcc=off"), "apiChats")?["chats"]) else {
            return .failure(notFound)
        }
        for chat in chats {
            guard let ref = Self.chatRef(chat["chatInfo"]) else { continue }
            var before: Int64?
            while true {
                let page = before.map { "before=\($0) count=\(pageSize)" } ?? "count=\(pageSize)"
                let answer = result(await execute("/_get chat \(ref) \(page)"), "apiChat")
                guard let items = Self.array(answer?["chat"]?["chatItems"]), !items.isEmpty
                else { break }
                for item in items.reversed() {
                    guard let file = item["file"], file["fileId"]?.integerValue == fileId else { continue }
                    // The record exists: it is served only as requested (`getLocalCryptoFile` and the comparison).
                    guard let recorded = file["fileSource"], let path = recorded["filePath"]?.stringValue,
                        (file["fileStatus"]?["type"]?.stringValue?.hasPrefix("snd") ?? false) == sent,
                        path == fileSource["filePath"]?.stringValue,
                        Self.present(recorded["cryptoArgs"]) == Self.present(fileSource["cryptoArgs"])
                    else { return .failure(notFound) }
                    return .success(path)
                }
                let ids = items.compactMap { $0["meta"]?["itemId"]?.integerValue }
                guard items.count == pageSize, let oldest = ids.min(), oldest != before else { break }
                before = oldest
            }
        }
        return .failure(notFound)
    }

    /// The `result` of an envelope when it is of `type`.
    private func result(_ envelope: [UInt8], _ type: String) -> CanonicalJSON? {
        guard let json = try? CanonicalJSON.parse(envelope), let result = json["result"],
            result["type"]?.stringValue == type
        else { return nil }
        return result
    }

    private static func array(_ json: CanonicalJSON?) -> [CanonicalJSON]? {
        if case .array(let items)? = json { return items }
        return nil
    }

    /// An optional field: absent and `null` are the same.
    private static func present(_ json: CanonicalJSON?) -> CanonicalJSON? {
        if case .null? = json { return nil }
        return json
    }

    /// The chat reference of a `ChatInfo` whose chat holds items: a contact, a group, a notes folder.
    static func chatRef(_ info: CanonicalJSON?) -> String? {
        guard let info else { return nil }
        switch info["type"]?.stringValue {
        case "direct": return info["contact"]?["contactId"]?.integerValue.map { "@\($0)" }
        case "group": return info["groupInfo"]?["groupId"]?.integerValue.map { "#\($0)" }
        case "local": return info["noteFolder"]?["noteFolderId"]?.integerValue.map { "*\($0)" }
        default: return nil
        }
    }
}
