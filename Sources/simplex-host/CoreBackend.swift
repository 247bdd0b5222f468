import SimplexEncoding
import SimplexHost

/// The core this build runs on.
enum CoreBackend {
    static func make(prefix: String) throws -> any ChatBackend { UnavailableCore() }
}

/// Until the embedded core is linked in: every command gets the same clear error, and there are no events.
struct UnavailableCore: ChatBackend {
    func execute(_ line: String) async -> [UInt8] {
        Envelope.error(.commandError("the embedded chat core is not part of this build yet"))
    }
    func nextEvent(waitMicroseconds: Int64) async -> [UInt8]? {
        try? await Task.sleep(nanoseconds: UInt64(waitMicroseconds) * 1000)
        return nil
    }
}
