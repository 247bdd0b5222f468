public import XRCP

/// What a host session needs from the chat core: the one narrow interface between the remote layer and a core
/// (xrcp.md §11.3). The session manager fills it in.
public protocol RemoteHostHandler: Sendable {
    /// Runs a chat command line; returns the core's FFI envelope JSON (`{"result": …}` / `{"error": …}`).
    func execute(command: String, retryNumber: Int64) async -> [UInt8]
    /// The next event's envelope, or nil when `waitMicroseconds` passed without one.
    func nextEvent(waitMicroseconds: Int64) async -> [UInt8]?
    /// Starts storing an uploaded file; the name is the controller's and must be sanitised by the handler.
    func beginStoring(fileName: String, fileSize: UInt32) async throws(RemoteProtocolError) -> any RemoteFileSink
    /// Opens a file the controller asks for, after checking it against the host's file records.
    func openFile(_ file: RemoteFile) async throws(RemoteFileError) -> any RemoteFileSource
}

/// Where an uploaded file's bytes go.
public protocol RemoteFileSink: Sendable {
    func write(_ bytes: [UInt8]) async throws(RemoteProtocolError)
    /// The file arrived whole and checked: keep it; returns the stored name for `fileStored`.
    func commit() async throws(RemoteProtocolError) -> String
    /// The transfer failed: remove what was written.
    func discard() async
}

/// A file being sent in a `file` response.
public protocol RemoteFileSource: Sendable {
    var size: UInt32 { get }
    /// SHA-512 of the file's bytes.
    var digest: [UInt8] { get }
    /// The next piece, or nil at the end.
    func read(max: Int) async throws(RemoteProtocolError) -> [UInt8]?
}

/// Why `getFile` cannot be served: a chat error for the response, or a protocol error.
public enum RemoteFileError: Error, Sendable {
    /// The chat error's FFI envelope JSON (e.g. `differentActiveUser`, store error `fileNotFound`).
    case chat([UInt8])
    case protocolError(RemoteProtocolError)
}
