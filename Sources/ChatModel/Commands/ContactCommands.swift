// Commands of chat-api.md §4.4 (contacts and connections).

extension ChatCommand {
    /// `/_connect <userId>[ incognito=on|off]` (§4.4): a new one-time invitation.
    public struct APIAddContact: CommandArguments {
        public var userId: Int64 = 0
        public var incognito = false
        public init() {}
        static let syntax: Syntax<Self> = ["/_connect ", .param(\.userId), .incognito(\.incognito)]
    }

    /// `/_connect <userId>[ incognito=on|off] <fullLink>[ <shortLink>]` (§4.4).
    public struct APIConnect: CommandArguments {
        public var userId: Int64 = 0
        public var incognito = false
        public var connLink = CreatedConnLink(fullLink: "")
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_connect ", .param(\.userId), .incognito(\.incognito), .space, .param(\.connLink),
        ]
    }

    /// `/_connect plan <userId> <linkOrName>[ resolve=on|off][ sig=<json(LinkOwnerSig)>]` (§4.4).
    public struct APIConnectPlan: CommandArguments {
        public var userId: Int64 = 0
        /// A link (full or short) or a SimpleX name.
        public var connectTarget = ""
        public var resolve: Bool?
        public var linkOwnerSig: RawJSON?
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_connect plan ", .param(\.userId), .space, .param(\.connectTarget, .word), .optional(" resolve=", \.resolve),
            .optional(" sig=", \.linkOwnerSig, .json(.object)),
        ]
    }

    /// `/_prepare contact <userId> <fullLink>[ <shortLink>] <json(ContactShortLinkData)>` (§4.4).
    public struct APIPrepareContact: CommandArguments {
        public var userId: Int64 = 0
        public var connLink = CreatedConnLink(fullLink: "")
        public var contactShortLinkData = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_prepare contact ", .param(\.userId), .space, .param(\.connLink), .space,
            .param(\.contactShortLinkData, .json(.object)),
        ]
    }

    /// `/_prepare group <userId> <fullLink>[ <shortLink>][ direct=on|off] <json(GroupShortLinkData)>` (§4.4).
    public struct APIPrepareGroup: CommandArguments {
        public var userId: Int64 = 0
        public var connLink = CreatedConnLink(fullLink: "")
        /// `false` (`direct=off`): a channel served by chat relays.
        public var directLink = true
        public var groupShortLinkData = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_prepare group ", .param(\.userId), .space, .param(\.connLink), .flag(" direct=", \.directLink, default: true),
            .space, .param(\.groupShortLinkData, .json(.object)),
        ]
    }

    /// `/_connect contact @<contactId>[ incognito=on|off][ text <text>|json <json(MsgContent)>]` (§4.4).
    public struct APIConnectPreparedContact: CommandArguments {
        public var contactId: Int64 = 0
        public var incognito = false
        public var message: TextOrJSON?
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_connect contact @", .param(\.contactId), .incognito(\.incognito),
            .optional(.space, \.message, .msgContent(.object)),
        ]
    }

    /// `/_connect group #<groupId>[ incognito=on|off][ contact=<contactId> owner=<memberId>][ text <text>|json
    /// <json(MsgContent)>]` (§4.4).
    public struct APIConnectPreparedGroup: CommandArguments {
        public var groupId: Int64 = 0
        public var incognito = false
        public var linkOwner: LinkOwner?
        public var message: TextOrJSON?
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_connect group #", .param(\.groupId), .incognito(\.incognito),
            .optional(" contact=", \.linkOwner, LinkOwner.lexeme), .optional(.space, \.message, .msgContent(.object)),
        ]
    }

    /// `/_connect contact <userId>[ incognito=on|off] <contactId>` (§4.4).
    public struct APIConnectContactViaAddress: CommandArguments {
        public var userId: Int64 = 0
        public var incognito = false
        public var contactId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_connect contact ", .param(\.userId), .incognito(\.incognito), .space, .param(\.contactId),
        ]
    }

    /// `/_accept[ incognito=on|off] <contactReqId>` (§4.4).
    public struct APIAcceptContact: CommandArguments {
        public var incognito = false
        public var contactReqId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_accept", .incognito(\.incognito), .space, .param(\.contactReqId)]
    }

    /// `/_reject <contactReqId>` (§4.4).
    public struct APIRejectContact: CommandArguments {
        public var contactReqId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_reject ", .param(\.contactReqId)]
    }

    /// `/_delete <chatRef>[ full[ notify=on|off]| entity[ notify=on|off]| messages| notify=on|off]` (§4.4).
    public struct APIDeleteChat: CommandArguments {
        public var chatRef = ChatRef.direct(contactId: 0)
        public var chatDeleteMode = ChatDeleteMode.default
        public init() {}
        static let syntax: Syntax<Self> = ["/_delete ", .param(\.chatRef), .param(\.chatDeleteMode)]
    }

    /// `/_clear chat <chatRef>` (§4.4).
    public struct APIClearChat: CommandArguments {
        public var chatRef = ChatRef.direct(contactId: 0)
        public init() {}
        static let syntax: Syntax<Self> = ["/_clear chat ", .param(\.chatRef)]
    }

    /// `/_contacts <userId>` (§4.4).
    public struct APIListContacts: CommandArguments {
        public var userId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_contacts ", .param(\.userId)]
    }

    /// `/_set prefs @<contactId> <json(Preferences)>` (§4.4).
    public struct APISetContactPrefs: CommandArguments {
        public var contactId: Int64 = 0
        public var preferences = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/_set prefs @", .param(\.contactId), .space, .param(\.preferences, .json(.object))]
    }

    /// `/_set alias @<contactId>[ <alias>]` (§4.4); an empty alias clears it.
    public struct APISetContactAlias: CommandArguments {
        public var contactId: Int64 = 0
        public var localAlias = ""
        public init() {}
        static let syntax: Syntax<Self> = ["/_set alias @", .param(\.contactId), .flag(.space, \.localAlias, .rest, default: "")]
    }

    /// `/_set alias :<connId>[ <alias>]` (§4.4).
    public struct APISetConnectionAlias: CommandArguments {
        public var connId: Int64 = 0
        public var localAlias = ""
        public init() {}
        static let syntax: Syntax<Self> = ["/_set alias :", .param(\.connId), .flag(.space, \.localAlias, .rest, default: "")]
    }

    /// `/_info @<contactId>` (§4.4).
    public struct APIContactInfo: CommandArguments {
        public var contactId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_info @", .param(\.contactId)]
    }

    /// `/_set incognito :<connId> on|off` (§4.4).
    public struct APISetConnectionIncognito: CommandArguments {
        public var connId: Int64 = 0
        public var incognito = false
        public init() {}
        static let syntax: Syntax<Self> = ["/_set incognito :", .param(\.connId), .space, .param(\.incognito)]
    }
}
