public import SimplexCrypto
internal import SimplexEncoding

/// The two handshake blocks are exactly this long (xrcp.md §7.2).
public let helloBlockSize = 16384
/// HELLO JSON is padded to this before encryption (xrcp.md §7.3, §7.5; not the documents' 12888).
let helloBodySize = 12288

/// Host HELLO (xrcp.md §7.3): the host's new DH key in clear, then its JSON boxed under `X25519(host, controller)`.
public struct HostHello: Sendable, Equatable {
    /// The XRCP version chosen by the host (a JSON number).
    public var version: UInt16
    /// The host's CA fingerprint; must equal the CA it presented in TLS.
    public var ca: CertificateFingerprint
    public var app: HostAppInfo
    public var kemPublicKey: SNTRUP761.PublicKey

    public init(version: UInt16 = 1, ca: CertificateFingerprint, app: HostAppInfo, kemPublicKey: SNTRUP761.PublicKey) {
        self.version = version
        self.ca = ca
        self.app = app
        self.kemPublicKey = kemPublicKey
    }

    var json: CanonicalJSON {
        .object([
            "v": .integer(Int64(version)), "ca": .string(Base64.encode(ca.rawRepresentation)), "app": app.json,
            "kem": .string(Base64.encode(kemPublicKey.rawRepresentation)),
        ])
    }

    init(json: CanonicalJSON) throws(XRCPError) {
        guard let v = json["v"]?.integerValue, let version = UInt16(exactly: v) else { throw .syntax("HELLO v") }
        guard let caText = json["ca"]?.stringValue, let caBytes = try? Base64.decode(caText),
            let ca = try? CertificateFingerprint(rawRepresentation: caBytes)
        else { throw .syntax("HELLO ca") }
        guard let kemText = json["kem"]?.stringValue, let kemBytes = try? Base64.decode(kemText),
            let kem = try? SNTRUP761.PublicKey(rawRepresentation: kemBytes)
        else { throw .syntax("HELLO kem") }
        guard let app = json["app"] else { throw .syntax("HELLO app") }
        self.init(version: version, ca: ca, app: try HostAppInfo(json: app), kemPublicKey: kem)
    }

    /// The 16384-byte block: `pad("HELLO " || len1(SPKI(dh)) || nonce || sx_box(K, nonce, pad(json, 12288)))`.
    public func sealedBlock(hostKey: X25519.PrivateKey, controllerKey: X25519.PublicKey, nonce: SecretBox.Nonce = .random())
        throws(XRCPError) -> [UInt8]
    {
        let secret: X25519.SharedSecret
        do { secret = try hostKey.sharedSecret(with: controllerKey) } catch { throw .encrypt }
        var w = ByteWriter(capacity: helloBlockSize)
        w.writeBytes(Array("HELLO ".utf8))
        do { try w.writeShortBytes(hostKey.publicKey.spki) } catch { throw .internal("SPKI length") }
        w.writeBytes(nonce.rawRepresentation)
        do {
            w.writeBytes(try SecretBox.sealPadded(Array(json.rendered.utf8), to: helloBodySize, key: secret.boxKey, nonce: nonce))
            return try Padding.pad(w.bytes, to: helloBlockSize)
        } catch { throw .encrypt }
    }

    /// Controller side (§7.4 step 1): opens a host HELLO block, returning it with the DH secret it was boxed under.
    public static func open(block: [UInt8], controllerKey: X25519.PrivateKey) throws(XRCPError) -> (
        HostHello, X25519.SharedSecret
    ) {
        var r = ByteReader(try unpadBlock(block))
        guard (try? r.readBytes(6)) == Array("HELLO ".utf8) else { throw .syntax("expected HELLO") }
        let hostKey: X25519.PublicKey
        let nonce: SecretBox.Nonce
        do {
            hostKey = try X25519.PublicKey(spki: r.readShortBytes())
            nonce = try SecretBox.Nonce(rawRepresentation: r.readBytes(24))
        } catch { throw .syntax("HELLO keys") }
        let secret: X25519.SharedSecret
        do { secret = try controllerKey.sharedSecret(with: hostKey) } catch { throw .decrypt }
        let plaintext: [UInt8]
        do { plaintext = try SecretBox.openPadded(r.readRest(), key: secret.boxKey, nonce: nonce) } catch { throw .decrypt }
        let json: CanonicalJSON
        do { json = try CanonicalJSON.parse(plaintext) } catch { throw .syntax("HELLO JSON: \(error)") }
        return (try HostHello(json: json), secret)
    }
}

/// The controller's answer to a host HELLO (xrcp.md §7.5–7.6).
public enum ControllerBlock: Sendable, Equatable {
    /// `"HELLO " || len2(kemCiphertext) || sx_box(ckA#1, pad("{}", 12288))`; no nonce on the wire.
    case hello(SNTRUP761.Ciphertext)
    /// `"ERROR " || nonce || sx_box(K_hello, nonce, pad(message, 12288))`: defined, never sent by the reference.
    case error(String)

    /// Controller: encapsulates to the host's KEM key, derives the session keys and seals the HELLO with the first
    /// step of the controller→host chain.
    public static func sealHello(to hello: HostHello, dhSecret: X25519.SharedSecret) throws(XRCPError) -> ([UInt8], SessionKeys) {
        let (ciphertext, kemSecret) = hello.kemPublicKey.encapsulate()
        var keys = SessionKeys(dh: dhSecret, kem: kemSecret)
        let first = keys.controllerToHost.next()
        var w = ByteWriter(capacity: helloBlockSize)
        w.writeBytes(Array("HELLO ".utf8))
        do {
            try w.writeLargeBytes(ciphertext.rawRepresentation)
            w.writeBytes(try SecretBox.sealPadded(Array("{}".utf8), to: helloBodySize, key: first.key, nonce: first.nonce))
            return (try Padding.pad(w.bytes, to: helloBlockSize), keys)
        } catch { throw .encrypt }
    }

    /// Controller: an ERROR block boxed under the HELLO DH secret.
    public static func sealError(_ message: String, dhSecret: X25519.SharedSecret, nonce: SecretBox.Nonce = .random())
        throws(XRCPError) -> [UInt8]
    {
        var w = ByteWriter(capacity: helloBlockSize)
        w.writeBytes(Array("ERROR ".utf8))
        w.writeBytes(nonce.rawRepresentation)
        do {
            w.writeBytes(try SecretBox.sealPadded(Array(message.utf8), to: helloBodySize, key: dhSecret.boxKey, nonce: nonce))
            return try Padding.pad(w.bytes, to: helloBlockSize)
        } catch { throw .encrypt }
    }

    /// Host (§7.7): a HELLO gives the session keys (its first controller→host step consumed); an ERROR is `ctrlError`.
    public static func open(block: [UInt8], kemSecretKey: SNTRUP761.SecretKey, dhSecret: X25519.SharedSecret) throws(XRCPError)
        -> SessionKeys
    {
        let message = try unpadBlock(block)
        guard let space = message.firstIndex(of: 0x20) else { throw .syntax("no block tag") }
        var r = ByteReader(message[(space + 1)...])
        switch Array(message[..<space]) {
        case Array("HELLO".utf8):
            let ciphertext: SNTRUP761.Ciphertext
            do { ciphertext = try SNTRUP761.Ciphertext(rawRepresentation: r.readLargeBytes()) } catch {
                throw .syntax("HELLO ciphertext")
            }
            var keys = SessionKeys(dh: dhSecret, kem: kemSecretKey.decapsulate(ciphertext))
            let first = keys.controllerToHost.next()
            let json: [UInt8]
            do { json = try SecretBox.openPadded(r.readRest(), key: first.key, nonce: first.nonce) } catch { throw .decrypt }
            guard case .object = try? CanonicalJSON.parse(json) else { throw .syntax("controller HELLO is not a JSON object") }
            return keys
        case Array("ERROR".utf8):
            let nonce: SecretBox.Nonce
            do { nonce = try SecretBox.Nonce(rawRepresentation: r.readBytes(24)) } catch { throw .syntax("ERROR nonce") }
            guard let text = try? SecretBox.openPadded(r.readRest(), key: dhSecret.boxKey, nonce: nonce) else { throw .decrypt }
            throw .ctrlError(String(decoding: text, as: UTF8.self))
        default:
            throw .syntax("unknown block tag")
        }
    }
}

/// `unpad` of a handshake block; anything but exactly 16384 bytes with a valid length is `blockSize`.
func unpadBlock(_ block: [UInt8]) throws(XRCPError) -> [UInt8] {
    guard block.count == helloBlockSize, let message = try? Padding.unpad(block) else { throw .blockSize }
    return message
}

/// The two chains of a session (xrcp.md §8): derived from `SHA3-256(dh ‖ kem)`.
public struct SessionKeys: Sendable {
    public var controllerToHost: ChainKey
    public var hostToController: ChainKey

    public init(dh: X25519.SharedSecret, kem: SNTRUP761.SharedSecret) {
        (controllerToHost, hostToController) = ChainKey.initialChains(from: HybridSecret(dh: dh, kem: kem))
    }
}
