public import ChatStore
import Foundation
public import RemoteChat
internal import SimplexCrypto
public import SimplexEncoding
internal import SimplexNet
internal import SimplexTLS
import Synchronization
internal import XRCP

/// Every timeout of the host role (xrcp.md §17), shortened by tests.
public struct RemoteControlTimeouts: Sendable {
    /// TCP connect to the controller.
    public var connect: Double = 15
    /// From TCP connected to TLS up (the session code shown).
    public var tls: Double = 15
    /// From `/verify` to the controller's HELLO.
    public var hello: Double = 15
    /// Multicast discovery.
    public var discovery: Double = 30
    /// TCP keep-alive on the session's connection: a controller that vanished is noticed after idle + interval × probes.
    public var keepAlive = HostConnection.KeepAlive.reference
    public init() {}
}

/// Where and how the host listens for announcements (`--multicast ADDR:PORT`, `--multicast-iface IPV4`).
public struct MulticastSettings: Sendable {
    public var group: String = "224.0.0.251"
    public var port: UInt16 = 5227
    public var interfaceAddress: String?
    public init() {}
}

/// A remote-control event for the host's own UI, with the reason a person needs when it reports a failure (the JSON
/// carries only the reference's tags; the reason goes to the CLI's line and `--json`'s standard error).
public struct RemoteControlEvent: Sendable {
    public let json: CanonicalJSON
    public let reason: String?

    public init(_ json: CanonicalJSON, reason: String? = nil) {
        self.json = json
        self.reason = reason
    }
}

/// The host role's eight remote-control commands (xrcp.md §14), with their responses, events and errors as JSON.
/// One session at a time; events go to `emit` (the host's own UI queue, never the controller).
public actor HostRemoteControl {
    private enum Session {
        case searching(Task<Void, Never>, found: (record: RemoteControllerRecord, invitation: VerifiedInvitation)?)
        case connecting(Attempt)
        case pendingConfirmation(Attempt, code: String)
        case connected(Attempt, code: String, record: RemoteControllerRecord)
    }

    /// One connection attempt to a controller.
    private final class Attempt: @unchecked Sendable {
        // Mutated only on the actor.
        let invitation: VerifiedInvitation
        let known: RemoteControllerRecord?
        let setup: HostSessionSetup
        var connection: HostConnection?
        var established: CheckedContinuation<Bool, Never>?
        var establishedState: Bool?
        var compression = false
        /// `/verify` is in progress: it reports failures itself.
        var verifying = false
        /// The connection ended (possibly while `/verify` was still storing the pairing), and why.
        var ended = false
        var endError: HostSessionError?
        init(invitation: VerifiedInvitation, known: RemoteControllerRecord?, setup: HostSessionSetup) {
            self.invitation = invitation
            self.known = known
            self.setup = setup
        }
    }

    private let store: ChatStoreActor
    private let handler: any RemoteHostHandler
    private let emit: @Sendable (RemoteControlEvent) -> Void
    private let now: @Sendable () -> Int64
    public var timeouts: RemoteControlTimeouts
    public var multicast: MulticastSettings
    public private(set) var deviceName: String
    public var encryptFiles = false
    public var compression = true
    private var session: Session? {
        didSet { connectedNow.withLock { $0 = isConnected } }
    }
    private let connectedNow = Mutex(false)

    public init(
        store: ChatStoreActor, handler: any RemoteHostHandler, deviceName: String = "SimpleX CLI",
        timeouts: RemoteControlTimeouts = RemoteControlTimeouts(), multicast: MulticastSettings = MulticastSettings(),
        now: (@Sendable () -> Int64)? = nil, emit: @escaping @Sendable (RemoteControlEvent) -> Void
    ) {
        self.store = store
        self.handler = handler
        self.deviceName = deviceName
        self.timeouts = timeouts
        self.multicast = multicast
        self.now = now ?? { Int64(Date().timeIntervalSince1970) }
        self.emit = emit
    }

    // MARK: Commands

    /// `/set device name <name>`.
    public func setDeviceName(_ name: String) -> CanonicalJSON {
        deviceName = name
        return Self.cmdOk
    }

    /// `/connect remote ctrl <uri>`: checks the invitation and starts connecting; the session code follows as an event.
    public func connect(uri: String) async throws(ChatError) -> CanonicalJSON {
        guard session == nil else { throw .remoteCtrl(.busy) }
        let verified: VerifiedInvitation
        do { verified = try SignedInvitation.verify(uri: uri) } catch {
            // The reference verifies before it reads the app info, so a legacy-signed link is `badInvitation` too.
            throw ChatError.remoteCtrl(.badInvitation).because(RefusalReasons.invitation(error))
        }
        return try await start(verified)
    }

    /// `/find remote ctrl`: listens for announcements from known controllers.
    public func find() async throws(ChatError) -> CanonicalJSON {
        guard session == nil else { throw .remoteCtrl(.busy) }
        let known: [RemoteControllerRecord]
        do { known = try await store.remoteControllers { (s) throws(PairingStoreError) in try s.all() } } catch {
            throw Self.storeError(error)
        }
        guard !known.isEmpty else { throw .remoteCtrl(.noKnownControllers) }
        let receiver: MulticastReceiver
        do {
            receiver = try MulticastReceiver(
                group: try IPv4Endpoint(multicast.group, multicast.port), interfaceAddress: multicast.interfaceAddress)
        } catch { throw .rcp(.exception("\(error)")) }
        // Every known pairing's current DH key, then its previous one, in table order (xrcp.md §6.3).
        var keys: [X25519.PrivateKey] = []
        var owners: [RemoteControllerRecord] = []
        for record in known {
            keys.append(record.dhKey)
            owners.append(record)
            if let previous = record.previousDHKey {
                keys.append(previous)
                owners.append(record)
            }
        }
        let deadline = Date().addingTimeInterval(timeouts.discovery)
        let task = Task.detached { [weak self, keys, owners] in
            while Date() < deadline, !Task.isCancelled {
                guard let packet = try? receiver.receive(timeout: min(0.5, max(0.01, deadline.timeIntervalSinceNow))) else {
                    continue
                }
                guard
                    let (invitation, index) = try? Announcement.open(
                        packet.bytes, keys: keys, sourceAddress: packet.source.address),
                    invitation.invitation.ca == owners[index].controllerFingerprint
                else { continue }
                await self?.found(owners[index], invitation)
            }
            if !Task.isCancelled { await self?.discoveryEnded() }
        }
        session = .searching(task, found: nil)
        return Self.cmdOk
    }

    /// `/confirm remote ctrl <id>`: connects to the controller found by `/find`.
    public func confirm(id: Int64) async throws(ChatError) -> CanonicalJSON {
        guard case .searching(let task, let found)? = session, let found else { throw .remoteCtrl(.badState) }
        guard found.record.id == id else { throw .remoteCtrl(.badController) }
        task.cancel()
        session = nil
        return try await start(found.invitation)
    }

    /// `/verify remote ctrl <code>`: on a match sends the HELLO and waits for the controller's; stores the pairing.
    public func verify(code: String) async throws(ChatError) -> CanonicalJSON {
        guard let current = session else { throw .remoteCtrl(.inactive) }
        guard case .pendingConfirmation(let attempt, let shown) = current, let connection = attempt.connection else {
            throw .remoteCtrl(.badState)
        }
        attempt.verifying = true
        do { try await connection.verify(code: code) } catch {
            session = nil
            let chatError = Self.chatError(error).because(RefusalReasons.session(error, step: .helloSent))
            stopped(state: Self.pendingState(shown), stopType: "setupFailed", chatError)
            throw chatError
        }
        let ok = await waitEstablished(attempt)
        guard ok, case .pendingConfirmation? = session else {
            let chatError: ChatError
            if let error = attempt.endError {
                chatError = Self.chatError(error).because(RefusalReasons.session(error, step: .helloSent))
            } else if attempt.ended {
                chatError = ChatError.remoteCtrl(.inactive).because(RefusalReasons.closed(at: .helloSent))
            } else {
                chatError = ChatError.remoteCtrl(.timeout).because(
                    "the controller sent no HELLO within \(RefusalReasons.seconds(timeouts.hello)) of ours")
            }
            if case .pendingConfirmation? = session {
                session = nil
                await connection.stop()
                stopped(state: Self.pendingState(shown), stopType: "setupFailed", chatError)
            }
            throw chatError
        }
        let record: RemoteControllerRecord
        do {
            let controller = try attempt.invitation.invitation.appInfo()
            record = try await store.recordControllerSession(
                existing: attempt.known?.id, deviceName: controller.deviceName, authority: attempt.setup.authority,
                fingerprint: attempt.invitation.invitation.ca, identityKey: attempt.invitation.invitation.identityKey,
                dhKey: attempt.setup.dhKey)
        } catch let error as PairingStoreError {
            await connection.stop()
            session = nil
            throw Self.storeError(error)
        } catch {
            await connection.stop()
            session = nil
            throw ChatError.remoteCtrl(.badInvitation).because("the controller's app info does not parse: \(error)")
        }
        session = .connected(attempt, code: shown, record: record)
        if attempt.ended {
            // The connection broke while the pairing was being stored: it is stored, and the session is over.
            session = nil
            emitDisconnected(code: shown)
        }
        return .object([
            "type": .string("remoteCtrlConnected"),
            "remoteCtrl": Self.info(record, state: .object(["type": .string("connected"), "sessionCode": .string(shown)])),
            "compression": .bool(attempt.compression),
        ])
    }

    /// `/list remote ctrls`.
    public func list() async throws(ChatError) -> CanonicalJSON {
        let all: [RemoteControllerRecord]
        do { all = try await store.remoteControllers { (s) throws(PairingStoreError) in try s.all() } } catch {
            throw Self.storeError(error)
        }
        let current: (Int64, CanonicalJSON)? = {
            switch session {
            case .connected(_, let code, let record)?:
                return (record.id, .object(["type": .string("connected"), "sessionCode": .string(code)]))
            case .pendingConfirmation(let a, let code)?:
                return a.known.map { ($0.id, .object(["type": .string("pendingConfirmation"), "sessionCode": .string(code)])) }
            case .connecting(let a)?: return a.known.map { ($0.id, .object(["type": .string("connecting")])) }
            default: return nil
            }
        }()
        return .object([
            "type": .string("remoteCtrlList"),
            "remoteCtrls": .array(all.map { Self.info($0, state: current?.0 == $0.id ? current?.1 : nil) }),
        ])
    }

    /// `/stop remote ctrl`: ends whatever is going on, without a `remoteCtrlStopped` event.
    public func stop() async -> CanonicalJSON {
        let current = session
        session = nil
        switch current {
        case .searching(let task, _)?: task.cancel()
        case .connecting(let a)?, .pendingConfirmation(let a, _)?, .connected(let a, _, _)?:
            a.established?.resume(returning: false)
            a.established = nil
            await a.connection?.stop()
        case nil: break
        }
        return Self.cmdOk
    }

    /// Ends a connected session from the host's side for a reason other than the user's stop (the controller fell
    /// behind on events): the host UI hears `remoteCtrlStopped` with `disconnected`, the only reason the API has
    /// for an established session (xrcp.md §14.3). Returns whether a session was ended.
    @discardableResult
    public func disconnect() async -> Bool {
        guard case .connected(let attempt, let code, _)? = session else { return false }
        session = nil
        await attempt.connection?.stop()
        emitDisconnected(code: code)
        return true
    }

    /// `/delete remote ctrl <id>`.
    public func delete(id: Int64) async throws(ChatError) -> CanonicalJSON {
        guard session == nil else { throw .remoteCtrl(.busy) }
        do { try await store.remoteControllers { (s) throws(PairingStoreError) in try s.delete(id: id) } } catch {
            if case .notFound = error { throw .store(type: "remoteCtrlNotFound", fields: ["remoteCtrlId": .integer(id)]) }
            throw Self.storeError(error)
        }
        return Self.cmdOk
    }

    /// Whether a controller is connected (the local side is then locked out).
    public var isConnected: Bool {
        if case .connected? = session { return true }
        return false
    }

    /// The same, without waiting for the actor: for callers on threads of their own (libsimplex's), which route a
    /// command before deciding whether it needs the actor at all.
    public nonisolated var isConnectedNow: Bool { connectedNow.withLock { $0 } }

    // MARK: Session progress

    private func start(_ verified: VerifiedInvitation) async throws(ChatError) -> CanonicalJSON {
        let invitation = verified.invitation
        let controller: ControllerAppInfo
        do { controller = try invitation.appInfo() } catch {
            throw ChatError.remoteCtrl(.badInvitation).because(
                "the link's app info does not parse: \(RefusalReasons.xrcp(error))")
        }
        guard let appVersion = AppVersionRange.supported.negotiate(with: controller.appVersionRange) else {
            throw ChatError.remoteCtrl(.badVersion(controller.appVersionRange.max)).because(
                RefusalReasons.appVersions(controller: controller.appVersionRange))
        }
        guard invitation.versions.intersection(XRCPVersion.supported) != nil else {
            throw ChatError.rcp(.version).because(
                "the controller speaks XRCP \(invitation.versions), this host \(XRCPVersion.supported): update "
                    + (invitation.versions.min > XRCPVersion.supported.max ? "simplex-host" : "SimpleX on the controller"))
        }
        let known: RemoteControllerRecord?
        do {
            known = try await store.remoteControllers { (s) throws(PairingStoreError) in try s.find(fingerprint: invitation.ca) }
        } catch {
            throw Self.storeError(error)
        }
        if let known, known.identityKey != invitation.identityKey {
            throw ChatError.remoteCtrl(.protocolError(.remoteControl(.identity))).because(
                "the link's identity key (idkey) is not the one paired with \(known.deviceName) (\(known.id)) for its CA: "
                    + "forget that pairing to pair again")
        }
        let time = now()
        let authority: CertificateAuthority
        do { authority = try known?.authority ?? CertificateAuthority.generate(now: time, hoursBefore: 1) } catch {
            throw .rcp(.internal("\(error)"))
        }
        let setup = HostSessionSetup(
            invitation: verified, authority: authority,
            app: HostAppInfo(
                appVersion: appVersion, deviceName: deviceName, encoding: .kotlin, encryptFiles: encryptFiles,
                compression: compression),
            compression: compression, now: time)
        let attempt = Attempt(invitation: verified, known: known, setup: setup)
        session = .connecting(attempt)
        let handler = self.handler
        let timeouts = self.timeouts
        let owner = WeakService(self)
        Task.detached {
            do {
                let connection = try HostConnection(
                    setup: setup, handler: handler, connectTimeout: timeouts.connect, keepAlive: timeouts.keepAlive
                ) { notice in
                    Task { await owner.value?.notice(notice, attempt) }
                }
                await owner.value?.attach(connection, attempt)
            } catch {
                await owner.value?.connectFailed(attempt, error)
            }
        }
        var response: [String: CanonicalJSON] = [
            "type": .string("remoteCtrlConnecting"), "ctrlAppInfo": Self.apiAppInfo(controller),
            "appVersion": .string(AppVersion.current.description),
        ]
        if let known { response["remoteCtrl_"] = Self.info(known, state: .object(["type": .string("connecting")])) }
        return .object(response)
    }

    private func attach(_ connection: HostConnection, _ attempt: Attempt) async {
        guard case .connecting(let a)? = session, a === attempt else {
            await connection.stop()
            return
        }
        attempt.connection = connection
        await connection.run()
        let limit = timeouts.tls
        Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(limit * 1e9))
            await self?.tlsTimeout(attempt)
        }
    }

    private func tlsTimeout(_ attempt: Attempt) async {
        guard case .connecting(let a)? = session, a === attempt else { return }
        session = nil
        await attempt.connection?.stop()
        stopped(
            state: .object(["type": .string("connecting")]), stopType: "connectionFailed",
            ChatError.remoteCtrl(.timeout).because(
                "the TLS handshake with the controller did not finish within \(RefusalReasons.seconds(timeouts.tls))"))
    }

    private func connectFailed(_ attempt: Attempt, _ error: any Error) {
        guard case .connecting(let a)? = session, a === attempt else { return }
        session = nil
        let text: String
        if let net = error as? NetError {
            text = NetDiagnostics.describe(net, controller: attempt.invitation.invitation.host)
        } else {
            text = "\(error)"
        }
        stopped(
            state: .object(["type": .string("connecting")]), stopType: "connectionFailed",
            ChatError.rcp(.exception(text)).because("could not connect: \(text)"))
    }

    private func notice(_ notice: HostConnection.Notice, _ attempt: Attempt) async {
        switch notice {
        case .sessionCode(let code):
            guard case .connecting(let a)? = session, a === attempt else { return }
            session = .pendingConfirmation(attempt, code: code)
            var event: [String: CanonicalJSON] = ["type": .string("remoteCtrlSessionCode"), "sessionCode": .string(code)]
            if let known = attempt.known { event["remoteCtrl_"] = Self.info(known, state: Self.pendingState(code)) }
            emit(RemoteControlEvent(.object(event)))
        case .established(_, let compression):
            attempt.compression = compression
            attempt.establishedState = true
            attempt.established?.resume(returning: true)
            attempt.established = nil
        case .ended(let error):
            attempt.ended = true
            attempt.endError = error
            attempt.establishedState = false
            attempt.established?.resume(returning: false)
            attempt.established = nil
            switch session {
            case .connecting(let a)? where a === attempt:
                session = nil
                if case .tls(.certificateChain(let reason))? = error, reason == .leafNotYetValid || reason == .leafExpired,
                    let hint = NetDiagnostics.clockHint(invitationTime: attempt.invitation.invitation.timestamp, now: now())
                {
                    stopped(
                        state: .object(["type": .string("connecting")]), stopType: "connectionFailed",
                        .rcp(.exception("the controller's certificate is not valid at this time: \(hint)")))
                    return
                }
                stopped(
                    state: .object(["type": .string("connecting")]), stopType: "connectionFailed",
                    Self.ended(error, at: .tlsHandshake))
            case .pendingConfirmation(let a, let code)? where a === attempt && !attempt.verifying:
                session = nil
                stopped(state: Self.pendingState(code), stopType: "connectionFailed", Self.ended(error, at: .codeShown))
            case .connected(let a, let code, _)? where a === attempt:
                session = nil
                emitDisconnected(code: code)
            default:
                break  // stopped by the user: no event
            }
        }
    }

    private func waitEstablished(_ attempt: Attempt) async -> Bool {
        if let done = attempt.establishedState { return done }
        let limit = timeouts.hello
        Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(limit * 1e9))
            await self?.helloTimeout(attempt)
        }
        return await withCheckedContinuation { attempt.established = $0 }
    }

    private func helloTimeout(_ attempt: Attempt) {
        attempt.established?.resume(returning: false)
        attempt.established = nil
    }

    private func found(_ record: RemoteControllerRecord, _ invitation: VerifiedInvitation) {
        guard case .searching(let task, nil)? = session else { return }
        session = .searching(task, found: (record, invitation))
        let app = try? invitation.invitation.appInfo()
        var event: [String: CanonicalJSON] = [
            "type": .string("remoteCtrlFound"), "remoteCtrl": Self.info(record, state: .object(["type": .string("searching")])),
            "appVersion": .string(AppVersion.current.description),
            "compatible": .bool(app.flatMap { AppVersionRange.supported.negotiate(with: $0.appVersionRange) } != nil),
        ]
        if let app { event["ctrlAppInfo_"] = Self.apiAppInfo(app) }
        emit(RemoteControlEvent(.object(event)))
    }

    private func discoveryEnded() {
        guard case .searching(_, nil)? = session else { return }
        session = nil
        stopped(
            state: .object(["type": .string("searching")]), stopType: "discoveryFailed",
            ChatError.rcp(.notDiscovered).because(
                "no known controller's announcement arrived within \(RefusalReasons.seconds(timeouts.discovery))"))
    }

    private func emitDisconnected(code: String) {
        emit(
            RemoteControlEvent(
                .object([
                    "type": .string("remoteCtrlStopped"),
                    "rcsState": .object(["type": .string("connected"), "sessionCode": .string(code)]),
                    "rcStopReason": .object(["type": .string("disconnected")]),
                ])))
    }

    private func stopped(state: CanonicalJSON, stopType: String, _ error: ChatError) {
        emit(
            RemoteControlEvent(
                .object([
                    "type": .string("remoteCtrlStopped"), "rcsState": state,
                    "rcStopReason": .object(["type": .string(stopType), "chatError": error.json]),
                ]), reason: error.reason))
    }

    /// The connection ended before the session was up: the error it ended with, or `inactive` for a plain close, with
    /// the step it ended at.
    private static func ended(_ error: HostSessionError?, at step: RefusalReasons.Step) -> ChatError {
        guard let error else { return ChatError.remoteCtrl(.inactive).because(RefusalReasons.closed(at: step)) }
        return chatError(error).because(RefusalReasons.session(error, step: step))
    }

    // MARK: JSON

    static let cmdOk = CanonicalJSON.object(["type": .string("cmdOk")])

    static func pendingState(_ code: String) -> CanonicalJSON {
        .object(["type": .string("pendingConfirmation"), "sessionCode": .string(code)])
    }

    /// `RemoteCtrlInfo`.
    static func info(_ record: RemoteControllerRecord, state: CanonicalJSON?) -> CanonicalJSON {
        var fields: [String: CanonicalJSON] = ["remoteCtrlId": .integer(record.id), "ctrlDeviceName": .string(record.deviceName)]
        if let state { fields["sessionState"] = state }
        return .object(fields)
    }

    /// `CtrlAppInfo` as the chat API shows it.
    static func apiAppInfo(_ app: ControllerAppInfo) -> CanonicalJSON { app.json }

    static func chatError(_ error: HostSessionError) -> ChatError {
        switch error {
        case .sessionCode: return .remoteCtrl(.protocolError(.sessionCode))
        case .xrcp(let e): return .rcp(e)
        case .tls(.identity): return .rcp(.identity)
        case .tls(.alertReceived(let alert)) where alert == .unknownCA: return .rcp(.identity)
        case .tls(let e): return .rcp(.exception("\(e)"))
        case .http2(let e): return .rcp(.exception("\(e)"))
        case .invalidState: return .remoteCtrl(.badState)
        }
    }

    static func storeError(_ error: PairingStoreError) -> ChatError {
        switch error {
        case .notFound(let id): return .store(type: "remoteCtrlNotFound", fields: ["remoteCtrlId": .integer(id)])
        case .sql(let e): return .store(type: "dBException", fields: ["message": .string(e.message)])
        case .corrupt(let s): return .store(type: "dBException", fields: ["message": .string(s)])
        }
    }

}

/// A weak reference that notification closures can carry without keeping the service alive.
private final class WeakService: @unchecked Sendable {
    weak var value: HostRemoteControl?
    init(_ value: HostRemoteControl) { self.value = value }
}
