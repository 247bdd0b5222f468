public import RemoteChat
internal import SimplexTLS
public import XRCP

/// Why the host role refused or ended a session, in a person's words: the part of the invitation that failed, the
/// side to update and to which version, the step at which the controller closed. The wire keeps the reference's tags
/// (xrcp.md §16); these sentences go only to the CLI's line and `--json`'s standard error.
public enum RefusalReasons {
    /// How far a session had come when it ended.
    public enum Step: Sendable {
        /// TCP connected, TLS not finished.
        case tlsHandshake
        /// TLS up, the session code waiting for the person's confirmation.
        case codeShown
        /// Our HELLO sent, the controller's not yet received.
        case helloSent

        var text: String {
            switch self {
            case .tlsHandshake: return "during the TLS handshake"
            case .codeShown: return "after the TLS handshake, while the session code waited for confirmation"
            case .helloSent: return "after this host's HELLO, before the controller's HELLO"
            }
        }
    }

    /// The oldest peer app version the current apps accept (xrcp.md §12.3), as text.
    public static var minimumPeer: String { AppVersion.minimumPeer.description }

    /// Whether an app version as the error JSON carries it is below `minimumPeer`: the peer is the older side.
    public static func isBelowMinimumPeer(_ text: String) -> Bool {
        guard let version = AppVersion(text) else { return false }
        return version < AppVersion.minimumPeer
    }

    public static func closed(at step: Step) -> String { "the controller closed the connection \(step.text)" }

    public static func invitation(_ refusal: InvitationRefusal) -> String {
        switch refusal {
        case .legacySignature:
            return "\(refusal): update SimpleX on the controller (desktop) to \(AppVersion.minimumPeer) or newer"
        case .malformed, .sessionSignature, .identitySignature: return refusal.description
        }
    }

    /// The controller's range does not overlap ours (xrcp.md §12.3): which side is older, and what to update to.
    public static func appVersions(controller: AppVersionRange) -> String {
        let ours = AppVersionRange.supported
        if controller.max < ours.min {
            return "the controller's app is too old: it accepts app versions \(controller.min)–\(controller.max), this host "
                + "needs \(ours.min) or newer; update SimpleX on the controller (desktop) to \(ours.min) or newer"
        }
        return "this host is too old for the controller: it needs app version \(controller.min) or newer and this host "
            + "speaks \(ours.min)–\(ours.max); update simplex-host to a release for SimpleX \(controller.min)"
    }

    public static func xrcp(_ error: XRCPError) -> String {
        switch error {
        case .syntax(let s): return s
        case .exception(let s): return s
        case .internal(let s): return "internal error: \(s)"
        case .ctrlError(let s): return "the controller refused the session: \(s)"
        case .identity: return "the controller's identity does not match the pairing"
        case .decrypt: return "the controller's HELLO does not decrypt with this session's keys"
        case .encrypt: return "this host could not encrypt its HELLO"
        case .blockSize: return "the controller's handshake block was cut short or has a bad length"
        case .version: return "the controller chose an XRCP version this host does not speak"
        case .ctrlAuth: return "a command's signature does not verify"
        case .invitation: return "the invitation does not verify"
        case .noLocalAddress, .newController, .notDiscovered, .tlsStartFailed, .ctrlNotFound: return "\(error.json.rendered)"
        }
    }

    /// A failure of the session's connection at `step`.
    public static func session(_ error: HostSessionError, step: Step) -> String {
        switch error {
        case .sessionCode: return "the code entered is not this session's code, so nothing was sent"
        case .xrcp(.blockSize): return "the controller closed the connection \(step.text) (its HELLO block was cut short)"
        case .xrcp(.exception(let s)): return "\(s) \(step.text)"
        case .xrcp(let e): return xrcp(e)
        case .tls(.identity(let expected, let presented)):
            return "the controller's certificate (CA fingerprint \(presented)) is not the one the invitation names "
                + "(ca \(expected)): the link may have been used by another device"
        case .tls(.alertReceived(let alert)) where alert == .unknownCA:
            return "the controller refused this host's certificate (TLS alert unknown_ca) \(step.text): "
                + "the link may have been used by another device"
        case .tls(.alertReceived(let alert)): return "the controller sent TLS alert \(alert) \(step.text)"
        case .tls(.certificateChain(let failure)): return "the controller's certificate chain is refused: \(failure)"
        case .tls(.handshake(let s)): return "the TLS handshake failed: \(s)"
        case .tls(.noSharedApplicationProtocol(let offered)):
            let names = offered.map(\.description).joined(separator: ", ")
            return "the TLS peer offers no application protocol this host speaks (\(names))"
        case .tls(.connection(let s)): return "the TLS connection failed \(step.text): \(s)"
        case .tls(.configuration(let s)), .tls(.invalidState(let s)): return "internal TLS error: \(s)"
        case .http2(let e): return "HTTP/2 failed \(step.text): \(e)"
        case .invalidState(let s): return "internal error: \(s)"
        }
    }

    static func seconds(_ t: Double) -> String {
        t == t.rounded() ? "\(Int(t)) s" : "\(t) s"
    }
}
