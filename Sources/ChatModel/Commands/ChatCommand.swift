/// A command of the chat API (chat-api.md §4), typed: one case per row of the command catalog
/// (`Resources/commands.tsv`, `CommandName`) except the two catch-alls, `string` (raw console text) and
/// `CustomChatCommand` (`//…`). Parse a line with `init(parsing:)`; `text` is its canonical line.
///
/// Cases without arguments have no payload; the others carry a struct of typed arguments whose grammar
/// (`syntax`) both parses and prints the command. Handlers switch over this enum without `default:`, so a
/// new command does not compile until it is handled.
public enum ChatCommand: Hashable, Sendable {
    // §4.1
    case showActiveUser
    case createActiveUser(CreateActiveUser)
    case listUsers
    case apiSetActiveUser(APISetActiveUser)
    case apiHideUser(APIHideUser)
    case apiUnhideUser(APIUnhideUser)
    case apiMuteUser(APIMuteUser)
    case apiUnmuteUser(APIUnmuteUser)
    case apiDeleteUser(APIDeleteUser)
    case apiUpdateProfile(APIUpdateProfile)
    case setAllContactReceipts(SetAllContactReceipts)
    case apiSetUserContactReceipts(APISetUserContactReceipts)
    case apiSetUserGroupReceipts(APISetUserGroupReceipts)
    case apiSetUserAutoAcceptMemberContacts(APISetUserAutoAcceptMemberContacts)
    // §4.2
    case startChat(StartChat)
    case checkChatRunning
    case apiStopChat
    case apiActivateChat(APIActivateChat)
    case apiSuspendChat(APISuspendChat)
    case apiSetAppFilePaths(APISetAppFilePaths)
    case apiSetEncryptLocalFiles(APISetEncryptLocalFiles)
    // §4.3
    case apiGetChats(APIGetChats)
    case apiGetChat(APIGetChat)
    case apiGetChatContentTypes(APIGetChatContentTypes)
    case apiGetChatItemInfo(APIGetChatItemInfo)
    case apiSendMessages(APISendMessages)
    case apiCreateChatItems(APICreateChatItems)
    case apiUpdateChatItem(APIUpdateChatItem)
    case apiDeleteChatItem(APIDeleteChatItem)
    case apiDeleteMemberChatItem(APIDeleteMemberChatItem)
    case apiChatItemReaction(APIChatItemReaction)
    case apiGetReactionMembers(APIGetReactionMembers)
    case apiPlanForwardChatItems(APIPlanForwardChatItems)
    case apiForwardChatItems(APIForwardChatItems)
    case apiReportMessage(APIReportMessage)
    case apiChatRead(APIChatRead)
    case apiChatItemsRead(APIChatItemsRead)
    case apiChatUnread(APIChatUnread)
    // §4.4
    case apiAddContact(APIAddContact)
    case apiConnect(APIConnect)
    case apiConnectPlan(APIConnectPlan)
    case apiPrepareContact(APIPrepareContact)
    case apiPrepareGroup(APIPrepareGroup)
    case apiConnectPreparedContact(APIConnectPreparedContact)
    case apiConnectPreparedGroup(APIConnectPreparedGroup)
    case apiConnectContactViaAddress(APIConnectContactViaAddress)
    case apiAcceptContact(APIAcceptContact)
    case apiRejectContact(APIRejectContact)
    case apiDeleteChat(APIDeleteChat)
    case apiClearChat(APIClearChat)
    case apiListContacts(APIListContacts)
    case apiSetContactPrefs(APISetContactPrefs)
    case apiSetContactAlias(APISetContactAlias)
    case apiSetConnectionAlias(APISetConnectionAlias)
    case apiContactInfo(APIContactInfo)
    case apiSetConnectionIncognito(APISetConnectionIncognito)
    // §4.5
    case apiNewGroup(APINewGroup)
    case apiNewPublicGroup(APINewPublicGroup)
    case apiGetGroupRelays(APIGetGroupRelays)
    case apiAddMember(APIAddMember)
    case apiJoinGroup(APIJoinGroup)
    case apiAcceptMember(APIAcceptMember)
    case apiRemoveMembers(APIRemoveMembers)
    case apiLeaveGroup(APILeaveGroup)
    case apiListMembers(APIListMembers)
    case apiUpdateGroupProfile(APIUpdateGroupProfile)
    case apiMembersRole(APIMembersRole)
    case apiBlockMembersForAll(APIBlockMembersForAll)
    case apiCreateGroupLink(APICreateGroupLink)
    case apiGroupLinkMemberRole(APIGroupLinkMemberRole)
    case apiDeleteGroupLink(APIDeleteGroupLink)
    case apiGetGroupLink(APIGetGroupLink)
    case apiAddGroupShortLink(APIAddGroupShortLink)
    case apiCreateMemberContact(APICreateMemberContact)
    case apiSendMemberContactInvitation(APISendMemberContactInvitation)
    case apiGroupMemberInfo(APIGroupMemberInfo)
    case apiDeleteMemberSupportChat(APIDeleteMemberSupportChat)
    case apiSetMemberSettings(APISetMemberSettings)
    case apiSetGroupAlias(APISetGroupAlias)
    // §4.6
    case apiGetChatTags(APIGetChatTags)
    case apiCreateChatTag(APICreateChatTag)
    case apiSetChatTags(APISetChatTags)
    case apiDeleteChatTag(APIDeleteChatTag)
    case apiUpdateChatTag(APIUpdateChatTag)
    case apiReorderChatTags(APIReorderChatTags)
    // §4.7
    case receiveFile(ReceiveFile)
    case setFileToReceive(SetFileToReceive)
    case cancelFile(CancelFile)
    case apiUploadStandaloneFile(APIUploadStandaloneFile)
    case apiDownloadStandaloneFile(APIDownloadStandaloneFile)
    case apiStandaloneFileInfo(APIStandaloneFileInfo)
    // §4.8
    case apiSendCallInvitation(APISendCallInvitation)
    case apiRejectCall(APIRejectCall)
    case apiSendCallOffer(APISendCallOffer)
    case apiSendCallAnswer(APISendCallAnswer)
    case apiSendCallExtraInfo(APISendCallExtraInfo)
    case apiEndCall(APIEndCall)
    case apiGetCallInvitations
    case apiCallStatus(APICallStatus)
    // §4.9
    case apiGetNtfToken
    case apiRegisterToken(APIRegisterToken)
    case apiVerifyToken(APIVerifyToken)
    case apiCheckToken(APICheckToken)
    case apiDeleteToken(APIDeleteToken)
    case apiGetNtfConns(APIGetNtfConns)
    case apiGetConnNtfMessages(APIGetConnNtfMessages)
    // §4.10
    case apiSaveSettings(APISaveSettings)
    case apiGetSettings(APIGetSettings)
    case apiSetChatSettings(APISetChatSettings)
    case apiSetChatItemTTL(APISetChatItemTTL)
    case apiGetChatItemTTL(APIGetChatItemTTL)
    case apiSetChatTTL(APISetChatTTL)
    case apiSetNetworkConfig(APISetNetworkConfig)
    case apiGetNetworkConfig
    case apiSetNetworkInfo(APISetNetworkInfo)
    case reconnectAllServers
    case reconnectServer(ReconnectServer)
    // §4.11
    case apiStorageEncryption(APIStorageEncryption)
    case testStorageEncryption(TestStorageEncryption)
    case apiExportArchive(APIExportArchive)
    case apiImportArchive(APIImportArchive)
    case apiDeleteStorage
    // §4.12
    case apiGetServerOperators
    case apiSetServerOperators(APISetServerOperators)
    case apiGetUserServers(APIGetUserServers)
    case apiSetUserServers(APISetUserServers)
    case apiValidateServers(APIValidateServers)
    case apiGetUsageConditions
    case apiAcceptConditions(APIAcceptConditions)
    case apiTestProtoServer(APITestProtoServer)
    // §4.13
    case apiSetUserUIThemes(APISetUserUIThemes)
    case apiSetChatUIThemes(APISetChatUIThemes)
    // §4.14
    case setLocalDeviceName(SetLocalDeviceName)
    case connectRemoteCtrl(ConnectRemoteCtrl)
    case findKnownRemoteCtrl
    case confirmRemoteCtrl(ConfirmRemoteCtrl)
    case verifyRemoteCtrlSession(VerifyRemoteCtrlSession)
    case listRemoteCtrls
    case stopRemoteCtrl
    case deleteRemoteCtrl(DeleteRemoteCtrl)
    // §4.15
    case showVersion
    case getAgentSubsTotal(GetAgentSubsTotal)
    case getAgentServersSummary(GetAgentServersSummary)
    case resetAgentServersStats
    // §4.16
    case apiCreateMyAddress(APICreateMyAddress)
    case apiDeleteMyAddress(APIDeleteMyAddress)
    case apiShowMyAddress(APIShowMyAddress)
    case apiAddMyAddressShortLink(APIAddMyAddressShortLink)
    case apiSetProfileAddress(APISetProfileAddress)
    case apiSetAddressSettings(APISetAddressSettings)
    // §4.17
    case apiGetContactCode(APIGetContactCode)
    case apiGetGroupMemberCode(APIGetGroupMemberCode)
    case apiVerifyContact(APIVerifyContact)
    case apiVerifyGroupMember(APIVerifyGroupMember)
    case apiSwitchContact(APISwitchContact)
    case apiSwitchGroupMember(APISwitchGroupMember)
    case apiAbortSwitchContact(APIAbortSwitchContact)
    case apiAbortSwitchGroupMember(APIAbortSwitchGroupMember)
    case apiSyncContactRatchet(APISyncContactRatchet)
    case apiSyncGroupMemberRatchet(APISyncGroupMemberRatchet)
    // §4.18
    case apiSendServiceRequest(APISendServiceRequest)
    // §4.19, §4.20
    case apiListGroups(APIListGroups)
    case connect(Connect)
    case apiSetGroupCustomData(APISetGroupCustomData)
    case apiSetContactCustomData(APISetContactCustomData)
    case apiAddGroupRelays(APIAddGroupRelays)
    case apiAllowRelayGroup(APIAllowRelayGroup)
    case apiShareChatMsgContent(APIShareChatMsgContent)
    case apiShareMyAddress(APIShareMyAddress)
    case apiVerifyGroupDomain(APIVerifyGroupDomain)
    case apiSetUserAutoAcceptGroupInvitations(APISetUserAutoAcceptGroupInvitations)
    case apiSendServiceResponse(APISendServiceResponse)
    case apiArchiveReceivedReports(APIArchiveReceivedReports)
    case apiDeleteReceivedReports(APIDeleteReceivedReports)
    case apiSetConditionsNotified(APISetConditionsNotified)
    case apiContactQueueInfo(APIContactQueueInfo)
    case apiGroupMemberQueueInfo(APIGroupMemberQueueInfo)
    case apiChangeConnectionUser(APIChangeConnectionUser)
    case apiChangePreparedContactUser(APIChangePreparedContactUser)
    case apiChangePreparedGroupUser(APIChangePreparedGroupUser)
    case apiAcceptMemberContact(APIAcceptMemberContact)
    case apiGroupInfo(APIGroupInfo)
    case apiGetUpdatedGroupLinkData(APIGetUpdatedGroupLinkData)
    case apiEnableContact(APIEnableContact)
    case apiEnableGroupMember(APIEnableGroupMember)
    case apiUserRead(APIUserRead)
    case apiTestChatRelay(APITestChatRelay)
    case apiGetChatItems(APIGetChatItems)
    case resubscribeAll
    case connectionsDiff(ConnectionsDiff)
    case apiGetNetworkStatuses
    /// A human (CLI) form that names users, contacts or groups, or acts for the active user: a spelling of the row
    /// `HumanCommand.name`, resolved by the core into that row's command.
    case human(HumanCommand)
}

extension ChatCommand {
    /// The command's catalog row.
    public var name: CommandName {
        switch self {
        case .showActiveUser: .showActiveUser
        case .createActiveUser: .createActiveUser
        case .listUsers: .listUsers
        case .apiSetActiveUser: .apiSetActiveUser
        case .apiHideUser: .apiHideUser
        case .apiUnhideUser: .apiUnhideUser
        case .apiMuteUser: .apiMuteUser
        case .apiUnmuteUser: .apiUnmuteUser
        case .apiDeleteUser: .apiDeleteUser
        case .apiUpdateProfile: .apiUpdateProfile
        case .setAllContactReceipts: .setAllContactReceipts
        case .apiSetUserContactReceipts: .apiSetUserContactReceipts
        case .apiSetUserGroupReceipts: .apiSetUserGroupReceipts
        case .apiSetUserAutoAcceptMemberContacts: .apiSetUserAutoAcceptMemberContacts
        case .startChat: .startChat
        case .checkChatRunning: .checkChatRunning
        case .apiStopChat: .apiStopChat
        case .apiActivateChat: .apiActivateChat
        case .apiSuspendChat: .apiSuspendChat
        case .apiSetAppFilePaths: .apiSetAppFilePaths
        case .apiSetEncryptLocalFiles: .apiSetEncryptLocalFiles
        case .apiGetChats: .apiGetChats
        case .apiGetChat: .apiGetChat
        case .apiGetChatContentTypes: .apiGetChatContentTypes
        case .apiGetChatItemInfo: .apiGetChatItemInfo
        case .apiSendMessages: .apiSendMessages
        case .apiCreateChatItems: .apiCreateChatItems
        case .apiUpdateChatItem: .apiUpdateChatItem
        case .apiDeleteChatItem: .apiDeleteChatItem
        case .apiDeleteMemberChatItem: .apiDeleteMemberChatItem
        case .apiChatItemReaction: .apiChatItemReaction
        case .apiGetReactionMembers: .apiGetReactionMembers
        case .apiPlanForwardChatItems: .apiPlanForwardChatItems
        case .apiForwardChatItems: .apiForwardChatItems
        case .apiReportMessage: .apiReportMessage
        case .apiChatRead: .apiChatRead
        case .apiChatItemsRead: .apiChatItemsRead
        case .apiChatUnread: .apiChatUnread
        case .apiAddContact: .apiAddContact
        case .apiConnect: .apiConnect
        case .apiConnectPlan: .apiConnectPlan
        case .apiPrepareContact: .apiPrepareContact
        case .apiPrepareGroup: .apiPrepareGroup
        case .apiConnectPreparedContact: .apiConnectPreparedContact
        case .apiConnectPreparedGroup: .apiConnectPreparedGroup
        case .apiConnectContactViaAddress: .apiConnectContactViaAddress
        case .apiAcceptContact: .apiAcceptContact
        case .apiRejectContact: .apiRejectContact
        case .apiDeleteChat: .apiDeleteChat
        case .apiClearChat: .apiClearChat
        case .apiListContacts: .apiListContacts
        case .apiSetContactPrefs: .apiSetContactPrefs
        case .apiSetContactAlias: .apiSetContactAlias
        case .apiSetConnectionAlias: .apiSetConnectionAlias
        case .apiContactInfo: .apiContactInfo
        case .apiSetConnectionIncognito: .apiSetConnectionIncognito
        case .apiNewGroup: .apiNewGroup
        case .apiNewPublicGroup: .apiNewPublicGroup
        case .apiGetGroupRelays: .apiGetGroupRelays
        case .apiAddMember: .apiAddMember
        case .apiJoinGroup: .apiJoinGroup
        case .apiAcceptMember: .apiAcceptMember
        case .apiRemoveMembers: .apiRemoveMembers
        case .apiLeaveGroup: .apiLeaveGroup
        case .apiListMembers: .apiListMembers
        case .apiUpdateGroupProfile: .apiUpdateGroupProfile
        case .apiMembersRole: .apiMembersRole
        case .apiBlockMembersForAll: .apiBlockMembersForAll
        case .apiCreateGroupLink: .apiCreateGroupLink
        case .apiGroupLinkMemberRole: .apiGroupLinkMemberRole
        case .apiDeleteGroupLink: .apiDeleteGroupLink
        case .apiGetGroupLink: .apiGetGroupLink
        case .apiAddGroupShortLink: .apiAddGroupShortLink
        case .apiCreateMemberContact: .apiCreateMemberContact
        case .apiSendMemberContactInvitation: .apiSendMemberContactInvitation
        case .apiGroupMemberInfo: .apiGroupMemberInfo
        case .apiDeleteMemberSupportChat: .apiDeleteMemberSupportChat
        case .apiSetMemberSettings: .apiSetMemberSettings
        case .apiSetGroupAlias: .apiSetGroupAlias
        case .apiGetChatTags: .apiGetChatTags
        case .apiCreateChatTag: .apiCreateChatTag
        case .apiSetChatTags: .apiSetChatTags
        case .apiDeleteChatTag: .apiDeleteChatTag
        case .apiUpdateChatTag: .apiUpdateChatTag
        case .apiReorderChatTags: .apiReorderChatTags
        case .receiveFile: .receiveFile
        case .setFileToReceive: .setFileToReceive
        case .cancelFile: .cancelFile
        case .apiUploadStandaloneFile: .apiUploadStandaloneFile
        case .apiDownloadStandaloneFile: .apiDownloadStandaloneFile
        case .apiStandaloneFileInfo: .apiStandaloneFileInfo
        case .apiSendCallInvitation: .apiSendCallInvitation
        case .apiRejectCall: .apiRejectCall
        case .apiSendCallOffer: .apiSendCallOffer
        case .apiSendCallAnswer: .apiSendCallAnswer
        case .apiSendCallExtraInfo: .apiSendCallExtraInfo
        case .apiEndCall: .apiEndCall
        case .apiGetCallInvitations: .apiGetCallInvitations
        case .apiCallStatus: .apiCallStatus
        case .apiGetNtfToken: .apiGetNtfToken
        case .apiRegisterToken: .apiRegisterToken
        case .apiVerifyToken: .apiVerifyToken
        case .apiCheckToken: .apiCheckToken
        case .apiDeleteToken: .apiDeleteToken
        case .apiGetNtfConns: .apiGetNtfConns
        case .apiGetConnNtfMessages: .apiGetConnNtfMessages
        case .apiSaveSettings: .apiSaveSettings
        case .apiGetSettings: .apiGetSettings
        case .apiSetChatSettings: .apiSetChatSettings
        case .apiSetChatItemTTL: .apiSetChatItemTTL
        case .apiGetChatItemTTL: .apiGetChatItemTTL
        case .apiSetChatTTL: .apiSetChatTTL
        case .apiSetNetworkConfig: .apiSetNetworkConfig
        case .apiGetNetworkConfig: .apiGetNetworkConfig
        case .apiSetNetworkInfo: .apiSetNetworkInfo
        case .reconnectAllServers: .reconnectAllServers
        case .reconnectServer: .reconnectServer
        case .apiStorageEncryption: .apiStorageEncryption
        case .testStorageEncryption: .testStorageEncryption
        case .apiExportArchive: .apiExportArchive
        case .apiImportArchive: .apiImportArchive
        case .apiDeleteStorage: .apiDeleteStorage
        case .apiGetServerOperators: .apiGetServerOperators
        case .apiSetServerOperators: .apiSetServerOperators
        case .apiGetUserServers: .apiGetUserServers
        case .apiSetUserServers: .apiSetUserServers
        case .apiValidateServers: .apiValidateServers
        case .apiGetUsageConditions: .apiGetUsageConditions
        case .apiAcceptConditions: .apiAcceptConditions
        case .apiTestProtoServer: .apiTestProtoServer
        case .apiSetUserUIThemes: .apiSetUserUIThemes
        case .apiSetChatUIThemes: .apiSetChatUIThemes
        case .setLocalDeviceName: .setLocalDeviceName
        case .connectRemoteCtrl: .connectRemoteCtrl
        case .findKnownRemoteCtrl: .findKnownRemoteCtrl
        case .confirmRemoteCtrl: .confirmRemoteCtrl
        case .verifyRemoteCtrlSession: .verifyRemoteCtrlSession
        case .listRemoteCtrls: .listRemoteCtrls
        case .stopRemoteCtrl: .stopRemoteCtrl
        case .deleteRemoteCtrl: .deleteRemoteCtrl
        case .showVersion: .showVersion
        case .getAgentSubsTotal: .getAgentSubsTotal
        case .getAgentServersSummary: .getAgentServersSummary
        case .resetAgentServersStats: .resetAgentServersStats
        case .apiCreateMyAddress: .apiCreateMyAddress
        case .apiDeleteMyAddress: .apiDeleteMyAddress
        case .apiShowMyAddress: .apiShowMyAddress
        case .apiAddMyAddressShortLink: .apiAddMyAddressShortLink
        case .apiSetProfileAddress: .apiSetProfileAddress
        case .apiSetAddressSettings: .apiSetAddressSettings
        case .apiGetContactCode: .apiGetContactCode
        case .apiGetGroupMemberCode: .apiGetGroupMemberCode
        case .apiVerifyContact: .apiVerifyContact
        case .apiVerifyGroupMember: .apiVerifyGroupMember
        case .apiSwitchContact: .apiSwitchContact
        case .apiSwitchGroupMember: .apiSwitchGroupMember
        case .apiAbortSwitchContact: .apiAbortSwitchContact
        case .apiAbortSwitchGroupMember: .apiAbortSwitchGroupMember
        case .apiSyncContactRatchet: .apiSyncContactRatchet
        case .apiSyncGroupMemberRatchet: .apiSyncGroupMemberRatchet
        case .apiSendServiceRequest: .apiSendServiceRequest
        case .apiListGroups: .apiListGroups
        case .connect: .connect
        case .apiSetGroupCustomData: .apiSetGroupCustomData
        case .apiSetContactCustomData: .apiSetContactCustomData
        case .apiAddGroupRelays: .apiAddGroupRelays
        case .apiAllowRelayGroup: .apiAllowRelayGroup
        case .apiShareChatMsgContent: .apiShareChatMsgContent
        case .apiShareMyAddress: .apiShareMyAddress
        case .apiVerifyGroupDomain: .apiVerifyGroupDomain
        case .apiSetUserAutoAcceptGroupInvitations: .apiSetUserAutoAcceptGroupInvitations
        case .apiSendServiceResponse: .apiSendServiceResponse
        case .apiArchiveReceivedReports: .apiArchiveReceivedReports
        case .apiDeleteReceivedReports: .apiDeleteReceivedReports
        case .apiSetConditionsNotified: .apiSetConditionsNotified
        case .apiContactQueueInfo: .apiContactQueueInfo
        case .apiGroupMemberQueueInfo: .apiGroupMemberQueueInfo
        case .apiChangeConnectionUser: .apiChangeConnectionUser
        case .apiChangePreparedContactUser: .apiChangePreparedContactUser
        case .apiChangePreparedGroupUser: .apiChangePreparedGroupUser
        case .apiAcceptMemberContact: .apiAcceptMemberContact
        case .apiGroupInfo: .apiGroupInfo
        case .apiGetUpdatedGroupLinkData: .apiGetUpdatedGroupLinkData
        case .apiEnableContact: .apiEnableContact
        case .apiEnableGroupMember: .apiEnableGroupMember
        case .apiUserRead: .apiUserRead
        case .apiTestChatRelay: .apiTestChatRelay
        case .apiGetChatItems: .apiGetChatItems
        case .resubscribeAll: .resubscribeAll
        case .connectionsDiff: .connectionsDiff
        case .apiGetNetworkStatuses: .apiGetNetworkStatuses
        case .human(let human): human.name
        }
    }

    /// The case's arguments (`NoArguments` for cases without), for the type-erased grammar table.
    var arguments: any Sendable {
        switch self {
        case .showActiveUser: NoArguments()
        case .createActiveUser(let arguments): arguments
        case .listUsers: NoArguments()
        case .apiSetActiveUser(let arguments): arguments
        case .apiHideUser(let arguments): arguments
        case .apiUnhideUser(let arguments): arguments
        case .apiMuteUser(let arguments): arguments
        case .apiUnmuteUser(let arguments): arguments
        case .apiDeleteUser(let arguments): arguments
        case .apiUpdateProfile(let arguments): arguments
        case .setAllContactReceipts(let arguments): arguments
        case .apiSetUserContactReceipts(let arguments): arguments
        case .apiSetUserGroupReceipts(let arguments): arguments
        case .apiSetUserAutoAcceptMemberContacts(let arguments): arguments
        case .startChat(let arguments): arguments
        case .checkChatRunning: NoArguments()
        case .apiStopChat: NoArguments()
        case .apiActivateChat(let arguments): arguments
        case .apiSuspendChat(let arguments): arguments
        case .apiSetAppFilePaths(let arguments): arguments
        case .apiSetEncryptLocalFiles(let arguments): arguments
        case .apiGetChats(let arguments): arguments
        case .apiGetChat(let arguments): arguments
        case .apiGetChatContentTypes(let arguments): arguments
        case .apiGetChatItemInfo(let arguments): arguments
        case .apiSendMessages(let arguments): arguments
        case .apiCreateChatItems(let arguments): arguments
        case .apiUpdateChatItem(let arguments): arguments
        case .apiDeleteChatItem(let arguments): arguments
        case .apiDeleteMemberChatItem(let arguments): arguments
        case .apiChatItemReaction(let arguments): arguments
        case .apiGetReactionMembers(let arguments): arguments
        case .apiPlanForwardChatItems(let arguments): arguments
        case .apiForwardChatItems(let arguments): arguments
        case .apiReportMessage(let arguments): arguments
        case .apiChatRead(let arguments): arguments
        case .apiChatItemsRead(let arguments): arguments
        case .apiChatUnread(let arguments): arguments
        case .apiAddContact(let arguments): arguments
        case .apiConnect(let arguments): arguments
        case .apiConnectPlan(let arguments): arguments
        case .apiPrepareContact(let arguments): arguments
        case .apiPrepareGroup(let arguments): arguments
        case .apiConnectPreparedContact(let arguments): arguments
        case .apiConnectPreparedGroup(let arguments): arguments
        case .apiConnectContactViaAddress(let arguments): arguments
        case .apiAcceptContact(let arguments): arguments
        case .apiRejectContact(let arguments): arguments
        case .apiDeleteChat(let arguments): arguments
        case .apiClearChat(let arguments): arguments
        case .apiListContacts(let arguments): arguments
        case .apiSetContactPrefs(let arguments): arguments
        case .apiSetContactAlias(let arguments): arguments
        case .apiSetConnectionAlias(let arguments): arguments
        case .apiContactInfo(let arguments): arguments
        case .apiSetConnectionIncognito(let arguments): arguments
        case .apiNewGroup(let arguments): arguments
        case .apiNewPublicGroup(let arguments): arguments
        case .apiGetGroupRelays(let arguments): arguments
        case .apiAddMember(let arguments): arguments
        case .apiJoinGroup(let arguments): arguments
        case .apiAcceptMember(let arguments): arguments
        case .apiRemoveMembers(let arguments): arguments
        case .apiLeaveGroup(let arguments): arguments
        case .apiListMembers(let arguments): arguments
        case .apiUpdateGroupProfile(let arguments): arguments
        case .apiMembersRole(let arguments): arguments
        case .apiBlockMembersForAll(let arguments): arguments
        case .apiCreateGroupLink(let arguments): arguments
        case .apiGroupLinkMemberRole(let arguments): arguments
        case .apiDeleteGroupLink(let arguments): arguments
        case .apiGetGroupLink(let arguments): arguments
        case .apiAddGroupShortLink(let arguments): arguments
        case .apiCreateMemberContact(let arguments): arguments
        case .apiSendMemberContactInvitation(let arguments): arguments
        case .apiGroupMemberInfo(let arguments): arguments
        case .apiDeleteMemberSupportChat(let arguments): arguments
        case .apiSetMemberSettings(let arguments): arguments
        case .apiSetGroupAlias(let arguments): arguments
        case .apiGetChatTags(let arguments): arguments
        case .apiCreateChatTag(let arguments): arguments
        case .apiSetChatTags(let arguments): arguments
        case .apiDeleteChatTag(let arguments): arguments
        case .apiUpdateChatTag(let arguments): arguments
        case .apiReorderChatTags(let arguments): arguments
        case .receiveFile(let arguments): arguments
        case .setFileToReceive(let arguments): arguments
        case .cancelFile(let arguments): arguments
        case .apiUploadStandaloneFile(let arguments): arguments
        case .apiDownloadStandaloneFile(let arguments): arguments
        case .apiStandaloneFileInfo(let arguments): arguments
        case .apiSendCallInvitation(let arguments): arguments
        case .apiRejectCall(let arguments): arguments
        case .apiSendCallOffer(let arguments): arguments
        case .apiSendCallAnswer(let arguments): arguments
        case .apiSendCallExtraInfo(let arguments): arguments
        case .apiEndCall(let arguments): arguments
        case .apiGetCallInvitations: NoArguments()
        case .apiCallStatus(let arguments): arguments
        case .apiGetNtfToken: NoArguments()
        case .apiRegisterToken(let arguments): arguments
        case .apiVerifyToken(let arguments): arguments
        case .apiCheckToken(let arguments): arguments
        case .apiDeleteToken(let arguments): arguments
        case .apiGetNtfConns(let arguments): arguments
        case .apiGetConnNtfMessages(let arguments): arguments
        case .apiSaveSettings(let arguments): arguments
        case .apiGetSettings(let arguments): arguments
        case .apiSetChatSettings(let arguments): arguments
        case .apiSetChatItemTTL(let arguments): arguments
        case .apiGetChatItemTTL(let arguments): arguments
        case .apiSetChatTTL(let arguments): arguments
        case .apiSetNetworkConfig(let arguments): arguments
        case .apiGetNetworkConfig: NoArguments()
        case .apiSetNetworkInfo(let arguments): arguments
        case .reconnectAllServers: NoArguments()
        case .reconnectServer(let arguments): arguments
        case .apiStorageEncryption(let arguments): arguments
        case .testStorageEncryption(let arguments): arguments
        case .apiExportArchive(let arguments): arguments
        case .apiImportArchive(let arguments): arguments
        case .apiDeleteStorage: NoArguments()
        case .apiGetServerOperators: NoArguments()
        case .apiSetServerOperators(let arguments): arguments
        case .apiGetUserServers(let arguments): arguments
        case .apiSetUserServers(let arguments): arguments
        case .apiValidateServers(let arguments): arguments
        case .apiGetUsageConditions: NoArguments()
        case .apiAcceptConditions(let arguments): arguments
        case .apiTestProtoServer(let arguments): arguments
        case .apiSetUserUIThemes(let arguments): arguments
        case .apiSetChatUIThemes(let arguments): arguments
        case .setLocalDeviceName(let arguments): arguments
        case .connectRemoteCtrl(let arguments): arguments
        case .findKnownRemoteCtrl: NoArguments()
        case .confirmRemoteCtrl(let arguments): arguments
        case .verifyRemoteCtrlSession(let arguments): arguments
        case .listRemoteCtrls: NoArguments()
        case .stopRemoteCtrl: NoArguments()
        case .deleteRemoteCtrl(let arguments): arguments
        case .showVersion: NoArguments()
        case .getAgentSubsTotal(let arguments): arguments
        case .getAgentServersSummary(let arguments): arguments
        case .resetAgentServersStats: NoArguments()
        case .apiCreateMyAddress(let arguments): arguments
        case .apiDeleteMyAddress(let arguments): arguments
        case .apiShowMyAddress(let arguments): arguments
        case .apiAddMyAddressShortLink(let arguments): arguments
        case .apiSetProfileAddress(let arguments): arguments
        case .apiSetAddressSettings(let arguments): arguments
        case .apiGetContactCode(let arguments): arguments
        case .apiGetGroupMemberCode(let arguments): arguments
        case .apiVerifyContact(let arguments): arguments
        case .apiVerifyGroupMember(let arguments): arguments
        case .apiSwitchContact(let arguments): arguments
        case .apiSwitchGroupMember(let arguments): arguments
        case .apiAbortSwitchContact(let arguments): arguments
        case .apiAbortSwitchGroupMember(let arguments): arguments
        case .apiSyncContactRatchet(let arguments): arguments
        case .apiSyncGroupMemberRatchet(let arguments): arguments
        case .apiSendServiceRequest(let arguments): arguments
        case .apiListGroups(let arguments): arguments
        case .connect(let arguments): arguments
        case .apiSetGroupCustomData(let arguments): arguments
        case .apiSetContactCustomData(let arguments): arguments
        case .apiAddGroupRelays(let arguments): arguments
        case .apiAllowRelayGroup(let arguments): arguments
        case .apiShareChatMsgContent(let arguments): arguments
        case .apiShareMyAddress(let arguments): arguments
        case .apiVerifyGroupDomain(let arguments): arguments
        case .apiSetUserAutoAcceptGroupInvitations(let arguments): arguments
        case .apiSendServiceResponse(let arguments): arguments
        case .apiArchiveReceivedReports(let arguments): arguments
        case .apiDeleteReceivedReports(let arguments): arguments
        case .apiSetConditionsNotified(let arguments): arguments
        case .apiContactQueueInfo(let arguments): arguments
        case .apiGroupMemberQueueInfo(let arguments): arguments
        case .apiChangeConnectionUser(let arguments): arguments
        case .apiChangePreparedContactUser(let arguments): arguments
        case .apiChangePreparedGroupUser(let arguments): arguments
        case .apiAcceptMemberContact(let arguments): arguments
        case .apiGroupInfo(let arguments): arguments
        case .apiGetUpdatedGroupLinkData(let arguments): arguments
        case .apiEnableContact(let arguments): arguments
        case .apiEnableGroupMember(let arguments): arguments
        case .apiUserRead(let arguments): arguments
        case .apiTestChatRelay(let arguments): arguments
        case .apiGetChatItems(let arguments): arguments
        case .resubscribeAll: NoArguments()
        case .connectionsDiff(let arguments): arguments
        case .apiGetNetworkStatuses: NoArguments()
        case .human(let human): human
        }
    }

    /// The grammar of each catalog row, `nil` for the two catch-alls; tried in the catalog's order.
    static func grammar(for name: CommandName) -> CommandGrammar? {
        switch name {
        case .showActiveUser: .constant(.showActiveUser, .literal("/user", aliases: ["/u"]))
        case .createActiveUser: .command(name, ChatCommand.createActiveUser)
        case .listUsers: .constant(.listUsers, "/users")
        case .apiSetActiveUser: .command(name, ChatCommand.apiSetActiveUser)
        case .apiHideUser: .command(name, ChatCommand.apiHideUser)
        case .apiUnhideUser: .command(name, ChatCommand.apiUnhideUser)
        case .apiMuteUser: .command(name, ChatCommand.apiMuteUser)
        case .apiUnmuteUser: .command(name, ChatCommand.apiUnmuteUser)
        case .apiDeleteUser: .command(name, ChatCommand.apiDeleteUser)
        case .apiUpdateProfile: .command(name, ChatCommand.apiUpdateProfile)
        case .setAllContactReceipts: .command(name, ChatCommand.setAllContactReceipts)
        case .apiSetUserContactReceipts: .command(name, ChatCommand.apiSetUserContactReceipts)
        case .apiSetUserGroupReceipts: .command(name, ChatCommand.apiSetUserGroupReceipts)
        case .apiSetUserAutoAcceptMemberContacts: .command(name, ChatCommand.apiSetUserAutoAcceptMemberContacts)
        case .startChat: .command(name, ChatCommand.startChat)
        case .checkChatRunning: .constant(.checkChatRunning, "/_check running")
        case .apiStopChat: .constant(.apiStopChat, "/_stop")
        case .apiActivateChat: .command(name, ChatCommand.apiActivateChat)
        case .apiSuspendChat: .command(name, ChatCommand.apiSuspendChat)
        case .apiSetAppFilePaths: .command(name, ChatCommand.apiSetAppFilePaths)
        case .apiSetEncryptLocalFiles: .command(name, ChatCommand.apiSetEncryptLocalFiles)
        case .apiGetChats: .command(name, ChatCommand.apiGetChats)
        case .apiGetChat: .command(name, ChatCommand.apiGetChat)
        case .apiGetChatContentTypes: .command(name, ChatCommand.apiGetChatContentTypes)
        case .apiGetChatItemInfo: .command(name, ChatCommand.apiGetChatItemInfo)
        case .apiSendMessages: .command(name, ChatCommand.apiSendMessages)
        case .apiCreateChatItems: .command(name, ChatCommand.apiCreateChatItems)
        case .apiUpdateChatItem: .command(name, ChatCommand.apiUpdateChatItem)
        case .apiDeleteChatItem: .command(name, ChatCommand.apiDeleteChatItem)
        case .apiDeleteMemberChatItem: .command(name, ChatCommand.apiDeleteMemberChatItem)
        case .apiChatItemReaction: .command(name, ChatCommand.apiChatItemReaction)
        case .apiGetReactionMembers: .command(name, ChatCommand.apiGetReactionMembers)
        case .apiPlanForwardChatItems: .command(name, ChatCommand.apiPlanForwardChatItems)
        case .apiForwardChatItems: .command(name, ChatCommand.apiForwardChatItems)
        case .apiReportMessage: .command(name, ChatCommand.apiReportMessage)
        case .apiChatRead: .command(name, ChatCommand.apiChatRead)
        case .apiChatItemsRead: .command(name, ChatCommand.apiChatItemsRead)
        case .apiChatUnread: .command(name, ChatCommand.apiChatUnread)
        case .apiAddContact: .command(name, ChatCommand.apiAddContact)
        case .apiConnect: .command(name, ChatCommand.apiConnect)
        case .apiConnectPlan: .command(name, ChatCommand.apiConnectPlan)
        case .apiPrepareContact: .command(name, ChatCommand.apiPrepareContact)
        case .apiPrepareGroup: .command(name, ChatCommand.apiPrepareGroup)
        case .apiConnectPreparedContact: .command(name, ChatCommand.apiConnectPreparedContact)
        case .apiConnectPreparedGroup: .command(name, ChatCommand.apiConnectPreparedGroup)
        case .apiConnectContactViaAddress: .command(name, ChatCommand.apiConnectContactViaAddress)
        case .apiAcceptContact: .command(name, ChatCommand.apiAcceptContact)
        case .apiRejectContact: .command(name, ChatCommand.apiRejectContact)
        case .apiDeleteChat: .command(name, ChatCommand.apiDeleteChat)
        case .apiClearChat: .command(name, ChatCommand.apiClearChat)
        case .apiListContacts: .command(name, ChatCommand.apiListContacts)
        case .apiSetContactPrefs: .command(name, ChatCommand.apiSetContactPrefs)
        case .apiSetContactAlias: .command(name, ChatCommand.apiSetContactAlias)
        case .apiSetConnectionAlias: .command(name, ChatCommand.apiSetConnectionAlias)
        case .apiContactInfo: .command(name, ChatCommand.apiContactInfo)
        case .apiSetConnectionIncognito: .command(name, ChatCommand.apiSetConnectionIncognito)
        case .apiNewGroup: .command(name, ChatCommand.apiNewGroup)
        case .apiNewPublicGroup: .command(name, ChatCommand.apiNewPublicGroup)
        case .apiGetGroupRelays: .command(name, ChatCommand.apiGetGroupRelays)
        case .apiAddMember: .command(name, ChatCommand.apiAddMember)
        case .apiJoinGroup: .command(name, ChatCommand.apiJoinGroup)
        case .apiAcceptMember: .command(name, ChatCommand.apiAcceptMember)
        case .apiRemoveMembers: .command(name, ChatCommand.apiRemoveMembers)
        case .apiLeaveGroup: .command(name, ChatCommand.apiLeaveGroup)
        case .apiListMembers: .command(name, ChatCommand.apiListMembers)
        case .apiUpdateGroupProfile: .command(name, ChatCommand.apiUpdateGroupProfile)
        case .apiMembersRole: .command(name, ChatCommand.apiMembersRole)
        case .apiBlockMembersForAll: .command(name, ChatCommand.apiBlockMembersForAll)
        case .apiCreateGroupLink: .command(name, ChatCommand.apiCreateGroupLink)
        case .apiGroupLinkMemberRole: .command(name, ChatCommand.apiGroupLinkMemberRole)
        case .apiDeleteGroupLink: .command(name, ChatCommand.apiDeleteGroupLink)
        case .apiGetGroupLink: .command(name, ChatCommand.apiGetGroupLink)
        case .apiAddGroupShortLink: .command(name, ChatCommand.apiAddGroupShortLink)
        case .apiCreateMemberContact: .command(name, ChatCommand.apiCreateMemberContact)
        case .apiSendMemberContactInvitation: .command(name, ChatCommand.apiSendMemberContactInvitation)
        case .apiGroupMemberInfo: .command(name, ChatCommand.apiGroupMemberInfo)
        case .apiDeleteMemberSupportChat: .command(name, ChatCommand.apiDeleteMemberSupportChat)
        case .apiSetMemberSettings: .command(name, ChatCommand.apiSetMemberSettings)
        case .apiSetGroupAlias: .command(name, ChatCommand.apiSetGroupAlias)
        case .apiGetChatTags: .command(name, ChatCommand.apiGetChatTags)
        case .apiCreateChatTag: .command(name, ChatCommand.apiCreateChatTag)
        case .apiSetChatTags: .command(name, ChatCommand.apiSetChatTags)
        case .apiDeleteChatTag: .command(name, ChatCommand.apiDeleteChatTag)
        case .apiUpdateChatTag: .command(name, ChatCommand.apiUpdateChatTag)
        case .apiReorderChatTags: .command(name, ChatCommand.apiReorderChatTags)
        case .receiveFile: .command(name, ChatCommand.receiveFile)
        case .setFileToReceive: .command(name, ChatCommand.setFileToReceive)
        case .cancelFile: .command(name, ChatCommand.cancelFile)
        case .apiUploadStandaloneFile: .command(name, ChatCommand.apiUploadStandaloneFile)
        case .apiDownloadStandaloneFile: .command(name, ChatCommand.apiDownloadStandaloneFile)
        case .apiStandaloneFileInfo: .command(name, ChatCommand.apiStandaloneFileInfo)
        case .apiSendCallInvitation: .command(name, ChatCommand.apiSendCallInvitation)
        case .apiRejectCall: .command(name, ChatCommand.apiRejectCall)
        case .apiSendCallOffer: .command(name, ChatCommand.apiSendCallOffer)
        case .apiSendCallAnswer: .command(name, ChatCommand.apiSendCallAnswer)
        case .apiSendCallExtraInfo: .command(name, ChatCommand.apiSendCallExtraInfo)
        case .apiEndCall: .command(name, ChatCommand.apiEndCall)
        case .apiGetCallInvitations: .constant(.apiGetCallInvitations, "/_call get")
        case .apiCallStatus: .command(name, ChatCommand.apiCallStatus)
        case .apiGetNtfToken: .constant(.apiGetNtfToken, "/_ntf get")
        case .apiRegisterToken: .command(name, ChatCommand.apiRegisterToken)
        case .apiVerifyToken: .command(name, ChatCommand.apiVerifyToken)
        case .apiCheckToken: .command(name, ChatCommand.apiCheckToken)
        case .apiDeleteToken: .command(name, ChatCommand.apiDeleteToken)
        case .apiGetNtfConns: .command(name, ChatCommand.apiGetNtfConns)
        case .apiGetConnNtfMessages: .command(name, ChatCommand.apiGetConnNtfMessages)
        case .apiSaveSettings: .command(name, ChatCommand.apiSaveSettings)
        case .apiGetSettings: .command(name, ChatCommand.apiGetSettings)
        case .apiSetChatSettings: .command(name, ChatCommand.apiSetChatSettings)
        case .apiSetChatItemTTL: .command(name, ChatCommand.apiSetChatItemTTL)
        case .apiGetChatItemTTL: .command(name, ChatCommand.apiGetChatItemTTL)
        case .apiSetChatTTL: .command(name, ChatCommand.apiSetChatTTL)
        case .apiSetNetworkConfig: .command(name, ChatCommand.apiSetNetworkConfig)
        case .apiGetNetworkConfig: .constant(.apiGetNetworkConfig, .literal("/network", aliases: ["/net"]))
        case .apiSetNetworkInfo: .command(name, ChatCommand.apiSetNetworkInfo)
        case .reconnectAllServers: .constant(.reconnectAllServers, "/reconnect")
        case .reconnectServer: .command(name, ChatCommand.reconnectServer)
        case .apiStorageEncryption: .command(name, ChatCommand.apiStorageEncryption)
        case .testStorageEncryption: .command(name, ChatCommand.testStorageEncryption)
        case .apiExportArchive: .command(name, ChatCommand.apiExportArchive)
        case .apiImportArchive: .command(name, ChatCommand.apiImportArchive)
        case .apiDeleteStorage: .constant(.apiDeleteStorage, "/_db delete")
        case .apiGetServerOperators: .constant(.apiGetServerOperators, "/_operators")
        case .apiSetServerOperators: .command(name, ChatCommand.apiSetServerOperators)
        case .apiGetUserServers: .command(name, ChatCommand.apiGetUserServers)
        case .apiSetUserServers: .command(name, ChatCommand.apiSetUserServers)
        case .apiValidateServers: .command(name, ChatCommand.apiValidateServers)
        case .apiGetUsageConditions: .constant(.apiGetUsageConditions, "/_conditions")
        case .apiAcceptConditions: .command(name, ChatCommand.apiAcceptConditions)
        case .apiTestProtoServer: .command(name, ChatCommand.apiTestProtoServer)
        case .apiSetUserUIThemes: .command(name, ChatCommand.apiSetUserUIThemes)
        case .apiSetChatUIThemes: .command(name, ChatCommand.apiSetChatUIThemes)
        case .setLocalDeviceName: .command(name, ChatCommand.setLocalDeviceName)
        case .connectRemoteCtrl: .command(name, ChatCommand.connectRemoteCtrl)
        case .findKnownRemoteCtrl: .constant(.findKnownRemoteCtrl, "/find remote ctrl")
        case .confirmRemoteCtrl: .command(name, ChatCommand.confirmRemoteCtrl)
        case .verifyRemoteCtrlSession: .command(name, ChatCommand.verifyRemoteCtrlSession)
        case .listRemoteCtrls: .constant(.listRemoteCtrls, "/list remote ctrls")
        case .stopRemoteCtrl: .constant(.stopRemoteCtrl, "/stop remote ctrl")
        case .deleteRemoteCtrl: .command(name, ChatCommand.deleteRemoteCtrl)
        case .showVersion: .constant(.showVersion, .literal("/version", aliases: ["/v"]))
        case .getAgentSubsTotal: .command(name, ChatCommand.getAgentSubsTotal)
        case .getAgentServersSummary: .command(name, ChatCommand.getAgentServersSummary)
        case .resetAgentServersStats: .constant(.resetAgentServersStats, "/reset servers stats")
        case .apiCreateMyAddress: .command(name, ChatCommand.apiCreateMyAddress)
        case .apiDeleteMyAddress: .command(name, ChatCommand.apiDeleteMyAddress)
        case .apiShowMyAddress: .command(name, ChatCommand.apiShowMyAddress)
        case .apiAddMyAddressShortLink: .command(name, ChatCommand.apiAddMyAddressShortLink)
        case .apiSetProfileAddress: .command(name, ChatCommand.apiSetProfileAddress)
        case .apiSetAddressSettings: .command(name, ChatCommand.apiSetAddressSettings)
        case .apiGetContactCode: .command(name, ChatCommand.apiGetContactCode)
        case .apiGetGroupMemberCode: .command(name, ChatCommand.apiGetGroupMemberCode)
        case .apiVerifyContact: .command(name, ChatCommand.apiVerifyContact)
        case .apiVerifyGroupMember: .command(name, ChatCommand.apiVerifyGroupMember)
        case .apiSwitchContact: .command(name, ChatCommand.apiSwitchContact)
        case .apiSwitchGroupMember: .command(name, ChatCommand.apiSwitchGroupMember)
        case .apiAbortSwitchContact: .command(name, ChatCommand.apiAbortSwitchContact)
        case .apiAbortSwitchGroupMember: .command(name, ChatCommand.apiAbortSwitchGroupMember)
        case .apiSyncContactRatchet: .command(name, ChatCommand.apiSyncContactRatchet)
        case .apiSyncGroupMemberRatchet: .command(name, ChatCommand.apiSyncGroupMemberRatchet)
        case .apiSendServiceRequest: .command(name, ChatCommand.apiSendServiceRequest)
        case .apiListGroups: .command(name, ChatCommand.apiListGroups)
        case .connect: .command(name, ChatCommand.connect)
        case .apiSetGroupCustomData: .command(name, ChatCommand.apiSetGroupCustomData)
        case .apiSetContactCustomData: .command(name, ChatCommand.apiSetContactCustomData)
        case .apiAddGroupRelays: .command(name, ChatCommand.apiAddGroupRelays)
        case .apiAllowRelayGroup: .command(name, ChatCommand.apiAllowRelayGroup)
        case .apiShareChatMsgContent: .command(name, ChatCommand.apiShareChatMsgContent)
        case .apiShareMyAddress: .command(name, ChatCommand.apiShareMyAddress)
        case .apiVerifyGroupDomain: .command(name, ChatCommand.apiVerifyGroupDomain)
        case .apiSetUserAutoAcceptGroupInvitations: .command(name, ChatCommand.apiSetUserAutoAcceptGroupInvitations)
        case .apiSendServiceResponse: .command(name, ChatCommand.apiSendServiceResponse)
        case .apiArchiveReceivedReports: .command(name, ChatCommand.apiArchiveReceivedReports)
        case .apiDeleteReceivedReports: .command(name, ChatCommand.apiDeleteReceivedReports)
        case .apiSetConditionsNotified: .command(name, ChatCommand.apiSetConditionsNotified)
        case .apiContactQueueInfo: .command(name, ChatCommand.apiContactQueueInfo)
        case .apiGroupMemberQueueInfo: .command(name, ChatCommand.apiGroupMemberQueueInfo)
        case .apiChangeConnectionUser: .command(name, ChatCommand.apiChangeConnectionUser)
        case .apiChangePreparedContactUser: .command(name, ChatCommand.apiChangePreparedContactUser)
        case .apiChangePreparedGroupUser: .command(name, ChatCommand.apiChangePreparedGroupUser)
        case .apiAcceptMemberContact: .command(name, ChatCommand.apiAcceptMemberContact)
        case .apiGroupInfo: .command(name, ChatCommand.apiGroupInfo)
        case .apiGetUpdatedGroupLinkData: .command(name, ChatCommand.apiGetUpdatedGroupLinkData)
        case .apiEnableContact: .command(name, ChatCommand.apiEnableContact)
        case .apiEnableGroupMember: .command(name, ChatCommand.apiEnableGroupMember)
        case .apiUserRead: .command(name, ChatCommand.apiUserRead)
        case .apiTestChatRelay: .command(name, ChatCommand.apiTestChatRelay)
        case .apiGetChatItems: .command(name, ChatCommand.apiGetChatItems)
        case .resubscribeAll: .constant(.resubscribeAll, "/_resubscribe all")
        case .connectionsDiff: .command(name, ChatCommand.connectionsDiff)
        case .apiGetNetworkStatuses: .constant(.apiGetNetworkStatuses, "/_network_statuses")
        case .string, .customChatCommand: nil
        }
    }
}
