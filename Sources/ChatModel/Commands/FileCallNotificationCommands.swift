// Commands of chat-api.md §4.7 (files), §4.8 (WebRTC calls) and §4.9 (push notifications).

extension ChatCommand {
    /// `/freceive <fileId>[ approved_relays=on|off][ encrypt=on|off][ inline=on|off][ <filePath>]` (§4.7),
    /// alias `/fr`.
    public struct ReceiveFile: CommandArguments {
        public var fileId: Int64 = 0
        public var userApprovedRelays = false
        /// `nil`: the local-file-encryption default.
        public var storeEncrypted: Bool?
        public var fileInline: Bool?
        public var filePath: String?
        public init() {}
        static let syntax: Syntax<Self> = [
            .literal("/freceive ", aliases: ["/fr "]), .param(\.fileId),
            .flag(" approved_relays=", \.userApprovedRelays, default: false), .optional(" encrypt=", \.storeEncrypted),
            .optional(" inline=", \.fileInline), .optional(.space, \.filePath, .text),
        ]
    }

    /// `/_set_file_to_receive <fileId>[ approved_relays=on|off][ encrypt=on|off]` (§4.7).
    public struct SetFileToReceive: CommandArguments {
        public var fileId: Int64 = 0
        public var userApprovedRelays = false
        public var storeEncrypted: Bool?
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_set_file_to_receive ", .param(\.fileId), .flag(" approved_relays=", \.userApprovedRelays, default: false),
            .optional(" encrypt=", \.storeEncrypted),
        ]
    }

    /// `/fcancel <fileId>` (§4.7), alias `/fc`.
    public struct CancelFile: CommandArguments {
        public var fileId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = [.literal("/fcancel ", aliases: ["/fc "]), .param(\.fileId)]
    }

    /// `/_upload <userId> <CryptoFile>` (§4.7).
    public struct APIUploadStandaloneFile: CommandArguments {
        public var userId: Int64 = 0
        public var file = CryptoFile(filePath: "")
        public init() {}
        static let syntax: Syntax<Self> = ["/_upload ", .param(\.userId), .space, .param(\.file)]
    }

    /// `/_download <userId> <fileDescriptionURI> <CryptoFile>` (§4.7).
    public struct APIDownloadStandaloneFile: CommandArguments {
        public var userId: Int64 = 0
        public var url = ""
        public var file = CryptoFile(filePath: "")
        public init() {}
        static let syntax: Syntax<Self> = ["/_download ", .param(\.userId), .space, .param(\.url, .uri), .space, .param(\.file)]
    }

    /// `/_download info <fileDescriptionURI>` (§4.7).
    public struct APIStandaloneFileInfo: CommandArguments {
        public var url = ""
        public init() {}
        static let syntax: Syntax<Self> = ["/_download info ", .param(\.url, .uri)]
    }

    /// `/_call invite @<contactId> <json(CallType)>` (§4.8).
    public struct APISendCallInvitation: CommandArguments {
        public var contactId: Int64 = 0
        public var callType = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/_call invite @", .param(\.contactId), .space, .param(\.callType, .json(.object))]
    }

    /// `/_call reject @<contactId>` (§4.8).
    public struct APIRejectCall: CommandArguments {
        public var contactId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_call reject @", .param(\.contactId)]
    }

    /// `/_call offer @<contactId> <json(WebRTCCallOffer)>` (§4.8).
    public struct APISendCallOffer: CommandArguments {
        public var contactId: Int64 = 0
        public var callOffer = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/_call offer @", .param(\.contactId), .space, .param(\.callOffer, .json(.object))]
    }

    /// `/_call answer @<contactId> <json(WebRTCSession)>` (§4.8).
    public struct APISendCallAnswer: CommandArguments {
        public var contactId: Int64 = 0
        public var answer = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/_call answer @", .param(\.contactId), .space, .param(\.answer, .json(.object))]
    }

    /// `/_call extra @<contactId> <json(WebRTCExtraInfo)>` (§4.8).
    public struct APISendCallExtraInfo: CommandArguments {
        public var contactId: Int64 = 0
        public var extraInfo = RawJSON.emptyObject
        public init() {}
        static let syntax: Syntax<Self> = ["/_call extra @", .param(\.contactId), .space, .param(\.extraInfo, .json(.object))]
    }

    /// `/_call end @<contactId>` (§4.8).
    public struct APIEndCall: CommandArguments {
        public var contactId: Int64 = 0
        public init() {}
        static let syntax: Syntax<Self> = ["/_call end @", .param(\.contactId)]
    }

    /// `/_call status @<contactId> connecting|connected|disconnected|failed` (§4.8).
    public struct APICallStatus: CommandArguments {
        public var contactId: Int64 = 0
        public var callStatus = WebRTCCallStatus.connecting
        public init() {}
        static let syntax: Syntax<Self> = ["/_call status @", .param(\.contactId), .space, .param(\.callStatus)]
    }

    /// `/_ntf register <pushProvider> <hexToken> <mode>` (§4.9).
    public struct APIRegisterToken: CommandArguments {
        public var token = DeviceToken(provider: .apnsNull, token: "")
        public var notificationMode = NotificationsMode.off
        public init() {}
        static let syntax: Syntax<Self> = ["/_ntf register ", .param(\.token), .space, .param(\.notificationMode)]
    }

    /// `/_ntf verify <pushProvider> <hexToken> <nonce> <code>` (§4.9).
    public struct APIVerifyToken: CommandArguments {
        public var token = DeviceToken(provider: .apnsNull, token: "")
        public var nonce = ""
        public var code = ""
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_ntf verify ", .param(\.token), .space, .param(\.nonce, .token("a nonce", sample: "bm9uY2U")), .space,
            .param(\.code, .token("a code", sample: "Y29kZQ")),
        ]
    }

    /// `/_ntf check <pushProvider> <hexToken>` (§4.9).
    public struct APICheckToken: CommandArguments {
        public var token = DeviceToken(provider: .apnsNull, token: "")
        public init() {}
        static let syntax: Syntax<Self> = ["/_ntf check ", .param(\.token)]
    }

    /// `/_ntf delete <pushProvider> <hexToken>` (§4.9).
    public struct APIDeleteToken: CommandArguments {
        public var token = DeviceToken(provider: .apnsNull, token: "")
        public init() {}
        static let syntax: Syntax<Self> = ["/_ntf delete ", .param(\.token)]
    }

    /// `/_ntf conns <nonce> <encNtfInfo>` (§4.9).
    public struct APIGetNtfConns: CommandArguments {
        public var nonce = ""
        public var encNtfInfo = ""
        public init() {}
        static let syntax: Syntax<Self> = [
            "/_ntf conns ", .param(\.nonce, .token("a nonce", sample: "bm9uY2U")), .space,
            .param(\.encNtfInfo, .token("encrypted notification data", sample: "ZW5jcnlwdGVk")),
        ]
    }

    /// `/_ntf conn messages <agentConnId>:<dbQueueId>:<msgTs>[,…]` (§4.9).
    public struct APIGetConnNtfMessages: CommandArguments {
        public var connMsgReqs: [ConnMsgReq] = []
        public init() {}
        static let syntax: Syntax<Self> = ["/_ntf conn messages ", .param(\.connMsgReqs, ConnMsgReq.listLexeme)]
    }
}
