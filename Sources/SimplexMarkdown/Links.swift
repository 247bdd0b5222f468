internal import SimplexEncoding

/// The word-level link tests of the markdown.
enum Links {
    /// What is worth trying as a link: a long enough word with a web or `simplex:` scheme.
    static func looksLikeURI(_ s: String) -> Bool {
        s.unicodeScalars.count >= 10 && (s.hasPrefix("http://") || s.hasPrefix("https://") || s.hasPrefix("simplex:/"))
    }

    /// What is likely a domain without a scheme (`example.com`, `www.example.com`), not every valid domain name: two
    /// or three labels of ASCII letters, the top one 2–8 long, a first label of three 3–8 characters.
    static func isDomain(_ s: String) -> Bool {
        let labels = s.split(separator: ".", omittingEmptySubsequences: false)
        func isName(_ name: Substring, _ tld: Substring) -> Bool {
            (1...24).contains(name.unicodeScalars.count) && (2...8).contains(tld.unicodeScalars.count)
                && (name.unicodeScalars + tld.unicodeScalars).allSatisfy(Chars.isASCIILetter)
        }
        switch labels.count {
        case 2: return isName(labels[0], labels[1])
        case 3: return (3...8).contains(labels[0].unicodeScalars.count) && isName(labels[1], labels[2])
        default: return false
        }
    }

    /// An RFC 5322 address without comments or quoted parts: a dot-atom local part, `@`, then a domain of
    /// letter-digit-hyphen labels or an address literal in brackets.
    static func isEmail(_ s: String) -> Bool {
        guard let at = s.lastIndex(of: "@") else { return false }
        let local = s[..<at]
        let domain = s[s.index(after: at)...]
        let atext = Set("!#$%&'*+-/=?^_`{|}~".unicodeScalars)
        let isAtom: (Substring) -> Bool = { atom in
            !atom.isEmpty
                && atom.unicodeScalars.allSatisfy { Chars.isASCIILetter($0) || Chars.isDigit($0) || atext.contains($0) }
        }
        guard local.split(separator: ".", omittingEmptySubsequences: false).allSatisfy(isAtom) else { return false }
        if domain.hasPrefix("["), domain.hasSuffix("]"), domain.count > 2 {
            return domain.dropFirst().dropLast().unicodeScalars.allSatisfy {
                $0.value > 0x20 && $0.value < 0x7F && !"[]\\".unicodeScalars.contains($0)
            }
        }
        guard !domain.isEmpty, domain.utf8.count <= 253 else { return false }
        return domain.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                && label.unicodeScalars.allSatisfy { Chars.isASCIILetter($0) || Chars.isDigit($0) || $0 == "-" }
        }
    }
}

/// An http or https address with a host that has a dot, as the core accepts web links; the query is kept as
/// written, split into parameters.
public struct WebURI: Hashable, Sendable {
    public var scheme: String
    /// `//` up to the path: user info, host and port as written.
    var authority: String
    public var host: String
    var path: String
    /// The query's parameters as written (`key=value`, or `key` alone); nil without `?`.
    var query: [Parameter]?
    var fragment: String?

    struct Parameter: Hashable, Sendable {
        var key: String
        var value: String?

        /// The key URL-decoded, as the tracking lists match it.
        var decodedKey: String { String(decoding: QueryEncoding.decode(key), as: UTF8.self) }
    }

    /// Why an address is not a web link (`parseError` of `chat_parse_uri`).
    public struct ParseError: Error, Hashable, Sendable {
        public let message: String
        init(_ message: String) { self.message = message }
    }

    public init(parsing text: String) throws(ParseError) {
        let b = Array(text.utf8)
        var i = 0
        guard let first = b.first, Self.isAlpha(first) else { throw .init("Invalid URI: malformed scheme") }
        while i < b.count, Self.isAlpha(b[i]) || Self.isDigit(b[i]) || "+-.".utf8.contains(b[i]) { i += 1 }
        guard i < b.count, b[i] == UInt8(ascii: ":") else { throw .init("Invalid URI: malformed scheme") }
        scheme = String(decoding: b[0..<i], as: UTF8.self)
        i += 1
        guard scheme == "http" || scheme == "https" else { throw .init("Unsupported URI scheme: \(scheme)") }
        guard b[i...].starts(with: "//".utf8) else { throw .init("No URI host") }
        i += 2
        let authorityStart = i
        while i < b.count, !"/?#".utf8.contains(b[i]) { i += 1 }
        authority = String(decoding: b[authorityStart..<i], as: UTF8.self)
        host = try Self.host(of: Array(b[authorityStart..<i]))
        guard host.contains(".") else { throw .init("Invalid URI host: \(host)") }
        let pathStart = i
        while i < b.count, b[i] != UInt8(ascii: "?"), b[i] != UInt8(ascii: "#") {
            guard b[i] == UInt8(ascii: "/") || Self.isPathChar(b, at: i) else { throw .init("Invalid URI: malformed path") }
            i += b[i] == UInt8(ascii: "%") ? 3 : 1
        }
        path = String(decoding: b[pathStart..<i], as: UTF8.self)
        if i < b.count, b[i] == UInt8(ascii: "?") {
            i += 1
            let queryStart = i
            // Lax, as the core parses queries: anything but `#`.
            while i < b.count, b[i] != UInt8(ascii: "#") { i += 1 }
            query = b[queryStart..<i].split(separator: UInt8(ascii: "&")).map { pair in
                let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
                return Parameter(
                    key: String(decoding: parts[0], as: UTF8.self),
                    value: parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : nil)
            }
        } else {
            query = nil
        }
        if i < b.count, b[i] == UInt8(ascii: "#") {
            i += 1
            let fragmentStart = i
            while i < b.count {
                guard b[i] == UInt8(ascii: "/") || b[i] == UInt8(ascii: "?") || Self.isPathChar(b, at: i) else {
                    throw .init("Invalid URI: malformed fragment")
                }
                i += b[i] == UInt8(ascii: "%") ? 3 : 1
            }
            fragment = String(decoding: b[fragmentStart..<b.count], as: UTF8.self)
        } else {
            fragment = nil
        }
    }

    /// The address written back, with these parameters.
    func text(query parameters: [Parameter]?) -> String {
        var out = scheme + "://" + authority + path
        if let parameters, !parameters.isEmpty {
            out += "?" + parameters.map { $0.key + "=" + ($0.value ?? "") }.joined(separator: "&")
        }
        if let fragment { out += "#" + fragment }
        return out
    }

    private static func host(of authority: [UInt8]) throws(ParseError) -> String {
        var hostPart = authority[...]
        if let at = hostPart.lastIndex(of: UInt8(ascii: "@")) { hostPart = hostPart[(at + 1)...] }
        if hostPart.first == UInt8(ascii: "[") {
            guard let close = hostPart.firstIndex(of: UInt8(ascii: "]")) else { throw .init("Invalid URI: malformed host") }
            let rest = hostPart[(close + 1)...]
            guard rest.isEmpty || (rest.first == UInt8(ascii: ":") && rest.dropFirst().allSatisfy(isDigit)) else {
                throw .init("Invalid URI: malformed port")
            }
            return String(decoding: hostPart[...close], as: UTF8.self)
        }
        if let colon = hostPart.lastIndex(of: UInt8(ascii: ":")) {
            guard hostPart[(colon + 1)...].allSatisfy(isDigit) else { throw .init("Invalid URI: malformed port") }
            hostPart = hostPart[..<colon]
        }
        let bytes = Array(hostPart)
        var j = 0
        while j < bytes.count {
            guard isUnreserved(bytes[j]) || isSubDelim(bytes[j]) || isPercentEscape(bytes, at: j) else {
                throw .init("Invalid URI: malformed host")
            }
            j += bytes[j] == UInt8(ascii: "%") ? 3 : 1
        }
        guard !bytes.isEmpty else { throw .init("No URI host") }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") }
    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
    private static func isUnreserved(_ c: UInt8) -> Bool { isAlpha(c) || isDigit(c) || "-._~".utf8.contains(c) }
    private static func isSubDelim(_ c: UInt8) -> Bool { "!$&'()*+,;=".utf8.contains(c) }

    private static func isPercentEscape(_ b: [UInt8], at i: Int) -> Bool {
        let isHex = { (c: UInt8) in isDigit(c) || ((c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "f")) }
        return b[i] == UInt8(ascii: "%") && i + 2 < b.count && isHex(b[i + 1]) && isHex(b[i + 2])
    }

    /// RFC 3986 `pchar` at `i` (a `%` escape counts as one).
    private static func isPathChar(_ b: [UInt8], at i: Int) -> Bool {
        isUnreserved(b[i]) || isSubDelim(b[i]) || b[i] == UInt8(ascii: ":") || b[i] == UInt8(ascii: "@")
            || isPercentEscape(b, at: i)
    }
}

/// A SimpleX connection link, full (`/invitation#/?…`, `/contact#/?…`) or short (`/i#…`, `/a#…`, `/g#…`, `/c#…`,
/// `/r#…`), with the `simplex:` scheme or on any https host.
struct SimplexLink: Hashable, Sendable {
    var linkType: SimplexLinkType
    /// The link with the `simplex:` scheme; for a short link with its hosts in `h=`.
    var simplexURI: String
    var smpHosts: [String]
    var isShort: Bool

    init?(parsing text: String) {
        let rest: Substring
        var webHost: String?
        if text.hasPrefix("simplex:/") {
            rest = text.dropFirst("simplex:".count)
        } else if text.hasPrefix("https://") {
            let afterScheme = text.dropFirst("https://".count)
            guard let slash = afterScheme.firstIndex(of: "/"), slash > afterScheme.startIndex else { return nil }
            var host = afterScheme[..<slash]
            if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
            guard !host.isEmpty else { return nil }
            webHost = String(host)
            rest = afterScheme[slash...]
        } else {
            return nil
        }
        if let query = Self.stripping(rest, "/invitation#/?") {
            guard let full = Self.full(query, invitation: true) else { return nil }
            linkType = .invitation
            smpHosts = full.hosts
        } else if let query = Self.stripping(rest, "/contact#/?") {
            guard let full = Self.full(query, invitation: false) else { return nil }
            linkType = full.isGroup ? .group : .contact
            smpHosts = full.hosts
        } else {
            guard let short = Self.short(rest, webHost: webHost) else { return nil }
            (linkType, simplexURI, smpHosts, isShort) = (short.type, short.uri, short.hosts, true)
            return
        }
        simplexURI = "simplex:" + rest
        isShort = false
    }

    private static func stripping(_ s: Substring, _ prefix: String) -> Substring? {
        s.hasPrefix(prefix) ? s.dropFirst(prefix.count) : nil
    }

    private static func parameters(_ query: Substring) -> [String: String] {
        var out: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, out[String(parts[0])] == nil { out[String(parts[0])] = String(parts[1]) }
        }
        return out
    }

    private static func decoded(_ s: String) -> String { String(decoding: QueryEncoding.decode(s), as: UTF8.self) }

    /// A full link's query: a version, the SMP queues, and the E2E parameters of an invitation or the client data
    /// of a contact address.
    private static func full(_ query: Substring, invitation: Bool) -> (hosts: [String], isGroup: Bool)? {
        let p = parameters(query)
        guard let version = p["v"], !version.isEmpty, let smp = p["smp"] else { return nil }
        if invitation {
            guard let e2e = p["e2e"], !e2e.isEmpty else { return nil }
        }
        var hosts: [String] = []
        for queue in queues(decoded(smp)) {
            guard let queueHosts = queueHosts(queue) else { return nil }
            hosts += queueHosts
        }
        guard !hosts.isEmpty else { return nil }
        var isGroup = false
        if !invitation, let data = p["data"], let json = try? CanonicalJSON.parse(QueryEncoding.decode(data)) {
            isGroup = json["type"]?.stringValue == "group"
        }
        return (hosts, isGroup)
    }

    /// The queue addresses of `smp=`, comma-separated (a comma not followed by `smp://` belongs to a host list).
    private static func queues(_ smp: String) -> [String] {
        var out: [String] = []
        for piece in smp.split(separator: ",", omittingEmptySubsequences: false) {
            if piece.hasPrefix("smp://") || out.isEmpty {
                out.append(String(piece))
            } else {
                out[out.count - 1] += "," + piece
            }
        }
        return out
    }

    /// `smp://<key hash>@<host>[,<host>…][:<port>]/<queue id>#/?…&srv=<hosts>`: the server's hosts, then those of
    /// `srv`.
    private static func queueHosts(_ queue: String) -> [String]? {
        guard let afterScheme = stripping(Substring(queue), "smp://"), let at = afterScheme.firstIndex(of: "@"),
            at > afterScheme.startIndex
        else { return nil }
        let server = afterScheme[afterScheme.index(after: at)...]
        guard let slash = server.firstIndex(of: "/") else { return nil }
        var hostList = server[..<slash]
        if let colon = hostList.lastIndex(of: ":"), hostList[hostList.index(after: colon)...].allSatisfy(\.isASCIIDigit) {
            hostList = hostList[..<colon]
        }
        let hosts = hostList.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !hosts.contains(where: \.isEmpty) else { return nil }
        let afterSlash = server[server.index(after: slash)...]
        guard let hash = afterSlash.firstIndex(of: "#"), hash > afterSlash.startIndex else { return nil }
        let fragment = afterSlash[afterSlash.index(after: hash)...]
        var extra: [String] = []
        if let query = stripping(fragment, "/?"), let srv = parameters(query)["srv"] {
            extra = decoded(srv).split(separator: ",").map(String.init)
        }
        return hosts + extra
    }

    /// A short link: `/<type>#<key>` (an invitation: `/i#<id>/<key>`), then `?h=<hosts>&p=<port>&c=<key hash>`; on
    /// an https host, that host comes first.
    private static func short(_ rest: Substring, webHost: String?) -> (
        type: SimplexLinkType, uri: String, hosts: [String]
    )? {
        let scalars = Array(rest.unicodeScalars)
        guard scalars.count > 3, scalars[0] == "/", scalars[2] == "#" else { return nil }
        let type: SimplexLinkType
        switch scalars[1] {
        case "i": type = .invitation
        case "a": type = .contact
        case "g": type = .group
        case "c": type = .channel
        case "r": type = .relay
        default: return nil
        }
        let body = rest.dropFirst(3)
        let (keyPart, query) =
            if let q = body.firstIndex(of: "?") { (body[..<q], body[body.index(after: q)...]) } else { (body, Substring("")) }
        let keys = keyPart.split(separator: "/", omittingEmptySubsequences: false)
        guard keys.count == (type == .invitation ? 2 : 1), let key = keys.last,
            (try? Base64.decode(key))?.count == 32
        else { return nil }
        if type == .invitation {
            guard let id = keys.first, (try? Base64.decode(id)) != nil else { return nil }
        }
        let p = parameters(query)
        let queryHosts = p["h"].map { $0.split(separator: ",").map(String.init) } ?? []
        let hosts = (webHost.map { [$0] } ?? []) + queryHosts
        guard !hosts.isEmpty, !hosts.contains(where: \.isEmpty) else { return nil }
        var uri = "simplex:/" + String(scalars[1]) + "#" + keyPart + "?h=" + hosts.joined(separator: ",")
        if let port = p["p"], !port.isEmpty { uri += "&p=" + port }
        if let keyHash = p["c"], !keyHash.isEmpty { uri += "&c=" + keyHash }
        return (type, uri, hosts)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
