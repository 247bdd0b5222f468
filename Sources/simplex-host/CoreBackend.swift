import ChatCore
import ChatStore
import Foundation
import SimplexEncoding
import SimplexHost

/// The core this build runs on: the embedded one (a libsimplex loaded at run time comes with the C ABI).
enum CoreBackend {
    /// The core on `<prefix>_chat.db`, with its files in `dataFolder/files` — where the session bridge stores a
    /// controller's uploads, so that a note can reference an uploaded file — as an app sets its paths at launch.
    static func make(prefix: String, dataFolder: URL) async throws -> any ChatBackend {
        let engine = try ChatEngine(prefix: prefix, confirmation: .yesUp)
        func folder(_ name: String) -> String { CanonicalJSON.quoted(dataFolder.appendingPathComponent(name).path) }
        let paths =
            #"{"appFilesFolder":\#(folder("files")),"appTempFolder":\#(folder("temp")),"appAssetsFolder":\#(folder("assets"))}"#
        let reply = await engine.execute("/set file paths " + paths)
        guard reply.text.hasPrefix(#"{"result":"#) else { throw CoreBackendError(message: reply.text) }
        return EmbeddedCore(engine: engine)
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
