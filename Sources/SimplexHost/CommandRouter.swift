public import ChatModel
internal import SimplexEncoding

/// Routes a command line: the eight remote-control commands to `HostRemoteControl`, the controller role's commands to
/// `ControllerRemoteControl` where this core plays that role too (libsimplex), everything else to the core — except
/// while a controller is connected, when the local side is locked out as on a phone.
public struct CommandRouter: Sendable {
    public let remoteControl: HostRemoteControl
    public let backend: any ChatBackend
    /// With `--reconnect`: told about the user's remote-control commands, so its automatic search gives way.
    public let reconnector: Reconnector?
    /// The host's own connections to the store, closed around the commands that replace or re-key its files.
    public let storeFiles: HostStoreFiles?
    /// The controller role (xrcp.md §15), for a core that is a host and a controller at once.
    public let controller: ControllerRemoteControl?

    public init(
        remoteControl: HostRemoteControl, backend: any ChatBackend, reconnector: Reconnector? = nil,
        storeFiles: HostStoreFiles? = nil, controller: ControllerRemoteControl? = nil
    ) {
        self.remoteControl = remoteControl
        self.backend = backend
        self.reconnector = reconnector
        self.storeFiles = storeFiles
        self.controller = controller
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

    /// Where a line goes.
    public enum Route: Sendable {
        /// One of the host role's eight commands (xrcp.md §14).
        case remoteControl(ChatCommand)
        /// One of the controller role's commands (xrcp.md §15.1).
        case controller(ControllerCommand)
        /// A command that replaces or re-keys the store's files, run with the host's connections to them closed.
        case storeFiles(ChatCommand)
        /// The core's: parsed, or a line no grammar accepts, which the core refuses itself.
        case core(ChatCommand?)
    }

    /// Where `line` goes. Only `core` lines may run without this router (libsimplex runs them on its caller's thread),
    /// and only while no controller is connected.
    public func route(_ line: String) -> Route {
        if let parsed = try? ChatCommand(parsing: line) {
            if RemotePolicy.remoteControl.contains(parsed.name) { return .remoteControl(parsed) }
            if storeFiles != nil, HostStoreFiles.changesFiles(parsed) { return .storeFiles(parsed) }
            return .core(parsed)
        }
        if controller != nil, let command = try? ControllerCommand(parsing: line) { return .controller(command) }
        return .core(nil)
    }

    /// What the local side gets while a controller is connected.
    public static let lockedOut = Envelope.error(
        .commandError("the host is controlled remotely: stop the remote session first (/stop remote ctrl)"))

    /// Runs a line typed locally; returns the FFI envelope.
    public func executeLocal(_ line: String) async -> [UInt8] { await answer(line).envelope }

    /// Runs a line typed locally; returns the FFI envelope and the reason of a remote-control refusal.
    public func answer(_ line: String) async -> Answer {
        let route = route(line)
        if case .remoteControl(let command) = route { return await remoteControlAnswer(command) }
        if await remoteControl.isConnected { return Answer(envelope: Self.lockedOut, reason: nil) }
        switch route {
        case .remoteControl, .core: return Answer(envelope: await backend.execute(line), reason: nil)
        case .storeFiles(let command):
            guard let storeFiles else { return Answer(envelope: await backend.execute(line), reason: nil) }
            return Answer(envelope: await storeFiles.around(command) { await backend.execute(line) }, reason: nil)
        case .controller(let command):
            guard let controller else { return Answer(envelope: await backend.execute(line), reason: nil) }
            do { return Answer(envelope: Envelope.result(try await controller.run(command)), reason: nil) } catch {
                return Answer(envelope: Envelope.error(error), reason: error.reason)
            }
        }
    }

    private func remoteControlAnswer(_ command: ChatCommand) async -> Answer {
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
        case .setLocalDeviceName(let a):
            // One device name for both roles, as the core keeps one.
            _ = try? await controller?.run(.setLocalDeviceName(a.displayName))
            return await remoteControl.setDeviceName(a.displayName)
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
