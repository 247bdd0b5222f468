public import ChatModel
public import SimplexEncoding
public import XRCP

/// `RemoteHostError` (xrcp.md §16.3), the controller role's chat-level errors.
public enum RemoteHostError: Error, Equatable, Sendable {
    /// No session for the key.
    case missing
    /// `/switch remote host <id>` to a host that is not connected.
    case inactive
    /// A session for the key exists already.
    case busy
    /// No host connected, or no HELLO came, in the time allowed.
    case timeout
    /// A command for a host that is not (yet) connected.
    case badState
    /// The host's negotiated app version is outside our range.
    case badVersion(AppVersion)
    /// A command that never runs on a host (xrcp.md §15.4).
    case localCommand
    /// A remote protocol failure: `RemoteProtocolError` as JSON, since the controller also raises the constructors the
    /// host never sends (`hTTP2`, `unexpectedResponse`, `exception`).
    case protocolError(CanonicalJSON)

    public var json: CanonicalJSON {
        switch self {
        case .missing: return Self.tag("missing")
        case .inactive: return Self.tag("inactive")
        case .busy: return Self.tag("busy")
        case .timeout: return Self.tag("timeout")
        case .badState: return Self.tag("badState")
        case .badVersion(let v): return .object(["type": .string("badVersion"), "appVersion": .string(v.description)])
        case .localCommand: return Self.tag("localCommand")
        // An unnamed argument: `data` in the tagged style.
        case .protocolError(let e): return .object(["type": .string("protocolError"), "data": e])
        }
    }

    public static func remoteProtocol(_ e: RemoteProtocolError) -> RemoteHostError { .protocolError(e.json) }

    /// `hTTP2`: the controller's HTTP/2 client failed, or the session it ran on ended.
    public static func http2(_ text: String) -> RemoteHostError {
        .protocolError(.object(["type": .string("hTTP2"), "http2Error": .string(text)]))
    }

    private static func tag(_ t: String) -> CanonicalJSON { .object(["type": .string(t)]) }
}

extension RemoteHostKey {
    /// `RHKey`: `{"type":"new"}` or `{"type":"id","remoteHostId":n}`.
    public var json: CanonicalJSON {
        switch self {
        case .new: return .object(["type": .string("new")])
        case .id(let id): return .object(["type": .string("id"), "remoteHostId": .integer(id)])
        }
    }

    public var id: Int64? {
        if case .id(let id) = self { return id }
        return nil
    }
}
