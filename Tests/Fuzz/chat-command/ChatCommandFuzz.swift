// The chat command parser (chat-api.md §1.1) and the controller's command line: a line never traps, a command that
// parses has a canonical text, and a text that parses again prints the same. (Not always as the same command: a
// text argument may begin like an optional part, and the core's grammar is ambiguous in the same way.)
import ChatModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChatCommand(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let line = fuzzText(fuzzBytes(data, size))
    if let command = try? ChatCommand(parsing: line) {
        let text = command.text
        if let again = try? ChatCommand(parsing: text) {
            let third = try? ChatCommand(parsing: again.text)
            invariant(
                third == again, "\(line.debugDescription): \(text.debugDescription) prints as \(again.text.debugDescription)")
        }
    }
    _ = try? ControllerCommand(parsing: line)
    return 0
}
