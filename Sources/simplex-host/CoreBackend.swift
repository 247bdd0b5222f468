import ChatCore
import ChatStore
import SimplexHost

/// The embedded core (`--core-lib` runs a libsimplex instead: `LibraryCore`).
enum CoreBackend {
    static func make(prefix: String) throws -> any ChatBackend {
        EmbeddedCore(engine: try ChatEngine(prefix: prefix, confirmation: .yesUp))
    }
}

/// The embedded chat core as a backend.
struct EmbeddedCore: ChatBackend {
    let engine: ChatEngine

    func execute(_ line: String) async -> [UInt8] { await engine.execute(line).bytes }

    func nextEvent(waitMicroseconds: Int64) async -> [UInt8]? { await engine.nextEvent(waitMicroseconds: waitMicroseconds) }
}
