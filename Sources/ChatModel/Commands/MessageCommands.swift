// Commands of chat-api.md §4.3 (chats and messages).

extension ChatCommand {
    /// `/_get chats <userId>[ pcc=on|off][ <timePagination>][ <json(ChatListQuery)>]` (§4.3).
    public struct APIGetChats: CommandArguments {
        public var userId: Int64 = 0
        /// `pcc=`: include pending contact connections.
        public var pendingConnections = false
        /// `nil`: the core's default, `count=5000`.
        public var pagination: TimePagination?
        /// `nil`: the core's default, no filters.
        public var query: RawJSON?
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_get chats ", .param(\.userId), .flag(" pcc=", \.pendingConnections, default: false),
            .optional(.space, \.pagination), .optional(.space, \.query, .json(.object)),
        ]
    }

    /// `/_get chat <chatRef>[ content=<MsgContentTag>] <pagination>[ search=<text>]` (§4.3).
    public struct APIGetChat: CommandArguments {
        public var chatRef = ChatRef.direct(contactId: 0)
        public var contentTag: MsgContentTag?
        public var pagination = ChatPagination.last(count: 0)
        public var search: String?
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_get chat ", .param(\.chatRef), .optional(" content=", \.contentTag), .space, .param(\.pagination),
            .optional(" search=", \.search, .rest),
        ]
    }

    /// `/_get content types <chatRef>` (§4.3).
    public struct APIGetChatContentTypes: CommandArguments {
        public var chatRef = ChatRef.direct(contactId: 0)
        public init() {}
        static let syntax: Syntax<Self> = ["/_get content types ", .param(\.chatRef)]
    }

    /// `/_get item info <chatRef> <chatItemId>` (§4.3).
    public struct APIGetChatItemInfo: CommandArguments {
        public var chatRef = ChatRef.direct(contactId: 0)
        public var chatItemId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_get item info ", .param(\.chatRef), .space, .param(\.chatItemId)]
    }

    /// `/_send <sendRef>[ live=on|off][ ttl=<seconds>|ttl=default][ sign=on] json <json([ComposedMessage])>`
    /// or `… text <text>` (§4.3).
    public struct APISendMessages: CommandArguments {
        public var sendRef = SendRef.direct(contactId: 0)
        public var liveMessage = false
        /// Message TTL in seconds; `nil`: the chat's setting (`ttl=default` or nothing).
        public var ttl: Int64?
        public var signMessages = false
        /// `json` with `[ComposedMessage]`, or `text` for one plain-text message.
        public var messages = TextOrJSON.text("")
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_send ", .param(\.sendRef), .flag(" live=", \.liveMessage, default: false),
            .flag(" ttl=", \.ttl, .secondsOrDefault, default: nil), .marker(" sign=on", \.signMessages),
            .oneOf([[" json ", .param(\.messages, .jsonCase(.array))], [" text ", .param(\.messages, .textCase)]]),
        ]
    }

    /// `/_create *<noteFolderId> json <json([ComposedMessage])>` or `… text <text>` (§4.3).
    public struct APICreateChatItems: CommandArguments {
        public var noteFolderId: Int64 = 0
        public var messages = TextOrJSON.text("")
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_create *", .param(\.noteFolderId),
            .oneOf([[" json ", .param(\.messages, .jsonCase(.array))], [" text ", .param(\.messages, .textCase)]]),
        ]
    }

    /// `/_update item <chatRef> <chatItemId>[ live=on|off] json <json(UpdatedMessage)>` or `… text <text>`
    /// (§4.3). The core reads `" json"` then JSON, so the space before the JSON is optional.
    public struct APIUpdateChatItem: CommandArguments {
        public var chatRef = ChatRef.direct(contactId: 0)
        public var chatItemId: Int64 = 0
        public var liveMessage = false
        public var updatedMessage = TextOrJSON.text("")
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_update item ", .param(\.chatRef), .space, .param(\.chatItemId), .flag(" live=", \.liveMessage, default: false),
            .oneOf([
                [" json", .blank, .param(\.updatedMessage, .jsonCase(.object))], [" text ", .param(\.updatedMessage, .textCase)],
            ]),
        ]
    }

    /// `/_delete item <chatRef> <ids> broadcast|internal|internalMark|history` (§4.3).
    public struct APIDeleteChatItem: CommandArguments {
        public var chatRef = ChatRef.direct(contactId: 0)
        public var chatItemIds: [Int64] = []
        public var deleteMode = CIDeleteMode.broadcast
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_delete item ", .param(\.chatRef), .space, .param(\.chatItemIds, .ids), .space, .param(\.deleteMode),
        ]
    }

    /// `/_delete member item #<groupId> <ids>` (§4.3).
    public struct APIDeleteMemberChatItem: CommandArguments {
        public var groupId: Int64 = 0
        public var chatItemIds: [Int64] = []
        public init() {}
        static let syntax: Syntax<Self> = ["/_delete member item #", .param(\.groupId), .space, .param(\.chatItemIds, .ids)]
    }

    /// `/_reaction <chatRef> <chatItemId> on|off <json(MsgReaction)>` (§4.3).
    public struct APIChatItemReaction: CommandArguments {
        public var chatRef = ChatRef.direct(contactId: 0)
        public var chatItemId: Int64 = 0
        public var add = false
        public var reaction = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_reaction ", .param(\.chatRef), .space, .param(\.chatItemId), .space, .param(\.add), .space,
            .param(\.reaction, .json(.object)),
        ]
    }

    /// `/_reaction members <userId> #<groupId> <chatItemId> <json(MsgReaction)>` (§4.3).
    public struct APIGetReactionMembers: CommandArguments {
        public var userId: Int64 = 0
        public var groupId: Int64 = 0
        public var chatItemId: Int64 = 0
        public var reaction = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_reaction members ", .param(\.userId), " #", .param(\.groupId), .space, .param(\.chatItemId), .space,
            .param(\.reaction, .json(.object)),
        ]
    }

    /// `/_forward plan <chatRef> <ids>` (§4.3).
    public struct APIPlanForwardChatItems: CommandArguments {
        public var fromChatRef = ChatRef.direct(contactId: 0)
        public var chatItemIds: [Int64] = []
        public init() {}
        static let syntax: Syntax<Self> = ["/_forward plan ", .param(\.fromChatRef), .space, .param(\.chatItemIds, .ids)]
    }

    /// `/_forward <toChatRef>[ as_group=on|off] <fromChatRef> <ids>[ ttl=<seconds>|ttl=default]` (§4.3).
    public struct APIForwardChatItems: CommandArguments {
        public var toChatRef = ChatRef.direct(contactId: 0)
        public var sendAsGroup = false
        public var fromChatRef = ChatRef.direct(contactId: 0)
        public var chatItemIds: [Int64] = []
        public var ttl: Int64?
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_forward ", .param(\.toChatRef), .flag(" as_group=", \.sendAsGroup, default: false), .space,
            .param(\.fromChatRef), .space, .param(\.chatItemIds, .ids), .flag(" ttl=", \.ttl, .secondsOrDefault, default: nil),
        ]
    }

    /// `/_report #<groupId> <chatItemId> reason=spam|content|community|profile|other[ <text>]` (§4.3).
    public struct APIReportMessage: CommandArguments {
        public var groupId: Int64 = 0
        public var chatItemId: Int64 = 0
        public var reportReason = ReportReason.other
        public var reportText = ""
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_report #", .param(\.groupId), .space, .param(\.chatItemId), " reason=", .param(\.reportReason),
            .flag(.space, \.reportText, .rest, default: ""),
        ]
    }

    /// `/_read chat <chatRef>` (§4.3).
    public struct APIChatRead: CommandArguments {
        public var chatRef = ChatRef.direct(contactId: 0)
        public init() {}
        static let syntax: Syntax<Self> = ["/_read chat ", .param(\.chatRef)]
    }

    /// `/_read chat items <chatRef> <ids>` (§4.3).
    public struct APIChatItemsRead: CommandArguments {
        public var chatRef = ChatRef.direct(contactId: 0)
        public var chatItemIds: [Int64] = []
        public init() {}
        static let syntax: Syntax<Self> = ["/_read chat items ", .param(\.chatRef), .space, .param(\.chatItemIds, .ids)]
    }

    /// `/_unread chat <chatRef> on|off` (§4.3).
    public struct APIChatUnread: CommandArguments {
        public var chatRef = ChatRef.direct(contactId: 0)
        public var unreadChat = false
        public init() {}
        static let syntax: Syntax<Self> = ["/_unread chat ", .param(\.chatRef), .space, .param(\.unreadChat)]
    }
}
