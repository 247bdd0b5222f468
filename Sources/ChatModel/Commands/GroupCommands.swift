// Commands of chat-api.md §4.5 (groups and channels) and §4.6 (chat tags).

extension ChatCommand {
    /// `/_group <userId>[ incognito=on|off] <json(GroupProfile)>` (§4.5).
    public struct APINewGroup: CommandArguments {
        public var userId: Int64 = 0
        public var incognito = false
        public var groupProfile = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_group ", .param(\.userId), .incognito(\.incognito), .space,
            .param(\.groupProfile, .json(.object)),
        ]
    }

    /// `/_public group <userId>[ incognito=on|off] <relayIds> <json(GroupProfile)>` (§4.5).
    public struct APINewPublicGroup: CommandArguments {
        public var userId: Int64 = 0
        public var incognito = false
        public var relayIds: [Int64] = []
        public var groupProfile = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_public group ", .param(\.userId), .incognito(\.incognito), .space,
            .param(\.relayIds, .ids), .space, .param(\.groupProfile, .json(.object)),
        ]
    }

    /// `/_get relays #<groupId>` (§4.5).
    public struct APIGetGroupRelays: CommandArguments {
        public var groupId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_get relays #", .param(\.groupId)]
    }

    /// `/_add #<groupId> <contactId> <role>` (§4.5).
    public struct APIAddMember: CommandArguments {
        public var groupId: Int64 = 0
        public var contactId: Int64 = 0
        public var memberRole = GroupMemberRole.member
        public init() {}
        static let syntax: Syntax<Self> = ["/_add #", .param(\.groupId), .space, .param(\.contactId), " ", .param(\.memberRole)]
    }

    /// `/_join #<groupId>` (§4.5).
    public struct APIJoinGroup: CommandArguments {
        public var groupId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_join #", .param(\.groupId)]
    }

    /// `/_accept member #<groupId> <groupMemberId> <role>` (§4.5).
    public struct APIAcceptMember: CommandArguments {
        public var groupId: Int64 = 0
        public var groupMemberId: Int64 = 0
        public var memberRole = GroupMemberRole.member
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_accept member #", .param(\.groupId), .space, .param(\.groupMemberId), " ", .param(\.memberRole),
        ]
    }

    /// `/_remove #<groupId> <ids>[ messages=on|off]` (§4.5).
    public struct APIRemoveMembers: CommandArguments {
        public var groupId: Int64 = 0
        public var memberIds: [Int64] = []
        public var withMessages = false
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_remove #", .param(\.groupId), .space, .param(\.memberIds, .ids),
            .flag(" messages=", \.withMessages, default: false),
        ]
    }

    /// `/_leave #<groupId>` (§4.5).
    public struct APILeaveGroup: CommandArguments {
        public var groupId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_leave #", .param(\.groupId)]
    }

    /// `/_members #<groupId>` (§4.5).
    public struct APIListMembers: CommandArguments {
        public var groupId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_members #", .param(\.groupId)]
    }

    /// `/_group_profile #<groupId> <json(GroupProfile)>` (§4.5).
    public struct APIUpdateGroupProfile: CommandArguments {
        public var groupId: Int64 = 0
        public var groupProfile = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_group_profile #", .param(\.groupId), .space, .param(\.groupProfile, .json(.object)),
        ]
    }

    /// `/_member role #<groupId> <ids> <role>` (§4.5).
    public struct APIMembersRole: CommandArguments {
        public var groupId: Int64 = 0
        public var memberIds: [Int64] = []
        public var memberRole = GroupMemberRole.member
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_member role #", .param(\.groupId), .space, .param(\.memberIds, .ids), " ", .param(\.memberRole),
        ]
    }

    /// `/_block #<groupId> <ids> blocked=on|off` (§4.5).
    public struct APIBlockMembersForAll: CommandArguments {
        public var groupId: Int64 = 0
        public var memberIds: [Int64] = []
        public var blocked = false
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_block #", .param(\.groupId), .space, .param(\.memberIds, .ids), " blocked=", .param(\.blocked),
        ]
    }

    /// `/_create link #<groupId>[ <role>]` (§4.5); the role defaults to `member`.
    public struct APICreateGroupLink: CommandArguments {
        public var groupId: Int64 = 0
        public var memberRole = GroupMemberRole.member
        public init() {}
        static let syntax: Syntax<Self> = ["/_create link #", .param(\.groupId), .flag(" ", \.memberRole, default: .member)]
    }

    /// `/_set link role #<groupId> <role>` (§4.5).
    public struct APIGroupLinkMemberRole: CommandArguments {
        public var groupId: Int64 = 0
        public var memberRole = GroupMemberRole.member
        public init() {}
        static let syntax: Syntax<Self> = ["/_set link role #", .param(\.groupId), " ", .param(\.memberRole)]
    }

    /// `/_delete link #<groupId>` (§4.5).
    public struct APIDeleteGroupLink: CommandArguments {
        public var groupId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_delete link #", .param(\.groupId)]
    }

    /// `/_get link #<groupId>` (§4.5).
    public struct APIGetGroupLink: CommandArguments {
        public var groupId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_get link #", .param(\.groupId)]
    }

    /// `/_short link #<groupId>` (§4.5).
    public struct APIAddGroupShortLink: CommandArguments {
        public var groupId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_short link #", .param(\.groupId)]
    }

    /// `/_create member contact #<groupId> <groupMemberId>` (§4.5).
    public struct APICreateMemberContact: CommandArguments {
        public var groupId: Int64 = 0
        public var groupMemberId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_create member contact #", .param(\.groupId), .space, .param(\.groupMemberId)]
    }

    /// `/_invite member contact @<contactId>[ text <text>|json <json(MsgContent)>]` (§4.5).
    public struct APISendMemberContactInvitation: CommandArguments {
        public var contactId: Int64 = 0
        public var message: TextOrJSON?
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_invite member contact @", .param(\.contactId), .optional(.space, \.message, .msgContent(.object)),
        ]
    }

    /// `/_info #<groupId> <groupMemberId>` (§4.5).
    public struct APIGroupMemberInfo: CommandArguments {
        public var groupId: Int64 = 0
        public var groupMemberId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_info #", .param(\.groupId), .space, .param(\.groupMemberId)]
    }

    /// `/_delete member chat #<groupId> <groupMemberId>` (§4.5).
    public struct APIDeleteMemberSupportChat: CommandArguments {
        public var groupId: Int64 = 0
        public var groupMemberId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_delete member chat #", .param(\.groupId), .space, .param(\.groupMemberId)]
    }

    /// `/_member settings #<groupId> <groupMemberId> <json(GroupMemberSettings)>` (§4.5).
    public struct APISetMemberSettings: CommandArguments {
        public var groupId: Int64 = 0
        public var groupMemberId: Int64 = 0
        public var memberSettings = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_member settings #", .param(\.groupId), .space, .param(\.groupMemberId), .space,
            .param(\.memberSettings, .json(.object)),
        ]
    }

    /// `/_set alias #<groupId>[ <alias>]` (§4.5).
    public struct APISetGroupAlias: CommandArguments {
        public var groupId: Int64 = 0
        public var localAlias = ""
        public init() {}
        static let syntax: Syntax<Self> = ["/_set alias #", .param(\.groupId), .flag(.space, \.localAlias, .rest, default: "")]
    }

    /// `/_get tags <userId>` (§4.6).
    public struct APIGetChatTags: CommandArguments {
        public var userId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_get tags ", .param(\.userId)]
    }

    /// `/_create tag <json(ChatTagData)>` (§4.6).
    public struct APICreateChatTag: CommandArguments {
        public var tagData = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/_create tag ", .param(\.tagData, .json(.object))]
    }

    /// `/_tags <chatRef>[ <tagIds>]` (§4.6); no ids removes all tags.
    public struct APISetChatTags: CommandArguments {
        public var chatRef = ChatRef.direct(contactId: 0)
        public var tagIds: [Int64]?
        public init() {}
        static let syntax: Syntax<Self> = ["/_tags ", .param(\.chatRef), .optional(.space, \.tagIds, .ids)]
    }

    /// `/_delete tag <tagId>` (§4.6).
    public struct APIDeleteChatTag: CommandArguments {
        public var tagId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_delete tag ", .param(\.tagId)]
    }

    /// `/_update tag <tagId> <json(ChatTagData)>` (§4.6).
    public struct APIUpdateChatTag: CommandArguments {
        public var tagId: Int64 = 0
        public var tagData = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/_update tag ", .param(\.tagId), .space, .param(\.tagData, .json(.object))]
    }

    /// `/_reorder tags <tagIds>` (§4.6).
    public struct APIReorderChatTags: CommandArguments {
        public var tagIds: [Int64] = []
        public init() {}
        static let syntax: Syntax<Self> = ["/_reorder tags ", .param(\.tagIds, .ids)]
    }
}
