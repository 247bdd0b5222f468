// Network configuration, chat-api.md §4.10. The embedded core has no agent and no servers: it keeps the configuration
// in memory for `/network`, as the agent keeps it (clients send it again at every start), and reconnecting reconnects
// nothing because nothing is connected.
internal import ChatModel

extension ChatController {
    /// `/_network <json(NetworkConfig)>`: needs a user (the core's `withUser'`), not a started chat.
    func setNetworkConfig(_ a: ChatCommand.APISetNetworkConfig) throws(ChatError) -> ChatResponse {
        _ = try requireUser()
        networkConfig = try NetworkConfig(JSONInput(parsing: a.networkConfig))
        return .cmdOk(user: nil)
    }

    /// `/network`, `/net`: the configuration last set, else the defaults.
    func getNetworkConfig() throws(ChatError) -> ChatResponse {
        _ = try requireUser()
        return .networkConfig(networkConfig: networkConfig)
    }

    /// `/reconnect`: there are no server connections to drop and open again.
    func reconnectAllServers() throws(ChatError) -> ChatResponse {
        _ = try requireUser()
        return .cmdOk(user: nil)
    }

    /// `/reconnect <userId> <smpServer>`: there is no connection to that server to reconnect.
    func reconnectServer(_ a: ChatCommand.ReconnectServer) throws(ChatError) -> ChatResponse {
        _ = try requireStartedUser(a.userId)
        return .cmdOk(user: nil)
    }

    /// `/_resubscribe all`: subscribes every user's connections again, checking no user or chat state first
    /// (`ResubscribeAllConnections`); there are no connections.
    func resubscribeAll() throws(ChatError) -> ChatResponse {
        .cmdOk(user: nil)
    }

    /// `/_network_statuses`: the network status of each connection (`connNetworkStatuses`): none.
    func getNetworkStatuses() throws(ChatError) -> ChatResponse {
        _ = try requireStartedUser()
        return .networkStatuses(user: nil, networkStatuses: [])
    }
}
