public import ChatModel
public import SimplexEncoding

/// Whether a group feature is on (chat-api.md §2.5, GroupFeatureEnabled).
public enum GroupFeatureEnabled: String, Hashable, Sendable {
    case on, off
}

/// The group features, in the core's field order (chat-api.md §2.5 GroupFeature, §7.3 GroupPreferences), with the
/// parameter each one carries besides `enable`.
enum GroupFeature: String, CaseIterable {
    case timedMessages, directMessages, fullDelete, reactions, voice, files, simplexLinks, reports, history, support
    case sessions, comments, signMessages

    enum Parameter { case none, ttl, role, duration }

    var parameter: Parameter {
        switch self {
        case .timedMessages: .ttl
        case .directMessages, .voice, .files, .simplexLinks, .sessions: .role
        case .comments: .duration
        case .fullDelete, .reactions, .reports, .history, .support, .signMessages: .none
        }
    }

    /// What a group has for a feature its profile leaves out (the core's `defaultGroupPrefs`).
    var defaultPreference: GroupPreference {
        switch self {
        case .timedMessages: GroupPreference(enable: .off, ttl: 86400)
        case .reactions, .voice, .files, .simplexLinks, .reports, .support: GroupPreference(enable: .on)
        case .directMessages, .fullDelete, .history, .sessions, .comments, .signMessages: GroupPreference(enable: .off)
        }
    }
}

/// One group preference: `{"enable": …}` with the feature's optional parameter (chat-api.md §7.3).
public struct GroupPreference: Hashable, Sendable, JSONWritable {
    public var enable: GroupFeatureEnabled
    /// Timed messages: seconds.
    public var ttl: Int64?
    /// The lowest role the feature is on for.
    public var role: GroupMemberRole?
    /// Comments: how long they stay open.
    public var duration: Int64?

    init(enable: GroupFeatureEnabled, ttl: Int64? = nil) {
        self.enable = enable
        self.ttl = ttl
    }

    init(_ input: JSONInput, _ parameter: GroupFeature.Parameter) throws(ChatError) {
        _ = try input.object()
        enable = try input.required("enable").enumeration(GroupFeatureEnabled.self)
        switch parameter {
        case .none: break
        case .ttl: ttl = try input.optionalInteger("ttl")
        case .duration: duration = try input.optionalInteger("duration")
        case .role: role = try input.member("role")?.enumeration(GroupMemberRole.self)
        }
    }

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("enable", enable.rawValue)
        w.field("ttl", ttl)
        w.field("role", role?.rawValue)
        w.field("duration", duration)
        w.endObject()
    }
}

/// GroupPreferences (chat-api.md §7.3): every feature optional, plus the group bot's commands (opaque). Keys the core
/// does not know are dropped, as its typed decoder drops them.
public struct GroupPreferences: Hashable, Sendable {
    public var features: [String: GroupPreference] = [:]
    /// `[ChatBotCommand]`, opaque to the core.
    public var commands: [CanonicalJSON]?

    public init() {}

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        for feature in GroupFeature.allCases {
            if let p = try input.member(feature.rawValue) {
                features[feature.rawValue] = try GroupPreference(p, feature.parameter)
            }
        }
        commands = try input.member("commands")?.array().map(\.value)
    }

    var json: JSONValue {
        var fields = GroupFeature.allCases.compactMap { f in features[f.rawValue].map { JSONField(f.rawValue, $0.json) } }
        if let commands { fields.append(JSONField("commands", .array(commands.map(JSONValue.init)))) }
        return .object(fields)
    }

    private static let defaultFull: [UInt8] = {
        var w = JSONWriter(capacity: 1024)
        var defaults = GroupPreferences()
        defaults.commands = []
        defaults.writeFull(to: &w)
        return w.bytes
    }()

    /// FullGroupPreferences (`GroupInfo.fullGroupPreferences`): the group's choice for each feature, else the core's
    /// default; `commands` always present.
    func writeFull(to w: inout JSONWriter) {
        // Most groups keep the defaults: their text is always the same.
        if features.isEmpty && commands == nil {
            w.rawValue(Self.defaultFull)
            return
        }
        w.beginObject()
        for f in GroupFeature.allCases {
            w.key(f.rawValue)
            (features.isEmpty ? f.defaultPreference : features[f.rawValue] ?? f.defaultPreference).write(to: &w)
        }
        w.key("commands")
        w.beginArray()
        for command in commands ?? [] { w.value(JSONValue(command)) }
        w.endArray()
        w.endObject()
    }
}

extension GroupFeature {
    /// The features a group's feature items are about, in order (the core's `allGroupFeatures`; the features added
    /// after it — support, sessions, comments, signMessages — have no item text in any source that could be read).
    static let itemFeatures: [GroupFeature] = [
        .timedMessages, .directMessages, .fullDelete, .reactions, .voice, .files, .simplexLinks, .reports, .history,
    ]

    /// `groupFeatureNameText`.
    var nameText: String {
        switch self {
        case .timedMessages: "Disappearing messages"
        case .directMessages: "Direct messages"
        case .fullDelete: "Full deletion"
        case .reactions: "Message reactions"
        case .voice: "Voice messages"
        case .files: "Files and media"
        case .simplexLinks: "SimpleX links"
        case .reports: "Member reports"
        case .history: "Recent history"
        // No item is made for these (see `itemFeatures`).
        case .support, .sessions, .comments, .signMessages: rawValue
        }
    }

    /// A feature's state as its item carries it (`groupFeatureState`): the parameter and role only when it is on.
    func state(_ preferences: GroupPreferences?) -> (enable: GroupFeatureEnabled, param: Int64?, role: GroupMemberRole?) {
        let p = preferences?.features[rawValue] ?? defaultPreference
        guard p.enable == .on else { return (p.enable, nil, nil) }
        return (p.enable, self == .timedMessages ? p.ttl : nil, parameter == .role ? p.role : nil)
    }

    /// `groupPrefStateText`: "Voice messages: on for admins", "Disappearing messages: on (1 day)".
    func stateText(_ enable: GroupFeatureEnabled, param: Int64?, role: GroupMemberRole?) -> String {
        var text = "\(nameText): \(enable.rawValue)"
        if enable == .on, self == .timedMessages, let param { text += " (\(Self.ttlText(param)))" }
        if let role { text += " for \(role.rawValue)s" }
        return text
    }

    /// `timedTTLText`: months of 30 days, days, hours, minutes, seconds, the zero parts left out.
    static func ttlText(_ ttl: Int64) -> String {
        if ttl == 0 { return "0 sec" }
        let (m1, s) = ttl.quotientAndRemainder(dividingBy: 60)
        let (h1, m) = m1.quotientAndRemainder(dividingBy: 60)
        let (d1, h) = h1.quotientAndRemainder(dividingBy: 24)
        let (mm, d) = d1.quotientAndRemainder(dividingBy: 30)
        var parts: [String] = []
        if mm != 0 { parts.append(mm == 1 ? "1 month" : "\(mm) months") }
        if d != 0 { parts.append(d == 1 ? "1 day" : d == 7 ? "1 week" : d == 14 ? "2 weeks" : "\(d) days") }
        if h != 0 { parts.append(h == 1 ? "1 hour" : "\(h) hours") }
        if m != 0 { parts.append("\(m) min") }
        if s != 0 { parts.append("\(s) sec") }
        return parts.joined(separator: " ")
    }
}
