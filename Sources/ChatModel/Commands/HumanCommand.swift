/// A human (CLI) command that names users, contacts, groups or members by display name, or acts for the active user
/// (chat-api.md §3: "Human/CLI forms … are also accepted by the same parser"). Until the core resolves its names
/// against the store it has no id-based form, so it is read and printed as itself.
///
/// `name` is the catalog row the form is a spelling of (the row whose notes list it), so whatever is decided per row
/// — remote forwarding, the network refusal — applies to the human form unchanged.
public enum HumanCommand: Hashable, Sendable {
    // §4.1
    /// `/user <name>[ <password>]`, `/u` — apiSetActiveUser.
    case setActiveUser(UserNamed)
    /// `/hide user <password>` — apiHideUser, for the active user.
    case hideUser(Password)
    /// `/unhide user <password>` — apiUnhideUser.
    case unhideUser(Password)
    /// `/mute user` — apiMuteUser.
    case muteUser
    /// `/unmute user` — apiUnmuteUser.
    case unmuteUser
    /// `/delete user <name>[ <password>]` — apiDeleteUser, deleting the user's server queues too.
    case deleteUser(UserNamed)
    /// `/profile <name>[ <short description>]`, `/p` — apiUpdateProfile: the active user's profile renamed.
    case updateProfile(ProfileName)
    /// `/set receipts contacts on|off[ clear_overrides=on|off]` — apiSetUserContactReceipts.
    case setUserContactReceipts(ReceiptSettings)
    /// `/set receipts groups on|off[ clear_overrides=on|off]` — apiSetUserGroupReceipts.
    case setUserGroupReceipts(ReceiptSettings)
    /// `/set accept member contacts on|off` — apiSetUserAutoAcceptMemberContacts.
    case setUserAutoAcceptMemberContacts(OnOff)
    // §4.2: the deprecated single-folder forms of apiSetAppFilePaths, which change one folder and keep the others.
    /// `/_temp_folder <path>`.
    case setTempFolder(FolderPath)
    /// `/_files_folder <path>`, `/files_folder <path>`.
    case setFilesFolder(FolderPath)
    /// `/remote_hosts_folder <path>`.
    case setRemoteHostsFolder(FolderPath)
    // §4.3
    /// `@<contact> <text>`, `#<group>[(support[:<member>])] <text>`, `/* <text>` — apiSendMessages.
    case sendMessage(SendMessage)
    /// `/report #<group>[ @<member>] <reason> <reported text>` — apiReportMessage.
    case reportMessage(ReportMessage)
    // §4.4
    /// `/accept[ incognito] <name>`, `/ac` — apiAcceptContact.
    case acceptContact(ContactRequest)
    /// `/reject <name>`, `/rc` — apiRejectContact.
    case rejectContact(ContactNamed)
    /// `/delete @<name>[ <mode>]`, `/d` — apiDeleteChat.
    case deleteContact(DeleteContact)
    /// `/delete #<group>`, `/d` — apiDeleteChat.
    case deleteGroup(GroupNamed)
    /// `/clear @<name>` — apiClearChat.
    case clearContact(ContactNamed)
    /// `/clear #<group>` — apiClearChat.
    case clearGroup(GroupNamed)
    /// `/clear *`: the active user's notes — apiClearChat.
    case clearNoteFolder
    /// `/contacts` — apiListContacts.
    case listContacts
    /// `/info @<name>`, `/i` — apiContactInfo.
    case contactInfo(ContactNamed)
    // §4.5
    /// `/group[ incognito] <name>[ <short description>]`, `/g` — apiNewGroup.
    case newGroup(NewGroup)
    /// `/public group[ incognito] relays=<ids> #<name>[ <short description>]`, `/pg` — apiNewPublicGroup.
    case newPublicGroup(NewPublicGroup)
    /// `/add #<group> @<contact>[ <role>]`, `/a` — apiAddMember.
    case addMember(AddMember)
    /// `/join #<group>`, `/j` — apiJoinGroup.
    case joinGroup(GroupNamed)
    /// `/remove #<group> @<member>[,@<member>…][ messages=on|off]`, `/rm` — apiRemoveMembers.
    case removeMembers(RemoveMembers)
    /// `/leave #<group>`, `/l` — apiLeaveGroup.
    case leaveGroup(GroupNamed)
    /// `/members #<group>`, `/ms` — apiListMembers.
    case listMembers(GroupNamed)
    /// `/create link #<group>[ <role>]` — apiCreateGroupLink.
    case createGroupLink(CreateGroupLink)
    /// `/show link #<group>` — apiGetGroupLink.
    case showGroupLink(GroupNamed)
    /// `/info #<group>`, `/i` — apiGroupInfo.
    case groupInfo(GroupNamed)
    /// `/info #<group> @<member>`, `/i` — apiGroupMemberInfo.
    case groupMemberInfo(GroupMemberNamed)
    /// `/block #<group> @<member>`: hide the member's messages locally — apiSetMemberSettings.
    case blockMember(GroupMemberNamed)
    /// `/unblock #<group> @<member>` — apiSetMemberSettings.
    case unblockMember(GroupMemberNamed)
    /// `/group allow #<group>` — apiAllowRelayGroup.
    case allowRelayGroup(GroupNamed)
    // §4.8
    /// `/call @<name>` — apiSendCallInvitation with the default call type.
    case sendCallInvitation(ContactNamed)
    // §4.10
    /// `/ttl day|week|month|year|none` — apiSetChatItemTTL.
    case setChatItemTTL(ChatItemTTL)
    /// `/ttl` — apiGetChatItemTTL.
    case getChatItemTTL
    /// `/ttl <chatName> day|week|month|year|none|default` — apiSetChatTTL.
    case setChatTTL(ChatTTL)
    /// `/network socks=…[ …]`, `/net` — apiSetNetworkConfig, merged over the current configuration.
    case setNetworkConfig(NetworkSettings)
    // §4.11
    /// `/db export`: an archive named after the time — apiExportArchive.
    case exportArchive
    // §4.12
    /// `/operators <id>:on|off[:smp=<roles>][:xftp=<roles>],…` — apiSetServerOperators, over the current operators.
    case setServerOperators(OperatorsRoles)
    /// `/smp test <server>`, `/xftp test <server>` — apiTestProtoServer.
    case testProtoServer(TestServer)
    // §4.16
    /// `/address`, `/ad` — apiCreateMyAddress.
    case createMyAddress
    /// `/delete_address`, `/da` — apiDeleteMyAddress.
    case deleteMyAddress
    /// `/show_address`, `/sa` — apiShowMyAddress.
    case showMyAddress
    /// `/profile_address on|off`, `/pa` — apiSetProfileAddress.
    case setProfileAddress(OnOff)
    /// `/auto_accept on[ incognito=on|off| business][ text <text>|json <json>]|off` — apiSetAddressSettings.
    case setAddressSettings(AutoAccept)
    // §4.17
    /// `/code @<name>` — apiGetContactCode.
    case getContactCode(ContactNamed)
    /// `/verify @<name>[ <code>]` — apiVerifyContact.
    case verifyContact(VerifyContact)
    // §4.19
    /// `/groups[ @<contact>][ <search>]`, `/gs` — APIListGroups.
    case listGroups(ListGroups)

    /// The catalog row the form is a spelling of.
    public var name: CommandName {
        switch self {
        case .setActiveUser: .apiSetActiveUser
        case .hideUser: .apiHideUser
        case .unhideUser: .apiUnhideUser
        case .muteUser: .apiMuteUser
        case .unmuteUser: .apiUnmuteUser
        case .deleteUser: .apiDeleteUser
        case .updateProfile: .apiUpdateProfile
        case .setUserContactReceipts: .apiSetUserContactReceipts
        case .setUserGroupReceipts: .apiSetUserGroupReceipts
        case .setUserAutoAcceptMemberContacts: .apiSetUserAutoAcceptMemberContacts
        case .setTempFolder, .setFilesFolder, .setRemoteHostsFolder: .apiSetAppFilePaths
        case .sendMessage: .apiSendMessages
        case .reportMessage: .apiReportMessage
        case .acceptContact: .apiAcceptContact
        case .rejectContact: .apiRejectContact
        case .deleteContact, .deleteGroup: .apiDeleteChat
        case .clearContact, .clearGroup, .clearNoteFolder: .apiClearChat
        case .listContacts: .apiListContacts
        case .contactInfo: .apiContactInfo
        case .newGroup: .apiNewGroup
        case .newPublicGroup: .apiNewPublicGroup
        case .addMember: .apiAddMember
        case .joinGroup: .apiJoinGroup
        case .removeMembers: .apiRemoveMembers
        case .leaveGroup: .apiLeaveGroup
        case .listMembers: .apiListMembers
        case .createGroupLink: .apiCreateGroupLink
        case .showGroupLink: .apiGetGroupLink
        case .groupInfo: .apiGroupInfo
        case .groupMemberInfo: .apiGroupMemberInfo
        case .blockMember, .unblockMember: .apiSetMemberSettings
        case .allowRelayGroup: .apiAllowRelayGroup
        case .sendCallInvitation: .apiSendCallInvitation
        case .setChatItemTTL: .apiSetChatItemTTL
        case .getChatItemTTL: .apiGetChatItemTTL
        case .setChatTTL: .apiSetChatTTL
        case .setNetworkConfig: .apiSetNetworkConfig
        case .exportArchive: .apiExportArchive
        case .setServerOperators: .apiSetServerOperators
        case .testProtoServer: .apiTestProtoServer
        case .createMyAddress: .apiCreateMyAddress
        case .deleteMyAddress: .apiDeleteMyAddress
        case .showMyAddress: .apiShowMyAddress
        case .setProfileAddress: .apiSetProfileAddress
        case .setAddressSettings: .apiSetAddressSettings
        case .getContactCode: .apiGetContactCode
        case .verifyContact: .apiVerifyContact
        case .listGroups: .apiListGroups
        }
    }
}

/// The arguments of a human form: a blank value the grammar fills in.
protocol HumanArguments: Hashable, Sendable {
    init()
}

extension HumanCommand {
    /// A user by local display name, with the password a hidden user needs.
    public struct UserNamed: HumanArguments {
        public var userName = ""
        public var viewPwd: String?
        public init() {}
    }

    /// A user's password.
    public struct Password: HumanArguments {
        public var viewPwd = ""
        public init() {}
    }

    /// A new display name and short description (at most 160 characters; `nil` when none was given).
    public struct ProfileName: HumanArguments {
        public var displayName = ""
        public var shortDescr: String?
        public init() {}
    }

    /// Delivery receipts for the active user's contacts or groups.
    public struct ReceiptSettings: HumanArguments {
        public var enable = false
        public var clearOverrides = false
        public init() {}
    }

    public struct OnOff: HumanArguments {
        public var enable = false
        public init() {}
    }

    public struct FolderPath: HumanArguments {
        public var path = ""
        public init() {}
    }

    /// A message to a chat named in the human way.
    public struct SendMessage: HumanArguments {
        public var target = SendName.local
        public var text = ""
        public init() {}
    }

    /// A group member's message reported to the moderators: the newest item whose text is `reportedText`.
    public struct ReportMessage: HumanArguments {
        public var groupName = ""
        public var memberName: String?
        public var reason = ReportReason.other
        public var reportedText = ""
        public init() {}
    }

    /// A contact request by the requester's display name.
    public struct ContactRequest: HumanArguments {
        public var incognito = false
        public var contactName = ""
        public init() {}
    }

    public struct ContactNamed: HumanArguments {
        public var contactName = ""
        public init() {}
    }

    public struct DeleteContact: HumanArguments {
        public var contactName = ""
        public var mode = ChatDeleteMode.default
        public init() {}
    }

    public struct GroupNamed: HumanArguments {
        public var groupName = ""
        public init() {}
    }

    public struct GroupMemberNamed: HumanArguments {
        public var groupName = ""
        public var memberName = ""
        public init() {}
    }

    /// A group made by the active user: its profile is built from the name and description.
    public struct NewGroup: HumanArguments {
        public var incognito = false
        public var displayName = ""
        public var shortDescr: String?
        public init() {}
    }

    public struct NewPublicGroup: HumanArguments {
        public var incognito = false
        /// The user's chat relays (`chatRelayId`s).
        public var relayIds: [Int64] = []
        public var displayName = ""
        public var shortDescr: String?
        public init() {}
    }

    public struct AddMember: HumanArguments {
        public var groupName = ""
        public var contactName = ""
        public var role = GroupMemberRole.member
        public init() {}
    }

    public struct RemoveMembers: HumanArguments {
        public var groupName = ""
        public var memberNames: [String] = []
        public var withMessages = false
        public init() {}
    }

    public struct CreateGroupLink: HumanArguments {
        public var groupName = ""
        public var role = GroupMemberRole.member
        public init() {}
    }

    /// The active user's chat item TTL in seconds, one of the named periods (`none` is 0).
    public struct ChatItemTTL: HumanArguments {
        public var seconds: Int64 = 0
        public init() {}
    }

    /// A chat's own TTL; `nil` (`default`) clears it.
    public struct ChatTTL: HumanArguments {
        public var chat = ChatName.local
        public var seconds: Int64?
        public init() {}
    }

    /// The simple network settings of `/network` (the core's `SimpleNetCfg`), each word as written.
    public struct NetworkSettings: HumanArguments {
        /// `off`, `on` (the default local proxy) or `<host>:<port>`.
        public var socksProxy = "off"
        public var socksMode: String?
        public var hostMode: String?
        public var requiredHostMode = false
        public var smpProxyMode: String?
        public var smpProxyFallback: String?
        /// `smp-web-port-servers=<servers>`; a bare ` smp-web-port` is `allWebPortServers`.
        public var smpWebPortServers: String?
        public var allWebPortServers = false
        /// Seconds.
        public var tcpTimeout: Int64?
        public var logTLSErrors = false
        public init() {}
    }

    public struct OperatorsRoles: HumanArguments {
        public var operators: [OperatorRoles] = []
        public init() {}
    }

    public struct TestServer: HumanArguments {
        public var serverProtocol = ServerProtocol.smp
        public var server = ""
        public init() {}
    }

    public struct AutoAccept: HumanArguments {
        public var settings = AutoAcceptSettings.off
        public init() {}
    }

    public struct VerifyContact: HumanArguments {
        public var contactName = ""
        /// Digits and spaces; `nil` clears the verification.
        public var code: String?
        public init() {}
    }

    public struct ListGroups: HumanArguments {
        public var contactName: String?
        public var search: String?
        public init() {}
    }
}

/// Where a human message goes (the core's `SendName`).
public enum SendName: Hashable, Sendable {
    case direct(contactName: String)
    /// `memberSupport`: the group's support scope, with a member's (moderators' view) or the user's own.
    case group(groupName: String, memberSupport: MemberSupportName?)
    /// The active user's notes.
    case local
}

/// The support scope of a group named in a human command: `(support)` or `(support:<member>)`.
public struct MemberSupportName: Hashable, Sendable {
    public var memberName: String?

    public init(memberName: String?) {
        self.memberName = memberName
    }
}

/// A chat named in a human command (the core's `ChatName`): `@<contact>`, `#<group>` or `*` (notes).
public enum ChatName: Hashable, Sendable {
    case direct(contactName: String)
    case group(groupName: String)
    case local
}

/// The protocol of a server under test.
public enum ServerProtocol: String, Hashable, Sendable {
    case smp, xftp
}

/// One operator of `/operators`: enabled or not, and what its SMP and XFTP servers are used for (`on`, `off`,
/// `storage`, `proxy`; `nil` is `on`, the core's default).
public struct OperatorRoles: Hashable, Sendable {
    public var operatorId: Int64
    public var enabled: Bool
    public var smpRoles: String?
    public var xftpRoles: String?

    public init(operatorId: Int64, enabled: Bool, smpRoles: String? = nil, xftpRoles: String? = nil) {
        self.operatorId = operatorId
        self.enabled = enabled
        self.smpRoles = smpRoles
        self.xftpRoles = xftpRoles
    }
}

/// The address settings of `/auto_accept` (the core's `autoAcceptP`).
public enum AutoAcceptSettings: Hashable, Sendable {
    /// Requests wait for the user.
    case off
    /// Requests are accepted, incognito or not, optionally with a reply.
    case on(incognito: Bool, autoReply: TextOrJSON?)
    /// A business address: each request becomes a business chat; never incognito.
    case business(autoReply: TextOrJSON?)
}
