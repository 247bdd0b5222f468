public import ChatStore
public import Foundation
internal import SimplexEncoding

/// The host role wired over a core: the event router, the session bridge, the remote-control service, the command
/// router and, when asked, the reconnector — the same for `simplex-host` and for libsimplex, each saying where events
/// go and which core runs the commands.
public final class HostWiring: Sendable {
    /// How the host role is set up.
    public struct Settings: Sendable {
        public var deviceName: String
        public var timeouts = RemoteControlTimeouts()
        public var multicast = MulticastSettings()
        /// Events a controller may leave unfetched before its session ends (`--event-queue`).
        public var eventQueue = 4096
        /// `--reconnect`: search for known controllers whenever no session is up.
        public var reconnect = false

        public init(deviceName: String) { self.deviceName = deviceName }
    }

    /// What the host tells its own side.
    public struct Output: Sendable {
        /// A core event while no controller is connected (an FFI envelope); it may wait for room.
        public var coreEvent: @Sendable ([UInt8]) async -> Void
        /// A remote-control event (xrcp.md §14.3).
        public var remoteEvent: @Sendable (RemoteControlEvent) -> Void
        /// The envelope of a command the reconnector ran on the user's behalf.
        public var automaticResponse: @Sendable (CommandRouter.Answer) -> Void
        /// The controller fell behind on events and its session was ended.
        public var controllerTooSlow: @Sendable (Int) -> Void

        public init(
            coreEvent: @escaping @Sendable ([UInt8]) async -> Void,
            remoteEvent: @escaping @Sendable (RemoteControlEvent) -> Void,
            automaticResponse: @escaping @Sendable (CommandRouter.Answer) -> Void = { _ in },
            controllerTooSlow: @escaping @Sendable (Int) -> Void = { _ in }
        ) {
            self.coreEvent = coreEvent
            self.remoteEvent = remoteEvent
            self.automaticResponse = automaticResponse
            self.controllerTooSlow = controllerTooSlow
        }
    }

    public let events: EventRouter
    public let remoteControl: HostRemoteControl
    public let reconnector: Reconnector?
    public let router: CommandRouter
    private let eventTask: Task<Void, Never>
    private let remoteEventTask: Task<Void, Never>

    /// `store` holds the pairings; `storeFiles` closes its connections around the commands that replace the store's
    /// files; `filesFolder` is where a controller's uploads go and downloads come from (nil: none set yet);
    /// `controller` serves the controller role's commands beside the host's.
    public init(
        backend: any ChatBackend, store: ChatStoreActor, storeFiles: HostStoreFiles?,
        filesFolder: @escaping @Sendable () async -> URL?, controller: ControllerRemoteControl? = nil, settings: Settings,
        output: Output
    ) {
        let box = ServiceBox()
        let queueBound = settings.eventQueue
        let events = EventRouter(
            backend: backend, remoteBound: queueBound, isRemoteConnected: { box.remoteControl?.isConnectedNow ?? false },
            endRemoteSession: {
                if await box.remoteControl?.disconnect() == true { output.controllerTooSlow(queueBound) }
            },
            local: output.coreEvent)
        self.events = events
        let bridge = SessionBridge(backend: backend, events: events, filesFolder: filesFolder)
        // Remote-control events reach the reconnector in the order they happen, after the user has seen them.
        let (remoteEvents, remoteContinuation) = AsyncStream.makeStream(of: CanonicalJSON.self)
        let remoteControl = HostRemoteControl(
            store: store, handler: bridge, deviceName: settings.deviceName, timeouts: settings.timeouts,
            multicast: settings.multicast,
            emit: { event in
                output.remoteEvent(event)
                remoteContinuation.yield(event.json)
            })
        self.remoteControl = remoteControl
        box.remoteControl = remoteControl
        let reconnector =
            settings.reconnect ? Reconnector(remoteControl: remoteControl, report: output.automaticResponse) : nil
        self.reconnector = reconnector
        router = CommandRouter(
            remoteControl: remoteControl, backend: backend, reconnector: reconnector, storeFiles: storeFiles,
            controller: controller)
        eventTask = Task.detached { await events.run() }
        remoteEventTask = Task.detached {
            for await event in remoteEvents { await reconnector?.observe(event) }
        }
    }

    /// Ends a session and stops the event loops (a signal, the end of input, the subcommand done).
    public func shutdown() async {
        await reconnector?.userCommand(stop: true)
        _ = await remoteControl.stop()
        await router.controller?.stopAll()
        eventTask.cancel()
        remoteEventTask.cancel()
    }
}

/// Lets closures made before the service exists reach it.
private final class ServiceBox: @unchecked Sendable {
    // Set once, before any command runs.
    var remoteControl: HostRemoteControl?
}
