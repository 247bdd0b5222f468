import ChatCore
import ChatStore
import Foundation
import SimplexEncoding
import SimplexHost

/// The embedded core (`--core-lib` runs a libsimplex instead: `LibraryCore`).
enum CoreBackend {
    /// The embedded core on `<prefix>_chat.db`, sealed with `key` when given.
    static func make(prefix: String, key: DatabaseKey?) throws -> any ChatBackend {
        EmbeddedCore(engine: try ChatEngine(prefix: prefix, key: key, confirmation: .yesUp))
    }

    /// Puts the core's files in `dataFolder/files` — where the session bridge stores a controller's uploads, so that a
    /// note can reference an uploaded file — as an app sets its paths at launch; any core, embedded or loaded.
    static func setFilePaths(of backend: any ChatBackend, dataFolder: URL) async throws {
        func folder(_ name: String) -> String { CanonicalJSON.quoted(dataFolder.appendingPathComponent(name).path) }
        let paths =
            #"{"appFilesFolder":\#(folder("files")),"appTempFolder":\#(folder("temp")),"appAssetsFolder":\#(folder("assets"))}"#
        let reply = String(decoding: await backend.execute("/set file paths " + paths), as: UTF8.self)
        guard reply.hasPrefix(#"{"result":"#) else { throw CoreBackendError(message: reply) }
    }
}

/// The core could not be set up.
struct CoreBackendError: Error, CustomStringConvertible {
    let message: String
    var description: String { "cannot set the core's file paths: \(message)" }
}

/// The embedded chat core as a backend.
struct EmbeddedCore: ChatBackend {
    let engine: ChatEngine

    func execute(_ line: String) async -> [UInt8] { await engine.execute(line).bytes }

    func nextEvent(waitMicroseconds: Int64) async -> [UInt8]? { await engine.nextEvent(waitMicroseconds: waitMicroseconds) }

    func recordedFilePath(userId: Int64, fileId: Int64, sent: Bool, fileSource: CanonicalJSON) async -> Result<
        String, ChatErrorEnvelope
    > {
        await engine.recordedFilePath(userId: userId, fileId: fileId, sent: sent, fileSource: fileSource).mapError {
            ChatErrorEnvelope(bytes: EnvelopeJSON.error($0).bytes)
        }
    }
}
