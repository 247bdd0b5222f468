public import Ratchet
public import SMP
public import SimplexCrypto
public import SimplexEncoding

/// Whether a link is a one-time invitation or a contact address (`ConnectionMode`, smp.md §1.11).
public enum ConnectionMode: String, Hashable, Sendable {
    case invitation
    case contact
}

/// What both kinds of full link carry (`ConnReqUriData`, smp.md §1.11): the agent versions, the queues to send to
/// (one or more) and the optional client data (the chat's JSON, e.g. a group link id).
public struct ConnectionRequestData: Equatable, Sendable {
    public var agentVersions: VersionRange
    /// Never empty: the parser refuses a link without queues, and `init` takes the first one apart.
    public private(set) var queues: [SMPQueueURI]
    public var clientData: String?

    public init(agentVersions: VersionRange, queue: SMPQueueURI, moreQueues: [SMPQueueURI] = [], clientData: String? = nil) {
        self.agentVersions = agentVersions
        self.queues = [queue] + moreQueues
        self.clientData = clientData
    }
}

/// A full connection link (`ConnectionRequestUri`, smp.md §1.11):
///
///     simplex:/invitation#/?v=<agent range>&smp=<queue URI>[;<queue URI>…]&e2e=<e2e params>[&data=<client data>]
///     simplex:/contact#/?v=<agent range>&smp=<queue URI>[;…][&data=<client data>]
///
/// Links in the `https://<host>[:port]/…` form and with a `/` before `#` parse too; we always write `simplex:`.
/// Values are percent-escaped, so a queue URI's own escapes appear twice (`%253D`).
public enum ConnectionRequest: Equatable, Sendable {
    case invitation(ConnectionRequestData, E2ERatchetParamsURI)
    case contact(ConnectionRequestData)

    public var mode: ConnectionMode {
        switch self {
        case .invitation: .invitation
        case .contact: .contact
        }
    }

    public var data: ConnectionRequestData {
        switch self {
        case .invitation(let d, _), .contact(let d): d
        }
    }

    /// The text form, parameters in the order `v`, `smp`, `e2e`, `data`.
    public var text: String {
        var params = [
            ("v", data.agentVersions.description), ("smp", data.queues.map(\.text).joined(separator: ";")),
        ]
        if case .invitation(_, let e2e) = self { params.append(("e2e", e2e.text)) }
        if let clientData = data.clientData { params.append(("data", clientData)) }
        let query = params.map { QueryEncoding.encode($0.0) + "=" + QueryEncoding.encode($0.1) }.joined(separator: "&")
        return "simplex:/" + mode.rawValue + "#/?" + query
    }

    /// Parses a full link. A contact link's agent range is raised to at least version 2, as the reference raises it
    /// for addresses published before version 2 existed.
    public init(parsing text: String) throws(AgentProtocolError) {
        var s = LinkScanner(Array(text.utf8))
        try s.scheme()
        guard s.skip("/") else { throw .linkSyntax("expected / after the scheme") }
        let mode: ConnectionMode
        if s.skip("invitation") {
            mode = .invitation
        } else if s.skip("contact") {
            mode = .contact
        } else {
            throw .linkSyntax("the link is neither an invitation nor a contact address")
        }
        _ = s.skip("/")
        guard s.skip("#/?") else { throw .linkSyntax("expected #/? before the link's parameters") }
        let params = QueryEncoding.parameters(String(decoding: s.rest, as: UTF8.self))
        guard let v = linkText("v", params), let agentVersions = try? VersionRange(text: v) else {
            throw .linkSyntax("invalid or absent v=")
        }
        guard let smp = linkText("smp", params) else { throw .linkSyntax("absent smp=") }
        var queues: [SMPQueueURI] = []
        for part in smp.split(separator: ";", omittingEmptySubsequences: false) {
            do { queues.append(try SMPQueueURI(parsing: String(part))) } catch {
                throw .linkSyntax("invalid queue URI: \(error.reason)")
            }
        }
        let clientData = QueryEncoding.first("data", in: params).map { String(decoding: $0, as: UTF8.self) }
        switch mode {
        case .invitation:
            guard let e2e = linkText("e2e", params) else { throw .linkSyntax("an invitation needs e2e=") }
            let data = ConnectionRequestData(
                agentVersions: agentVersions, queue: queues[0], moreQueues: Array(queues.dropFirst()), clientData: clientData)
            self = .invitation(data, try E2ERatchetParamsURI(parsing: e2e))
        case .contact:
            let low = max(AgentVersion.duplexHandshake, agentVersions.min)
            let raised = (try? VersionRange(min: low, max: max(low, agentVersions.max))) ?? agentVersions
            self = .contact(
                ConnectionRequestData(
                    agentVersions: raised, queue: queues[0], moreQueues: Array(queues.dropFirst()), clientData: clientData))
        }
    }
}

/// The initiator's X3DH keys as a link carries them (`E2ERatchetParamsUri`, smp.md §1.10): the e2e version range, two
/// X448 keys and an optional KEM (a sntrup761 key; parsed, never proposed by us).
///
///     text:   v=<range>&x3dh=<b64u SPKI k1>,<b64u SPKI k2>[&kem_key=<b64u>]     (then escaped as the e2e= value)
///     binary: VersionRange ‖ len1(SPKI k1) ‖ len1(SPKI k2) ‖ Maybe KEM
public struct E2ERatchetParamsURI: Equatable, Sendable, BinaryCodable {
    public var versions: VersionRange
    public var key1: X448.PublicKey
    public var key2: X448.PublicKey
    public var kem: RatchetKEMParams?

    public init(versions: VersionRange, key1: X448.PublicKey, key2: X448.PublicKey, kem: RatchetKEMParams? = nil) {
        self.versions = versions
        self.key1 = key1
        self.key2 = key2
        self.kem = kem
    }

    /// The parameters at one agreed version, as the ratchet takes them.
    public func params(version: UInt16) -> E2ERatchetParams {
        E2ERatchetParams(version: version, key1: key1, key2: key2, kem: version >= E2EVersion.pqEncoding ? kem : nil)
    }

    /// The inner text, unescaped; a KEM is written only when the range reaches the PQ encoding.
    public var text: String {
        var out = "v=\(versions.description)&x3dh=\(Base64.encode(key1.spki)),\(Base64.encode(key2.spki))"
        if versions.max >= E2EVersion.pqEncoding, let kem {
            switch kem {
            case .proposed(let key): out += "&kem_key=" + Base64.encode(key)
            case .accepted(let ciphertext, let key):
                out += "&kem_ct=" + Base64.encode(ciphertext) + "&kem_key=" + Base64.encode(key)
            }
        }
        return out
    }

    public init(parsing text: String) throws(AgentProtocolError) {
        let params = QueryEncoding.parameters(text)
        guard let v = linkText("v", params), let range = try? VersionRange(text: v) else {
            throw .linkSyntax("e2e: invalid or absent v=")
        }
        guard let x3dh = linkText("x3dh", params) else { throw .linkSyntax("e2e: absent x3dh=") }
        let keys = x3dh.split(separator: ",", omittingEmptySubsequences: false)
        guard keys.count == 2 else { throw .linkSyntax("e2e: x3dh= needs two keys") }
        versions = range
        key1 = try Self.x448(keys[0])
        key2 = try Self.x448(keys[1])
        kem = nil
        if range.max >= E2EVersion.pqEncoding, let key = linkText("kem_key", params) {
            let publicKey = try Self.base64(key, "kem_key")
            if let ct = linkText("kem_ct", params) {
                kem = .accepted(ciphertext: try Self.base64(ct, "kem_ct"), publicKey: publicKey)
            } else {
                kem = .proposed(publicKey: publicKey)
            }
        }
    }

    private static func base64(_ text: some StringProtocol, _ what: String) throws(AgentProtocolError) -> [UInt8] {
        do { return try Base64.decode(text) } catch { throw .linkSyntax("e2e: \(what) is not base64url") }
    }

    private static func x448(_ text: Substring) throws(AgentProtocolError) -> X448.PublicKey {
        let der = try base64(text, "x3dh key")
        do { return try X448.PublicKey(spki: der) } catch { throw .linkSyntax("e2e: an x3dh key is not X448") }
    }

    public func encode(to writer: inout ByteWriter) throws(BinaryEncodingError) {
        versions.encode(to: &writer)
        try writer.writeShortBytes(key1.spki)
        try writer.writeShortBytes(key2.spki)
        try kem.encode(to: &writer)
    }

    public init(from reader: inout ByteReader) throws(BinaryDecodingError) {
        versions = try VersionRange(from: &reader)
        key1 = try readX448(&reader)
        key2 = try readX448(&reader)
        kem = try RatchetKEMParams?(from: &reader)
    }
}

func readX448(_ reader: inout ByteReader) throws(BinaryDecodingError) -> X448.PublicKey {
    let der = try reader.readShortBytes()
    do { return try X448.PublicKey(spki: der) } catch { throw .malformed("not an X448 SPKI key") }
}

/// The first value of a link parameter as text; a value that is not UTF-8 counts as absent.
func linkText(_ key: String, _ params: [(key: String, value: [UInt8])]) -> String? {
    QueryEncoding.first(key, in: params).flatMap { String(validating: $0, as: UTF8.self) }
}

/// A cursor over a link's text before its query.
struct LinkScanner {
    let bytes: [UInt8]
    var i = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var rest: ArraySlice<UInt8> { bytes[i...] }

    mutating func skip(_ literal: String) -> Bool {
        let b = Array(literal.utf8)
        guard bytes[i...].starts(with: b) else { return false }
        i += b.count
        return true
    }

    /// `simplex:` or `https://<host>[:<port>]` (simplexmq `ServiceScheme`); the host is 1+ bytes other than
    /// `:#,;/` and space.
    mutating func scheme() throws(AgentProtocolError) {
        if skip("simplex:") { return }
        guard skip("https://") else { throw .linkSyntax("the link must start with simplex: or https://") }
        let start = i
        while i < bytes.count, !Array(":#,;/ ".utf8).contains(bytes[i]) { i += 1 }
        guard i > start else { throw .linkSyntax("the https link has no host") }
        if skip(":") {
            let digits = i
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
            guard i > digits else { throw .linkSyntax("the https link's port is not a number") }
        }
    }
}
