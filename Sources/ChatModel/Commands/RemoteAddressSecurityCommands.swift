// Commands of chat-api.md §4.14 (remote desktop, mobile side), §4.15 (diagnostics), §4.16 (address
// management), §4.17 (connection security) and §4.18 (service requests).

extension ChatCommand {
    /// `/set device name <name>` (§4.14).
    public struct SetLocalDeviceName: CommandArguments {
        public var displayName = ""
        public init() {}
        static let syntax: Syntax<Self> = ["/set device name ", .param(\.displayName, .text)]
    }

    /// `/connect remote ctrl <xrcpURI>` (§4.14), alias `/crc`.
    public struct ConnectRemoteCtrl: CommandArguments {
        /// The signed `xrcp:/…` invitation from the desktop's QR code.
        public var xrcpInvitation = ""
        public init() {}
        static let syntax: Syntax<Self> = [
            .literal("/connect remote ctrl ", aliases: ["/crc "]),
            .param(
                \.xrcpInvitation,
                .token(
                    "an xrcp:/ invitation", sample: "xrcp:/a2V5@127.0.0.1:8000#/?v=1&ca=Y2E&app=%7B%7D&ts=1&skey=c2s&idkey=aWQ")),
        ]
    }

    /// `/confirm remote ctrl <remoteCtrlId>` (§4.14).
    public struct ConfirmRemoteCtrl: CommandArguments {
        public var remoteCtrlId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/confirm remote ctrl ", .param(\.remoteCtrlId)]
    }

    /// `/verify remote ctrl <sessionCode>` (§4.14).
    public struct VerifyRemoteCtrlSession: CommandArguments {
        public var sessionCode = ""
        public init() {}
        static let syntax: Syntax<Self> = ["/verify remote ctrl ", .param(\.sessionCode, .text)]
    }

    /// `/delete remote ctrl <remoteCtrlId>` (§4.14).
    public struct DeleteRemoteCtrl: CommandArguments {
        public var remoteCtrlId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/delete remote ctrl ", .param(\.remoteCtrlId)]
    }

    /// `/get subs total <userId>` (§4.15).
    public struct GetAgentSubsTotal: CommandArguments {
        public var userId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/get subs total ", .param(\.userId)]
    }

    /// `/get servers summary <userId>` (§4.15).
    public struct GetAgentServersSummary: CommandArguments {
        public var userId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/get servers summary ", .param(\.userId)]
    }

    /// `/_address <userId>[ <smpServer>]` (§4.16).
    public struct APICreateMyAddress: CommandArguments {
        public var userId: Int64 = 0
        public var smpServer: String?
        public init() {}
        static let syntax: Syntax<Self> = ["/_address ", .param(\.userId), .optional(.space, \.smpServer, .uri)]
    }

    /// `/_delete_address <userId>` (§4.16).
    public struct APIDeleteMyAddress: CommandArguments {
        public var userId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_delete_address ", .param(\.userId)]
    }

    /// `/_show_address <userId>` (§4.16).
    public struct APIShowMyAddress: CommandArguments {
        public var userId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_show_address ", .param(\.userId)]
    }

    /// `/_short_link_address <userId>` (§4.16).
    public struct APIAddMyAddressShortLink: CommandArguments {
        public var userId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_short_link_address ", .param(\.userId)]
    }

    /// `/_profile_address <userId> on|off` (§4.16).
    public struct APISetProfileAddress: CommandArguments {
        public var userId: Int64 = 0
        public var enable = false
        public init() {}
        static let syntax: Syntax<Self> = ["/_profile_address ", .param(\.userId), .space, .param(\.enable)]
    }

    /// `/_address_settings <userId> <json(AddressSettings)>` (§4.16).
    public struct APISetAddressSettings: CommandArguments {
        public var userId: Int64 = 0
        public var settings = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/_address_settings ", .param(\.userId), .space, .param(\.settings, .json(.object))]
    }

    /// `/_get code @<contactId>` (§4.17).
    public struct APIGetContactCode: CommandArguments {
        public var contactId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_get code @", .param(\.contactId)]
    }

    /// `/_get code #<groupId> <groupMemberId>` (§4.17).
    public struct APIGetGroupMemberCode: CommandArguments {
        public var groupId: Int64 = 0
        public var groupMemberId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_get code #", .param(\.groupId), .space, .param(\.groupMemberId)]
    }

    /// `/_verify code @<contactId>[ <code>]` (§4.17); no code clears the verification.
    public struct APIVerifyContact: CommandArguments {
        public var contactId: Int64 = 0
        public var connectionCode: String?
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_verify code @", .param(\.contactId), .optional(.space, \.connectionCode, .verifyCode),
        ]
    }

    /// `/_verify code #<groupId> <groupMemberId>[ <code>]` (§4.17).
    public struct APIVerifyGroupMember: CommandArguments {
        public var groupId: Int64 = 0
        public var groupMemberId: Int64 = 0
        public var connectionCode: String?
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_verify code #", .param(\.groupId), .space, .param(\.groupMemberId),
            .optional(.space, \.connectionCode, .verifyCode),
        ]
    }

    /// `/_switch @<contactId>` (§4.17).
    public struct APISwitchContact: CommandArguments {
        public var contactId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_switch @", .param(\.contactId)]
    }

    /// `/_switch #<groupId> <groupMemberId>` (§4.17).
    public struct APISwitchGroupMember: CommandArguments {
        public var groupId: Int64 = 0
        public var groupMemberId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_switch #", .param(\.groupId), .space, .param(\.groupMemberId)]
    }

    /// `/_abort switch @<contactId>` (§4.17).
    public struct APIAbortSwitchContact: CommandArguments {
        public var contactId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_abort switch @", .param(\.contactId)]
    }

    /// `/_abort switch #<groupId> <groupMemberId>` (§4.17).
    public struct APIAbortSwitchGroupMember: CommandArguments {
        public var groupId: Int64 = 0
        public var groupMemberId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_abort switch #", .param(\.groupId), .space, .param(\.groupMemberId)]
    }

    /// `/_sync @<contactId>[ force=on]` (§4.17); `force=off` is not accepted.
    public struct APISyncContactRatchet: CommandArguments {
        public var contactId: Int64 = 0
        public var force = false
        public init() {}
        static let syntax: Syntax<Self> = ["/_sync @", .param(\.contactId), .marker(" force=on", \.force)]
    }

    /// `/_sync #<groupId> <groupMemberId>[ force=on]` (§4.17).
    public struct APISyncGroupMemberRatchet: CommandArguments {
        public var groupId: Int64 = 0
        public var groupMemberId: Int64 = 0
        public var force = false
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_sync #", .param(\.groupId), .space, .param(\.groupMemberId), .marker(" force=on", \.force),
        ]
    }

    /// `/_service_request <userId> <target>[ timeout=<seconds>][ sign_key=<key>] <json(object)>` (§4.18).
    public struct APISendServiceRequest: CommandArguments {
        public var userId: Int64 = 0
        /// A contact address (full or short link) or a contact's SimpleX name.
        public var target = ""
        public var timeoutSeconds: Double?
        public var signKey: String?
        public var request = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_service_request ", .param(\.userId), .space, .param(\.target, .word),
            .optional(" timeout=", \.timeoutSeconds, .seconds), .optional(" sign_key=", \.signKey, .word), .space,
            .param(\.request, .json(.object)),
        ]
    }
}
