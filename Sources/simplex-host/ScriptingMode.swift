import Foundation
import SimplexEncoding
import SimplexHost

/// `simplex-host --json`: commands one per line on standard input, run in order; every response and event as one JSON
/// line on standard output, hints for people on standard error. Ends at the end of input or on SIGINT/SIGTERM, stopping
/// a session first.
enum ScriptingMode {
    static func run(_ options: Options) async -> Int32 {
        let output = OutputLines()
        // Events go out in the order they came, through one stream and one writer (a task per event would let a
        // burst of them, such as a new group's items, overtake one another).
        let (events, eventLines) = AsyncStream.makeStream(of: [UInt8].self)
        let eventWriter = Task { for await line in events { await output.write(line) } }
        let runtime: HostRuntime
        do {
            runtime = try await HostRuntime(
                options: options,
                output: HostRuntime.Output(
                    coreEvent: { envelope in eventLines.yield(Scripting.event(envelope)) },
                    remoteEvent: { event in
                        if let hint = event.reason ?? Hints.forEvent(event.json) { Say.error(hint) }
                        eventLines.yield(Scripting.event(event.json))
                    },
                    // What the reconnector ran answers like a command, without a corrId.
                    automaticResponse: { answer in
                        if let reason = answer.reason { Say.error(reason) }
                        eventLines.yield(Scripting.response(answer.envelope, corrId: nil))
                    },
                    controllerTooSlow: { bound in
                        Say.error("the controller stopped fetching events (\(bound) waiting), so its session was ended")
                    }))
        } catch {
            eventLines.finish()
            return Say.failure(error)
        }

        let (lines, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        Signals.onTermination { _ in continuation.finish() }
        Thread {
            // Bytes, not `readLine`: it would read invalid UTF-8 as replacement characters and run the command.
            let input = Scripting.InputLines()
            while let line = input.next() { continuation.yield(line) }
            continuation.finish()
        }.start()
        for await line in lines where !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0d }) {
            let corrId: String?
            let command: String
            switch Scripting.request(line) {
            case .command(let id, let text): (corrId, command) = (id, text)
            case .refused(let message):
                await output.write(Scripting.response(Scripting.commandError(message), corrId: nil))
                continue
            }
            let answer = await runtime.router.answer(command)
            let response = Scripting.response(answer.envelope, corrId: corrId)
            if let hint = answer.reason ?? (try? CanonicalJSON.parse(response)).flatMap(Hints.forResponse) { Say.error(hint) }
            await output.write(response)
        }
        await runtime.shutdown()
        eventLines.finish()
        await eventWriter.value
        return ExitCode.ok.rawValue
    }
}

/// Writes one JSON line at a time to standard output, flushed at once.
actor OutputLines {
    func write(_ line: [UInt8]) {
        FileHandle.standardOutput.write(Data(line + [0x0a]))
    }
}

/// The terminal WebSocket API's message shapes (chat-api.md §1.5), from FFI envelopes. The core's JSON is passed on
/// byte for byte, in the order the core wrote it (`type` first), as the official terminal server passes its
/// encoder's output on; only the envelope around it is written here.
enum Scripting {
    /// `{"corrId": …, "resp": …}`, `corrId` first as the official envelope has it; a failed command is a
    /// `chatCmdError` response.
    static func response(_ envelope: [UInt8], corrId: String?) -> [UInt8] {
        var out = Array("{".utf8)
        if let corrId {
            out += Array(#""corrId":"#.utf8)
            CanonicalJSON.appendQuoted(corrId, to: &out)
            out.append(UInt8(ascii: ","))
        }
        out += Array(#""resp":"#.utf8) + resp(envelope, errorTag: "chatCmdError") + [UInt8(ascii: "}")]
        return out
    }

    /// Events carry no corrId; asynchronous errors are `chatError` responses.
    static func event(_ envelope: [UInt8]) -> [UInt8] {
        Array(#"{"resp":"#.utf8) + resp(envelope, errorTag: "chatError") + [UInt8(ascii: "}")]
    }

    /// What remote control reports, a value it built rather than bytes a core wrote.
    static func event(_ json: CanonicalJSON) -> [UInt8] { Array(CanonicalJSON.object(["resp": json]).rendered.utf8) }

    private static func resp(_ envelope: [UInt8], errorTag: String) -> [UInt8] {
        let members = (try? CanonicalJSON.members(ofObject: envelope)) ?? []
        if let result = members.first(where: { $0.key == "result" }) { return Array(envelope[result.value]) }
        if let error = members.first(where: { $0.key == "error" }) {
            var out = Array(#"{"type":"#.utf8)
            CanonicalJSON.appendQuoted(errorTag, to: &out)
            return out + Array(#","chatError":"#.utf8) + envelope[error.value] + [UInt8(ascii: "}")]
        }
        var out = Array(#"{"type":"#.utf8)
        CanonicalJSON.appendQuoted(errorTag, to: &out)
        return out
            + Array(
                #","chatError":{"type":"error","errorType":{"type":"internalError","message":"the core returned invalid JSON"}}}"#
                    .utf8)
    }

    /// A line of input, read: a command to run, or why it is refused unrun.
    enum Request: Equatable {
        case command(corrId: String?, String)
        case refused(String)
    }

    /// A line of input: JSON `{"corrId","cmd"}` or a plain command. A line that begins with `{` is a request as the
    /// official terminal server reads one (`ChatSrvRequest`, both fields strings): anything else in it — a corrId
    /// that is a number, `true` or `null`, a missing field — is refused as "invalid request", without a corrId and
    /// without running the command. Invalid UTF-8 is refused as `chat_send_cmd` refuses it.
    static func request(_ line: [UInt8]) -> Request {
        var bytes = line[...]
        if bytes.last == 0x0d { bytes = bytes.dropLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .refused("command is not valid UTF-8") }
        guard text.hasPrefix("{") else { return .command(corrId: nil, text) }
        guard let json = try? CanonicalJSON.parse(text), let corrId = json["corrId"]?.stringValue,
            let cmd = json["cmd"]?.stringValue
        else { return .refused("invalid request") }
        return .command(corrId: corrId, cmd)
    }

    /// The envelope of a command refused before the core saw it, as the core's own `commandError`.
    static func commandError(_ message: String) -> [UInt8] {
        var out = Array(#"{"error":{"type":"error","errorType":{"type":"commandError","message":"#.utf8)
        CanonicalJSON.appendQuoted(message, to: &out)
        return out + Array("}}}".utf8)
    }

    /// A reader of standard input's lines without their newline, as bytes; `next()` is nil at the end of input.
    final class InputLines {
        private var buffer: [UInt8] = []
        private var start = 0
        private var ended = false

        func next() -> [UInt8]? {
            while true {
                if let newline = buffer[start...].firstIndex(of: 0x0a) {
                    let line = Array(buffer[start..<newline])
                    start = newline + 1
                    return line
                }
                if ended {
                    guard start < buffer.count else { return nil }
                    defer { start = buffer.count }
                    return Array(buffer[start...])
                }
                buffer.removeFirst(start)
                start = 0
                var chunk = [UInt8](repeating: 0, count: 65_536)
                let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count > 0 { buffer += chunk[..<count] } else if count == 0 || errno != EINTR { ended = true }
            }
        }
    }
}

/// One-line hints for people, from events and responses whose JSON carries the explanation.
enum Hints {
    static func forResponse(_ message: CanonicalJSON) -> String? {
        guard let error = message["resp"]?["chatError"]?["remoteCtrlError"] else { return nil }
        switch error["type"]?.stringValue {
        case "badVersion":
            let v = error["appVersion"]?.stringValue ?? "?"
            // The version is the controller's maximum: below our minimum it is the older side, else we are.
            if RefusalReasons.isBelowMinimumPeer(v) {
                return "the controller's app is too old (it accepts up to \(v); this host needs "
                    + "\(RefusalReasons.minimumPeer) or newer): update SimpleX Desktop to \(RefusalReasons.minimumPeer) or newer"
            }
            return "this host is too old for the controller (it accepts up to \(v)): update simplex-host"
        case "badInvitation": return "the link is not a valid SimpleX remote-control invitation, or it was changed"
        case "busy": return "a remote session is already active: /stop remote ctrl first"
        default: return nil
        }
    }

    static func forEvent(_ event: CanonicalJSON) -> String? {
        guard event["type"]?.stringValue == "remoteCtrlStopped", let error = event["rcStopReason"]?["chatError"] else {
            return nil
        }
        if let text = error["agentError"]?["rcpErr"]?["exception"]?.stringValue { return "could not connect: \(text)" }
        if error["agentError"]?["rcpErr"]?["type"]?.stringValue == "identity" {
            return "the controller's certificate does not match the invitation: this link may have been used by another device"
        }
        if error["agentError"]?["rcpErr"]?["type"]?.stringValue == "notDiscovered" {
            return "no known controller announced itself: is it on this network, with multicast allowed?"
        }
        return nil
    }
}
