public import SimplexEncoding

/// The FFI envelope (chat-api.md §1.2): `{"result": …}` or `{"error": …}`, as bytes.
public enum Envelope {
    public static func result(_ json: CanonicalJSON) -> [UInt8] {
        Array(#"{"result":"#.utf8) + Array(json.rendered.utf8) + [0x7d]
    }
    public static func error(_ error: ChatError) -> [UInt8] {
        Array(#"{"error":"#.utf8) + Array(error.json.rendered.utf8) + [0x7d]
    }
}
