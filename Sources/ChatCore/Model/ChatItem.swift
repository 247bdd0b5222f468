public import ChatModel
public import SimplexEncoding

/// ChatItem (chat-api.md §7.19): one message of a chat with its meta data. `formattedText` is the markdown of the text,
/// absent for plain text; mentions are not kept yet (a mention is a member's name found in the text), so their map is
/// empty.
public struct ChatItem: Hashable, Sendable, JSONWritable {
    public var chatDir: CIDirection
    public var meta: CIMeta
    public var content: CIContent
    public var quotedItem: CIQuote?
    public var reactions: [CIReactionCount] = []
    public var file: CIFile?
    /// The markdown of the text, parsed where the item is read (with `meta.hasLink`), not again at each rendering.
    public var formattedText: JSONValue?

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("chatDir", chatDir)
        w.field("meta", meta)
        w.field("content", content)
        w.field("mentions", JSONValue.object([]))
        w.field("formattedText", formattedText)
        w.field("quotedItem", quotedItem)
        w.field("reactions", reactions)
        w.field("file", file)
        w.endObject()
    }

    /// The message content, when the item is a message.
    var msgContent: MsgContent? {
        switch content {
        case .sndMsgContent(let mc), .rcvMsgContent(let mc): mc
        case .sndModerated, .chatBanner, .sndGroupE2EEInfo, .sndGroupFeature, .sndGroupEvent: nil
        }
    }
}

/// CIDirection (chat-api.md §7.21): the variants of the chats the core keeps items for.
public enum CIDirection: Hashable, Sendable, JSONWritable {
    case localSnd
    case localRcv
    /// The user's item in a group (`groupRcv` carries the sending member; local groups have no other members).
    case groupSnd

    public var sent: Bool {
        switch self {
        case .localSnd, .groupSnd: true
        case .localRcv: false
        }
    }

    public func write(to w: inout JSONWriter) {
        switch self {
        case .localSnd: w.tagged("localSnd")
        case .localRcv: w.tagged("localRcv")
        case .groupSnd: w.tagged("groupSnd")
        }
    }
}

/// CIContent (chat-api.md §7.23): the message variants, the placeholder a moderator's full deletion leaves of the
/// user's own message, and the event items the core creates in a group: its banner, the encryption notice, one item per
/// group feature, and the user's group events.
public enum CIContent: Hashable, Sendable, JSONWritable {
    case sndMsgContent(MsgContent)
    case rcvMsgContent(MsgContent)
    case sndModerated
    /// The synthetic first item of a chat (newest core: `CIChatBanner`, dated at the epoch).
    case chatBanner
    /// `E2EInfo.pqEnabled`: a new group's members are never quantum-resistant.
    case sndGroupE2EEInfo(pqEnabled: Bool)
    /// A group feature's state: `preference` is `{"enable": …}` alone; the parameter and role come only with "on".
    case sndGroupFeature(groupFeature: String, enable: GroupFeatureEnabled, param: Int64?, memberRole: GroupMemberRole?)
    case sndGroupEvent(SndGroupEvent)

    /// The item text of a moderated item (the core's `ciModeratedText`).
    static let moderatedText = "moderated"

    /// The text of a group's encryption notice (the core's `e2eInfoNoPQText`, which `groupE2EInfoToText` always is).
    static let groupE2EEText =
        "This conversation is protected by end-to-end encryption with perfect forward secrecy, repudiation and break-in recovery."

    /// The tag the JSON and the store give the content.
    var tag: String {
        switch self {
        case .sndMsgContent: "sndMsgContent"
        case .rcvMsgContent: "rcvMsgContent"
        case .sndModerated: "sndModerated"
        case .chatBanner: "chatBanner"
        case .sndGroupE2EEInfo: "sndGroupE2EEInfo"
        case .sndGroupFeature: "sndGroupFeature"
        case .sndGroupEvent: "sndGroupEvent"
        }
    }

    /// The item text of an event item (the core's `ciContentToText`).
    var eventText: String {
        switch self {
        case .sndMsgContent(let mc), .rcvMsgContent(let mc): mc.itemText
        case .sndModerated: Self.moderatedText
        case .chatBanner: ""
        case .sndGroupE2EEInfo: Self.groupE2EEText
        case .sndGroupFeature(let feature, let enable, let param, let role):
            GroupFeature(rawValue: feature).map { $0.stateText(enable, param: param, role: role) } ?? feature
        case .sndGroupEvent(let event): event.text
        }
    }

    public func write(to w: inout JSONWriter) {
        switch self {
        case .sndMsgContent(let mc):
            w.beginTagged("sndMsgContent")
            w.key("msgContent")
            mc.write(to: &w)
        case .rcvMsgContent(let mc):
            w.beginTagged("rcvMsgContent")
            w.key("msgContent")
            mc.write(to: &w)
        case .sndModerated:
            w.beginTagged("sndModerated")
        case .chatBanner:
            w.beginTagged("chatBanner")
        case .sndGroupE2EEInfo(let pq):
            w.beginTagged("sndGroupE2EEInfo")
            w.key("e2eeInfo")
            w.beginObject()
            w.field("pqEnabled", pq)
            w.endObject()
        case .sndGroupFeature(let feature, let enable, let param, let role):
            w.beginTagged("sndGroupFeature")
            w.field("groupFeature", feature)
            w.key("preference")
            w.beginObject()
            w.field("enable", enable.rawValue)
            w.endObject()
            w.field("param", param)
            w.field("memberRole_", role?.rawValue)
        case .sndGroupEvent(let event):
            w.beginTagged("sndGroupEvent")
            w.field("sndGroupEvent", event)
        }
        w.endObject()
    }

    /// Reads back an event item's content as `write` stored it; anything else is the store's internal error.
    static func storedEvent(_ text: String) throws(ChatError) -> CIContent {
        guard let json = try? CanonicalJSON.parse(text) else { throw .errorStore(.internalError("stored CIContent")) }
        let input = JSONInput(json)
        do {
            switch try input.object().string("type") {
            case "chatBanner": return .chatBanner
            case "sndGroupE2EEInfo":
                return .sndGroupE2EEInfo(pqEnabled: try input.required("e2eeInfo").member("pqEnabled")?.bool() ?? false)
            case "sndGroupFeature":
                return .sndGroupFeature(
                    groupFeature: try input.string("groupFeature"),
                    enable: try input.required("preference").required("enable").enumeration(GroupFeatureEnabled.self),
                    param: try input.optionalInteger("param"),
                    memberRole: try input.member("memberRole_")?.enumeration(GroupMemberRole.self))
            case "sndGroupEvent":
                let event = try input.required("sndGroupEvent")
                switch try event.string("type") {
                case "userLeft": return .sndGroupEvent(.userLeft)
                case "groupUpdated": return .sndGroupEvent(.groupUpdated(try GroupProfile(event.required("groupProfile"))))
                default: break
                }
            default: break
            }
        } catch {
            throw .errorStore(.internalError("stored CIContent"))
        }
        throw .errorStore(.internalError("stored CIContent"))
    }
}

/// SndGroupEvent (chat-api.md §7.23, the core's `sumTypeJSON $ dropPrefix "SGE"`): what the user did in a group, of
/// the events a group without other members can have.
public enum SndGroupEvent: Hashable, Sendable, JSONWritable {
    case groupUpdated(GroupProfile)
    case userLeft

    /// `sndGroupEventToText`.
    var text: String {
        switch self {
        case .groupUpdated: "group profile updated"
        case .userLeft: "left"
        }
    }

    public func write(to w: inout JSONWriter) {
        switch self {
        case .groupUpdated(let profile):
            w.beginTagged("groupUpdated")
            w.field("groupProfile", profile)
        case .userLeft:
            w.beginTagged("userLeft")
        }
        w.endObject()
    }
}

/// CIStatus (chat-api.md §7.22) of items that never leave the device. `rawValue` is the core's stored text form.
public enum CIStatus: String, Hashable, Sendable, JSONWritable {
    case sndNew = "snd_new"
    case rcvNew = "rcv_new"
    case rcvRead = "rcv_read"

    public func write(to w: inout JSONWriter) {
        switch self {
        case .sndNew: w.tagged("sndNew")
        case .rcvNew: w.tagged("rcvNew")
        case .rcvRead: w.tagged("rcvRead")
        }
    }
}

/// CIForwardedFrom (chat-api.md §7.20).
public enum CIForwardedFrom: Hashable, Sendable, JSONEncodable {
    case unknown
    case contact(chatName: String, msgDir: String, contactId: Int64?, chatItemId: Int64?)
    case group(chatName: String, msgDir: String, groupId: Int64?, chatItemId: Int64?)

    public var json: JSONValue {
        switch self {
        case .unknown: .tagged("unknown")
        case .contact(let name, let dir, let contactId, let itemId):
            .tagged(
                "contact",
                ["chatName": .string(name), "msgDir": .string(dir), "contactId": contactId?.json, "chatItemId": itemId?.json])
        case .group(let name, let dir, let groupId, let itemId):
            .tagged(
                "group",
                ["chatName": .string(name), "msgDir": .string(dir), "groupId": groupId?.json, "chatItemId": itemId?.json])
        }
    }
}

/// CIMeta (chat-api.md §7.20), fields in the core's order; the optional ones the embedded core never sets are left
/// out of the type.
public struct CIMeta: Hashable, Sendable, JSONWritable {
    public var itemId: Int64
    public var itemTs: UTCTime
    public var itemText: String
    public var itemStatus: CIStatus
    /// The id the item has on the network: group items have one, notes do not.
    public var itemSharedMsgId: SharedMsgId?
    public var itemForwarded: CIForwardedFrom?
    public var itemDeleted: CIDeleted?
    public var itemEdited: Bool
    public var itemLive: Bool?
    public var userMention: Bool
    public var hasLink: Bool
    public var deletable: Bool
    public var editable: Bool
    public var createdAt: UTCTime
    public var updatedAt: UTCTime

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("itemId", itemId)
        w.field("itemTs", itemTs)
        w.field("itemText", itemText)
        w.field("itemStatus", itemStatus)
        w.field("itemSharedMsgId", itemSharedMsgId)
        w.field("itemForwarded", itemForwarded?.json)
        w.field("itemDeleted", itemDeleted?.json)
        w.field("itemEdited", itemEdited)
        w.field("itemLive", itemLive)
        w.field("userMention", userMention)
        w.field("hasLink", hasLink)
        w.field("deletable", deletable)
        w.field("editable", editable)
        w.field("showGroupAsSender", false)
        w.field("createdAt", createdAt)
        w.field("updatedAt", updatedAt)
        w.endObject()
    }
}

/// CIDeleted (chat-api.md §7.20): an item marked deleted but kept; the user's own deletions are `deleted`, a
/// moderator's are `moderated` and name the moderator.
public struct CIDeleted: Hashable, Sendable, JSONEncodable {
    public var deletedTs: UTCTime?
    /// The chat type the item is in (`group`, `direct`, `local`).
    public var chatType: String
    /// The moderator who deleted the item, when a moderator did.
    public var byGroupMember: GroupMember? = nil

    public var json: JSONValue {
        if let byGroupMember {
            return .tagged("moderated", ["deletedTs": deletedTs?.json, "byGroupMember": byGroupMember.json])
        }
        return .tagged("deleted", ["deletedTs": deletedTs?.json, "chatType": .string(chatType)])
    }
}

/// CIQuote (chat-api.md §7.19): what a reply quotes, as it was when the reply was sent.
public struct CIQuote: Hashable, Sendable, JSONWritable {
    /// Nil when the sender is unknown, written `null` (`CIQDirection`'s own encoder renders `CIQGroupRcv Nothing` as
    /// `null`, and the field is not a `Maybe`, so it is not left out); the user's own items in a group are `groupSnd`.
    public var chatDir: CIDirection?
    /// The quoted item, while it is still in the chat.
    public var itemId: Int64?
    public var sharedMsgId: SharedMsgId?
    public var sentAt: UTCTime
    public var content: MsgContent

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("chatDir")
        if let chatDir { chatDir.write(to: &w) } else { w.null() }
        w.field("itemId", itemId)
        w.field("sharedMsgId", sharedMsgId)
        w.field("sentAt", sentAt)
        w.key("content")
        content.write(to: &w)
        // The quoted text's markdown, as the core reads a quote back (`formattedText` of `msgContentText content`).
        w.field("formattedText", content.markdown.formattedText)
        w.endObject()
    }
}

/// MsgReaction (chat-api.md §7.24): an emoji, or a reaction type this core does not know, kept as it came.
public enum MsgReaction: Hashable, Sendable, JSONEncodable {
    case emoji(String)
    case unknown(tag: String, json: CanonicalJSON)

    public var json: JSONValue {
        switch self {
        case .emoji(let e): .tagged("emoji", ["emoji": .string(e)])
        case .unknown(_, let json): JSONValue(json)
        }
    }
}

extension MsgReaction {
    /// Reads a MsgReaction as the core's parser does: an emoji needs its text; another type is kept whole.
    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        switch try input.string("type") {
        case "emoji": self = .emoji(try input.string("emoji"))
        case let tag: self = .unknown(tag: tag, json: input.value)
        }
    }

    static func stored(_ text: String) throws(ChatError) -> MsgReaction {
        guard let json = try? CanonicalJSON.parse(text) else { throw .errorStore(.internalError("stored MsgReaction")) }
        return try MsgReaction(JSONInput(json))
    }
}

/// CIReactionCount (chat-api.md §7.19): one reaction on an item, how many gave it and whether the user did.
public struct CIReactionCount: Hashable, Sendable, JSONWritable {
    public var reaction: MsgReaction
    public var userReacted: Bool
    public var totalReacted: Int64

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("reaction", reaction.json)
        w.field("userReacted", userReacted)
        w.field("totalReacted", totalReacted)
        w.endObject()
    }
}

/// ACIReaction (chat-api.md §7.26): a reaction with the item it is on (as it is after the reaction) and its chat.
public struct ACIReaction: Hashable, Sendable, JSONEncodable {
    public var chatInfo: ChatInfo
    public var chatDir: CIDirection
    public var chatItem: ChatItem
    public var sentAt: UTCTime
    public var reaction: MsgReaction

    public var json: JSONValue {
        .record([
            "chatInfo": chatInfo.json,
            "chatReaction": .record([
                "chatDir": chatDir.json, "chatItem": chatItem.json, "sentAt": sentAt.json, "reaction": reaction.json,
            ]),
        ])
    }
}

/// CIFile (chat-api.md §7.25).
public struct CIFile: Hashable, Sendable, JSONWritable {
    public var fileId: Int64
    public var fileName: String
    public var fileSize: Int64
    public var fileSource: CryptoFile?
    /// The CIFileStatus tag; local files are `sndStored`.
    public var fileStatus: String
    public var fileProtocol: FileProtocol

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("fileId", fileId)
        w.field("fileName", fileName)
        w.field("fileSize", fileSize)
        w.field("fileSource", fileSource?.json)
        w.field("fileStatus", JSONValue.tagged(fileStatus))
        w.field("fileProtocol", fileProtocol.rawValue)
        w.endObject()
    }
}

/// FileProtocol (chat-api.md §7.25). The official encoder writes lower-case tags (`textEncode`), while the generated
/// types list `SMP`, `XFTP`, `LOCAL`; the apps decode the lower-case ones only.
public enum FileProtocol: String, Hashable, Sendable, CaseIterable {
    case smp
    case xftp
    case local

    /// The store's spelling, the upper-case one (`files.protocol`).
    init?(storeTag: String) { self.init(rawValue: storeTag.lowercased()) }
}

/// AChatItem (chat-api.md §7.18): an item with its chat.
public struct AChatItem: Hashable, Sendable, JSONEncodable {
    public var chatInfo: ChatInfo
    public var chatItem: ChatItem

    public var json: JSONValue { .record(["chatInfo": chatInfo.json, "chatItem": chatItem.json]) }
}

/// NavigationInfo (chat-api.md §7.18): unread and total items after the returned page.
public struct NavigationInfo: Hashable, Sendable, JSONEncodable {
    public var afterUnread: Int64
    public var afterTotal: Int64

    public var json: JSONValue { .record(["afterUnread": .integer(afterUnread), "afterTotal": .integer(afterTotal)]) }
}

/// MemberReaction (chat-api.md §7.26): who gave a reaction, and when.
public struct MemberReaction: Hashable, Sendable, JSONEncodable {
    public var groupMember: GroupMember
    public var reactionTs: UTCTime

    public var json: JSONValue { .record(["groupMember": groupMember.json, "reactionTs": reactionTs.json]) }
}

/// ChatItemDeletion (chat-api.md §7.26): `toChatItem` is absent when the item is gone.
public struct ChatItemDeletion: Hashable, Sendable, JSONEncodable {
    public var deletedChatItem: AChatItem
    public var toChatItem: AChatItem?

    public var json: JSONValue { .record(["deletedChatItem": deletedChatItem.json, "toChatItem": toChatItem?.json]) }
}

/// ChatItemVersion (chat-api.md §7.26): an item's content before and after each edit, with the markdown of its text
/// (`formattedText = parseMaybeMarkdownList $ msgContentText mc`, absent for text without markdown).
public struct ChatItemVersion: Hashable, Sendable, JSONEncodable {
    public var chatItemVersionId: Int64
    public var msgContent: MsgContent
    public var itemVersionTs: UTCTime
    public var createdAt: UTCTime

    public var json: JSONValue {
        .record([
            "chatItemVersionId": .integer(chatItemVersionId), "msgContent": msgContent.json,
            "formattedText": msgContent.markdown.formattedText, "itemVersionTs": itemVersionTs.json,
            "createdAt": createdAt.json,
        ])
    }
}

/// ChatItemInfo (chat-api.md §7.26); delivery statuses are for group items only.
public struct ChatItemInfo: Hashable, Sendable, JSONEncodable {
    public var itemVersions: [ChatItemVersion]
    public var forwardedFromChatItem: AChatItem?

    public var json: JSONValue {
        .record(["itemVersions": .list(itemVersions), "forwardedFromChatItem": forwardedFromChatItem?.json])
    }
}

/// ForwardConfirmation (chat-api.md §7.26): why some items would be forwarded without their files.
public enum ForwardConfirmation: Hashable, Sendable, JSONEncodable {
    case filesNotAccepted(fileIds: [Int64])
    case filesInProgress(filesCount: Int64)
    case filesMissing(filesCount: Int64)
    case filesFailed(filesCount: Int64)

    public var json: JSONValue {
        switch self {
        case .filesNotAccepted(let ids): .tagged("filesNotAccepted", ["fileIds": .array(ids.map(\.json))])
        case .filesInProgress(let n): .tagged("filesInProgress", ["filesCount": .integer(n)])
        case .filesMissing(let n): .tagged("filesMissing", ["filesCount": .integer(n)])
        case .filesFailed(let n): .tagged("filesFailed", ["filesCount": .integer(n)])
        }
    }
}
