extension ChatEngine {
    /// The valid display name derived from `name` (the core's `mkValidName`; the C ABI's `chat_valid_name`).
    public static func validDisplayName(_ name: String) -> String { DisplayName.valid(name) }
}
