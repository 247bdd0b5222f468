// Commands of chat-api.md §4.1 (user management) and §4.2 (chat lifecycle).

extension ChatCommand {
    /// `/_create user <json(NewUser)>` (§4.1); also read from `/create user`, `/create chat relay user` and `/create bot`.
    public struct CreateActiveUser: CommandArguments {
        /// NewUser: `{"profile"?:Profile,"pastTimestamp":bool,"userChatRelay"?:bool,"clientService"?:bool}`.
        public var newUser = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = [
            .oneOf([
                ["/_create user ", .param(\.newUser, .json(.object))],
                .parseOnly(["/create user ", .param(\.newUser, .newUserProfile)]),
                .parseOnly(["/create chat relay user ", .param(\.newUser, .newChatRelayUserProfile)]),
                .parseOnly(["/create bot ", .param(\.newUser, .newBotProfile)]),
            ])
        ]
    }

    /// `/_user <userId>[ <json(string)>]` (§4.1).
    public struct APISetActiveUser: CommandArguments {
        public var userId: Int64 = 0
        public var viewPwd: String?
        public init() {}
        static let syntax: Syntax<Self> = ["/_user ", .param(\.userId), .optional(.space, \.viewPwd, .jsonString)]
    }

    /// `/_hide user <userId> <json(string)>` (§4.1).
    public struct APIHideUser: CommandArguments {
        public var userId: Int64 = 0
        public var viewPwd = ""
        public init() {}
        static let syntax: Syntax<Self> = ["/_hide user ", .param(\.userId), .space, .param(\.viewPwd, .jsonString)]
    }

    /// `/_unhide user <userId> <json(string)>` (§4.1).
    public struct APIUnhideUser: CommandArguments {
        public var userId: Int64 = 0
        public var viewPwd = ""
        public init() {}
        static let syntax: Syntax<Self> = ["/_unhide user ", .param(\.userId), .space, .param(\.viewPwd, .jsonString)]
    }

    /// `/_mute user <userId>` (§4.1).
    public struct APIMuteUser: CommandArguments {
        public var userId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_mute user ", .param(\.userId)]
    }

    /// `/_unmute user <userId>` (§4.1).
    public struct APIUnmuteUser: CommandArguments {
        public var userId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_unmute user ", .param(\.userId)]
    }

    /// `/_delete user <userId> del_smp=on|off[ <json(string)>]` (§4.1).
    public struct APIDeleteUser: CommandArguments {
        public var userId: Int64 = 0
        public var delSMPQueues = false
        public var viewPwd: String?
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_delete user ", .param(\.userId), " del_smp=", .param(\.delSMPQueues), .optional(.space, \.viewPwd, .jsonString),
        ]
    }

    /// `/_profile <userId> <json(Profile)>` (§4.1).
    public struct APIUpdateProfile: CommandArguments {
        public var userId: Int64 = 0
        public var profile = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/_profile ", .param(\.userId), .space, .param(\.profile, .json(.object))]
    }

    /// `/set receipts all on|off` (§4.1).
    public struct SetAllContactReceipts: CommandArguments {
        public var enable = false
        public init() {}
        static let syntax: Syntax<Self> = ["/set receipts all ", .param(\.enable)]
    }

    /// `/_set receipts contacts <userId> on|off[ clear_overrides=on|off]` (§4.1).
    public struct APISetUserContactReceipts: CommandArguments {
        public var userId: Int64 = 0
        public var enable = false
        public var clearOverrides = false
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_set receipts contacts ", .param(\.userId), .space, .param(\.enable),
            .flag(" clear_overrides=", \.clearOverrides, default: false),
        ]
    }

    /// `/_set receipts groups <userId> on|off[ clear_overrides=on|off]` (§4.1).
    public struct APISetUserGroupReceipts: CommandArguments {
        public var userId: Int64 = 0
        public var enable = false
        public var clearOverrides = false
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_set receipts groups ", .param(\.userId), .space, .param(\.enable),
            .flag(" clear_overrides=", \.clearOverrides, default: false),
        ]
    }

    /// `/_set accept member contacts <userId> on|off` (§4.1).
    public struct APISetUserAutoAcceptMemberContacts: CommandArguments {
        public var userId: Int64 = 0
        public var enable = false
        public init() {}
        static let syntax: Syntax<Self> = ["/_set accept member contacts ", .param(\.userId), .space, .param(\.enable)]
    }

    /// `/_start main=on|off[ snd_files=on|off]` or bare `/_start` (§4.2); DOCS add `[ service_requests=on|off]`.
    public struct StartChat: CommandArguments {
        public var mainApp = true
        /// `nil`: the same as `mainApp` (the core's default).
        public var enableSndFiles: Bool?
        public var serviceRequests = false
        public init() {}
        static let syntax: Syntax<Self> = [
            .oneOf([
                [
                    "/_start main=", .param(\.mainApp), .optional(" snd_files=", \.enableSndFiles),
                    .flag(" service_requests=", \.serviceRequests, default: false),
                ],
                .parseOnly("/_start"),
            ])
        ]
    }

    /// `/_app activate[ restore=on|off]` (§4.2).
    public struct APIActivateChat: CommandArguments {
        public var restoreChat = true
        public init() {}
        static let syntax: Syntax<Self> = ["/_app activate", .flag(" restore=", \.restoreChat, default: true)]
    }

    /// `/_app suspend <n>` (§4.2).
    public struct APISuspendChat: CommandArguments {
        public var timeoutMicroseconds: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_app suspend ", .param(\.timeoutMicroseconds)]
    }

    /// `/set file paths <json(AppFilePathsConfig)>` (§4.2).
    public struct APISetAppFilePaths: CommandArguments {
        public var filePaths = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/set file paths ", .param(\.filePaths, .json(.object))]
    }

    /// `/_files_encrypt on|off` (§4.2).
    public struct APISetEncryptLocalFiles: CommandArguments {
        public var enable = false
        public init() {}
        static let syntax: Syntax<Self> = ["/_files_encrypt ", .param(\.enable)]
    }
}
