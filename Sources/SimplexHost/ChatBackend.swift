public import SimplexEncoding

/// What the host needs from a chat core (the embedded one, or a libsimplex loaded at run time): command lines in,
/// FFI envelopes out (chat-api.md §1.2–1.3).
public protocol ChatBackend: Sendable {
    /// Runs a command line; returns `{"result": …}` or `{"error": …}`.
    func execute(_ line: String) async -> [UInt8]
    /// The next event envelope, or nil when `waitMicroseconds` passed.
    func nextEvent(waitMicroseconds: Int64) async -> [UInt8]?
    /// A remote controller's `getFile` (xrcp.md §11.3): the path, relative to the files folder, of the active user's
    /// file record `(userId, fileId, sent)` whose source is `fileSource`; else the error envelope to answer with
    /// (`noActiveUser`, `differentActiveUser`, the store's `fileNotFound`).
    func recordedFilePath(userId: Int64, fileId: Int64, sent: Bool, fileSource: CanonicalJSON) async -> Result<
        String, ChatErrorEnvelope
    >
}

/// A chat error as the FFI envelope `{"error": …}`.
public struct ChatErrorEnvelope: Error, Sendable, Equatable {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }
}

extension ChatBackend {
    /// A core that keeps no file records has none to serve.
    public func recordedFilePath(userId: Int64, fileId: Int64, sent: Bool, fileSource: CanonicalJSON) async -> Result<
        String, ChatErrorEnvelope
    > {
        .failure(ChatErrorEnvelope(bytes: Envelope.error(.store(type: "fileNotFound", fields: ["fileId": .integer(fileId)]))))
    }

    /// The host's remote-control commands (all but `/set device name`) need an active user and a started chat
    /// (xrcp.md §14). Returns the core's error envelope when either is missing.
    func remoteControlPrecondition() async -> [UInt8]? {
        let user = await execute("/user")
        if user.starts(with: Array(#"{"error""#.utf8)) { return user }
        let running = await execute("/_check running")
        guard let json = try? CanonicalJSON.parse(running), json["result"]?["type"]?.stringValue == "chatRunning" else {
            return Envelope.error(.error(type: "chatNotStarted"))
        }
        return nil
    }
}
