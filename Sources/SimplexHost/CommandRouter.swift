internal import ChatModel
internal import SimplexEncoding

/// Routes a command line: the eight remote-control commands to `HostRemoteControl`, everything else to the core —
/// except while a controller is connected, when the local side is locked out as on a phone.
public struct CommandRouter: Sendable {
    public let remoteControl: HostRemoteControl
    public let backend: any ChatBackend
    /// With `--reconnect`: told about the user's remote-control commands, so its automatic search gives way.
    public let reconnector: Reconnector?
    /// The host's own connections to the store, closed around the commands that replace or re-key its files.
    public let storeFiles: HostStoreFiles?

    public init(
        remoteControl: HostRemoteControl, backend: any ChatBackend, reconnector: Reconnector? = nil,
        storeFiles: HostStoreFiles? = nil
    ) {
        self.remoteControl = remoteControl
        self.backend = backend
        self.reconnector = reconnector
        self.storeFiles = storeFiles
    }

    /// A command's FFI envelope with, for a refusal, the reason a person needs (never part of the envelope).
    public struct Answer: Sendable {
        public let envelope: [UInt8]
        public let reason: String?

        public init(envelope: [UInt8], reason: String?) {
            self.envelope = envelope
            self.reason = reason
        }
    }

    /// Runs a line typed locally; returns the FFI envelope.
    public func executeLocal(_ line: String) async -> [UInt8] { await answer(line).envelope }

    /// Runs a line typed locally; returns the FFI envelope and the reason of a remote-control refusal.
    public func answer(_ line: String) async -> Answer {
        let parsed = try? ChatCommand(parsing: line)
        guard let command = parsed, RemotePolicy.remoteControl.contains(command.name) else {
            if await remoteControl.isConnected {
                return Answer(
                    envelope: Envelope.error(
                        .commandError("the host is controlled remotely: stop the remote session first (/stop remote ctrl)")),
                    reason: nil)
            }
            if let parsed, let storeFiles, HostStoreFiles.changesFiles(parsed) {
                return Answer(envelope: await storeFiles.around(parsed) { await backend.execute(line) }, reason: nil)
            }
            return Answer(envelope: await backend.execute(line), reason: nil)
        }
        if command.name != .setLocalDeviceName, let refusal = await backend.remoteControlPrecondition() {
            return Answer(envelope: refusal, reason: nil)
        }
        switch command.name {
        case .connectRemoteCtrl, .findKnownRemoteCtrl, .deleteRemoteCtrl: await reconnector?.userCommand(stop: false)
        case .stopRemoteCtrl: await reconnector?.userCommand(stop: true)
        default: break
        }
        do {
            return Answer(envelope: Envelope.result(try await remoteControlCommand(command)), reason: nil)
        } catch {
            return Answer(envelope: Envelope.error(error), reason: error.reason)
        }
    }

    private func remoteControlCommand(_ command: ChatCommand) async throws(ChatError) -> CanonicalJSON {
        switch command {
        case .setLocalDeviceName(let a): return await remoteControl.setDeviceName(a.displayName)
        case .connectRemoteCtrl(let a): return try await remoteControl.connect(uri: a.xrcpInvitation)
        case .findKnownRemoteCtrl: return try await remoteControl.find()
        case .confirmRemoteCtrl(let a): return try await remoteControl.confirm(id: a.remoteCtrlId)
        case .verifyRemoteCtrlSession(let a): return try await remoteControl.verify(code: a.sessionCode)
        case .listRemoteCtrls: return try await remoteControl.list()
        case .stopRemoteCtrl: return await remoteControl.stop()
        case .deleteRemoteCtrl(let a): return try await remoteControl.delete(id: a.remoteCtrlId)
        default: throw .commandError("not a remote-control command: \(command.name.rawValue)")
        }
    }
}
