/// A group member's role (chat-api.md §2.5, GroupMemberRole), lowest to highest.
public enum GroupMemberRole: String, Hashable, Sendable, CaseIterable {
    case relay, observer, author, member, moderator, admin, owner
}

extension GroupMemberRole: TextArgument {
    /// `<role>` (chat-api.md §3.1): the core's text parser accepts only these five words (the JSON type
    /// has seven); the grammar writes the separating space itself.
    static let lexeme = Lexeme<GroupMemberRole>.words([
        ("owner", .owner), ("admin", .admin), ("moderator", .moderator), ("member", .member), ("observer", .observer),
    ])
}

/// How chat items are deleted (chat-api.md §2.5, CIDeleteMode).
public enum CIDeleteMode: String, Hashable, Sendable, CaseIterable, TextArgument {
    case broadcast, `internal`, internalMark, history

    static let lexeme = Lexeme<CIDeleteMode>.enumeration
}

/// What deleting a chat removes (chat-api.md §3.1, ChatDeleteMode); `notify` tells the contact.
public enum ChatDeleteMode: Hashable, Sendable {
    case full(notify: Bool)
    case entity(notify: Bool)
    case messages

    /// The default when nothing is given: `full notify=on`.
    public static let `default` = ChatDeleteMode.full(notify: true)
}

extension ChatDeleteMode: TextArgument {
    /// ` full[ notify=on|off]`, ` entity[ notify=on|off]`, ` messages`, or ` notify=on|off` / nothing
    /// (both meaning full): the core's `chatDeleteMode`, separating space included.
    static let lexeme = Lexeme<ChatDeleteMode>(
        expected: ["\" full\"", "\" entity\"", "\" messages\"", "\" notify=\""],
        samples: [
            SyntaxSample(" full", alternate: " full notify=on"), SyntaxSample(" full notify=off", alternate: " notify=off"),
            SyntaxSample(" entity", alternate: " entity notify=on"), SyntaxSample(" entity notify=off"),
            SyntaxSample(" messages"), SyntaxSample("", canonical: false),
        ],
        read: { scanner in
            func notify() -> Bool {
                let start = scanner.position
                if scanner.match(Array(" notify=".utf8)) {
                    if scanner.match(Array("on".utf8)) { return true }
                    if scanner.match(Array("off".utf8)) { return false }
                    scanner.expected("\"on\"", at: scanner.position)
                    scanner.expected("\"off\"", at: scanner.position)
                }
                scanner.position = start
                return true
            }
            if scanner.match(Array(" full".utf8)) { return .full(notify: notify()) }
            if scanner.match(Array(" entity".utf8)) { return .entity(notify: notify()) }
            if scanner.match(Array(" messages".utf8)) { return .messages }
            return .full(notify: notify())
        },
        write: { mode, out in
            switch mode {
            case .full(let notify): out += notify ? " full" : " full notify=off"
            case .entity(let notify): out += notify ? " entity" : " entity notify=off"
            case .messages: out += " messages"
            }
            return true
        })
}

/// Why a message is reported (chat-api.md §2.5, ReportReason).
public enum ReportReason: String, Hashable, Sendable, CaseIterable, TextArgument {
    case spam, content, community, profile, other

    static let lexeme = Lexeme<ReportReason>.enumeration
}

/// The WebRTC connection state the UI reports (chat-api.md §2.5, WebRTCCallStatus).
public enum WebRTCCallStatus: String, Hashable, Sendable, CaseIterable, TextArgument {
    case connecting, connected, disconnected, failed

    static let lexeme = Lexeme<WebRTCCallStatus>.enumeration
}

/// How notifications are delivered (chat-api.md §2.5, NotificationsMode).
public enum NotificationsMode: String, Hashable, Sendable, CaseIterable, TextArgument {
    case off = "OFF"
    case periodic = "PERIODIC"
    case instant = "INSTANT"

    static let lexeme = Lexeme<NotificationsMode>.enumeration
}

/// A push service (chat-api.md §3.1, DeviceToken).
public enum PushProvider: String, Hashable, Sendable, CaseIterable, TextArgument {
    case apnsDev = "apns_dev"
    case apnsProd = "apns_prod"
    case apnsTest = "apns_test"
    case apnsNull = "apns_null"

    static let lexeme = Lexeme<PushProvider>.enumeration
}

/// A chat item's content type (`content=` in `/_get chat`; chat-api.md §4.3): `text`, `link`, `image`,
/// `video`, `voice`, `file`, `report`, `chat`, or another tag, which the core also accepts.
public struct MsgContentTag: RawRepresentable, Hashable, Sendable, TextArgument {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let text = MsgContentTag(rawValue: "text")
    public static let link = MsgContentTag(rawValue: "link")
    public static let image = MsgContentTag(rawValue: "image")
    public static let video = MsgContentTag(rawValue: "video")
    public static let voice = MsgContentTag(rawValue: "voice")
    public static let file = MsgContentTag(rawValue: "file")
    public static let report = MsgContentTag(rawValue: "report")
    public static let chat = MsgContentTag(rawValue: "chat")

    static let lexeme = Lexeme<String>.token("a content type", sample: "image").map(
        MsgContentTag.init(rawValue:), { $0.rawValue })
}
