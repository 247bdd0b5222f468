// WebRTC calls, chat-api.md §4.8. Calls need a peer; only the (empty) list of invitations is served.
extension ChatController {
    /// `/_call get`: pending call invitations (no `user` field).
    func getCallInvitations() throws(ChatError) -> ChatResponse {
        _ = try requireUser()
        return .callInvitations(callInvitations: [])
    }
}
