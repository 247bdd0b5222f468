import Foundation
internal import SimplexCrypto
internal import SimplexNet
public import XRCP

/// Runs one host session over a TCP connection: reads on a thread of its own, feeds the session in order, hands
/// commands to the handler, and writes what the session produces (xrcp.md §4.3, §18.3).
public actor HostConnection {
    /// What the owner of a connection hears about.
    public enum Notice: Sendable, Equatable {
        case sessionCode(String)
        case established(controller: ControllerAppInfo, compression: Bool)
        case ended(HostSessionError?)
    }

    private let session: HostSession
    private let tcp: TCPConnection
    private let handler: any RemoteHostHandler
    private var sinks: [Int32: any RemoteFileSink] = [:]
    /// Why an upload is not being stored, answered when its file ends.
    private var refusedUploads: [Int32: RemoteProtocolError] = [:]
    private var ended = false
    /// Downloads waiting for HTTP/2 to frame what they queued (the controller's window updates let it).
    private var drainWaiters: [CheckedContinuation<Void, Never>] = []
    private let notify: @Sendable (Notice) -> Void

    /// TCP keep-alive: how soon a controller that vanished without closing the connection is noticed.
    public struct KeepAlive: Sendable, Equatable {
        /// Seconds of silence before the first probe, seconds between probes, probes unanswered before giving up.
        public var idle: Int32, interval: Int32, probes: Int32
        /// xrcp.md §17: idle 30 s, interval 15 s, 4 probes.
        public static let reference = KeepAlive(idle: 30, interval: 15, probes: 4)
        public init(idle: Int32, interval: Int32, probes: Int32) {
            self.idle = idle
            self.interval = interval
            self.probes = probes
        }
    }

    /// Connects to the invitation's address and starts TLS; `notify` hears the session code and the outcome.
    public init(
        setup: HostSessionSetup, handler: any RemoteHostHandler, connectTimeout: Double = 10,
        keepAlive: KeepAlive = .reference, notify: @escaping @Sendable (Notice) -> Void
    ) throws {
        let invitation = setup.invitation.invitation
        tcp = try TCPConnection.connect(to: try IPv4Endpoint(invitation.host, invitation.port), timeout: connectTimeout)
        try tcp.enableKeepAlive(idle: keepAlive.idle, interval: keepAlive.interval, probes: keepAlive.probes)
        session = try HostSession(setup)
        self.handler = handler
        self.notify = notify
    }

    /// Starts the reader; call once.
    public func run() {
        try? tcp.write(session.takeOutgoing())
        let (stream, continuation) = AsyncStream.makeStream(of: Result<[UInt8], NetError>.self)
        let tcp = self.tcp
        let reader = Thread {
            while true {
                do throws(NetError) {
                    continuation.yield(.success(try tcp.read()))
                } catch {
                    continuation.yield(.failure(error))
                    continuation.finish()
                    return
                }
            }
        }
        reader.start()
        Task {
            for await chunk in stream {
                switch chunk {
                case .success(let bytes): await self.received(bytes)
                case .failure(let error): self.end(error == .closed ? nil : .xrcp(.exception("\(error)")))
                }
                if self.isEnded { break }
            }
        }
    }

    var isEnded: Bool { ended }

    /// The user confirmed the code shown by the controller.
    public func verify(code: String) throws(HostSessionError) {
        do { try session.verify(code: code) } catch {
            flush()
            end(error)
            throw error
        }
        flush()
    }

    /// Ends the session (the user's stop, or shutdown).
    public func stop() {
        session.close()
        flush()
        end(nil)
    }

    private func end(_ error: HostSessionError?) {
        guard !ended else { return }
        ended = true
        resumeDrainWaiters()
        tcp.shutdown()
        for sink in sinks.values { Task { await sink.discard() } }
        sinks = [:]
        refusedUploads = [:]
        notify(.ended(error))
    }

    private func flush() {
        let out = session.takeOutgoing()
        guard !out.isEmpty else { return }
        do { try tcp.write(out) } catch { end(.xrcp(.exception("\(error)"))) }
    }

    private func received(_ bytes: [UInt8]) async {
        guard !ended else { return }
        let events: [HostSessionEvent]
        do { events = try session.receive(bytes) } catch {
            flush()
            end(error)
            return
        }
        flush()
        resumeDrainWaiters()
        for event in events { await handle(event) }
    }

    private func resumeDrainWaiters() {
        let drained = drainWaiters
        drainWaiters = []
        for waiter in drained { waiter.resume() }
    }

    private func handle(_ event: HostSessionEvent) async {
        switch event {
        case .sessionCode(let code): notify(.sessionCode(code))
        case .established(let controller, let compression): notify(.established(controller: controller, compression: compression))
        case .command(let stream, let command): Task { await self.serve(stream, command) }
        case .fileStarted(let stream, let name, let size):
            do { sinks[stream] = try await handler.beginStoring(fileName: name, fileSize: size) } catch {
                sinks[stream] = nil
                refusedUploads[stream] = error
            }
        case .fileData(let stream, let bytes):
            guard let sink = sinks[stream] else { return }
            do { try await sink.write(bytes) } catch {
                sinks[stream] = nil
                refusedUploads[stream] = error
                await sink.discard()
            }
        case .fileEnded(let stream):
            guard let sink = sinks.removeValue(forKey: stream) else {
                let reason = refusedUploads.removeValue(forKey: stream)
                answer(stream, .protocolError(reason ?? .invalidBody("the file could not be stored")))
                return
            }
            do { answer(stream, .fileStored(filePath: try await sink.commit())) } catch {
                // Nothing of an upload that could not be put in place is kept.
                await sink.discard()
                answer(stream, .protocolError(error))
            }
        case .refused(let stream, _):
            refusedUploads[stream] = nil
            if let sink = sinks.removeValue(forKey: stream) { await sink.discard() }
        case .closed: end(nil)
        }
    }

    private func serve(_ stream: Int32, _ command: RemoteCommand) async {
        switch command {
        case .send(let text, let retry):
            answer(stream, .chatResponse(rawJSON: await handler.execute(command: text, retryNumber: retry)))
        case .recv(let wait):
            answer(stream, .chatEvent(rawJSON: await handler.nextEvent(waitMicroseconds: wait)))
        case .getFile(let file):
            do {
                let source = try await handler.openFile(file)
                answer(stream, .file(fileSize: source.size, fileDigest: source.digest))
                while let piece = try await source.read(max: 16384) {
                    guard !ended else { return }
                    try session.sendFile(stream: stream, piece)
                    flush()
                    // Holds a few pieces beyond what flow control lets out, so a file streams.
                    while !ended && session.pendingFileBytes(stream: stream) > 4 * 16384 {
                        await withCheckedContinuation { drainWaiters.append($0) }
                    }
                }
                try session.finishFile(stream: stream)
                flush()
            } catch let error as RemoteFileError {
                switch error {
                case .chat(let json): answer(stream, .chatResponse(rawJSON: json))
                case .protocolError(let e): answer(stream, .protocolError(e))
                }
            } catch let error as HostSessionError {
                end(error)
            } catch {
                end(.xrcp(.internal("\(error)")))
            }
        case .storeFile:
            break  // answered when the file ends
        }
    }

    private func answer(_ stream: Int32, _ response: RemoteResponse) {
        guard !ended else { return }
        do { try session.respond(stream: stream, response) } catch {
            end(error)
            return
        }
        flush()
    }
}
