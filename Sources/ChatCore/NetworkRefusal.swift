public import ChatModel

/// The commands that need a network peer to act — contacts and their links, addresses, group invitations and links,
/// files over relays, calls, push tokens, queue rotation, ratchet sync, service requests and directory search, chat
/// relay tests. The embedded core has no network yet, so each returns one error, the refusal below, and never a pretended
/// success. This list alone decides which commands are refused; NetworkRefusalTests walks every command against it.
public enum NetworkRefusal {
    public static let commands: Set<CommandName> = [
        // §4.4 contacts and connections
        .apiAddContact, .apiConnect, .apiConnectPlan, .apiConnectPreparedContact, .apiConnectPreparedGroup,
        .apiConnectContactViaAddress, .apiAcceptContact, .connect, .apiAcceptMemberContact, .apiChangeConnectionUser,
        .apiContactQueueInfo, .apiGroupMemberQueueInfo,
        // §4.4 prepared chats: a contact or group made from a link's data (fetched by `/_connect plan`) to be connected
        // over the network later. It stands for the peer behind the link — the contact, or the group's host member —
        // and the embedded core holds no peers: it has no contacts, and the user is a local group's only member.
        .apiPrepareContact, .apiPrepareGroup,
        // §4.5 group invitations, links and relays
        .apiNewPublicGroup, .apiAddMember, .apiJoinGroup, .apiCreateGroupLink, .apiAddGroupShortLink,
        .apiCreateMemberContact, .apiSendMemberContactInvitation, .apiAddGroupRelays, .apiAllowRelayGroup,
        .apiGetUpdatedGroupLinkData, .apiVerifyGroupDomain,
        // §4.7 files over relays
        .receiveFile, .apiUploadStandaloneFile, .apiDownloadStandaloneFile,
        // §4.8 calls
        .apiSendCallInvitation, .apiRejectCall, .apiSendCallOffer, .apiSendCallAnswer, .apiSendCallExtraInfo, .apiEndCall,
        .apiCallStatus,
        // §4.9 push tokens and notification servers
        .apiGetNtfToken, .apiRegisterToken, .apiVerifyToken, .apiCheckToken, .apiDeleteToken, .apiGetNtfConns,
        .apiGetConnNtfMessages,
        // §4.12 chat relay tests (`/_server test` is served: `Handlers/ServerTests.swift`)
        .apiTestChatRelay,
        // §4.16 addresses
        .apiCreateMyAddress, .apiAddMyAddressShortLink, .apiSetProfileAddress, .apiSetAddressSettings,
        // §4.17 queue rotation and ratchet sync
        .apiSwitchContact, .apiSwitchGroupMember, .apiAbortSwitchContact, .apiAbortSwitchGroupMember,
        .apiSyncContactRatchet, .apiSyncGroupMemberRatchet,
        // §4.18 service requests (directory search)
        .apiSendServiceRequest, .apiSendServiceResponse,
    ]

    /// The refusal: `commandError` naming the command.
    public static func error(_ name: CommandName) -> ChatError {
        .error(.commandError("\(name.rawValue) needs a network peer, and the embedded core has no network yet"))
    }

    /// The answer to a command the embedded core does not serve (distinct from the refusal). Every core command is
    /// served or refused but the eight remote-control commands of §4.14, which the host serves above the core.
    public static func notServed(_ name: CommandName) -> ChatError {
        .error(.commandError("not served by the embedded core yet: \(name.rawValue)"))
    }
}
