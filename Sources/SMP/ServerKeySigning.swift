public import SimplexCrypto

extension SignedServerKey {
    /// Signs `key` with the TLS leaf's key of either algorithm, as a server sends it in its hello (smp.md §2.4):
    /// the AlgorithmIdentifier without parameters, the signature over the DER of `SEQUENCE { SPKI }`.
    public static func sign(_ key: X25519.PublicKey, with leafKey: CertificateKey) -> SignedServerKey {
        let object = DERWriter.element(0x30, key.spki)
        let sig = leafKey.signature(for: object)
        let der = DERWriter.element(
            0x30, object + leafKey.algorithm.algorithmIdentifier + DERWriter.element(0x03, [0] + sig))
        // Made from valid parts just above.
        guard let signed = try? SignedServerKey(der: der) else { preconditionFailure("signed key encoding") }
        return signed
    }
}
