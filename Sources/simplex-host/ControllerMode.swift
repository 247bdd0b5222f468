import ChatStore
import Foundation
import SimplexEncoding
import SimplexHost

/// `simplex-host controller`: the controller role from a terminal — interactive (QR code, session code, a prompt whose
/// lines run on the host) or scripted (`--json`, one JSON line per response and event).
enum ControllerMode {
    /// Runs the mode to the end of standard input; returns the exit status.
    static func run(_ arguments: [String]) async -> Int32 {
        let options: ControllerOptions
        do { options = try ControllerOptions(arguments) } catch {
            let message = (error as? ControllerOptions.Failure).map { if case .usage(let m) = $0 { m } else { "" } } ?? "\(error)"
            if !message.isEmpty { FileHandle.standardError.write(Data("simplex-host controller: \(message)\n".utf8)) }
            print(ControllerOptions.usage)
            return message.isEmpty ? 0 : 2
        }
        let store: ChatStoreActor
        let key: StoreKey?
        do { key = try StoreKey.resolve(file: options.databaseKeyFile, environment: ProcessInfo.processInfo.environment) } catch {
            FileHandle.standardError.write(Data("simplex-host controller: \(error.message); \(error.hint)\n".utf8))
            return 2
        }
        do {
            try FileManager.default.createDirectory(at: options.dataFolder, withIntermediateDirectories: true)
            store = try ChatStoreActor(
                prefix: options.dataFolder.appendingPathComponent("simplex_v1").path, key: key?.databaseKey,
                confirmation: .yesUp)
        } catch ChatDatabases.OpenError.errorNotADatabase(let file) {
            FileHandle.standardError.write(
                Data("simplex-host controller: \(file) does not open; \(StoreKey.wrongKeyHint)\n".utf8))
            return 1
        } catch {
            FileHandle.standardError.write(Data("simplex-host controller: \(error)\n".utf8))
            return 1
        }
        var timeouts = ControllerTimeouts()
        if let t = options.connectTimeout { timeouts.connect = t }
        if let t = options.helloTimeout { timeouts.hello = t }
        if let t = options.pollWait { timeouts.pollWait = Int64(t * 1_000_000) }
        if let n = options.announceCount { timeouts.announceCount = n }
        if let t = options.announceInterval { timeouts.announceInterval = t }
        var announce = AnnounceSettings()
        if let g = options.multicastGroup { announce.group = g }
        if let p = options.multicastPort { announce.port = p }
        announce.interfaceAddress = options.multicastInterface
        let (events, sink) = AsyncStream.makeStream(of: CanonicalJSON.self)
        let service = ControllerRemoteControl(
            store: store, deviceName: options.deviceName ?? ProcessInfo.processInfo.hostName,
            remoteHostsFolder: options.dataFolder.appendingPathComponent("remote_hosts"), timeouts: timeouts,
            announce: announce, compression: options.compression, emit: { sink.yield($0) })
        let status =
            options.json
            ? await scripting(service, options, events: events) : await interactive(service, options, events: events)
        await service.stopAll()
        sink.finish()
        return status
    }

    /// Standard input's lines as bytes, read on a thread of their own (scripting refuses invalid UTF-8 unrun).
    private static func inputLineBytes() -> AsyncStream<[UInt8]> {
        let (lines, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        Thread {
            let input = Scripting.InputLines()
            while let line = input.next() { continuation.yield(line) }
            continuation.finish()
        }.start()
        return lines
    }

    /// Standard input's lines, read on a thread of their own.
    private static func inputLines() -> AsyncStream<String> {
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        Thread {
            while let line = readLine(strippingNewline: true) { continuation.yield(line) }
            continuation.finish()
        }.start()
        return lines
    }

    // MARK: Scripting

    private static func scripting(
        _ service: ControllerRemoteControl, _ options: ControllerOptions, events: AsyncStream<CanonicalJSON>
    ) async -> Int32 {
        let output = OutputLines()
        let pump = Task {
            for await event in events {
                // A session that ended for a reason a person can act on says so on standard error too.
                if event["result"]?["type"]?.stringValue == "remoteHostStopped",
                    let reason = event["result"]?["rhStopReason"].flatMap(explain)
                {
                    FileHandle.standardError.write(Data("simplex-host controller: the session ended: \(reason)\n".utf8))
                }
                await output.write(Array(message(event, corrId: nil).rendered.utf8))
            }
        }
        for await line in inputLineBytes() where !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0d }) {
            let corrId: String?
            let command: String
            switch Scripting.request(line) {
            case .command(let id, let text): (corrId, command) = (id, text)
            case .refused(let reason):
                // A refused line has no corrId, as the official server answers an invalid request.
                let envelope = (try? CanonicalJSON.parse(Scripting.commandError(reason))) ?? .null
                await output.write(Array(message(envelope, corrId: "").rendered.utf8))
                continue
            }
            let envelope = await service.execute(command)
            if let invitation = startedInvitation(envelope) {
                switch options.qr {
                case .png, .svg:
                    let note = ControllerTerminal.present(invitation, options: options, size: nil)
                    FileHandle.standardError.write(Data(note.utf8))
                case .terminal, .text: break
                }
            }
            await output.write(Array(message(envelope, corrId: corrId ?? "").rendered.utf8))
        }
        pump.cancel()
        return 0
    }

    /// The WebSocket API's shape (chat-api.md §1.5) with the envelope's `remoteHostId` beside: a failed command is a
    /// `chatCmdError` response, an asynchronous error a `chatError` one. `corrId` nil: an event.
    static func message(_ envelope: CanonicalJSON, corrId: String?) -> CanonicalJSON {
        var fields: [String: CanonicalJSON] = [:]
        if let result = envelope["result"] {
            fields["resp"] = result
        } else {
            fields["resp"] = .object([
                "type": .string(corrId == nil ? "chatError" : "chatCmdError"), "chatError": envelope["error"] ?? .null,
            ])
        }
        if let id = envelope["remoteHostId"] { fields["remoteHostId"] = id }
        if let corrId, !corrId.isEmpty { fields["corrId"] = .string(corrId) }
        return .object(fields)
    }

    private static func startedInvitation(_ envelope: CanonicalJSON) -> String? {
        guard envelope["result"]?["type"]?.stringValue == "remoteHostStarted" else { return nil }
        return envelope["result"]?["invitation"]?.stringValue
    }

    // MARK: Interactive

    /// Whether the next line answers the session-code question, and for which session.
    private actor Prompt {
        var confirming: String?
        func ask(_ key: String) { confirming = key }
        func take() -> String? {
            defer { confirming = nil }
            return confirming
        }
    }

    private static func interactive(
        _ service: ControllerRemoteControl, _ options: ControllerOptions, events: AsyncStream<CanonicalJSON>
    ) async -> Int32 {
        let started = await service.execute(options.startCommand)
        guard let invitation = startedInvitation(started) else {
            say("Could not start: \(started.rendered)")
            return 1
        }
        say(ControllerTerminal.present(invitation, options: options, size: ControllerTerminal.size()), newline: false)
        say("Waiting for the host to connect (Ctrl-D quits)", newline: false)
        say("> ", newline: false)
        let prompt = Prompt()
        let pump = Task {
            for await event in events { await show(event, prompt: prompt) }
        }
        for await line in inputLines() {
            if let key = await prompt.take() {
                if line.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("y") {
                    say("Confirmed: the host finishes the connection once its user confirms too.")
                } else {
                    _ = await service.execute("/stop remote host \(key)")
                    say("Stopped: the codes differ, so another device may have taken the invitation.")
                    pump.cancel()
                    return 1
                }
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                let transfer = line.hasPrefix("/store remote file ") || line.hasPrefix("/get remote file ")
                let bar = ProgressBar()
                let envelope = await service.execute(line, progress: transfer ? bar.update : nil)
                bar.finish()
                say(envelope.rendered)
            }
            say("> ", newline: false)
        }
        pump.cancel()
        return 0
    }

    private static func show(_ event: CanonicalJSON, prompt: Prompt) async {
        let result = event["result"]
        switch result?["type"]?.stringValue {
        case "remoteHostSessionCode"?:
            let code = result?["sessionCode"]?.stringValue ?? "?"
            let key = result?["remoteHost_"]?["remoteHostId"]?.integerValue.map(String.init) ?? "new"
            await prompt.ask(key)
            say("\nSession code: \(code)\nDoes the host show the same code? (yes/no) ", newline: false)
        case "newRemoteHost"?:
            let id = result?["remoteHost"]?["remoteHostId"]?.integerValue ?? 0
            say("\nNew host stored as remote host \(id).")
        case "remoteHostConnected"?:
            let host = result?["remoteHost"]
            let name = host?["hostDeviceName"]?.stringValue ?? "the host"
            let id = host?["remoteHostId"]?.integerValue ?? 0
            say(
                "\nConnected to \(name) (remote host \(id)). Each line now runs on it; /switch remote host local, "
                    + "/stop remote host \(id), /store remote file \(id) PATH and /get remote file \(id) JSON work here.")
            say("> ", newline: false)
        case "remoteHostStopped"?:
            let reason = result?["rhStopReason"]
            say("\nThe session ended: " + (reason.flatMap(explain) ?? reason?.rendered ?? ""))
            say("> ", newline: false)
        default:
            say("\n" + event.rendered)
            say("> ", newline: false)
        }
    }

    /// A sentence for the stop reasons a user can act on.
    static func explain(_ reason: CanonicalJSON) -> String? {
        if reason["type"]?.stringValue == "disconnected" { return "the host disconnected." }
        let error = reason["chatError"]
        switch error?["remoteHostError"]?["type"]?.stringValue ?? error?["agentError"]?["rcpErr"]?["type"]?.stringValue {
        case "timeout"?: return "no host connected and confirmed in time; start again to get a new code."
        case "identity"?:
            return "the host's certificate is not the one this pairing knows: another device may have used the invitation."
        case "badVersion"?:
            let v = error?["remoteHostError"]?["appVersion"]?.stringValue ?? "?"
            // The host sends the version it negotiated; below our minimum the host is the older side, else we are.
            if RefusalReasons.isBelowMinimumPeer(v) {
                return "the host's app version \(v) is older than this controller accepts: update SimpleX on the host "
                    + "(phone) to \(RefusalReasons.minimumPeer) or newer."
            }
            return "the host's app version \(v) is newer than this controller speaks: update simplex-host."
        default: return nil
        }
    }

    private static func say(_ text: String, newline: Bool = true) {
        FileHandle.standardOutput.write(Data((newline ? text + "\n" : text).utf8))
    }
}
