// Diagnostics, chat-api.md §4.15. With no network the agent figures are honest zeros.
internal import ChatModel
internal import ChatStore

extension ChatController {
    /// `/version`, `/v`: the core's version and the migrations applied to both databases.
    func showVersion() throws(ChatError) -> ChatResponse {
        do {
            return .versionInfo(
                versionInfo: configuration.coreVersion, chatMigrations: try Migrator.appliedMigrations(databases.chat),
                agentMigrations: try Migrator.appliedMigrations(databases.agent))
        } catch {
            throw .database(error)
        }
    }

    /// `/get subs total <userId>`: no connections, so nothing active or pending, and no server session.
    func getAgentSubsTotal(_ a: ChatCommand.GetAgentSubsTotal) throws(ChatError) -> ChatResponse {
        .agentSubsTotal(
            user: try requireStartedUser(a.userId), subsTotal: SMPServerSubs(ssActive: 0, ssPending: 0), hasSession: false)
    }

    /// `/get servers summary <userId>`: no servers used.
    func getAgentServersSummary(_ a: ChatCommand.GetAgentServersSummary) throws(ChatError) -> ChatResponse {
        .agentServersSummary(
            user: try requireStartedUser(a.userId), serversSummary: PresentedServersSummary(statsStartedAt: statsStartedAt))
    }

    /// `/reset servers stats`: there are no statistics to reset.
    func resetAgentServersStats() throws(ChatError) -> ChatResponse {
        .cmdOk(user: nil)
    }

    /// `/_connections diff[ show_ids=on|off]`: the users and connections the chat database and the agent's disagree
    /// on (`compareConnections`), compared without a user check. Both have the same users and no connections.
    func connectionsDiff(_ a: ChatCommand.ConnectionsDiff) throws(ChatError) -> ChatResponse {
        .connectionsDiff(showIds: a.showIds, userIds: DatabaseDiff(), connIds: DatabaseDiff())
    }
}
