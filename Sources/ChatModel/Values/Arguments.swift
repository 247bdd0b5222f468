/// A connection link as commands take it (chat-api.md §3.1): the full link, then optionally the short
/// link after one space (CreatedConnLink).
public struct CreatedConnLink: Hashable, Sendable {
    public var fullLink: String
    public var shortLink: String?

    public init(fullLink: String, shortLink: String? = nil) {
        self.fullLink = fullLink
        self.shortLink = shortLink
    }
}

extension CreatedConnLink: TextArgument {
    static let lexeme = Lexeme<CreatedConnLink>.record(
        [.param(\.fullLink, .uri), .optional(.space, \.shortLink, .uri)],
        blank: CreatedConnLink(fullLink: ""))
}

/// A device's push token, `<pushProvider> <hexToken>` (chat-api.md §3.1, DeviceToken).
public struct DeviceToken: Hashable, Sendable {
    public var provider: PushProvider
    public var token: String

    public init(provider: PushProvider, token: String) {
        self.provider = provider
        self.token = token
    }
}

extension DeviceToken: TextArgument {
    static let lexeme = Lexeme<DeviceToken>.record(
        [.param(\.provider), .space, .param(\.token, .token("a hex token", sample: "4f5a09e1"))],
        blank: DeviceToken(provider: .apnsNull, token: ""))
}

/// A local file, optionally encrypted: `[ key=<fileKey> ][ nonce=<fileNonce>]<path>` (chat-api.md §3.1,
/// CryptoFile) — as in the core's `cryptoFileP`, each optional part begins with its own space, so an
/// encrypted file reads ` key=K  nonce=N/path`.
public struct CryptoFile: Hashable, Sendable {
    public var filePath: String
    public var cryptoArgs: CryptoFileArgs?

    public init(filePath: String, cryptoArgs: CryptoFileArgs? = nil) {
        self.filePath = filePath
        self.cryptoArgs = cryptoArgs
    }
}

/// The key and nonce of an encrypted local file (base64url, as the core's `strP`).
public struct CryptoFileArgs: Hashable, Sendable {
    public var fileKey: String
    public var fileNonce: String

    public init(fileKey: String, fileNonce: String) {
        self.fileKey = fileKey
        self.fileNonce = fileNonce
    }
}

extension CryptoFile: TextArgument {
    static let lexeme = Lexeme<CryptoFile>.record(
        [.optional("", \.cryptoArgs, cryptoArgsLexeme), .param(\.filePath, .rest)],
        blank: CryptoFile(filePath: ""))
}

private let cryptoArgsLexeme = Lexeme<CryptoFileArgs>.record(
    [
        " key=", .param(\.fileKey, .token("a file key", sample: "a2V5S0VZa2V5")), .space, " nonce=",
        .param(\.fileNonce, .token("a file nonce", sample: "bm9uY2U")),
    ],
    blank: CryptoFileArgs(fileKey: "", fileNonce: ""))

/// One message to fetch for a notification (chat-api.md §4.9): `<agentConnId>:<dbQueueId>:<msgTs>`.
public struct ConnMsgReq: Hashable, Sendable {
    public var agentConnId: String
    public var dbQueueId: Int64
    public var msgTs: String

    public init(agentConnId: String, dbQueueId: Int64, msgTs: String) {
        self.agentConnId = agentConnId
        self.dbQueueId = dbQueueId
        self.msgTs = msgTs
    }

    static let listLexeme = Lexeme<[ConnMsgReq]>(
        expected: ["<agentConnId>:<dbQueueId>:<msgTs>"],
        samples: [
            SyntaxSample("Y29ubklk:12:2025-06-01T09:30:12Z"),
            SyntaxSample("Y29ubklk:12:2025-06-01T09:30:12Z,b3RoZXI:13:2025-06-01T09:30:13.5Z"),
        ],
        read: { scanner in
            var list: [ConnMsgReq] = []
            repeat {
                let connId = scanner.take { $0 != UInt8(ascii: ":") && !CommandScanner.isSpace($0) && $0 != UInt8(ascii: ",") }
                guard !connId.isEmpty, scanner.match([UInt8(ascii: ":")]), let queueId = scanner.decimal(),
                    scanner.match([UInt8(ascii: ":")])
                else { return nil }
                let ts = scanner.take { $0 != UInt8(ascii: ",") && !CommandScanner.isSpace($0) }
                guard !ts.isEmpty else { return nil }
                list.append(
                    ConnMsgReq(agentConnId: CommandScanner.text(connId), dbQueueId: queueId, msgTs: CommandScanner.text(ts)))
            } while scanner.match([UInt8(ascii: ",")])
            return list
        },
        write: { list, out in
            guard !list.isEmpty else { return false }
            out += list.map { "\($0.agentConnId):\($0.dbQueueId):\($0.msgTs)" }.joined(separator: ",")
            return true
        })
}

/// The link owner a channel joiner binds to a known contact: ` contact=<contactId> owner=<memberId>`
/// (chat-api.md §4.4, `/_connect group`).
public struct LinkOwner: Hashable, Sendable {
    public var contactId: Int64
    public var memberId: String

    public init(contactId: Int64, memberId: String) {
        self.contactId = contactId
        self.memberId = memberId
    }

    static let lexeme = Lexeme<LinkOwner>.record(
        [.param(\.contactId), " owner=", .param(\.memberId, .token("a member id", sample: "bWVtYmVy"))],
        blank: LinkOwner(contactId: 0, memberId: ""))
}

/// A message argument given as text or as JSON (chat-api.md §3.1, "message content argument").
public enum TextOrJSON: Hashable, Sendable {
    /// `text <text>`: plain text, one message.
    case text(String)
    /// `json <json>`: the JSON form (e.g. `[ComposedMessage]`, `UpdatedMessage`, `MsgContent`).
    case json(RawJSON)
}

extension Lexeme where Value == TextOrJSON {
    /// `text <text>` as `.text`; writes only `.text`, and not an empty text (its line would end in the
    /// space the core drops, and not parse).
    static let textCase = Lexeme<String>.rest.map(TextOrJSON.text) {
        if case .text(let text) = $0, !text.isEmpty { text } else { nil }
    }

    /// `<json>` as `.json`; writes only `.json`.
    static func jsonCase(_ kind: RawJSON.Kind) -> Lexeme {
        Lexeme<RawJSON>.json(kind).map(TextOrJSON.json) {
            if case .json(let json) = $0 { json } else { nil }
        }
    }

    /// `text <text>` or `json <json>` (the core's `msgContentP`).
    static func msgContent(_ kind: RawJSON.Kind) -> Lexeme {
        record(.oneOf([["text ", .param(\.self, textCase)], ["json ", .param(\.self, jsonCase(kind))]]), blank: .text(""))
    }
}

extension Lexeme where Value == RawJSON {
    /// A JSON value of `kind` to the end of the line (the core's `jsonP`; surrounding whitespace allowed).
    static func json(_ kind: RawJSON.Kind) -> Lexeme {
        let article = kind == .array || kind == .object ? "a JSON \(kind.rawValue)" : "JSON"
        let samples: [SyntaxSample]
        switch kind {
        case .array:
            samples = [
                SyntaxSample(
                    #"[{"msgContent":{"type":"text","text":"hi \"you\""},"mentions":{}}]"#,
                    alternate:
                        "[\n  {\n    \"msgContent\": {\"type\": \"text\", \"text\": \"hi \\\"you\\\"\"},\n    \"mentions\": {}\n  }\n]"
                )
            ]
        default:
            samples = [
                SyntaxSample(
                    #"{"a":[1,-2.5e3,true,null],"b":{"c":"d\u00e9"}}"#,
                    alternate: "\n{\n  \"a\" : [ 1 ,\t-2.5e3, true, null ],\r\n  \"b\": {\"c\": \"d\\u00e9\"}\n}")
            ]
        }
        return Lexeme(
            expected: [article], samples: samples,
            read: { scanner in
                let start = scanner.position
                guard let json = RawJSON.read(&scanner) else { return nil }
                guard json.kind == kind else {
                    scanner.expected(article, at: start)
                    return nil
                }
                return json
            },
            write: { json, out in
                guard json.kind == kind else { return false }
                out += json.text
                return true
            })
    }
}

extension Lexeme where Value == String {
    /// A JSON string to the end of the line, decoded (passwords: `/_user 2 "secret"`).
    static let jsonString = Lexeme(
        expected: ["a JSON string"], samples: [SyntaxSample(#""pass \"word\"""#, alternate: #" "pass \u0022word\"""#)],
        read: { scanner in
            let start = scanner.position
            guard let json = RawJSON.read(&scanner) else { return nil }
            guard let value = json.stringValue else {
                scanner.expected("a JSON string", at: start)
                return nil
            }
            return value
        },
        write: { value, out in
            out += JSONReader.quoted(value)
            return true
        })

    /// A database key: printable ASCII without spaces (chat-api.md §3.1, DBEncryptionKey).
    static let dbKey = token("a key of printable ASCII characters", sample: "k3y!~") {
        $0.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
    }

    /// A connection verification code: digits and spaces (the core's `verifyCodeP`).
    static let verifyCode = Lexeme(
        expected: ["a code of digits and spaces"], samples: [SyntaxSample("12345 67890 12345")],
        read: { scanner in
            let code = scanner.take { CommandScanner.isDigit($0) || $0 == 0x20 }
            return code.isEmpty ? nil : CommandScanner.text(code)
        },
        write: { code, out in
            guard !code.isEmpty, code.utf8.allSatisfy({ CommandScanner.isDigit($0) || $0 == 0x20 }) else { return false }
            out += code
            return true
        })
}

extension Lexeme where Value == [Int64] {
    /// `<ids>`: comma-separated decimal ids, at least one, no spaces.
    static let ids = Lexeme(
        expected: ["comma-separated ids"], samples: [SyntaxSample("12"), SyntaxSample("12,13,20")],
        read: { scanner in
            var ids: [Int64] = []
            repeat {
                guard let id = scanner.decimal() else { return nil }
                ids.append(id)
            } while scanner.match([UInt8(ascii: ",")])
            return ids
        },
        write: { ids, out in
            guard !ids.isEmpty, ids.allSatisfy({ $0 >= 0 }) else { return false }
            out += ids.map(String.init).joined(separator: ",")
            return true
        })
}

extension Lexeme where Value == Int64? {
    /// Seconds or `default` (`nil`): chat item TTLs and the message TTL of `ttl=`.
    static let secondsOrDefault = Lexeme(
        expected: ["a number of seconds", "\"default\""], samples: [SyntaxSample("86400"), SyntaxSample("default")],
        read: { scanner in
            if scanner.match(Array("default".utf8)) { return .some(nil) }
            return scanner.decimal().map { .some($0) }
        },
        write: { value, out in
            guard let seconds = value else {
                out += "default"
                return true
            }
            return Lexeme<Int64>.decimal.write(seconds, &out)
        })
}

extension Lexeme where Value == Double {
    /// Decimal seconds, possibly fractional (`timeout=` of a service request).
    static let seconds = Lexeme(
        expected: ["a number of seconds"], samples: [SyntaxSample("30"), SyntaxSample("2.5")],
        read: { scanner in
            let whole = scanner.take(while: CommandScanner.isDigit)
            guard !whole.isEmpty else { return nil }
            var text = CommandScanner.text(whole)
            let dot = scanner.position
            if scanner.match([UInt8(ascii: ".")]) {
                let fraction = scanner.take(while: CommandScanner.isDigit)
                if fraction.isEmpty {
                    scanner.position = dot
                } else {
                    text += "." + CommandScanner.text(fraction)
                }
            }
            return Double(text)
        },
        write: { value, out in
            guard value.isFinite, value >= 0 else { return false }
            if value == value.rounded(), value < 1e15 {
                out += String(Int64(value))
            } else {
                out += String(value)
            }
            return true
        })
}
