// XRCP remote bodies (xrcp.md §9): the first byte picks the commands and responses read from JSON, a body sealed
// by the controller and opened by the host (compressed or not), or raw bytes opened by either side. Nothing traps;
// what is sealed opens as itself, and a command or response read back from its own JSON is itself.
import SimplexCrypto
import SimplexEncoding
import XRCP

private let identity = fixture("identity key") { try Ed25519.PrivateKey(seed: [UInt8](repeating: 1, count: 32)) }
private let session = fixture("session key") { try Ed25519.PrivateKey(seed: [UInt8](repeating: 2, count: 32)) }
private let keys = fixture("session keys") {
    let dh = try X25519.PrivateKey(rawRepresentation: [UInt8](repeating: 5, count: 32))
        .sharedSecret(with: X25519.PrivateKey(rawRepresentation: [UInt8](repeating: 6, count: 32)).publicKey)
    return SessionKeys(dh: dh, kem: try SNTRUP761.SharedSecret(rawRepresentation: [UInt8](repeating: 8, count: 32)))
}
private let code = Array("fuzz session code".utf8)

private func controller(compression: Bool) -> RemoteCrypto {
    .controller(keys: keys, sessionCode: code, compression: compression, sessionKey: session, identityKey: identity)
}

private func host(compression: Bool) -> RemoteCrypto {
    .host(keys: keys, sessionCode: code, compression: compression, sessionKey: session.publicKey, identityKey: identity.publicKey)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXRCPRemoteBody(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, rest) = split(fuzzBytes(data, size)) else { return 0 }
    let compression = selector & 8 != 0
    switch selector % 4 {
    case 0:
        if let command = try? RemoteCommand(json: rest) {
            let again = try? RemoteCommand(json: Array(command.json.rendered.utf8))
            invariant(again == command, "\(command) reads back from its JSON as \(String(describing: again))")
        }
        // A controller keeps a peer's protocol error as its JSON text (`invalidBody`), so only the others read back.
        if let response = try? RemoteResponse(json: rest), !response.isProtocolError {
            let again = try? RemoteResponse(json: response.encoded)
            invariant(again == response, "\(response) reads back from its JSON as \(String(describing: again))")
        }
    case 1:
        var sender = controller(compression: compression)
        var receiver = host(compression: compression)
        guard let sealed = try? sender.seal(json: rest) else { return 0 }
        let opened = try? receiver.open(sealed.body)
        invariant(opened?.json == rest, "a sealed body opens as \(String(describing: opened?.json))")
        invariant(
            opened?.consumed == sealed.body.count,
            "a sealed body of \(sealed.body.count) bytes consumed \(String(describing: opened?.consumed))")
    case 2:
        var receiver = host(compression: compression)
        _ = try? receiver.bodyLength(prefix: rest)
        _ = try? receiver.open(rest)
    default:
        var receiver = controller(compression: compression)
        _ = try? receiver.bodyLength(prefix: rest)
        _ = try? receiver.open(rest)
    }
    return 0
}

extension RemoteResponse {
    fileprivate var isProtocolError: Bool {
        if case .protocolError = self { return true }
        return false
    }
}
