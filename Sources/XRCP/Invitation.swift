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
            do { return try Base64.decode(try text(name)) } catch { throw .syntax("\(name) is not base64url") }
        }

        let versions: VersionRange
        do { versions = try VersionRange(text: try text("v")) } catch { throw .syntax("invalid version range") }
        let app: CanonicalJSON
        do { app = try CanonicalJSON.parse(try param("app")) } catch { throw .syntax("app is not JSON: \(error)") }
        let tsText = try text("ts")
        guard tsText.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let ts = Int64(tsText) else { throw .syntax("invalid ts") }
        let invitation: Invitation
        do {
            invitation = Invitation(
                ca: ca, host: host, port: port, versions: versions, app: app, timestamp: ts,
                sessionKey: try Ed25519.PublicKey(spki: try key("skey")),
                identityKey: try Ed25519.PublicKey(spki: try key("idkey")),
                dh: try X25519.PublicKey(spki: try key("dh")))
        } catch let e as XRCPError {
            throw e
        } catch {
            throw .syntax("invalid key: \(error)")
        }
        let ssig: Ed25519.Signature
        let idsig: Ed25519.Signature
        do {
            ssig = try Ed25519.Signature(rawRepresentation: Base64.decode(ssigText))
            idsig = try Ed25519.Signature(rawRepresentation: Base64.decode(idsigText))
        } catch { throw .syntax("invalid signature encoding") }
        self.init(
            invitation: invitation, uri: uri, sessionSigned: Array(unsigned.utf8),
            identitySigned: Array(uri[..<idsigRange.lowerBound].utf8), sessionSignature: ssig, identitySignature: idsig)
    }

    /// Checks both signatures over the bytes the controller signed (§5.4); failure is `invitation`.
    public func verified() throws(XRCPError) -> VerifiedInvitation {
        guard invitation.sessionKey.isValidSignature(sessionSignature, for: sessionSigned),
            invitation.identityKey.isValidSignature(identitySignature, for: identitySigned)
        else { throw .invitation }
        return VerifiedInvitation(invitation: invitation, uri: uri)
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
