/// A command line that no grammar accepts. The chat core answers it with the spec's
/// `{"type":"error","errorType":{"type":"commandError","message":…}}` (chat-api.md §1.1 step 2).
public struct CommandParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was expected and where, e.g. `expected "on" or "off" after "/_unread chat @1 "`.
    public let message: String
    /// The byte offset in the (trailing-whitespace-trimmed) line where the farthest attempt stopped.
    public let position: Int

    public init(message: String, position: Int) {
        self.message = message
        self.position = position
    }

    public var description: String { message }

    /// The message for the farthest failure the scanner recorded; for a command line, a failure within
    /// its first word means the command is unknown.
    init(_ scanner: CommandScanner) {
        let command = scanner.isCommandLine
        let bytes = scanner.bytes
        let position = max(scanner.failurePosition, 0)
        if command && bytes.isEmpty {
            self.init(message: "empty command", position: 0)
        } else if command && scanner.failurePosition < scanner.commandWordEnd {
            let word = CommandScanner.quoted(bytes[..<scanner.commandWordEnd])
            self.init(message: "unknown command \(word)", position: position)
        } else {
            let limit = 8
            var alternatives = scanner.expectations.prefix(limit).joined(separator: ", ")
            if scanner.expectations.count > limit {
                alternatives += ", …"
            } else if let last = scanner.expectations.last, scanner.expectations.count > 1 {
                alternatives = scanner.expectations.dropLast().joined(separator: ", ") + " or " + last
            }
            var message = "expected " + (alternatives.isEmpty ? "a command" : alternatives)
            if position > 0 {
                let context = 60
                var start = max(0, position - context)
                while start < position, bytes[start] & 0xC0 == 0x80 {  // not inside a UTF-8 sequence
                    start += 1
                }
                let shown = CommandScanner.text(bytes[start..<position])
                message += " after \"" + (start > 0 ? "…" : "") + shown + "\""
            }
            self.init(message: message, position: position)
        }
    }
}
