import Foundation
public import SimplexEncoding

/// `--reconnect`: while no session is up, the host keeps listening for its known controllers' announcements
/// (xrcp.md §6.3), connects to the first one found and confirms the session code itself. Only controllers paired
/// before are reached this way: their CA is pinned by TLS and their identity key checked (§5.8), which is why the
/// phone app, too, skips the code for them unless told to verify every connection.
///
/// The user's own `/stop remote ctrl` pauses it until the next `/connect` or `/find`; a session that ends any other
/// way (the controller stopped or vanished, discovery timed out) starts the search again.
public actor Reconnector {
    private let remoteControl: HostRemoteControl
    /// Seconds between a failed attempt and the next search, so a broken network does not spin.
    private let retryDelay: Double
    private let report: @Sendable (CommandRouter.Answer) -> Void
    private var enabled = true
    /// The search in progress is ours: a busy answer to the user's `/connect` or `/find` would be wrong.
    private var searching = false
    private var generation = 0

    /// `report` hears the envelopes of the commands run on the user's behalf (`remoteCtrlConnecting`,
    /// `remoteCtrlConnected`, errors), as the UI would have seen them.
    public init(
        remoteControl: HostRemoteControl, retryDelay: Double = 1, report: @escaping @Sendable (CommandRouter.Answer) -> Void
    ) {
        self.remoteControl = remoteControl
        self.retryDelay = retryDelay
        self.report = report
    }

    /// Starts searching unless a session or a search is already under way.
    public func start() async {
        guard enabled, !searching else { return }
        do {
            _ = try await remoteControl.find()
            searching = true
        } catch {
            switch error.withoutReason {
            case .remoteCtrl(.busy): break  // a session is up; its end brings us back
            default: retry()  // no known controller yet, or the multicast socket failed: try again later
            }
        }
    }

    /// The user runs a remote-control command: an automatic search gives way to it, a stop pauses reconnecting.
    public func userCommand(stop: Bool) async {
        generation += 1
        if stop {
            enabled = false
            searching = false
            return
        }
        enabled = true
        if searching {
            searching = false
            _ = await remoteControl.stop()
        }
    }

    /// Every remote-control event, in order.
    public func observe(_ event: CanonicalJSON) async {
        guard enabled else { return }
        switch event["type"]?.stringValue {
        case "remoteCtrlFound":
            guard searching, let id = event["remoteCtrl"]?["remoteCtrlId"]?.integerValue else { return }
            searching = false
            do { report(.init(envelope: Envelope.result(try await remoteControl.confirm(id: id)), reason: nil)) } catch {
                report(.init(envelope: Envelope.error(error), reason: error.reason))
                retry()
            }
        case "remoteCtrlSessionCode":
            // Known controllers only: a new one is verified by a person comparing the codes.
            guard event["remoteCtrl_"] != nil, let code = event["sessionCode"]?.stringValue else { return }
            do { report(.init(envelope: Envelope.result(try await remoteControl.verify(code: code)), reason: nil)) } catch {
                report(.init(envelope: Envelope.error(error), reason: error.reason))
            }
        case "remoteCtrlStopped":
            searching = false
            retry()
        default:
            break
        }
    }

    private func retry() {
        generation += 1
        let expected = generation
        let delay = retryDelay
        Task {
            try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            await self.retryIfCurrent(expected)
        }
    }

    private func retryIfCurrent(_ expected: Int) async {
        guard expected == generation else { return }
        await start()
    }
}
