public import ChatModel
public import ChatStore
public import Foundation
internal import RemoteChat
internal import SimplexCrypto
public import SimplexEncoding
public import SimplexNet
internal import XRCP

/// Every wait and rate of the controller role (xrcp.md §6.1, §9.7, §17), shortened by tests.
public struct ControllerTimeouts: Sendable {
    /// From `/start remote host` until a host finished TLS.
    public var connect: Double = 60
    /// From the session code until the host's HELLO.
    public var hello: Double = 60
    /// The `wait` of each event long-poll, in microseconds.
    public var pollWait: Int64 = 10_000_000
    /// Multicast announcements: how many, how far apart.
    public var announceCount = Announcer.defaultCount
    public var announceInterval = Announcer.defaultInterval
    public init() {}
}

/// Where the controller announces to known hosts (`--multicast ADDR:PORT`, `--multicast-iface IPV4`); the interface
/// address defaults to the invitation's, which hosts check against the packet's source (xrcp.md §6.3).
public struct AnnounceSettings: Sendable {
    public var group: String = Announcer.defaultGroup
    public var port: UInt16 = Announcer.defaultPort
    public var interfaceAddress: String?
    public init() {}
}

/// How an upload or download is going: bytes moved so far of the whole.
public typealias TransferProgress = @Sendable (_ done: UInt64, _ total: UInt64) -> Void

/// The controller role's commands (xrcp.md §15) with their responses, events and errors as JSON, and the command and
/// event pump of each session: one session per host key (`new` until the host is stored), commands of the current
/// host forwarded with `send`, its events delivered with its `remoteHostId`. Events go to `emit` as FFI envelopes.
public actor ControllerRemoteControl {
    private enum SessionState {
        case starting
        case connecting(invitation: String)
        case pendingConfirmation(code: String)
        case confirmed(code: String)
        case connected(code: String)

        var json: CanonicalJSON {
            switch self {
            case .starting: return .object(["type": .string("starting")])
            case .connecting(let invitation):
                return .object(["type": .string("connecting"), "invitation": .string(invitation)])
            case .pendingConfirmation(let code):
                return .object(["type": .string("pendingConfirmation"), "sessionCode": .string(code)])
            case .confirmed(let code): return .object(["type": .string("confirmed"), "sessionCode": .string(code)])
            case .connected(let code): return .object(["type": .string("connected"), "sessionCode": .string(code)])
            }
        }
    }

    /// One session with a host. Mutated only on the actor.
    private final class HostSession: @unchecked Sendable {
        var key: RemoteHostKey
        var record: RemoteHostRecord?
        let authority: CertificateAuthority
        let identityKey: Ed25519.PrivateKey
        let binding: RemoteHostBinding
        var connection: ControllerConnection?
        var state = SessionState.starting
        var host: HostAppInfo?

        init(
            key: RemoteHostKey, record: RemoteHostRecord?, authority: CertificateAuthority, identityKey: Ed25519.PrivateKey,
            binding: RemoteHostBinding
        ) {
            self.key = key
            self.record = record
            self.authority = authority
            self.identityKey = identityKey
            self.binding = binding
        }

        var isConnected: Bool {
            if case .connected = state { return true }
            return false
        }
    }

    /// What a connection reports, kept in order through one stream per session.
    private enum Input: Sendable {
        case notice(ControllerConnection.Notice)
        case event(Result<[UInt8], ControllerConnectionError>)
    }

    private let store: ChatStoreActor
    private let emit: @Sendable (CanonicalJSON) -> Void
    private let addresses: @Sendable () -> [LocalAddress]
    private let now: @Sendable () -> Int64
    public var timeouts: ControllerTimeouts
    public var announce: AnnounceSettings
    public private(set) var deviceName: String
    /// Whether to offer zstd bodies (xrcp.md §9.6).
    public var compression = true
    /// The base of the per-host cache folders (`/remote_hosts_folder`).
    public private(set) var remoteHostsFolder: URL
    /// The host that command lines go to (`/switch remote host`); nil: here.
    public private(set) var currentRemoteHost: Int64?
    private var sessions: [HostSession] = []

    /// `addresses` lists the machine's IPv4 addresses (tests give their own); `emit` hears the controller's events and
    /// the hosts' as FFI envelopes (`{"result": …}`, `{"remoteHostId": n, "result": …}`).
    public init(
        store: ChatStoreActor, deviceName: String, remoteHostsFolder: URL,
        timeouts: ControllerTimeouts = ControllerTimeouts(), announce: AnnounceSettings = AnnounceSettings(),
        compression: Bool = true, addresses: @escaping @Sendable () -> [LocalAddress] = LocalAddresses.system,
        now: (@Sendable () -> Int64)? = nil,
        emit: @escaping @Sendable (CanonicalJSON) -> Void
    ) {
        self.store = store
        self.deviceName = deviceName
        self.remoteHostsFolder = remoteHostsFolder
        self.timeouts = timeouts
        self.announce = announce
        self.compression = compression
        self.addresses = addresses
        self.now = now ?? { Int64(Date().timeIntervalSince1970) }
        self.emit = emit
    }

    // MARK: Command lines

    /// Runs a line as the terminal CLI does: controller commands here; with a current host, every other line on it
    /// (those of xrcp.md §15.4 refused with `localCommand`); without one, an error naming what to do.
    public func execute(_ line: String, progress: TransferProgress? = nil) async -> CanonicalJSON {
        if let command = try? ControllerCommand(parsing: line) {
            do { return Self.result(try await run(command, progress: progress)) } catch { return Self.failure(error) }
        }
        guard let id = currentRemoteHost else {
            return Self.failure(
                .commandError(
                    "this controller runs no chat of its own: connect a host (/start remote host new) and switch to it (/switch remote host <id>)"
                ))
        }
        return await send(line, to: id)
    }

    /// Runs a chat command line on a connected host (`send`), as the UI API does with a remote host id.
    public func send(_ line: String, to id: Int64) async -> CanonicalJSON {
        if let command = try? ChatCommand(parsing: line), RemotePolicy.neverForwarded.contains(command.name) {
            return Self.failure(.remoteHost(.id(id), .localCommand), remoteHostId: id)
        }
        if (try? ControllerCommand(parsing: line)) != nil {
            return Self.failure(.remoteHost(.id(id), .localCommand), remoteHostId: id)
        }
        let session: HostSession
        do { session = try connected(id) } catch { return Self.failure(error, remoteHostId: id) }
        guard let connection = session.connection else { return Self.failure(.remoteHost(.id(id), .badState)) }
        do {
            let raw = try await connection.send(line)
            return Self.fromHost(raw, session.host, remoteHostId: id)
        } catch {
            return Self.failure(Self.chatError(error, key: .id(id)), remoteHostId: id)
        }
    }

    /// One controller command.
    public func run(_ command: ControllerCommand, progress: TransferProgress? = nil) async throws(ChatError) -> CanonicalJSON {
        switch command {
        case .setLocalDeviceName(let name):
            deviceName = name
            return Self.cmdOk
        case .listRemoteHosts: return try await list()
        case .startRemoteHost(let a): return try await start(a)
        case .switchRemoteHost(let id): return try switchTo(id)
        case .stopRemoteHost(let key): return try await stop(key)
        case .deleteRemoteHost(let id): return try await delete(id)
        case .storeRemoteFile(let a): return try await storeFile(a, progress: progress)
        case .getRemoteFile(let a): return try await getFile(a, progress: progress)
        case .setRemoteHostsFolder(let path):
            remoteHostsFolder = URL(fileURLWithPath: path)
            return Self.cmdOk
        }
    }

    // MARK: Commands

    /// `/list remote hosts`.
    public func list() async throws(ChatError) -> CanonicalJSON {
        let all: [RemoteHostRecord]
        do { all = try await store.remoteHosts { (s) throws(PairingStoreError) in try s.all() } } catch {
            throw Self.storeError(error)
        }
        return .object([
            "type": .string("remoteHostList"),
            "remoteHosts": .array(all.map { record in Self.info(record, state: session(.id(record.id))?.state) }),
        ])
    }

    /// `/start remote host new|<id> …`: makes the invitation and listens; the session code and the connection follow as
    /// events.
    public func start(_ a: ControllerCommand.StartRemoteHost) async throws(ChatError) -> CanonicalJSON {
        let key: RemoteHostKey = a.remoteHostId.map(RemoteHostKey.id) ?? .new
        guard session(key) == nil else { throw .remoteHost(key, .busy) }
        var record: RemoteHostRecord?
        if let id = a.remoteHostId {
            do { record = try await store.remoteHosts { (s) throws(PairingStoreError) in try s.find(id: id) } } catch {
                throw Self.storeError(error)
            }
            guard record != nil else { throw Self.notFound(id) }
        } else if a.multicast {
            throw .rcp(.newController)
        }
        var port: UInt16?
        if let p = a.port {
            guard let valid = UInt16(exactly: p) else { throw .commandError("port=\(p): a TCP port is 0 to 65535") }
            port = valid
        }
        var binding = RemoteHostBinding(address: a.address?.address, interface: a.address?.interface, port: port)
        // A known host keeps the address and port it was last started with unless the user names others.
        if let stored = record?.binding {
            if a.address == nil {
                binding.address = stored.address
                binding.interface = stored.interface
            }
            if a.port == nil { binding.port = stored.port }
        }
        let local = LocalAddresses.ordered(
            addresses(), preferredAddress: binding.address, preferredInterface: binding.interface)
        guard let chosen = local.first else { throw .rcp(.noLocalAddress) }
        let time = now()
        let authority: CertificateAuthority
        let identityKey: Ed25519.PrivateKey
        if let record {
            authority = record.authority
            identityKey = record.identityKey
        } else {
            do { authority = try CertificateAuthority.generate(now: time, hoursBefore: 1) } catch {
                throw .rcp(.internal("\(error)"))
            }
            identityKey = Ed25519.PrivateKey()
        }
        let session = HostSession(
            key: key, record: record, authority: authority, identityKey: identityKey, binding: binding)
        let (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
        let connection: ControllerConnection
        do {
            connection = try ControllerConnection(
                authority: authority, identityKey: identityKey, knownHost: record?.hostFingerprint,
                app: ControllerAppInfo(deviceName: deviceName, compression: compression), address: chosen.address,
                port: port ?? 0, now: time,
                settings: ControllerConnectionSettings(
                    connectTimeout: timeouts.connect, helloTimeout: timeouts.hello, pollWait: timeouts.pollWait),
                notify: { continuation.yield(.notice($0)) }, events: { continuation.yield(.event($0)) })
        } catch {
            continuation.finish()
            throw .rcp(.tlsStartFailed)
        }
        session.connection = connection
        // Before anything can be heard from the host: its session code may come while this command still runs.
        session.state = .connecting(invitation: connection.invitation.uri)
        sessions.append(session)
        Task { [weak self] in
            for await input in inputs {
                guard let self else { return }
                if await self.handle(input, session) { break }
            }
        }
        await connection.run()
        let invitation = connection.invitation.uri
        if a.multicast, let record {
            do {
                let group = try IPv4Endpoint(announce.group, announce.port)
                try await connection.announce(
                    to: record.hostDHKey, group: group, interfaceAddress: announce.interfaceAddress,
                    count: timeouts.announceCount, interval: timeouts.announceInterval)
            } catch {
                sessions.removeAll { $0 === session }
                await connection.stop()
                throw .rcp(.exception("multicast: \(error)"))
            }
        }
        var response: [String: CanonicalJSON] = [
            "type": .string("remoteHostStarted"), "invitation": .string(invitation),
            "ctrlPort": .string(String(connection.endpoint.port)),
            "localAddrs": .array(
                local.map { .object(["address": .string($0.address), "interface": .string($0.interface)]) }),
        ]
        if let record { response["remoteHost_"] = Self.info(record, state: .starting) }
        return .object(response)
    }

    /// `/switch remote host local|<id>`.
    public func switchTo(_ id: Int64?) throws(ChatError) -> CanonicalJSON {
        guard let id else {
            currentRemoteHost = nil
            return .object(["type": .string("currentRemoteHost")])
        }
        guard let session = session(.id(id)), session.isConnected, let record = session.record else {
            throw .remoteHost(.id(id), .inactive)
        }
        currentRemoteHost = id
        return .object(["type": .string("currentRemoteHost"), "remoteHost_": Self.info(record, state: session.state)])
    }

    /// `/stop remote host new|<id>`: ends the session without a `remoteHostStopped` event.
    public func stop(_ key: RemoteHostKey) async throws(ChatError) -> CanonicalJSON {
        guard let session = session(key) else { throw .remoteHost(key, .missing) }
        remove(session)
        await session.connection?.stop()
        return Self.cmdOk
    }

    /// Ends every session (shutdown), without events.
    public func stopAll() async {
        let all = sessions
        for session in all {
            remove(session)
            await session.connection?.stop()
        }
    }

    /// `/delete remote host <id>`: ends its session, removes its cache folder and its pairing.
    public func delete(_ id: Int64) async throws(ChatError) -> CanonicalJSON {
        if let session = session(.id(id)) {
            remove(session)
            await session.connection?.stop()
        }
        let record: RemoteHostRecord
        do {
            record = try await store.remoteHosts { (s) throws(PairingStoreError) -> RemoteHostRecord in
                guard let found = try s.find(id: id) else { throw .notFound(id) }
                try s.delete(id: id)
                return found
            }
        } catch {
            throw Self.storeError(error)
        }
        try? FileManager.default.removeItem(at: remoteHostsFolder.appendingPathComponent(record.storePath))
        return Self.cmdOk
    }

    /// `/store remote file <id>[ encrypt=on|off] <path>`: uploads the file, encrypted first when asked or when the host
    /// keeps its files encrypted.
    public func storeFile(_ a: ControllerCommand.StoreRemoteFile, progress: TransferProgress? = nil) async throws(ChatError)
        -> CanonicalJSON
    {
        let id = a.remoteHostId
        let session = try connected(id)
        guard let connection = session.connection, let record = session.record else { throw .remoteHost(.id(id), .badState) }
        let source = URL(fileURLWithPath: a.localPath)
        guard FileManager.default.isReadableFile(atPath: source.path) else {
            throw .error(type: "fileNotFound", fields: ["message": .string(a.localPath)])
        }
        var upload = source
        var cryptoArgs: CanonicalJSON?
        var temporary: URL?
        if a.encrypt ?? session.host?.encryptFiles ?? false {
            let folder = cacheFolder(record)
            let target = folder.appendingPathComponent(".upload-\(UUID().uuidString)")
            let key = SecureRandom.bytes(32)
            let nonce = SecretBox.Nonce.random()
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try LocalFileCrypto.encrypt(source, to: target, key: key, nonce: nonce)
            } catch {
                try? FileManager.default.removeItem(at: target)
                throw .error(type: "exception", fields: ["message": .string("encrypting \(a.localPath): \(error)")])
            }
            upload = target
            temporary = target
            cryptoArgs = .object([
                "fileKey": .string(Base64.encode(key)), "fileNonce": .string(Base64.encode(nonce.rawRepresentation)),
            ])
        }
        defer { if let temporary { try? FileManager.default.removeItem(at: temporary) } }
        let stored: String
        do {
            stored = try await connection.storeFile(at: upload, name: source.lastPathComponent, progress: progress)
        } catch {
            throw Self.chatError(error, key: .id(id))
        }
        var fileSource: [String: CanonicalJSON] = ["filePath": .string(stored)]
        if let cryptoArgs { fileSource["cryptoArgs"] = cryptoArgs }
        return .object([
            "type": .string("remoteFileStored"), "remoteHostId": .integer(id), "remoteFileSource": .object(fileSource),
        ])
    }

    /// `/get remote file <id> <RemoteFile>`: downloads into the host's cache folder.
    public func getFile(_ a: ControllerCommand.GetRemoteFile, progress: TransferProgress? = nil) async throws(ChatError)
        -> CanonicalJSON
    {
        let id = a.remoteHostId
        let json: CanonicalJSON
        do { json = try CanonicalJSON.parse(a.file.text) } catch { throw .commandError("RemoteFile: \(error)") }
        guard let userId = json["userId"]?.integerValue, let fileId = json["fileId"]?.integerValue,
            let sent = json["sent"]?.boolValue, let source = json["fileSource"], let path = source["filePath"]?.stringValue,
            !path.isEmpty
        else { throw .commandError("RemoteFile: userId, fileId, sent and fileSource.filePath are required") }
        let session = try connected(id)
        guard let connection = session.connection, let record = session.record else { throw .remoteHost(.id(id), .badState) }
        let folder = cacheFolder(record)
        let name = URL(fileURLWithPath: path).lastPathComponent
        guard !name.isEmpty, name != ".", name != ".." else { throw .commandError("RemoteFile: no file name in \(path)") }
        do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
            throw .error(type: "exception", fields: ["message": .string("\(folder.path): \(error)")])
        }
        do {
            try await connection.getFile(
                RemoteFile(userId: userId, fileId: fileId, sent: sent, fileSource: source),
                to: folder.appendingPathComponent(name), progress: progress)
        } catch {
            if case .chatError(let raw) = error, let host = try? CanonicalJSON.parse(raw), let chatError = host["error"] {
                throw .reported(chatError)
            }
            throw Self.chatError(error, key: .id(id))
        }
        return Self.cmdOk
    }

    /// Where a host's files are kept here: `<remote hosts folder>/<store path>/simplex_v1_files`.
    private func cacheFolder(_ record: RemoteHostRecord) -> URL {
        remoteHostsFolder.appendingPathComponent(record.storePath).appendingPathComponent("simplex_v1_files")
    }

    // MARK: Session progress

    /// Handles one input of a session's connection in order; true when the session is over.
    private func handle(_ input: Input, _ session: HostSession) async -> Bool {
        switch input {
        case .notice(.sessionCode(let code)):
            guard isLive(session) else { return false }
            session.state = .pendingConfirmation(code: code)
            var event: [String: CanonicalJSON] = ["type": .string("remoteHostSessionCode"), "sessionCode": .string(code)]
            if let record = session.record { event["remoteHost_"] = Self.info(record, state: session.state) }
            emit(Self.result(.object(event)))
        case .notice(.established(let host, let hostCA, let hostDHKey, let compression)):
            guard isLive(session), case .pendingConfirmation(let code) = session.state else { return false }
            session.state = .confirmed(code: code)
            session.host = host
            let record: RemoteHostRecord
            do {
                if session.record == nil,
                    try await store.remoteHosts({ (s) throws(PairingStoreError) in try s.find(fingerprint: hostCA) }) != nil
                {
                    throw ChatError.store(type: "remoteHostDuplicateCA")
                }
                record = try await store.recordHostSession(
                    existing: session.record?.id, hostDeviceName: host.deviceName, authority: session.authority,
                    identityKey: session.identityKey, hostFingerprint: hostCA, hostDHKey: hostDHKey, binding: session.binding)
            } catch {
                let chatError =
                    (error as? ChatError) ?? (error as? PairingStoreError).map(Self.storeError) ?? .rcp(.internal("\(error)"))
                remove(session)
                await session.connection?.stop()
                stopped(session, reason: "crashed", chatError)
                return true
            }
            guard isLive(session) else { return false }
            let isNew = session.record == nil
            session.record = record
            session.key = .id(record.id)
            if isNew {
                emit(
                    Self.result(
                        .object(["type": .string("newRemoteHost"), "remoteHost": Self.info(record, state: session.state)])))
            }
            session.state = .connected(code: code)
            currentRemoteHost = record.id
            emit(
                Self.result(
                    .object([
                        "type": .string("remoteHostConnected"), "remoteHost": Self.info(record, state: session.state),
                        "compression": .bool(compression),
                    ])))
        case .notice(.ended(let error)):
            guard isLive(session) else { return true }
            remove(session)
            // Once connected, however the connection ended (a close, a reset), it is the HTTP/2 client's end.
            if session.isConnected {
                var event: [String: CanonicalJSON] = [
                    "type": .string("remoteHostStopped"), "rhsState": session.state.json,
                    "rhStopReason": .object(["type": .string("disconnected")]),
                ]
                if let id = session.key.id { event["remoteHostId_"] = .integer(id) }
                emit(Self.result(.object(event)))
            } else {
                let chatError =
                    error.map { Self.chatError($0, key: session.key) }
                    ?? .remoteHost(session.key, .http2("the host closed the connection"))
                stopped(session, reason: "crashed", chatError)
            }
            return true
        case .event(let event):
            // Inputs are handled one after another, so the poll's events follow the recorded connection.
            guard isLive(session), session.isConnected else { return false }
            deliver(event, session)
        }
        return false
    }

    /// A host's event, or a failed poll, with its `remoteHostId`.
    private func deliver(_ event: Result<[UInt8], ControllerConnectionError>, _ session: HostSession) {
        guard let id = session.key.id else { return }
        switch event {
        case .success(let raw): emit(Self.fromHost(raw, session.host, remoteHostId: id))
        case .failure(let error): emit(Self.failure(Self.chatError(error, key: session.key), remoteHostId: id))
        }
    }

    private func stopped(_ session: HostSession, reason: String, _ error: ChatError) {
        var event: [String: CanonicalJSON] = [
            "type": .string("remoteHostStopped"), "rhsState": session.state.json,
            "rhStopReason": .object(["type": .string(reason), "chatError": error.json]),
        ]
        if let id = session.key.id { event["remoteHostId_"] = .integer(id) }
        emit(Self.result(.object(event)))
    }

    private func session(_ key: RemoteHostKey) -> HostSession? { sessions.first { $0.key == key } }

    private func isLive(_ session: HostSession) -> Bool { sessions.contains { $0 === session } }

    private func remove(_ session: HostSession) {
        sessions.removeAll { $0 === session }
        if let id = session.key.id, currentRemoteHost == id { currentRemoteHost = nil }
    }

    private func connected(_ id: Int64) throws(ChatError) -> HostSession {
        guard let session = session(.id(id)) else { throw .remoteHost(.id(id), .missing) }
        guard session.isConnected else { throw .remoteHost(.id(id), .badState) }
        return session
    }

    // MARK: JSON

    static let cmdOk = CanonicalJSON.object(["type": .string("cmdOk")])

    static func result(_ json: CanonicalJSON) -> CanonicalJSON { .object(["result": json]) }

    static func failure(_ error: ChatError, remoteHostId: Int64? = nil) -> CanonicalJSON {
        var fields: [String: CanonicalJSON] = ["error": error.json]
        if let remoteHostId { fields["remoteHostId"] = .integer(remoteHostId) }
        return .object(fields)
    }

    /// A host's Result JSON as this controller's UI sees it: in the tagged style (xrcp.md §13.3), with `remoteHostId`.
    static func fromHost(_ raw: [UInt8], _ host: HostAppInfo?, remoteHostId: Int64) -> CanonicalJSON {
        guard var json = try? CanonicalJSON.parse(raw, maxDepth: 512), case .object = json else {
            return failure(
                .remoteHost(.id(remoteHostId), .remoteProtocol(.invalidJSON("the host's result is not a JSON object"))),
                remoteHostId: remoteHostId)
        }
        if host?.encoding == .swift { json = SwiftEncoding.toTagged(json) }
        guard case .object(var fields) = json else { return json }
        fields["remoteHostId"] = .integer(remoteHostId)
        return .object(fields)
    }

    /// `RemoteHostInfo`.
    private static func info(_ record: RemoteHostRecord, state: SessionState?) -> CanonicalJSON {
        var fields: [String: CanonicalJSON] = [
            "remoteHostId": .integer(record.id), "hostDeviceName": .string(record.hostDeviceName),
            "storePath": .string(record.storePath),
        ]
        if let address = record.binding.address, let interface = record.binding.interface {
            fields["bindAddress_"] = .object(["address": .string(address), "interface": .string(interface)])
        }
        if let port = record.binding.port { fields["bindPort_"] = .integer(Int64(port)) }
        if let state { fields["sessionState"] = state.json }
        return .object(fields)
    }

    static func chatError(_ error: ControllerConnectionError, key: RemoteHostKey) -> ChatError {
        switch error {
        case .timeout: return .remoteHost(key, .timeout)
        case .notEstablished: return .remoteHost(key, .badState)
        case .session(.badVersion(let v)): return .remoteHost(key, .badVersion(v))
        case .session(.xrcp(let e)): return .rcp(e)
        case .session(.tls(.identity)): return .rcp(.identity)
        case .session(.tls(let e)): return .rcp(.exception("\(e)"))
        case .session(.http2(let e)): return .remoteHost(key, .http2("\(e)"))
        case .session(.protocolError(let e)), .protocolError(let e): return .remoteHost(key, .remoteProtocol(e))
        case .session(.invalidState(let s)): return .remoteHost(key, .http2(s))
        case .net(let e): return .rcp(.exception("\(e)"))
        case .ended: return .remoteHost(key, .http2("the session ended"))
        case .chatError(let raw): return .remoteHost(key, .http2(String(decoding: raw, as: UTF8.self)))
        case .unexpectedResponse(let type):
            return .remoteHost(key, .protocolError(.object(["type": .string("unexpectedResponse"), "response": .string(type)])))
        case .localFile(let s): return .error(type: "exception", fields: ["message": .string(s)])
        case .fileTooLarge: return .remoteHost(key, .remoteProtocol(.fileSize))
        }
    }

    static func notFound(_ id: Int64) -> ChatError { .store(type: "remoteHostNotFound", fields: ["remoteHostId": .integer(id)]) }

    static func storeError(_ error: PairingStoreError) -> ChatError {
        switch error {
        case .notFound(let id): return notFound(id)
        case .sql(let e): return .store(type: "dBException", fields: ["message": .string(e.message)])
        case .corrupt(let s): return .store(type: "dBException", fields: ["message": .string(s)])
        }
    }
}

/// SimpleX's encrypted local files (`CryptoFile` with `cryptoArgs`): the file's bytes in the box with the tag last,
/// under a random key and nonce, written in pieces.
enum LocalFileCrypto {
    static func encrypt(_ source: URL, to target: URL, key: [UInt8], nonce: SecretBox.Nonce, chunk: Int = 65536) throws {
        let sealer = SecretBoxStream(.seal, key: try SecretBox.Key(rawRepresentation: key), nonce: nonce)
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: target.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let output = try FileHandle(forWritingTo: target)
        defer { try? output.close() }
        while let data = try input.read(upToCount: chunk), !data.isEmpty {
            try output.write(contentsOf: sealer.update(Array(data)))
        }
        try output.write(contentsOf: sealer.finalizeTag())
    }
}
