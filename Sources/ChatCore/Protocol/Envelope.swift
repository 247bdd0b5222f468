/// The FFI envelope (chat-api.md §1.2, §1.3) as bytes: `{"result": …}` or `{"error": …}`, compact UTF-8 JSON — what
/// `chat_send_cmd` returns and what each `chat_recv_msg_wait` item is.
public struct EnvelopeJSON: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// `{"result": value}`.
    public static func result(_ value: JSONValue) -> EnvelopeJSON {
        EnvelopeJSON(bytes: JSONValue.object([JSONField("result", value)]).renderedBytes)
    }

    /// `{"error": ChatError}`.
    public static func error(_ error: ChatError) -> EnvelopeJSON {
        EnvelopeJSON(bytes: JSONValue.object([JSONField("error", error.json)]).renderedBytes)
    }

    /// A command's outcome.
    public init(_ outcome: Result<ChatResponse, ChatError>) {
        switch outcome {
        case .success(let response): self = .result(response.json)
        case .failure(let error): self = .error(error)
        }
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }
    public var description: String { text }
}
