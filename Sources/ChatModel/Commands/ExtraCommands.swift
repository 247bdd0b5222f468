// Commands outside the seed: chat-api.md §4.19 (Python library / bot docs) and §4.20 (other iOS/core
// commands).

extension ChatCommand {
    /// `/_groups <userId>[ @<contactId>][ <search>]` (§4.19).
    public struct APIListGroups: CommandArguments {
        public var userId: Int64 = 0
        public var contactId: Int64?
        public var search: String?
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_groups ", .param(\.userId), .optional(" @", \.contactId), .optional(.space, \.search, .text),
        ]
    }

    /// `/connect[ incognito][ <linkOrName>]` (§4.19), alias `/c`, `incognito` also `i`: a new invitation
    /// without a link, else connect to the link (or SimpleX name) for the active user.
    public struct Connect: CommandArguments {
        public var incognito = false
        public var connectTarget: String?
        public init() {}
        static let syntax: Syntax<Self> = [
            .literal("/connect", aliases: ["/c"]), .marker([.space, .literal("incognito", aliases: ["i"])], \.incognito),
            .optional(.space, \.connectTarget, .word),
        ]
    }

    /// `/_set custom #<groupId>[ <json(object)>]` (§4.19); no JSON clears.
    public struct APISetGroupCustomData: CommandArguments {
        public var groupId: Int64 = 0
        public var customData: RawJSON?
        public init() {}
        static let syntax: Syntax<Self> = ["/_set custom #", .param(\.groupId), .optional(.space, \.customData, .json(.object))]
    }

    /// `/_set custom @<contactId>[ <json(object)>]` (§4.19).
    public struct APISetContactCustomData: CommandArguments {
        public var contactId: Int64 = 0
        public var customData: RawJSON?
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_set custom @", .param(\.contactId), .optional(.space, \.customData, .json(.object)),
        ]
    }

    /// `/_add relays #<groupId> <relayIds>` (§4.19).
    public struct APIAddGroupRelays: CommandArguments {
        public var groupId: Int64 = 0
        public var relayIds: [Int64] = []
        public init() {}
        static let syntax: Syntax<Self> = ["/_add relays #", .param(\.groupId), .space, .param(\.relayIds, .ids)]
    }

    /// `/_relay allow #<groupId>` (§4.19).
    public struct APIAllowRelayGroup: CommandArguments {
        public var groupId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_relay allow #", .param(\.groupId)]
    }

    /// `/_share chat content <chatRef> <sendRef>` (§4.19).
    public struct APIShareChatMsgContent: CommandArguments {
        public var chatRef = ChatRef.direct(contactId: 0)
        public var toSendRef = SendRef.direct(contactId: 0)
        public init() {}
        static let syntax: Syntax<Self> = ["/_share chat content ", .param(\.chatRef), .space, .param(\.toSendRef)]
    }

    /// `/_share address <sendRef>` (§4.19, DOCS newer).
    public struct APIShareMyAddress: CommandArguments {
        public var sendRef = SendRef.direct(contactId: 0)
        public init() {}
        static let syntax: Syntax<Self> = ["/_share address ", .param(\.sendRef)]
    }

    /// `/_verify domain #<groupId>` (§4.19, DOCS newer).
    public struct APIVerifyGroupDomain: CommandArguments {
        public var groupId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_verify domain #", .param(\.groupId)]
    }

    /// `/_set accept group invitations <userId> on|off` (§4.19, DOCS newer).
    public struct APISetUserAutoAcceptGroupInvitations: CommandArguments {
        public var userId: Int64 = 0
        public var enable = false
        public init() {}
        static let syntax: Syntax<Self> = ["/_set accept group invitations ", .param(\.userId), .space, .param(\.enable)]
    }

    /// `/_service_response <userId> <requestId> <json(object)>` (§4.19, DOCS newer).
    public struct APISendServiceResponse: CommandArguments {
        public var userId: Int64 = 0
        public var requestId: Int64 = 0
        public var response = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_service_response ", .param(\.userId), .space, .param(\.requestId), .space, .param(\.response, .json(.object)),
        ]
    }

    /// `/_archive reports #<groupId>` (§4.20).
    public struct APIArchiveReceivedReports: CommandArguments {
        public var groupId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_archive reports #", .param(\.groupId)]
    }

    /// `/_delete reports #<groupId> <ids> <CIDeleteMode>` (§4.20).
    public struct APIDeleteReceivedReports: CommandArguments {
        public var groupId: Int64 = 0
        public var chatItemIds: [Int64] = []
        public var deleteMode = CIDeleteMode.internal
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_delete reports #", .param(\.groupId), .space, .param(\.chatItemIds, .ids), .space, .param(\.deleteMode),
        ]
    }

    /// `/_conditions_notified <conditionsId>` (§4.20).
    public struct APISetConditionsNotified: CommandArguments {
        public var conditionsId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_conditions_notified ", .param(\.conditionsId)]
    }

    /// `/_queue info @<contactId>` (§4.20).
    public struct APIContactQueueInfo: CommandArguments {
        public var contactId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_queue info @", .param(\.contactId)]
    }

    /// `/_queue info #<groupId> <groupMemberId>` (§4.20).
    public struct APIGroupMemberQueueInfo: CommandArguments {
        public var groupId: Int64 = 0
        public var groupMemberId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_queue info #", .param(\.groupId), .space, .param(\.groupMemberId)]
    }

    /// `/_set conn user :<connId> <newUserId>` (§4.20).
    public struct APIChangeConnectionUser: CommandArguments {
        public var connId: Int64 = 0
        public var newUserId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_set conn user :", .param(\.connId), .space, .param(\.newUserId)]
    }

    /// `/_set contact user @<contactId> <newUserId>` (§4.20).
    public struct APIChangePreparedContactUser: CommandArguments {
        public var contactId: Int64 = 0
        public var newUserId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_set contact user @", .param(\.contactId), .space, .param(\.newUserId)]
    }

    /// `/_set group user #<groupId> <newUserId>` (§4.20).
    public struct APIChangePreparedGroupUser: CommandArguments {
        public var groupId: Int64 = 0
        public var newUserId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_set group user #", .param(\.groupId), .space, .param(\.newUserId)]
    }

    /// `/_accept member contact @<contactId>` (§4.20).
    public struct APIAcceptMemberContact: CommandArguments {
        public var contactId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_accept member contact @", .param(\.contactId)]
    }

    /// `/_info #<groupId>` (§4.20).
    public struct APIGroupInfo: CommandArguments {
        public var groupId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_info #", .param(\.groupId)]
    }

    /// `/_get group link data #<groupId>` (§4.20).
    public struct APIGetUpdatedGroupLinkData: CommandArguments {
        public var groupId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_get group link data #", .param(\.groupId)]
    }

    /// `/_enable @<contactId>` (§4.20).
    public struct APIEnableContact: CommandArguments {
        public var contactId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_enable @", .param(\.contactId)]
    }

    /// `/_enable #<groupId> <groupMemberId>` (§4.20).
    public struct APIEnableGroupMember: CommandArguments {
        public var groupId: Int64 = 0
        public var groupMemberId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_enable #", .param(\.groupId), .space, .param(\.groupMemberId)]
    }

    /// `/_read user <userId>` (§4.20).
    public struct APIUserRead: CommandArguments {
        public var userId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_read user ", .param(\.userId)]
    }

    /// `/_relay test <userId> <relayShortLink>` (§4.20).
    public struct APITestChatRelay: CommandArguments {
        public var userId: Int64 = 0
        public var relayShortLink = ""
        public init() {}
        static let syntax: Syntax<Self> = ["/_relay test ", .param(\.userId), .space, .param(\.relayShortLink, .uri)]
    }

    /// `/_get items <pagination>[ search=<text>]` (§4.20).
    public struct APIGetChatItems: CommandArguments {
        public var pagination = ChatPagination.last(count: 0)
        public var search: String?
        public init() {}
        static let syntax: Syntax<Self> = ["/_get items ", .param(\.pagination), .optional(" search=", \.search, .rest)]
    }

    /// `/_connections diff[ show_ids=on|off]` (§4.20).
    public struct ConnectionsDiff: CommandArguments {
        public var showIds = false
        public init() {}
        static let syntax: Syntax<Self> = ["/_connections diff", .flag(" show_ids=", \.showIds, default: false)]
    }
}
