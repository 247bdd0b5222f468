/// What the host needs from a chat core (the embedded one, or a libsimplex loaded at run time): command lines in,
/// FFI envelopes out (chat-api.md §1.2–1.3).
public protocol ChatBackend: Sendable {
    /// Runs a command line; returns `{"result": …}` or `{"error": …}`.
    func execute(_ line: String) async -> [UInt8]
    /// The next event envelope, or nil when `waitMicroseconds` passed.
    func nextEvent(waitMicroseconds: Int64) async -> [UInt8]?
}
