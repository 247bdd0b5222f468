public import ChatModel
public import SimplexEncoding
public import XRCP

/// `RemoteCtrlError` (xrcp.md §16.2), the host role's chat-level errors.
public enum RemoteCtrlError: Error, Equatable, Sendable {
    case inactive
    case badState
    case busy
    case timeout
    case noKnownControllers
    case badController
    case badInvitation
    /// Carries the controller's maximum app version.
    case badVersion(AppVersion)
    case protocolError(RemoteProtocolError)

    public var json: CanonicalJSON {
        switch self {
        case .inactive: return Self.tag("inactive")
        case .badState: return Self.tag("badState")
        case .busy: return Self.tag("busy")
        case .timeout: return Self.tag("timeout")
        case .noKnownControllers: return Self.tag("noKnownControllers")
        case .badController: return Self.tag("badController")
        case .badInvitation: return Self.tag("badInvitation")
        case .badVersion(let v): return .object(["type": .string("badVersion"), "appVersion": .string(v.description)])
        case .protocolError(let e): return .object(["type": .string("protocolError"), "protocolError": e.json])
        }
    }

    private static func tag(_ t: String) -> CanonicalJSON { .object(["type": .string(t)]) }
}

/// A `ChatError` (xrcp.md §16.1, chat-api.md §8) as the remote-control commands raise it.
public enum ChatError: Error, Equatable, Sendable {
    /// `{"type":"error","errorType":{…}}`: generic errors such as `commandError`, `noActiveUser`.
    case error(type: String, fields: [String: CanonicalJSON] = [:])
    /// XRCP failures arrive as agent errors `RCP`.
    case rcp(XRCPError)
    case remoteCtrl(RemoteCtrlError)
    /// The controller role's errors, for the session of `RemoteHostKey`.
    case remoteHost(RemoteHostKey, RemoteHostError)
    case store(type: String, fields: [String: CanonicalJSON] = [:])
    /// An error as another core (a host) reported it, passed on unchanged.
    case reported(CanonicalJSON)
    /// An error with the reason a person needs, beyond its tag: the JSON is the inner error's alone, so the reference's
    /// tags stay what they are on the wire; the reason goes to the CLI's line and `--json`'s standard error.
    indirect case explained(ChatError, reason: String)

    public static func commandError(_ message: String) -> ChatError {
        .error(type: "commandError", fields: ["message": .string(message)])
    }

    /// This error with `reason` attached (replacing any reason it had).
    public func because(_ reason: String) -> ChatError { .explained(withoutReason, reason: reason) }

    /// The reason attached by `because`, if any.
    public var reason: String? {
        if case .explained(_, let reason) = self { return reason }
        return nil
    }

    /// The error as the wire carries it, without its reason.
    public var withoutReason: ChatError {
        if case .explained(let inner, _) = self { return inner.withoutReason }
        return self
    }

    public var json: CanonicalJSON {
        switch self {
        case .explained(let inner, _): return inner.json
        case .error(let type, let fields):
            return .object([
                "type": .string("error"), "errorType": .object(fields.merging(["type": .string(type)]) { a, _ in a }),
            ])
        case .rcp(let e):
            return .object([
                "type": .string("errorAgent"), "agentError": .object(["type": .string("RCP"), "rcpErr": e.json]),
                "agentConnId": .string(""),
            ])
        case .remoteCtrl(let e):
            return .object(["type": .string("errorRemoteCtrl"), "remoteCtrlError": e.json])
        case .reported(let json): return json
        case .remoteHost(let key, let e):
            return .object(["type": .string("errorRemoteHost"), "rhKey": key.json, "remoteHostError": e.json])
        case .store(let type, let fields):
            return .object([
                "type": .string("errorStore"), "storeError": .object(fields.merging(["type": .string(type)]) { a, _ in a }),
            ])
        }
    }
}
