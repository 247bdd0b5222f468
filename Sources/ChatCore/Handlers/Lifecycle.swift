// Chat lifecycle, chat-api.md §4.2, with the pre-start rules of §10.3: file paths and local file encryption are set
// before `/_start`; starting needs a user; activation needs a started chat.
internal import ChatModel
internal import Foundation

extension ChatController {
    /// `/_start[ main=on|off[ snd_files=on|off]]`: `chatRunning` when already started. The embedded core has no agent
    /// to start, so starting opens the door to the commands that need a running chat and starts the item expiry.
    func startChat(_ a: ChatCommand.StartChat) throws(ChatError) -> ChatResponse {
        _ = try requireUser()
        if running { return .chatRunning }
        try requireStoreNotChanged()
        running = true
        activated = true
        startExpiry()
        return .chatStarted
    }

    /// `/_check running`.
    func checkChatRunning() throws(ChatError) -> ChatResponse {
        running ? .chatRunning : .chatStopped
    }

    /// `/_stop`: never fails; the item expiry stops after its current batch.
    func stopChat() throws(ChatError) -> ChatResponse {
        running = false
        expiry.setAll(false)
        return .chatStopped
    }

    /// `/_app activate[ restore=on|off]`.
    func activateChat(_ a: ChatCommand.APIActivateChat) throws(ChatError) -> ChatResponse {
        _ = try requireStartedUser()
        activated = true
        if a.restoreChat { expiry.setAll(true) }
        return .cmdOk(user: nil)
    }

    /// `/_app suspend <n>`: nothing is in flight, so the suspension completes at once and `chatSuspended` follows.
    func suspendChat(_ a: ChatCommand.APISuspendChat) throws(ChatError) -> ChatResponse {
        activated = false
        expiry.setAll(false)
        emit(.chatSuspended)
        return .cmdOk(user: nil)
    }

    /// `/set file paths <json(AppFilePathsConfig)>`: each folder is created, then remembered, in the core's order.
    func setAppFilePaths(_ a: ChatCommand.APISetAppFilePaths) throws(ChatError) -> ChatResponse {
        let config = try JSONInput(parsing: a.filePaths).object()
        let files = try config.string("appFilesFolder")
        let temp = try config.string("appTempFolder")
        let assets = try config.string("appAssetsFolder")
        let remoteHosts = try config.optionalString("appRemoteHostsFolder")
        try createFolder(files)
        filesFolder = files
        try createFolder(temp)
        tempFolder = temp
        try createFolder(assets)
        assetsFolder = assets
        if let remoteHosts {
            try createFolder(remoteHosts)
            remoteHostsFolder = remoteHosts
        }
        return .cmdOk(user: nil)
    }

    /// `/_files_encrypt on|off`.
    func setEncryptLocalFiles(_ a: ChatCommand.APISetEncryptLocalFiles) throws(ChatError) -> ChatResponse {
        encryptLocalFiles = a.enable
        return .cmdOk(user: nil)
    }

    /// `createDirectoryIfMissing True`: a failure is the core's `exception` with the system's message.
    private func createFolder(_ path: String) throws(ChatError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .error(.exception("\(path): createDirectory: \(error.localizedDescription)"))
        }
    }
}
