import SimplexEncoding
import SimplexHost

/// Follows one remote session for a person: shows the session code and asks to compare it (a new desktop), says
/// when the desktop is connected and why a session ended. Used by `connect`, `find` and the interactive mode.
struct PersonSession {
    /// What happened, for the mode to decide whether to go on.
    enum Step: Equatable {
        case none
        case connected
        /// The session ended (or never came up); `wasConnected` tells which.
        case ended(wasConnected: Bool)
    }

    let runtime: HostRuntime
    /// The code waiting for the person's yes or no.
    private(set) var pendingCode: String?
    private(set) var connectedTo: String?

    init(runtime: HostRuntime) { self.runtime = runtime }

    mutating func handle(event remote: RemoteControlEvent) -> Step {
        let event = remote.json
        switch event["type"]?.stringValue {
        case "remoteCtrlSessionCode":
            let code = event["sessionCode"]?.stringValue ?? ""
            if event["remoteCtrl_"] != nil, runtime.reconnector != nil {
                Say.line("Session code \(code): a known desktop, confirming.")
                return .none
            }
            pendingCode = code
            Say.line("Session code: \(code)")
            Say.prompt("Does SimpleX Desktop show the same code? [y/n] ")
            return .none
        case "remoteCtrlStopped":
            if pendingCode != nil { Say.line("") }
            pendingCode = nil
            let wasConnected = connectedTo != nil
            connectedTo = nil
            Say.line(Say.describe(event: remote) ?? "The session ended.")
            return .ended(wasConnected: wasConnected)
        default:
            if let text = Say.describe(event: remote) { Say.line(text) }
            return .none
        }
    }

    /// A typed line while a code waits for an answer; nil when no code waits (the mode handles the line).
    mutating func answer(_ line: String) async -> Step? {
        guard let code = pendingCode else { return nil }
        pendingCode = nil
        switch line.trimmingCharacters(in: .whitespaces).lowercased() {
        case "y", "yes":
            return handle(verified: await runtime.router.answer("/verify remote ctrl \(code)"))
        default:
            _ = await runtime.router.executeLocal("/stop remote ctrl")
            Say.error("the codes differ, so the session was stopped", hint: "connect again with a fresh link from the desktop")
            return .ended(wasConnected: false)
        }
    }

    /// The person gave no answer (the input ended): the code cannot be confirmed.
    mutating func unanswered() async -> Step? {
        guard pendingCode != nil else { return nil }
        pendingCode = nil
        _ = await runtime.router.executeLocal("/stop remote ctrl")
        Say.line("")
        Say.error(
            "the session code was not confirmed", hint: "run this in a terminal, or confirm with --json and /verify remote ctrl")
        return .ended(wasConnected: false)
    }

    /// The answer to `/verify remote ctrl`, ours or the reconnector's.
    mutating func handle(verified answer: CommandRouter.Answer) -> Step {
        let envelope = answer.envelope
        if let (message, hint) = Say.envelopeError(answer) {
            Say.error("the session could not be set up: \(message)", hint: hint)
            return .ended(wasConnected: false)
        }
        guard let result = Say.result(envelope), result["type"]?.stringValue == "remoteCtrlConnected" else { return .none }
        let name = result["remoteCtrl"]?["ctrlDeviceName"]?.stringValue ?? "the desktop"
        connectedTo = name
        Say.line("Connected to \(name): it now uses this machine's chat. Ctrl-C here (or Stop on the desktop) ends the session.")
        return .connected
    }
}
