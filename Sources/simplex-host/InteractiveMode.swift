import Foundation
import SimplexEncoding

/// `simplex-host` without a subcommand: starts the host on the embedded core, says what to do next and takes a
/// link, a word (find, stop, controllers, quit) or any chat command typed at the prompt.
enum InteractiveMode {
    static let words = """
        Type:  an xrcp:/ link   connect to the desktop that shows it (SimpleX Desktop: Link a mobile)
               find             wait for a known desktop to announce itself
               stop             end the session or the search
               controllers      list the known desktops
               quit             stop and leave (Ctrl-C or the end of input too)
               /command         any chat command, answered with its JSON
        """

    static func run(_ options: Options) async -> Int32 {
        let console = Console()
        let runtime: HostRuntime
        do {
            runtime = try await HostRuntime(options: options, output: console.output)
            try await runtime.startChat(profile: options.profile)
        } catch { return Say.failure(error) }
        console.start()
        let known = Say.items((try? await runtime.remoteControl.list())?["remoteCtrls"])
        Say.line("simplex-host is running as \"\(runtime.deviceName)\" (data in \(runtime.folder.url.path)).")
        if known.isEmpty {
            Say.line("Next: in SimpleX Desktop choose Link a mobile, copy the link it shows and paste it here.")
        } else {
            Say.line("Next: paste a link from SimpleX Desktop (Link a mobile), or type find to wait for a known desktop.")
        }
        Say.line(words)
        if options.reconnect { await runtime.reconnector?.start() }
        var session = PersonSession(runtime: runtime)
        for await input in console.inputs {
            switch input {
            case .remoteEvent(let event): _ = session.handle(event: event)
            case .automaticResponse(let answer): _ = session.handle(verified: answer)
            case .coreEvent(let envelope): Say.line(String(decoding: envelope, as: UTF8.self))
            case .controllerTooSlow(let bound):
                Say.error("the desktop stopped fetching events (\(bound) waiting), so its session was ended")
            case .signal, .endOfInput:
                _ = await session.unanswered()
                await runtime.shutdown()
                return ExitCode.ok.rawValue
            case .line(let line):
                if await session.answer(line) != nil { continue }
                if await !typed(line, runtime, &session) {
                    await runtime.shutdown()
                    return ExitCode.ok.rawValue
                }
            }
        }
        await runtime.shutdown()
        return ExitCode.ok.rawValue
    }

    /// Runs a typed line; false when the person wants to leave.
    private static func typed(_ line: String, _ runtime: HostRuntime, _ session: inout PersonSession) async -> Bool {
        let text = line.trimmingCharacters(in: .whitespaces)
        let command: String
        switch text.lowercased() {
        case "": return true
        case "quit", "exit": return false
        case "help", "?":
            Say.line(words)
            return true
        case "find": command = "/find remote ctrl"
        case "stop": command = "/stop remote ctrl"
        case "controllers", "list": command = "/list remote ctrls"
        default:
            if text.hasPrefix("xrcp:/") {
                command = "/connect remote ctrl \(text)"
            } else if text.hasPrefix("/") {
                command = text
            } else {
                Say.error("not understood: \(text)", hint: "type help for what this prompt takes")
                return true
            }
        }
        let answer = await runtime.router.answer(command)
        let envelope = answer.envelope
        if let (message, hint) = Say.envelopeError(answer) {
            Say.error(message, hint: hint)
        } else if let result = Say.result(envelope) {
            switch result["type"]?.stringValue {
            case "remoteCtrlConnecting": Say.line("Connecting…")
            case "remoteCtrlList":
                let all = Say.items(result["remoteCtrls"])
                if all.isEmpty { Say.line("No desktop is paired yet.") }
                for c in all {
                    Say.line(
                        "\(c["remoteCtrlId"]?.integerValue.map(String.init) ?? "?")  \(c["ctrlDeviceName"]?.stringValue ?? "")")
                }
            case "cmdOk" where command == "/find remote ctrl": Say.line("Waiting for a known desktop…")
            case "cmdOk" where command == "/stop remote ctrl": Say.line("Stopped.")
            case "archiveImported":
                Say.line(result.rendered)
                // The official answer has no field for it (its terminal prints "ok"): where the replaced store went.
                let prefix = runtime.folder.databasePrefix
                let backups = ["_chat.db.bak", "_agent.db.bak"].map { prefix + $0 }
                if backups.allSatisfy(FileManager.default.fileExists(atPath:)) {
                    Say.line("The previous store is kept as \(backups[0]) and \(backups[1]).")
                }
            default: Say.line(result.rendered)
            }
        }
        return true
    }
}
