public import SimplexCrypto
internal import SimplexEncoding

/// The multicast announcement to a known host (xrcp.md §6.2): 985 bytes,
/// `len1(SPKI(dh)) ‖ nonce ‖ sx_box(X25519(dh, hostLastDH), nonce, pad(signedURI, 900))`.
public enum Announcement {
    public static let packetSize = 985
    static let paddedSize = 900

    public static func seal(
        _ invitation: SignedInvitation, controllerKey: X25519.PrivateKey, hostKey: X25519.PublicKey,
        nonce: SecretBox.Nonce = .random()
    ) throws(XRCPError) -> [UInt8] {
        do {
            let secret = try controllerKey.sharedSecret(with: hostKey)
            var w = ByteWriter(capacity: packetSize)
            try w.writeShortBytes(controllerKey.publicKey.spki)
            w.writeBytes(nonce.rawRepresentation)
            w.writeBytes(try SecretBox.sealPadded(Array(invitation.uri.utf8), to: paddedSize, key: secret.boxKey, nonce: nonce))
            return w.bytes
        } catch {
            // The signed URI does not fit in 898 bytes (a long device name), as in the reference.
            throw .encrypt
        }
    }

    /// Host (§6.3): tries each known pairing's current then previous DH key in order; the first that opens the
    /// packet wins. Returns the verified invitation and the index of the key that opened it.
    public static func open(
        _ packet: [UInt8], keys: [X25519.PrivateKey], sourceAddress: String
    ) throws(XRCPError) -> (VerifiedInvitation, keyIndex: Int) {
        var r = ByteReader(packet)
        let controllerKey: X25519.PublicKey
        let nonce: SecretBox.Nonce
        do {
            controllerKey = try X25519.PublicKey(spki: r.readShortBytes())
            nonce = try SecretBox.Nonce(rawRepresentation: r.readBytes(24))
        } catch { throw .syntax("announcement header") }
        let box = r.readRest()
        for (i, key) in keys.enumerated() {
            guard let secret = try? key.sharedSecret(with: controllerKey),
                let plaintext = try? SecretBox.openPadded(box, key: secret.boxKey, nonce: nonce)
            else { continue }
            guard let text = String(validating: plaintext, as: UTF8.self),
                let verified = try? SignedInvitation(uri: text).verified(),
                verified.invitation.dh == controllerKey, verified.invitation.host == sourceAddress
            else { throw .invitation }
            return (verified, i)
        }
        throw .ctrlNotFound
    }
}
