internal import SimplexCrypto

/// What an SMP client accepts as a server's chain (smp.md §2.2; MQ `Transport/Client.hs`
/// `validateCertificateChain`, `Transport/Shared.hs` `chainIdCaCerts` and `x509validate`).
///
/// In the reference's order: 2–4 certificates; the identity certificate (the second) has the address's
/// fingerprint; then a path check with the last certificate as the only trust anchor and no host name check
/// (crypton-x509-validation `validatePure` with `checkFQHN = False`): the leaf is v3; every certificate below the
/// anchor is valid at `now`; each is issued (issuer DN = subject DN) and signed by the next; every intermediate
/// (between the leaf and the anchor) has `CA:TRUE`, keyCertSign if it has a keyUsage, and a path length that
/// allows the certificates below it. The anchor's own dates and extensions are not checked, as there.
///
/// One difference: the reference finds each issuer by DN anywhere in the rest of the chain (and tries the anchor
/// first); this policy requires the chain in order, leaf first, as every server sends it.
struct ServerChainPolicy: PeerChainCheck {
    let serverIdentity: CertificateFingerprint
    /// Seconds since the Unix epoch.
    let now: Int64

    func refusal(of chain: [Certificate]) -> TLSError? {
        guard ServerChainLength(rawValue: chain.count) != nil else {
            return .certificateChain(.certificateCount(chain.count))
        }
        let presented = chain[1].fingerprint
        guard presented == serverIdentity else { return .identity(expected: serverIdentity, presented: presented) }
        let leafVersion = chain[0].version
        guard leafVersion == 2 else { return .certificateChain(.leafNotVersion3(version: leafVersion)) }
        let anchor = chain.count - 1
        for position in 0..<anchor {
            let certificate = chain[position]
            let issuer = chain[position + 1]
            switch certificate.validity(at: now) {
            case .valid: break
            case .notYetValid: return .certificateChain(.notYetValid(position: position))
            case .expired: return .certificateChain(.expired(position: position))
            case nil: return .certificateChain(.validityUnreadable(position: position))
            }
            guard issuer.isIssuer(of: certificate) else { return .certificateChain(.notIssuedByNext(position: position)) }
            if position + 1 < anchor {
                // crypton's checkCA at `level` = position: pathLen must be at least the level.
                let constraints = issuer.authorityConstraints
                guard constraints.isCA else { return .certificateChain(.notAnAuthority(position: position + 1)) }
                guard constraints.mayCertSign else { return .certificateChain(.notAllowedToSign(position: position + 1)) }
                if let pathLength = constraints.pathLength, pathLength < position {
                    return .certificateChain(.authorityTooDeep(position: position + 1))
                }
            }
            guard certificate.isSigned(by: issuer) else { return .certificateChain(.signature(position: position)) }
        }
        return nil
    }
}
