internal import ChatModel
internal import ChatStore

/// A `ChatError` (chat-api.md §8.1): the value of `error` in an envelope. The embedded core raises chat-level, store and
/// database (encryption) errors; it has no agent or remote session yet, so the other kinds exist only as tags.
public enum ChatError: Error, Hashable, Sendable {
    /// `{"type":"error","errorType":…}`.
    case error(ChatErrorType)
    /// `{"type":"errorStore","storeError":…}`.
    case errorStore(StoreError)
    /// `{"type":"errorDatabase","databaseError":…}`: the store's files could not be opened, tested or re-keyed.
    case errorDatabase(DatabaseError)

    public var kind: ChatErrorKind {
        switch self {
        case .error: .error
        case .errorStore: .errorStore
        case .errorDatabase: .errorDatabase
        }
    }

    public var json: JSONValue {
        switch self {
        case .error(let e): .tagged(ChatErrorKind.error.rawValue, ["errorType": e.json])
        case .errorStore(let e): .tagged(ChatErrorKind.errorStore.rawValue, ["storeError": e.json])
        case .errorDatabase(let e): .tagged(ChatErrorKind.errorDatabase.rawValue, ["databaseError": e.json])
        }
    }

    /// A SQLite failure inside a store operation, as the core's `withStore` reports it.
    static func database(_ e: SQLiteError) -> ChatError {
        // SQLITE_BUSY (5) and SQLITE_LOCKED (6) are the busy case; everything else is an exception.
        let primary = e.code & 0xff
        return .errorStore(primary == 5 || primary == 6 ? .dBBusyError(e.description) : .dBException(e.description))
    }
}

/// `ChatErrorType` (chat-api.md §8.2): a tag from `ChatErrorTag` and its fields, built by the constructors below.
public struct ChatErrorType: Hashable, Sendable {
    public let tag: ChatErrorTag
    public let fields: [JSONField]

    init(_ tag: ChatErrorTag, _ fields: KeyValuePairs<String, JSONValue?> = [:]) {
        self.tag = tag
        self.fields = fields.compactMap { key, value in value.map { JSONField(key, $0) } }
    }

    public var json: JSONValue { .object([JSONField("type", .string(tag.rawValue))] + fields) }

    /// The `message` field of `commandError`, `exception` and the like.
    public var message: String? { fields.first { $0.key == "message" }?.value.stringValue }

    static let noActiveUser = ChatErrorType(.noActiveUser)
    static let userUnknown = ChatErrorType(.userUnknown)
    static let chatRelayExists = ChatErrorType(.chatRelayExists)
    static let chatNotStarted = ChatErrorType(.chatNotStarted)
    static let chatNotStopped = ChatErrorType(.chatNotStopped)
    static let chatStoreChanged = ChatErrorType(.chatStoreChanged)

    static func userExists(contactName: String) -> ChatErrorType {
        ChatErrorType(.userExists, ["contactName": .string(contactName)])
    }
    static func differentActiveUser(commandUserId: Int64, activeUserId: Int64) -> ChatErrorType {
        ChatErrorType(.differentActiveUser, ["commandUserId": .integer(commandUserId), "activeUserId": .integer(activeUserId)])
    }
    static func cantDeleteActiveUser(userId: Int64) -> ChatErrorType {
        ChatErrorType(.cantDeleteActiveUser, ["userId": .integer(userId)])
    }
    static func cantHideLastUser(userId: Int64) -> ChatErrorType {
        ChatErrorType(.cantHideLastUser, ["userId": .integer(userId)])
    }
    static func hiddenUserAlwaysMuted(userId: Int64) -> ChatErrorType {
        ChatErrorType(.hiddenUserAlwaysMuted, ["userId": .integer(userId)])
    }
    static func emptyUserPassword(userId: Int64) -> ChatErrorType {
        ChatErrorType(.emptyUserPassword, ["userId": .integer(userId)])
    }
    static func userAlreadyHidden(userId: Int64) -> ChatErrorType {
        ChatErrorType(.userAlreadyHidden, ["userId": .integer(userId)])
    }
    static func userNotHidden(userId: Int64) -> ChatErrorType { ChatErrorType(.userNotHidden, ["userId": .integer(userId)]) }
    static func invalidDisplayName(displayName: String, validName: String) -> ChatErrorType {
        ChatErrorType(.invalidDisplayName, ["displayName": .string(displayName), "validName": .string(validName)])
    }
    static func groupUserRole(groupInfo: GroupInfo, requiredRole: GroupMemberRole) -> ChatErrorType {
        ChatErrorType(.groupUserRole, ["groupInfo": groupInfo.json, "requiredRole": .string(requiredRole.rawValue)])
    }
    static func groupNotJoined(groupInfo: GroupInfo) -> ChatErrorType {
        ChatErrorType(.groupNotJoined, ["groupInfo": groupInfo.json])
    }
    static let groupMemberUserRemoved = ChatErrorType(.groupMemberUserRemoved)
    static let groupMemberNotActive = ChatErrorType(.groupMemberNotActive)
    /// The chat-level `groupMemberNotFound` (no fields): a member id not among the group's other members.
    static let groupMemberNotFound = ChatErrorType(.groupMemberNotFound)
    static let invalidChatItemUpdate = ChatErrorType(.invalidChatItemUpdate)
    static let invalidChatItemDelete = ChatErrorType(.invalidChatItemDelete)
    static let invalidForward = ChatErrorType(.invalidForward)
    static func fileNotFound(_ message: String) -> ChatErrorType { ChatErrorType(.fileNotFound, ["message": .string(message)]) }
    static func fileSize(filePath: String) -> ChatErrorType { ChatErrorType(.fileSize, ["filePath": .string(filePath)]) }
    static func commandError(_ message: String) -> ChatErrorType { ChatErrorType(.commandError, ["message": .string(message)]) }
    static func internalError(_ message: String) -> ChatErrorType { ChatErrorType(.internalError, ["message": .string(message)]) }
    static func exception(_ message: String) -> ChatErrorType { ChatErrorType(.exception, ["message": .string(message)]) }
}

/// `StoreError` (chat-api.md §8.3): a tag from `StoreErrorTag` and its fields.
public struct StoreError: Hashable, Sendable {
    public let tag: StoreErrorTag
    public let fields: [JSONField]

    init(_ tag: StoreErrorTag, _ fields: KeyValuePairs<String, JSONValue?> = [:]) {
        self.tag = tag
        self.fields = fields.compactMap { key, value in value.map { JSONField(key, $0) } }
    }

    public var json: JSONValue { .object([JSONField("type", .string(tag.rawValue))] + fields) }

    static let duplicateName = StoreError(.duplicateName)
    static let userContactLinkNotFound = StoreError(.userContactLinkNotFound)
    static let duplicateContactLink = StoreError(.duplicateContactLink)
    static func userNotFound(userId: Int64) -> StoreError { StoreError(.userNotFound, ["userId": .integer(userId)]) }
    static func userNotFoundByName(contactName: String) -> StoreError {
        StoreError(.userNotFoundByName, ["contactName": .string(contactName)])
    }
    static func contactNotFoundByName(contactName: String) -> StoreError {
        StoreError(.contactNotFoundByName, ["contactName": .string(contactName)])
    }
    static func contactRequestNotFoundByName(contactName: String) -> StoreError {
        StoreError(.contactRequestNotFoundByName, ["contactName": .string(contactName)])
    }
    static func groupNotFoundByName(groupName: String) -> StoreError {
        StoreError(.groupNotFoundByName, ["groupName": .string(groupName)])
    }
    static func groupMemberNameNotFound(groupId: Int64, groupMemberName: String) -> StoreError {
        StoreError(.groupMemberNameNotFound, ["groupId": .integer(groupId), "groupMemberName": .string(groupMemberName)])
    }
    static func chatItemNotFoundByText(text: String) -> StoreError {
        StoreError(.chatItemNotFoundByText, ["text": .string(text)])
    }
    static let userNoteFolderNotFound = StoreError(.userNoteFolderNotFound)
    static func noteFolderNotFound(noteFolderId: Int64) -> StoreError {
        StoreError(.noteFolderNotFound, ["noteFolderId": .integer(noteFolderId)])
    }
    static let invalidQuote = StoreError(.invalidQuote)
    static func localFileNoTransfer(fileId: Int64) -> StoreError {
        StoreError(.localFileNoTransfer, ["fileId": .integer(fileId)])
    }
    static func fileNotFound(fileId: Int64) -> StoreError { StoreError(.fileNotFound, ["fileId": .integer(fileId)]) }
    static func chatItemNotFound(itemId: Int64) -> StoreError { StoreError(.chatItemNotFound, ["itemId": .integer(itemId)]) }
    static func contactRequestNotFound(contactRequestId: Int64) -> StoreError {
        StoreError(.contactRequestNotFound, ["contactRequestId": .integer(contactRequestId)])
    }
    static func badChatItem(itemId: Int64) -> StoreError { StoreError(.badChatItem, ["itemId": .integer(itemId)]) }
    static func contactNotFound(contactId: Int64) -> StoreError {
        StoreError(.contactNotFound, ["contactId": .integer(contactId)])
    }
    static func groupNotFound(groupId: Int64) -> StoreError { StoreError(.groupNotFound, ["groupId": .integer(groupId)]) }
    static func groupMemberNotFound(groupMemberId: Int64) -> StoreError {
        StoreError(.groupMemberNotFound, ["groupMemberId": .integer(groupMemberId)])
    }
    static func groupLinkNotFound(groupInfo: GroupInfo) -> StoreError {
        StoreError(.groupLinkNotFound, ["groupInfo": groupInfo.json])
    }
    static func pendingConnectionNotFound(connId: Int64) -> StoreError {
        StoreError(.pendingConnectionNotFound, ["connId": .integer(connId)])
    }
    static func dBException(_ message: String) -> StoreError { StoreError(.dBException, ["message": .string(message)]) }
    static func dBBusyError(_ message: String) -> StoreError { StoreError(.dBBusyError, ["message": .string(message)]) }
    static func internalError(_ message: String) -> StoreError { StoreError(.internalError, ["message": .string(message)]) }
}

/// `DatabaseError` (chat-api.md §8.5): why `/_db encryption` or `/db test key` failed, from the store's `KeyError`.
public struct DatabaseError: Hashable, Sendable {
    public let tag: DatabaseErrorTag
    public let fields: [JSONField]

    init(_ error: ChatDatabases.KeyError) {
        switch error {
        case .errorEncrypted: (tag, fields) = (.errorEncrypted, [])
        case .errorPlaintext: (tag, fields) = (.errorPlaintext, [])
        case .errorNoFile(let file): (tag, fields) = (.errorNoFile, [JSONField("dbFile", .string(file))])
        case .errorExport(let e): (tag, fields) = (.errorExport, [JSONField("sqliteError", Self.sqliteError(e))])
        case .errorOpen(let e): (tag, fields) = (.errorOpen, [JSONField("sqliteError", Self.sqliteError(e))])
        }
    }

    public var json: JSONValue { .object([JSONField("type", .string(tag.rawValue))] + fields) }

    /// `SQLiteError`: `errorNotADatabase` for a wrong key (or not a database), else `error` with SQLite's words.
    private static func sqliteError(_ e: SQLiteError) -> JSONValue {
        e.isNotADatabase
            ? .tagged(SQLiteErrorTag.errorNotADatabase.rawValue, [:])
            : .tagged(SQLiteErrorTag.error.rawValue, ["dbError": .string(e.description)])
    }
}
