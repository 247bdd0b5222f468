public import Foundation
public import SimplexCrypto
public import SimplexNet
public import XRCP

/// Why a controller connection, or one of its commands, failed. The chat layer maps these to `RemoteHostError`
/// (xrcp.md §16.3): `timeout` to `timeout`, `notEstablished` to `badState`, the rest to `protocolError` or
/// `disconnected`.
public enum ControllerConnectionError: Error, Equatable, Sendable {
    /// The listener or the TCP connection failed; `net(.closed)` is a host that hung up before its HELLO.
    case net(NetError)
    /// TLS, the host's HELLO or HTTP/2 failed, or the host's version was refused.
    case session(ControllerSessionError)
    /// No host connected and finished TLS, or no HELLO came, in the time allowed (xrcp.md §17).
    case timeout
    /// A command before the session was established, or after it ended.
    case notEstablished
    /// The session ended before the command was answered.
    case ended
    /// The host answered `protocolError`, or its response failed a check (tag, digest, size).
    case protocolError(RemoteProtocolError)
    /// A `getFile` answered with a chat result instead of the file (its Result JSON, e.g. store error `fileNotFound`).
    case chatError([UInt8])
    /// A response of another type than the command expects (`unexpectedResponse`), with that type.
    case unexpectedResponse(String)
    /// A local file could not be read or written.
    case localFile(String)
    /// Files travel with a uint32 size (xrcp.md §11.1).
    case fileTooLarge
}

/// How long a controller connection waits and how it polls (xrcp.md §9.7, §17; the defaults are the reference's).
public struct ControllerConnectionSettings: Sendable {
    /// From `run()` until a host has connected and finished TLS.
    public var connectTimeout: Double
    /// From the session code until the host's HELLO.
    public var helloTimeout: Double
    /// Whether to run the event long-poll once established.
    public var pollEvents: Bool
    /// The `wait` of each `recv`, in microseconds.
    public var pollWait: Int64
    /// The pause after a failed poll before the next, in seconds, so a failing host is not hammered.
    public var pollErrorDelay: Double
    /// The size of the pieces an upload is read and sent in.
    public var chunkSize: Int

    public init(
        connectTimeout: Double = 60, helloTimeout: Double = 60, pollEvents: Bool = true, pollWait: Int64 = 10_000_000,
        pollErrorDelay: Double = 1, chunkSize: Int = 65536
    ) {
        self.connectTimeout = connectTimeout
        self.helloTimeout = helloTimeout
        self.pollEvents = pollEvents
        self.pollWait = pollWait
        self.pollErrorDelay = pollErrorDelay
        self.chunkSize = chunkSize
    }
}

/// Runs the controller role of one invitation over TCP (xrcp.md §18.4): listens on the chosen address, accepts exactly
/// one connection (§20.32), reads on a thread of its own and feeds the session in order, then serves commands, the
/// event long-poll (§9.7) and files. It stores nothing: the owner records the pairing when it hears `established`.
public actor ControllerConnection {
    /// What the owner of a connection hears about.
    public enum Notice: Sendable, Equatable {
        /// TLS is up: show the code; the host's user compares it.
        case sessionCode(String)
        /// The host's HELLO was accepted: record the pairing with these values; commands may be sent now.
        case established(host: HostAppInfo, hostCA: CertificateFingerprint, hostDHKey: X25519.PublicKey, compression: Bool)
        /// The session is over: nil after `stop()` or when the host closed an established session.
        case ended(ControllerConnectionError?)
    }

    private enum Phase {
        case created
        case listening
        case tls
        case awaitingHello
        case established
        case ended
    }

    private typealias Answer = Result<RemoteResponse, ControllerConnectionError>

    private enum Waiter {
        /// Sent; nobody awaits the answer yet.
        case expecting
        case answered(Answer)
        case awaiting(CheckedContinuation<Answer, Never>)
        case download(Download)
    }

    private final class Download {
        let url: URL
        var handle: FileHandle?
        let progress: (@Sendable (UInt64, UInt64) -> Void)?
        var received: UInt64 = 0
        var size: UInt64 = 0
        let continuation: CheckedContinuation<Result<Void, ControllerConnectionError>, Never>

        init(
            url: URL, progress: (@Sendable (UInt64, UInt64) -> Void)?,
            continuation: CheckedContinuation<Result<Void, ControllerConnectionError>, Never>
        ) {
            self.url = url
            self.progress = progress
            self.continuation = continuation
        }
    }

    private enum Input: Sendable {
        case accepted(TCPConnection)
        case data([UInt8])
        case failed(NetError)
    }

    /// The invitation to show (QR code, link) and to announce.
    public nonisolated let invitation: SignedInvitation
    /// Where the listener is bound; its port is the invitation's.
    public nonisolated let endpoint: IPv4Endpoint

    private let session: ControllerSession
    private let dhKey: X25519.PrivateKey
    private let settings: ControllerConnectionSettings
    private let slot: ListenerSlot
    private let notify: @Sendable (Notice) -> Void
    private let events: @Sendable (Result<[UInt8], ControllerConnectionError>) -> Void
    private var phase = Phase.created
    private var tcp: TCPConnection?
    private var waiters: [Int32: Waiter] = [:]
    private var announcer: Announcer?
    /// Uploads waiting for HTTP/2 to frame what they queued (the host's window updates let it), resumed on input.
    private var drainWaiters: [CheckedContinuation<Void, Never>] = []
    private var poller: Task<Void, Never>?
    private var timer: Task<Void, Never>?

    /// Listens on `address:port` (port 0: a free one) and makes the signed invitation naming them; `address` is the
    /// invitation's, so it must be a real local address (the first of `LocalAddresses.ordered`, xrcp.md §5.3).
    /// `knownHost` pins a known host's CA; `notify` hears the session's progress, `events` each event (or poll error)
    /// of the long-poll.
    public init(
        authority: CertificateAuthority, identityKey: Ed25519.PrivateKey, knownHost: CertificateFingerprint? = nil,
        app: ControllerAppInfo, address: String, port: UInt16 = 0, now: Int64 = Int64(Date().timeIntervalSince1970),
        settings: ControllerConnectionSettings = ControllerConnectionSettings(),
        notify: @escaping @Sendable (Notice) -> Void,
        events: @escaping @Sendable (Result<[UInt8], ControllerConnectionError>) -> Void = { _ in }
    ) throws(ControllerConnectionError) {
        let listener: TCPListener
        do { listener = try TCPListener(address: address, port: port) } catch { throw .net(error) }
        let dhKey = X25519.PrivateKey()
        do {
            session = try ControllerSession(
                ControllerSessionSetup(
                    authority: authority, identityKey: identityKey, knownHost: knownHost, dhKey: dhKey, app: app,
                    host: address, port: listener.endpoint.port, now: now))
        } catch { throw .session(error) }
        invitation = session.invitation
        endpoint = listener.endpoint
        slot = ListenerSlot(listener)
        self.dhKey = dhKey
        self.settings = settings
        self.notify = notify
        self.events = events
    }

    /// Starts accepting; call once. The connect timeout runs from here.
    public func run() {
        guard phase == .created else { return }
        phase = .listening
        let (stream, continuation) = AsyncStream.makeStream(of: Input.self)
        let slot = self.slot
        let reader = Thread {
            var accepted: TCPConnection?
            while accepted == nil {
                guard let listener = slot.listener else {
                    continuation.finish()
                    return
                }
                do throws(NetError) {
                    accepted = try listener.accept(timeout: 0.1)
                } catch {
                    continuation.yield(.failed(error))
                    continuation.finish()
                    return
                }
            }
            // Exactly one connection per invitation: later ones are refused.
            slot.close()
            guard let tcp = accepted else { return }
            continuation.yield(.accepted(tcp))
            while true {
                do throws(NetError) {
                    continuation.yield(.data(try tcp.read()))
                } catch {
                    continuation.yield(.failed(error))
                    continuation.finish()
                    return
                }
            }
        }
        reader.start()
        Task {
            for await input in stream {
                self.received(input)
                if self.isEnded { break }
            }
        }
        startTimer(settings.connectTimeout)
    }

    var isEnded: Bool { phase == .ended }

    /// Sends the invitation by multicast to a known host (xrcp.md §6.1) until the session is established, stopped, or
    /// `count` packets went out. `interfaceAddress` defaults to the invitation's address, which hosts check.
    public func announce(
        to hostKey: X25519.PublicKey, group: IPv4Endpoint, interfaceAddress: String? = nil, count: Int = Announcer.defaultCount,
        interval: Double = Announcer.defaultInterval
    ) throws(AnnouncerError) {
        guard phase != .established, phase != .ended else { return }
        announcer?.stop()
        announcer = try Announcer(
            invitation: invitation, controllerKey: dhKey, hostKey: hostKey, group: group,
            interfaceAddress: interfaceAddress ?? invitation.invitation.host, count: count, interval: interval)
    }

    /// Ends the session (the user's stop, or shutdown); `notify` hears `ended(nil)`.
    public func stop() {
        guard phase != .ended else { return }
        session.close()
        flush()
        end(nil)
    }

    // MARK: Commands

    /// Runs a chat command on the host (`send`, xrcp.md §11.1); returns the host's `chatResponse` Result JSON as sent.
    public func send(_ command: String, retryNumber: Int64 = 0) async throws(ControllerConnectionError) -> [UInt8] {
        switch try await request(.send(command: command, retryNumber: retryNumber)) {
        case .chatResponse(let raw): return raw
        case let other: throw Self.unexpected(other)
        }
    }

    /// One `recv` long-poll: the next event's Result JSON, or nil when `wait` µs passed without one.
    public func receiveEvent(wait: Int64) async throws(ControllerConnectionError) -> [UInt8]? {
        switch try await request(.recv(wait: wait)) {
        case .chatEvent(let raw): return raw
        case let other: throw Self.unexpected(other)
        }
    }

    /// Uploads bytes into the host's files folder (`storeFile`); returns the name the host stored them under.
    public func storeFile(_ bytes: [UInt8], name: String) async throws(ControllerConnectionError) -> String {
        guard let size = UInt32(exactly: bytes.count) else { throw .fileTooLarge }
        var offset = 0
        let chunk = max(1, settings.chunkSize)
        return try await upload(name: name, size: size, digest: Digest.sha512(bytes)) { () throws(ControllerConnectionError) in
            guard offset < bytes.count else { return nil }
            defer { offset = min(offset + chunk, bytes.count) }
            return Array(bytes[offset..<min(offset + chunk, bytes.count)])
        }
    }

    /// Uploads a local file, read in pieces (twice: first for its SHA-512, then to send); `name` defaults to its base
    /// name.
    public func storeFile(
        at url: URL, name: String? = nil, progress: (@Sendable (_ done: UInt64, _ total: UInt64) -> Void)? = nil
    ) async throws(ControllerConnectionError) -> String {
        let chunk = max(1, settings.chunkSize)
        let digest: [UInt8]
        var total: UInt64 = 0
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            let hash = Digest.SHA512Stream()
            while let data = try handle.read(upToCount: chunk), !data.isEmpty {
                hash.update(Array(data))
                total += UInt64(data.count)
            }
            digest = hash.finalize()
        } catch { throw .localFile("\(url.path): \(error)") }
        guard let size = UInt32(exactly: total) else { throw .fileTooLarge }
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch { throw .localFile("\(url.path): \(error)") }
        defer { try? handle.close() }
        var remaining = total
        return try await upload(name: name ?? url.lastPathComponent, size: size, digest: digest) {
            () throws(ControllerConnectionError) in
            guard remaining > 0 else { return nil }
            let data: Data?
            do { data = try handle.read(upToCount: Int(min(UInt64(chunk), remaining))) } catch {
                throw .localFile("\(url.path): \(error)")
            }
            guard let data, !data.isEmpty else { throw .localFile("\(url.path) changed while it was sent") }
            remaining -= UInt64(data.count)
            progress?(total - remaining, total)
            return Array(data)
        }
    }

    /// Downloads a file of the host's (`getFile`) to `url`, written as it arrives; the digest and tag are checked at the
    /// end, and the file is removed when anything fails.
    public func getFile(
        _ file: RemoteFile, to url: URL, progress: (@Sendable (_ done: UInt64, _ total: UInt64) -> Void)? = nil
    ) async throws(ControllerConnectionError) {
        guard phase == .established else { throw .notEstablished }
        let stream = try submit(.getFile(file))
        let result = await withCheckedContinuation { continuation in
            waiters[stream] = .download(Download(url: url, progress: progress, continuation: continuation))
        }
        try result.get()
    }

    // MARK: Internals

    private func upload(
        name: String, size: UInt32, digest: [UInt8], next: () throws(ControllerConnectionError) -> [UInt8]?
    ) async throws(ControllerConnectionError) -> String {
        guard phase == .established else { throw .notEstablished }
        let stream = try submit(.storeFile(fileName: name, fileSize: size, fileDigest: digest))
        waiters[stream] = .expecting
        var sent: UInt64 = 0
        do throws(ControllerConnectionError) {
            while let piece = try next() {
                sent += UInt64(piece.count)
                guard sent <= UInt64(size) else { throw .localFile("the file grew while it was sent") }
                guard phase == .established else { throw .ended }
                do { try session.sendFile(stream: stream, piece) } catch { throw fatal(error) }
                flush()
                // Holds at most a few pieces beyond what flow control lets out, so a file streams.
                while phase == .established && session.pendingFileBytes(stream: stream) > 4 * settings.chunkSize {
                    await withCheckedContinuation { drainWaiters.append($0) }
                }
                await Task.yield()
            }
            guard sent == UInt64(size) else { throw .localFile("the file shrank while it was sent") }
            guard phase == .established else { throw .ended }
            do { try session.finishFile(stream: stream) } catch { throw fatal(error) }
            flush()
        } catch {
            // ControllerSession cannot reset one stream: after a local failure mid-file the host keeps waiting for
            // the rest of this upload (its other streams are unaffected); the session itself stays usable.
            waiters[stream] = nil
            throw error
        }
        switch try await answer(stream) {
        case .fileStored(let path): return path
        case let other: throw Self.unexpected(other)
        }
    }

    private func request(_ command: RemoteCommand) async throws(ControllerConnectionError) -> RemoteResponse {
        guard phase == .established else { throw .notEstablished }
        let stream = try submit(command)
        waiters[stream] = .expecting
        return try await answer(stream)
    }

    /// Sends a request and writes it out; a failure here ends the session.
    private func submit(_ command: RemoteCommand) throws(ControllerConnectionError) -> Int32 {
        let stream: Int32
        do { stream = try session.request(command) } catch { throw fatal(error) }
        flush()
        guard phase == .established else { throw .ended }
        return stream
    }

    private func fatal(_ error: ControllerSessionError) -> ControllerConnectionError {
        if case .invalidState = error { return .notEstablished }
        flush()
        end(.session(error))
        return .session(error)
    }

    private func answer(_ stream: Int32) async throws(ControllerConnectionError) -> RemoteResponse {
        if case .answered(let result)? = waiters[stream] {
            waiters[stream] = nil
            return try result.get()
        }
        let result = await withCheckedContinuation { continuation in waiters[stream] = .awaiting(continuation) }
        return try result.get()
    }

    private func deliver(_ stream: Int32, _ result: Answer) {
        switch waiters[stream] {
        case .expecting?: waiters[stream] = .answered(result)
        case .awaiting(let continuation)?:
            waiters[stream] = nil
            continuation.resume(returning: result)
        case .download(let download)?:
            waiters[stream] = nil
            let failure: ControllerConnectionError
            switch result {
            case .success(.chatResponse(let raw)): failure = .chatError(raw)
            case .success(let other): failure = Self.unexpected(other)
            case .failure(let error): failure = error
            }
            finish(download, .failure(failure))
        case .answered?, nil: break
        }
    }

    private func finish(_ download: Download, _ result: Result<Void, ControllerConnectionError>) {
        if let handle = download.handle {
            do { try handle.close() } catch {
                download.handle = nil
                try? FileManager.default.removeItem(at: download.url)
                download.continuation.resume(returning: .failure(.localFile("\(download.url.path): \(error)")))
                return
            }
        }
        download.handle = nil
        if case .failure = result { try? FileManager.default.removeItem(at: download.url) }
        download.continuation.resume(returning: result)
    }

    private static func unexpected(_ response: RemoteResponse) -> ControllerConnectionError {
        switch response {
        case .chatResponse: return .unexpectedResponse("chatResponse")
        case .chatEvent: return .unexpectedResponse("chatEvent")
        case .fileStored: return .unexpectedResponse("fileStored")
        case .file: return .unexpectedResponse("file")
        case .protocolError(let error): return .protocolError(error)
        }
    }

    private func received(_ input: Input) {
        guard phase != .ended else {
            if case .accepted(let tcp) = input { tcp.shutdown() }
            return
        }
        switch input {
        case .accepted(let connection):
            tcp = connection
            try? connection.enableKeepAlive()
            phase = .tls
            flush()
        case .data(let bytes):
            let sessionEvents: [ControllerSessionEvent]
            do { sessionEvents = try session.receive(bytes) } catch {
                flush()
                end(.session(error))
                return
            }
            flush()
            for event in sessionEvents where phase != .ended { handle(event) }
            resumeDrainWaiters()
        case .failed(let error):
            end(error == .closed && phase == .established ? nil : .net(error))
        }
    }

    private func handle(_ event: ControllerSessionEvent) {
        switch event {
        case .sessionCode(let code):
            phase = .awaitingHello
            notify(.sessionCode(code))
            startTimer(settings.helloTimeout)
        case .established(let host, let hostCA, let hostDHKey, let compression):
            phase = .established
            timer?.cancel()
            announcer?.stop()
            announcer = nil
            notify(.established(host: host, hostCA: hostCA, hostDHKey: hostDHKey, compression: compression))
            if settings.pollEvents { startPolling() }
        case .response(let stream, let response):
            deliver(stream, .success(response))
        case .fileStarted(let stream, let size):
            guard case .download(let download)? = waiters[stream] else { return }
            download.size = UInt64(size)
            guard FileManager.default.createFile(atPath: download.url.path, contents: nil),
                let handle = try? FileHandle(forWritingTo: download.url)
            else {
                waiters[stream] = nil
                finish(download, .failure(.localFile("cannot create \(download.url.path)")))
                return
            }
            download.handle = handle
        case .fileData(let stream, let bytes):
            guard case .download(let download)? = waiters[stream], let handle = download.handle else { return }
            do { try handle.write(contentsOf: bytes) } catch {
                waiters[stream] = nil
                finish(download, .failure(.localFile("\(download.url.path): \(error)")))
                return
            }
            download.received += UInt64(bytes.count)
            download.progress?(download.received, download.size)
        case .fileEnded(let stream):
            guard case .download(let download)? = waiters[stream] else { return }
            waiters[stream] = nil
            finish(download, .success(()))
        case .failed(let stream, let error):
            deliver(stream, .failure(.protocolError(error)))
        case .closed:
            end(phase == .established ? nil : .net(.closed))
        }
    }

    private func resumeDrainWaiters() {
        let drained = drainWaiters
        drainWaiters = []
        for waiter in drained { waiter.resume() }
    }

    private func startTimer(_ seconds: Double) {
        timer?.cancel()
        let phase = self.phase
        timer = Task { [weak self] in
            do { try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000)) } catch { return }
            await self?.expire(phase)
        }
    }

    /// The timer set in `phase` ran out: the host did not get further in time.
    private func expire(_ started: Phase) {
        guard phase != .ended, phase != .established else { return }
        // The connect timer covers both listening and TLS; the HELLO timer the wait after the code.
        let stillWaiting =
            started == .awaitingHello ? phase == .awaitingHello : (phase == .listening || phase == .tls)
        if stillWaiting {
            session.close()
            flush()
            end(.timeout)
        }
    }

    private func startPolling() {
        let wait = settings.pollWait
        let delay = settings.pollErrorDelay
        let events = self.events
        poller = Task { [weak self] in
            while !Task.isCancelled, let connection = self {
                do throws(ControllerConnectionError) {
                    if let event = try await connection.receiveEvent(wait: wait) { events(.success(event)) }
                } catch {
                    if await connection.isEnded || Task.isCancelled { return }
                    events(.failure(error))
                    try? await Task.sleep(nanoseconds: UInt64(max(0, delay) * 1_000_000_000))
                }
            }
        }
    }

    private func flush() {
        let out = session.takeOutgoing()
        guard !out.isEmpty, let tcp else { return }
        do { try tcp.write(out) } catch { end(.net(error)) }
    }

    private func end(_ error: ControllerConnectionError?) {
        guard phase != .ended else { return }
        phase = .ended
        slot.close()
        tcp?.shutdown()
        announcer?.stop()
        announcer = nil
        poller?.cancel()
        timer?.cancel()
        resumeDrainWaiters()
        let pending = waiters
        waiters = [:]
        for waiter in pending.values {
            switch waiter {
            case .awaiting(let continuation): continuation.resume(returning: .failure(.ended))
            case .download(let download): finish(download, .failure(.ended))
            case .expecting, .answered: break
            }
        }
        notify(.ended(error))
    }
}

/// The listening socket, shared with the accepting thread; dropping it closes the socket, so later connections to
/// the invitation's port are refused.
private final class ListenerSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var current: TCPListener?

    init(_ listener: TCPListener) { current = listener }

    var listener: TCPListener? { lock.withLock { current } }

    func close() { lock.withLock { current = nil } }
}
