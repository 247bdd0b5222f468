// Commands of chat-api.md §4.10 (settings), §4.11 (database), §4.12 (servers and operators) and §4.13
// (theme and UI).

extension ChatCommand {
    /// `/_save app settings <json(AppSettings)>` (§4.10); the core reads JSON right after the words.
    public struct APISaveSettings: CommandArguments {
        public var settings = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/_save app settings", .blank, .param(\.settings, .json(.object))]
    }

    /// `/_get app settings[ <json(AppSettings)>]` (§4.10).
    public struct APIGetSettings: CommandArguments {
        public var settings: RawJSON?
        public init() {}
        static let syntax: Syntax<Self> = ["/_get app settings", .optional(.space, \.settings, .json(.object))]
    }

    /// `/_settings <chatRef> <json(ChatSettings)>` (§4.10).
    public struct APISetChatSettings: CommandArguments {
        public var chatRef = ChatRef.direct(contactId: 0)
        public var chatSettings = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/_settings ", .param(\.chatRef), .space, .param(\.chatSettings, .json(.object))]
    }

    /// `/_ttl <userId> <seconds>` (§4.10); 0 = never delete.
    public struct APISetChatItemTTL: CommandArguments {
        public var userId: Int64 = 0
        public var seconds: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_ttl ", .param(\.userId), .space, .param(\.seconds)]
    }

    /// `/_ttl <userId>` (§4.10).
    public struct APIGetChatItemTTL: CommandArguments {
        public var userId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_ttl ", .param(\.userId)]
    }

    /// `/_ttl <userId> <chatRef> <seconds>|default` (§4.10); `nil` (`default`) clears the chat's override.
    public struct APISetChatTTL: CommandArguments {
        public var userId: Int64 = 0
        public var chatRef = ChatRef.direct(contactId: 0)
        public var seconds: Int64?
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_ttl ", .param(\.userId), .space, .param(\.chatRef), .space, .param(\.seconds, .secondsOrDefault),
        ]
    }

    /// `/_network <json(NetworkConfig)>` (§4.10).
    public struct APISetNetworkConfig: CommandArguments {
        public var networkConfig = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/_network ", .param(\.networkConfig, .json(.object))]
    }

    /// `/_network info <json(UserNetworkInfo)>` (§4.10).
    public struct APISetNetworkInfo: CommandArguments {
        public var networkInfo = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/_network info ", .param(\.networkInfo, .json(.object))]
    }

    /// `/reconnect <userId> <smpServer>` (§4.10).
    public struct ReconnectServer: CommandArguments {
        public var userId: Int64 = 0
        public var smpServer = ""
        public init() {}
        static let syntax: Syntax<Self> = ["/reconnect ", .param(\.userId), .space, .param(\.smpServer, .uri)]
    }

    /// `/_db encryption <json(DBEncryptionConfig)>` (§4.11); also read from `/db encrypt <key>`, `/db key <current> <new>`
    /// and `/db decrypt <current>`.
    public struct APIStorageEncryption: CommandArguments {
        public var config = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = [
            .oneOf([
                ["/_db encryption ", .param(\.config, .json(.object))],
                .parseOnly(["/db encrypt ", .param(\.config, .dbEncryption(current: false, new: true))]),
                .parseOnly(["/db key ", .param(\.config, .dbEncryption(current: true, new: true))]),
                .parseOnly(["/db decrypt ", .param(\.config, .dbEncryption(current: true, new: false))]),
            ])
        ]
    }

    /// `/db test key <key>` (§4.11).
    public struct TestStorageEncryption: CommandArguments {
        public var key = ""
        public init() {}
        static let syntax: Syntax<Self> = ["/db test key ", .param(\.key, .dbKey)]
    }

    /// `/_db export <json(ArchiveConfig)>` (§4.11).
    public struct APIExportArchive: CommandArguments {
        public var config = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/_db export ", .param(\.config, .json(.object))]
    }

    /// `/_db import <json(ArchiveConfig)>` (§4.11).
    public struct APIImportArchive: CommandArguments {
        public var config = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/_db import ", .param(\.config, .json(.object))]
    }

    /// `/_operators <json([ServerOperator])>` (§4.12).
    public struct APISetServerOperators: CommandArguments {
        public var operators = RawJSON.emptyArray
        public init() {}
        static let syntax: Syntax<Self> = ["/_operators ", .param(\.operators, .json(.array))]
    }

    /// `/_servers <userId>` (§4.12).
    public struct APIGetUserServers: CommandArguments {
        public var userId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_servers ", .param(\.userId)]
    }

    /// `/_servers <userId> <json([UserOperatorServers])>` (§4.12).
    public struct APISetUserServers: CommandArguments {
        public var userId: Int64 = 0
        public var userServers = RawJSON.emptyArray
        public init() {}
        static let syntax: Syntax<Self> = ["/_servers ", .param(\.userId), .space, .param(\.userServers, .json(.array))]
    }

    /// `/_validate_servers <userId> <json([UserOperatorServers])>` (§4.12).
    public struct APIValidateServers: CommandArguments {
        public var userId: Int64 = 0
        public var userServers = RawJSON.emptyArray
        public init() {}
        static let syntax: Syntax<Self> = ["/_validate_servers ", .param(\.userId), .space, .param(\.userServers, .json(.array))]
    }

    /// `/_accept_conditions <conditionsId> <operatorIds>` (§4.12).
    public struct APIAcceptConditions: CommandArguments {
        public var conditionsId: Int64 = 0
        public var operatorIds: [Int64] = []
        public init() {}
        static let syntax: Syntax<Self> = ["/_accept_conditions ", .param(\.conditionsId), .space, .param(\.operatorIds, .ids)]
    }

    /// `/_server test <userId> <server>` (§4.12).
    public struct APITestProtoServer: CommandArguments {
        public var userId: Int64 = 0
        public var server = ""
        public init() {}
        static let syntax: Syntax<Self> = ["/_server test ", .param(\.userId), .space, .param(\.server, .uri)]
    }

    /// `/_set theme user <userId>[ <json(UIThemeEntityOverrides)>]` (§4.13); no JSON clears.
    public struct APISetUserUIThemes: CommandArguments {
        public var userId: Int64 = 0
        public var themes: RawJSON?
        public init() {}
        static let syntax: Syntax<Self> = ["/_set theme user ", .param(\.userId), .optional(.space, \.themes, .json(.object))]
    }

    /// `/_set theme <chatRef>[ <json(UIThemeEntityOverrides)>]` (§4.13).
    public struct APISetChatUIThemes: CommandArguments {
        public var chatRef = ChatRef.direct(contactId: 0)
        public var themes: RawJSON?
        public init() {}
        static let syntax: Syntax<Self> = ["/_set theme ", .param(\.chatRef), .optional(.space, \.themes, .json(.object))]
    }
}
