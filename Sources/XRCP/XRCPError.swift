public import SimplexEncoding

/// XRCP-level failures, `RCErrorType` of xrcp.md §16.5. JSON tags are spelled as the reference spells them.
public enum XRCPError: Error, Equatable, Sendable {
    case `internal`(String)
    case identity
    case noLocalAddress
    case newController
    case notDiscovered
    case tlsStartFailed
    case exception(String)
    case ctrlAuth
    case ctrlNotFound
    case ctrlError(String)
    case invitation
    case version
    case encrypt
    case decrypt
    case blockSize
    case syntax(String)

    /// The tagged JSON the chat API carries (`{"type":"tLSStartFailed"}`, …).
    public var json: CanonicalJSON {
        switch self {
        case .internal(let s): return .object(["type": .string("internal"), "internalErr": .string(s)])
        case .identity: return Self.tag("identity")
        case .noLocalAddress: return Self.tag("noLocalAddress")
        case .newController: return Self.tag("newController")
        case .notDiscovered: return Self.tag("notDiscovered")
        case .tlsStartFailed: return Self.tag("tLSStartFailed")
        case .exception(let s): return .object(["type": .string("exception"), "exception": .string(s)])
        case .ctrlAuth: return Self.tag("ctrlAuth")
        case .ctrlNotFound: return Self.tag("ctrlNotFound")
        case .ctrlError(let s): return .object(["type": .string("ctrlError"), "ctrlErr": .string(s)])
        case .invitation: return Self.tag("invitation")
        case .version: return Self.tag("version")
        case .encrypt: return Self.tag("encrypt")
        case .decrypt: return Self.tag("decrypt")
        case .blockSize: return Self.tag("blockSize")
        case .syntax(let s): return .object(["type": .string("syntax"), "syntaxErr": .string(s)])
        }
    }

    private static func tag(_ t: String) -> CanonicalJSON { .object(["type": .string(t)]) }
}

/// Failures of the remote chat layer's bodies and files, `RemoteProtocolError` of xrcp.md §16.4
/// (the part raised while encoding and decoding bodies).
public enum RemoteProtocolError: Error, Equatable, Sendable {
    case invalidSize
    case invalidJSON(String)
    case invalidBody(String)
    case sessionCode
    case noFile
    case fileSize
    case fileDigest
    case manySkippedIds(UInt32)
    case earlierId(UInt32)
    case duplicateId
    case remoteControl(XRCPError)

    public var json: CanonicalJSON {
        switch self {
        case .invalidSize: return .object(["type": .string("invalidSize")])
        case .invalidJSON(let s): return .object(["type": .string("invalidJSON"), "invalidJSON": .string(s)])
        case .invalidBody(let s): return .object(["type": .string("invalidBody"), "invalidBody": .string(s)])
        case .sessionCode: return .object(["type": .string("pRESessionCode")])
        case .noFile: return .object(["type": .string("noFile")])
        case .fileSize: return .object(["type": .string("fileSize")])
        case .fileDigest: return .object(["type": .string("fileDigest")])
        case .manySkippedIds(let n): return .object(["type": .string("manySkippedIds"), "data": .integer(Int64(n))])
        case .earlierId(let n): return .object(["type": .string("pREEarlierId"), "data": .integer(Int64(n))])
        case .duplicateId: return .object(["type": .string("pREDuplicateId")])
        case .remoteControl(let e): return .object(["type": .string("pRERemoteControl"), "rcError": e.json])
        }
    }
}
