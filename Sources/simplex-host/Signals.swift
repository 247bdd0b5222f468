import Dispatch
import Foundation

/// SIGINT and SIGTERM end the host gracefully: the session is stopped (the controller sees the connection close)
/// before the process exits, as a systemd stop or Ctrl-C expects.
enum Signals {
    /// Kept alive for the life of the process.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Calls `handler` once per signal, on a queue of its own.
    static func onTermination(_ handler: @escaping @Sendable (Int32) -> Void) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { handler(signalNumber) }
            source.resume()
            sources.append(source)
        }
    }
}
