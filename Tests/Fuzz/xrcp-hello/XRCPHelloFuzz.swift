import SimplexCrypto
import SimplexEncoding

// XRCP HELLO blocks (xrcp.md §7): the first byte picks the block a controller opens from a host (as sent, or its
// JSON sealed under the fixed keys), the block a host opens from a controller, or a host HELLO's JSON read and
// written back.
@testable import XRCP

private let controllerKey = fixture("controller key") {
    try X25519.PrivateKey(rawRepresentation: [UInt8](repeating: 7, count: 32))
}
private let hostKey = fixture("host key") { try X25519.PrivateKey(rawRepresentation: [UInt8](repeating: 9, count: 32)) }
private let dhSecret = fixture("DH secret") { try hostKey.sharedSecret(with: controllerKey.publicKey) }
private let nonce = fixture("nonce") { try SecretBox.Nonce(rawRepresentation: [UInt8](repeating: 3, count: 24)) }
private let kem = SNTRUP761.KeyPair()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXRCPHello(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, rest) = split(fuzzBytes(data, size)) else { return 0 }
    let block = selector & 4 == 0 ? padded(rest) : rest
    switch selector % 4 {
    case 0:
        _ = try? HostHello.open(block: block, controllerKey: controllerKey)
    case 1:
        // The JSON inside a well-formed block: what the host's JSON reads as, opening reads as too.
        var w = ByteWriter()
        w.writeBytes(Array("HELLO ".utf8))
        guard (try? w.writeShortBytes(hostKey.publicKey.spki)) != nil else { return 0 }
        w.writeBytes(nonce.rawRepresentation)
        guard let box = try? SecretBox.sealPadded(rest, to: helloBodySize, key: dhSecret.boxKey, nonce: nonce) else { return 0 }
        w.writeBytes(box)
        let opened = try? HostHello.open(block: padded(w.bytes), controllerKey: controllerKey)
        let direct = (try? CanonicalJSON.parse(rest)).flatMap { try? HostHello(json: $0) }
        invariant(
            opened?.0 == direct,
            "a sealed HELLO opens as \(String(describing: opened?.0)), its JSON reads as \(String(describing: direct))")
    case 2:
        _ = try? ControllerBlock.open(block: block, kemSecretKey: kem.secretKey, dhSecret: dhSecret)
    default:
        guard let json = try? CanonicalJSON.parse(rest), let hello = try? HostHello(json: json) else { return 0 }
        let again = try? HostHello(json: hello.json)
        invariant(again == hello, "HELLO \(hello) writes JSON \(hello.json.rendered) that reads as \(String(describing: again))")
    }
    return 0
}

/// Short inputs padded to a whole block, so that mutations reach past the size check (selector bit 2 clear).
private func padded(_ bytes: [UInt8]) -> [UInt8] {
    bytes.count < helloBlockSize ? (try? Padding.pad(bytes, to: helloBlockSize)) ?? bytes : bytes
}
