public import SimplexEncoding

/// Whether a feature is allowed (chat-api.md §2.5, FeatureAllowed).
public enum FeatureAllowed: String, Hashable, Sendable {
    case always, yes, no
}

/// One chat preference, `{"allow": …}`; `ttl` only for timed messages (chat-api.md §7.3).
public struct ChatPreference: Hashable, Sendable {
    public var allow: FeatureAllowed
    public var ttl: Int64?

    public init(allow: FeatureAllowed, ttl: Int64? = nil) {
        self.allow = allow
        self.ttl = ttl
    }

    var json: JSONValue { .record(["allow": .string(allow.rawValue), "ttl": ttl?.json]) }

    init(_ input: JSONInput, timed: Bool) throws(ChatError) {
        _ = try input.object()
        allow = try input.required("allow").enumeration(FeatureAllowed.self)
        ttl = timed ? try input.optionalInteger("ttl") : nil
    }
}

/// The chat features with preferences, in the core's field order (chat-api.md §2.5 ChatFeature, §7.3).
enum ChatFeature: String, CaseIterable {
    case timedMessages, fullDelete, reactions, voice, files, calls, sessions

    /// `defaultChatPrefs` of the core: what a user has for a feature they set nothing for.
    var defaultPreference: ChatPreference {
        switch self {
        case .timedMessages: ChatPreference(allow: .yes)
        case .fullDelete: ChatPreference(allow: .no)
        case .reactions: ChatPreference(allow: .yes)
        case .voice: ChatPreference(allow: .yes)
        case .files: ChatPreference(allow: .always)
        case .calls: ChatPreference(allow: .yes)
        case .sessions: ChatPreference(allow: .no)
        }
    }
}

/// Preferences (chat-api.md §7.3): every feature optional, plus the bot's commands (kept as the client sent them).
/// Keys the core does not know are dropped, as its typed decoder drops them.
public struct Preferences: Hashable, Sendable {
    public var features: [String: ChatPreference] = [:]
    /// `[ChatBotCommand]`, opaque to the core.
    public var commands: [CanonicalJSON]?

    public init() {}

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        for feature in ChatFeature.allCases {
            if let p = try input.member(feature.rawValue) {
                features[feature.rawValue] = try ChatPreference(p, timed: feature == .timedMessages)
            }
        }
        commands = try input.member("commands")?.array().map(\.value)
    }

    var json: JSONValue {
        var fields = ChatFeature.allCases.compactMap { f in features[f.rawValue].map { JSONField(f.rawValue, $0.json) } }
        if let commands { fields.append(JSONField("commands", .array(commands.map(JSONValue.init)))) }
        return .object(fields)
    }

    /// FullPreferences (`User.fullPreferences`): the user's choice for each feature, else the core's default;
    /// `commands` always present.
    var full: JSONValue {
        var fields = ChatFeature.allCases.map { f in JSONField(f.rawValue, (features[f.rawValue] ?? f.defaultPreference).json) }
        fields.append(JSONField("commands", .array((commands ?? []).map(JSONValue.init))))
        return .object(fields)
    }
}
