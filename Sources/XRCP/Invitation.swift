public import SimplexCrypto
public import SimplexEncoding

/// The contents of an `xrcp:/` invitation (xrcp.md §5): where the controller listens and the keys of this session.
public struct Invitation: Sendable, Equatable {
    /// `SHA-256` of the controller's CA certificate for this pairing.
    public var ca: CertificateFingerprint
    public var host: String
    public var port: UInt16
    public var versions: VersionRange
    /// The controller's app info as sent (kept whole so that unknown fields survive re-rendering).
    public var app: CanonicalJSON
    /// Seconds since the epoch.
    public var timestamp: Int64
    /// The session key (`skey`): signs the invitation and every command.
    public var sessionKey: Ed25519.PublicKey
    /// The controller's long-term identity key (`idkey`) for this pairing.
    public var identityKey: Ed25519.PublicKey
    /// The controller's session DH key (`dh`).
    public var dh: X25519.PublicKey

    public init(
        ca: CertificateFingerprint, host: String, port: UInt16, versions: VersionRange = XRCPVersion.supported,
        app: CanonicalJSON, timestamp: Int64, sessionKey: Ed25519.PublicKey, identityKey: Ed25519.PublicKey, dh: X25519.PublicKey
    ) {
        self.ca = ca
        self.host = host
        self.port = port
        self.versions = versions
        self.app = app
        self.timestamp = timestamp
        self.sessionKey = sessionKey
        self.identityKey = identityKey
        self.dh = dh
    }

    public func appInfo() throws(XRCPError) -> ControllerAppInfo { try ControllerAppInfo(json: app) }

    /// The canonical unsigned part (§5.2): fixed parameter order, `qenc` values, sorted app JSON.
    public var unsignedURI: String {
        func b64(_ bytes: [UInt8]) -> String { QueryEncoding.encode(Base64.encode(bytes)) }
        return "xrcp:/\(Base64.encode(ca.rawRepresentation))@\(host):\(port)#/?v=\(QueryEncoding.encode(versions.description))"
            + "&app=\(QueryEncoding.encode(app.rendered))&ts=\(QueryEncoding.encode(String(timestamp)))"
            + "&skey=\(b64(sessionKey.spki))&idkey=\(b64(identityKey.spki))&dh=\(b64(dh.spki))"
    }

    /// Signs with the session key, then the identity key over the prefix including `&ssig=` (§5.4).
    public func signed(sessionKey: Ed25519.PrivateKey, identityKey: Ed25519.PrivateKey) -> SignedInvitation {
        let unsigned = unsignedURI
        let ssig = sessionKey.signature(for: Array(unsigned.utf8))
        let withSsig = unsigned + "&ssig=" + Base64.encode(ssig.rawRepresentation)
        let idsig = identityKey.signature(for: Array(withSsig.utf8))
        return SignedInvitation(
            invitation: self, uri: withSsig + "&idsig=" + Base64.encode(idsig.rawRepresentation),
            sessionSigned: Array(unsigned.utf8), identitySigned: Array(withSsig.utf8),
            sessionSignature: ssig, identitySignature: idsig)
    }
}

/// The XRCP protocol versions this project speaks (xrcp.md §12.4).
public enum XRCPVersion {
    public static let supported = VersionRange(1)
}

/// An invitation as received, with its signatures not yet checked. Keeps the exact signed bytes.
public struct SignedInvitation: Sendable, Equatable {
    public let invitation: Invitation
    /// The whole URI as received (trimmed of surrounding whitespace).
    public let uri: String
    let sessionSigned: [UInt8]
    let identitySigned: [UInt8]
    public let sessionSignature: Ed25519.Signature
    public let identitySignature: Ed25519.Signature

    init(
        invitation: Invitation, uri: String, sessionSigned: [UInt8], identitySigned: [UInt8],
        sessionSignature: Ed25519.Signature, identitySignature: Ed25519.Signature
    ) {
        self.invitation = invitation
        self.uri = uri
        self.sessionSigned = sessionSigned
        self.identitySigned = identitySigned
        self.sessionSignature = sessionSignature
        self.identitySignature = identitySignature
    }

    /// The longest URI accepted; QR invitations are about 650 bytes.
    public static let maxLength = 4096

    /// Parses an `xrcp:/` URI (§5.2, §5.5) with one URL-decode per value. Signatures are checked by `verified()`.
    public init(uri input: String) throws(XRCPError) {
        let uri = input.trimmingWhitespace()
        guard uri.utf8.count <= Self.maxLength else { throw .syntax("invitation longer than \(Self.maxLength) bytes") }
        guard uri.hasPrefix("xrcp:/"), !uri.hasPrefix("xrcp://") else { throw .syntax("invitation must start with xrcp:/") }
        guard let ssigRange = uri.firstRange(of: "&ssig=") else { throw .syntax("invitation has no ssig") }
        let unsigned = uri[..<ssigRange.lowerBound]
        let signatures = uri[ssigRange.upperBound...]
        guard let idsigRange = signatures.firstRange(of: "&idsig=") else { throw .syntax("invitation has no idsig") }
        let ssigText = signatures[..<idsigRange.lowerBound]
        let idsigText = signatures[idsigRange.upperBound...]

        var rest = unsigned.dropFirst("xrcp:/".count)
        guard let at = rest.firstIndex(of: "@") else { throw .syntax("invitation has no @") }
        let caBytes: [UInt8]
        do { caBytes = try Base64.decode(rest[..<at]) } catch { throw .syntax("CA fingerprint is not base64url") }
        guard let ca = try? CertificateFingerprint(rawRepresentation: caBytes) else {
            throw .syntax("CA fingerprint is not 32 bytes")
        }
        rest = rest[rest.index(after: at)...]
        guard let fragment = rest.firstRange(of: "#/?") else { throw .syntax("invitation has no #/?") }
        let address = rest[..<fragment.lowerBound]
        guard let colon = address.lastIndex(of: ":") else { throw .syntax("invitation has no port") }
        guard let host = String(validating: QueryEncoding.decode(address[..<colon]), as: UTF8.self), !host.isEmpty else {
            throw .syntax("invalid host")
        }
        let portText = address[address.index(after: colon)...]
        guard !portText.isEmpty, portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let port = UInt16(portText), port > 0
        else { throw .syntax("invalid port") }

        let params = QueryEncoding.parameters(rest[fragment.upperBound...])
        func param(_ name: String) throws(XRCPError) -> [UInt8] {
            guard let v = QueryEncoding.first(name, in: params) else { throw .syntax("invitation has no \(name)") }
            return v
        }
        func text(_ name: String) throws(XRCPError) -> String {
            guard let s = String(validating: try param(name), as: UTF8.self) else { throw .syntax("\(name) is not UTF-8") }
            return s
        }
        func key(_ name: String) throws(XRCPError) -> [UInt8] {
            let value = try text(name)
            do { return try Base64.decode(value) } catch { throw .syntax("\(name) is not base64url") }
        }

        let versions: VersionRange
        let versionText = try text("v")
        do { versions = try VersionRange(text: versionText) } catch { throw .syntax("invalid version range") }
        let app: CanonicalJSON
        let appBytes = try param("app")
        do { app = try CanonicalJSON.parse(appBytes) } catch { throw .syntax("app is not JSON: \(error)") }
        let tsText = try text("ts")
        guard !tsText.isEmpty, tsText.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .syntax("ts is not a decimal number of seconds")
        }
        guard let ts = Int64(tsText) else { throw .syntax("ts \(tsText) is out of range") }
        func edKey(_ name: String) throws(XRCPError) -> Ed25519.PublicKey {
            do { return try Ed25519.PublicKey(spki: try key(name)) } catch let e as XRCPError { throw e } catch {
                throw .syntax("\(name) is not an Ed25519 public key")
            }
        }
        let dh: X25519.PublicKey
        do { dh = try X25519.PublicKey(spki: try key("dh")) } catch let e as XRCPError { throw e } catch {
            throw .syntax("dh is not an X25519 public key")
        }
        let invitation = Invitation(
            ca: ca, host: host, port: port, versions: versions, app: app, timestamp: ts, sessionKey: try edKey("skey"),
            identityKey: try edKey("idkey"), dh: dh)
        func signature(_ name: String, _ text: Substring) throws(XRCPError) -> Ed25519.Signature {
            do { return try Ed25519.Signature(rawRepresentation: Base64.decode(text)) } catch {
                throw .syntax("\(name) is not a 64-byte base64url signature")
            }
        }
        let ssig = try signature("ssig", ssigText)
        let idsig = try signature("idsig", idsigText)
        self.init(
            invitation: invitation, uri: uri, sessionSigned: Array(unsigned.utf8),
            identitySigned: Array(uri[..<idsigRange.lowerBound].utf8), sessionSignature: ssig, identitySignature: idsig)
    }

    /// Checks both signatures over the bytes the controller signed (§5.4); failure is `invitation`.
    public func verified() throws(XRCPError) -> VerifiedInvitation {
        do { return try verify() } catch { throw .invitation }
    }

    /// Checks both signatures as `verified()` does, saying which one failed. An `idsig` that verifies only under the
    /// rule of apps before simplexmq 2026-04-15 (over the standard-base64 rendering of `ssig`, §5.4) is a
    /// `legacySignature`: the invitation is intact, its app is older than current hosts accept.
    public func verify() throws(InvitationRefusal) -> VerifiedInvitation {
        guard invitation.sessionKey.isValidSignature(sessionSignature, for: sessionSigned) else {
            throw .sessionSignature
        }
        guard invitation.identityKey.isValidSignature(identitySignature, for: identitySigned) else {
            if invitation.identityKey.isValidSignature(identitySignature, for: legacyIdentitySigned) {
                throw .legacySignature(try? invitation.appInfo())
            }
            throw .identitySignature
        }
        return VerifiedInvitation(invitation: invitation, uri: uri)
    }

    /// What a legacy controller signed with its identity key: the same prefix with `ssig` in standard base64.
    var legacyIdentitySigned: [UInt8] {
        sessionSigned + Array("&ssig=".utf8) + Array(Base64.encode(sessionSignature.rawRepresentation, alphabet: .standard).utf8)
    }

    /// Parses and verifies `uri`, naming what is wrong with it when it is refused.
    public static func verify(uri: String) throws(InvitationRefusal) -> VerifiedInvitation {
        let signed: SignedInvitation
        do { signed = try SignedInvitation(uri: uri) } catch {
            if case .syntax(let field) = error { throw .malformed(field) }
            throw .malformed("\(error)")
        }
        return try signed.verify()
    }
}

/// Why an invitation is refused (xrcp.md §5.4, §5.5). On the wire every one of them is `invitation` (a host's
/// `badInvitation`); this names the part that failed, for the person who pasted the link.
public enum InvitationRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// A part of the URI does not parse; the text names the field.
    case malformed(String)
    /// `ssig` does not verify with `skey` over the unsigned part.
    case sessionSignature
    /// `idsig` does not verify with `idkey`, under the current rule or the legacy one.
    case identitySignature
    /// `idsig` verifies only under the legacy rule: the controller's app (when its `app` parses) predates the current
    /// signing, so it is older than the 6.5.0.12 current hosts accept.
    case legacySignature(ControllerAppInfo?)

    public var description: String {
        switch self {
        case .malformed(let field): return "the link does not parse: \(field)"
        case .sessionSignature: return "the session signature (ssig) does not verify with the link's skey: the link was changed"
        case .identitySignature:
            return "the identity signature (idsig) does not verify with the link's idkey: the link was changed"
        case .legacySignature(let app):
            let version = app.map { " (it accepts up to \($0.appVersionRange.max))" } ?? ""
            return "the link is signed the way SimpleX apps before \(AppVersion.minimumPeer) sign it\(version)"
        }
    }
}

/// An invitation whose signatures were checked: the only form the host acts on.
public struct VerifiedInvitation: Sendable, Equatable {
    public let invitation: Invitation
    public let uri: String
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0.properties.isWhitespace }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) }) ?? first
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
