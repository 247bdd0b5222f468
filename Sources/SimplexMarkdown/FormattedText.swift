internal import SimplexEncoding

/// FormattedText (chat-api.md §7.19): a run of a message's text with its format; `text` is what is shown, without
/// the markers (`*bold*` is shown as `bold`).
public struct FormattedText: Hashable, Sendable {
    public var format: Format?
    public var text: String

    public init(_ text: String, _ format: Format? = nil) {
        self.text = text
        self.format = format
    }

    /// The record in the core's field order (`format` before `text`, as the Haskell record has them); no format, no
    /// key.
    public var json: MarkdownJSON {
        var fields: [MarkdownJSON.Field] = []
        if let format { fields.append(.init("format", format.json)) }
        fields.append(.init("text", .string(text)))
        return .object(fields)
    }
}

/// Format (chat-api.md §7.19): the tags of the official types, as `{"type": tag, fields…}`.
public enum Format: Hashable, Sendable {
    case bold
    case italic
    case strikeThrough
    case snippet
    case secret
    case small
    case colored(FormatColor)
    case uri
    /// `[showText](linkUri)`.
    case hyperLink(showText: String?, linkUri: String)
    /// A SimpleX connection link; `simplexUri` is its `simplex:` form, whatever host the text used.
    case simplexLink(showText: String?, linkType: SimplexLinkType, simplexUri: String, smpHosts: [String])
    case simplexName(SimplexNameInfo)
    case command(commandStr: String)
    case mention(memberName: String)
    case email
    case phone

    /// Whether the item carrying this format has a link (`CIMeta.hasLink`).
    public var isLink: Bool {
        switch self {
        case .uri, .hyperLink, .simplexLink: true
        case .bold, .italic, .strikeThrough, .snippet, .secret, .small, .colored, .simplexName, .command, .mention, .email,
            .phone:
            false
        }
    }

    public var json: MarkdownJSON {
        switch self {
        case .bold: .tagged("bold")
        case .italic: .tagged("italic")
        case .strikeThrough: .tagged("strikeThrough")
        case .snippet: .tagged("snippet")
        case .secret: .tagged("secret")
        case .small: .tagged("small")
        case .colored(let color): .tagged("colored", [.init("color", .string(color.rawValue))])
        case .uri: .tagged("uri")
        case .hyperLink(let showText, let linkUri):
            .tagged("hyperLink", Self.optional("showText", showText) + [.init("linkUri", .string(linkUri))])
        case .simplexLink(let showText, let linkType, let simplexUri, let smpHosts):
            .tagged(
                "simplexLink",
                Self.optional("showText", showText) + [
                    .init("linkType", .string(linkType.rawValue)), .init("simplexUri", .string(simplexUri)),
                    .init("smpHosts", .array(smpHosts.map(MarkdownJSON.string))),
                ])
        case .simplexName(let info): .tagged("simplexName", [.init("nameInfo", info.json)])
        case .command(let commandStr): .tagged("command", [.init("commandStr", .string(commandStr))])
        case .mention(let memberName): .tagged("mention", [.init("memberName", .string(memberName))])
        case .email: .tagged("email")
        case .phone: .tagged("phone")
        }
    }

    private static func optional(_ key: String, _ value: String?) -> [MarkdownJSON.Field] {
        value.map { [.init(key, .string($0))] } ?? []
    }
}

/// The colors of `colored` (chat-api.md §7.19).
public enum FormatColor: String, Hashable, Sendable, CaseIterable {
    case black, red, green, yellow, blue, magenta, cyan, white
}

/// What a SimpleX link connects to (chat-api.md §7.19).
public enum SimplexLinkType: String, Hashable, Sendable, CaseIterable {
    case contact, invitation, group, channel, relay
}

/// SimplexNameInfo (chat-api.md §7.35).
public struct SimplexNameInfo: Hashable, Sendable {
    public enum NameType: String, Hashable, Sendable {
        case publicGroup, contact
    }

    public enum TLD: String, Hashable, Sendable {
        case simplex, testing, web
    }

    public var nameType: NameType
    public var nameTLD: TLD
    public var domain: String
    public var subDomain: [String]

    public init(nameType: NameType, nameTLD: TLD, domain: String, subDomain: [String]) {
        self.nameType = nameType
        self.nameTLD = nameTLD
        self.domain = domain
        self.subDomain = subDomain
    }

    var json: MarkdownJSON {
        .object([
            .init("nameType", .string(nameType.rawValue)),
            .init(
                "nameDomain",
                .object([
                    .init("nameTLD", .string(nameTLD.rawValue)), .init("domain", .string(domain)),
                    .init("subDomain", .array(subDomain.map(MarkdownJSON.string))),
                ])),
        ])
    }
}

/// The JSON of formatted texts, with keys in the core's order. The module sits below the core's JSON value, so it
/// has this small tree of its own; the core and the C ABI convert or render it.
public indirect enum MarkdownJSON: Hashable, Sendable {
    case string(String)
    case array([MarkdownJSON])
    case object([Field])

    public struct Field: Hashable, Sendable {
        public let key: String
        public let value: MarkdownJSON

        public init(_ key: String, _ value: MarkdownJSON) {
            self.key = key
            self.value = value
        }
    }

    static func tagged(_ tag: String, _ fields: [Field] = []) -> MarkdownJSON {
        .object([Field("type", .string(tag))] + fields)
    }

    /// Compact JSON text, strings escaped as the core escapes them.
    public var rendered: String {
        var out: [UInt8] = []
        render(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func render(into out: inout [UInt8]) {
        switch self {
        case .string(let s): CanonicalJSON.appendQuoted(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.render(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (i, field) in fields.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                CanonicalJSON.appendQuoted(field.key, to: &out)
                out.append(UInt8(ascii: ":"))
                field.value.render(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}

extension [FormattedText] {
    /// `[FormattedText]` as JSON.
    public var json: MarkdownJSON { .array(map(\.json)) }
}
