import Foundation
import SimplexEncoding
import SimplexHost

/// Everything a person's mode reacts to, in one ordered stream: typed lines, signals and what the host reports.
enum ConsoleInput: Sendable {
    case line(String)
    case endOfInput
    case signal(Int32)
    case remoteEvent(RemoteControlEvent)
    case automaticResponse(CommandRouter.Answer)
    case coreEvent([UInt8])
    case controllerTooSlow(Int)
}

/// The stream of `ConsoleInput` and the runtime's output wired into it.
struct Console {
    let inputs: AsyncStream<ConsoleInput>
    let output: HostRuntime.Output
    private let continuation: AsyncStream<ConsoleInput>.Continuation

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: ConsoleInput.self)
        inputs = stream
        self.continuation = continuation
        output = HostRuntime.Output(
            coreEvent: { continuation.yield(.coreEvent($0)) }, remoteEvent: { continuation.yield(.remoteEvent($0)) },
            automaticResponse: { continuation.yield(.automaticResponse($0)) },
            controllerTooSlow: { continuation.yield(.controllerTooSlow($0)) })
    }

    /// Starts reading standard input (lines, then `endOfInput`) and listening for SIGINT/SIGTERM.
    func start() {
        let continuation = self.continuation
        Signals.onTermination { continuation.yield(.signal($0)) }
        Thread {
            while let line = readLine(strippingNewline: true) { continuation.yield(.line(line)) }
            continuation.yield(.endOfInput)
        }.start()
    }
}

/// A person's text: answers on standard output, problems as one line on standard error with a hint.
enum Say {
    static func line(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

    static func prompt(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }

    static func error(_ message: String, hint: String? = nil) {
        let text = hint.map { "simplex-host: \(message); \($0)" } ?? "simplex-host: \(message)"
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func failure(_ failure: StartFailure) -> Int32 {
        error(failure.message, hint: failure.hint)
        return failure.code.rawValue
    }

    /// A remote-control event as a sentence; nil for those a mode handles itself.
    static func describe(event remote: RemoteControlEvent) -> String? {
        let event = remote.json
        switch event["type"]?.stringValue {
        case "remoteCtrlFound":
            let name = event["remoteCtrl"]?["ctrlDeviceName"]?.stringValue ?? "a known desktop"
            let id = event["remoteCtrl"]?["remoteCtrlId"]?.integerValue.map(String.init) ?? "?"
            return "Found \(name) (\(id)) on the local network."
        case "remoteCtrlStopped":
            return "The session ended: " + (remote.reason.map { $0 + "." } ?? stopReason(event))
        default: return nil
        }
    }

    /// Why a session ended, for a person.
    static func stopReason(_ event: CanonicalJSON) -> String {
        if let hint = Hints.forEvent(event) { return hint }
        switch event["rcStopReason"]?["type"]?.stringValue {
        case "disconnected": return "the desktop disconnected (or the network between us went away)."
        case "discoveryFailed": return "no known desktop announced itself in time."
        case "setupFailed": return "the session could not be set up (\(errorText(event["rcStopReason"]?["chatError"])))."
        default: return "the connection failed (\(errorText(event["rcStopReason"]?["chatError"])))."
        }
    }

    /// A chat error in a few words: the innermost tag.
    static func errorText(_ error: CanonicalJSON?) -> String {
        guard let error else { return "unknown error" }
        if let exception = error["agentError"]?["rcpErr"]?["exception"]?.stringValue { return exception }
        if let message = error["errorType"]?["message"]?.stringValue { return message }
        for key in ["remoteCtrlError", "errorType", "storeError"] {
            if let inner = error[key] {
                if let p = inner["protocolError"]?["type"]?.stringValue { return p }
                if let t = inner["type"]?.stringValue { return t }
            }
        }
        if let rcp = error["agentError"]?["rcpErr"]?["type"]?.stringValue { return rcp }
        return error.rendered
    }

    /// An envelope's error as a sentence with its hint, or nil when it is a result. The reason of a refusal, when the
    /// host gave one, is the sentence; the tag follows it.
    static func envelopeError(_ envelope: [UInt8], reason: String? = nil) -> (message: String, hint: String?)? {
        guard let json = try? CanonicalJSON.parse(envelope), let error = json["error"] else { return nil }
        let hint = Hints.forResponse(.object(["resp": .object(["chatError": error])]))
        guard let reason else { return (errorText(error), hint) }
        // The reason says more than the hint guessed from the tag alone.
        return ("\(reason) (\(errorText(error)))", nil)
    }

    static func envelopeError(_ answer: CommandRouter.Answer) -> (message: String, hint: String?)? {
        envelopeError(answer.envelope, reason: answer.reason)
    }

    /// The items of a JSON array; none for anything else.
    static func items(_ json: CanonicalJSON?) -> [CanonicalJSON] {
        if case .array(let items)? = json { return items }
        return []
    }

    static func result(_ envelope: [UInt8]) -> CanonicalJSON? { (try? CanonicalJSON.parse(envelope))?["result"] }
}
